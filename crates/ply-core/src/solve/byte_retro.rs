//! Retrograde analysis of a large loopy game over the positions its start
//! reaches, in one byte per reached position.
//!
//! For games whose index is too large for a cell per index (Dobutsu Shogi:
//! 1.5 x 10^9 indices, a sixth of them reachable). Three phases:
//!
//! 1. **Reach.** Two bit sets over the index, "seen" and "expanded"; each
//!    pass expands, in parallel and in index order, every position seen but
//!    not yet expanded, until a pass finds none. Play stops at primitive
//!    positions and at positions the mover wins at once ([`WinsAtOnce`]),
//!    which are not expanded. The "expanded" set is then dropped, and a
//!    directory of the number of reached indices before each block of 512
//!    gives each reached position a dense slot (rank in the bit set).
//! 2. **Count.** Two bytes per slot, a cell and a counter: a position
//!    that wins at once is a win in 1, a primitive loss or a position
//!    without moves a loss in 0, and every other position is undecided with
//!    its number of distinct children (at most 255) in its counter.
//! 3. **Rounds**, in order of remoteness `r`: the positions decided at `r`
//!    (found by scanning the bytes) are un-moved ([`Parents`]); reached,
//!    undecided parents of a loss become wins in `r + 1`, and each win
//!    counts its undecided parents down, the last child turning a parent
//!    into a loss in `r + 1`. Wins have odd remoteness and losses even, so
//!    a decided cell is just `1 + r` (r up to 254: Dobutsu Shogi needs more
//!    than 127); what is still undecided when a round decides nothing is a
//!    draw (byte 0).
//!
//! Memory: two index bit sets while reaching (2 bits per index), then one
//! bit set, a directory of 8 bytes per 512 indices and two bytes per
//! reached position while solving (one is kept). Checked against the memory available before each
//! allocation.

use crate::census::Census;
use crate::db::{DbError, Keys};
use crate::game::{Indexed, Parents};
use crate::progress::Progress;
use crate::solution::Solution;
use crate::value::Cell;
use crate::value::{Outcome, Value};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};

/// Positions where the player to move wins with one move and play stops:
/// a win in 1, never expanded. (In Dobutsu Shogi: a catch of the Lion or a
/// safe try.)
pub trait WinsAtOnce: Indexed + Parents {
    /// Whether the mover has a move that ends play with their win.
    fn wins_at_once(&self, position: &Self::Position) -> bool;
}

/// Why the analysis could not run to the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ByteRetroError {
    /// Not enough memory, or an index or count beyond what the table holds.
    TooLarge(String),
    /// A remoteness above 254, or a position with more than 255 children.
    Overflow(String),
    /// A primitive position that is not a loss for the mover.
    Unsupported(String),
    /// The progress receiver asked to stop.
    Cancelled,
}

impl std::fmt::Display for ByteRetroError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge(why) | Self::Overflow(why) | Self::Unsupported(why) => f.write_str(why),
            Self::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl std::error::Error for ByteRetroError {}

/// The byte of a draw (and, while solving, of a position not yet decided).
const DRAW: u8 = 0;
/// Decided bytes are `DECIDED + remoteness`.
const DECIDED: u8 = 1;
/// The largest remoteness a byte holds.
pub const MAX_REMOTENESS: u32 = 254;
/// The most distinct children a position may have (its counter is a byte).
const MAX_CHILDREN: usize = 255;

/// Bit-set words per directory block.
const BLOCK_WORDS: usize = 8;
/// Directory blocks handed to one parallel task.
const TASK_BLOCKS: usize = 256;

/// A set of indices, one bit each, that threads may add to at once.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(len: u64) -> Self {
        // Whole blocks, so that scans never need a partial one.
        let words = len.div_ceil(64).div_ceil(BLOCK_WORDS as u64) * BLOCK_WORDS as u64;
        Self((0..words).map(|_| AtomicU64::new(0)).collect())
    }

    #[inline]
    fn insert(&self, index: u64) {
        let word = &self.0[(index / 64) as usize];
        let bit = 1 << (index % 64);
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }
}

