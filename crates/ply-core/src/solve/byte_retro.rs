//! Retrograde analysis of a large loopy game over the positions its start
//! reaches, in one byte per stored position.
//!
//! For games whose index is too large for a cell per index (Dobutsu Shogi:
//! 8.6 x 10^8 indices with mirror images folded). Three phases:
//!
//! The solve keeps one position of each class of symmetric positions (in
//! Dobutsu Shogi, a position and its left-right mirror image), its *key*:
//! [`Symmetric::canonical_index`]. The class has one value, so every phase
//! below works on keys. A key stands for [`Symmetric::class_size`]
//! positions; counts of positions weigh keys so.
//!
//! 1. **Reach.** Bit sets over the index, "seen" and "expanded"; each pass
//!    expands, in parallel and in index order, every position seen but not
//!    yet expanded, until a pass finds none. Play stops only at primitive
//!    positions: a player who could catch the Lion and plays something else
//!    keeps the game going, so positions where the mover wins at once
//!    ([`WinsAtOnce`]) are expanded like any other. They are then counted
//!    and dropped from the table: the rules tell them (a win in 1) without
//!    storage. A directory of the number of stored keys before each block
//!    of 512 gives each stored key a dense slot (rank in the bit set).
//! 2. **Count.** One byte per slot: a position without moves is a loss in
//!    0, one whose every move lets the opponent win at once a loss in 2,
//!    and every other position is undecided, its byte the number of its
//!    distinct child keys that do not win at once (at most 254; the most
//!    any position has is `C`).
//! 3. **Rounds**, in order of remoteness `r`: the positions decided at `r`
//!    are un-moved ([`Parents`]) and the parents' keys taken (a key's
//!    parents' keys are its images' too, so one un-move does for the
//!    class); stored, undecided parents of a loss become
//!    wins in `r + 1`, and each win counts its undecided parents down, the
//!    last child turning a parent into a loss in `r + 1`. While solving, a
//!    byte is a counter (1 to `C`) or a decided remoteness `C + 1 + r`, so
//!    counter and value share the byte as long as `C + 1 + r <= 255`.
//!    Early rounds find their positions by scanning the bytes; once a round
//!    decides few enough, their indices are listed for the next round in
//!    index order. What is still undecided when a round decides nothing is
//!    a draw. A last pass turns the bytes into the table's encoding: 0 a
//!    draw, else 1 + remoteness (wins odd, losses even; up to 254).
//!
//! Memory: three index bit sets while reaching (3 bits per index), then one
//! bit set, a directory of 8 bytes per 512 indices, one byte per stored
//! position and a bounded list of indices while solving. Checked against
//! the memory available before each allocation.

use crate::census::Census;
use crate::db_error::DbError;
use crate::error::SolveError;
use crate::game::{Indexed, Parents, Symmetric};
use crate::limits;
use crate::progress::Progress;
use crate::solution::Keys;
use crate::solution::Solution;
use crate::solve::reach::IndexSet;
use crate::value::Cell;
use crate::value::{Outcome, Value};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Positions where the player to move wins with one move: a win in 1,
/// told by the rules and never stored (in Dobutsu Shogi: a catch of the
/// Lion or a safe try). Play goes on from them when the mover declines.
/// The solve keeps one position per class of [`Symmetric`] images.
pub trait WinsAtOnce: Indexed + Parents + Symmetric {
    /// Whether the mover has a move that ends play with their win.
    fn wins_at_once(&self, position: &Self::Position) -> bool;

    /// What such a move is called, for messages.
    fn what_wins_at_once(&self) -> &'static str {
        "a move that wins at once"
    }
}

