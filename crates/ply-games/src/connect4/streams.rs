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
//! Outcomes are a byte each while they work ([`Code`]). Memory: four
//! bytes of key and one of outcome per position of two tiers at once;
//! positions are not folded by the mirror here (the shards hold every
//! position's cell either way).

use super::index::{TierIndex, binomial, colex};
use super::{ConnectFour, has_four};
use ply_core::tier::{Built, Plan, Shards, Step, TierError};
use ply_core::{Cell, DbError, Outcome, Progress};
use rayon::prelude::*;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The most cells of a board built by streams: a key and its mark of a
/// position that is over fit 32 bits.
pub const MOST_CELLS: u32 = 31;

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
        ply_core::Value::Lose => Some(r),
        ply_core::Value::Tie => Some(127 - r),
        ply_core::Value::Win => Some(191 - r),
        ply_core::Value::Draw => None,
    }
}

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
fn insert(key: u32, at: u32, bit: u32) -> u32 {
    let low = key & ((1 << at) - 1);
    low | (bit << at) | ((key ^ low) << 1)
}

/// One tier's positions: for each stack, its keys in increasing order,
/// each shifted up one with the lowest bit set where the position is
/// over.
pub struct Tier {
    /// The discs on the board.
    discs: u32,
    /// The keys of each stack, by stack rank.
    stacks: Vec<Vec<u32>>,
}

impl Tier {
    /// The positions of the tier.
    pub fn len(&self) -> u64 {
        self.stacks.iter().map(|s| s.len() as u64).sum()
    }

    /// Whether the tier has no position.
    pub fn is_empty(&self) -> bool {
        self.stacks.iter().all(Vec::is_empty)
    }
}

/// A stack's column heights and where each column's discs start in a key.
struct Stack {
    heights: [u32; 9],
    starts: [u32; 9],
}

impl Stack {
    /// Stack `rank` of tier `discs`.
    fn of(index: &TierIndex, discs: u32, rank: u64) -> Stack {
        let heights = index
            .heights(discs, rank)
            .expect("a stack rank within the tier");
        let mut starts = [0; 9];
        let mut at = 0;
        for (start, &h) in starts.iter_mut().zip(&heights) {
            *start = at;
            at += h;
        }
        Stack { heights, starts }
    }
}

/// The board's build by streams.
pub struct Streams<'a> {
    game: &'a ConnectFour,
}

impl<'a> Streams<'a> {
    /// The build of `game`'s board, if it has at most [`MOST_CELLS`]
    /// cells.
    pub fn new(game: &'a ConnectFour) -> Option<Self> {
        (game.cells() <= MOST_CELLS).then_some(Self { game })
    }

    fn index(&self) -> &TierIndex {
        &self.game.index
    }

    /// Whether the position of `key` in `stack` of tier `discs` is over:
    /// the player who moved last has four.
    fn over(&self, stack: &Stack, discs: u32, key: u32) -> bool {
        let stride = self.game.stride();
        let (mut mask, mut o) = (0u64, 0u64);
        for c in 0..self.game.width() as usize {
            let column = (1u64 << stack.heights[c]) - 1;
            let shift = c as u32 * stride;
            mask |= column << shift;
            o |= ((u64::from(key) >> stack.starts[c]) & column) << shift;
        }
        let last = if discs % 2 == 1 { mask ^ o } else { o };
        has_four(last, stride)
    }

    /// Tier 0: the empty board.
    pub fn first(&self) -> Tier {
        Tier {
            discs: 0,
            stacks: vec![vec![0]],
        }
    }

