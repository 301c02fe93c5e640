//! Rewriting a database to leave out one side's remoteness
//! ([`crate::derive`]): every win (or every loss) becomes one cell,
//! [`Cell::left_out`], and the header keeps the counts by remoteness the
//! cells no longer carry ([`LeftOut`]). Which side saves more depends on the
//! game, so it is measured on a sample of blocks first.

use super::codec::{self, Dictionary};
use super::format::{Header, LeftOut};
use super::reader::Database;
use super::writer::{INDEX_BLOCK, Meta, header, write_blocks};
use crate::census::Census;
use crate::db_error::DbError;
use crate::progress::Progress;
use crate::solution::Keys;
use crate::value::{Cell, Outcome, Value};
use rayon::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One block in this many is compressed both ways when [`smaller_side`]
/// chooses the side to leave out for a saved game.
pub const SAMPLE_EVERY: u64 = 16;

/// The cell that stands for `cell` once `value`'s remoteness is left out.
pub(super) fn kept(cell: Cell, value: Value) -> Cell {
    match cell.unpack() {
        Some(o) if o.value == value => Cell::left_out(value).unwrap_or(cell),
        _ => cell,
    }
}

/// The dictionary of a file whose cells were `dictionary`'s, `value`'s
/// remoteness left out.
pub(super) fn kept_dictionary(dictionary: &Dictionary, value: Value) -> Dictionary {
    let mut present = vec![false; 1 << 16];
    for &cell in dictionary.cells() {
        present[usize::from(kept(cell, value).bits())] = true;
    }
    Dictionary::from_present(&present).byte_aligned()
}

/// The only header of the one-file database `db` over every index of its
/// range, or why it cannot have a side left out.
fn sole_header(db: &Database, path: &Path) -> Result<Header, DbError> {
    let header = db
        .headers()
        .next()
        .cloned()
        .ok_or_else(|| DbError::corrupt(path, "no header"))?;
    if header.keys != Keys::Index {
        return Err(DbError::corrupt(
            path,
            "only a database over every index can leave out remoteness",
        ));
    }
    Ok(header)
}

/// Block `block` of the one-file database `db` at `path` (whose
/// dictionary is `old`), `value`'s remoteness left out: each old symbol's
/// cell is `kept[symbol]`, packed with `dictionary`.
fn repacked(
    (db, path): (&Database, &Path),
    old: &Dictionary,
    kept: &[Cell],
    dictionary: &Dictionary,
    (block, cells): (u64, usize),
) -> Result<Vec<u8>, DbError> {
    let packed = db.piece_block(block)?;
    let mut raw = Vec::with_capacity(dictionary.packed_len(cells));
    let cells = (0..cells).map(|i| kept.get(old.symbol_at(&packed, i)).copied());
    let mut beyond = false;
    let packed_all = dictionary.pack(
        cells.map_while(|cell| {
            beyond |= cell.is_none();
            cell
        }),
        &mut raw,
    );
    match packed_all {
        Some(()) if !beyond => Ok(raw),
        _ => Err(DbError::corrupt(
            path,
            format!("block {block} holds a symbol its dictionary does not list"),
        )),
    }
}

/// The cell each symbol of `old` stands for once `value`'s remoteness is
/// left out.
fn kept_cells(old: &Dictionary, value: Value) -> Vec<Cell> {
    old.cells().iter().map(|&c| kept(c, value)).collect()
}

/// How many cells of the one-file database `db` hold each symbol of its
/// dictionary.
fn symbol_counts(db: &Database, header: &Header) -> Result<Vec<u64>, DbError> {
    let old = &header.dictionary;
    (0..header.block_count())
        .into_par_iter()
        .map(|block| {
            let packed = db.piece_block(block)?;
            let mut counts = vec![0u64; old.cells().len()];
            for i in 0..header.cells_in(block) {
                if let Some(n) = counts.get_mut(old.symbol_at(&packed, i)) {
                    *n += 1;
                }
            }
            Ok(counts)
        })
        .try_reduce(
            || vec![0u64; old.cells().len()],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                Ok(a)
            },
        )
}

