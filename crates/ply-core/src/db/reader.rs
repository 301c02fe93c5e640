//! Reads a database with positioned reads of its file, never a memory map:
//! a file shrunk, rewritten or replaced while it is open gives a clear
//! error ([`Problem::Changed`]) or the answers of the file as it was opened,
//! never a fault and never a wrong answer. Opening reads and checks the
//! header and the footer, and, when its files together are at most
//! [`VERIFY_AT_OPEN`], the block index and every block's checksum; a larger
//! database reads and checks each file's block index when a query first
//! needs that file (a query of a game stored as many tier shards reads the
//! few it touches). A probe reads and
//! decompresses the one block holding its key, checking that block's
//! checksum first. Decoded blocks are kept in one cache for the whole
//! process, bounded in bytes ([`block_cache_bytes`]), so warm probes cost a
//! lookup in memory and a search probing many large shards at random keeps
//! the blocks it uses most without growing past the bound.
//! Several shards, each covering a range of keys, read as one database.
//!
//! A database renamed over an open one's path (as `--save` does) is read
//! when it is next opened; [`Database::is_current`] says when that is due.

use super::codec::{self, BlockError};
use super::format::{BlockEntry, END_MAGIC, FOOTER, Header, INDEX_ENTRY, PRESENT_RUN};
use crate::census::Census;
use crate::db_error::{DbError, Problem};
use crate::game::Game;
use crate::solution::Keys;
use crate::solution::{Presence, Solution, Source};
use crate::value::Cell;
use rayon::prelude::*;
use std::fs::{File, Metadata};
use std::ops::Range;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

/// A database whose files together are up to this size has every block
/// checked when opened. Larger ones (the Dobutsu database, 117 MB; a
/// tiered game's many shards, each perhaps small) check each block when
/// it is first read, as every read does, so that one query need not hash
/// the whole database: that took 20 of a 33 ms `ply solve dobutsu`, and
/// 173 MB of reads for one `ply solve morris` over 16 small shards.
pub const VERIFY_AT_OPEN: u64 = 32 << 20;
/// The bytes of decoded blocks the process keeps unless told otherwise
/// ([`set_block_cache_bytes`]).
pub const CACHE_LIMIT: u64 = 1 << 30;

/// The cache of decoded blocks, shared by every shard the process reads:
/// keyed by (shard id, block), weighed in bytes.
type Blocks = quick_cache::sync::Cache<(u64, u64), Arc<Decoded>, ByBytes>;

/// Weighs a decoded block by the bytes it holds.
#[derive(Clone)]
struct ByBytes;

impl quick_cache::Weighter<(u64, u64), Arc<Decoded>> for ByBytes {
    fn weight(&self, _: &(u64, u64), block: &Arc<Decoded>) -> u64 {
        // Never 0: a weightless entry would never be evicted.
        (block.packed.len() + block.keys.len() * 8 + block.before.len() * 4).max(1) as u64
    }
}

/// The bound the cache of decoded blocks is made with.
static BLOCK_BUDGET: AtomicU64 = AtomicU64::new(CACHE_LIMIT);

/// The cache of decoded blocks, made on the first lookup.
static BLOCKS: OnceLock<Blocks> = OnceLock::new();

/// Sets the bytes of decoded blocks the process keeps (a block larger than
/// the cache's share for it is decoded for each lookup and not kept). Takes
/// effect only before the first lookup of any database; returns whether it
/// did.
pub fn set_block_cache_bytes(bytes: u64) -> bool {
    BLOCK_BUDGET.store(bytes, Relaxed);
    BLOCKS.get().is_none()
}

/// The bytes of decoded blocks the process keeps at most.
pub fn block_cache_bytes() -> u64 {
    BLOCKS
        .get()
        .map_or_else(|| BLOCK_BUDGET.load(Relaxed), Blocks::capacity)
}

/// The cache of decoded blocks.
fn blocks() -> &'static Blocks {
    BLOCKS.get_or_init(|| {
        let bytes = BLOCK_BUDGET.load(Relaxed).max(1);
        // A full block of an indexed shard packs 2^16 cells into 8-64 KiB.
        Blocks::with_weighter((bytes >> 14).clamp(64, 1 << 24) as usize, bytes, ByBytes)
    })
}

/// A solved database on disk: one file or several shards.
pub struct Database {
    shards: Vec<Shard>,
    game: String,
    rules_version: u32,
    keys: Keys,
    index_len: u64,
}

/// One file of a database.
struct Shard {
    path: PathBuf,
    /// The file, open for the shard's life: a file renamed over its path
    /// later is read only when the database is opened again.
    file: File,
    /// The file as it was when opened.
    opened: Identity,
    header: Header,
    /// Where the blocks begin: the header's length.
    header_len: u64,
    /// Where the block index lies: its offset, and where it ends (its
    /// checksum follows).
    index: Range<u64>,
    /// The block index, read and checked when first needed (at open for
    /// a small whole database, whose blocks are all checked then): a query
    /// of a game stored as many shards reads only the shards it touches.
    blocks: OnceLock<Vec<BlockEntry>>,
    /// This opening of the file, for its blocks' keys in the cache.
    id: u64,
    /// Which indices a file of present keys holds, as its game says.
    presence: Option<Arc<dyn Presence>>,
}