    /// The tier after `parents`: every child of its positions that are
    /// not over, each stack merged from its parent stacks' streams.
    pub fn forward(&self, parents: &Tier) -> Tier {
        let n = parents.discs;
        let discs = n + 1;
        let bit = n % 2;
        let stacks = (0..self.index().stacks(discs))
            .into_par_iter()
            .map(|rank| {
                let stack = Stack::of(self.index(), discs, rank);
                let mut streams: Vec<(std::slice::Iter<'_, u32>, u32)> = Vec::new();
                for c in 0..self.game.width() as usize {
                    if stack.heights[c] == 0 {
                        continue;
                    }
                    let mut below = stack.heights;
                    below[c] -= 1;
                    let from = self.index().stack_rank(n, &below) as usize;
                    streams.push((
                        parents.stacks[from].iter(),
                        stack.starts[c] + stack.heights[c] - 1,
                    ));
                }
                let mut keys = merge(&mut streams, bit);
                for key in &mut keys {
                    *key = *key << 1 | u32::from(self.over(&stack, discs, *key));
                }
                keys.shrink_to_fit();
                keys
            })
            .collect();
        Tier { discs, stacks }
    }

    /// The codes of `tier`'s positions, stack by stack, from the next
    /// tier's keys and codes (`None` for the full board).
    pub fn backward(&self, tier: &Tier, next: Option<(&Tier, &[Vec<Code>])>) -> Vec<Vec<Code>> {
        let n = tier.discs;
        let bit = n % 2;
        let height = self.game.height();
        (0..tier.stacks.len())
            .into_par_iter()
            .map(|rank| {
                let keys = &tier.stacks[rank];
                let Some((children, codes)) = next else {
                    return keys
                        .iter()
                        .map(|&k| if k & 1 == 1 { LOST } else { TIED })
                        .collect();
                };
                let stack = Stack::of(self.index(), n, rank as u64);
                // Each move: the child stack's keys and codes, where the
                // disc goes in a key, and the cursor.
                let mut moves: Vec<(&[u32], &[Code], u32, usize)> = Vec::new();
                for c in 0..self.game.width() as usize {
                    if stack.heights[c] == height {
                        continue;
                    }
                    let mut above = stack.heights;
                    above[c] += 1;
                    let to = self.index().stack_rank(n + 1, &above) as usize;
                    moves.push((
                        &children.stacks[to],
                        &codes[to],
                        stack.starts[c] + stack.heights[c],
                        0,
                    ));
                }
                keys.iter()
                    .map(|&k| {
                        if k & 1 == 1 {
                            return LOST;
                        }
                        let mut best = LOST;
                        for (child_keys, child_codes, at, cursor) in &mut moves {
                            let target = insert(k >> 1, *at, bit);
                            while child_keys[*cursor] >> 1 < target {
                                *cursor += 1;
                            }
                            debug_assert_eq!(child_keys[*cursor] >> 1, target);
                            best = best.max(THROUGH[usize::from(child_codes[*cursor])]);
                        }
                        if moves.is_empty() { TIED } else { best }
                    })
                    .collect()
            })
            .collect()
    }

    /// Sets the cells of `indices` of `tier` (its dense indices, from 0)
    /// from its codes; the other cells stay unknown.
    fn fill(
        &self,
        tier: &Tier,
        codes: &[Vec<Code>],
        indices: std::ops::Range<u64>,
        cells: &mut [Cell],
    ) {
        let colours = binomial(tier.discs, tier.discs / 2);
        let mut index = indices.start;
        while index < indices.end {
            let rank = (index / colours) as usize;
            let first = index % colours;
            let last = colours.min(first + (indices.end - index));
            let base = rank as u64 * colours;
            let keys = &tier.stacks[rank];
            let mut j = keys.partition_point(|&k| colex(u64::from(k >> 1)) < first);
            while j < keys.len() {
                let at = colex(u64::from(keys[j] >> 1));
                if at >= last {
                    break;
                }
                cells[(base + at - indices.start) as usize] = Cell::pack(outcome(codes[rank][j]));
                j += 1;
            }
            index = base + last;
        }
    }

    /// Writes `tier` as its shard, from its codes.
    fn write(
        &self,
        (plan, step, shards): (&Plan<u8>, &Step<u8>, &Shards),
        tier: &Tier,
        codes: &[Vec<Code>],
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        let mut seen = [false; 256];
        for stack in codes {
            for &c in stack {
                seen[usize::from(c)] = true;
            }
        }
        let mut present = vec![false; 1 << 16];
        present[usize::from(Cell::UNKNOWN.bits())] = true;
        for (c, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
            present[usize::from(Cell::pack(outcome(c as Code)).bits())] = true;
        }
        shards.write_filled(
            plan,
            step,
            &present,
            |indices, cells| self.fill(tier, codes, indices, cells),
            progress,
        )
    }

    /// The codes of `tier`'s positions read back from its shard.
    fn codes_of(
        &self,
        shards: &Shards,
        step: &Step<u8>,
        tier: &Tier,
    ) -> Result<Vec<Vec<Code>>, TierError> {
        let cells = shards.load(step)?;
        let colours = binomial(tier.discs, tier.discs / 2);
        let path = shards.path(&step.name);
        tier.stacks
            .iter()
            .enumerate()
            .map(|(rank, keys)| {
                keys.iter()
                    .map(|&k| {
                        let index = rank as u64 * colours + colex(u64::from(k >> 1));
                        cells.outcome(index as usize).and_then(code).ok_or_else(|| {
                            TierError::Db(DbError::corrupt(
                                &path,
                                format!("index {index} holds no outcome of connect4's"),
                            ))
                        })
                    })
                    .collect()
            })
            .collect()
    }
}

/// Merges `streams` (parent keys, shifted and marked, and where the
/// dropped disc `bit` goes in each) into the increasing keys of their
/// children, each once, leaving out the parents that are over.
fn merge(streams: &mut [(std::slice::Iter<'_, u32>, u32)], bit: u32) -> Vec<u32> {
    let next = |(keys, at): &mut (std::slice::Iter<'_, u32>, u32)| {
        keys.find(|&&k| k & 1 == 0)
            .map_or(u32::MAX, |&k| insert(k >> 1, *at, bit))
    };
    let mut heads: Vec<u32> = streams.iter_mut().map(next).collect();
    let mut keys = Vec::with_capacity(streams.iter().map(|s| s.0.len()).max().unwrap_or(0));
    loop {
        let (mut least, mut from) = (u32::MAX, 0);
        for (i, &h) in heads.iter().enumerate() {
            if h < least {
                (least, from) = (h, i);
            }
        }
        if least == u32::MAX {
            return keys;
        }
        if keys.last() != Some(&least) {
            keys.push(least);
        }
        heads[from] = next(&mut streams[from]);
    }
}

/// A tier's keys on disk: `PLYC4KEY`, the discs and the stacks as
/// little-endian u32, each stack's length as u64, then the keys.
const MAGIC: &[u8; 8] = b"PLYC4KEY";

/// The work file of tier `discs`'s keys in `dir`.
fn keys_path(dir: &Path, discs: u32) -> PathBuf {
    dir.join(format!("discs-{discs:02}.keys"))
}

/// Writes `tier`'s keys to `path` through a temporary file, renamed once
/// whole.
fn save(path: &Path, tier: &Tier) -> Result<(), DbError> {
    let temp = path.with_extension("keys.tmp");
    let io = |e| DbError::io(&temp, e);
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&temp).map_err(io)?);
    out.write_all(MAGIC).map_err(io)?;
    out.write_all(&tier.discs.to_le_bytes()).map_err(io)?;
    out.write_all(&(tier.stacks.len() as u32).to_le_bytes())
        .map_err(io)?;
    for stack in &tier.stacks {
        out.write_all(&(stack.len() as u64).to_le_bytes())
            .map_err(io)?;
    }
    let mut bytes = Vec::with_capacity(1 << 16);
    for stack in &tier.stacks {
        for chunk in stack.chunks(1 << 14) {
            bytes.clear();
            bytes.extend(chunk.iter().flat_map(|k| k.to_le_bytes()));
            out.write_all(&bytes).map_err(io)?;
        }
    }
    out.into_inner()
        .map_err(|e| io(e.into_error()))?
        .sync_all()
        .map_err(io)?;
    std::fs::rename(&temp, path).map_err(|e| DbError::io(path, e))
}

/// Reads back the keys of tier `discs` of `stacks` stacks from `path`.
fn load(path: &Path, discs: u32, stacks: u64) -> Result<Tier, DbError> {
    let bad = |why: &str| DbError::corrupt(path, why.to_string());
    let io = |e| DbError::io(path, e);
    let mut input = BufReader::with_capacity(1 << 20, std::fs::File::open(path).map_err(io)?);
    let mut head = [0u8; 16];
    input.read_exact(&mut head).map_err(io)?;
    if &head[..8] != MAGIC
        || u32::from_le_bytes(head[8..12].try_into().expect("4 bytes")) != discs
        || u64::from(u32::from_le_bytes(head[12..].try_into().expect("4 bytes"))) != stacks
    {
        return Err(bad("not the keys of this tier"));
    }
    let mut lens = vec![0u8; stacks as usize * 8];
    input.read_exact(&mut lens).map_err(io)?;
    let mut out = Vec::with_capacity(stacks as usize);
    let mut bytes = vec![0u8; 1 << 16];
    for len in lens.chunks_exact(8) {
        let len = u64::from_le_bytes(len.try_into().expect("8 bytes")) as usize;
        let mut keys = Vec::with_capacity(len);
        while keys.len() < len {
            let take = (len - keys.len()).min(1 << 14);
            input.read_exact(&mut bytes[..take * 4]).map_err(io)?;
            keys.extend(
                bytes[..take * 4]
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
            );
        }
        out.push(keys);
    }
    if input.read(&mut bytes[..1]).map_err(io)? != 0 {
        return Err(bad("bytes past the last key"));
    }
    Ok(Tier { discs, stacks: out })
}

/// What a build by streams did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    /// Tiers whose keys the forward pass found.
    pub forward: usize,
    /// Tiers solved and written as shards.
    pub solved: usize,
    /// Tiers whose shards were there already.
    pub found_done: usize,
    /// The most bytes of keys and codes held at once.
    pub peak_bytes: u64,
    /// Shards found unsound and discarded, with the reason.
    pub discarded: Vec<String>,
}

