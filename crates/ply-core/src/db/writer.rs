//! Writes a database: the cells come from a closure (one per index) or a
//! sorted list (canonical keys); blocks are compressed in parallel batches
//! and streamed to a temporary file in the target directory, which is
//! fsync'd and renamed into place only once complete. A build that is
//! killed or fails leaves no database behind, and two builders of the same
//! database never write the same file; the next build of a database
//! removes the temporary files killed builds of it left.

use super::codec::{self, Dictionary};
use super::format::{BlockEntry, END_MAGIC, Header, INDEX_ENTRY};
use super::temporary;
use crate::db_error::{DbError, Problem};
use crate::game::Game;
use crate::progress::Progress;
use crate::solution::Keys;
use crate::value::Cell;
use rayon::prelude::*;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{SystemTime, UNIX_EPOCH};

/// Cells per block for a database over every index.
pub const INDEX_BLOCK: u32 = 1 << 16;
/// Cells per block for a database over canonical keys (each with its key).
pub const CANONICAL_BLOCK: u32 = 1 << 12;
/// Blocks compressed together before they are written.
const BATCH: u64 = 64;

/// What a database holds, besides its cells.
#[derive(Clone, Debug)]
pub struct Meta {
    /// The game's full name with parameters.
    pub game: String,
    /// The game's rules version.
    pub rules_version: u32,
    /// The size of the game's whole key space.
    pub index_len: u64,
    /// The keys this file covers (all of `0..index_len` unless a shard).
    pub range: Range<u64>,
    /// The zstd level its blocks are compressed at: [`codec::ZSTD_LEVEL`],
    /// or `DRAFT_LEVEL` (zstd level 3) for a file to be rewritten smaller later.
    pub level: i32,
}

impl Meta {
    /// The header of a whole database of `game` (not a shard), over
    /// `index_len` keys.
    pub fn whole(game: &impl Game, index_len: u64) -> Meta {
        Meta {
            game: game.name(),
            rules_version: game.rules_version(),
            index_len,
            range: 0..index_len,
            level: codec::ZSTD_LEVEL,
        }
    }
}

/// Writes the cells of the indices in `meta.range`, `cell(i)` for index
/// `i`, to `path`, reporting blocks written. Returns the file's size.
pub fn write_indexed(
    path: &Path,
    meta: &Meta,
    cell: impl Fn(u64) -> Cell + Sync,
    progress: &dyn Progress,
) -> Result<u64, DbError> {
    let present: Vec<AtomicBool> = (0..1 << 16).map(|_| AtomicBool::new(false)).collect();
    meta.range.clone().into_par_iter().for_each(|i| {
        let slot = &present[usize::from(cell(i).bits())];
        if !slot.load(Relaxed) {
            slot.store(true, Relaxed);
        }
    });
    let present: Vec<bool> = present.iter().map(|p| p.load(Relaxed)).collect();
    write_indexed_of(path, meta, &present, cell, progress)
}

/// [`write_indexed`] where the distinct cells are known: `present[bits]`
/// says whether the cell with those bits occurs (it may say so of a cell
/// that does not; every cell that does must be listed). Saves a pass
/// over `cell`.
pub fn write_indexed_of(
    path: &Path,
    meta: &Meta,
    present: &[bool],
    cell: impl Fn(u64) -> Cell + Sync,
    progress: &dyn Progress,
) -> Result<u64, DbError> {
    let fill = |keys: Range<u64>, cells: &mut [Cell]| {
        for (key, slot) in keys.zip(cells) {
            *slot = cell(key);
        }
        Ok(())
    };
    write_indexed_filled(path, meta, present, fill, progress)
}

/// [`write_indexed_of`] where a block's cells come at once: `fill(keys,
/// cells)` is given a block's keys and `cells`, as many unknown cells, to
/// set, and may fail (the write stops with its error). For a caller that
/// finds a run of keys' cells faster than each key's alone.
pub fn write_indexed_filled(
    path: &Path,
    meta: &Meta,
    present: &[bool],
    fill: impl Fn(Range<u64>, &mut [Cell]) -> Result<(), DbError> + Sync,
    progress: &dyn Progress,
) -> Result<u64, DbError> {
    let range = meta.range.clone();
    let header = header(
        meta,
        Keys::Index,
        range.end - range.start,
        INDEX_BLOCK,
        present,
    );
    let dictionary = header.dictionary.clone();
    write_blocks(path, &header, meta.level, progress, |block| {
        let start = range.start + block * u64::from(INDEX_BLOCK);
        let end = range.end.min(start + u64::from(INDEX_BLOCK));
        let mut cells = vec![Cell::UNKNOWN; (end - start) as usize];
        fill(start..end, &mut cells)?;
        let mut raw = Vec::with_capacity(dictionary.packed_len(cells.len()));
        dictionary
            .pack(cells.iter().copied(), &mut raw)
            .expect("every cell is in the dictionary");
        Ok((start, raw))
    })
}