/// The first key of the one-file database `db` holding `symbol`.
fn first_key_of(db: &Database, header: &Header, symbol: usize) -> Result<Option<u64>, DbError> {
    for block in 0..header.block_count() {
        let packed = db.piece_block(block)?;
        if let Some(i) =
            (0..header.cells_in(block)).find(|&i| header.dictionary.symbol_at(&packed, i) == symbol)
        {
            return Ok(Some(header.first_key(block) + i as u64));
        }
    }
    Ok(None)
}

/// What leaving out `value`'s remoteness from the one-file database `db`
/// loses: its counts by remoteness and a key of the longest.
fn left_out_of(db: &Database, header: &Header, value: Value) -> Result<LeftOut, DbError> {
    let counts = symbol_counts(db, header)?;
    let mut by_remoteness = Vec::new();
    let mut longest = None;
    for (symbol, (&cell, &n)) in header.dictionary.cells().iter().zip(&counts).enumerate() {
        let Some(o) = cell.unpack().filter(|o| o.value == value && n > 0) else {
            continue;
        };
        let r = o.remoteness.unwrap_or(0) as usize;
        if by_remoteness.len() <= r {
            by_remoteness.resize(r + 1, 0);
        }
        by_remoteness[r] += n;
        if longest.is_none_or(|(l, _)| l < r) {
            longest = Some((r, symbol));
        }
    }
    let longest_key = match longest {
        Some((_, symbol)) => first_key_of(db, header, symbol)?.unwrap_or(0),
        None => 0,
    };
    Ok(LeftOut {
        value,
        by_remoteness,
        longest_key,
    })
}

/// Rewrites the database at `path` (one file over every index of its
/// range) leaving out the remoteness of `value` (win or lose), atomically,
/// reporting blocks written; returns the new size. The header keeps the
/// source's build time and program. A file already leaving
/// out `value` is left as it is; one leaving out the other side, or a tie
/// or draw asked for, is an error.
pub fn leave_out(path: &Path, value: Value, progress: &dyn Progress) -> Result<u64, DbError> {
    let db = Database::open_piece(path)?;
    // A file written leaving out `value` (of any key kind) is as asked.
    if db
        .headers()
        .all(|h| h.left_out.as_ref().is_some_and(|l| l.value == value))
    {
        return Ok(db.bytes());
    }
    let header = sole_header(&db, path)?;
    match &header.left_out {
        Some(l) if l.value == value => return Ok(db.bytes()),
        Some(l) => {
            return Err(DbError::corrupt(
                path,
                format!(
                    "it leaves out the remoteness of every {:?} already",
                    l.value
                ),
            ));
        }
        None => {}
    }
    if Cell::left_out(value).is_none() {
        return Err(DbError::corrupt(
            path,
            format!("a {value:?}'s remoteness cannot be left out"),
        ));
    }
    let left_out = left_out_of(&db, &header, value)?;
    let kept = kept_cells(&header.dictionary, value);
    let dictionary = kept_dictionary(&header.dictionary, value);
    // The build time and program stay the source's: the cells are that
    // build's, only stored differently.
    let written = Header {
        dictionary: dictionary.clone(),
        left_out: Some(left_out),
        ..header.clone()
    };
    write_blocks(path, &written, codec::ZSTD_LEVEL, progress, |block| {
        let raw = repacked(
            (&db, path),
            &header.dictionary,
            &kept,
            &dictionary,
            (block, header.cells_in(block)),
        )?;
        Ok((header.first_key(block), raw))
    })
}

