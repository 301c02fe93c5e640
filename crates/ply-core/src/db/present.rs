//! Files of present keys ([`Keys::Present`]): the cells of the indices a
//! game names, in index order, and no keys. Each block covers a fixed run
//! of [`PRESENT_BLOCK`] indices and starts with the count of its cells in
//! each piece of [`PRESENT_RUN`] indices (a `u16` each), then the cells,
//! packed. A probe counts the named indices before its own in its piece
//! with the game's test ([`super::Presence`]), so no index the game does not name
//! costs a bit, and no key is stored: Connect Four's boards of 36 discs
//! spend 8.7 indices of their dense index a position.

use super::codec::{self, Dictionary};
use super::format::{Header, LeftOut, PRESENT_RUN};
use super::leave_out::{kept, kept_dictionary, sampled_sizes};
use super::reader::Database;
use super::writer::{Meta, header, write_blocks};
use crate::census::Census;
use crate::db_error::DbError;
use crate::progress::Progress;
use crate::solution::{Keys, Solution};
use crate::value::{Cell, Outcome, Value};
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Indices per block of a file of present keys.
pub const PRESENT_BLOCK: u32 = 1 << 18;

/// What a file of present keys does with remoteness.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LeaveOut {
    /// Keeps every cell's remoteness.
    Nothing,
    /// Leaves out this side's (win or lose).
    Side(Value),
    /// Leaves out the side that compresses smaller, judged on a sample of
    /// blocks ([`super::SAMPLE_EVERY`]).
    Smaller,
}

/// `census` less the cells of `value` (a side left out).
fn without(census: &Census<u64>, value: Option<Value>) -> Census<u64> {
    let Some(value) = value else {
        return census.clone();
    };
    let mut kept = Census::new();
    kept.add_many(Outcome::DRAW, census.draw, || 0);
    for (r, row) in census.by_remoteness.iter().enumerate() {
        let r = r as u32;
        for (&n, outcome) in row
            .iter()
            .zip([Outcome::win(r), Outcome::lose(r), Outcome::tie(r)])
        {
            if outcome.value != value {
                kept.add_many(outcome, n, || 0);
            }
        }
    }
    kept.longest_win = census.longest_win.filter(|_| value != Value::Win);
    kept.longest_lose = census.longest_lose.filter(|_| value != Value::Lose);
    kept
}