/// The byte of a draw (and, while solving, of a position not yet decided).
const DRAW: u8 = 0;
/// Decided bytes are `DECIDED + remoteness`.
const DECIDED: u8 = 1;
/// The largest remoteness a byte holds.
pub const MAX_REMOTENESS: u32 = 254;
/// The most distinct children (that do not win at once) a position may
/// have: its counter is a byte, 255 marking a loss in 2 while counting.
const MAX_CHILDREN: usize = 254;
/// While counting: a loss in 0 (no moves).
const COUNT_LOSS_0: u8 = 0;
/// While counting: a loss in 2 (every move lets the opponent win at once).
const COUNT_LOSS_2: u8 = 255;

/// Bit-set words per directory block.
const BLOCK_WORDS: usize = 8;
/// Directory blocks handed to one parallel task.
const TASK_BLOCKS: usize = 256;
/// The most indices listed for the next round (8 bytes each, 32 MiB); a
/// round deciding more is found by scanning the bytes instead. Two lists
/// live at once (the one read and the one filled), on top of the table: a
/// cap of 24 Mi indices let them reach 400 MB, twice the bytes of the full
/// Dobutsu solve, while scanning those bytes costs about what listing and
/// sorting that many indices does.
const LIST_CAP: u64 = 4 << 20;

/// The most memory [`solve`] takes for an index of `len`: three bit sets
/// over the index while reaching (the byte per stored position comes after
/// two of them are freed, and is smaller for every game where few indices
/// are reached).
pub fn peak_bytes(len: u64) -> u64 {
    3 * len.div_ceil(64) * 8
}

/// Refuses to allocate `bytes` for `what` when the system has less free.
fn check_memory(bytes: u64, what: &str) -> Result<(), SolveError> {
    limits::check_memory(what, bytes).map_err(SolveError::TooLarge)
}

/// The solution: the stored keys (reached and not a win at once) and one
/// byte per stored key, with counts of what was not stored.
pub struct ByteTable {
    len: u64,
    reached: Vec<u64>,
    /// Stored keys before each block of [`BLOCK_WORDS`] words, and the
    /// total at the end.
    directory: Vec<u64>,
    cells: Vec<AtomicU8>,
    /// How many symmetries the game has: the size of most classes.
    group: u64,
    /// The stored keys whose class is smaller than [`ByteTable::group`]
    /// (a position that is its own mirror image), in order, with their
    /// class sizes.
    small: Vec<(u64, u64)>,
    /// Reached positions where the mover wins at once (not stored).
    wins_at_once: u64,
    /// Their keys (classes once).
    wins_at_once_keys: u64,
    /// The smallest key of such a position, if any.
    win_example: Option<u64>,
}

impl ByteTable {
    /// The size of the game's index.
    pub fn index_len(&self) -> u64 {
        self.len
    }

    /// How many positions the start reaches by legal play, stored or not,
    /// symmetric images counted apart.
    pub fn reached(&self) -> u64 {
        self.stored_positions() + self.wins_at_once
    }

    /// How many keys are stored: one for each class reached where the
    /// mover cannot win at once.
    pub fn stored(&self) -> u64 {
        self.cells.len() as u64
    }

    /// How many positions the stored keys stand for.
    pub fn stored_positions(&self) -> u64 {
        positions_of_keys(self.stored(), &self.small, self.group)
    }