/// What tells one state of a file from another: which file it is (device
/// and inode), its length, and when its contents or metadata last changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Identity {
    fn of(meta: &Metadata) -> Self {
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// Opens `path` for reading if it is a regular file, without blocking on a
/// FIFO or device that bears a database's name.
fn open_regular(path: &Path) -> Result<File, DbError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| DbError::io(path, e))?;
    let meta = file.metadata().map_err(|e| DbError::io(path, e))?;
    if !meta.is_file() {
        return Err(DbError::new(path, Problem::NotAFile));
    }
    Ok(file)
}

/// `len` bytes of `file` (at `path`) from `offset`; a file that ends
/// sooner is [`Problem::Truncated`].
fn read_at(file: &File, path: &Path, offset: u64, len: u64) -> Result<Vec<u8>, DbError> {
    let len = usize::try_from(len).map_err(|_| DbError::new(path, Problem::Truncated))?;
    let mut bytes = vec![0; len];
    read_into(file, path, offset, &mut bytes)?;
    Ok(bytes)
}

/// Fills `bytes` from `file` (at `path`) from `offset`; a file that ends
/// sooner is [`Problem::Truncated`].
fn read_into(file: &File, path: &Path, offset: u64, bytes: &mut [u8]) -> Result<(), DbError> {
    file.read_exact_at(bytes, offset).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            DbError::new(path, Problem::Truncated)
        } else {
            DbError::io(path, e)
        }
    })
}

/// Bytes read at once when every block is checked at open: the blocks
/// that fit are read together into one buffer, used again for the next.
const CHECK_CHUNK: u64 = 256 << 10;

/// Whether `block`, entry `i` of a file with `header`, starts where the
/// header says its keys start (any key of the range for canonical keys)
/// and claims at least the bytes its cells take.
fn fits(header: &Header, i: u64, block: &BlockEntry) -> bool {
    (header.keys == Keys::Canonical || block.first_key == header.first_key(i))
        && header.range.contains(&block.first_key)
        && match header.keys {
            Keys::Present => block.raw_len as usize >= 2 * header.runs(),
            _ => (block.raw_len as usize) >= header.dictionary.packed_len(header.cells_in(i)),
        }
}

/// The most bytes of block index a probe reads whole on first use; a
/// larger index is read an entry at a time ([`Shard::entry`]).
pub(super) const INDEX_READ_WHOLE: u64 = 256 << 10;

/// Checks every block's checksum (cheap: no decompression), so that a
/// damaged small file is refused whole, whatever a query would have read.
fn check_blocks(file: &File, path: &Path, blocks: &[BlockEntry]) -> Result<(), DbError> {
    let mut buffer = Vec::new();
    let mut first = 0;
    while first < blocks.len() {
        // Blocks lie end to end (checked when the index was read).
        let start = blocks[first].offset;
        let mut end = first + 1;
        while end < blocks.len()
            && blocks[end].offset + u64::from(blocks[end].len) - start <= CHECK_CHUNK
        {
            end += 1;
        }
        let last = &blocks[end - 1];
        let len = (last.offset + u64::from(last.len) - start) as usize;
        buffer.resize(len, 0);
        read_into(file, path, start, &mut buffer)?;
        for (i, block) in blocks.iter().enumerate().take(end).skip(first) {
            let at = (block.offset - start) as usize;
            if codec::checksum(&buffer[at..at + block.len as usize]) != block.checksum {
                return Err(DbError::new(
                    path,
                    Problem::BlockChecksum { block: i as u64 },
                ));
            }
        }
        first = end;
    }
    Ok(())
}

/// A block ready for lookups.
struct Decoded {
    /// The cells, packed.
    packed: Vec<u8>,
    /// The keys, for canonical-key databases (empty otherwise).
    keys: Vec<u64>,
    /// For a file of present keys, the cells before each piece of
    /// [`PRESENT_RUN`] indices, and after the last (empty otherwise).
    before: Vec<u32>,
}

/// What the game asking for a database expects to find in it.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The game's full name with parameters.
    pub game: String,
    /// The game's rules version.
    pub rules_version: u32,
}

impl Expect {
    /// What a database of `game` must say: its name and rules version.
    pub fn of(game: &impl Game) -> Expect {
        Expect {
            game: game.name(),
            rules_version: game.rules_version(),
        }
    }
}

impl Database {
    /// Opens the database at `path`, checking that it holds `expect`.
    pub fn open(path: &Path, expect: &Expect) -> Result<Database, DbError> {
        Self::open_shards(&[path.to_path_buf()], Some(expect))
    }

    /// Opens the shards at `paths` as one database. Their key ranges must
    /// cover the whole key space without overlap. With `expect`, the game
    /// and its rules version must match.
    pub fn open_shards(paths: &[PathBuf], expect: Option<&Expect>) -> Result<Database, DbError> {
        Self::open_files(paths, expect, true)
    }

    /// Opens one file alone, whether a whole database or one shard of
    /// several, to list, read or verify it ([`Database::verify`]); keys
    /// outside its range read as unknown. Its blocks are checked as they
    /// are read, not at open: a reader of several shards opened one by one
    /// would otherwise hash them all for one query.
    pub fn open_piece(path: &Path) -> Result<Database, DbError> {
        Self::open_files(&[path.to_path_buf()], None, false)
    }

