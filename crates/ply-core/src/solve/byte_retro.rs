//! Retrograde analysis of a large loopy game over its whole index, in a
//! byte per stored key.
//!
//! For games whose index is too large for a cell of several bytes per
//! index (Dobutsu Shogi: 3.3 x 10^8 indices with mirror images folded and
//! the Lion placements the rules decide left out). No reach: every legal
//! position of the index is solved, those legal play reaches from the
//! start among them. A bit per index tells the stored keys apart
//! (a ranked bit set), and each stored key has its byte.
//!
//! The solve keeps one position of each class of symmetric positions (in
//! Dobutsu Shogi, a position and its left-right mirror image), its *key*:
//! [`crate::Symmetric::canonical_index`]. The class has one value, so every phase
//! below works on keys. A key stands for [`crate::Symmetric::class_size`]
//! positions; counts of positions weigh keys so.
//!
//! 1. **Count.** Each index is stored or not: not where it is no position,
//!    or not the key of its class, or where the mover wins at once
//!    ([`WinsAtOnce`]: the rules tell a win in 1 without storage). A stored
//!    key gets a byte, in index order, as it is counted: a
//!    position without moves is a loss in 0, one whose every move lets the
//!    opponent win at once a loss in 2, one with a move that ends play a
//!    win in 1 (a child where play is over need not be in the index), and
//!    every other position is undecided, its byte the number of its moves
//!    after which the opponent cannot win at once (at most 252). No child
//!    is ranked: the game tallies the moves ([`WinsAtOnce::tally_moves`]).
//! 2. **Rounds**, in order of remoteness `r`: the positions decided at `r`
//!    are un-moved ([`crate::Parents`]; only to the parents where the mover cannot
//!    win at once, [`WinsAtOnce::for_each_stored_parent`]: the others hold
//!    no byte) and the parents' keys taken (a key's
//!    parents' keys are its images' too, so one un-move does for the
//!    class); undecided parents of a loss become wins in `r + 1`, and each
//!    win counts its undecided parents down by the moves of the parent's
//!    key into the win's class, the last turning a parent into a loss in
//!    `r + 1`. A parent met by un-moving stands for one such move, or two
//!    when it is its own mirror image and the win is not (its moves to the
//!    win and to the win's image are mirror images); when the win is its
//!    own image, only the parent that is its class's key counts (each image
//!    of a parent has as many moves to the win). While solving, a byte is a counter (1
//!    to `C`) or a decided remoteness `C + 1 + r`, so counter and value
//!    share the byte as long as `C + 1 + r < 255` ([`NOT_STORED`] stays
//!    above both). Early rounds find their positions by scanning the
//!    bytes; once a round decides few enough, their indices are listed for
//!    the next round in index order. What is still undecided when a round
//!    decides nothing is a draw. A last pass turns the bytes into the
//!    table's encoding: 0 a draw, else 1 + remoteness (wins odd, losses
//!    even; up to 253).
//!
//! Memory: a byte per stored key, found through a bit per index
//! (a ranked bit set, 1.14 bits an index), and a bounded list of indices
//! while solving, checked against the memory available before each
//! allocation. In full Dobutsu Shogi 133 M of the 333 M indices are stored
//! keys: the bytes and bits take 180 MB where a byte per index took 333. The
//! reach ([`count_reached`]) counts what play from the start reaches,
//! without a solve.

use crate::census::Census;
use crate::db_error::DbError;
use crate::error::SolveError;
use crate::game::{Count, WinsAtOnce};
use crate::limits;
use crate::progress::Progress;
use crate::ranked::RankedBits;
use crate::solution::Keys;
use crate::solution::Solution;
use crate::solve::reach::IndexSet;
use crate::value::Cell;
use crate::value::{Outcome, Value};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};