    /// How many positions the stored key `key` stands for.
    fn weight(&self, key: u64) -> u64 {
        match self.small.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => self.small[i].1,
            Err(_) => self.group,
        }
    }

    /// How many reached positions the mover wins at once (a win in 1 known
    /// from the rules, not stored).
    pub fn wins_at_once(&self) -> u64 {
        self.wins_at_once
    }

    /// The reached positions counted up to symmetry (a position and its
    /// mirror image once): the stored ones, then the wins at once; `None`
    /// when the game has no symmetry.
    pub fn classes(&self) -> Option<[u64; 2]> {
        (self.group > 1).then_some([self.stored(), self.wins_at_once_keys])
    }

    /// Whether the key `index` is stored (reached, and the mover cannot win
    /// at once).
    pub fn contains(&self, index: u64) -> bool {
        index < self.len && self.reached[(index / 64) as usize] >> (index % 64) & 1 == 1
    }

    /// The slot of a stored index.
    #[inline]
    fn slot(&self, index: u64) -> usize {
        slot_of(&self.reached, &self.directory, index)
    }

    /// The outcome of the positions with key `index`, if it is stored
    /// (wins at once are not: ask the rules).
    pub fn outcome_at(&self, index: u64) -> Option<Outcome> {
        self.contains(index)
            .then(|| decode(self.cells[self.slot(index)].load(Relaxed)))
    }

    /// The outcome of `position` for the player to move, if it is stored.
    pub fn outcome<G: WinsAtOnce>(&self, game: &G, position: &G::Position) -> Option<Outcome> {
        self.outcome_at(game.canonical_index(position))
    }

    /// Counts the reached positions (wins at once included, symmetric
    /// images apart) by value and remoteness, with keys as examples of the
    /// longest win and loss.
    pub fn census(&self) -> Census<u64> {
        let blocks = self.directory.len() - 1;
        let mut census = (0..blocks.div_ceil(TASK_BLOCKS))
            .into_par_iter()
            .fold(Census::new, |mut census, task| {
                let first = task * TASK_BLOCKS;
                let last = (first + TASK_BLOCKS).min(blocks);
                let mut slot = self.directory[first] as usize;
                for word in first * BLOCK_WORDS..(last * BLOCK_WORDS).min(self.reached.len()) {
                    let mut bits = self.reached[word];
                    while bits != 0 {
                        let index = word as u64 * 64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let outcome = decode(self.cells[slot].load(Relaxed));
                        census.add_many(outcome, self.weight(index), || index);
                        slot += 1;
                    }
                }
                census
            })
            .reduce(Census::new, Census::merge);
        let example = self.win_example.unwrap_or(0);
        census.add_many(Outcome::win(1), self.wins_at_once, || example);
        census
    }
}

/// The stored keys as a [`Solution`] keyed by index; indices not stored
/// (not reached, a win at once, or not the key of their class) hold
/// [`Cell::UNKNOWN`].
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