impl Streams<'_> {
    /// Builds every unfinished tier of `plan` (every tier of the game) as
    /// its shard in `shards`, with the work files of the keys in `work`
    /// (removed once every shard is written). A killed build resumes:
    /// finished shards and key files are kept. Refuses, before a tier's
    /// keys are made, a tier whose keys and codes with its neighbour's
    /// would take more than `memory` bytes.
    pub fn build(
        &self,
        plan: &Plan<u8>,
        shards: &Shards,
        work: &Path,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<Streamed, TierError> {
        let last = self.game.cells();
        let steps: Vec<&Step<u8>> = (0..=last as u8)
            .map(|t| {
                plan.step(t)
                    .ok_or_else(|| TierError::Game(format!("tier {t} is not planned")))
            })
            .collect::<Result<_, _>>()?;
        let mut report = Streamed::default();
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
            let _ = std::fs::remove_dir_all(work);
            return Ok(report);
        }
        std::fs::create_dir_all(work).map_err(|e| DbError::io(work, e))?;
        let cancelled = || TierError::Cancelled;
        let budget = |tier: u32, needed: u64| match memory {
            Some(budget) if needed > budget => Err(TierError::Budget {
                tier: format!("discs-{tier:02}"),
                needed,
                budget,
            }),
            _ => Ok(()),
        };
        // Forward: each tier's keys, from the last one found or made.
        progress.begin("finding the positions, tier by tier", u64::from(last) + 1);
        let mut lens = vec![0u64; last as usize + 1];
        let mut held: Option<Tier> = None;
        for discs in 0..=last {
            if progress.cancelled() {
                progress.end();
                return Err(cancelled());
            }
            let path = keys_path(work, discs);
            let stacks = self.index().stacks(discs);
            if let Ok(tier) = load(&path, discs, stacks) {
                lens[discs as usize] = tier.len();
                held = Some(tier);
                progress.advance(1);
                continue;
            }
            let tier = match &held {
                None => self.first(),
                Some(parents) => {
                    let bound = parents.len() * u64::from(self.game.width());
                    let needed = 4 * (parents.len() + bound.min(self.index().len(discs)));
                    budget(discs, needed)?;
                    report.peak_bytes = report.peak_bytes.max(needed);
                    self.forward(parents)
                }
            };
            save(&path, &tier)?;
            lens[discs as usize] = tier.len();
            report.forward += 1;
            held = Some(tier);
            progress.advance(1);
        }
        progress.end();
        // Backward: each unfinished tier's codes from the next tier's.
        progress.begin("solving, tier by tier", u64::from(last) + 1);
        let mut next: Option<(Tier, Vec<Vec<Code>>)> = None;
        for discs in (0..=last).rev() {
            if progress.cancelled() {
                progress.end();
                return Err(cancelled());
            }
            let at = discs as usize;
            if done[at] {
                next = None;
                progress.advance(1);
                continue;
            }
            let above = lens.get(at + 1).copied().unwrap_or(0);
            let needed = 5 * (lens[at] + above);
            budget(discs, needed)?;
            report.peak_bytes = report.peak_bytes.max(needed);
            if next.is_none() && discs < last {
                let tier = load(
                    &keys_path(work, discs + 1),
                    discs + 1,
                    self.index().stacks(discs + 1),
                )?;
                let codes = self.codes_of(shards, steps[at + 1], &tier)?;
                next = Some((tier, codes));
            }
            let tier = load(&keys_path(work, discs), discs, self.index().stacks(discs))?;
            let codes = self.backward(&tier, next.as_ref().map(|(t, c)| (t, c.as_slice())));
            drop(next.take());
            self.write(
                (plan, steps[at], shards),
                &tier,
                &codes,
                &ply_core::NoProgress,
            )?;
            report.solved += 1;
            next = Some((tier, codes));
            progress.advance(1);
        }
        progress.end();
        let _ = std::fs::remove_dir_all(work);
        Ok(report)
    }
}

/// Connect Four's own build of its whole database, for `ply analyze
/// connect4:WxH --save` (see [`Streams::build`]): every board of at most
/// [`MOST_CELLS`] cells; `None` for a larger one, which the generic tier
/// solver builds. The shards and their work files' directory are given
/// as a pair.
pub fn own_build(
    game: &ConnectFour,
    plan: &Plan<u8>,
    (shards, work): (&Shards, &Path),
    memory: Option<u64>,
    progress: &dyn Progress,
) -> Option<Result<Built, TierError>> {
    let streams = Streams::new(game)?;
    Some(
        streams
            .build(plan, shards, work, memory, progress)
            .map(|done| Built {
                discarded: done.discarded,
                tiers: plan.steps.len(),
                owned: plan.steps.len(),
                found_done: done.found_done,
                taken: 0,
                solved: done.solved,
                slices: 0,
                peak_bytes: done.peak_bytes,
                at_once: 1,
                at_once_bytes: done.peak_bytes,
            }),
    )
}
