//! A team's *part* of a tier: the cells one process solved, as they travel
//! to the others through the shared directory (see
//! [`super::exchange`]).
//!
//! A part is read once, soon after it is written, so it is coded for speed
//! rather than size: runs of cells, each run its keys as LEB128
//! differences (the first from the run's first key, so 0) each followed by
//! the cell's two bytes. Runs are coded and read in parallel. Layout, all
//! little-endian:
//!
//! ```text
//! "PLYPART1" | u32 name length | game name | u32 rules version | u64 index length
//! | u64 tier | u32 process | u32 processes | u64 runs
//! | runs x (u64 first key, u64 cells, u64 bytes) | run bytes... | u64 xxh3 of all before
//! ```
//!
//! A part is written to a temporary file and renamed into place, and read
//! only whole: a part whose checksum, header or runs do not add up is an
//! error naming the file, never cells.

use crate::db::codec::{get_varint, put_varint};
use crate::db::{self, DbError};
use crate::value::Cell;
use rayon::prelude::*;
use std::path::Path;

/// The first bytes of every part.
const MAGIC: [u8; 8] = *b"PLYPART1";

/// What a part says it is of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Label {
    /// The game's full name.
    pub game: String,
    /// The game's rules version.
    pub rules_version: u32,
    /// The size of the game's index.
    pub index_len: u64,
    /// The tier.
    pub tier: u64,
    /// The process that wrote it.
    pub process: u32,
    /// The processes of its team.
    pub processes: u32,
}

/// One run of a part: its first key, its cells and their coded bytes.
pub(crate) struct Run {
    first: u64,
    cells: u64,
    bytes: Vec<u8>,
}

impl Run {
    /// Codes `entries` (increasing keys) as one run; `None` if empty.
    pub(crate) fn code(entries: impl IntoIterator<Item = (u64, Cell)>) -> Option<Run> {
        let mut entries = entries.into_iter().peekable();
        let first = entries.peek()?.0;
        let mut run = Run {
            first,
            cells: 0,
            bytes: Vec::new(),
        };
        let mut last = first;
        for (key, cell) in entries {
            put_varint(key - last, &mut run.bytes);
            run.bytes.extend_from_slice(&cell.bits().to_le_bytes());
            last = key;
            run.cells += 1;
        }
        Some(run)
    }
}

/// Writes `runs` (in increasing key order) as the part `label` at `path`,
/// atomically; returns its size in bytes.
pub(super) fn write(path: &Path, label: &Label, runs: &[Run]) -> Result<u64, DbError> {
    let payload: usize = runs.iter().map(|r| r.bytes.len()).sum();
    let mut out = Vec::with_capacity(64 + label.game.len() + runs.len() * 24 + payload + 8);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&(label.game.len() as u32).to_le_bytes());
    out.extend_from_slice(label.game.as_bytes());
    out.extend_from_slice(&label.rules_version.to_le_bytes());
    out.extend_from_slice(&label.index_len.to_le_bytes());
    out.extend_from_slice(&label.tier.to_le_bytes());
    out.extend_from_slice(&label.process.to_le_bytes());
    out.extend_from_slice(&label.processes.to_le_bytes());
    out.extend_from_slice(&(runs.len() as u64).to_le_bytes());
    for run in runs {
        for n in [run.first, run.cells, run.bytes.len() as u64] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    for run in runs {
        out.extend_from_slice(&run.bytes);
    }
    let sum = db::codec::checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    let temp = db::temporary::path_for(path);
    std::fs::write(&temp, &out)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            DbError::io(path, e)
        })?;
    Ok(out.len() as u64)
}

