//! What each fuzz target does with its input, here so that the cargo-fuzz
//! targets under `fuzz/` and the plain test replaying their saved corpora
//! (`tests/suite/fuzz_corpus.rs`) run the same code. Each function takes any
//! bytes and must return without panicking; errors are expected answers.

use crate::session::Session;
use crate::{judge, registry};
use axum::extract::Query;
use axum::http::Uri;
use ply_core::Solution;
use ply_core::db::Database;
use ply_core::db::checksum;
use ply_core::db::{FOOTER, INDEX_ENTRY};
use ply_core::solve::octal::OctalCode;
use std::collections::HashMap;
use std::path::PathBuf;

/// What a fuzz target does with one input.
pub type Target = fn(&[u8]);

/// The fuzz targets by name, each with its function.
pub const TARGETS: &[(&str, Target)] = &[
    ("judge", judge_input),
    ("position", position),
    ("game_name", game_name),
    ("octal_code", octal_code),
    ("query", query),
    ("database", database),
    ("database_shrinking", database_shrinking),
];

/// Input for a contest problem: the first byte picks the problem, the rest
/// is its stdin.
pub fn judge_input(data: &[u8]) {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let problem = &judge::PROBLEMS[usize::from(pick) % judge::PROBLEMS.len()];
    let mut output = Vec::new();
    let _ = (problem.run)(&mut &input[..], &mut output);
}

/// A position of a game's default variant: the first byte picks the game,
/// the rest is the position text, parsed and drawn.
pub fn position(data: &[u8]) {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    SESSIONS.with(|sessions| {
        let session = &sessions[usize::from(pick) % sessions.len()];
        if let Some(session) = session {
            let _ = session.render(text);
        }
    });
}

thread_local! {
    /// Each game's default variant, opened once: reading a position is what
    /// `position` tests, not opening the game again for every input.
    static SESSIONS: Vec<Option<Box<dyn Session>>> =
        registry::entries().map(|entry| (entry.open)(None).ok()).collect();
}

/// A game name with parameters, opened (without solving anything).
pub fn game_name(data: &[u8]) {
    if let Ok(spec) = std::str::from_utf8(data)
        && let Ok(session) = registry::open(spec)
    {
        let _ = session.name();
        let _ = session.memory_bound();
    }
}

/// An octal game code, as `ply octal` reads it.
pub fn octal_code(data: &[u8]) {
    if let Ok(code) = std::str::from_utf8(data) {
        let _ = OctalCode::parse(code);
    }
}

/// The query string of `GET /api/solve`, read as the server reads it.
pub fn query(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(uri) = format!("/api/solve?{text}").parse::<Uri>() else {
        return;
    };
    let _ = Query::<HashMap<String, String>>::try_from_uri(&uri);
}

/// A database file: the first byte says whether to repair its checksums
/// first (bit 0, so that mutations reach past them), the rest is the file.
/// It is opened, verified and read at a few keys and over its first cells.
pub fn database(data: &[u8]) {
    let Some((flags, file)) = database_file(data) else {
        return;
    };
    let path = scratch_path();
    if std::fs::write(&path, &file).is_err() {
        return;
    }
    if let Ok(db) = Database::open_piece(&path) {
        let _ = db.verify();
        let len = db.index_len();
        for key in [0, len / 2, len.saturating_sub(1), u64::from(flags) << 8] {
            let _ = db.cell(key);
            let _ = db.outcome(key);
        }
        let mut seen = 0u64;
        let _ = db.for_each_cell(0..len.min(1 << 20), &mut |_, _| seen += 1);
    }
    let _ = std::fs::remove_file(&path);
}

/// A database file that shrinks while it is read: see [`shrinking_reads`].
pub fn database_shrinking(data: &[u8]) {
    let _ = shrinking_reads(data);
}

/// What the reads of a changed database gave: answers (each checked equal
/// to the whole file's) and refusals.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ShrunkReads {
    /// Reads answered after the change, each as the whole file answers.
    pub right: usize,
    /// Reads refused with an error after the change.
    pub refused: usize,
}

