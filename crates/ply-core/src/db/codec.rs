//! The block codec: cells packed to a few bits through a dictionary,
//! optional keys as varint deltas, compressed with zstd and checksummed
//! with xxh3. Pure functions over byte slices, so they are tested alone.

use crate::value::Cell;
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;

/// The zstd level blocks are written at.
pub const ZSTD_LEVEL: i32 = 9;
/// The zstd level of a draft: a file written fast because it will be
/// rewritten (a tier's shard before the whole game's shards leave out a
/// side's remoteness), about a tenth of [`ZSTD_LEVEL`]'s time for a tenth
/// more bytes.
pub const DRAFT_LEVEL: i32 = 3;

/// The distinct cells a database holds, in a fixed order: a cell is stored
/// as its position in this list. [`Cell::UNKNOWN`] is always symbol 0.
#[derive(Clone, Debug)]
pub struct Dictionary {
    cells: Vec<Cell>,
    /// Each raw cell value's symbol ([`u16::MAX`] for a cell not listed),
    /// built when first needed: only writers look cells up, and a reader
    /// of many shards would otherwise fill 128 KiB for each.
    symbols: OnceLock<Box<[u16]>>,
    bits: u8,
}

impl PartialEq for Dictionary {
    fn eq(&self, other: &Self) -> bool {
        (&self.cells, self.bits) == (&other.cells, other.bits)
    }
}

impl Eq for Dictionary {}

impl Dictionary {
    /// The dictionary of the cells whose bits are marked in `present`
    /// (65,536 flags, one per raw cell value).
    pub fn from_present(present: &[bool]) -> Self {
        let mut cells = vec![Cell::UNKNOWN];
        cells.extend(
            (1..present.len())
                .filter(|&bits| present[bits])
                .map(|bits| Cell::from_bits(bits as u16)),
        );
        Self::from_cells(cells).expect("UNKNOWN comes first and cells are distinct")
    }

    /// The dictionary listing `cells`, which must start with
    /// [`Cell::UNKNOWN`] and hold each cell once; `None` otherwise.
    pub fn from_cells(cells: Vec<Cell>) -> Option<Self> {
        if cells.first() != Some(&Cell::UNKNOWN) || cells.len() > 1 << 16 {
            return None;
        }
        let mut sorted: Vec<u16> = cells.iter().map(|c| c.bits()).collect();
        sorted.sort_unstable();
        if sorted.windows(2).any(|pair| pair[0] == pair[1]) {
            return None;
        }
        let bits = match cells.len() {
            0 | 1 => 0,
            n => (usize::BITS - (n - 1).leading_zeros()) as u8,
        };
        Some(Self {
            cells,
            symbols: OnceLock::new(),
            bits,
        })
    }

    /// The same cells stored `bits` bits a cell: at least what they need,
    /// at most 16; `None` otherwise.
    pub fn with_bits(mut self, bits: u8) -> Option<Self> {
        if bits < self.bits || bits > 16 {
            return None;
        }
        self.bits = bits;
        Some(self)
    }

    /// The same cells stored a whole byte a cell where they need five to
    /// seven bits: zstd finds repeats in whole bytes far better than in
    /// symbols that straddle them.
    pub fn byte_aligned(self) -> Self {
        match self.bits {
            5..=7 => Self { bits: 8, ..self },
            _ => self,
        }
    }

    /// The cells, by symbol.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Bits per stored cell.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// Each raw cell value's symbol, [`u16::MAX`] where the dictionary
    /// lacks the cell.
    fn symbols(&self) -> &[u16] {
        self.symbols.get_or_init(|| {
            let mut symbols = vec![u16::MAX; 1 << 16].into_boxed_slice();
            for (symbol, cell) in self.cells.iter().enumerate() {
                symbols[usize::from(cell.bits())] = symbol as u16;
            }
            symbols
        })
    }

