//! The work files of the build by streams ([`super::streams`]): one
//! tier's keys (four or eight bytes each) or outcome codes (one byte each), stack
//! after stack, read a stack or a run of one at a time by position, so
//! that the build holds only the stacks it works on.
//!
//! A file is the items, then each stack's length (u64), the discs, the
//! stacks and the item width (u32 each) and `PLYC4STK`, all little-endian.
//! It is written under a temporary name and renamed once whole, so a file
//! under its own name is complete (unless the machine itself crashed: the
//! files are scratch, not synced to disk).

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

/// One tier's work file, open for reading.
pub(super) struct Stored {
    file: File,
    path: PathBuf,
    width: u64,
    /// Where each stack starts, in items, and the end.
    starts: Vec<u64>,
}

impl Stored {
    /// The file at `path` of tier `discs` with `stacks` stacks of items
    /// `width` bytes wide; an error if it is not that.
    pub fn open(path: &Path, discs: u32, stacks: u64, width: usize) -> Result<Stored, DbError> {
        let io = |e| DbError::io(path, e);
        let bad = |why: &str| DbError::corrupt(path, format!("not the work file expected: {why}"));
        let file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let footer = TAIL + 8 * stacks;
        if size < footer {
            return Err(bad("too short"));
        }
        let mut tail = vec![0u8; footer as usize];
        file.read_exact_at(&mut tail, size - footer).map_err(io)?;
        let (lens, end) = tail.split_at(8 * stacks as usize);
        let word = |at: usize| u32::from_le_bytes(end[at..at + 4].try_into().expect("4 bytes"));
        if &end[12..] != MAGIC
            || word(0) != discs
            || u64::from(word(4)) != stacks
            || word(8) as usize != width
        {
            return Err(bad("another tier's, or another kind"));
        }
        let mut starts = Vec::with_capacity(stacks as usize + 1);
        let mut at = 0u64;
        starts.push(0);
        for len in lens.chunks_exact(8) {
            at += u64::from_le_bytes(len.try_into().expect("8 bytes"));
            starts.push(at);
        }
        if at * width as u64 + footer != size {
            return Err(bad("its length does not match its stacks"));
        }
        Ok(Stored {
            file,
            path: path.to_path_buf(),
            width: width as u64,
            starts,
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
        debug_assert_eq!(size_of::<T>() as u64, self.width);
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

    /// Items `range` of stack `rank`.
    pub fn read<T: Item>(&self, rank: usize, range: Range<u64>) -> Result<Vec<T>, DbError> {
        let mut out = Vec::new();
        self.read_into(rank, range, &mut out)?;
        Ok(out)
    }

    /// Every item of stack `rank`.
    pub fn stack<T: Item>(&self, rank: usize) -> Result<Vec<T>, DbError> {
        self.read(rank, 0..self.stack_len(rank))
    }

    /// The first place in stack `rank` whose item `below` is false of,
    /// the items being first all those it holds of (a binary search
    /// reading an item a step).
    pub fn partition_point<T: Item>(
        &self,
        rank: usize,
        below: impl Fn(T) -> bool,
    ) -> Result<u64, DbError> {
        let (mut low, mut high) = (0, self.stack_len(rank));
        while low < high {
            let mid = low + (high - low) / 2;
            if below(self.read::<T>(rank, mid..mid + 1)?[0]) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        Ok(low)
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
    /// A chunk's bytes swapped to little-endian, on a big-endian machine.
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
            swapped: Vec::new(),
        })
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
        let mut tail = Vec::with_capacity(self.lens.len() * 8 + TAIL as usize);
        for len in &self.lens {
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
