//! The build of `connect4:WxH` by sorted streams of keys, for boards of at
//! most [`MOST_CELLS`] cells: only the positions legal play reaches are
//! ever looked at, and every child is found by walking forward, never by
//! a search or a rank.
//!
//! A position is its stack (its column heights, [`TierIndex`]'s stack
//! rank) and its key: a bit a disc, the discs taken column by column from
//! the bottom, set where the disc is `o`'s. Dropping a disc into column
//! `c` inserts one bit at a place fixed by the stack and `c`, which keeps
//! the order of keys: so the children of a stack's positions in increasing
//! order, through one column, come in increasing order too. Then:
//! - **Forward**, tier by tier from the empty board: a stack's positions
//!   are the union of its parent stacks' streams (each parent stack one
//!   disc lower in one column, its positions that are not over), merged
//!   in order. Each is marked over where the player who moved last has
//!   four. Each tier's keys are written to a work file: the resume points
//!   of this pass, and what the backward pass reads.
//! - **Backward**, from the full board down: a position's outcome is the
//!   best of its children's through a move, each found by a cursor that
//!   walks its child stack's keys forward alongside the parent's keys.
//!   Each tier is written as its shard in the dense index of
//!   [`TierIndex`] (the colex rank of a key is its place in the stack),
//!   so that the database reads as the generic build's, cell for cell.
//!
//! Both passes fold the board by its mirror, stack by stack ([`Fold`]):
//! a stack whose mirror image has a smaller rank keeps no keys, and where
//! it is read, its mirror image's keys are mirrored (each column's bits
//! moved across) and sorted. A palindromic stack keeps all of its own, so
//! about half the positions are made and solved. The shards hold every
//! position's cell, a folded stack's read from its mirror image.
//!
//! Outcomes are a byte each while they work ([`Code`]), keys a word
//! ([`Key`]): 32 bits up to [`NARROW_CELLS`] cells, 64 beyond. Memory: a
//! key and a byte of outcome per position kept of a batch of stacks of
//! two tiers at once (see [`Streams::bytes_at_once`]).

use super::index::{TierIndex, binomial};
use super::key::Key;
use super::stored::{Stored, Writing};
use super::{ConnectFour, has_four};
use crate::colex::{Packing, PackingPath, with_packing};
use ply_core::db::LeaveOut;
use ply_core::tier::{Built, Plan, Shards, Step, TierError};
use ply_core::{Cell, Census, DbError, Game, Outcome, Progress, Value};
use rayon::prelude::*;
use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The most cells of a board built by streams: a key and its mark, with
/// a code beside them, fit 64 bits (where a mirrored stack is sorted).
pub const MOST_CELLS: u32 = 55;

/// The most cells of a board whose keys and marks fit 32 bits: larger
/// boards take 64-bit keys ([`Key`]).
pub const NARROW_CELLS: u32 = 31;

/// An outcome in a byte, ordered as the player to move likes it: a loss
/// in `r` is `r`, a tie in `r` is `127 - r`, a win in `r` is `191 - r`
/// (remoteness below 64).
type Code = u8;

/// The code of a loss at once: the player who moved last has four.
const LOST: Code = 0;

/// The code of a tie at once: the board is full.
const TIED: Code = 127;

/// The outcome a code stands for.
fn outcome(code: Code) -> Outcome {
    let r = u32::from(code & 63);
    match code >> 6 {
        0 => Outcome::lose(r),
        1 => Outcome::tie(63 - r),
        _ => Outcome::win(63 - r),
    }
}

/// The code of `outcome`, if it has one (a remoteness below 64).
fn code(outcome: Outcome) -> Option<Code> {
    let r = outcome.remoteness.filter(|&r| r < 64)? as u8;
    match outcome.value {
        Value::Lose => Some(r),
        Value::Tie => Some(127 - r),
        Value::Win => Some(191 - r),
        Value::Draw => None,
    }
}

/// `CELLS[code]`: the cell of each code (unknown past the codes).
static CELLS: std::sync::LazyLock<[Cell; 256]> = std::sync::LazyLock::new(|| {
    std::array::from_fn(|c| {
        if c < 192 {
            Cell::pack(outcome(c as Code))
        } else {
            Cell::UNKNOWN
        }
    })
});

/// `THROUGH[child]`: what a child's code means to the player who moves
/// into it, as a code (the value flips, one ply is added).
static THROUGH: [Code; 256] = {
    let mut table = [0; 256];
    let mut c = 0;
    while c < 192 {
        let r = c & 63;
        table[c] = match c >> 6 {
            0 => 190 - r as u8,
            1 => 127 - (63 - r as u8) - 1,
            _ => (63 - r as u8) + 1,
        };
        c += 1;
    }
    table
};

/// Inserts `bit` into `key` at place `at`, the bits from `at` up moving
/// up one: a disc dropped among the discs a key lists.
#[inline]
fn insert(key: u64, at: u32, bit: u64) -> u64 {
    let low = key & ((1 << at) - 1);
    low | (bit << at) | ((key ^ low) << 1)
}

/// A tier's stacks folded by the mirror: a stack whose mirror image has
/// a smaller rank keeps no keys of its own, and its positions are read
/// as the mirror images of that stack's; a palindromic stack keeps all of
/// its own.
struct Fold {
    /// Each stack's mirror image, by rank.
    mirror: Vec<usize>,
}

impl Fold {
    /// The stack whose keys stack `rank`'s are read from.
    #[inline]
    fn home(&self, rank: usize) -> usize {
        rank.min(self.mirror[rank])
    }

    /// Whether stack `rank` keeps its own keys.
    #[inline]
    fn kept(&self, rank: usize) -> bool {
        self.mirror[rank] >= rank
    }

    /// The positions each of a kept stack's keys stands for: 2 where its
    /// mirror image is another stack, 1 for a palindromic stack.
    #[inline]
    fn weight(&self, rank: usize) -> u64 {
        if self.mirror[rank] == rank { 1 } else { 2 }
    }
}

/// A stack's column heights, where each column's discs start in a key,
/// and the cells its discs fill on the bitboard.
struct Stack {
    heights: [u32; 9],
    starts: [u32; 9],
    filled: u64,
}

impl Stack {
    /// Stack `rank` of tier `discs`, on a bitboard of columns `stride`
    /// bits apart.
    fn of(index: &TierIndex, discs: u32, rank: u64, stride: u32) -> Stack {
        let heights = index
            .heights(discs, rank)
            .expect("a stack rank within the tier");
        let (mut starts, mut filled) = ([0; 9], 0u64);
        let mut at = 0;
        for (c, (start, &h)) in starts.iter_mut().zip(&heights).enumerate() {
            *start = at;
            at += h;
            filled |= ((1u64 << h) - 1) << (c as u32 * stride);
        }
        Stack {
            heights,
            starts,
            filled,
        }
    }