/// Writes the file of present keys at `path`, atomically: `fill(indices,
/// cells)` pushes the (index, cell) of each index of `indices` that holds
/// one, in increasing order, and `entries` are the cells in all; `census`
/// counts the positions they stand for (examples keys). Returns the side
/// whose remoteness it leaves out, if any, and the file's size. A fill
/// that gives an index out of order or outside its run, or other than
/// `entries` cells in all, fails the write.
pub fn write_present(
    path: &Path,
    meta: &Meta,
    (census, entries): (&Census<u64>, u64),
    leave: LeaveOut,
    fill: impl Fn(Range<u64>, &mut Vec<(u64, Cell)>) -> Result<(), DbError> + Sync,
    progress: &dyn Progress,
) -> Result<(Option<Value>, u64), DbError> {
    let mut present = vec![false; 1 << 16];
    if census.draw > 0 {
        present[usize::from(Cell::pack(Outcome::DRAW).bits())] = true;
    }
    for (r, row) in census.by_remoteness.iter().enumerate() {
        let r = r as u32;
        for (&n, outcome) in row
            .iter()
            .zip([Outcome::win(r), Outcome::lose(r), Outcome::tie(r)])
        {
            if n > 0 {
                present[usize::from(Cell::pack(outcome).bits())] = true;
            }
        }
    }
    let whole = Header {
        counted: Some(census.clone()),
        ..header(meta, Keys::Present, entries, PRESENT_BLOCK, &present)
    };
    let runs = whole.runs();
    let packed = |block: u64, side: Option<Value>, dictionary: &Dictionary| {
        let indices = whole.indices_of(block);
        let mut cells = Vec::new();
        fill(indices.clone(), &mut cells)?;
        let mut counts = vec![0u16; runs];
        let mut last = None;
        for &(index, _) in &cells {
            if !indices.contains(&index) || last.is_some_and(|l| l >= index) {
                return Err(DbError::corrupt(
                    path,
                    format!("index {index} given out of order for block {block}"),
                ));
            }
            last = Some(index);
            counts[((index - indices.start) / u64::from(PRESENT_RUN)) as usize] += 1;
        }
        let mut raw = Vec::with_capacity(2 * runs + dictionary.packed_len(cells.len()));
        for n in counts {
            raw.extend_from_slice(&n.to_le_bytes());
        }
        let cells_kept = cells
            .iter()
            .map(|&(_, cell)| side.map_or(cell, |v| kept(cell, v)));
        dictionary.pack(cells_kept, &mut raw).ok_or_else(|| {
            DbError::corrupt(
                path,
                format!("a cell of block {block} is not in its census"),
            )
        })?;
        Ok::<_, DbError>((indices.start, raw, cells.len() as u64))
    };
    let side = match leave {
        LeaveOut::Nothing => None,
        LeaveOut::Side(value @ (Value::Win | Value::Lose)) => Some(value),
        LeaveOut::Side(other) => {
            return Err(DbError::corrupt(
                path,
                format!("a {other:?}'s remoteness cannot be left out"),
            ));
        }
        LeaveOut::Smaller => {
            let sides =
                [Value::Win, Value::Lose].map(|v| (v, kept_dictionary(&whole.dictionary, v)));
            let sizes = sampled_sizes(
                path,
                whole.block_count(),
                super::SAMPLE_EVERY,
                meta.level,
                |block, side| {
                    let (value, dictionary) = &sides[side];
                    Ok(packed(block, Some(*value), dictionary)?.1)
                },
            )?;
            Some(if sizes[0] <= sizes[1] {
                Value::Win
            } else {
                Value::Lose
            })
        }
    };
    let written = match side {
        Some(value) => Header {
            dictionary: kept_dictionary(&whole.dictionary, value),
            left_out: LeftOut::of(value, census),
            counted: Some(without(census, side)),
            ..whole.clone()
        },
        None => whole.clone(),
    };
    let counted = AtomicU64::new(0);
    let size = write_blocks(path, &written, meta.level, progress, |block| {
        let (first, raw, cells) = packed(block, side, &written.dictionary)?;
        counted.fetch_add(cells, Relaxed);
        Ok((first, raw))
    })?;
    let counted = counted.into_inner();
    if counted != entries {
        let _ = std::fs::remove_file(path);
        return Err(DbError::corrupt(
            path,
            format!("{counted} cells were given where {entries} were said"),
        ));
    }
    Ok((side, size))
}