/// The memory the system says is available, in bytes, if it says.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Refuses to allocate `bytes` for `what` when the system has less free.
fn check_memory(bytes: u64, what: &str) -> Result<(), ByteRetroError> {
    match available_memory() {
        Some(free) if free < bytes + bytes / 8 => Err(ByteRetroError::TooLarge(format!(
            "{what} needs {} MiB but only {} MiB of memory is available",
            bytes >> 20,
            free >> 20
        ))),
        _ => Ok(()),
    }
}

/// The solution: the reached indices and one byte per reached position.
pub struct ByteTable {
    len: u64,
    reached: Vec<u64>,
    /// Reached indices before each block of [`BLOCK_WORDS`] words, and the
    /// total at the end.
    directory: Vec<u64>,
    cells: Vec<AtomicU8>,
}

impl ByteTable {
    /// The size of the game's index.
    pub fn index_len(&self) -> u64 {
        self.len
    }

    /// How many positions were reached.
    pub fn reached(&self) -> u64 {
        self.cells.len() as u64
    }

    /// Whether the start reaches `index`.
    pub fn contains(&self, index: u64) -> bool {
        index < self.len && self.reached[(index / 64) as usize] >> (index % 64) & 1 == 1
    }

    /// The slot of a reached index.
    #[inline]
    fn slot(&self, index: u64) -> usize {
        slot_of(&self.reached, &self.directory, index)
    }

    /// The outcome of the position with index `index`, if it was reached.
    pub fn outcome_at(&self, index: u64) -> Option<Outcome> {
        self.contains(index)
            .then(|| decode(self.cells[self.slot(index)].load(Relaxed)))
    }

    /// The outcome of `position` for the player to move, if it was reached.
    pub fn outcome<G: Indexed>(&self, game: &G, position: &G::Position) -> Option<Outcome> {
        self.outcome_at(game.rank(position))
    }

    /// Counts the reached positions by value and remoteness, with indices as
    /// examples of the longest win and loss.
    pub fn census(&self) -> Census<u64> {
        let blocks = self.directory.len() - 1;
        (0..blocks.div_ceil(TASK_BLOCKS))
            .into_par_iter()
            .fold(Census::new, |mut census, task| {
                let first = task * TASK_BLOCKS;
                let last = (first + TASK_BLOCKS).min(blocks);
                let mut slot = self.directory[first] as usize;
                for word in first * BLOCK_WORDS..last * BLOCK_WORDS {
                    let mut bits = self.reached[word];
                    while bits != 0 {
                        let index = word as u64 * 64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        census.add(decode(self.cells[slot].load(Relaxed)), || index);
                        slot += 1;
                    }
                }
                census
            })
            .reduce(Census::new, Census::merge)
    }

    /// The raw bytes: the bit set of reached indices, then one byte per
    /// reached position (0 a draw, else 1 + remoteness; odd remoteness
    /// wins).
    pub fn parts(&self) -> (&[u64], Vec<u8>) {
        (
            &self.reached,
            self.cells.iter().map(|c| c.load(Relaxed)).collect(),
        )
    }

    /// A table from the parts [`ByteTable::parts`] gave, for an index of
    /// `len`; `None` if they do not fit together.
    pub fn from_parts(len: u64, reached: Vec<u64>, cells: Vec<u8>) -> Option<Self> {
        if reached.len() as u64
            != len.div_ceil(64).div_ceil(BLOCK_WORDS as u64) * BLOCK_WORDS as u64
        {
            return None;
        }
        let directory = directory(&reached);
        if *directory.last()? != cells.len() as u64 {
            return None;
        }
        Some(Self {
            len,
            reached,
            directory,
            cells: cells.into_iter().map(AtomicU8::new).collect(),
        })
    }
}

/// The reached positions as a [`Solution`] keyed by index; indices not
/// reached hold [`Cell::UNKNOWN`].
impl Solution for ByteTable {
    fn keys(&self) -> Keys {
        Keys::Index
    }