    /// The key, in the mirror-image stack, of the mirror image of the
    /// position whose key (without its mark) is `key` in this stack of
    /// `discs` discs: each column's bits moved, in order, to the place
    /// of the column across the board.
    #[inline]
    fn mirror(&self, key: u64, discs: u32, width: usize) -> u64 {
        let mut out = 0;
        for (&h, &start) in self.heights[..width].iter().zip(&self.starts) {
            let column = (key >> start) & ((1 << h) - 1);
            out |= column << (discs - start - h);
        }
        out
    }

    /// Sorts `items`, this stack's keys (or items holding them from bit
    /// `shift` up) sorted and then mirrored ([`Stack::mirror`]), into the
    /// order of the mirrored keys, by way of `spare`. The mirrored key's
    /// columns are this stack's columns in reverse order, its highest
    /// column (the one that ordered the keys first) now lowest: the items
    /// are already in order by it, and a stable counting sort by each of
    /// the next columns, lowest first, orders them whole.
    fn sort_mirrored<T: Copy + Default>(
        &self,
        (items, spare): (&mut Vec<T>, &mut Vec<T>),
        (width, shift): (usize, u32),
        bits: impl Fn(T) -> u64,
    ) {
        let mut at = shift;
        let mut columns = self.heights[..width].iter().rev().filter(|&&h| h > 0);
        if let Some(&h) = columns.next() {
            at += h;
        }
        for &h in columns {
            let mask = (1u64 << h) - 1;
            let digit = |item: T| ((bits(item) >> at) & mask) as usize;
            let mut starts = [0usize; 1 << 8];
            let starts = &mut starts[..=mask as usize];
            for &item in items.iter() {
                starts[digit(item)] += 1;
            }
            let mut sum = 0;
            for start in starts.iter_mut() {
                (*start, sum) = (sum, sum + *start);
            }
            spare.clear();
            spare.resize(items.len(), T::default());
            for &item in items.iter() {
                let d = digit(item);
                spare[starts[d]] = item;
                starts[d] += 1;
            }
            std::mem::swap(items, spare);
            at += h;
        }
    }

    /// The `o` discs of `key` on the bitboard: its bits laid, in order,
    /// on the cells the stack fills (column by column from the bottom).
    #[inline]
    fn spread<P: Packing>(&self, key: u64, stride: u32) -> u64 {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        if P::PATH == PackingPath::Pext {
            return ply_core::scatter64(key, self.filled);
        }
        let mut o = 0u64;
        for (c, (&h, &start)) in self.heights.iter().zip(&self.starts).enumerate() {
            o |= ((key >> start) & ((1u64 << h) - 1)) << (c as u32 * stride);
        }
        o
    }
}

/// The most items a batch of stacks worked on at once reads, bounding the
/// memory of the build (a stack larger than this is a batch alone).
const BATCH_ITEMS: u64 = 1 << 24;

/// The most stacks in a batch.
const BATCH_STACKS: usize = 1 << 12;

/// The ranks `0..stacks` cut into batches in order, each reading at most
/// [`BATCH_ITEMS`] items by `reads` (or one stack) and at most
/// [`BATCH_STACKS`] stacks.
fn batches(stacks: usize, reads: impl Fn(usize) -> u64) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut first, mut items) = (0, 0);
    for rank in 0..stacks {
        let more = reads(rank);
        if rank > first && (items + more > BATCH_ITEMS || rank - first >= BATCH_STACKS) {
            out.push(first..rank);
            (first, items) = (rank, 0);
        }
        items += more;
    }
    if first < stacks {
        out.push(first..stacks);
    }
    out
}

/// The work file of tier `discs`'s keys in `dir`.
fn keys_path(dir: &Path, discs: u32) -> PathBuf {
    dir.join(format!("discs-{discs:02}.keys"))
}

/// The work file of tier `discs`'s codes in `dir`.
fn codes_path(dir: &Path, discs: u32) -> PathBuf {
    dir.join(format!("discs-{discs:02}.codes"))
}

/// What one thread of the backward pass reads, kept from stack to stack
/// so that a stack's reads allocate nothing: the stack's keys, and each
/// child stack's keys and codes.
struct Reads<K> {
    keys: Vec<K>,
    children: Vec<Pairs<K>>,
    pairs: Vec<u64>,
    spare: Vec<u64>,
}

impl<K> Default for Reads<K> {
    fn default() -> Self {
        Self {
            keys: Vec::new(),
            children: Vec::new(),
            pairs: Vec::new(),
            spare: Vec::new(),
        }
    }
}

/// The board's build by streams.
pub struct Streams<'a> {
    game: &'a ConnectFour,
    /// Whether the shards leave out one side's remoteness.
    leave_out: bool,
    /// Whether keys take 64 bits (32 otherwise).
    wide: bool,
    /// Each tier's stacks folded by the mirror, made at first use.
    folds: std::sync::OnceLock<Vec<Fold>>,
}

impl<'a> Streams<'a> {
    /// The build of `game`'s board, if it has at most [`MOST_CELLS`]
    /// cells and [`MOST_STREAMS`] columns.
    pub fn new(game: &'a ConnectFour) -> Option<Self> {
        (game.cells() <= MOST_CELLS && game.width() as usize <= MOST_STREAMS).then_some(Self {
            game,
            leave_out: false,
            wide: game.cells() > NARROW_CELLS,
            folds: std::sync::OnceLock::new(),
        })
    }

    /// The same build with keys of 64 bits even where 32 suffice: what a
    /// board of more than [`NARROW_CELLS`] cells takes, so that a small
    /// board checks it against the narrow keys.
    pub fn wide(self) -> Self {
        Self { wide: true, ..self }
    }

    /// The same build, its shards leaving out the remoteness of the side
    /// that saves more (picked on the largest tier by a sample of blocks,
    /// or the side finished shards leave out), each written once.
    pub fn leaving_out(self) -> Self {
        Self {
            leave_out: true,
            ..self
        }
    }

    fn index(&self) -> &TierIndex {
        &self.game.index
    }

    /// The stacks of tier `discs`.
    fn stacks(&self, discs: u32) -> u64 {
        self.index().stacks(discs)
    }

    /// Whether the position of `key` in `stack` of tier `discs` is over:
    /// the player who moved last has four.
    #[inline]
    fn over<P: Packing>(&self, stack: &Stack, discs: u32, key: u64) -> bool {
        let stride = self.game.stride();
        let o = stack.spread::<P>(key, stride);
        let last = if discs % 2 == 1 { stack.filled ^ o } else { o };
        has_four(last, stride)
    }

    /// The stack `rank` of tier `discs`.
    fn stack(&self, discs: u32, rank: usize) -> Stack {
        Stack::of(self.index(), discs, rank as u64, self.game.stride())
    }

    /// Tier `discs`'s stacks folded by the mirror (every tier's made once).
    fn fold(&self, discs: u32) -> &Fold {
        let folds = self
            .folds
            .get_or_init(|| (0..=self.game.cells()).map(|d| self.make_fold(d)).collect());
        &folds[discs as usize]
    }