/// The position of the `k`-th set bit (from 0) of `word`, which has more.
#[inline]
fn select_in_word(mut word: u64, k: u64) -> u64 {
    for _ in 0..k {
        word &= word - 1;
    }
    u64::from(word.trailing_zeros())
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

/// Calls `visit` with the index and slot of every stored position of the
/// task's blocks whose byte is `code`, scanning the bytes and finding the
/// index of a match by walking the bit set forward.
fn for_each_with_code(table: &ByteTable, task: usize, code: u8, mut visit: impl FnMut(u64, usize)) {
    let (words, directory) = (&table.reached, &table.directory);
    let blocks = directory.len() - 1;
    let first = task * TASK_BLOCKS;
    let last = (first + TASK_BLOCKS).min(blocks);
    let (lo, hi) = (directory[first] as usize, directory[last] as usize);
    let mut block = first;
    let mut word = first * BLOCK_WORDS;
    let mut before = directory[first];
    for (slot, cell) in (lo..hi).zip(&table.cells[lo..hi]) {
        if cell.load(Relaxed) != code {
            continue;
        }
        let slot64 = slot as u64;
        if directory[block + 1] <= slot64 {
            while directory[block + 1] <= slot64 {
                block += 1;
            }
            word = block * BLOCK_WORDS;
            before = directory[block];
        }
        loop {
            let ones = u64::from(words[word].count_ones());
            if before + ones > slot64 {
                break;
            }
            before += ones;
            word += 1;
        }
        let index = word as u64 * 64 + select_in_word(words[word], slot64 - before);
        visit(index, slot);
    }
}

/// What the reach found besides the stored set.
struct Reach {
    /// Keys reached and not a win at once: the stored ones.
    stored: IndexSet,
    /// How many symmetries the game has.
    group: u64,
    /// Stored keys of classes smaller than the group, in order, with their
    /// sizes.
    small: Vec<(u64, u64)>,
    /// Positions, then keys, where the mover wins at once.
    wins_at_once: [u64; 2],
    win_example: Option<u64>,
}

/// Solves every position `game.start()` reaches by legal play.
pub fn solve<G: WinsAtOnce>(game: &G, progress: &dyn Progress) -> Result<ByteTable, SolveError> {
    let len = game.index_len();
    let reach = reach(game, &|_| false, progress)?;
    let reached = reach.stored.into_words();
    let directory = directory(&reached);
    let count = directory.last().copied().unwrap_or(0);
    check_memory(count, "one byte per stored position")?;
    let table = ByteTable {
        len,
        reached,
        directory,
        cells: zeroed(count),
        group: reach.group,
        small: reach.small,
        wins_at_once: reach.wins_at_once[0],
        wins_at_once_keys: reach.wins_at_once[1],
        win_example: reach.win_example,
    };
    let widest = count_children(game, &table, progress)?;
    // Decided bytes start above the widest counter.
    let base = widest as u8 + 1;
    table
        .cells
        .par_iter()
        .for_each(|cell| match cell.load(Relaxed) {
            COUNT_LOSS_0 => cell.store(base, Relaxed),
            COUNT_LOSS_2 => cell.store(base + 2, Relaxed),
            _ => {}
        });
    rounds(game, &table, base, progress)?;
    // Back to the table's encoding: counters left are draws.
    table.cells.par_iter().for_each(|cell| {
        let byte = cell.load(Relaxed);
        cell.store(
            if byte >= base {
                DECIDED + (byte - base)
            } else {
                DRAW
            },
            Relaxed,
        );
    });
    Ok(table)
}

/// How many positions the start reaches when play also stops at the
/// positions `stops` names (counted, not expanded): the positions,
/// symmetric images apart, then the keys (classes once). Other conventions
/// for what counts as reached (Dobutsu Shogi's published count stops at
/// catches) are counted this way without a solve.
pub fn count_reached<G: WinsAtOnce>(
    game: &G,
    stops: impl Fn(&G::Position) -> bool + Sync,
    progress: &dyn Progress,
) -> Result<[u64; 2], SolveError> {
    let reach = reach(game, &stops, progress)?;
    let stored = reach.stored.count();
    let stored_positions = positions_of_keys(stored, &reach.small, reach.group);
    let [stopped_positions, stopped_keys] = reach.wins_at_once;
    Ok([stored_positions + stopped_positions, stored + stopped_keys])
}

/// How many positions `keys` stored keys stand for: `small` of them their
/// class sizes, every other key `group`.
fn positions_of_keys(keys: u64, small: &[(u64, u64)], group: u64) -> u64 {
    group * keys - small.iter().map(|&(_, size)| group - size).sum::<u64>()
}

/// `count` atomic bytes, all zero (zeroed by the allocator).
fn zeroed(count: u64) -> Vec<AtomicU8> {
    bytemuck::zeroed_vec(count as usize)
}

/// The number of parallel tasks over a bit set of `words` words.
fn task_count(words: usize) -> usize {
    words.div_ceil(TASK_BLOCKS * BLOCK_WORDS)
}

/// Phase 1: the set of reached keys where the mover cannot win at once,
/// and counts of the rest. Play stops at primitive positions (stored) and
/// at the positions `stops` names (counted with the wins at once, not
/// expanded); wins at once are counted and expanded.
fn reach<G: WinsAtOnce>(
    game: &G,
    stops: &(dyn Fn(&G::Position) -> bool + Sync),
    progress: &dyn Progress,
) -> Result<Reach, SolveError> {
    let len = game.index_len();
    check_memory(peak_bytes(len), "reaching the positions")?;
    let seen = IndexSet::new(len);
    let expanded = IndexSet::new(len);
    let at_once = IndexSet::new(len);
    let start = game.canonical_index(&game.start());
    if start >= len {
        return Err(SolveError::Unsupported(
            "the start position is outside the index".into(),
        ));
    }
    seen.insert(start);
    let words = seen.words().len();
    let cancelled = AtomicBool::new(false);
    let mut group = 0;
    game.for_each_symmetric(&game.start(), |_| group += 1);
    // Wins at once: positions, then keys.
    let at_once_counts = [AtomicU64::new(0), AtomicU64::new(0)];
    let small = Mutex::new(Vec::new());
    let example = AtomicU64::new(u64::MAX);
    for pass in 1.. {
        progress.begin(&format!("reaching (pass {pass})"), 0);
        let done = AtomicU64::new(0);
        (0..task_count(words)).into_par_iter().for_each(|task| {
            if cancelled.load(Relaxed) || progress.cancelled() {
                cancelled.store(true, Relaxed);
                return;
            }
            let (mut n, mut counted, mut ones) = (0, [0u64; 2], Vec::new());
            let end = ((task + 1) * TASK_BLOCKS * BLOCK_WORDS).min(words);
            for word in task * TASK_BLOCKS * BLOCK_WORDS..end {
                let todo = seen.words()[word].load(Relaxed) & !expanded.words()[word].load(Relaxed);
                if todo == 0 {
                    continue;
                }
                expanded.words()[word].fetch_or(todo, Relaxed);
                let mut bits = todo;
                while bits != 0 {
                    let index = word as u64 * 64 + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    n += 1;
                    let Some(position) = game.unrank(index) else {
                        continue;
                    };
                    let weight = game.class_size(index, &position);
                    if game.primitive(&position).is_some() {
                        if weight < group {
                            ones.push((index, weight));
                        }
                        continue;
                    }
                    let stop = stops(&position);
                    if stop || game.wins_at_once(&position) {
                        at_once.insert(index);
                        example.fetch_min(index, Relaxed);
                        counted[0] += weight;
                        counted[1] += 1;
                    } else if weight < group {
                        ones.push((index, weight));
                    }
                    if stop {
                        continue;
                    }
                    game.for_each_move(&position, |_, child| {
                        seen.insert(game.canonical_index(&child));
                    });
                }
            }
            progress.advance(n);
            done.fetch_add(n, Relaxed);
            for (total, c) in at_once_counts.iter().zip(counted) {
                total.fetch_add(c, Relaxed);
            }
            if !ones.is_empty()
                && let Ok(mut small) = small.lock()
            {
                small.append(&mut ones);
            }
        });
        progress.end();
        if cancelled.load(Relaxed) {
            return Err(SolveError::Cancelled("cancelled".into()));
        }
        if done.load(Relaxed) == 0 {
            break;
        }
    }
    drop(expanded);
    seen.words()
        .par_iter()
        .zip(at_once.words())
        .for_each(|(s, w)| {
            s.fetch_and(!w.load(Relaxed), Relaxed);
        });
    let example = example.into_inner();
    let [positions, keys] = at_once_counts.map(AtomicU64::into_inner);
    let mut small = small.into_inner().unwrap_or_default();
    small.par_sort_unstable();
    Ok(Reach {
        stored: seen,
        group,
        small,
        wins_at_once: [positions, keys],
        win_example: (example != u64::MAX).then_some(example),
    })
}

/// Records the first error any task meets.
struct FirstError(Mutex<Option<SolveError>>);

impl FirstError {
    fn set(&self, error: SolveError) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(error);
        }
    }

    fn take(self) -> Result<(), SolveError> {
        match self.0.into_inner() {
            Ok(Some(error)) => Err(error),
            _ => Ok(()),
        }
    }
}