    fn index_len(&self) -> u64 {
        self.len
    }

    fn cell(&self, key: u64) -> Result<Cell, DbError> {
        Ok(self.outcome_at(key).map_or(Cell::UNKNOWN, Cell::pack))
    }

    fn for_each_cell(
        &self,
        range: Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), DbError> {
        let end = range.end.min(self.len);
        if range.start >= end {
            return Ok(());
        }
        let mut slot = self.slot(range.start);
        for word in (range.start / 64) as usize..=((end - 1) / 64) as usize {
            let mut bits = self.reached[word];
            while bits != 0 {
                let index = word as u64 * 64 + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                if index < range.start {
                    continue;
                }
                if index >= end {
                    return Ok(());
                }
                visit(index, Cell::pack(decode(self.cells[slot].load(Relaxed))));
                slot += 1;
            }
        }
        Ok(())
    }
}

/// The outcome a byte holds.
#[inline]
pub fn decode(byte: u8) -> Outcome {
    if byte == DRAW {
        Outcome::DRAW
    } else {
        let r = u32::from(byte - DECIDED);
        if r % 2 == 1 {
            Outcome::win(r)
        } else {
            Outcome::lose(r)
        }
    }
}

/// The byte that holds `outcome`, if one does (a win with odd remoteness,
/// a loss with even, or a draw, remoteness at most [`MAX_REMOTENESS`]).
pub fn encode(outcome: Outcome) -> Option<u8> {
    match (outcome.value, outcome.remoteness) {
        (Value::Draw, _) => Some(DRAW),
        (Value::Win, Some(r)) if r % 2 == 1 && r <= MAX_REMOTENESS => Some(DECIDED + r as u8),
        (Value::Lose, Some(r)) if r % 2 == 0 && r <= MAX_REMOTENESS => Some(DECIDED + r as u8),
        _ => None,
    }
}

/// The prefix counts of a bit set, per block of [`BLOCK_WORDS`] words.
fn directory(words: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(words.len() / BLOCK_WORDS + 1);
    let mut total = 0u64;
    for block in words.chunks(BLOCK_WORDS) {
        out.push(total);
        total += block.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
    }
    out.push(total);
    out
}

/// The rank of `index` among the set bits of `words`.
#[inline]
fn slot_of(words: &[u64], directory: &[u64], index: u64) -> usize {
    let word = (index / 64) as usize;
    let block = word / BLOCK_WORDS;
    let mut slot = directory[block];
    for w in &words[block * BLOCK_WORDS..word] {
        slot += u64::from(w.count_ones());
    }
    slot += u64::from((words[word] & ((1u64 << (index % 64)) - 1)).count_ones());
    slot as usize
}

/// Calls `visit` with every set index in the task's blocks, in order, and
/// its slot.
fn for_each_in_task(
    words: &[u64],
    directory: &[u64],
    task: usize,
    mut visit: impl FnMut(u64, usize),
) {
    let blocks = directory.len() - 1;
    let first = task * TASK_BLOCKS;
    let last = (first + TASK_BLOCKS).min(blocks);
    let mut slot = directory[first] as usize;
    for (word, &w) in words
        .iter()
        .enumerate()
        .take(last * BLOCK_WORDS)
        .skip(first * BLOCK_WORDS)
    {
        let mut bits = w;
        while bits != 0 {
            let index = word as u64 * 64 + u64::from(bits.trailing_zeros());
            bits &= bits - 1;
            visit(index, slot);
            slot += 1;
        }
    }
}

/// Solves every position `game.start()` reaches.
pub fn solve<G: WinsAtOnce>(
    game: &G,
    progress: &dyn Progress,
) -> Result<ByteTable, ByteRetroError> {
    let len = game.index_len();
    let seen = reach(game, progress)?;
    let reached: Vec<u64> = seen.0.into_iter().map(AtomicU64::into_inner).collect();
    let directory = directory(&reached);
    let count = directory.last().copied().unwrap_or(0);
    check_memory(
        2 * count,
        "a cell and a counter of undecided children per reached position",
    )?;
    let table = ByteTable {
        len,
        reached,
        directory,
        cells: zeroed(count),
    };
    let counters = zeroed(count);
    count_children(game, &table, &counters, progress)?;
    rounds(game, &table, &counters, progress)?;
    // What is still undecided is a draw: its byte is already DRAW.
    Ok(table)
}