/// Writes `entries`, (key, cell) pairs with increasing keys in
/// `meta.range`, to `path`. Returns the file's size.
pub fn write_canonical(
    path: &Path,
    meta: &Meta,
    entries: &[(u64, Cell)],
    progress: &dyn Progress,
) -> Result<u64, DbError> {
    let ordered = entries.windows(2).all(|w| w[0].0 < w[1].0)
        && entries
            .iter()
            .all(|&(key, cell)| meta.range.contains(&key) && cell != Cell::UNKNOWN);
    if !ordered {
        return Err(DbError::corrupt(
            path,
            "keys to write are not increasing, known and within range",
        ));
    }
    let mut present = vec![false; 1 << 16];
    for &(_, cell) in entries {
        present[usize::from(cell.bits())] = true;
    }
    let header = header(
        meta,
        Keys::Canonical,
        entries.len() as u64,
        CANONICAL_BLOCK,
        &present,
    );
    let dictionary = header.dictionary.clone();
    write_blocks(path, &header, meta.level, progress, |block| {
        let start = block as usize * CANONICAL_BLOCK as usize;
        let chunk = &entries[start..entries.len().min(start + CANONICAL_BLOCK as usize)];
        let keys: Vec<u64> = chunk.iter().map(|&(key, _)| key).collect();
        let mut raw = Vec::with_capacity(dictionary.packed_len(chunk.len()) + 2 * chunk.len());
        dictionary
            .pack(chunk.iter().map(|&(_, cell)| cell), &mut raw)
            .expect("every cell is in the dictionary");
        codec::put_keys(keys[0], &keys, &mut raw);
        Ok((keys[0], raw))
    })
}

pub(super) fn header(
    meta: &Meta,
    keys: Keys,
    entries: u64,
    block_entries: u32,
    present: &[bool],
) -> Header {
    Header {
        game: meta.game.clone(),
        rules_version: meta.rules_version,
        keys,
        index_len: meta.index_len,
        range: meta.range.clone(),
        entries,
        block_entries,
        dictionary: Dictionary::from_present(present),
        built_unix: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        built_by: concat!("ply-core ", env!("CARGO_PKG_VERSION")).to_string(),
        left_out: None,
        counted: None,
    }
}

/// Writes the one-file database `db` (over every index of its range)
/// again at `to`, atomically, under `game`'s name, rules version and size
/// of the whole key space: the same header and blocks otherwise, each
/// block copied as stored (its checksum checked). For a game whose shards
/// hold the cells of another's ([`crate::NamedTiers::counterpart`]). Returns
/// the new file's size.
pub fn write_relabelled(
    db: &super::Database,
    to: &Path,
    (game, rules_version, index_len): (&str, u32, u64),
    progress: &dyn Progress,
) -> Result<u64, DbError> {
    let mut headers = db.headers();
    let (Some(header), None) = (headers.next(), headers.next()) else {
        return Err(DbError::corrupt(
            to,
            "its source is not one file with one header",
        ));
    };
    if header.keys != Keys::Index {
        return Err(DbError::corrupt(
            to,
            "only a database over every index can be written again",
        ));
    }
    let written = Header {
        game: game.to_string(),
        rules_version,
        index_len,
        ..header.clone()
    };
    write_stored(to, &written, progress, |block| {
        let (raw_len, stored) = db.piece_block_stored(block)?;
        Ok((header.first_key(block), raw_len, stored))
    })
}

/// Streams the header, every block `raw(block) -> (first key, raw bytes)`
/// compressed at `level`, the block index and the footer to a temporary
/// file, then renames it to `path`.
pub(super) fn write_blocks(
    path: &Path,
    header: &Header,
    level: i32,
    progress: &dyn Progress,
    raw: impl Fn(u64) -> Result<(u64, Vec<u8>), DbError> + Sync,
) -> Result<u64, DbError> {
    write_stored(path, header, progress, |block| {
        let (first_key, bytes) = raw(block)?;
        codec::encode_at(&bytes, level)
            .map(|e| (first_key, bytes.len() as u32, e))
            .map_err(|e| DbError::io(path, e))
    })
}