    /// Bytes `n` packed cells take.
    pub fn packed_len(&self, n: usize) -> usize {
        (n * usize::from(self.bits)).div_ceil(8)
    }

    /// Appends `cells` packed, least significant bit first. `None` if a cell
    /// is missing from the dictionary.
    pub fn pack(&self, cells: impl IntoIterator<Item = Cell>, out: &mut Vec<u8>) -> Option<()> {
        let bits = u32::from(self.bits);
        let (mut acc, mut filled) = (0u64, 0u32);
        let symbols = self.symbols();
        for cell in cells {
            let symbol = match symbols[usize::from(cell.bits())] {
                u16::MAX => return None,
                s => u64::from(s),
            };
            if bits == 0 {
                continue;
            }
            acc |= symbol << filled;
            filled += bits;
            while filled >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                filled -= 8;
            }
        }
        if filled > 0 {
            out.push(acc as u8);
        }
        Some(())
    }

    /// The cell at position `i` of `packed` cells (which must hold it).
    #[inline]
    pub fn unpack(&self, packed: &[u8], i: usize) -> Cell {
        self.cells
            .get(self.symbol_at(packed, i))
            .copied()
            .unwrap_or(Cell::UNKNOWN)
    }

    /// The symbol at position `i` of `packed` cells (which must hold it):
    /// an index into [`Dictionary::cells`] unless the bytes are corrupt.
    #[inline]
    pub fn symbol_at(&self, packed: &[u8], i: usize) -> usize {
        let bits = usize::from(self.bits);
        if bits == 0 {
            return 0;
        }
        if bits == 8 {
            return usize::from(packed[i]);
        }
        let bit = i * bits;
        let byte = bit / 8;
        let mut word = [0u8; 4];
        let end = packed.len().min(byte + 4);
        word[..end - byte].copy_from_slice(&packed[byte..end]);
        ((u32::from_le_bytes(word) >> (bit % 8)) & ((1 << bits) - 1)) as usize
    }
}

/// Appends `keys` (increasing, the first being `first`) as LEB128 deltas.
pub fn put_keys(first: u64, keys: &[u64], out: &mut Vec<u8>) {
    let mut last = first;
    for &key in keys {
        put_varint(key - last, out);
        last = key;
    }
}

/// Appends `value` as a LEB128 varint.
#[inline]
pub fn put_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads the LEB128 varint at `*at` in `bytes` and moves `at` past it;
/// `None` if it runs past the end or past 64 bits.
#[inline]
pub fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let (mut value, mut shift) = (0u64, 0u32);
    loop {
        let byte = *bytes.get(*at)?;
        *at += 1;
        if shift > 63 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
}

/// Reads `n` keys written by [`put_keys`] from `bytes`; `None` if they are
/// malformed, run past the end, do not increase or leave bytes over.
pub fn get_keys(first: u64, n: usize, bytes: &[u8]) -> Option<Vec<u64>> {
    let mut keys = Vec::with_capacity(n);
    let (mut last, mut at) = (first, 0usize);
    for i in 0..n {
        let delta = get_varint(bytes, &mut at)?;
        if i > 0 && delta == 0 {
            return None;
        }
        last = last.checked_add(delta)?;
        keys.push(last);
    }
    (at == bytes.len()).then_some(keys)
}

/// A block as stored: compressed bytes and their checksum.
pub struct Encoded {
    /// The zstd frame.
    pub bytes: Vec<u8>,
    /// xxh3-64 of `bytes`.
    pub checksum: u64,
}

/// Compresses a block's raw bytes at zstd level `level`.
pub fn encode_at(raw: &[u8], level: i32) -> std::io::Result<Encoded> {
    let bytes = zstd::bulk::compress(raw, level)?;
    let checksum = checksum(&bytes);
    Ok(Encoded { bytes, checksum })
}

/// Why a stored block cannot be decoded.
#[derive(Debug, PartialEq, Eq)]
pub enum BlockError {
    /// Its bytes do not match their checksum.
    Checksum,
    /// The checksum matched but the bytes do not decompress to `raw_len`.
    Malformed,
}