/// Rewrites `db`, the one file of present keys at `path` read with its
/// game's test ([`Database::with_presence`]), atomically at the full zstd
/// level, leaving out `side`'s remoteness: for a file written keeping
/// every remoteness before the side was known. A file that already leaves
/// out a side is kept as it is. Returns the side the file leaves out.
pub fn leave_out_present(
    path: &Path,
    db: &Database,
    side: Value,
    progress: &dyn Progress,
) -> Result<Value, DbError> {
    let header = match db.headers().collect::<Vec<_>>().as_slice() {
        [header] => (*header).clone(),
        _ => return Err(DbError::corrupt(path, "not one file")),
    };
    if header.keys != Keys::Present {
        return Err(DbError::corrupt(path, "not a file of present keys"));
    }
    if let Some(left_out) = &header.left_out {
        return Ok(left_out.value);
    }
    let census = header
        .counted
        .as_ref()
        .ok_or_else(|| DbError::corrupt(path, "no census in its header"))?;
    let meta = Meta {
        game: header.game.clone(),
        rules_version: header.rules_version,
        index_len: header.index_len,
        range: header.range.clone(),
        level: codec::ZSTD_LEVEL,
    };
    let (left_out, _) = write_present(
        path,
        &meta,
        (census, header.entries),
        LeaveOut::Side(side),
        |keys, cells| db.for_each_cell(keys, &mut |key, cell| cells.push((key, cell))),
        progress,
    )?;
    Ok(left_out.unwrap_or(side))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::format::{FOOTER, INDEX_ENTRY};
    use crate::db::{Database, Problem};
    use crate::progress::NoProgress;
    use crate::solution::{Presence, Solution};
    use proptest::prelude::*;
    use std::sync::Arc;

    /// A game that names one index in about `every`, each standing for 1
    /// or 2 positions, as a hash of the index and `seed` says.
    struct Named {
        seed: u64,
        every: u64,
    }

    impl Named {
        fn mix(&self, index: u64) -> u64 {
            let x = (index ^ self.seed).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^ (x >> 29)
        }
        /// The cell of a named index.
        fn cell(&self, index: u64) -> Cell {
            let x = self.mix(index) >> 7;
            match x % 4 {
                0 => Cell::pack(Outcome::DRAW),
                1 => Cell::pack(Outcome::tie((x >> 3) as u32 % 9)),
                2 => Cell::pack(Outcome::win((x >> 3) as u32 % 31)),
                _ => Cell::pack(Outcome::lose((x >> 3) as u32 % 30)),
            }
        }
    }

    impl Presence for Named {
        fn stands_for(&self, index: u64) -> u64 {
            let x = self.mix(index);
            if x.is_multiple_of(self.every) {
                1 + (x >> 5) % 2
            } else {
                0
            }
        }
    }

    /// Writes the file of `named`'s cells over `range` of a key space of
    /// `len`, leaving out `leave`; returns its path's directory, the
    /// census, and the side left out.
    fn written(
        named: &Named,
        (len, range): (u64, Range<u64>),
        leave: LeaveOut,
    ) -> (
        tempfile::TempDir,
        std::path::PathBuf,
        Census<u64>,
        Option<Value>,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("present.plydb");
        let meta = Meta {
            game: "test".into(),
            rules_version: 1,
            index_len: len,
            range: range.clone(),
            level: 3,
        };
        let mut census = Census::new();
        let mut entries = 0;
        for key in range.clone() {
            let n = named.stands_for(key - range.start);
            if n > 0 {
                entries += 1;
                census.add_many(named.cell(key).unpack().unwrap(), n, || key);
            }
        }
        let fill = |keys: Range<u64>, cells: &mut Vec<(u64, Cell)>| {
            for key in keys {
                if named.stands_for(key - range.start) > 0 {
                    cells.push((key, named.cell(key)));
                }
            }
            Ok(())
        };
        let (side, _) =
            write_present(&path, &meta, (&census, entries), leave, fill, &NoProgress).unwrap();
        (dir, path, census, side)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Every named index reads back its cell (or the left-out cell of
        /// its side), every other reads unknown; a scan visits the named
        /// ones in order; a census, whole or of a part, counts what each
        /// cell stands for, as one counted cell by cell does.
        #[test]
        fn present_keys_read_back(
            seed in any::<u64>(),
            every in 1u64..40,
            start in 0u64..5000,
            len in 1u64..700_000,
            leave in prop_oneof![
                Just(LeaveOut::Nothing),
                Just(LeaveOut::Side(Value::Win)),
                Just(LeaveOut::Smaller),
            ],
        ) {
            let named = Arc::new(Named { seed, every });
            let range = start..start + len;
            let (_dir, path, census, side) =
                written(&named, (start + len + 3, range.clone()), leave);
            prop_assert_eq!(side.is_some(), leave != LeaveOut::Nothing);
            let bare = Database::open_piece(&path).unwrap();
            let key = range.start + len / 2;
            if named.stands_for(key - start) > 0 {
                let err = bare.cell(key).unwrap_err();
                prop_assert!(matches!(err.problem, Problem::NoPresence), "{}", err);
            }
            let shared: Arc<dyn Presence> = named.clone();
            let db = bare.with_presence(|_| Some(Arc::clone(&shared)));
            let expected = |key: u64| match named.stands_for(key - start) {
                0 => Cell::UNKNOWN,
                _ => {
                    let cell = named.cell(key);
                    side.map_or(cell, |v| kept(cell, v))
                }
            };
            let step = (len / 3000).max(1);
            for key in (range.start..range.end).step_by(step as usize).chain([range.end - 1]) {
                prop_assert_eq!(db.cell(key).unwrap(), expected(key), "key {}", key);
            }
            let mut seen = Vec::new();
            db.for_each_cell(range.clone(), &mut |key, cell| seen.push((key, cell))).unwrap();
            let named_keys: Vec<(u64, Cell)> = range
                .clone()
                .filter(|&k| named.stands_for(k - start) > 0)
                .map(|k| (k, expected(k)))
                .collect();
            prop_assert_eq!(seen, named_keys);
            let whole = db.census_by(range.clone(), &|_| 1).unwrap();
            let left_out = db.headers().next().unwrap().left_out.as_ref().map_or(Census::new(), |l| l.census(1));
            prop_assert_eq!(whole.merge(left_out).by_remoteness, census.by_remoteness.clone());
            prop_assert_eq!(db.headers().next().unwrap().positions(), census.positions);
            let part = range.start + len / 3..range.end - len / 4;
            let mut by_cell = Census::new();
            for key in part.clone() {
                let n = named.stands_for(key - start);
                if let (true, Some(outcome)) = (n > 0, expected(key).unpack()) {
                    by_cell.add_many(outcome, 2 * n, || key);
                }
            }
            let counted = db.census_by(part, &|_| 2).unwrap();
            prop_assert_eq!(counted.by_remoteness, by_cell.by_remoteness);
            prop_assert_eq!(counted.draw, by_cell.draw);
            prop_assert_eq!(counted.longest_win, by_cell.longest_win);
            let mut stored = Vec::new();
            db.for_each_stored(&mut |cell| stored.push(cell)).unwrap();
            prop_assert_eq!(stored.len() as u64, db.entries());
        }

        /// A file written keeping every remoteness, then rewritten leaving
        /// out a side, reads as one written leaving that side out at once:
        /// the same cells, census and left-out counts; rewriting it again
        /// keeps it as it is.
        #[test]
        fn a_side_left_out_later_reads_as_at_once(
            seed in any::<u64>(),
            every in 1u64..40,
            len in 1u64..700_000,
            side in prop_oneof![Just(Value::Win), Just(Value::Lose)],
        ) {
            let named = Arc::new(Named { seed, every });
            let range = 7..7 + len;
            let index = (len + 10, range.clone());
            let (_whole_dir, whole, _, kept_all) = written(&named, index.clone(), LeaveOut::Nothing);
            prop_assert_eq!(kept_all, None);
            let (_dir, at_once, _, _) = written(&named, index, LeaveOut::Side(side));
            let shared: Arc<dyn Presence> = named.clone();
            let open = |path: &Path| {
                Database::open_piece(path).unwrap().with_presence(|_| Some(Arc::clone(&shared)))
            };
            let before = open(&whole);
            prop_assert_eq!(leave_out_present(&whole, &before, side, &NoProgress).unwrap(), side);
            drop(before);
            let built = std::fs::metadata(&whole).unwrap().modified().unwrap();
            let other = if side == Value::Win { Value::Lose } else { Value::Win };
            prop_assert_eq!(leave_out_present(&whole, &open(&whole), other, &NoProgress).unwrap(), side);
            prop_assert_eq!(std::fs::metadata(&whole).unwrap().modified().unwrap(), built);
            let (later, once) = (open(&whole), open(&at_once));
            let header = |db: &Database| db.headers().next().unwrap().clone();
            prop_assert_eq!(&header(&later).left_out, &header(&once).left_out);
            prop_assert_eq!(&header(&later).counted, &header(&once).counted);
            prop_assert!(header(&later).left_out.is_some());
            let cells = |db: &Database| {
                let mut seen = Vec::new();
                db.for_each_cell(range.clone(), &mut |key, cell| seen.push((key, cell))).unwrap();
                seen
            };
            prop_assert_eq!(cells(&later), cells(&once));
        }
    }

    /// A game that names index 5 of each block and index 700 of every
    /// third.
    struct Sparse;

    impl Sparse {
        const BLOCK: u64 = PRESENT_BLOCK as u64;
        fn named(block: u64) -> impl Iterator<Item = u64> {
            let first = block * Self::BLOCK;
            [first + 5]
                .into_iter()
                .chain(block.is_multiple_of(3).then_some(first + 700))
        }
        fn cell(index: u64) -> Cell {
            Cell::pack(Outcome::win((index % 7) as u32 * 2 + 1))
        }
    }

    impl Presence for Sparse {
        fn stands_for(&self, index: u64) -> u64 {
            let at = index % Self::BLOCK;
            u64::from(at == 5 || (at == 700 && (index / Self::BLOCK).is_multiple_of(3)))
        }
    }

    /// A file whose block index is too large to read whole for one probe
    /// is read an entry at a time: every probe and scan reads what was
    /// written, and an entry damaged in the file fails its own block's
    /// probe, naming it, while the others still read.
    #[test]
    fn a_large_block_index_is_read_an_entry_at_a_time() {
        let blocks = (super::super::reader::INDEX_READ_WHOLE / INDEX_ENTRY as u64) + 9;
        let len = blocks * Sparse::BLOCK;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse.plydb");
        let meta = Meta {
            game: "test".into(),
            rules_version: 1,
            index_len: len,
            range: 0..len,
            level: 3,
        };
        let mut census = Census::new();
        let mut entries = 0;
        for block in 0..blocks {
            for index in Sparse::named(block) {
                census.add(Sparse::cell(index).unpack().unwrap(), || index);
                entries += 1;
            }
        }
        let fill = |keys: Range<u64>, cells: &mut Vec<(u64, Cell)>| {
            let block = keys.start / Sparse::BLOCK;
            cells.extend(Sparse::named(block).map(|i| (i, Sparse::cell(i))));
            Ok(())
        };
        write_present(
            &path,
            &meta,
            (&census, entries),
            LeaveOut::Nothing,
            fill,
            &NoProgress,
        )
        .unwrap();
        let open = |path: &Path| {
            let shared: Arc<dyn Presence> = Arc::new(Sparse);
            Database::open_piece(path)
                .unwrap()
                .with_presence(|_| Some(Arc::clone(&shared)))
        };
        let db = open(&path);
        for block in (0..blocks).step_by(97).chain([blocks - 1]) {
            for index in Sparse::named(block) {
                assert_eq!(
                    db.cell(index).unwrap(),
                    Sparse::cell(index),
                    "index {index}"
                );
            }
            assert_eq!(db.cell(block * Sparse::BLOCK + 6).unwrap(), Cell::UNKNOWN);
        }
        let mut seen = 0;
        db.for_each_cell(0..len, &mut |key, cell| {
            assert_eq!(cell, Sparse::cell(key));
            seen += 1;
        })
        .unwrap();
        assert_eq!(seen, entries);
        // Block 40's entry, its first key made another's.
        let bytes = std::fs::read(&path).unwrap();
        let index_at = bytes.len() - FOOTER - 8 - blocks as usize * INDEX_ENTRY;
        let mut damaged = bytes.clone();
        let entry = index_at + 40 * INDEX_ENTRY;
        let first_key = (entry..entry + INDEX_ENTRY)
            .find(|&at| damaged[at..at + 8] == (40 * Sparse::BLOCK).to_le_bytes())
            .expect("the entry holds its first key");
        damaged[first_key] ^= 1;
        std::fs::write(&path, &damaged).unwrap();
        let db = open(&path);
        let err = db.cell(40 * Sparse::BLOCK + 5).unwrap_err();
        assert!(err.to_string().contains("block 40 is misplaced"), "{err}");
        assert_eq!(
            db.cell(41 * Sparse::BLOCK + 5).unwrap(),
            Sparse::cell(41 * Sparse::BLOCK + 5)
        );
    }

    /// A fill that gives fewer cells than said, or one out of its run,
    /// fails the write and leaves no file.
    #[test]
    fn a_fill_that_contradicts_itself_fails_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.plydb");
        let meta = Meta {
            game: "test".into(),
            rules_version: 1,
            index_len: 1000,
            range: 0..1000,
            level: 3,
        };
        let mut census = Census::new();
        census.add_many(Outcome::DRAW, 10, || 0);
        let tens = |keys: Range<u64>, cells: &mut Vec<(u64, Cell)>| {
            cells.extend(
                keys.filter(|k| k % 100 == 0)
                    .map(|k| (k, Cell::pack(Outcome::DRAW))),
            );
            Ok(())
        };
        let err = write_present(
            &path,
            &meta,
            (&census, 11),
            LeaveOut::Nothing,
            tens,
            &NoProgress,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("10 cells were given where 11"),
            "{err}"
        );
        assert!(!path.exists());
        let outside = |_: Range<u64>, cells: &mut Vec<(u64, Cell)>| {
            cells.push((5000, Cell::pack(Outcome::DRAW)));
            Ok(())
        };
        let err = write_present(
            &path,
            &meta,
            (&census, 1),
            LeaveOut::Nothing,
            outside,
            &NoProgress,
        )
        .unwrap_err();
        assert!(err.to_string().contains("out of order"), "{err}");
        assert!(!path.exists());
    }
}