/// Opens a database file, reads some keys, changes the file under the open
/// reader, then reads again: the first two bytes (little-endian) say how
/// much of the file is left, in 65,536ths, the third how many keys are read
/// before it shrinks and, in its top bit, whether the file then grows back
/// to its old length in zeros (a file rewritten in place); the rest is a
/// `database` input. Panics if a read after the change answers other than
/// the whole file does; `None` if the file does not open.
pub fn shrinking_reads(data: &[u8]) -> Option<ShrunkReads> {
    let (head, rest) = data.split_at_checked(3)?;
    let (_, file) = database_file(rest)?;
    let kept = (file.len() as u64 * u64::from(u16::from_le_bytes([head[0], head[1]]))) >> 16;
    let (before, regrow) = (usize::from(head[2] & 0x7f), head[2] & 0x80 != 0);
    let (path, whole) = (scratch_path(), scratch_path().with_extension("whole"));
    let reads = (|| {
        std::fs::write(&path, &file).ok()?;
        std::fs::write(&whole, &file).ok()?;
        let db = Database::open_piece(&path).ok()?;
        let reference = Database::open_piece(&whole).ok()?;
        let len = db.index_len();
        let keys: Vec<u64> = (0..16u64)
            .map(|i| len / 16 * i + i)
            .filter(|&k| k < len)
            .collect();
        for &key in keys.iter().take(before) {
            let _ = db.cell(key);
        }
        let changed = std::fs::OpenOptions::new().write(true).open(&path).ok()?;
        changed.set_len(kept).ok()?;
        if regrow {
            changed.set_len(file.len() as u64).ok()?;
        }
        let mut reads = ShrunkReads::default();
        for &key in &keys {
            match db.cell(key) {
                Ok(cell) => {
                    let expected = reference.cell(key).ok();
                    assert_eq!(Some(cell), expected, "key {key} after the file changed");
                    reads.right += 1;
                }
                Err(_) => reads.refused += 1,
            }
        }
        let span = 0..len.min(1 << 16);
        let mut seen = Vec::new();
        if db
            .for_each_cell(span.clone(), &mut |key, cell| seen.push((key, cell)))
            .is_ok()
        {
            let mut expected = Vec::new();
            let _ = reference.for_each_cell(span, &mut |key, cell| expected.push((key, cell)));
            assert_eq!(seen, expected, "every cell after the file changed");
        }
        let _ = db.verify();
        Some(reads)
    })();
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&whole);
    reads
}

/// The database file a `database` input stands for, with its flag byte:
/// the bytes after the first, their checksums repaired when bit 0 of the
/// first is set. `None` for an empty input.
pub fn database_file(data: &[u8]) -> Option<(u8, Vec<u8>)> {
    let (&flags, file) = data.split_first()?;
    let mut file = file.to_vec();
    if flags & 1 == 1 {
        repair_checksums(&mut file);
    }
    Some((flags, file))
}

/// A file name of this process's own to hold a database under test.
fn scratch_path() -> PathBuf {
    std::env::temp_dir().join(format!("ply-fuzz-{}.plydb", std::process::id()))
}

/// Rewrites every checksum a database file carries (each block's in the
/// index, the index's and the header's) to match the bytes, wherever the
/// lengths and offsets it reads point inside the file.
fn repair_checksums(file: &mut [u8]) {
    let u64_at = |file: &[u8], at: usize| {
        file.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let size = file.len();
    if let Some(index_at) = size
        .checked_sub(FOOTER)
        .and_then(|at| u64_at(file, at))
        .and_then(|offset| usize::try_from(offset).ok())
    {
        let index_end = size.saturating_sub(FOOTER + 8);
        if index_at <= index_end {
            let entries = (index_end - index_at) / INDEX_ENTRY;
            for e in 0..entries {
                let at = index_at + e * INDEX_ENTRY;
                let offset = u64_at(file, at).and_then(|o| usize::try_from(o).ok());
                let len = file[at + 8..at + 12].try_into().map(u32::from_le_bytes);
                if let (Some(offset), Ok(len)) = (offset, len)
                    && let Some(block) = offset
                        .checked_add(len as usize)
                        .and_then(|end| file.get(offset..end))
                {
                    let sum = checksum(block);
                    file[at + 16..at + 24].copy_from_slice(&sum.to_le_bytes());
                }
            }
            let sum = checksum(&file[index_at..index_at + entries * INDEX_ENTRY]);
            if let Some(slot) = file.get_mut(index_end..index_end + 8) {
                slot.copy_from_slice(&sum.to_le_bytes());
            }
        }
    }
    let header_len = file
        .get(12..16)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes);
    if let Some(len) = header_len
        .map(|l| l as usize)
        .filter(|&l| l >= 24 && l <= size)
    {
        let sum = checksum(&file[..len - 8]);
        file[len - 8..len].copy_from_slice(&sum.to_le_bytes());
    }
}