/// The byte of a draw (and, while solving, of a position not yet decided).
const DRAW: u8 = 0;
/// Decided bytes are `DECIDED + remoteness`.
const DECIDED: u8 = 1;
/// What counting says of an index that holds nothing: no position, not
/// the key of its class, or a win at once (the rules tell it). No byte is
/// kept for it; every counter and decided byte lies below it.
pub const NOT_STORED: u8 = u8::MAX;
/// The largest remoteness a byte holds.
pub const MAX_REMOTENESS: u32 = 253;
/// The most moves (after which the opponent cannot win at once) a
/// position may have: its counter is a byte below [`COUNT_WIN_1`].
const MAX_CHILDREN: usize = 252;
/// While counting: a loss in 0 (no moves).
const COUNT_LOSS_0: u8 = 0;
/// While counting: a win in 1 by a move that ends play, where the game
/// calls no move a win at once (in Dobutsu Shogi, any move that leaves a
/// Lion already on the far rank safe there).
const COUNT_WIN_1: u8 = 253;
/// While counting: a loss in 2 (every move lets the opponent win at once).
const COUNT_LOSS_2: u8 = 254;

/// Indices handed to one parallel task.
const TASK_INDICES: u64 = 1 << 17;
/// Lines of the stored set ([`RankedBits`]) one counting task fills:
/// 28,672 indices.
const COUNT_TASK_LINES: usize = 64;
/// Counting tasks whose bytes are gathered at once, in index order: 7.3 M
/// indices, so a thread waits at most one small task for the other at the
/// end of each batch.
const COUNT_BATCH_TASKS: usize = 256;
/// The most indices listed for the next round (8 bytes each, 8 MiB); a
/// round deciding more is found by scanning the bytes instead. Two lists
/// live at once (the one read and the one filled), on top of the table: at
/// 4 Mi indices they took 64 of the full Dobutsu solve's 404 MB peak, while
/// a scan of its 133 MB of bytes costs a fraction of a CPU-second.
const LIST_CAP: u64 = 1 << 20;

/// About the most memory [`solve`] takes for `game`: the table
/// (`table_bytes`) and two lists of indices between rounds.
pub fn peak_bytes<G: WinsAtOnce>(game: &G) -> u64 {
    table_bytes(game.index_len(), estimate_stored(game)) + 2 * LIST_CAP * 8
}

/// The bytes of the table of an index of `len` with about `stored` keys
/// stored: the stored set's bits and a byte per stored key, with a quarter
/// to spare for the estimate.
fn table_bytes(len: u64, stored: u64) -> u64 {
    RankedBits::bytes(len) + (stored + stored / 4).min(len)
}

/// About how many keys of `game` are stored ([`is_stored`]), from indices
/// spread evenly over its index.
fn estimate_stored<G: WinsAtOnce>(game: &G) -> u64 {
    super::estimate_count(game.index_len(), |index| {
        game.unrank(index)
            .is_some_and(|position| is_stored(game, index, &position))
    })
}

/// Whether the position at `index` is a stored key: its class's key
/// ([`crate::Symmetric::canonical_index`]) and not a win at once (a
/// primitive position is stored: the rules end play there).
fn is_stored<G: WinsAtOnce>(game: &G, index: u64, position: &G::Position) -> bool {
    game.is_key(index, position)
        && (game.primitive(position).is_some() || !game.wins_at_once(position))
}

/// Refuses to allocate `bytes` for `what` when the system has less free.
fn check_memory(bytes: u64, what: &str) -> Result<(), SolveError> {
    limits::check_memory(what, bytes).map_err(SolveError::TooLarge)
}