    /// Tier `discs`'s stacks folded by the mirror, made.
    fn make_fold(&self, discs: u32) -> Fold {
        let width = self.game.width() as usize;
        let mirror = (0..self.stacks(discs))
            .map(|rank| {
                let heights = self
                    .index()
                    .heights(discs, rank)
                    .expect("a stack rank within the tier");
                let mut reversed = [0; 9];
                for (c, h) in reversed[..width].iter_mut().enumerate() {
                    *h = heights[width - 1 - c];
                }
                self.index().stack_rank(discs, &reversed) as usize
            })
            .collect();
        Fold { mirror }
    }

    /// The marked keys of stack `rank` of tier `discs`, in order, into
    /// `out`: its own, or its mirror image's mirrored and sorted.
    fn keys_into<K: Key>(
        &self,
        stored: &Stored,
        (fold, discs): (&Fold, u32),
        rank: usize,
        (out, spare): (&mut Vec<K>, &mut Vec<K>),
    ) -> Result<(), DbError> {
        let home = fold.home(rank);
        stored.keys_into(home, out)?;
        if home != rank {
            let stack = self.stack(discs, home);
            let width = self.game.width() as usize;
            for key in out.iter_mut() {
                let k = key.bits();
                *key = K::of(stack.mirror(k >> 1, discs, width) << 1 | (k & 1));
            }
            stack.sort_mirrored((out, spare), (width, 1), K::bits);
        }
        Ok(())
    }

    /// The marked keys and the codes of stack `rank` of tier `discs`, in
    /// the keys' order, into `out`: its own, or its mirror image's
    /// mirrored and sorted (by way of `pairs`).
    fn pairs_into<K: Key>(
        &self,
        (keys, codes): (&Stored, &Stored),
        (fold, discs): (&Fold, u32),
        rank: usize,
        out: &mut Pairs<K>,
        (pairs, spare): (&mut Vec<u64>, &mut Vec<u64>),
    ) -> Result<(), DbError> {
        let home = fold.home(rank);
        keys.keys_into(home, &mut out.0)?;
        codes.stack_into(home, &mut out.1)?;
        if home != rank {
            let stack = self.stack(discs, home);
            let width = self.game.width() as usize;
            pairs.clear();
            pairs.extend(out.0.iter().zip(&out.1).map(|(&k, &c)| {
                let k = k.bits();
                let key = stack.mirror(k >> 1, discs, width) << 1 | (k & 1);
                key << 8 | u64::from(c)
            }));
            stack.sort_mirrored((pairs, spare), (width, 9), |pair| pair);
            for ((key, code), &pair) in out.0.iter_mut().zip(out.1.iter_mut()).zip(pairs.iter()) {
                *key = K::of(pair >> 8);
                *code = pair as Code;
            }
        }
        Ok(())
    }

    /// The parent stacks of `stack` (of tier `discs`, above 0): for each
    /// column holding a disc, the stack one disc lower there and where
    /// that disc goes in a key.
    fn parents(&self, stack: &Stack, discs: u32) -> Vec<(usize, u32)> {
        (0..self.game.width() as usize)
            .filter(|&c| stack.heights[c] > 0)
            .map(|c| {
                let mut below = stack.heights;
                below[c] -= 1;
                let rank = self.index().stack_rank(discs - 1, &below) as usize;
                (rank, stack.starts[c] + stack.heights[c] - 1)
            })
            .collect()
    }

    /// The child stacks of `stack` (of tier `discs`): for each column not
    /// full, the stack one disc higher there and where that disc goes in
    /// a key.
    fn children(&self, stack: &Stack, discs: u32) -> Vec<(usize, u32)> {
        (0..self.game.width() as usize)
            .filter(|&c| stack.heights[c] < self.game.height())
            .map(|c| {
                let mut above = stack.heights;
                above[c] += 1;
                let rank = self.index().stack_rank(discs + 1, &above) as usize;
                (rank, stack.starts[c] + stack.heights[c])
            })
            .collect()
    }

    /// Writes the keys of tier 0, the empty board, to `path`.
    fn first<K: Key>(&self, path: &Path) -> Result<(), DbError> {
        let mut out = Writing::create_keys(path, 0)?;
        out.push_keys(&[K::of(0)])?;
        out.finish()
    }

    /// Writes the keys of tier `discs` to `path`: every child of the
    /// positions of `parents` (tier `discs - 1`) that are not over, each
    /// stack merged from its parent stacks' streams.
    fn forward<K: Key>(&self, parents: &Stored, discs: u32, path: &Path) -> Result<(), DbError> {
        let bit = u64::from((discs - 1) % 2);
        let stacks = self.stacks(discs) as usize;
        let (fold, above) = (self.fold(discs), self.fold(discs - 1));
        let reads = |rank: usize| {
            if !fold.kept(rank) {
                return 0;
            }
            let stack = self.stack(discs, rank);
            self.parents(&stack, discs)
                .iter()
                .map(|&(r, _)| parents.stack_len(above.home(r)))
                .sum()
        };
        let mut out = Writing::create_keys(path, discs)?;
        with_packing!(PackingPath::in_use(), P => {
            for batch in batches(stacks, reads) {
                let made: Vec<Result<Vec<K>, DbError>> = batch
                    .into_par_iter()
                    .map_init(Default::default, |(read, spare): &mut (Vec<Vec<K>>, Vec<K>), rank| {
                        if !fold.kept(rank) {
                            return Ok(Vec::new());
                        }
                        let stack = self.stack(discs, rank);
                        let moves = self.parents(&stack, discs);
                        read.resize_with(read.len().max(moves.len()), Vec::new);
                        for (keys, &(r, _)) in read.iter_mut().zip(&moves) {
                            self.keys_into(parents, (above, discs - 1), r, (keys, spare))?;
                        }
                        let streams: Vec<(&[K], u32)> = read
                            .iter()
                            .zip(&moves)
                            .map(|(keys, &(_, at))| (keys.as_slice(), at))
                            .collect();
                        let mut keys = merge(&streams, bit);
                        for key in &mut keys {
                            let k = key.bits();
                            *key = K::of(k << 1 | u64::from(self.over::<P>(&stack, discs, k)));
                        }
                        Ok(keys)
                    })
                    .collect();
                for keys in made {
                    out.push_keys(&keys?)?;
                }
            }
        });
        out.finish()
    }