/// `count` atomic bytes, all zero, filled in parallel.
fn zeroed(count: u64) -> Vec<AtomicU8> {
    (0..count)
        .into_par_iter()
        .map(|_| AtomicU8::new(0))
        .collect()
}

/// The number of parallel tasks over a bit set of `words` words.
fn task_count(words: usize) -> usize {
    words.div_ceil(TASK_BLOCKS * BLOCK_WORDS)
}

/// Phase 1: the set of reached indices.
fn reach<G: WinsAtOnce>(game: &G, progress: &dyn Progress) -> Result<Bits, ByteRetroError> {
    let len = game.index_len();
    check_memory(2 * len.div_ceil(64) * 8, "reaching the positions")?;
    let seen = Bits::new(len);
    let expanded = Bits::new(len);
    let start = game.rank(&game.start());
    if start >= len {
        return Err(ByteRetroError::Unsupported(
            "the start position is outside the index".into(),
        ));
    }
    seen.insert(start);
    let words = seen.0.len();
    let cancelled = AtomicBool::new(false);
    for pass in 1.. {
        progress.begin(&format!("reaching (pass {pass})"), 0);
        let done = AtomicU64::new(0);
        (0..task_count(words)).into_par_iter().for_each(|task| {
            if cancelled.load(Relaxed) || progress.cancelled() {
                cancelled.store(true, Relaxed);
                return;
            }
            let mut n = 0;
            let end = ((task + 1) * TASK_BLOCKS * BLOCK_WORDS).min(words);
            for word in task * TASK_BLOCKS * BLOCK_WORDS..end {
                let todo = seen.0[word].load(Relaxed) & !expanded.0[word].load(Relaxed);
                if todo == 0 {
                    continue;
                }
                expanded.0[word].fetch_or(todo, Relaxed);
                let mut bits = todo;
                while bits != 0 {
                    let index = word as u64 * 64 + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    n += 1;
                    let Some(position) = game.unrank(index) else {
                        continue;
                    };
                    if game.primitive(&position).is_some() || game.wins_at_once(&position) {
                        continue;
                    }
                    game.for_each_move(&position, |_, child| {
                        let child = game.rank(&child);
                        if child < len {
                            seen.insert(child);
                        }
                    });
                }
            }
            progress.advance(n);
            done.fetch_add(n, Relaxed);
        });
        progress.end();
        if cancelled.load(Relaxed) {
            return Err(ByteRetroError::Cancelled);
        }
        if done.load(Relaxed) == 0 {
            break;
        }
    }
    Ok(seen)
}

/// Records the first error any task meets.
struct FirstError(std::sync::Mutex<Option<ByteRetroError>>);

impl FirstError {
    fn set(&self, error: ByteRetroError) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(error);
        }
    }

    fn take(self) -> Result<(), ByteRetroError> {
        match self.0.into_inner() {
            Ok(Some(error)) => Err(error),
            _ => Ok(()),
        }
    }
}

