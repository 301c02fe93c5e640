//! The file layout (see docs/db-format.md): a header, the compressed
//! blocks, a block index and a footer, all little-endian.

use super::codec::{Dictionary, checksum};
use crate::census::Census;
use crate::db_error::{DbError, Problem};
use crate::solution::Keys;
use crate::value::{Cell, Outcome, Value};
use std::path::Path;

/// The most cells a block may hold (the writer uses at most 2^16): a
/// header claiming more is corrupt, so no reader allocates past a few
/// megabytes for one block.
pub const MAX_BLOCK_ENTRIES: u32 = 1 << 20;
/// The first bytes of every database. The `\r\n` catches text-mode mangling.
pub const MAGIC: [u8; 8] = *b"PLYDB\0\r\n";
/// The last bytes of every complete database.
pub const END_MAGIC: [u8; 8] = *b"PLYDBEND";
/// The newest format version this build writes and reads: 2 for a file
/// whose header says which side's remoteness it leaves out (`LeftOut`);
/// a file leaving out none is written as version 1, as before.
/// 3 for a file of present keys ([`Keys::Present`]), whose header also
/// holds its census.
pub const FORMAT_VERSION: u32 = 3;
/// Indices per piece of a block of present keys, whose cells the block
/// counts (as a `u16`): a probe tests at most this many indices less one.
pub const PRESENT_RUN: u32 = 1 << 10;
/// Bytes of one block index entry.
pub const INDEX_ENTRY: usize = 32;
/// Bytes of the footer: the index offset and `END_MAGIC`.
pub const FOOTER: usize = 16;
/// The only compression this version writes: zstd.
pub const ZSTD: u8 = 1;

/// Everything the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game's full name with parameters.
    pub game: String,
    /// The game's rules version when the file was built.
    pub rules_version: u32,
    /// What the keys are.
    pub keys: Keys,
    /// The size of the game's whole key space (every shard's `range` lies in it).
    pub index_len: u64,
    /// The keys this file covers: `0..index_len` unless it is one shard of several.
    pub range: std::ops::Range<u64>,
    /// Cells stored in this file.
    pub entries: u64,
    /// Cells per block (the last block may hold fewer).
    pub block_entries: u32,
    /// The cells stored, by symbol.
    pub dictionary: Dictionary,
    /// Seconds since the Unix epoch when the build finished writing.
    pub built_unix: u64,
    /// The program that wrote it, e.g. `ply-core 0.1.0`.
    pub built_by: String,
    /// The side whose remoteness the cells leave out, and its counts.
    pub left_out: Option<LeftOut>,
    /// For a file of present keys ([`Keys::Present`]), the census of the
    /// positions its cells stand for (those of a side left out are
    /// counted in `left_out` instead), examples keys: counting them again
    /// would test every index of the range.
    pub counted: Option<Census<u64>>,
}

/// What a file leaving out the remoteness of one side holds in place of
/// it ([`Cell::left_out`]): the counts by remoteness the cells no longer
/// carry, so that a census of the file is still whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The value whose remoteness is left out: win or lose.
    pub value: Value,
    /// `by_remoteness[r]`: the cells of that value at remoteness `r`.
    pub by_remoteness: Vec<u64>,
    /// The key of one cell with the greatest remoteness of them.
    pub longest_key: u64,
}

impl LeftOut {
    /// What leaving out `value`'s remoteness from cells whose census (one
    /// per key, examples keys) is `census` loses; `None` for a tie or draw.
    pub fn of(value: Value, census: &Census<u64>) -> Option<LeftOut> {
        let column = match value {
            Value::Win => 0,
            Value::Lose => 1,
            Value::Tie | Value::Draw => return None,
        };
        let longest = match value {
            Value::Win => census.longest_win,
            _ => census.longest_lose,
        };
        let mut by_remoteness: Vec<u64> = census.by_remoteness.iter().map(|c| c[column]).collect();
        while by_remoteness.last() == Some(&0) {
            by_remoteness.pop();
        }
        Some(LeftOut {
            value,
            by_remoteness,
            longest_key: longest.map_or(0, |(_, key)| key),
        })
    }