    /// Writes the codes of tier `discs` (its keys `tier`) to `path`, from
    /// the next tier's keys and codes (`None` for the full board).
    fn backward<K: Key>(
        &self,
        tier: &Stored,
        discs: u32,
        next: Option<(&Stored, &Stored)>,
        path: &Path,
    ) -> Result<(), DbError> {
        let bit = u64::from(discs % 2);
        let stacks = self.stacks(discs) as usize;
        let fold = self.fold(discs);
        let below = next.map(|_| self.fold(discs + 1));
        let reads = |rank: usize| {
            if !fold.kept(rank) {
                return 0;
            }
            let stack = self.stack(discs, rank);
            let children: u64 = match (next, &below) {
                (Some((keys, _)), Some(below)) => self
                    .children(&stack, discs)
                    .iter()
                    .map(|&(r, _)| keys.stack_len(below.home(r)))
                    .sum(),
                _ => 0,
            };
            tier.stack_len(rank) + children
        };
        let mut out = Writing::create(path, discs, 1)?;
        for batch in batches(stacks, reads) {
            let made: Vec<Result<Vec<Code>, DbError>> = batch
                .into_par_iter()
                .map_init(Reads::<K>::default, |read, rank| {
                    if !fold.kept(rank) {
                        return Ok(Vec::new());
                    }
                    tier.keys_into(rank, &mut read.keys)?;
                    let (Some((child_keys, child_codes)), Some(below)) = (next, &below) else {
                        return Ok(read
                            .keys
                            .iter()
                            .map(|&k| if k.bits() & 1 == 1 { LOST } else { TIED })
                            .collect());
                    };
                    let stack = self.stack(discs, rank);
                    let moves = self.children(&stack, discs);
                    read.children
                        .resize_with(read.children.len().max(moves.len()), Default::default);
                    for (pair, &(r, _)) in read.children.iter_mut().zip(&moves) {
                        self.pairs_into(
                            (child_keys, child_codes),
                            (below, discs + 1),
                            r,
                            pair,
                            (&mut read.pairs, &mut read.spare),
                        )?;
                    }
                    // Each move: the child stack's keys and codes, where
                    // the disc goes in a key, and the cursor.
                    let mut walks: Vec<(&[K], &[Code], u32, usize)> = read
                        .children
                        .iter()
                        .zip(&moves)
                        .map(|((keys, codes), &(_, at))| (keys.as_slice(), codes.as_slice(), at, 0))
                        .collect();
                    Ok(read
                        .keys
                        .iter()
                        .map(|&k| {
                            let k = k.bits();
                            if k & 1 == 1 {
                                return LOST;
                            }
                            if walks.is_empty() {
                                return TIED;
                            }
                            let mut best = LOST;
                            for (keys, codes, at, cursor) in &mut walks {
                                let target = insert(k >> 1, *at, bit);
                                while keys[*cursor].bits() >> 1 < target {
                                    *cursor += 1;
                                }
                                debug_assert_eq!(keys[*cursor].bits() >> 1, target);
                                best = best.max(THROUGH[usize::from(codes[*cursor])]);
                            }
                            best
                        })
                        .collect())
                })
                .collect();
            for codes in made {
                out.push(&codes?)?;
            }
        }
        out.finish()
    }

    /// Pushes the (index, cell) of each index of `indices` of tier
    /// `discs` (its dense indices, from 0) that its shard holds
    /// ([`super::present`]), in order, from its keys and codes: the keys
    /// of the stacks the fold keeps, in a palindromic stack only those no
    /// greater than their mirror images. Each stack is read whole once
    /// for the blocks that share it (`read`).
    fn fill<K: Key>(
        &self,
        (keys, codes): (&Stored, &Stored),
        (fold, read): (&Fold, &Decoded<K>),
        discs: u32,
        indices: Range<u64>,
        cells: &mut Vec<(u64, Cell)>,
    ) -> Result<(), DbError> {
        let colours = binomial(discs, discs / 2);
        let width = self.game.width() as usize;
        let mut index = indices.start;
        while index < indices.end {
            let rank = (index / colours) as usize;
            let base = rank as u64 * colours;
            let first = index - base;
            let last = colours.min(first + (indices.end - index));
            index = base + last;
            if !fold.kept(rank) {
                continue;
            }
            let stack = read.get(rank, || {
                let mut pair = Default::default();
                self.pairs_into(
                    (keys, codes),
                    (fold, discs),
                    rank,
                    &mut pair,
                    (&mut Vec::new(), &mut Vec::new()),
                )?;
                Ok(pair)
            })?;
            let palindromic = (fold.weight(rank) == 1).then(|| self.stack(discs, rank));
            let (run, run_codes) = (&stack.0, &stack.1);
            let from = run.partition_point(|&k| k.place() < first);
            for (&k, &c) in run[from..].iter().zip(&run_codes[from..]) {
                let at = k.place();
                if at >= last {
                    break;
                }
                let key = k.bits() >> 1;
                if palindromic
                    .as_ref()
                    .is_some_and(|s| s.mirror(key, discs, width) < key)
                {
                    continue;
                }
                cells.push((base + at, CELLS[usize::from(c)]));
            }
        }
        Ok(())
    }

    /// Writes tier `discs` as its shard of present keys, from its keys
    /// and codes, doing with remoteness as `leave` says: the side left
    /// out, if any, and the census of the tier's positions, counted on
    /// the way.
    fn write<K: Key>(
        &self,
        (plan, step, shards): (&Plan<u8>, &Step<u8>, &Shards),
        (keys, codes): (&Stored, &Stored),
        discs: u32,
        leave: LeaveOut,
    ) -> Result<(Option<Value>, Census<u64>), DbError> {
        // How many positions hold each code, and the first of each; and
        // the cells the shard holds.
        let mut count = [0u64; 256];
        let mut first = [None; 256];
        let mut read = Vec::new();
        let mut entries = 0u64;
        let fold = self.fold(discs);
        let width = self.game.width() as usize;
        for rank in (0..self.stacks(discs) as usize).filter(|&r| fold.kept(r)) {
            codes.stack_into::<u8>(rank, &mut read)?;
            let weight = fold.weight(rank);
            for (j, &c) in read.iter().enumerate() {
                count[usize::from(c)] += weight;
                first[usize::from(c)].get_or_insert((rank, j as u64));
            }
            entries += if weight == 1 {
                let stack = self.stack(discs, rank);
                keys.keys::<K>(rank)?
                    .iter()
                    .filter(|k| stack.mirror(k.bits() >> 1, discs, width) >= k.bits() >> 1)
                    .count() as u64
            } else {
                read.len() as u64
            };
        }
        let colours = binomial(discs, discs / 2);
        let mut census = Census::new();
        for c in (0..256).filter(|&c| count[c] > 0) {
            let (rank, j) = first[c].expect("a code counted was seen");
            let key = keys.keys::<K>(rank)?[j as usize];
            let example = step.keys.start + rank as u64 * colours + key.place();
            census.add_many(outcome(c as Code), count[c], || example);
        }
        let read = Decoded::<K>::default();
        let fill = |indices, cells: &mut Vec<(u64, Cell)>| {
            self.fill((keys, codes), (fold, &read), discs, indices, cells)
        };
        let (side, _) = shards.write_present(
            (plan, step),
            (&census, entries),
            leave,
            fill,
            &ply_core::NoProgress,
        )?;
        Ok((side, census))
    }

