//! The work files of the build by streams ([`super::streams`]): one
//! tier's keys or outcome codes (one byte each), stack after stack, read
//! a stack (or a run of codes) at a time, so that the build holds only
//! the stacks it works on. A stack's keys, which come in increasing
//! order, are stored as the gaps between them (the first from 0), each a
//! LEB128 varint: about a byte a key where a fixed width took four or
//! eight.
//!
//! A file is the items, then each stack's length in items (u64), for
//! keys each stack's length in bytes (u64), the discs, the stacks and the
//! item width (u32 each; 0 for keys) and `PLYC4STK`, all little-endian.
//! It is written under a temporary name and renamed once whole, so a file
//! under its own name is complete (unless the machine itself crashed: the
//! files are scratch, not synced to disk).

use super::key::Key;
use ply_core::DbError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The file's last bytes.
const MAGIC: &[u8; 8] = b"PLYC4STK";

/// The footer after the stacks' lengths: discs, stacks, width, magic.
const TAIL: u64 = 4 + 4 + 4 + 8;

/// An item of a work file: a key or a code, stored little-endian.
pub(super) trait Item: bytemuck::Pod + Default + Send + Sync {
    /// The item in little-endian order from this machine's, or back (the
    /// same swap either way; nothing on a little-endian machine).
    fn swap_le(self) -> Self;
}

impl Item for u32 {
    fn swap_le(self) -> Self {
        self.to_le()
    }
}

impl Item for u64 {
    fn swap_le(self) -> Self {
        self.to_le()
    }
}

impl Item for u8 {
    fn swap_le(self) -> Self {
        self
    }
}