    /// The census of the left-out cells, each standing for `weight`
    /// positions; the example of the longest is its key.
    pub fn census(&self, weight: u64) -> Census<u64> {
        let mut census = Census::new();
        for (r, &n) in self.by_remoteness.iter().enumerate() {
            let outcome = match self.value {
                Value::Win => Outcome::win(r as u32),
                _ => Outcome::lose(r as u32),
            };
            census.add_many(outcome, n * weight, || self.longest_key);
        }
        census
    }
}

/// Where one block lies and how to check it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    /// Offset of its compressed bytes from the start of the file.
    pub offset: u64,
    /// Compressed length.
    pub len: u32,
    /// Length once decompressed.
    pub raw_len: u32,
    /// xxh3-64 of the compressed bytes.
    pub checksum: u64,
    /// Its first key.
    pub first_key: u64,
}

impl Header {
    /// Blocks the file holds: one a run of `block_entries` indices for a
    /// file of present keys, one a run of as many cells otherwise.
    pub fn block_count(&self) -> u64 {
        let covered = match self.keys {
            Keys::Present => self.range.end - self.range.start,
            Keys::Index | Keys::Canonical => self.entries,
        };
        covered.div_ceil(u64::from(self.block_entries))
    }

    /// The positions the file's cells stand for: for a file of present
    /// keys, those its census counts (with a side left out); for another,
    /// its cells (a file over every index counts each index).
    pub fn positions(&self) -> u64 {
        match &self.counted {
            Some(census) => {
                census.positions
                    + self
                        .left_out
                        .as_ref()
                        .map_or(0, |l| l.by_remoteness.iter().sum())
            }
            None => self.entries,
        }
    }

    /// The pieces of [`PRESENT_RUN`] indices of a block of present keys.
    pub fn runs(&self) -> usize {
        self.block_entries.div_ceil(PRESENT_RUN) as usize
    }

    /// The indices block `block` of a file of present keys covers.
    pub fn indices_of(&self, block: u64) -> std::ops::Range<u64> {
        let start = self.first_key(block);
        start..self.range.end.min(start + u64::from(self.block_entries))
    }

    /// The first key of block `block` of a file over every index of its
    /// range ([`Keys::Index`]).
    pub fn first_key(&self, block: u64) -> u64 {
        self.range.start + block * u64::from(self.block_entries)
    }

    /// Cells in block `block`.
    pub fn cells_in(&self, block: u64) -> usize {
        let start = block * u64::from(self.block_entries);
        (self.entries - start).min(u64::from(self.block_entries)) as usize
    }