    /// Where the build leaves out a side and `side` is known, rewrites
    /// each finished shard of `steps` that keeps every remoteness (the
    /// tiers above the largest, written before it picked the side) to
    /// leave out `side`'s; a shard already rewritten is kept, so a killed
    /// build resumes here.
    fn leave_out_later(
        &self,
        plan: &Plan<u8>,
        shards: &Shards,
        steps: &[&Step<u8>],
        side: Option<Value>,
    ) -> Result<(), TierError> {
        let Some(side) = side.filter(|_| self.leave_out) else {
            return Ok(());
        };
        for step in steps {
            let path = shards.path(&step.name);
            if !path.exists() {
                continue;
            }
            // A file already leaving out a side is kept as it is.
            let db = plan.with_presence(self.game, shards.open_step(step)?);
            ply_core::db::leave_out_present(&path, &db, side, &ply_core::NoProgress)?;
        }
        Ok(())
    }

    /// Writes the codes of tier `discs` (its keys `keys`) to `path`, read
    /// back from its finished shard: the cells of the keys it holds come
    /// in their order, and a palindromic stack's other keys take the code
    /// of their mirror images, met before them.
    fn codes_of<K: Key>(
        &self,
        (shards, step): (&Shards, &Step<u8>),
        keys: &Stored,
        discs: u32,
        path: &Path,
    ) -> Result<(), TierError> {
        let db = shards.open_step(step)?;
        let shard = shards.path(&step.name);
        let fold = self.fold(discs);
        let width = self.game.width() as usize;
        let mut out = Writing::create(path, discs, 1)?;
        // The stack being read: its keys, the codes found so far, and its
        // shape if it is palindromic.
        type Reading<K> = (Vec<K>, Vec<Code>, Option<Stack>);
        let load = |rank: usize, stack: &mut Reading<K>| -> Result<(), TierError> {
            stack.0.clear();
            stack.1.clear();
            stack.2 = None;
            if fold.kept(rank) {
                stack.0.extend(keys.keys::<K>(rank)?);
                stack.2 = (fold.weight(rank) == 1).then(|| self.stack(discs, rank));
            }
            Ok(())
        };
        let stacks = self.stacks(discs) as usize;
        // Moves to the next key the shard holds a cell for, giving the
        // keys on the way their mirror images' codes and writing each
        // stack finished; false past the last stack.
        let next = |stack: &mut Reading<K>, rank: &mut usize, out: &mut Writing| {
            loop {
                while let (Some(shape), Some(k)) = (&stack.2, stack.0.get(stack.1.len())) {
                    let key = k.bits() >> 1;
                    let image = shape.mirror(key, discs, width);
                    if image >= key {
                        break;
                    }
                    let at = stack
                        .0
                        .binary_search_by_key(&image, |k| k.bits() >> 1)
                        .map_err(|_| {
                            DbError::corrupt(&shard, "a key's mirror image is not in its stack")
                        })?;
                    stack.1.push(stack.1[at]);
                }
                if stack.1.len() < stack.0.len() {
                    return Ok::<_, TierError>(true);
                }
                out.push(&stack.1)?;
                *rank += 1;
                if *rank >= stacks {
                    return Ok(false);
                }
                load(*rank, stack)?;
            }
        };
        let (mut stack, mut rank) = (Reading::<K>::default(), 0);
        load(0, &mut stack)?;
        let mut failed: Option<TierError> = None;
        db.for_each_stored(&mut |cell| {
            if failed.is_some() {
                return;
            }
            let mut take = || -> Result<(), TierError> {
                if !next(&mut stack, &mut rank, &mut out)? {
                    return Err(
                        DbError::corrupt(&shard, "it holds more cells than its keys").into(),
                    );
                }
                let code = cell.unpack().and_then(code).ok_or_else(|| {
                    DbError::corrupt(&shard, "a cell holds no outcome of connect4's")
                })?;
                stack.1.push(code);
                Ok(())
            };
            if let Err(e) = take() {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        if next(&mut stack, &mut rank, &mut out)? {
            return Err(DbError::corrupt(&shard, "it holds fewer cells than its keys").into());
        }
        Ok(out.finish()?)
    }
}

/// The stacks read whole (their keys decoded; those that keep no keys of
/// their own mirrored from their mirror images' and sorted), kept for the
/// blocks of a shard that read them: the [`DECODED_KEPT`] last read.
struct Decoded<K> {
    kept: Mutex<VecDeque<(usize, Arc<Pairs<K>>)>>,
}

impl<K> Default for Decoded<K> {
    fn default() -> Self {
        Self {
            kept: Mutex::default(),
        }
    }
}

/// A stack's marked keys in order and their codes.
type Pairs<K> = (Vec<K>, Vec<Code>);

/// How many stacks [`Decoded`] keeps: blocks written side by side read a
/// few neighbouring stacks.
const DECODED_KEPT: usize = 8;

impl<K> Decoded<K> {
    /// Stack `rank`'s keys and codes, made by `make` unless kept. Two
    /// threads that miss at once both make it; either copy serves.
    fn get(
        &self,
        rank: usize,
        make: impl FnOnce() -> Result<Pairs<K>, DbError>,
    ) -> Result<Arc<Pairs<K>>, DbError> {
        let lock = || {
            self.kept
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        if let Some((_, stack)) = lock().iter().find(|(r, _)| *r == rank) {
            return Ok(Arc::clone(stack));
        }
        let stack = Arc::new(make()?);
        let mut kept = lock();
        if kept.len() == DECODED_KEPT {
            kept.pop_front();
        }
        kept.push_back((rank, Arc::clone(&stack)));
        Ok(stack)
    }
}

/// The most streams [`merge`] takes, and the most columns of a board
/// built by streams.
const MOST_STREAMS: usize = 8;

/// Merges `streams` (parent keys, shifted and marked, and where the
/// dropped disc `bit` goes in each; at most [`MOST_STREAMS`]) into the
/// increasing keys of their children, each once, leaving out the parents
/// that are over. The heads are eight lanes, so the least of them and
/// the lanes holding it are found without a branch a lane (the compiler
/// makes both vector instructions), and a child reached from several
/// parents advances them all at once.
fn merge<K: Key>(streams: &[(&[K], u32)], bit: u64) -> Vec<K> {
    assert!(streams.len() <= MOST_STREAMS, "at most eight parent stacks");
    let mut at = [0usize; MOST_STREAMS];
    let next = |i: usize, at: &mut usize| {
        let (keys, place) = streams[i];
        while let Some(&k) = keys.get(*at) {
            *at += 1;
            let k = k.bits();
            if k & 1 == 0 {
                return K::of(insert(k >> 1, place, bit));
            }
        }
        K::END
    };
    let mut heads = [K::END; MOST_STREAMS];
    for (i, head) in heads.iter_mut().enumerate().take(streams.len()) {
        *head = next(i, &mut at[i]);
    }
    let mut keys = Vec::with_capacity(streams.iter().map(|s| s.0.len()).max().unwrap_or(0));
    loop {
        let least = heads.iter().fold(K::END, |a, &h| a.min(h));
        if least == K::END {
            return keys;
        }
        keys.push(least);
        let mut lanes = heads
            .iter()
            .enumerate()
            .fold(0u32, |m, (i, &h)| m | u32::from(h == least) << i);
        while lanes != 0 {
            let i = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            heads[i] = next(i, &mut at[i]);
        }
    }
}

/// The indices of a tier's dense index tested to estimate its positions
/// ([`Streams::sampled`]); a tier of at most this many is counted whole.
const SAMPLED: u64 = 1 << 14;

/// The most indices a sample looks back for the key before its own in
/// its stack ([`Streams::gap_before`]): past them it takes the whole key.
const LOOK_BACK: u64 = 1 << 12;

/// The bytes of disk a shard's cell is taken to need: twice what 6x5's
/// shards of present keys spend (0.158 a cell, one of each mirror pair,
/// a side's remoteness left out), for a larger board whose cells carry
/// more remoteness. An estimate, not a bound: zstd's gain is measured,
/// not known before.
const SHARD_CELL_BYTES: f64 = 0.32;

/// How many times its final size a shard written keeping every
/// remoteness is taken to be, before it is rewritten leaving out a side
/// (an estimate: leaving out a side saves less than half on the boards
/// measured).
const WHOLE_SHARD_TIMES: u64 = 2;

/// What a sample of a tier's dense index says ([`Streams::sample`]).
struct Sample {
    /// About how many positions the tier holds (an upper estimate).
    positions: u64,
    /// About how many of them the fold keeps (an upper estimate).
    kept: u64,
    /// About the bytes a kept key takes in the work file (an upper
    /// estimate of the mean).
    key_bytes: f64,
}

/// The bytes of `gap` as a LEB128 varint.
fn varint_len(gap: u64) -> u64 {
    u64::from((64 - gap.leading_zeros()).max(1).div_ceil(7))
}

impl Streams<'_> {
    /// About how many positions tier `discs` holds, and how many of them
    /// the fold keeps, from [`SAMPLED`] indices of its dense index spread
    /// evenly over it, each tested by the index's legality search: each
    /// an upper estimate, the fraction found plus about two standard
    /// errors.
    pub fn sampled(&self, discs: u32) -> (u64, u64) {
        let sample = self.sample(discs);
        (sample.positions, sample.kept)
    }

    /// About the bytes of the work file of tier `discs`'s keys, from
    /// [`Streams::sample`]: each kept key's gap from the key before it,
    /// found by looking back from each sampled key, as a varint, 16 bytes
    /// a stack and the file's footer.
    pub fn keys_estimate(&self, discs: u32) -> u64 {
        self.key_file_bytes(discs, &self.sample(discs))
    }

    /// The bytes of tier `discs`'s key file as `sample` says: its keys,
    /// 16 bytes a stack and the file's footer.
    fn key_file_bytes(&self, discs: u32, sample: &Sample) -> u64 {
        (sample.kept as f64 * sample.key_bytes).ceil() as u64 + 16 * self.stacks(discs) + 64
    }

    /// The sample of tier `discs` ([`Streams::sampled`]), with the bytes
    /// its kept keys take in the work file: the mean over the kept keys
    /// sampled plus about two standard errors.
    fn sample(&self, discs: u32) -> Sample {
        let index = self.index();
        let len = index.len(discs);
        let colours = binomial(discs, discs / 2);
        let fold = self.fold(discs);
        let tested = len.min(SAMPLED);
        let (mut legal, mut kept) = (0u64, 0u64);
        let (mut bytes, mut squares) = (0f64, 0f64);
        for i in 0..tested {
            // Evenly spread, each index a stride apart and offset by a
            // fixed odd step, so that no column pattern repeats.
            let at = (u128::from(i) * u128::from(len) / u128::from(tested)) as u64;
            let at = if tested < len {
                (at + i.wrapping_mul(0x9e37_79b9) % (len / tested)) % len
            } else {
                at
            };
            let board = index.board(discs, at).expect("an index within the tier");
            if super::legal::check(self.game, &board).is_ok() {
                legal += 1;
                if fold.kept((at / colours) as usize) {
                    kept += 1;
                    let b = varint_len(self.gap_before(discs, at, colours)) as f64;
                    bytes += b;
                    squares += b * b;
                }
            }
        }
        let key_bytes = if kept == 0 {
            0.0
        } else {
            let n = kept as f64;
            let mean = bytes / n;
            let spread = (squares / n - mean * mean).max(0.0);
            mean + 2.0 * (spread / n).sqrt()
        };
        if tested == len {
            return Sample {
                positions: legal,
                kept,
                key_bytes,
            };
        }
        let above = |found: u64| {
            let f = found as f64;
            let upper = (f + 2.0 * f.sqrt() + 4.0).min(tested as f64) / tested as f64;
            (upper * len as f64).ceil() as u64
        };
        Sample {
            positions: above(legal),
            kept: above(kept),
            key_bytes,
        }
    }

    /// The gap, as the work file stores it (between words holding a key
    /// and its mark), between the key of index `at` of tier `discs`, a
    /// position legal play reaches, and the key before it in its stack:
    /// that of the nearest lesser index legal play reaches (places and
    /// keys are in the same order), or 0 where there is none, as at the
    /// stack's first key. Past [`LOOK_BACK`] indices it takes the whole
    /// key, more than any gap.
    fn gap_before(&self, discs: u32, at: u64, colours: u64) -> u64 {
        let index = self.index();
        let first = at / colours * colours;
        let key = |i: u64| {
            let board = index.board(discs, i).expect("an index within the tier");
            let (_, o) = board.x_o();
            let (mut key, mut place) = (0u64, 0u32);
            for c in 0..self.game.width() {
                let mut column = board.mask & self.game.column_mask(c);
                while column != 0 {
                    let low = column & column.wrapping_neg();
                    key |= u64::from(o & low != 0) << place;
                    place += 1;
                    column ^= low;
                }
            }
            (key, board)
        };
        let (own, _) = key(at);
        let mut i = at;
        while i > first && at - i < LOOK_BACK {
            i -= 1;
            let (before, board) = key(i);
            if super::legal::check(self.game, &board).is_ok() {
                return 2 * (own - before) + 1;
            }
        }
        2 * own + 1
    }

    /// About the most bytes of disk the build takes at once, from
    /// [`Streams::sample`], as the build's steps hold them:
    /// - after the forward pass, every tier's keys ([`Streams::keys_estimate`]);
    /// - in the backward pass, at each tier, the keys of the tiers not yet
    ///   removed (a tier's keys and codes go once the tier below is solved
    ///   and its own shard written), the codes (a byte a kept position)
    ///   held (two tiers'), and the shards written ([`SHARD_CELL_BYTES`] a
    ///   kept position, and each block of indices' counts and index
    ///   entry; where the shards leave a side out, the tiers above the
    ///   largest at [`WHOLE_SHARD_TIMES`] that until the largest picks the
    ///   side and they are rewritten, one at a time).
    pub fn disk_needed(&self) -> u64 {
        let last = self.game.cells() as usize;
        let samples: Vec<Sample> = (0..=last as u32).map(|d| self.sample(d)).collect();
        let keys: Vec<u64> = samples
            .iter()
            .enumerate()
            .map(|(d, s)| self.key_file_bytes(d as u32, s))
            .collect();
        let codes: Vec<u64> = samples.iter().map(|s| s.kept).collect();
        let per_block = 2 * u64::from(ply_core::db::PRESENT_BLOCK / ply_core::db::PRESENT_RUN) + 64;
        let shards: Vec<u64> = samples
            .iter()
            .enumerate()
            .map(|(d, s)| {
                let blocks = self
                    .index()
                    .len(d as u32)
                    .div_ceil(u64::from(ply_core::db::PRESENT_BLOCK));
                (s.kept as f64 * SHARD_CELL_BYTES).ceil() as u64 + blocks * per_block
            })
            .collect();
        let largest = (0..=last).max_by_key(|&d| codes[d]).unwrap_or(0);
        let mut keys_on = vec![true; last + 1];
        let mut codes_on = vec![false; last + 1];
        let mut written = vec![0u64; last + 1];
        let held = |keys_on: &[bool], codes_on: &[bool], written: &[u64]| -> u64 {
            (0..=last)
                .map(|t| {
                    u64::from(keys_on[t]) * keys[t] + u64::from(codes_on[t]) * codes[t] + written[t]
                })
                .sum()
        };
        let mut peak = keys.iter().sum::<u64>();
        for d in (0..=last).rev() {
            codes_on[d] = true;
            peak = peak.max(held(&keys_on, &codes_on, &written));
            let whole = self.leave_out && d > largest;
            written[d] = shards[d] * if whole { WHOLE_SHARD_TIMES } else { 1 };
            peak = peak.max(held(&keys_on, &codes_on, &written));
            if self.leave_out && d == largest {
                // The tiers above rewritten one at a time, each new file
                // beside the old until it takes its place.
                for t in d + 1..=last {
                    peak = peak.max(held(&keys_on, &codes_on, &written) + shards[t]);
                    written[t] = shards[t];
                }
            }
            if d < last {
                keys_on[d + 1] = false;
                codes_on[d + 1] = false;
            }
        }
        peak
    }

    /// The bytes a tier's batches may hold at once, its largest stack and
    /// its neighbour's being `largest` items: a batch reads at most
    /// [`BATCH_ITEMS`] items, or one stack and its neighbours (the stack's
    /// own and at most W more), and makes at most as many, five bytes an
    /// item at most (a key and a code), with eight more an item read to
    /// sort a mirrored stack; and the shard's writer keeps
    /// [`DECODED_KEPT`] stacks read whole.
    fn bytes_at_once(&self, largest: u64) -> u64 {
        let item = self.key_bytes() + 1;
        let reads = BATCH_ITEMS.max((u64::from(self.game.width()) + 1) * largest);
        (2 * item + 8) * reads + DECODED_KEPT as u64 * item * largest
    }

    /// The bytes of a key.
    fn key_bytes(&self) -> u64 {
        if self.wide { 8 } else { 4 }
    }

    /// Builds every unfinished tier of `plan` (every tier of the game) as
    /// its shard in `shards`, with its work files (each tier's keys and
    /// codes) in `work`, each removed once no tier left to solve reads it. A killed
    /// build resumes: finished shards and work files are kept. Refuses,
    /// before a tier is begun, a tier whose stacks read at once would
    /// take more than `memory` bytes.
    pub fn build(
        &self,
        plan: &Plan<u8>,
        shards: &Shards,
        work: &Path,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<Built, TierError> {
        if self.wide {
            self.build_with::<u64>(plan, shards, work, memory, progress)
        } else {
            self.build_with::<u32>(plan, shards, work, memory, progress)
        }
    }

    /// [`Streams::build`] with keys of type `K`.
    fn build_with<K: Key>(
        &self,
        plan: &Plan<u8>,
        shards: &Shards,
        work: &Path,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<Built, TierError> {
        let last = self.game.cells();
        let steps: Vec<&Step<u8>> = (0..=last as u8)
            .map(|t| {
                plan.step(t)
                    .ok_or_else(|| TierError::Game(format!("tier {t} is not planned")))
            })
            .collect::<Result<_, _>>()?;
        let mut report = Built {
            tiers: plan.steps.len(),
            owned: plan.steps.len(),
            found_done: 0,
            taken: 0,
            forward: 0,
            solved: 0,
            slices: 0,
            discarded: Vec::new(),
            peak_bytes: 0,
            at_once: 1,
            at_once_bytes: 0,
            counted: BTreeMap::new(),
            traffic: Vec::new(),
        };
        let mut done = Vec::with_capacity(steps.len());
        for step in &steps {
            done.push(shards.finished(plan, step).unwrap_or_else(|why| {
                progress.note(&why);
                report.discarded.push(why);
                false
            }));
        }
        report.found_done = done.iter().filter(|&&d| d).count();
        if done.iter().all(|&d| d) {
            // A build killed while it rewrote the tiers above the largest
            // finishes that first.
            let side = shards.side_left_out(steps.iter().copied());
            self.leave_out_later(plan, shards, &steps, side)?;
            let _ = std::fs::remove_dir_all(work);
            return Ok(report);
        }
        // The disk, before any work: what the build takes less the work
        // files a killed build left, on the file system that will hold
        // them.
        let left: u64 = std::fs::read_dir(work)
            .into_iter()
            .flatten()
            .filter_map(|entry| Some(entry.ok()?.metadata().ok()?.len()))
            .sum();
        let what = format!("building {}", self.game.name());
        let there = work.ancestors().find(|dir| dir.is_dir()).unwrap_or(work);
        ply_core::limits::check_disk(&what, there, self.disk_needed().saturating_sub(left))
            .map_err(TierError::TooLarge)?;
        std::fs::create_dir_all(work).map_err(|e| DbError::io(work, e))?;
        let mut budget = |tier: u32, largest: u64| {
            let needed = self.bytes_at_once(largest);
            report.peak_bytes = report.peak_bytes.max(needed);
            match memory {
                Some(budget) if needed > budget => Err(TierError::Budget {
                    tier: format!("discs-{tier:02}"),
                    needed,
                    budget,
                }),
                _ => Ok(()),
            }
        };
        let keys =
            |discs: u32| Stored::open_keys(&keys_path(work, discs), discs, self.stacks(discs));
        let codes =
            |discs: u32| Stored::open(&codes_path(work, discs), discs, self.stacks(discs), 1);
        // The highest tier to solve: the tiers above it are written, and
        // the one just above is all the backward pass reads of them.
        let highest = done.iter().rposition(|&d| !d).expect("a tier unfinished") as u32;
        let top = (highest + 1).min(last);
        // Forward: each tier's keys from the tier before's.
        let started = Instant::now();
        progress.begin("finding the positions, tier by tier", u64::from(top) + 1);
        for discs in 0..=top {
            if progress.cancelled() {
                progress.end();
                return Err(TierError::Cancelled);
            }
            if keys(discs).is_err() {
                let path = keys_path(work, discs);
                if discs == 0 {
                    self.first::<K>(&path)?;
                } else {
                    let parents = keys(discs - 1)?;
                    // A child stack reads at most W parent stacks and
                    // holds at most their positions.
                    budget(discs, parents.largest())?;
                    self.forward::<K>(&parents, discs, &path)?;
                }
                report.forward += 1;
            }
            progress.advance(1);
        }
        progress.end();
        let found = started.elapsed();
        // Backward, from the highest tier to solve down: each tier's codes
        // from the next tier's (read back from its shard where its work
        // file is gone), and its shard written at once. Leaving out a
        // side, the side is the one finished shards leave out, or the one
        // a sample of the largest tier picks; the tiers above the largest,
        // solved before it, are written keeping every remoteness and
        // rewritten once the side is known (`leave_out_later`), so that
        // no tier's codes wait on disk for the side. Once a tier's codes
        // are made, the next tier's work files are removed.
        let mut side = shards.side_left_out(steps.iter().copied());
        let largest = if !self.leave_out || side.is_some() {
            None
        } else {
            let mut sizes = Vec::new();
            for d in 0..=highest {
                sizes.push((keys(d)?.items(), d));
            }
            sizes.into_iter().max().map(|(_, d)| d)
        };
        // The written tier the highest to solve reads, its codes read
        // back from its shard if its work file is gone.
        if top > highest && codes(top).is_err() {
            let path = codes_path(work, top);
            self.codes_of::<K>((shards, steps[top as usize]), &keys(top)?, top, &path)?;
        }
        let remove = |discs: u32| {
            let _ = std::fs::remove_file(keys_path(work, discs));
            let _ = std::fs::remove_file(codes_path(work, discs));
        };
        progress.begin(
            "solving and writing the shards, tier by tier",
            u64::from(highest) + 1,
        );
        for discs in (0..=highest).rev() {
            if progress.cancelled() {
                progress.end();
                return Err(TierError::Cancelled);
            }
            let at = discs as usize;
            let tier = keys(discs)?;
            if codes(discs).is_err() {
                let path = codes_path(work, discs);
                if done[at] {
                    self.codes_of::<K>((shards, steps[at]), &tier, discs, &path)?;
                } else {
                    let next = if discs < last {
                        Some((keys(discs + 1)?, codes(discs + 1)?))
                    } else {
                        None
                    };
                    let largest = tier
                        .largest()
                        .max(next.as_ref().map_or(0, |(k, _)| k.largest()));
                    budget(discs, largest)?;
                    self.backward::<K>(&tier, discs, next.as_ref().map(|(k, c)| (k, c)), &path)?;
                }
            }
            if !done[at] {
                let leave = match (self.leave_out, side) {
                    (false, _) => LeaveOut::Nothing,
                    (true, Some(side)) => LeaveOut::Side(side),
                    (true, None) if largest == Some(discs) => LeaveOut::Smaller,
                    (true, None) => LeaveOut::Nothing,
                };
                let step = steps[at];
                let (left_out, census) =
                    self.write::<K>((plan, step, shards), (&tier, &codes(discs)?), discs, leave)?;
                side = side.or(left_out);
                if let Some(place) = plan.steps.iter().position(|s| std::ptr::eq(s, step)) {
                    report.counted.insert(place, census);
                }
                report.solved += 1;
                if largest == Some(discs) {
                    self.leave_out_later(plan, shards, &steps, side)?;
                }
            }
            if discs < last {
                remove(discs + 1);
            }
            progress.advance(1);
        }
        progress.end();
        self.leave_out_later(plan, shards, &steps, side)?;
        progress.note(&format!(
            "{}: positions found in {:.1} s, solved and written in {:.1} s",
            self.game.name(),
            found.as_secs_f64(),
            (started.elapsed() - found).as_secs_f64()
        ));
        let _ = std::fs::remove_dir_all(work);
        report.at_once_bytes = report.peak_bytes;
        Ok(report)
    }
}

/// Connect Four's own build of its whole database, for `ply analyze
/// connect4:WxH --save` (see [`Streams::build`]): every board of at most
/// [`MOST_CELLS`] cells; `None` for a larger one, which the generic tier
/// solver builds. The shards and their work files' directory are given
/// as a pair, with whether the shards leave out a side's remoteness.
pub fn own_build(
    game: &ConnectFour,
    plan: &Plan<u8>,
    (shards, work, leave_out): (&Shards, &Path, bool),
    memory: Option<u64>,
    progress: &dyn Progress,
) -> Option<Result<Built, TierError>> {
    let streams = Streams::new(game)?;
    let streams = if leave_out {
        streams.leaving_out()
    } else {
        streams
    };
    Some(streams.build(plan, shards, work, memory, progress))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A stack's keys mirrored and put in order by the counting sorts
        /// of [`Stack::sort_mirrored`] come in the order a plain sort
        /// gives, alone and with a mark and a code below them; mirroring
        /// twice gives the keys back.
        #[test]
        fn mirrored_keys_sort_as_a_plain_sort(
            seed in any::<u64>(),
            heights in proptest::collection::vec(0u32..=5, 5),
        ) {
            let game = ConnectFour::from_params("5x5").unwrap();
            let discs: u32 = heights.iter().sum();
            let mut padded = [0; 9];
            padded[..5].copy_from_slice(&heights);
            let rank = game.index.stack_rank(discs, &padded);
            let streams = Streams::new(&game).unwrap();
            let stack = streams.stack(discs, rank as usize);
            let mut reversed = [0; 9];
            for c in 0..5 {
                reversed[c] = heights[4 - c];
            }
            let mirror_rank = game.index.stack_rank(discs, &reversed);
            let image = streams.stack(discs, mirror_rank as usize);
            // Distinct keys of `discs` bits, sorted, from a plain generator.
            let mut state = seed | 1;
            let mut keys: Vec<u64> = (0..300)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state & ((1u64 << discs) - 1)
                })
                .collect();
            keys.sort_unstable();
            keys.dedup();
            let mirrored: Vec<u64> = keys.iter().map(|&k| stack.mirror(k, discs, 5)).collect();
            let back: Vec<u64> = mirrored.iter().map(|&k| image.mirror(k, discs, 5)).collect();
            prop_assert_eq!(&back, &keys);
            let mut plain = mirrored.clone();
            plain.sort_unstable();
            let mut marked: Vec<u32> = mirrored.iter().map(|&k| (k << 1 | (k & 1)) as u32).collect();
            stack.sort_mirrored((&mut marked, &mut Vec::new()), (5, 1), u64::from);
            prop_assert_eq!(marked.iter().map(|&k| u64::from(k >> 1)).collect::<Vec<_>>(), plain.clone());
            let mut pairs: Vec<u64> = mirrored.iter().map(|&k| k << 9 | (k % 7)).collect();
            stack.sort_mirrored((&mut pairs, &mut Vec::new()), (5, 9), |p| p);
            prop_assert_eq!(pairs.iter().map(|&p| p >> 9).collect::<Vec<_>>(), plain);
            prop_assert!(pairs.iter().all(|&p| p & 511 == (p >> 9) % 7));
        }
    }
}