    /// The packed cells of block `block` of a database read from one file
    /// ([`Database::open_piece`]), decoded now and not kept: for a pass
    /// over every block that reads each once.
    pub fn piece_block(&self, block: u64) -> Result<Vec<u8>, DbError> {
        match self.shards.as_slice() {
            [shard] if block < shard.header.block_count() => Ok(shard.decode(block)?.packed),
            _ => Err(DbError::corrupt(
                Path::new("."),
                format!("no block {block} of a database read from one file"),
            )),
        }
    }

    /// Block `block` of a database read from one file as stored: its
    /// length once decompressed and its compressed bytes, checked against
    /// their checksum (for copying the block as it is).
    pub fn piece_block_stored(&self, block: u64) -> Result<(u32, codec::Encoded), DbError> {
        let [shard] = self.shards.as_slice() else {
            return Err(DbError::corrupt(
                Path::new("."),
                format!("no block {block} of a database read from one file"),
            ));
        };
        let entry = shard
            .blocks()?
            .get(block as usize)
            .copied()
            .ok_or_else(|| DbError::corrupt(&shard.path, format!("it has no block {block}")))?;
        let bytes = shard.bytes(&entry)?;
        if codec::checksum(&bytes) != entry.checksum {
            return Err(shard
                .changed()
                .unwrap_or_else(|| shard.block_error(block, codec::BlockError::Checksum)));
        }
        Ok((
            entry.raw_len,
            codec::Encoded {
                bytes,
                checksum: entry.checksum,
            },
        ))
    }

    fn open_files(
        paths: &[PathBuf],
        expect: Option<&Expect>,
        whole: bool,
    ) -> Result<Database, DbError> {
        // Every block is checked at open only for a whole database whose
        // files together are small: a database of many small shards (a
        // tiered game's) is read block by block as queries need it, each
        // block checked as read.
        let total: u64 = paths
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        let check = whole && total <= VERIFY_AT_OPEN;
        let mut shards = paths
            .iter()
            .map(|p| Shard::open(p, check))
            .collect::<Result<Vec<_>, _>>()?;
        shards.sort_by_key(|s| s.header.range.start);
        let first = shards
            .first()
            .ok_or_else(|| DbError::corrupt(Path::new("."), "no database files"))?;
        let (game, rules_version, keys, index_len) = (
            first.header.game.clone(),
            first.header.rules_version,
            first.header.keys,
            first.header.index_len,
        );
        for shard in &shards {
            let h = &shard.header;
            if let Some(expect) = expect {
                if h.game != expect.game {
                    return Err(DbError::new(
                        &shard.path,
                        Problem::WrongGame {
                            expected: expect.game.clone(),
                            found: h.game.clone(),
                        },
                    ));
                }
                if h.rules_version != expect.rules_version {
                    return Err(DbError::new(
                        &shard.path,
                        Problem::WrongRules {
                            expected: expect.rules_version,
                            found: h.rules_version,
                        },
                    ));
                }
            }
            // Files over a dense index, each holding every index or the
            // present ones, read together.
            let dense = |k| if k == Keys::Canonical { k } else { Keys::Index };
            if (&h.game, h.rules_version, dense(h.keys), h.index_len)
                != (&game, rules_version, dense(keys), index_len)
            {
                return Err(DbError::corrupt(
                    &shard.path,
                    "shards of different databases",
                ));
            }
        }
        let mut next = if whole { 0 } else { first.header.range.start };
        for shard in &shards {
            if shard.header.range.start != next {
                return Err(DbError::corrupt(
                    &shard.path,
                    format!(
                        "shards leave keys {next}..{} uncovered or overlap",
                        shard.header.range.start
                    ),
                ));
            }
            next = shard.header.range.end;
        }
        if whole && next != index_len {
            let last = shards.last().map_or(Path::new("."), |s| &s.path);
            return Err(DbError::corrupt(
                last,
                format!("shards leave keys {next}..{index_len} uncovered"),
            ));
        }
        let keys = if shards.iter().any(|s| s.header.keys == Keys::Present) {
            Keys::Present
        } else {
            keys
        };
        Ok(Database {
            shards,
            game,
            rules_version,
            keys,
            index_len,
        })
    }

    /// The database with the test of which indices its files of present
    /// keys hold ([`Keys::Present`]): `of(header)` gives each such file's,
    /// from its header (its range says which part of the game it holds).
    /// Without one, such a file answers every probe with
    /// [`Problem::NoPresence`].
    pub fn with_presence(mut self, of: impl Fn(&Header) -> Option<Arc<dyn Presence>>) -> Self {
        for shard in &mut self.shards {
            if shard.header.keys == Keys::Present {
                shard.presence = of(&shard.header);
            }
        }
        self
    }

    /// Calls `visit` with every cell stored, file by file in key order,
    /// without its key: for a caller that knows which keys a file of
    /// present keys holds.
    pub fn for_each_stored(&self, visit: &mut dyn FnMut(Cell)) -> Result<(), DbError> {
        for shard in &self.shards {
            for i in 0..shard.blocks()?.len() as u64 {
                let block = shard.decode(i)?;
                for at in 0..shard.cells_of(i, &block) {
                    visit(shard.header.dictionary.unpack(&block.packed, at));
                }
            }
        }
        Ok(())
    }