/// Checks and decompresses a stored block whose raw form is `raw_len` bytes.
pub fn decode(bytes: &[u8], checksum: u64, raw_len: usize) -> Result<Vec<u8>, BlockError> {
    if self::checksum(bytes) != checksum {
        return Err(BlockError::Checksum);
    }
    let raw = zstd::bulk::decompress(bytes, raw_len).map_err(|_| BlockError::Malformed)?;
    if raw.len() != raw_len {
        return Err(BlockError::Malformed);
    }
    Ok(raw)
}

/// The checksum every part of a database carries.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Outcome;
    use proptest::prelude::*;

    fn dictionary(max_r: u32) -> Dictionary {
        let mut present = vec![false; 1 << 16];
        for r in 0..=max_r {
            present[usize::from(Cell::pack(Outcome::win(r)).bits())] = true;
            present[usize::from(Cell::pack(Outcome::lose(r)).bits())] = true;
        }
        present[usize::from(Cell::pack(Outcome::DRAW).bits())] = true;
        Dictionary::from_present(&present)
    }

    fn cells(max_r: u32) -> impl Strategy<Value = Vec<Cell>> {
        let dict = dictionary(max_r);
        let n = dict.cells().len();
        proptest::collection::vec(0..n, 0..600)
            .prop_map(move |symbols| symbols.iter().map(|&s| dict.cells()[s]).collect())
    }

    #[test]
    fn bits_grow_with_the_dictionary() {
        assert_eq!(dictionary(0).bits(), 2); // unknown, win 0, lose 0, draw
        assert_eq!(dictionary(1).bits(), 3);
        assert_eq!(dictionary(20).bits(), 6);
        assert_eq!(
            Dictionary::from_cells(vec![Cell::UNKNOWN]).unwrap().bits(),
            0
        );
        assert!(Dictionary::from_cells(vec![Cell::UNKNOWN, Cell::UNKNOWN]).is_none());
    }

    proptest! {
        #[test]
        fn blocks_round_trip(cells in cells(39), keys in proptest::collection::btree_set(0u64..1 << 40, 0..300)) {
            let dict = dictionary(39);
            let mut raw = Vec::new();
            dict.pack(cells.iter().copied(), &mut raw).unwrap();
            prop_assert_eq!(raw.len(), dict.packed_len(cells.len()));
            let keys: Vec<u64> = keys.into_iter().collect();
            let first = keys.first().copied().unwrap_or(0);
            let cells_len = raw.len();
            put_keys(first, &keys, &mut raw);
            let block = encode_at(&raw, ZSTD_LEVEL).unwrap();
            let back = decode(&block.bytes, block.checksum, raw.len()).unwrap();
            prop_assert_eq!(&back, &raw);
            for (i, &cell) in cells.iter().enumerate() {
                prop_assert_eq!(dict.unpack(&back[..cells_len], i), cell);
            }
            prop_assert_eq!(get_keys(first, keys.len(), &back[cells_len..]), Some(keys));
        }

        #[test]
        fn any_changed_byte_is_detected(cells in cells(30), at in any::<prop::sample::Index>(), change in 1u8..=255) {
            let dict = dictionary(30);
            let mut raw = Vec::new();
            dict.pack(cells.iter().copied(), &mut raw).unwrap();
            let block = encode_at(&raw, ZSTD_LEVEL).unwrap();
            let mut bytes = block.bytes.clone();
            let i = at.index(bytes.len());
            bytes[i] ^= change;
            prop_assert_eq!(decode(&bytes, block.checksum, raw.len()), Err(BlockError::Checksum));
            // A changed checksum is caught as surely as changed bytes.
            prop_assert_eq!(decode(&block.bytes, block.checksum ^ u64::from(change), raw.len()), Err(BlockError::Checksum));
        }
    }
}