/// The solution: a byte per stored key, with counts of what was not
/// stored.
pub struct ByteTable {
    /// The stored keys, numbered: key `k`'s byte is `cells[keys.slot(k)]`.
    keys: RankedBits,
    /// A byte per stored key, in index order.
    cells: Vec<AtomicU8>,
    /// How many keys are stored.
    stored: u64,
    /// How many symmetries the game has: the size of most classes.
    group: u64,
    /// The stored keys whose class is smaller than [`ByteTable::group`]
    /// (a position that is its own mirror image), in order, with their
    /// class sizes.
    small: Vec<(u64, u64)>,
    /// Positions of the index where the mover wins at once (not stored).
    wins_at_once: u64,
    /// Their keys (classes once).
    wins_at_once_keys: u64,
    /// The smallest key of such a position, if any.
    win_example: Option<u64>,
}

impl ByteTable {
    /// The size of the game's index.
    pub fn index_len(&self) -> u64 {
        self.keys.len()
    }

    /// How many positions the solve answers, stored or a win at once,
    /// symmetric images counted apart: every legal position of the index
    /// (those play from the start reaches among them).
    pub fn positions(&self) -> u64 {
        self.stored_positions() + self.wins_at_once
    }

    /// How many keys are stored: one for each class where the mover cannot
    /// win at once.
    pub fn stored(&self) -> u64 {
        self.stored
    }

    /// Bytes the table holds: its bit per index and its byte per stored
    /// key.
    pub fn bytes(&self) -> u64 {
        RankedBits::bytes(self.index_len()) + self.cells.len() as u64
    }

    /// How many positions the stored keys stand for.
    pub fn stored_positions(&self) -> u64 {
        positions_of_keys(self.stored, &self.small, self.group)
    }

    /// How many positions the stored key `key` stands for.
    fn weight(&self, key: u64) -> u64 {
        match self.small.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => self.small[i].1,
            Err(_) => self.group,
        }
    }

    /// How many positions of the index the mover wins at once (a win in 1
    /// known from the rules, not stored).
    pub fn wins_at_once(&self) -> u64 {
        self.wins_at_once
    }

    /// The positions answered, counted up to symmetry (a position and its
    /// mirror image once): the stored ones, then the wins at once; `None`
    /// when the game has no symmetry.
    pub fn classes(&self) -> Option<[u64; 2]> {
        (self.group > 1).then_some([self.stored, self.wins_at_once_keys])
    }

    /// Whether the key `index` is stored (a position, the key of its
    /// class, and the mover cannot win at once).
    pub fn contains(&self, index: u64) -> bool {
        self.byte(index).is_some()
    }

    /// The byte of a stored index.
    #[inline]
    fn byte(&self, index: u64) -> Option<u8> {
        self.cell(index).map(|cell| cell.load(Relaxed))
    }

    /// Where the byte of a stored index lives.
    #[inline]
    fn cell(&self, index: u64) -> Option<&AtomicU8> {
        self.keys.slot(index).map(|slot| &self.cells[slot])
    }

    /// The outcome of the positions with key `index`, if it is stored
    /// (wins at once are not: ask the rules).
    pub fn outcome_at(&self, index: u64) -> Option<Outcome> {
        self.byte(index).map(decode)
    }

    /// The outcome of `position` for the player to move, if it is stored.
    pub fn outcome<G: WinsAtOnce>(&self, game: &G, position: &G::Position) -> Option<Outcome> {
        self.outcome_at(game.canonical_index(position))
    }

    /// Counts the positions answered (wins at once included, symmetric
    /// images apart) by value and remoteness, with keys as examples of the
    /// longest win and loss.
    pub fn census(&self) -> Census<u64> {
        let mut census = self.census_weighing(|index| self.weight(index));
        let example = self.win_example.unwrap_or(0);
        census.add_many(Outcome::win(1), self.wins_at_once, || example);
        census
    }

    /// Counts the stored keys by value and remoteness, one each: the
    /// census of the cells of a database of the table.
    pub fn key_census(&self) -> Census<u64> {
        self.census_weighing(|_| 1)
    }

    /// Counts the stored keys, key `index` standing for `weight(index)`
    /// positions.
    fn census_weighing(&self, weight: impl Fn(u64) -> u64 + Sync) -> Census<u64> {
        task_ranges(self.index_len())
            .into_par_iter()
            .fold(Census::new, |mut census, range| {
                self.keys.for_each_in(range, |index, slot| {
                    let byte = self.cells[slot].load(Relaxed);
                    census.add_many(decode(byte), weight(index), || index);
                });
                census
            })
            .reduce(Census::new, Census::merge)
    }
}