/// Phase 2: wins at once, losses without moves, and child counts.
fn count_children<G: WinsAtOnce>(
    game: &G,
    table: &ByteTable,
    counters: &[AtomicU8],
    progress: &dyn Progress,
) -> Result<(), ByteRetroError> {
    progress.begin("counting moves", table.reached());
    let error = FirstError(Default::default());
    (0..task_count(table.reached.len()))
        .into_par_iter()
        .for_each(|task| {
            if progress.cancelled() {
                error.set(ByteRetroError::Cancelled);
                return;
            }
            let mut children = Vec::with_capacity(64);
            let mut n = 0;
            for_each_in_task(&table.reached, &table.directory, task, |index, slot| {
                n += 1;
                let Some(position) = game.unrank(index) else {
                    return;
                };
                let byte = match game.primitive(&position) {
                    Some(Value::Lose) => DECIDED,
                    Some(value) => {
                        error.set(ByteRetroError::Unsupported(format!(
                            "a primitive {value}: only losses for the mover are supported"
                        )));
                        DRAW
                    }
                    None if game.wins_at_once(&position) => DECIDED + 1,
                    None => {
                        children.clear();
                        game.for_each_move(&position, |_, child| children.push(game.rank(&child)));
                        children.sort_unstable();
                        children.dedup();
                        if children.last().is_some_and(|&c| c >= game.index_len()) {
                            error.set(ByteRetroError::Unsupported(format!(
                                "position {index} has a move out of the index"
                            )));
                        }
                        match children.len() {
                            0 => DECIDED,
                            n if n <= MAX_CHILDREN => {
                                counters[slot].store(n as u8, Relaxed);
                                DRAW
                            }
                            n => {
                                error.set(ByteRetroError::Overflow(format!(
                                    "position {index} has {n} moves, more than a byte counts"
                                )));
                                DRAW
                            }
                        }
                    }
                };
                table.cells[slot].store(byte, Relaxed);
            });
            progress.advance(n);
        });
    progress.end();
    error.take()
}

/// Phase 3: rounds in order of remoteness.
fn rounds<G: WinsAtOnce>(
    game: &G,
    table: &ByteTable,
    counters: &[AtomicU8],
    progress: &dyn Progress,
) -> Result<(), ByteRetroError> {
    let tasks = task_count(table.reached.len());
    let blocks = table.directory.len() - 1;
    progress.begin("deciding, round by round", table.reached());
    let error = FirstError(Default::default());
    for r in 0..=MAX_REMOTENESS {
        let code = DECIDED + r as u8;
        let next = (r < MAX_REMOTENESS).then(|| code + 1);
        let losses = r % 2 == 0;
        let frontier = AtomicU64::new(0);
        (0..tasks).into_par_iter().for_each(|task| {
            if progress.cancelled() {
                error.set(ByteRetroError::Cancelled);
                return;
            }
            let first = task * TASK_BLOCKS;
            let last = (first + TASK_BLOCKS).min(blocks);
            let slots = table.directory[first] as usize..table.directory[last] as usize;
            if !table.cells[slots].iter().any(|c| c.load(Relaxed) == code) {
                return;
            }
            let mut parents = Vec::with_capacity(64);
            let mut n = 0;
            for_each_in_task(&table.reached, &table.directory, task, |index, slot| {
                if table.cells[slot].load(Relaxed) != code {
                    return;
                }
                n += 1;
                let Some(position) = game.unrank(index) else {
                    return;
                };
                parents.clear();
                game.for_each_parent(&position, |parent| parents.push(game.rank(&parent)));
                parents.sort_unstable();
                parents.dedup();
                for &parent in &parents {
                    if !table.contains(parent) {
                        continue;
                    }
                    let slot = table.slot(parent);
                    let cell = &table.cells[slot];
                    if cell.load(Relaxed) != DRAW {
                        continue;
                    }
                    // A round's frontier is all losses (even r) or all wins
                    // (odd r): a parent of a loss wins; a parent whose last
                    // undecided child won loses.
                    let decided = losses || counters[slot].fetch_sub(1, Relaxed) == 1;
                    if !decided {
                        continue;
                    }
                    match next {
                        Some(next) => {
                            let _ = cell.compare_exchange(DRAW, next, Relaxed, Relaxed);
                        }
                        None => error.set(ByteRetroError::Overflow(format!(
                            "a remoteness above {MAX_REMOTENESS}"
                        ))),
                    }
                }
            });
            progress.advance(n);
            frontier.fetch_add(n, Relaxed);
        });
        if r >= 1 && frontier.load(Relaxed) == 0 {
            break;
        }
    }
    progress.end();
    error.take()
}