/// Phase 2: losses in 0 and 2, and the counts of children that do not win
/// at once (bytes [`COUNT_LOSS_0`], [`COUNT_LOSS_2`] or the count).
/// Returns the widest count.
fn count_children<G: WinsAtOnce>(
    game: &G,
    table: &ByteTable,
    progress: &dyn Progress,
) -> Result<usize, SolveError> {
    progress.begin("counting moves", table.stored());
    let error = FirstError(Default::default());
    let widest = AtomicUsize::new(1);
    (0..task_count(table.reached.len()))
        .into_par_iter()
        .for_each(|task| {
            if progress.cancelled() {
                error.set(SolveError::Cancelled("cancelled".into()));
                return;
            }
            let mut children = Vec::with_capacity(64);
            let (mut n, mut wide) = (0, 0);
            for_each_in_task(&table.reached, &table.directory, task, |index, slot| {
                n += 1;
                let Some(position) = game.unrank(index) else {
                    return;
                };
                let byte = match game.primitive(&position) {
                    Some(Value::Lose) => COUNT_LOSS_0,
                    Some(value) => {
                        error.set(SolveError::Unsupported(format!(
                            "a primitive {value}: only losses for the mover are supported"
                        )));
                        COUNT_LOSS_0
                    }
                    None => {
                        children.clear();
                        let mut moves = 0;
                        game.for_each_move(&position, |_, child| {
                            moves += 1;
                            // A child where play is over counts, even when
                            // its mover could have won at once before.
                            if !game.wins_at_once(&child) || game.primitive(&child).is_some() {
                                children.push(game.canonical_index(&child));
                            }
                        });
                        children.sort_unstable();
                        children.dedup();
                        if children.last().is_some_and(|&c| c >= game.index_len()) {
                            error.set(SolveError::Unsupported(format!(
                                "position {index} has a move out of the index"
                            )));
                        }
                        match children.len() {
                            0 if moves == 0 => COUNT_LOSS_0,
                            0 => COUNT_LOSS_2,
                            k if k <= MAX_CHILDREN => {
                                wide = wide.max(k);
                                k as u8
                            }
                            k => {
                                error.set(SolveError::Overflow(format!(
                                    "position {index} has {k} moves, more than a byte counts"
                                )));
                                COUNT_LOSS_0
                            }
                        }
                    }
                };
                table.cells[slot].store(byte, Relaxed);
            });
            widest.fetch_max(wide, Relaxed);
            progress.advance(n);
        });
    progress.end();
    error.take()?;
    Ok(widest.into_inner())
}

