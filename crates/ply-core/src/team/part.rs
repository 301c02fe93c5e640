//! A team's *part* of a tier: the cells one process solved, as they travel
//! to the others in one message over TCP (see [`super::exchange`]).
//!
//! A part is read once, as soon as it comes, so it is coded for speed
//! rather than size: runs of cells, each run its keys as LEB128
//! differences (the first from the run's first key, so 0) each followed by
//! the cell's two bytes. Runs are coded and read in parallel. Layout, all
//! little-endian:
//!
//! ```text
//! u64 runs | runs x (u64 first key, u64 cells, u64 bytes) | run bytes... | u64 xxh3 of all before
//! ```
//!
//! A part is read only whole: one whose checksum, header or runs do not
//! add up is an error saying what is wrong, never cells. (What game, team
//! and tier it is of, the connection's handshake and the message's frame
//! say.)

use crate::db;
use crate::db::codec::{get_varint, put_varint};
use crate::value::Cell;
use rayon::prelude::*;

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

/// Codes `runs` (in increasing key order) as one part.
pub(super) fn encode(runs: &[Run]) -> Vec<u8> {
    let payload: usize = runs.iter().map(|r| r.bytes.len()).sum();
    let mut out = Vec::with_capacity(16 + runs.len() * 24 + payload);
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
    out
}

/// Reads the part `bytes`, calling `apply(key, cell)` with each cell (in
/// parallel, runs at a time); `apply` says false for a key the reader has
/// no place for. Returns how many cells it held, or what is wrong with it.
pub(super) fn decode(
    bytes: &[u8],
    apply: impl Fn(u64, Cell) -> bool + Sync,
) -> Result<u64, String> {
    let (body, sum) = bytes.split_last_chunk::<8>().ok_or("shorter than a part")?;
    if db::codec::checksum(body) != u64::from_le_bytes(*sum) {
        return Err("its checksum does not match its bytes".into());
    }
    let mut at = 0usize;
    let mut take = |n: usize| {
        let slice = at.checked_add(n).and_then(|end| body.get(at..end));
        at = at.saturating_add(n);
        slice.ok_or("it ends inside its header")
    };
    // `take(8)` gives exactly 8 bytes, so this always fits; zeros would
    // stand in were it ever short.
    let u64_at = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap_or_default());
    let count = usize::try_from(u64_at(take(8)?)).map_err(|_| "too many runs")?;
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
        return Err("bytes are left past its last run".into());
    }
    let fine = slices
        .par_iter()
        .all(|&(first, cells, bytes)| read_run(first, cells, bytes, &apply));
    if !fine {
        return Err("a run does not decode to cells of the game".into());
    }
    Ok(runs.iter().map(|&(_, cells, _)| cells).sum())
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

    fn cell(n: u16) -> Cell {
        Cell::from_bits(0x2000 | n)
    }

    #[test]
    fn a_part_reads_back_its_cells_and_refuses_damage() {
        let runs: Vec<Run> = [
            vec![(3, cell(1)), (4, cell(2)), (300, cell(9))],
            vec![(901, cell(5))],
        ]
        .into_iter()
        .filter_map(Run::code)
        .collect();
        let bytes = encode(&runs);
        let got = Mutex::new(Vec::new());
        let cells = decode(&bytes, |k, c| {
            got.lock().unwrap().push((k, c));
            true
        });
        assert_eq!(cells, Ok(4));
        let mut got = got.into_inner().unwrap();
        got.sort_by_key(|&(k, _)| k);
        assert_eq!(
            got,
            vec![(3, cell(1)), (4, cell(2)), (300, cell(9)), (901, cell(5))]
        );
        // A key the reader has no place for.
        assert!(decode(&bytes, |k, _| k < 900).is_err());
        // Any byte changed, or any cut.
        for at in [0, 9, 60, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            let why = decode(&damaged, |_, _| true).unwrap_err();
            assert!(why.contains("checksum"), "{why}");
        }
        for len in [0, 7, 8, bytes.len() - 1] {
            assert!(decode(&bytes[..len], |_, _| true).is_err(), "cut at {len}");
        }
        // A header that promises more than there is, checksum and all.
        let mut lying = u64::MAX.to_le_bytes().to_vec();
        lying.extend_from_slice(&db::codec::checksum(&lying).to_le_bytes());
        let why = decode(&lying, |_, _| true).unwrap_err();
        assert!(why.contains("ends inside its header"), "{why}");
        assert_eq!(decode(&encode(&[]), |_, _| true), Ok(0));
    }
}