/// Reads the part at `path`, which must be `expected`, calling `apply(key,
/// cell)` with each cell (in parallel, runs at a time); `apply` says false
/// for a key the reader has no place for. Returns the part's size.
pub(super) fn read(
    path: &Path,
    expected: &Label,
    apply: impl Fn(u64, Cell) -> bool + Sync,
) -> Result<u64, DbError> {
    let bytes = std::fs::read(path).map_err(|e| DbError::io(path, e))?;
    let corrupt = |what: &str| DbError::corrupt(path, what.to_string());
    let (body, sum) = bytes
        .split_last_chunk::<8>()
        .ok_or_else(|| corrupt("shorter than a part"))?;
    if db::codec::checksum(body) != u64::from_le_bytes(*sum) {
        return Err(corrupt("its checksum does not match its bytes"));
    }
    let mut at = 0usize;
    let mut take = |n: usize| {
        let slice = body.get(at..at + n);
        at += n;
        slice.ok_or_else(|| corrupt("ends inside its header"))
    };
    if take(8)? != MAGIC {
        return Err(corrupt("not a part of a team's tier"));
    }
    // `take(n)` gives exactly `n` bytes, so these slices always fit;
    // zeros would stand in were they ever short.
    let u32_at = |s: &[u8]| u32::from_le_bytes(s.try_into().unwrap_or_default());
    let u64_at = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap_or_default());
    let name_len = u32_at(take(4)?) as usize;
    let game = String::from_utf8_lossy(take(name_len)?).into_owned();
    let label = Label {
        game,
        rules_version: u32_at(take(4)?),
        index_len: u64_at(take(8)?),
        tier: u64_at(take(8)?),
        process: u32_at(take(4)?),
        processes: u32_at(take(4)?),
    };
    if label != *expected {
        return Err(DbError::corrupt(
            path,
            format!("a part of {label:?}, where {expected:?} was expected"),
        ));
    }
    let count = usize::try_from(u64_at(take(8)?)).map_err(|_| corrupt("too many runs"))?;
    let mut runs = Vec::with_capacity(count.min(body.len() / 24));
    for _ in 0..count {
        let (first, cells, len) = (u64_at(take(8)?), u64_at(take(8)?), u64_at(take(8)?));
        runs.push((first, cells, usize::try_from(len).unwrap_or(usize::MAX)));
    }
    let mut slices = Vec::with_capacity(runs.len());
    for &(first, cells, len) in &runs {
        slices.push((first, cells, take(len)?));
    }
    if at != body.len() {
        return Err(corrupt("bytes left past its last run"));
    }
    let fine = slices
        .par_iter()
        .all(|&(first, cells, bytes)| read_run(first, cells, bytes, &apply));
    if !fine {
        return Err(corrupt("a run that does not decode to cells of the game"));
    }
    Ok(bytes.len() as u64)
}

/// Decodes one run of `cells` cells, the first key `first`, applying each;
/// false if it is malformed or `apply` refuses a key.
fn read_run(first: u64, cells: u64, bytes: &[u8], apply: &impl Fn(u64, Cell) -> bool) -> bool {
    let (mut key, mut at, mut read) = (first, 0usize, 0u64);
    while at < bytes.len() {
        let Some(delta) = get_varint(bytes, &mut at) else {
            return false;
        };
        let Some(cell) = bytes.get(at..at + 2) else {
            return false;
        };
        at += 2;
        key = match key.checked_add(delta) {
            Some(key) if read == 0 || delta > 0 => key,
            _ => return false,
        };
        let cell = Cell::from_bits(u16::from_le_bytes([cell[0], cell[1]]));
        if cell == Cell::UNKNOWN || !apply(key, cell) {
            return false;
        }
        read += 1;
    }
    read == cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn label() -> Label {
        Label {
            game: "g:1".into(),
            rules_version: 3,
            index_len: 1000,
            tier: 7,
            process: 1,
            processes: 2,
        }
    }

    fn cell(n: u16) -> Cell {
        Cell::from_bits(0x2000 | n)
    }

    #[test]
    fn a_part_reads_back_its_cells_and_refuses_another_label_or_damage() {
        let dir = std::env::temp_dir().join(format!("ply-part-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.part");
        let runs: Vec<Run> = [
            vec![(3, cell(1)), (4, cell(2)), (300, cell(9))],
            vec![(901, cell(5))],
        ]
        .into_iter()
        .filter_map(Run::code)
        .collect();
        let size = write(&path, &label(), &runs).unwrap();
        assert_eq!(size, std::fs::metadata(&path).unwrap().len());
        let got = Mutex::new(Vec::new());
        read(&path, &label(), |k, c| {
            got.lock().unwrap().push((k, c));
            true
        })
        .unwrap();
        let mut got = got.into_inner().unwrap();
        got.sort_by_key(|&(k, _)| k);
        assert_eq!(
            got,
            vec![(3, cell(1)), (4, cell(2)), (300, cell(9)), (901, cell(5))]
        );
        let other = Label { tier: 6, ..label() };
        assert!(read(&path, &other, |_, _| true).is_err());
        assert!(read(&path, &label(), |k, _| k < 900).is_err());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[60] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(&path, &label(), |_, _| true).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