/// Writes the cells of the indices in `meta.range` to `path` as
/// [`super::write_indexed`] and then [`leave_out`] with the side
/// [`smaller_side`] picks would leave it, writing the file once. `fill`
/// sets the known cells of a range of indices in a slice of
/// [`Cell::UNKNOWN`] (a block at a time, so a table can walk its keys
/// rather than look each index up). The side
/// is picked by compressing every `every`-th block both ways,
/// and what the file no longer holds comes from `census`, the cells'
/// census (one per key, examples keys), which must count every known
/// cell. Returns the side left out and the file's size.
pub fn write_indexed_leaving_out(
    path: &Path,
    meta: &Meta,
    census: &Census<u64>,
    fill: impl Fn(Range<u64>, &mut [Cell]) -> Result<(), DbError> + Sync,
    every: u64,
    progress: &dyn Progress,
) -> Result<(Value, u64), DbError> {
    write_indexed_leaving_out_side(path, meta, census, fill, (None, every), progress)
}

/// [`write_indexed_leaving_out`] with the side to leave out given
/// (`Some`), for a file of a database whose other files leave out that
/// side, or picked by compressing every `every`-th block both ways
/// (`None`).
pub fn write_indexed_leaving_out_side(
    path: &Path,
    meta: &Meta,
    census: &Census<u64>,
    fill: impl Fn(Range<u64>, &mut [Cell]) -> Result<(), DbError> + Sync,
    (side, every): (Option<Value>, u64),
    progress: &dyn Progress,
) -> Result<(Value, u64), DbError> {
    let mut present = vec![false; 1 << 16];
    let mut mark = |cell: Cell| present[usize::from(cell.bits())] = true;
    if census.draw > 0 {
        mark(Cell::pack(Outcome::DRAW));
    }
    for (r, counts) in census.by_remoteness.iter().enumerate() {
        let r = r as u32;
        let outcomes = [Outcome::win(r), Outcome::lose(r), Outcome::tie(r)];
        for (&n, outcome) in counts.iter().zip(outcomes) {
            if n > 0 {
                mark(Cell::pack(outcome));
            }
        }
    }
    let range = meta.range.clone();
    let whole = header(
        meta,
        Keys::Index,
        range.end - range.start,
        INDEX_BLOCK,
        &present,
    );
    let block_entries = u64::from(INDEX_BLOCK);
    let packed = |block: u64, value: Value, dictionary: &Dictionary| {
        let start = range.start + block * block_entries;
        let end = range.end.min(start + block_entries);
        let mut cells = vec![Cell::UNKNOWN; (end - start) as usize];
        fill(start..end, &mut cells)?;
        let mut raw = Vec::with_capacity(dictionary.packed_len(cells.len()));
        dictionary
            .pack(cells.iter().map(|&cell| kept(cell, value)), &mut raw)
            .ok_or_else(|| {
                DbError::corrupt(
                    path,
                    format!("a cell of block {block} is not in its census"),
                )
            })?;
        Ok::<_, DbError>((start, raw))
    };
    let sides = [Value::Win, Value::Lose].map(|v| (v, kept_dictionary(&whole.dictionary, v)));
    let wins = match side {
        Some(Value::Win) => true,
        Some(Value::Lose) => false,
        Some(other) => {
            return Err(DbError::corrupt(
                path,
                format!("a {other:?}'s remoteness cannot be left out"),
            ));
        }
        None => {
            let sizes = sampled_sizes(
                path,
                whole.block_count(),
                every,
                meta.level,
                |block, side| {
                    let (value, dictionary) = &sides[side];
                    Ok(packed(block, *value, dictionary)?.1)
                },
            )?;
            sizes[0] <= sizes[1]
        }
    };
    let [win, lose] = sides;
    let (side, dictionary) = if wins { win } else { lose };
    let written = Header {
        dictionary: dictionary.clone(),
        left_out: LeftOut::of(side, census),
        ..whole
    };
    let size = write_blocks(path, &written, meta.level, progress, |block| {
        packed(block, side, &dictionary)
    })?;
    Ok((side, size))
}