/// Streams the header, every block `stored(block) -> (first key, raw
/// length, compressed bytes)`, the block index and the footer to a
/// temporary file, then renames it to `path`.
fn write_stored(
    path: &Path,
    header: &Header,
    progress: &dyn Progress,
    stored: impl Fn(u64) -> Result<(u64, u32, codec::Encoded), DbError> + Sync,
) -> Result<u64, DbError> {
    temporary::remove_stale(path);
    let temp = temporary::path_for(path);
    let result = (|| {
        let file = File::create(&temp).map_err(|e| DbError::io(&temp, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let io = |e| DbError::io(&temp, e);
        let head = header.encode();
        out.write_all(&head).map_err(io)?;
        let mut offset = head.len() as u64;
        let blocks = header.block_count();
        let mut index = Vec::with_capacity(blocks as usize * INDEX_ENTRY + 8);
        progress.begin("writing", blocks);
        for batch in (0..blocks).step_by(BATCH as usize) {
            if progress.cancelled() {
                progress.end();
                return Err(DbError::new(&temp, Problem::Cancelled));
            }
            let encoded: Vec<(u64, u32, codec::Encoded)> = (batch..blocks.min(batch + BATCH))
                .into_par_iter()
                .map(&stored)
                .collect::<Result<_, _>>()?;
            for (first_key, raw_len, block) in &encoded {
                out.write_all(&block.bytes).map_err(io)?;
                BlockEntry {
                    offset,
                    len: block.bytes.len() as u32,
                    raw_len: *raw_len,
                    checksum: block.checksum,
                    first_key: *first_key,
                }
                .encode(&mut index);
                offset += block.bytes.len() as u64;
            }
            progress.advance(encoded.len() as u64);
        }
        progress.end();
        let sum = codec::checksum(&index);
        index.extend_from_slice(&sum.to_le_bytes());
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&END_MAGIC);
        out.write_all(&index).map_err(io)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        Ok(offset + index.len() as u64)
    })();
    match result {
        Ok(size) => {
            fs::rename(&temp, path).map_err(|e| DbError::io(path, e))?;
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| DbError::io(dir, e))?;
            }
            Ok(size)
        }
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Database;
    use crate::progress::NoProgress;
    use crate::solution::Solution;
    use crate::value::Outcome;

    fn cell_of(key: u64) -> Cell {
        match key % 7 {
            0 => Cell::UNKNOWN,
            1 | 2 => Cell::pack(Outcome::DRAW),
            r => Cell::pack(Outcome::win((key / 7 % 40) as u32 * 2 + r as u32 % 2)),
        }
    }

    fn cells(db: &Database, keys: Range<u64>) -> Vec<Cell> {
        let mut cells = vec![Cell::UNKNOWN; (keys.end - keys.start) as usize];
        let start = keys.start;
        db.for_each_cell(keys, &mut |key, cell| cells[(key - start) as usize] = cell)
            .unwrap();
        cells
    }

    #[test]
    fn a_relabelled_file_keeps_the_blocks_and_refuses_a_block_failing_its_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from.plydb"), dir.path().join("to.plydb"));
        let keys = 1000..1000 + 3 * u64::from(INDEX_BLOCK) + 17;
        let meta = Meta {
            game: "theirs".into(),
            rules_version: 3,
            index_len: 500_000,
            range: keys.clone(),
            level: codec::ZSTD_LEVEL,
        };
        write_indexed(&from, &meta, cell_of, &NoProgress).unwrap();
        let source = Database::open_piece(&from).unwrap();
        let size = write_relabelled(&source, &to, ("mine:9", 4, 600_000), &NoProgress).unwrap();
        let written = Database::open_piece(&to).unwrap();
        let header = written.headers().next().unwrap();
        assert_eq!(
            (header.game.as_str(), header.rules_version, header.index_len),
            ("mine:9", 4, 600_000)
        );
        assert_eq!(header.range, keys);
        assert_eq!(cells(&written, keys.clone()), cells(&source, keys.clone()));
        assert!(
            cells(&written, keys.clone())
                .iter()
                .any(|&c| c != Cell::UNKNOWN)
        );
        // The blocks are copied byte for byte: only the header's length moves.
        let grown =
            header.encode().len() as i64 - source.headers().next().unwrap().encode().len() as i64;
        assert_eq!(
            size as i64,
            std::fs::metadata(&from).unwrap().len() as i64 + grown
        );
        for block in 0..header.block_count() {
            assert_eq!(
                written.piece_block_stored(block).unwrap().1.bytes,
                source.piece_block_stored(block).unwrap().1.bytes
            );
        }
        drop(source);
        // A byte of the second block flipped: refused, and nothing written.
        let mut bytes = std::fs::read(&from).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x40;
        std::fs::write(&from, &bytes).unwrap();
        std::fs::remove_file(&to).unwrap();
        let source = Database::open_piece(&from).unwrap();
        let error = write_relabelled(&source, &to, ("mine:9", 4, 600_000), &NoProgress);
        assert!(error.is_err());
        assert!(!to.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }
}