thread_local! {
    /// The coded bytes of the stack of keys a thread last read, kept so
    /// that reading a stack allocates nothing once they are large enough.
    static CODED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The width of the items of a file of keys: varints.
const KEYS: usize = 0;

/// One tier's work file, open for reading.
pub(super) struct Stored {
    file: File,
    path: PathBuf,
    width: u64,
    /// Where each stack starts, in items, and the end.
    starts: Vec<u64>,
    /// Where each stack starts, in bytes, and the end.
    offsets: Vec<u64>,
}

impl Stored {
    /// The file at `path` of tier `discs` with `stacks` stacks of items
    /// `width` bytes wide; an error if it is not that.
    pub fn open(path: &Path, discs: u32, stacks: u64, width: usize) -> Result<Stored, DbError> {
        Self::open_as(path, discs, stacks, width)
    }

    /// The file of keys at `path` of tier `discs` with `stacks` stacks;
    /// an error if it is not that.
    pub fn open_keys(path: &Path, discs: u32, stacks: u64) -> Result<Stored, DbError> {
        Self::open_as(path, discs, stacks, KEYS)
    }

    fn open_as(path: &Path, discs: u32, stacks: u64, width: usize) -> Result<Stored, DbError> {
        let io = |e| DbError::io(path, e);
        let bad = |why: &str| DbError::corrupt(path, format!("not the work file expected: {why}"));
        let file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let tables = if width == KEYS { 2 } else { 1 };
        let footer = TAIL + 8 * tables * stacks;
        if size < footer {
            return Err(bad("too short"));
        }
        let mut tail = vec![0u8; footer as usize];
        file.read_exact_at(&mut tail, size - footer).map_err(io)?;
        let (lens, end) = tail.split_at(8 * tables as usize * stacks as usize);
        let word = |at: usize| u32::from_le_bytes(end[at..at + 4].try_into().expect("4 bytes"));
        if &end[12..] != MAGIC
            || word(0) != discs
            || u64::from(word(4)) != stacks
            || word(8) as usize != width
        {
            return Err(bad("another tier's, or another kind"));
        }
        let sums = |lens: &[u8]| {
            let mut at = 0u64;
            std::iter::once(0)
                .chain(lens.chunks_exact(8).map(|len| {
                    at += u64::from_le_bytes(len.try_into().expect("8 bytes"));
                    at
                }))
                .collect::<Vec<u64>>()
        };
        let (items, bytes) = lens.split_at(8 * stacks as usize);
        let starts = sums(items);
        let offsets = if width == KEYS {
            sums(bytes)
        } else {
            starts.iter().map(|&at| at * width as u64).collect()
        };
        if offsets.last().expect("an end") + footer != size {
            return Err(bad("its length does not match its stacks"));
        }
        Ok(Stored {
            file,
            path: path.to_path_buf(),
            width: width as u64,
            starts,
            offsets,
        })
    }

    /// Every item of the tier.
    pub fn items(&self) -> u64 {
        *self.starts.last().expect("a start")
    }

    /// The items of stack `rank`.
    pub fn stack_len(&self, rank: usize) -> u64 {
        self.starts[rank + 1] - self.starts[rank]
    }

    /// The most items of one stack.
    pub fn largest(&self) -> u64 {
        (0..self.starts.len() - 1)
            .map(|r| self.stack_len(r))
            .max()
            .unwrap_or(0)
    }

    /// Items `range` of stack `rank`, read into `out` (its allocation
    /// kept from one read to the next).
    pub fn read_into<T: Item>(
        &self,
        rank: usize,
        range: Range<u64>,
        out: &mut Vec<T>,
    ) -> Result<(), DbError> {
        debug_assert_eq!(size_of::<T>() as u64, self.width, "items of a fixed width");
        out.clear();
        out.resize((range.end - range.start) as usize, T::default());
        let at = (self.starts[rank] + range.start) * self.width;
        self.file
            .read_exact_at(bytemuck::cast_slice_mut(out), at)
            .map_err(|e| DbError::io(&self.path, e))?;
        if cfg!(target_endian = "big") {
            for item in out.iter_mut() {
                *item = item.swap_le();
            }
        }
        Ok(())
    }

    /// Every item of stack `rank`, read into `out`.
    pub fn stack_into<T: Item>(&self, rank: usize, out: &mut Vec<T>) -> Result<(), DbError> {
        self.read_into(rank, 0..self.stack_len(rank), out)
    }

    /// Every key of stack `rank` of a file of keys, read into `out`.
    pub fn keys_into<K: Key>(&self, rank: usize, out: &mut Vec<K>) -> Result<(), DbError> {
        CODED.with_borrow_mut(|bytes| self.decode(rank, bytes, out))
    }

    /// [`Stored::keys_into`], the stack's bytes read into `bytes`.
    fn decode<K: Key>(
        &self,
        rank: usize,
        bytes: &mut Vec<u8>,
        out: &mut Vec<K>,
    ) -> Result<(), DbError> {
        debug_assert_eq!(self.width, KEYS as u64, "a file of keys");
        let (at, end) = (self.offsets[rank], self.offsets[rank + 1]);
        bytes.clear();
        bytes.resize((end - at) as usize, 0);
        self.file
            .read_exact_at(bytes, at)
            .map_err(|e| DbError::io(&self.path, e))?;
        out.clear();
        out.reserve(self.stack_len(rank) as usize);
        let bad = || DbError::corrupt(&self.path, format!("stack {rank}'s keys do not decode"));
        let (mut key, mut shift, mut gap) = (0u64, 0, 0u64);
        for &byte in bytes.iter() {
            gap |= u64::from(byte & 0x7f).checked_shl(shift).ok_or_else(bad)?;
            if byte & 0x80 == 0 {
                key = key.checked_add(gap).ok_or_else(bad)?;
                out.push(K::of(key));
                (shift, gap) = (0, 0);
            } else {
                shift += 7;
            }
        }
        if shift != 0 || out.len() as u64 != self.stack_len(rank) {
            return Err(bad());
        }
        Ok(())
    }

    /// Every key of stack `rank` of a file of keys.
    pub fn keys<K: Key>(&self, rank: usize) -> Result<Vec<K>, DbError> {
        let mut out = Vec::new();
        self.keys_into(rank, &mut out)?;
        Ok(out)
    }
}

/// A work file being written, stack after stack in order.
pub(super) struct Writing {
    out: BufWriter<File>,
    temp: PathBuf,
    path: PathBuf,
    discs: u32,
    width: usize,
    lens: Vec<u64>,
    /// Each stack's bytes, in a file of keys.
    sizes: Vec<u64>,
    /// A chunk's bytes swapped to little-endian, on a big-endian machine,
    /// or a stack's keys coded.
    swapped: Vec<u8>,
}

impl Writing {
    /// Starts the work file at `path` of tier `discs`, items `width`
    /// bytes wide.
    pub fn create(path: &Path, discs: u32, width: usize) -> Result<Writing, DbError> {
        let temp = path.with_extension("tmp");
        let file = File::create(&temp).map_err(|e| DbError::io(&temp, e))?;
        Ok(Writing {
            out: BufWriter::with_capacity(1 << 20, file),
            temp,
            path: path.to_path_buf(),
            discs,
            width,
            lens: Vec::new(),
            sizes: Vec::new(),
            swapped: Vec::new(),
        })
    }

    /// Starts the file of keys at `path` of tier `discs`.
    pub fn create_keys(path: &Path, discs: u32) -> Result<Writing, DbError> {
        Self::create(path, discs, KEYS)
    }

    /// Appends the next stack of a file of keys: `keys`, increasing.
    pub fn push_keys<K: Key>(&mut self, keys: &[K]) -> Result<(), DbError> {
        debug_assert_eq!(self.width, KEYS, "a file of keys");
        self.swapped.clear();
        let mut before = 0u64;
        for &key in keys {
            let key = key.bits();
            debug_assert!(key >= before, "keys in increasing order");
            let mut gap = key - before;
            while gap >= 0x80 {
                self.swapped.push(gap as u8 | 0x80);
                gap >>= 7;
            }
            self.swapped.push(gap as u8);
            before = key;
        }
        self.out
            .write_all(&self.swapped)
            .map_err(|e| DbError::io(&self.temp, e))?;
        self.lens.push(keys.len() as u64);
        self.sizes.push(self.swapped.len() as u64);
        Ok(())
    }

    /// Appends the next stack.
    pub fn push<T: Item>(&mut self, items: &[T]) -> Result<(), DbError> {
        debug_assert_eq!(size_of::<T>(), self.width);
        let io = |e| DbError::io(&self.temp, e);
        if cfg!(target_endian = "little") {
            self.out
                .write_all(bytemuck::cast_slice(items))
                .map_err(io)?;
        } else {
            for chunk in items.chunks(1 << 14) {
                self.swapped.clear();
                for &item in chunk {
                    self.swapped
                        .extend_from_slice(bytemuck::bytes_of(&item.swap_le()));
                }
                self.out.write_all(&self.swapped).map_err(io)?;
            }
        }
        self.lens.push(items.len() as u64);
        Ok(())
    }

    /// Writes the footer and gives the file its name.
    pub fn finish(mut self) -> Result<(), DbError> {
        let io = |e| DbError::io(&self.temp, e);
        let mut tail = Vec::with_capacity((self.lens.len() + self.sizes.len()) * 8 + TAIL as usize);
        for len in self.lens.iter().chain(&self.sizes) {
            tail.extend_from_slice(&len.to_le_bytes());
        }
        tail.extend_from_slice(&self.discs.to_le_bytes());
        tail.extend_from_slice(&(self.lens.len() as u32).to_le_bytes());
        tail.extend_from_slice(&(self.width as u32).to_le_bytes());
        tail.extend_from_slice(MAGIC);
        self.out.write_all(&tail).map_err(io)?;
        // Not synced to disk: a killed build finds the file whole or not
        // at all; after a crash of the machine, the footer and the length
        // check in [`Stored::open`] refuse a file cut short, and the build
        // makes it again.
        self.out.into_inner().map_err(|e| io(e.into_error()))?;
        std::fs::rename(&self.temp, &self.path).map_err(|e| DbError::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Stacks of increasing keys, of any gaps up to 56 bits, read back
        /// as written; a stack whose last varint is cut short is refused,
        /// not misread.
        #[test]
        fn keys_coded_as_gaps_read_back(
            stacks in proptest::collection::vec(
                proptest::collection::btree_set(0u64..1 << 56, 0..200),
                1..6,
            ),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("keys");
            let mut out = Writing::create_keys(&path, 7).unwrap();
            for stack in &stacks {
                out.push_keys(&stack.iter().copied().collect::<Vec<u64>>()).unwrap();
            }
            out.finish().unwrap();
            let stored = Stored::open_keys(&path, 7, stacks.len() as u64).unwrap();
            prop_assert!(Stored::open(&path, 7, stacks.len() as u64, 8).is_err());
            for (rank, stack) in stacks.iter().enumerate() {
                let keys: Vec<u64> = stored.keys(rank).unwrap();
                prop_assert_eq!(keys, stack.iter().copied().collect::<Vec<u64>>());
            }
            // The last byte of the first non-empty stack given a
            // continuation bit: its last key now runs past its end.
            if let Some(rank) = stacks.iter().position(|s| !s.is_empty()) {
                let end = stored.offsets[rank + 1] - 1;
                let mut bytes = std::fs::read(&path).unwrap();
                bytes[end as usize] |= 0x80;
                std::fs::write(&path, bytes).unwrap();
                let stored = Stored::open_keys(&path, 7, stacks.len() as u64).unwrap();
                prop_assert!(stored.keys::<u64>(rank).is_err());
            }
        }
    }
}