/// The stored keys as a [`Solution`] keyed by index; indices not stored
/// (no position, a win at once, or not the key of their class) hold
/// [`Cell::UNKNOWN`].
impl Solution for ByteTable {
    fn keys(&self) -> Keys {
        Keys::Index
    }

    fn index_len(&self) -> u64 {
        ByteTable::index_len(self)
    }

    fn cell(&self, key: u64) -> Result<Cell, DbError> {
        Ok(self.outcome_at(key).map_or(Cell::UNKNOWN, Cell::pack))
    }

    fn for_each_cell(
        &self,
        range: Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), DbError> {
        self.keys.for_each_in(range, |index, slot| {
            visit(index, Cell::pack(decode(self.cells[slot].load(Relaxed))));
        });
        Ok(())
    }
}

/// The outcome a byte (not [`NOT_STORED`]) holds.
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

/// The index ranges of the parallel tasks over an index of `len`.
fn task_ranges(len: u64) -> Vec<Range<u64>> {
    (0..len.div_ceil(TASK_INDICES))
        .map(|task| task * TASK_INDICES..((task + 1) * TASK_INDICES).min(len))
        .collect()
}

/// The bit-set words per parallel task of the reach.
const REACH_TASK_WORDS: usize = 2048;

/// What the reach found: the keys reached where the mover cannot win at
/// once, and counts of the rest.
struct Reach {
    /// Keys reached and not a win at once.
    stored: IndexSet,
    /// How many symmetries the game has.
    group: u64,
    /// Those keys of classes smaller than the group, with their sizes.
    small: Vec<(u64, u64)>,
    /// Positions, then keys, where the mover wins at once (or play stops).
    wins_at_once: [u64; 2],
}

/// How many symmetric images the start has: the size of most classes.
fn group_of<G: WinsAtOnce>(game: &G) -> u64 {
    let mut group = 0;
    game.for_each_symmetric(&game.start(), |_| group += 1);
    group
}