    /// The game's full name.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The rules version it was built under.
    pub fn rules_version(&self) -> u32 {
        self.rules_version
    }

    /// The headers of its files.
    pub fn headers(&self) -> impl Iterator<Item = &Header> {
        self.shards.iter().map(|s| &s.header)
    }

    /// Its files.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.shards.iter().map(|s| s.path.as_path())
    }

    /// Bytes on disk, over every file.
    pub fn bytes(&self) -> u64 {
        self.shards.iter().map(|s| s.opened.len).sum()
    }

    /// Cells stored, over every file.
    pub fn entries(&self) -> u64 {
        self.shards.iter().map(|s| s.header.entries).sum()
    }

    /// Checks every block of every file: its checksum, its length once
    /// decompressed and its keys.
    pub fn verify(&self) -> Result<(), DbError> {
        for shard in &self.shards {
            shard.verify_all()?;
        }
        Ok(())
    }

    /// Whether every file is still the one opened, unchanged at its path:
    /// false once one was replaced (a new build renamed over it),
    /// rewritten, truncated or removed. A long-lived reader that finds it
    /// false opens the database again to read what is there now.
    pub fn is_current(&self) -> bool {
        self.shards.iter().all(Shard::is_current)
    }

    fn shard(&self, key: u64) -> Option<&Shard> {
        let i = self.shards.partition_point(|s| s.header.range.end <= key);
        self.shards.get(i).filter(|s| s.header.range.contains(&key))
    }
}

impl Shard {
    /// Opens the file at `path`, checking every block now if `check`.
    fn open(path: &Path, check: bool) -> Result<Shard, DbError> {
        static IDS: AtomicU64 = AtomicU64::new(0);
        let file = open_regular(path)?;
        let opened = Identity::of(&file.metadata().map_err(|e| DbError::io(path, e))?);
        let size = opened.len;
        let read = |offset: u64, len: u64| read_at(&file, path, offset, len);
        // The header: its length is in its first 16 bytes; a claim past
        // 1 MiB is refused by `Header::decode`, so no more is ever read.
        let prefix = read(0, size.min(16))?;
        let claimed = prefix
            .get(12..16)
            .map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
        let want = u64::from(claimed).clamp(4096, 1 << 20).min(size);
        let head = read(0, want)?;
        let (header, header_len) = Header::decode(path, &head)?;
        let header_len = header_len as u64;
        let tail_len = (FOOTER + 8) as u64;
        if size < header_len + tail_len || read(size - 8, 8)? != END_MAGIC {
            return Err(DbError::new(path, Problem::Truncated));
        }
        let index_offset = u64::from_le_bytes(
            read(size - 16, 8)?
                .try_into()
                .map_err(|_| DbError::new(path, Problem::Truncated))?,
        );
        let blocks = header.block_count();
        let index_end = blocks
            .checked_mul(INDEX_ENTRY as u64)
            .and_then(|n| n.checked_add(index_offset))
            .filter(|&end| end.checked_add(tail_len) == Some(size))
            .ok_or_else(|| DbError::corrupt(path, "the footer's block index offset is wrong"))?;
        let shard = Shard {
            path: path.to_path_buf(),
            file,
            opened,
            header_len,
            index: index_offset..index_end,
            blocks: OnceLock::new(),
            header,
            id: IDS.fetch_add(1, Relaxed),
            presence: None,
        };
        if check {
            check_blocks(&shard.file, path, shard.blocks()?)?;
        }
        Ok(shard)
    }

    /// The block index, read, checked against its checksum and the
    /// header, and decoded on first use.
    fn blocks(&self) -> Result<&[BlockEntry], DbError> {
        if let Some(blocks) = self.blocks.get() {
            return Ok(blocks);
        }
        let blocks = self.read_index().map_err(|e| self.changed().unwrap_or(e))?;
        Ok(self.blocks.get_or_init(|| blocks))
    }

    /// The entry of block `i`: from the block index where it is read, or
    /// read alone from a large index (past [`INDEX_READ_WHOLE`]) that a
    /// probe would otherwise read whole for one block (9 MB for Connect
    /// Four 6x6's largest tier). An entry read alone is checked against
    /// the header and the file's layout, not the index's checksum; its
    /// block's own checksum is checked as the block is read.
    fn entry(&self, i: u64) -> Result<BlockEntry, DbError> {
        let misplaced =
            || DbError::corrupt(&self.path, format!("block {i} is misplaced in the index"));
        if self.blocks.get().is_some()
            || self.header.keys == Keys::Canonical
            || self.index.end - self.index.start <= INDEX_READ_WHOLE
        {
            return self
                .blocks()?
                .get(i as usize)
                .copied()
                .ok_or_else(misplaced);
        }
        if i >= self.header.block_count() {
            return Err(misplaced());
        }
        let at = self.index.start + i * INDEX_ENTRY as u64;
        let bytes = read_at(&self.file, &self.path, at, INDEX_ENTRY as u64)?;
        let block = BlockEntry::decode(&bytes);
        let header = &self.header;
        let sound = block.offset >= self.header_len
            && block
                .offset
                .checked_add(u64::from(block.len))
                .is_some_and(|end| end <= self.index.start)
            && fits(header, i, &block);
        if sound { Ok(block) } else { Err(misplaced()) }
    }