/// Indices decided in a round, for the next one, while they are few.
struct Listing {
    indices: Mutex<Vec<u64>>,
    count: AtomicU64,
    overflowed: AtomicBool,
}

impl Listing {
    fn new() -> Self {
        Self {
            indices: Mutex::new(Vec::new()),
            count: AtomicU64::new(0),
            overflowed: AtomicBool::new(false),
        }
    }

    /// Adds a task's indices, or gives up listing once there are too many.
    fn extend(&self, local: &mut Vec<u64>) {
        if local.is_empty() {
            return;
        }
        let n = local.len() as u64;
        if self.overflowed.load(Relaxed) || self.count.fetch_add(n, Relaxed) + n > LIST_CAP {
            self.overflowed.store(true, Relaxed);
        } else if let Ok(mut all) = self.indices.lock() {
            all.append(local);
        }
        local.clear();
    }

    /// The sorted list, if it holds every index decided.
    fn finish(self) -> Option<Vec<u64>> {
        if self.overflowed.into_inner() {
            return None;
        }
        let mut all = self.indices.into_inner().ok()?;
        all.par_sort_unstable();
        Some(all)
    }
}

/// Phase 3: rounds in order of remoteness; decided bytes are `base + r`.
fn rounds<G: WinsAtOnce>(
    game: &G,
    table: &ByteTable,
    base: u8,
    progress: &dyn Progress,
) -> Result<(), SolveError> {
    let tasks = task_count(table.reached.len());
    progress.begin("deciding, round by round", table.stored());
    let error = FirstError(Default::default());
    let most = u32::from(u8::MAX - base).min(MAX_REMOTENESS);
    // The frontier listed by the previous round, if it could be.
    let mut listed: Option<Vec<u64>> = None;
    for r in 0..=most {
        let code = base + r as u8;
        let next = (r < most).then(|| code + 1);
        let losses = r % 2 == 0;
        let frontier = AtomicU64::new(0);
        let decided_now = AtomicU64::new(0);
        // Rounds 0 to 2 find their frontier by scanning (the count phase
        // decided losses in 2); later ones list what they decide.
        let listing = (r >= 2).then(Listing::new);
        let settle = |index: u64, parents: &mut Vec<u64>, decided: &mut Vec<u64>| {
            let Some(position) = game.unrank(index) else {
                return;
            };
            parents.clear();
            game.for_each_parent(&position, |parent| {
                parents.push(game.canonical_index(&parent))
            });
            parents.sort_unstable();
            parents.dedup();
            for &parent in parents.iter() {
                if !table.contains(parent) {
                    continue;
                }
                let cell = &table.cells[table.slot(parent)];
                let mut byte = cell.load(Relaxed);
                // A round's frontier is all losses (even r) or all wins
                // (odd r): a parent of a loss wins; a parent whose last
                // undecided child won loses.
                while byte != DRAW && byte < base {
                    let becomes = if losses || byte == 1 {
                        match next {
                            Some(next) => next,
                            None => {
                                error.set(SolveError::Overflow(format!(
                                    "a remoteness above {most}"
                                )));
                                return;
                            }
                        }
                    } else {
                        byte - 1
                    };
                    match cell.compare_exchange_weak(byte, becomes, Relaxed, Relaxed) {
                        Ok(_) => {
                            if becomes >= base {
                                if listing.is_some() {
                                    decided.push(parent);
                                }
                                decided_now.fetch_add(1, Relaxed);
                            }
                            break;
                        }
                        Err(now) => byte = now,
                    }
                }
            }
        };
        let flush = |decided: &mut Vec<u64>| {
            if let Some(listing) = &listing {
                listing.extend(decided);
            }
        };
        match listed.take() {
            Some(list) => {
                list.par_chunks(4096).for_each(|chunk| {
                    if progress.cancelled() {
                        error.set(SolveError::Cancelled("cancelled".into()));
                        return;
                    }
                    let (mut parents, mut decided) = (Vec::with_capacity(64), Vec::new());
                    for &index in chunk {
                        settle(index, &mut parents, &mut decided);
                    }
                    flush(&mut decided);
                    progress.advance(chunk.len() as u64);
                    frontier.fetch_add(chunk.len() as u64, Relaxed);
                });
            }
            None => {
                (0..tasks).into_par_iter().for_each(|task| {
                    if progress.cancelled() {
                        error.set(SolveError::Cancelled("cancelled".into()));
                        return;
                    }
                    let (mut parents, mut decided) = (Vec::with_capacity(64), Vec::new());
                    let mut n = 0;
                    for_each_with_code(table, task, code, |index, _| {
                        n += 1;
                        settle(index, &mut parents, &mut decided);
                        if decided.len() >= 4096 {
                            flush(&mut decided);
                        }
                    });
                    flush(&mut decided);
                    progress.advance(n);
                    frontier.fetch_add(n, Relaxed);
                });
            }
        }
        listed = listing.and_then(Listing::finish);
        let (settled, found) = if losses {
            ("losses", "wins")
        } else {
            ("wins", "losses")
        };
        let (from, decided) = (frontier.load(Relaxed), decided_now.load(Relaxed));
        if from > 0 {
            progress.note(&format!(
                "round {r}: from {from} {settled} in {r}, {decided} {found} in {} decided",
                r + 1,
            ));
        }
        if r >= 2 && frontier.load(Relaxed) == 0 {
            break;
        }
    }
    progress.end();
    error.take()
}