/// Solves every position of the game's index (every key, see the module
/// documentation), those `game.start()` reaches by legal play among them.
pub fn solve<G: WinsAtOnce>(game: &G, progress: &dyn Progress) -> Result<ByteTable, SolveError> {
    let len = game.index_len();
    if game.canonical_index(&game.start()) >= len {
        return Err(SolveError::Unsupported(
            "the start position is outside the index".into(),
        ));
    }
    let group = group_of(game);
    if group > 2 {
        return Err(SolveError::Unsupported(format!(
            "{group} symmetries: the byte solver counts moves into a class for at most two"
        )));
    }
    let stored = estimate_stored(game);
    check_memory(table_bytes(len, stored), "a byte per stored key")?;
    let mut table = ByteTable {
        keys: RankedBits::empty(len),
        cells: Vec::with_capacity((stored + stored / 8).min(len) as usize),
        stored: 0,
        group,
        small: Vec::new(),
        wins_at_once: 0,
        wins_at_once_keys: 0,
        win_example: None,
    };
    let widest = count_moves(game, &mut table, progress)?;
    if widest + 3 >= usize::from(NOT_STORED) {
        return Err(SolveError::Overflow(format!(
            "a position with {widest} distinct moves leaves no byte for its value"
        )));
    }
    // Decided bytes start above the widest counter.
    let base = widest as u8 + 1;
    table
        .cells
        .par_iter()
        .for_each(|cell| match cell.load(Relaxed) {
            COUNT_LOSS_0 => cell.store(base, Relaxed),
            COUNT_WIN_1 => cell.store(base + 1, Relaxed),
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

/// How many positions the start reaches by legal play when play also stops
/// at the positions `stops` names (counted, not expanded): the positions,
/// symmetric images apart, then the keys (classes once), then the
/// positions among them where the mover wins at once or `stops` stops
/// play (symmetric images apart). Play stops only
/// at primitive positions otherwise: a player who could win at once and
/// plays something else keeps the game going. Other conventions for what
/// counts as reached (Dobutsu Shogi's published count stops at catches)
/// are counted this way without a solve.
pub fn count_reached<G: WinsAtOnce>(
    game: &G,
    stops: impl Fn(&G::Position) -> bool + Sync,
    progress: &dyn Progress,
) -> Result<[u64; 3], SolveError> {
    let reach = reach(game, &stops, progress)?;
    let stored = reach.stored.count();
    let stored_positions = positions_of_keys(stored, &reach.small, reach.group);
    let [stopped_positions, stopped_keys] = reach.wins_at_once;
    Ok([
        stored_positions + stopped_positions,
        stored + stopped_keys,
        stopped_positions,
    ])
}

/// How many positions `keys` stored keys stand for: `small` of them their
/// class sizes, every other key `group`.
fn positions_of_keys(keys: u64, small: &[(u64, u64)], group: u64) -> u64 {
    group * keys - small.iter().map(|&(_, size)| group - size).sum::<u64>()
}

/// The reached keys where the mover cannot win at once, and counts of the
/// rest: bit sets "seen" and "expanded" over the index; each pass expands,
/// in parallel and in index order, every key seen but not yet expanded,
/// until a pass finds none. Play stops at primitive positions and at the
/// positions `stops` names (counted with the wins at once, not expanded);
/// wins at once are counted and expanded.
fn reach<G: WinsAtOnce>(
    game: &G,
    stops: &(dyn Fn(&G::Position) -> bool + Sync),
    progress: &dyn Progress,
) -> Result<Reach, SolveError> {
    let len = game.index_len();
    check_memory(3 * len.div_ceil(64) * 8, "reaching the positions")?;
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
    let group = group_of(game);
    // Wins at once: positions, then keys.
    let at_once_counts = [AtomicU64::new(0), AtomicU64::new(0)];
    let small = Mutex::new(Vec::new());
    for pass in 1.. {
        progress.begin(&format!("reaching (pass {pass})"), 0);
        let done = AtomicU64::new(0);
        (0..words.div_ceil(REACH_TASK_WORDS))
            .into_par_iter()
            .for_each(|task| {
                if cancelled.load(Relaxed) || progress.cancelled() {
                    cancelled.store(true, Relaxed);
                    return;
                }
                let (mut n, mut counted, mut ones) = (0, [0u64; 2], Vec::new());
                let end = ((task + 1) * REACH_TASK_WORDS).min(words);
                for word in task * REACH_TASK_WORDS..end {
                    let todo =
                        seen.words()[word].load(Relaxed) & !expanded.words()[word].load(Relaxed);
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
    let mut small = small.into_inner().unwrap_or_default();
    small.par_sort_unstable();
    Ok(Reach {
        stored: seen,
        group,
        small,
        wins_at_once: at_once_counts.map(AtomicU64::into_inner),
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

    /// The error set so far, if any, leaving none behind.
    fn take_ref(&self) -> Result<(), SolveError> {
        match self.0.lock().ok().and_then(|mut slot| slot.take()) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// What one counting task found besides the bytes it wrote.
#[derive(Default)]
struct Tally {
    stored: u64,
    small: Vec<(u64, u64)>,
    wins_at_once: [u64; 2],
    win_example: Option<u64>,
    widest: usize,
}

/// Phase 1: which indices are stored keys, and each stored key's byte: a
/// loss in 0 or 2 or a win in 1 ([`COUNT_LOSS_0`], [`COUNT_LOSS_2`],
/// [`COUNT_WIN_1`]) or the count of moves after which the opponent cannot win at once; and
/// the table's counts. Tasks count whole lines of the stored set in
/// parallel; their bytes are appended in index order, a batch at a time.
/// Returns the widest count.
fn count_moves<G: WinsAtOnce>(
    game: &G,
    table: &mut ByteTable,
    progress: &dyn Progress,
) -> Result<usize, SolveError> {
    let len = table.index_len();
    progress.begin("counting moves", len);
    let error = FirstError(Default::default());
    let group = table.group;
    let lines = table.keys.lines();
    let batch = COUNT_TASK_LINES * COUNT_BATCH_TASKS;
    let mut widest = 1;
    for first in (0..lines).step_by(batch) {
        let found: Vec<(Tally, Vec<u8>)> = table
            .keys
            .marks(first..lines.min(first + batch), COUNT_TASK_LINES)
            .map(|mut marks| {
                let (mut tally, mut bytes) = (Tally::default(), Vec::new());
                if progress.cancelled() {
                    error.set(SolveError::Cancelled("cancelled".into()));
                    return (tally, bytes);
                }
                let range = marks.range();
                game.for_each_unranked(range.clone(), |index, position| {
                    let byte = count_one(game, index, position, &mut tally, group, &error);
                    if byte != NOT_STORED {
                        marks.set(index);
                        bytes.push(byte);
                    }
                });
                progress.advance(range.end - range.start);
                (tally, bytes)
            })
            .collect();
        error.take_ref()?;
        let more: usize = found.iter().map(|(_, bytes)| bytes.len()).sum();
        if table.cells.len() + more > table.cells.capacity() {
            check_memory(2 * table.cells.capacity() as u64, "a byte per stored key")?;
        }
        for (tally, bytes) in found {
            table.cells.extend(bytes.into_iter().map(AtomicU8::new));
            table.stored += tally.stored;
            table.small.extend(tally.small);
            table.wins_at_once += tally.wins_at_once[0];
            table.wins_at_once_keys += tally.wins_at_once[1];
            table.win_example = table.win_example.or(tally.win_example);
            widest = widest.max(tally.widest);
        }
    }
    progress.end();
    table.keys.number();
    table.cells.shrink_to_fit();
    Ok(widest)
}

/// The counting byte of one index, its counts added to `tally`.
fn count_one<G: WinsAtOnce>(
    game: &G,
    index: u64,
    position: &G::Position,
    tally: &mut Tally,
    group: u64,
    error: &FirstError,
) -> u8 {
    let Some(weight) = game.key_size(index, position) else {
        return NOT_STORED;
    };
    let byte = match game.count(position) {
        Count::Over(Value::Lose) => COUNT_LOSS_0,
        Count::Over(value) => {
            error.set(SolveError::Unsupported(format!(
                "a primitive {value}: only losses for the mover are supported"
            )));
            return NOT_STORED;
        }
        Count::WinsAtOnce => {
            tally.wins_at_once[0] += weight;
            tally.wins_at_once[1] += 1;
            tally.win_example.get_or_insert(index);
            return NOT_STORED;
        }
        Count::Goes(moves) => {
            if moves.other_end {
                error.set(SolveError::Unsupported(
                    "a move that ends play other than with the mover's win: only those are supported"
                        .into(),
                ));
            }
            match moves.open as usize {
                _ if moves.ends => COUNT_WIN_1,
                0 if moves.moves == 0 => COUNT_LOSS_0,
                0 => COUNT_LOSS_2,
                k if k <= MAX_CHILDREN => {
                    tally.widest = tally.widest.max(k);
                    k as u8
                }
                k => {
                    error.set(SolveError::Overflow(format!(
                        "position {index} has {k} moves, more than a byte counts"
                    )));
                    return NOT_STORED;
                }
            }
        }
    };
    tally.stored += 1;
    if weight < group {
        tally.small.push((index, weight));
    }
    byte
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
    let ranges = task_ranges(table.index_len());
    progress.begin("deciding, round by round", table.stored());
    let error = FirstError(Default::default());
    // Decided bytes stay below NOT_STORED.
    let most = u32::from(NOT_STORED - 1 - base).min(MAX_REMOTENESS);
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
        // The parents' places are found and their bytes read before any
        // is changed: the loads of a batch overlap, where each atomic
        // exchange would otherwise wait for the next parent's load.
        let settle =
            |index: u64,
             position: &G::Position,
             parents: &mut Vec<(u64, u8)>,
             found: &mut Vec<(u64, usize, u8, u8)>,
             decided: &mut Vec<u64>|
             -> u64 {
                parents.clear();
                game.for_each_stored_parent_class(index, position, !losses, |parent, moves| {
                    parents.push((parent, moves))
                });
                found.clear();
                // An index not stored has no byte.
                found.extend(parents.iter().filter_map(|&(parent, moves)| {
                    Some((parent, table.keys.slot(parent)?, moves, 0))
                }));
                for (_, slot, _, byte) in found.iter_mut() {
                    *byte = table.cells[*slot].load(Relaxed);
                }
                let mut newly = 0;
                for &(parent, slot, moves, byte) in found.iter() {
                    let cell = &table.cells[slot];
                    let mut byte = byte;
                    // A round's frontier is all losses (even r) or all wins
                    // (odd r): a parent of a loss wins; a parent whose last
                    // undecided move led to a win loses.
                    while byte != DRAW && byte < base {
                        let becomes = if losses || byte == moves {
                            match next {
                                Some(next) => next,
                                None => {
                                    error.set(SolveError::Overflow(format!(
                                        "a remoteness above {most}"
                                    )));
                                    return newly;
                                }
                            }
                        } else if byte > moves {
                            byte - moves
                        } else {
                            error.set(SolveError::Unsupported(format!(
                            "position {parent} has more moves to position {index} than it counted: \
                             its un-moves are not its moves reversed"
                        )));
                            return newly;
                        };
                        match cell.compare_exchange_weak(byte, becomes, Relaxed, Relaxed) {
                            Ok(_) => {
                                if becomes >= base {
                                    if listing.is_some() {
                                        decided.push(parent);
                                    }
                                    newly += 1;
                                }
                                break;
                            }
                            Err(now) => byte = now,
                        }
                    }
                }
                newly
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
                    let (mut parents, mut found, mut decided) =
                        (Vec::with_capacity(64), Vec::with_capacity(64), Vec::new());
                    let mut newly = 0;
                    game.for_each_unranked_of(chunk.iter().copied(), |index, position| {
                        newly += settle(index, position, &mut parents, &mut found, &mut decided);
                    });
                    decided_now.fetch_add(newly, Relaxed);
                    flush(&mut decided);
                    progress.advance(chunk.len() as u64);
                    frontier.fetch_add(chunk.len() as u64, Relaxed);
                });
            }
            None => {
                ranges.par_iter().for_each(|range| {
                    if progress.cancelled() {
                        error.set(SolveError::Cancelled("cancelled".into()));
                        return;
                    }
                    let (mut parents, mut found, mut decided) =
                        (Vec::with_capacity(64), Vec::with_capacity(64), Vec::new());
                    let mut here = Vec::new();
                    table.keys.for_each_in(range.clone(), |index, slot| {
                        if table.cells[slot].load(Relaxed) == code {
                            here.push(index);
                        }
                    });
                    let (n, mut newly) = (here.len() as u64, 0);
                    game.for_each_unranked_of(here, |index, position| {
                        newly += settle(index, position, &mut parents, &mut found, &mut decided);
                        if decided.len() >= 4096 {
                            flush(&mut decided);
                        }
                    });
                    flush(&mut decided);
                    decided_now.fetch_add(newly, Relaxed);
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