    /// Reads the block index and checks it: its checksum, and that the
    /// blocks lie end to end from the header to the index, each where its
    /// keys say.
    fn read_index(&self) -> Result<Vec<BlockEntry>, DbError> {
        let (path, header) = (&self.path, &self.header);
        // The index and its checksum, read whole: its length was checked
        // against the file's at open, so a huge claim cannot allocate much.
        let mut index = read_at(
            &self.file,
            path,
            self.index.start,
            self.index.end - self.index.start + 8,
        )?;
        let stored = index.split_off(index.len() - 8);
        let stored = u64::from_le_bytes(stored.try_into().expect("8 bytes"));
        if codec::checksum(&index) != stored {
            return Err(DbError::new(path, Problem::IndexChecksum));
        }
        let blocks: Vec<BlockEntry> = index
            .chunks_exact(INDEX_ENTRY)
            .map(BlockEntry::decode)
            .collect();
        let mut next = self.header_len;
        for (i, block) in blocks.iter().enumerate() {
            let sound = block.offset == next && fits(header, i as u64, block);
            if !sound {
                return Err(DbError::corrupt(
                    path,
                    format!("block {i} is misplaced in the index"),
                ));
            }
            next += u64::from(block.len);
        }
        if next != self.index.start {
            return Err(DbError::corrupt(
                path,
                "blocks do not end where the index begins",
            ));
        }
        Ok(blocks)
    }

    /// Decodes every block.
    fn verify_all(&self) -> Result<(), DbError> {
        for i in 0..self.blocks()?.len() as u64 {
            self.decode(i)?;
        }
        Ok(())
    }

    /// The compressed bytes of `block`, read from the file now.
    fn bytes(&self, block: &BlockEntry) -> Result<Vec<u8>, DbError> {
        read_at(&self.file, &self.path, block.offset, u64::from(block.len))
            .map_err(|e| self.changed().unwrap_or(e))
    }

    /// [`Problem::Changed`] if the file this shard reads is no longer the
    /// one it opened: another length or modification time (rewritten or
    /// truncated in place).
    fn changed(&self) -> Option<DbError> {
        let now = self.file.metadata().ok().map(|m| Identity::of(&m));
        (now != Some(self.opened)).then(|| DbError::new(&self.path, Problem::Changed))
    }