    /// The header's bytes, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + 2 * self.dictionary.cells().len());
        out.extend_from_slice(&MAGIC);
        let version: u32 = match (self.keys, &self.left_out) {
            (Keys::Present, _) => 3,
            (_, Some(_)) => 2,
            (_, None) => 1,
        };
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes()); // length, filled below
        out.extend_from_slice(&self.rules_version.to_le_bytes());
        out.push(match self.keys {
            Keys::Index => 0,
            Keys::Canonical => 1,
            Keys::Present => 2,
        });
        out.push(ZSTD);
        out.push(self.dictionary.bits());
        out.push(0);
        for n in [
            self.index_len,
            self.range.start,
            self.range.end,
            self.entries,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&self.block_entries.to_le_bytes());
        out.extend_from_slice(&(self.dictionary.cells().len() as u32).to_le_bytes());
        out.extend_from_slice(&self.block_count().to_le_bytes());
        out.extend_from_slice(&self.built_unix.to_le_bytes());
        for cell in self.dictionary.cells() {
            out.extend_from_slice(&cell.bits().to_le_bytes());
        }
        for text in [&self.game, &self.built_by] {
            out.extend_from_slice(&(text.len() as u16).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        if version == 3 {
            out.push(u8::from(self.left_out.is_some()));
        }
        if let Some(left_out) = &self.left_out {
            out.push(match left_out.value {
                Value::Win => 1,
                _ => 2,
            });
            out.extend_from_slice(&(left_out.by_remoteness.len() as u32).to_le_bytes());
            for n in &left_out.by_remoteness {
                out.extend_from_slice(&n.to_le_bytes());
            }
            out.extend_from_slice(&left_out.longest_key.to_le_bytes());
        }
        if version == 3 {
            put_census(self.counted.as_ref(), &mut out);
        }
        let len = (out.len() + 8) as u32;
        out[12..16].copy_from_slice(&len.to_le_bytes());
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads the header at the start of `bytes` (the file at `path`),
    /// returning it and its length.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<(Header, usize), DbError> {
        let fail = |problem| Err(DbError::new(path, problem));
        if bytes.len() < MAGIC.len() || bytes[..8] != MAGIC {
            return fail(Problem::NotADatabase);
        }
        let mut r = Reader { bytes, at: 8 };
        let version = r.u32().ok_or_else(|| truncated(path))?;
        if version > FORMAT_VERSION {
            return fail(Problem::NewerFormat {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        if version == 0 {
            return Err(DbError::corrupt(path, "format version 0"));
        }
        let len = r.u32().ok_or_else(|| truncated(path))? as usize;
        if len < 92 || len > bytes.len() {
            return if len > bytes.len() && len < 1 << 20 {
                fail(Problem::Truncated)
            } else {
                fail(Problem::HeaderChecksum)
            };
        }
        let stored = u64::from_le_bytes(bytes[len - 8..len].try_into().expect("8 bytes"));
        if checksum(&bytes[..len - 8]) != stored {
            return fail(Problem::HeaderChecksum);
        }
        let mut r = Reader {
            bytes: &bytes[..len - 8],
            at: 16,
        };
        let bad = || DbError::corrupt(path, "malformed header");
        let rules_version = r.u32().ok_or_else(bad)?;
        let keys = match r.u8().ok_or_else(bad)? {
            0 => Keys::Index,
            1 => Keys::Canonical,
            2 if version >= 3 => Keys::Present,
            k => return Err(DbError::corrupt(path, format!("unknown key kind {k}"))),
        };
        let compression = r.u8().ok_or_else(bad)?;
        if compression != ZSTD {
            return Err(DbError::corrupt(
                path,
                format!("unknown compression {compression}"),
            ));
        }
        let bits = r.u8().ok_or_else(bad)?;
        r.u8().ok_or_else(bad)?;
        let index_len = r.u64().ok_or_else(bad)?;
        let range = r.u64().ok_or_else(bad)?..r.u64().ok_or_else(bad)?;
        let entries = r.u64().ok_or_else(bad)?;
        let block_entries = r.u32().ok_or_else(bad)?;
        let dict_len = r.u32().ok_or_else(bad)? as usize;
        let block_count = r.u64().ok_or_else(bad)?;
        let built_unix = r.u64().ok_or_else(bad)?;
        let mut cells = Vec::with_capacity(dict_len.min(1 << 16));
        for _ in 0..dict_len {
            cells.push(Cell::from_bits(r.u16().ok_or_else(bad)?));
        }
        let game = r.text().ok_or_else(bad)?;
        let built_by = r.text().ok_or_else(bad)?;
        let has_left_out = match version {
            1 => false,
            2 => true,
            _ => r.u8().ok_or_else(bad)? == 1,
        };
        let left_out = if has_left_out {
            let value = match r.u8().ok_or_else(bad)? {
                1 => Value::Win,
                2 => Value::Lose,
                v => return Err(DbError::corrupt(path, format!("unknown side left out {v}"))),
            };
            let len = r.u32().ok_or_else(bad)? as usize;
            let mut by_remoteness = Vec::with_capacity(len.min(usize::from(u16::MAX)));
            for _ in 0..len {
                by_remoteness.push(r.u64().ok_or_else(bad)?);
            }
            let longest_key = r.u64().ok_or_else(bad)?;
            Some(LeftOut {
                value,
                by_remoteness,
                longest_key,
            })
        } else {
            None
        };
        let counted = if version >= 3 {
            get_census(&mut r).ok_or_else(bad)?
        } else {
            None
        };
        let dictionary = Dictionary::from_cells(cells)
            .ok_or_else(|| DbError::corrupt(path, "malformed cell dictionary"))?
            .with_bits(bits)
            .ok_or_else(|| DbError::corrupt(path, "header fields contradict each other"))?;
        let header = Header {
            game,
            rules_version,
            keys,
            index_len,
            range,
            entries,
            block_entries,
            dictionary,
            built_unix,
            built_by,
            left_out,
            counted,
        };
        let marker = header
            .left_out
            .as_ref()
            .and_then(|l| Cell::left_out(l.value));
        let left_out_sound = header
            .dictionary
            .cells()
            .iter()
            .all(|c| c.left_out_value().is_none() || Some(*c) == marker)
            && header
                .left_out
                .as_ref()
                .is_none_or(|l| l.by_remoteness.len() <= usize::from(u16::MAX));
        let consistent = r.at == r.bytes.len()
            && left_out_sound
            && block_entries > 0
            && block_entries <= MAX_BLOCK_ENTRIES
            && header.range.start <= header.range.end
            && header.range.end <= index_len
            && (keys != Keys::Index || entries == header.range.end - header.range.start)
            && (keys == Keys::Present) == (version == 3)
            && (keys != Keys::Present || header.counted.is_some())
            && entries <= header.range.end - header.range.start
            && block_count == header.block_count();
        if !consistent {
            return Err(DbError::corrupt(
                path,
                "header fields contradict each other",
            ));
        }
        Ok((header, len))
    }
}

impl BlockEntry {
    /// The entry's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.raw_len.to_le_bytes());
        out.extend_from_slice(&self.checksum.to_le_bytes());
        out.extend_from_slice(&self.first_key.to_le_bytes());
    }

    /// Reads an entry from its [`INDEX_ENTRY`] bytes.
    pub fn decode(bytes: &[u8]) -> BlockEntry {
        let mut r = Reader { bytes, at: 0 };
        let (offset, len, raw_len, checksum, first_key) =
            (r.u64(), r.u32(), r.u32(), r.u64(), r.u64());
        BlockEntry {
            offset: offset.unwrap_or(0),
            len: len.unwrap_or(0),
            raw_len: raw_len.unwrap_or(0),
            checksum: checksum.unwrap_or(0),
            first_key: first_key.unwrap_or(0),
        }
    }
}

fn truncated(path: &Path) -> DbError {
    DbError::new(path, Problem::Truncated)
}

/// Reads little-endian numbers one after another.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let slice = self.bytes.get(self.at..self.at + N)?;
        self.at += N;
        slice.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn text(&mut self) -> Option<String> {
        let len = usize::from(self.u16()?);
        let bytes = self.bytes.get(self.at..self.at + len)?;
        self.at += len;
        String::from_utf8(bytes.to_vec()).ok()
    }
}

/// Appends `census` (a flag byte, then the draws, the counts by
/// remoteness and the longest win and loss with their keys).
fn put_census(census: Option<&Census<u64>>, out: &mut Vec<u8>) {
    let Some(census) = census else {
        out.push(0);
        return;
    };
    out.push(1);
    out.extend_from_slice(&census.draw.to_le_bytes());
    out.extend_from_slice(&(census.by_remoteness.len() as u32).to_le_bytes());
    for row in &census.by_remoteness {
        for n in row {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    for longest in [&census.longest_win, &census.longest_lose] {
        match longest {
            Some((r, key)) => {
                out.push(1);
                out.extend_from_slice(&r.to_le_bytes());
                out.extend_from_slice(&key.to_le_bytes());
            }
            None => out.push(0),
        }
    }
}

/// Reads what [`put_census`] wrote: `None` if malformed, `Some(None)` for
/// no census.
fn get_census(r: &mut Reader) -> Option<Option<Census<u64>>> {
    if r.u8()? == 0 {
        return Some(None);
    }
    let mut census = Census::new();
    census.add_many(Outcome::DRAW, r.u64()?, || 0);
    let rows = r.u32()? as usize;
    if rows > usize::from(u16::MAX) {
        return None;
    }
    for remoteness in 0..rows as u32 {
        for make in [Outcome::win, Outcome::lose, Outcome::tie] {
            census.add_many(make(remoteness), r.u64()?, || 0);
        }
    }
    census.by_remoteness.resize(rows, [0; 3]);
    let mut longest = || -> Option<Option<(u32, u64)>> {
        Some(match r.u8()? {
            0 => None,
            _ => Some((r.u32()?, r.u64()?)),
        })
    };
    census.longest_win = longest()?;
    census.longest_lose = longest()?;
    Some(Some(census))
}
