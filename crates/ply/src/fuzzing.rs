//! What each fuzz target does with its input, here so that the cargo-fuzz
//! targets under `fuzz/` and the plain test replaying their saved corpora
//! (`tests/fuzz_corpus.rs`) run the same code. Each function takes any
//! bytes and must return without panicking; errors are expected answers.

use crate::session::Session;
use crate::{judge, registry};
use axum::extract::Query;
use axum::http::Uri;
use ply_core::db::Database;
use ply_core::db::codec::checksum;
use ply_core::db::format::{FOOTER, INDEX_ENTRY};
use ply_core::solution::Solution;
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