    /// Whether the file at this shard's path is still the one it opened,
    /// unchanged: not replaced, rewritten, truncated or removed.
    fn is_current(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| Identity::of(&m) == self.opened)
    }

    fn block_error(&self, block: u64, error: BlockError) -> DbError {
        match error {
            BlockError::Checksum => DbError::new(&self.path, Problem::BlockChecksum { block }),
            BlockError::Malformed => {
                DbError::corrupt(&self.path, format!("block {block} does not decompress"))
            }
        }
    }

    /// Checks and decompresses block `i`.
    fn decode(&self, i: u64) -> Result<Decoded, DbError> {
        let block = &self.entry(i)?;
        let cells = self.header.cells_in(i);
        let packed_len = self.header.dictionary.packed_len(cells);
        let runs = self.header.runs();
        // The most a block can hold: its packed cells, plus at most ten bytes
        // of key per cell, or the counts of a block of present keys. A
        // larger claimed size is corruption, refused before anything that
        // large is allocated.
        let most = match self.header.keys {
            Keys::Index => packed_len as u64,
            Keys::Canonical => packed_len as u64 + cells as u64 * 10,
            Keys::Present => {
                let indices = self.header.indices_of(i);
                2 * runs as u64
                    + self
                        .header
                        .dictionary
                        .packed_len((indices.end - indices.start) as usize)
                        as u64
            }
        };
        if u64::from(block.raw_len) > most {
            return Err(DbError::corrupt(
                &self.path,
                format!(
                    "block {i} claims {} bytes, more than it can hold",
                    block.raw_len
                ),
            ));
        }
        let raw = codec::decode(&self.bytes(block)?, block.checksum, block.raw_len as usize)
            .map_err(|e| self.changed().unwrap_or_else(|| self.block_error(i, e)))?;
        if self.header.keys == Keys::Present {
            return self.decode_present(i, raw);
        }
        // A canonical file's whole index is read (`entry`): the next
        // block's first key bounds this block's keys.
        let next_first = match self.header.keys {
            Keys::Canonical => self.blocks()?.get(i as usize + 1).copied(),
            _ => None,
        };
        let keys = match self.header.keys {
            Keys::Index if raw.len() == packed_len => Vec::new(),
            Keys::Canonical => codec::get_keys(block.first_key, cells, &raw[packed_len..])
                .filter(|keys| {
                    keys.last().is_some_and(|&k| self.header.range.contains(&k))
                        && next_first
                            .as_ref()
                            .is_none_or(|n| keys.last() < Some(&n.first_key))
                })
                .ok_or_else(|| {
                    DbError::corrupt(&self.path, format!("block {i} has malformed keys"))
                })?,
            Keys::Index | Keys::Present => {
                return Err(DbError::corrupt(
                    &self.path,
                    format!("block {i} has the wrong length"),
                ));
            }
        };
        let mut packed = raw;
        packed.truncate(packed_len);
        Ok(Decoded {
            packed,
            keys,
            before: Vec::new(),
        })
    }

    /// Block `i` of a file of present keys, decompressed as `raw`: its
    /// counts a piece, each at most the piece's indices, then exactly as
    /// many packed cells as they add up to.
    fn decode_present(&self, i: u64, raw: Vec<u8>) -> Result<Decoded, DbError> {
        let h = &self.header;
        let (runs, indices) = (h.runs(), h.indices_of(i));
        let bad = |what: &str| DbError::corrupt(&self.path, format!("block {i} {what}"));
        let counts = raw.get(..2 * runs).ok_or_else(|| bad("is too short"))?;
        let mut before = Vec::with_capacity(runs + 1);
        let mut total = 0u32;
        for (piece, n) in counts.chunks_exact(2).enumerate() {
            let n = u32::from(u16::from_le_bytes([n[0], n[1]]));
            let start = indices.start + piece as u64 * u64::from(PRESENT_RUN);
            let len = indices
                .end
                .saturating_sub(start)
                .min(u64::from(PRESENT_RUN));
            if u64::from(n) > len {
                return Err(bad("counts more cells than a piece holds"));
            }
            before.push(total);
            total += n;
        }
        before.push(total);
        let packed = raw[2 * runs..].to_vec();
        if packed.len() != h.dictionary.packed_len(total as usize) {
            return Err(bad("has the wrong length"));
        }
        Ok(Decoded {
            packed,
            keys: Vec::new(),
            before,
        })
    }

    /// The cells block `i` (decoded as `block`) holds.
    fn cells_of(&self, i: u64, block: &Decoded) -> usize {
        match block.before.last() {
            Some(&total) => total as usize,
            None => self.header.cells_in(i),
        }
    }

    /// The test of which indices this file of present keys holds.
    fn presence(&self) -> Result<&dyn Presence, DbError> {
        self.presence
            .as_deref()
            .ok_or_else(|| DbError::new(&self.path, Problem::NoPresence))
    }

    /// Block `i`, decoded now or earlier.
    fn block(&self, i: u64) -> Result<Arc<Decoded>, DbError> {
        blocks().get_or_insert_with(&(self.id, i), || self.decode(i).map(Arc::new))
    }

    /// The cell stored for `key`, which lies in this shard's range.
    fn cell(&self, key: u64) -> Result<Cell, DbError> {
        let h = &self.header;
        match h.keys {
            Keys::Index => {
                let offset = key - h.range.start;
                let block = offset / u64::from(h.block_entries);
                let at = (offset % u64::from(h.block_entries)) as usize;
                Ok(h.dictionary.unpack(&self.block(block)?.packed, at))
            }
            Keys::Canonical => {
                let i = self.blocks()?.partition_point(|b| b.first_key <= key);
                let Some(i) = i.checked_sub(1) else {
                    return Ok(Cell::UNKNOWN);
                };
                let block = self.block(i as u64)?;
                Ok(match block.keys.binary_search(&key) {
                    Ok(at) => h.dictionary.unpack(&block.packed, at),
                    Err(_) => Cell::UNKNOWN,
                })
            }
            Keys::Present => {
                let presence = self.presence()?;
                let offset = key - h.range.start;
                if presence.stands_for(offset) == 0 {
                    return Ok(Cell::UNKNOWN);
                }
                let i = offset / u64::from(h.block_entries);
                let start = h.first_key(i) - h.range.start;
                let piece = (offset - start) / u64::from(PRESENT_RUN);
                let from = start + piece * u64::from(PRESENT_RUN);
                let to = (from + u64::from(PRESENT_RUN)).min(h.range.end - h.range.start);
                let block = self.block(i)?;
                let (first, end) = (
                    block.before[piece as usize] as usize,
                    block.before[piece as usize + 1] as usize,
                );
                // The game's test runs over the indices between the key and
                // the nearer end of its piece, whose cells are counted.
                let named = |keys: Range<u64>| keys.filter(|&x| presence.stands_for(x) > 0).count();
                let at = if offset - from <= to - offset {
                    Some(first + named(from..offset))
                } else {
                    end.checked_sub(1 + named(offset + 1..to))
                };
                match at {
                    Some(at) if (first..end).contains(&at) => {
                        Ok(h.dictionary.unpack(&block.packed, at))
                    }
                    _ => Err(DbError::corrupt(
                        &self.path,
                        format!("block {i} holds another count of cells than its game names"),
                    )),
                }
            }
        }
    }

    /// Calls `visit(key, at, stands_for)` with each key of block `i`
    /// (decoded as `block`) in `range` that holds a cell, in order, its
    /// place in the block and the positions it stands for.
    fn for_each_key(
        &self,
        (i, block): (u64, &Decoded),
        range: &Range<u64>,
        visit: &mut dyn FnMut(u64, usize, u64),
    ) -> Result<(), DbError> {
        let h = &self.header;
        match h.keys {
            Keys::Index | Keys::Canonical => {
                for at in 0..h.cells_in(i) {
                    let key = match h.keys {
                        Keys::Canonical => block.keys[at],
                        _ => h.first_key(i) + at as u64,
                    };
                    if range.contains(&key) {
                        visit(key, at, 1);
                    }
                }
            }
            Keys::Present => {
                let presence = self.presence()?;
                let indices = h.indices_of(i);
                for piece in 0..h.runs() {
                    let (first, end) = (block.before[piece], block.before[piece + 1]);
                    let start = indices.start + piece as u64 * u64::from(PRESENT_RUN);
                    let stop = indices.end.min(start + u64::from(PRESENT_RUN));
                    if first == end || stop <= range.start || start >= range.end {
                        continue;
                    }
                    let mut at = first as usize;
                    for key in start..stop {
                        let n = presence.stands_for(key - h.range.start);
                        if n == 0 {
                            continue;
                        }
                        if at == end as usize {
                            return Err(DbError::corrupt(
                                &self.path,
                                format!("block {i} holds fewer cells than its game names"),
                            ));
                        }
                        if range.contains(&key) {
                            visit(key, at, n);
                        }
                        at += 1;
                    }
                    if at != end as usize {
                        return Err(DbError::corrupt(
                            &self.path,
                            format!("block {i} holds more cells than its game names"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Calls `visit` with every known cell with a key in `range`, in key order.
    fn for_each_cell(
        &self,
        range: Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), DbError> {
        let h = &self.header;
        let range = range.start.max(h.range.start)..range.end.min(h.range.end);
        if range.is_empty() {
            return Ok(());
        }
        let entries = self.blocks()?;
        let first = match h.keys {
            Keys::Index | Keys::Present => {
                ((range.start - h.range.start) / u64::from(h.block_entries)) as usize
            }
            Keys::Canonical => entries
                .partition_point(|b| b.first_key <= range.start)
                .saturating_sub(1),
        };
        for (i, entry) in entries.iter().enumerate().skip(first) {
            if entry.first_key >= range.end {
                break;
            }
            // A scan reads each block once: decoded blocks already kept
            // serve it, but it keeps none it decodes (a child tier loaded
            // whole would otherwise hold its decoded shard beside its cells).
            let block = match blocks().get(&(self.id, i as u64)) {
                Some(block) => block,
                None => Arc::new(self.decode(i as u64)?),
            };
            self.for_each_key((i as u64, &block), &range, &mut |key, at, _| {
                let cell = h.dictionary.unpack(&block.packed, at);
                if cell != Cell::UNKNOWN {
                    visit(key, cell);
                }
            })?;
        }
        Ok(())
    }

    /// The census of the cells with keys in `range`, each standing for
    /// `weight(key)` positions (times those a cell of present keys stands
    /// for): each block's cells tallied by symbol (with the first key of
    /// each), in parallel, and the tallies counted. A file of present keys
    /// counted whole answers from its header, each of its keys weighing
    /// what its first does.
    fn census_by(
        &self,
        range: Range<u64>,
        weight: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<Census<u64>, DbError> {
        let h = &self.header;
        let range = range.start.max(h.range.start)..range.end.min(h.range.end);
        if range.is_empty() {
            return Ok(Census::new());
        }
        if let (Some(counted), true) = (&h.counted, range == h.range) {
            return Ok(counted.times(weight(h.range.start)));
        }
        let entries = self.blocks()?;
        let first = entries
            .partition_point(|b| b.first_key <= range.start)
            .saturating_sub(1);
        let last = entries.partition_point(|b| b.first_key < range.end);
        let symbols = h.dictionary.cells();
        (first..last)
            .into_par_iter()
            .map(|i| {
                let block = match blocks().get(&(self.id, i as u64)) {
                    Some(block) => block,
                    None => Arc::new(self.decode(i as u64)?),
                };
                let mut tally = vec![(0u64, u64::MAX); symbols.len()];
                self.for_each_key((i as u64, &block), &range, &mut |key, at, n| {
                    let Some((count, example)) =
                        tally.get_mut(h.dictionary.symbol_at(&block.packed, at))
                    else {
                        return;
                    };
                    let w = weight(key) * n;
                    if w > 0 {
                        *count += w;
                        *example = (*example).min(key);
                    }
                })?;
                let mut census = Census::new();
                for (cell, &(count, example)) in symbols.iter().zip(&tally) {
                    if let Some(outcome) = cell.unpack() {
                        census.add_many(outcome, count, || example);
                    }
                }
                Ok(census)
            })
            .try_reduce(Census::new, |a, b| Ok(a.merge(b)))
    }
}

impl Solution for Database {
    fn keys(&self) -> Keys {
        self.keys
    }

    fn index_len(&self) -> u64 {
        self.index_len
    }

    fn cell(&self, key: u64) -> Result<Cell, DbError> {
        match self.shard(key) {
            Some(shard) => shard.cell(key),
            None => Ok(Cell::UNKNOWN),
        }
    }

    fn for_each_cell(
        &self,
        range: Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), DbError> {
        for shard in &self.shards {
            shard.for_each_cell(range.clone(), visit)?;
        }
        Ok(())
    }

    fn source(&self) -> Source {
        Source::Database
    }

    /// Decodes every block into the cache if they all fit in it (half of
    /// it, so that the cache's admission keeps them); a larger database is
    /// left to fill the cache with the blocks its probes use.
    fn warm(&self) -> Result<(), DbError> {
        // The packed cells, known from the headers alone: no shard's index
        // is read for a database too large to keep.
        let packed: u64 = self
            .shards
            .iter()
            .map(|shard| {
                shard
                    .header
                    .dictionary
                    .packed_len(shard.header.entries as usize) as u64
            })
            .sum();
        if packed > blocks().capacity() / 2 {
            return Ok(());
        }
        let raw: u64 = self
            .shards
            .iter()
            .map(|shard| {
                Ok(shard
                    .blocks()?
                    .iter()
                    .map(|b| u64::from(b.raw_len))
                    .sum::<u64>())
            })
            .sum::<Result<u64, DbError>>()?;
        if raw > blocks().capacity() / 2 {
            return Ok(());
        }
        self.shards
            .iter()
            .map(|shard| Ok((shard, shard.blocks()?.len() as u64)))
            .collect::<Result<Vec<_>, DbError>>()?
            .into_iter()
            .flat_map(|(shard, n)| (0..n).map(move |i| (shard, i)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .try_for_each(|(shard, i)| shard.block(i).map(drop))
    }

    /// Counts block by block, in parallel, each block's cells tallied by
    /// their symbol in the file's dictionary before any is unpacked.
    fn census_by(
        &self,
        range: Range<u64>,
        weight: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<Census<u64>, DbError> {
        self.shards.iter().try_fold(Census::new(), |census, shard| {
            Ok(census.merge(shard.census_by(range.clone(), weight)?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Meta, write_indexed};
    use crate::progress::NoProgress;
    use crate::value::Outcome;

    /// A cell for index `i`, varied enough to fill many blocks.
    fn cell_of(i: u64) -> Cell {
        match i % 5 {
            0 => Cell::UNKNOWN,
            1 => Cell::pack(Outcome::DRAW),
            2 => Cell::pack(Outcome::win((i % 97) as u32)),
            _ => Cell::pack(Outcome::lose((i % 89) as u32)),
        }
    }

    /// Writes a database of `len` cells ([`cell_of`]) at `path`.
    fn written(path: &Path, len: u64) {
        let meta = Meta {
            game: "test".into(),
            rules_version: 1,
            index_len: len,
            range: 0..len,
            level: crate::db::codec::ZSTD_LEVEL,
        };
        write_indexed(path, &meta, cell_of, &NoProgress).unwrap();
    }

    #[test]
    fn a_scan_reads_every_cell_and_keeps_no_block_it_decodes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, len) = (dir.path().join("scan.plydb"), 300_000);
        written(&path, len);
        let db = Database::open_piece(&path).unwrap();
        let shard = &db.shards[0];
        assert!(
            shard.blocks().unwrap().len() > 1,
            "one block would not show a scan"
        );
        // A probe keeps its block; the scan reads it from there and keeps
        // none of the others.
        assert_eq!(db.cell(7).unwrap(), cell_of(7));
        let mut seen = 0;
        db.for_each_cell(0..len, &mut |key, cell| {
            assert_eq!(cell, cell_of(key), "key {key}");
            seen += 1;
        })
        .unwrap();
        assert_eq!(seen, (0..len).filter(|&i| i % 5 != 0).count());
        let kept = (0..shard.blocks().unwrap().len() as u64)
            .filter(|&i| blocks().get(&(shard.id, i)).is_some())
            .count();
        assert_eq!(kept, 1, "the scan kept decoded blocks");
    }

    #[test]
    fn a_census_by_symbols_equals_one_cell_by_cell() {
        let dir = tempfile::tempdir().unwrap();
        let (path, len) = (dir.path().join("census.plydb"), 300_000);
        written(&path, len);
        let db = Database::open_piece(&path).unwrap();
        let weight = |key: u64| key % 3;
        for range in [0..len, 1..len - 1, 70_000..70_001, 65_530..200_017, 5..5] {
            let by_cell =
                crate::solution::census_in_chunks(&db, range.clone(), 4096, &weight).unwrap();
            assert_eq!(
                db.census_by(range.clone(), &weight).unwrap(),
                by_cell,
                "{range:?}"
            );
            let ones = crate::solution::census_in_chunks(&db, range.clone(), 999, &|_| 1).unwrap();
            assert_eq!(db.census(range.clone()).unwrap(), ones, "{range:?}");
        }
        assert!(db.census(0..len).unwrap().longest_win.is_some());
    }

    #[test]
    fn a_damaged_block_index_read_late_is_a_clear_error_at_the_first_query() {
        let dir = tempfile::tempdir().unwrap();
        let (path, len) = (dir.path().join("index.plydb"), 300_000);
        written(&path, len);
        let index_start = Database::open_piece(&path).unwrap().shards[0].index.start;
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[index_start as usize + 3] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        // One file opened alone reads its index when first needed: the
        // open succeeds, and the first probe names the damage.
        let piece = Database::open_piece(&path).unwrap();
        let err = piece.cell(7).unwrap_err().to_string();
        assert!(err.contains("index"), "{err}");
        assert!(piece.cell(7).is_err(), "a second probe read a bad index");
        // A small whole database checks its index at open.
        let Err(err) = Database::open_shards(std::slice::from_ref(&path), None) else {
            panic!("a whole small database opened with a damaged index");
        };
        assert!(err.to_string().contains("index"), "{err}");
    }
}