/// The compressed sizes, the wins' remoteness left out then the losses',
/// of every `every`-th of a file's first `blocks` blocks, block `block`
/// packed with side `side` (0 win, 1 lose) left out by `raw(block, side)`
/// and compressed at zstd level `level`.
pub(super) fn sampled_sizes(
    path: &Path,
    blocks: u64,
    every: u64,
    level: i32,
    raw: impl Fn(u64, usize) -> Result<Vec<u8>, DbError> + Sync,
) -> Result<[u64; 2], DbError> {
    let sample: Vec<u64> = (0..blocks).step_by(every.max(1) as usize).collect();
    sample
        .par_iter()
        .map(|&block| {
            let mut sizes = [0u64; 2];
            for (side, size) in sizes.iter_mut().enumerate() {
                *size = codec::encode_at(&raw(block, side)?, level)
                    .map_err(|e| DbError::io(path, e))?
                    .bytes
                    .len() as u64;
            }
            Ok(sizes)
        })
        .try_reduce(|| [0, 0], |a, b| Ok([a[0] + b[0], a[1] + b[1]]))
}

/// The side (win or lose) whose remoteness leaves the databases at
/// `paths` smallest when left out, from every `every`-th block of each,
/// compressed both ways; the sizes compressed that way, win then lose.
pub fn smaller_side(paths: &[PathBuf], every: u64) -> Result<(Value, [u64; 2]), DbError> {
    let mut sizes = [0u64; 2];
    for path in paths {
        let db = Database::open_piece(path)?;
        let header = sole_header(&db, path)?;
        let old = &header.dictionary;
        let sides =
            [Value::Win, Value::Lose].map(|v| (kept_cells(old, v), kept_dictionary(old, v)));
        let sampled = sampled_sizes(
            path,
            header.block_count(),
            every,
            codec::ZSTD_LEVEL,
            |block, side| {
                let (kept, dictionary) = &sides[side];
                repacked(
                    (&db, path),
                    old,
                    kept,
                    dictionary,
                    (block, header.cells_in(block)),
                )
            },
        )?;
        sizes[0] += sampled[0];
        sizes[1] += sampled[1];
    }
    let side = if sizes[0] <= sizes[1] {
        Value::Win
    } else {
        Value::Lose
    };
    Ok((side, sizes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Meta, write_indexed};
    use crate::progress::NoProgress;
    use crate::solution::Solution;
    use crate::value::Outcome;

    /// A cell for key `i`: unknown, draws, and wins and losses of many
    /// remotenesses, over several blocks.
    fn cell_of(i: u64) -> Cell {
        match i % 7 {
            0 => Cell::UNKNOWN,
            1 => Cell::pack(Outcome::DRAW),
            2 | 3 => Cell::pack(Outcome::win((i % 41) as u32 | 1)),
            _ => Cell::pack(Outcome::lose((i % 37) as u32 & !1)),
        }
    }

    /// The test file's description: keys 1,000 to 250,000 of 300,000.
    fn meta() -> Meta {
        Meta {
            game: "cells".into(),
            rules_version: 1,
            index_len: 300_000,
            range: 1_000..250_000,
            level: crate::db::codec::ZSTD_LEVEL,
        }
    }

    fn written(dir: &Path) -> PathBuf {
        let path = dir.join("cells.plydb");
        write_indexed(&path, &meta(), cell_of, &NoProgress).unwrap();
        path
    }

    #[test]
    fn a_side_left_out_keeps_every_other_cell_and_the_census() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path());
        let before = Database::open_piece(&path).unwrap();
        let census = before.census(1_000..250_000).unwrap();
        drop(before);
        for value in [Value::Lose, Value::Win] {
            let path = written(dir.path());
            let size = leave_out(&path, value, &NoProgress).unwrap();
            let db = Database::open_piece(&path).unwrap();
            assert_eq!(db.bytes(), size);
            db.verify().unwrap();
            for i in (1_000..250_000).step_by(13) {
                assert_eq!(db.cell(i).unwrap(), kept(cell_of(i), value), "{i}");
            }
            let header = db.headers().next().unwrap();
            let left = header.left_out.as_ref().unwrap();
            assert_eq!(left.value, value);
            let whole = db.census(1_000..250_000).unwrap().merge(left.census(1));
            assert_eq!(whole.by_remoteness, census.by_remoteness);
            assert_eq!(
                (whole.win, whole.lose, whole.draw),
                (census.win, census.lose, census.draw)
            );
            let longest = match value {
                Value::Win => census.longest_win.unwrap(),
                _ => census.longest_lose.unwrap(),
            };
            assert_eq!(
                kept(cell_of(left.longest_key), value),
                Cell::left_out(value).unwrap()
            );
            assert_eq!(
                cell_of(left.longest_key).unpack().unwrap().remoteness,
                Some(longest.0)
            );
            // Again is nothing; the other side too is refused.
            assert_eq!(leave_out(&path, value, &NoProgress).unwrap(), size);
            assert!(leave_out(&path, value.flip(), &NoProgress).is_err());
        }
    }

    /// Writing once leaving out a side gives the cells, the side and the
    /// record of what was left out that writing whole and then rewriting
    /// give; a cell missing from the census is an error, not a panic.
    #[test]
    fn writing_once_leaving_out_a_side_is_writing_then_leaving_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path());
        let (side, _) = smaller_side(std::slice::from_ref(&path), 4).unwrap();
        let census = Database::open_piece(&path)
            .unwrap()
            .census(1_000..250_000)
            .unwrap();
        let rewritten = leave_out(&path, side, &NoProgress).unwrap();
        let once = dir.path().join("once.plydb");
        let meta = meta();
        let fill = |range: Range<u64>, cells: &mut [Cell]| {
            for (i, cell) in range.zip(cells) {
                *cell = cell_of(i);
            }
            Ok(())
        };
        let (chosen, size) =
            write_indexed_leaving_out(&once, &meta, &census, fill, 4, &NoProgress).unwrap();
        assert_eq!((chosen, size), (side, rewritten));
        let (a, b) = (
            Database::open_piece(&path).unwrap(),
            Database::open_piece(&once).unwrap(),
        );
        b.verify().unwrap();
        for i in (1_000..250_000).step_by(7) {
            assert_eq!(b.cell(i).unwrap(), a.cell(i).unwrap(), "{i}");
        }
        let left = |db: &Database| db.headers().next().unwrap().left_out.clone().unwrap();
        let (la, lb) = (left(&a), left(&b));
        assert_eq!((la.value, &la.by_remoteness), (lb.value, &lb.by_remoteness));
        assert_eq!(
            cell_of(la.longest_key).unpack().unwrap().remoteness,
            cell_of(lb.longest_key).unpack().unwrap().remoteness
        );
        // A census that lacks the cells: nothing can be packed.
        let error = write_indexed_leaving_out(&once, &meta, &Census::new(), fill, 4, &NoProgress)
            .unwrap_err();
        assert!(error.to_string().contains("not in its census"), "{error}");
    }

    #[test]
    fn the_smaller_side_is_the_one_measured_smaller() {
        let dir = tempfile::tempdir().unwrap();
        let path = written(dir.path());
        let (side, sizes) = smaller_side(std::slice::from_ref(&path), 1).unwrap();
        let whole = |v| {
            let copy = dir.path().join(format!("{v:?}.plydb"));
            std::fs::copy(&path, &copy).unwrap();
            leave_out(&copy, v, &NoProgress).unwrap()
        };
        let (win, lose) = (whole(Value::Win), whole(Value::Lose));
        assert_eq!(
            side,
            if sizes[0] <= sizes[1] {
                Value::Win
            } else {
                Value::Lose
            }
        );
        assert_eq!(win < lose, sizes[0] < sizes[1], "{win} {lose} {sizes:?}");
    }
}
