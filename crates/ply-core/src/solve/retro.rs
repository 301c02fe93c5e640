//! Retrograde analysis: strongly solves a game with a dense index, cycles
//! and all, by working back from the ends of play.
//!
//! Every position gets a counter of its undecided children. Positions are
//! decided frontier by frontier in order of remoteness: the primitive
//! positions first (remoteness 0), then every parent of a loss becomes a win
//! one ply longer, and a parent whose last undecided child has just turned
//! out a win becomes a loss one ply longer. Deciding in this order makes the
//! remoteness exact: the fastest win and the slowest loss. Ties spread the
//! same way in a second sweep over what is left (the fastest tie), and
//! whatever is still undecided then is a draw: neither side can force an end.
//!
//! Children are counted once per distinct child, and parents found either
//! from the game's un-moves ([`Parents`]: no reverse graph is stored) or from
//! a compact reverse graph built once from the moves (offsets and one array
//! of parents, CSR). With symmetry reduction only one position per class is
//! solved, its children and parents folded onto their classes; the other
//! positions copy their class's cell at the end. Each frontier is a bit set,
//! processed in parallel in index order.
//!
//! Memory: a 2-byte [`Cell`] per position, a counter of 1, 2 or 4 bytes (the
//! narrowest that holds the largest number of children), three frontier
//! bits, and the reverse graph (a slot per position and per move, plus the
//! moves kept while it is built) when the game has no parents. Slots are
//! 4 bytes while the index fits `u32`, and 8 bytes beyond it. An analysis
//! needing more memory than /proc/meminfo says is available is refused
//! before any work starts (the reverse graph is checked again once its
//! moves are counted). The analysis polls
//! [`Progress::cancelled`] between chunks and between remoteness layers.

use super::reach::IndexSet;
use super::rule::{self, Ply, Sweep};
use super::{CHUNK, chunks};
use crate::census::Census;
use crate::error::SolveError;
use crate::game::{Indexed, Parents, Symmetric};
use crate::limits::{self, TooLarge};
use crate::progress::Progress;
use crate::value::{Cell, Outcome, Remoteness, Value};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};

/// A slot number as the tables store it: `u32` while the index fits it
/// (half the memory), `u64` beyond.
trait Slot: Copy + Eq + Ord + Send + Sync + 'static {
    /// The largest number a slot holds; also bounds the moves a reverse
    /// graph of such slots holds.
    const MAX: u64;
    /// The slot of `index` (at most [`Slot::MAX`]).
    fn from_index(index: u64) -> Self;
    /// The index of the slot.
    fn index(self) -> u64;
    /// The index of the slot, to index a table with.
    #[inline(always)]
    fn at(self) -> usize {
        self.index() as usize
    }
}

impl Slot for u32 {
    const MAX: u64 = u32::MAX as u64;
    #[inline(always)]
    fn from_index(index: u64) -> Self {
        index as u32
    }
    #[inline(always)]
    fn index(self) -> u64 {
        u64::from(self)
    }
}

impl Slot for u64 {
    const MAX: u64 = u64::MAX;
    #[inline(always)]
    fn from_index(index: u64) -> Self {
        index
    }
    #[inline(always)]
    fn index(self) -> u64 {
        self
    }
}

/// The strong solution of a game: one [`Cell`] per index.
#[derive(Clone, Debug)]
pub struct RetroTable {
    cells: Vec<Cell>,
    solved: u64,
    moves: u64,
}

impl RetroTable {
    /// The size of the index the table covers.
    pub fn len(&self) -> u64 {
        self.cells.len() as u64
    }

    /// Whether the table covers no index at all.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cell at `index`: [`Cell::UNKNOWN`] where no position has that index.
    pub fn cell(&self, index: u64) -> Cell {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.cells.get(i))
            .copied()
            .unwrap_or(Cell::UNKNOWN)
    }

    /// The outcome of the position with index `index`, if there is one.
    pub fn outcome_at(&self, index: u64) -> Option<Outcome> {
        self.cell(index).unpack()
    }

    /// The outcome of `position` for the player to move, if `game` is the
    /// game the table was built for.
    pub fn outcome<G: Indexed>(&self, game: &G, position: &G::Position) -> Option<Outcome> {
        self.outcome_at(game.rank(position))
    }

    /// How many positions were solved directly: every position, or one per
    /// symmetry class with symmetry reduction.
    pub fn solved_positions(&self) -> u64 {
        self.solved
    }

    /// How many distinct moves the directly solved positions have (with
    /// symmetry reduction, moves to the same class count once).
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Counts the positions with an index in `indices`, with indices as
    /// examples of the longest win and loss.
    pub fn census(&self, indices: Range<u64>) -> Census<u64> {
        self.census_where(indices, |_| true)
    }

    /// Counts the positions with an index in `indices` for which `include`
    /// holds, with indices as examples of the longest win and loss.
    pub fn census_where(
        &self,
        indices: Range<u64>,
        include: impl Fn(u64) -> bool + Sync,
    ) -> Census<u64> {
        let end = indices.end.min(self.len());
        (indices.start.min(end)..end)
            .into_par_iter()
            .fold(Census::new, |mut census, index| {
                if let Some(outcome) = self.outcome_at(index).filter(|_| include(index)) {
                    census.add(outcome, || index);
                }
                census
            })
            .reduce(Census::new, Census::merge)
    }
}

/// A game with a dense index that retrograde analysis solves whole: the
/// capabilities it offers the analysis, and what `ply analyze` says about
/// it beyond the counts. [`solve_all`] picks the method from the
/// capabilities; the game never names one.
///
/// ```
/// use ply_core::solve::retro::{self, BySymmetry, FromMoves, Retrograde};
/// # use ply_core::{Game, Indexed, PositionError, Symmetric, Value, NoProgress};
/// # #[derive(Clone, Copy)] struct Ring;
/// # impl Game for Ring {
/// #     type Position = u8; type Move = u8;
/// #     fn name(&self) -> String { "ring".into() }
/// #     fn start(&self) -> u8 { 0 }
/// #     fn primitive(&self, p: &u8) -> Option<Value> { (*p == 3).then_some(Value::Lose) }
/// #     fn for_each_move(&self, p: &u8, mut visit: impl FnMut(u8, u8)) {
/// #         visit(1, (p + 1) % 4); if *p == 0 { visit(2, 2) } }
/// #     fn parse_position(&self, t: &str) -> Result<u8, PositionError> {
/// #         t.parse().map_err(|_| PositionError::new("a number")) }
/// #     fn format_position(&self, p: &u8) -> String { p.to_string() }
/// #     fn format_move(&self, _: &u8, m: u8) -> String { m.to_string() }
/// # }
/// # impl Indexed for Ring {
/// #     fn index_len(&self) -> u64 { 4 }
/// #     fn rank(&self, p: &u8) -> u64 { u64::from(*p) }
/// #     fn unrank(&self, i: u64) -> Option<u8> { (i < 4).then_some(i as u8) }
/// # }
/// # impl Symmetric for Ring {
/// #     fn for_each_symmetric(&self, p: &u8, mut visit: impl FnMut(u8)) { visit(*p) }
/// # }
/// // A game with symmetries but no un-moves: classes are solved once each,
/// // over a reverse graph built from the moves.
/// impl Retrograde for Ring {
///     type Folding = BySymmetry;
///     type Parents = FromMoves;
/// }
/// let table = retro::solve_all(&Ring, &NoProgress).unwrap();
/// assert_eq!(table.outcome_at(2).map(|o| o.value), Some(Value::Win));
/// ```
pub trait Retrograde: Indexed + Sized {
    /// How positions share slots: [`Unfolded`], or [`BySymmetry`] for a
    /// game with symmetries.
    type Folding: Folding<Self>;
    /// Where parents come from: [`FromMoves`], or [`FromUnmoves`] for a
    /// game with un-moves.
    type Parents: ParentRule<Self>;

    /// The indices `ply analyze` counts, and what they are.
    fn counted(&self) -> (Range<u64>, &'static str) {
        (0..self.index_len(), "every position")
    }

    /// Facts beyond the counts for `ply analyze`, by name.
    fn facts(&self, _table: &RetroTable, _progress: &dyn Progress) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Solves every position of `game` with the capabilities it offers (see
/// [`Retrograde`]).
pub fn solve_all<G: Retrograde>(
    game: &G,
    progress: &dyn Progress,
) -> Result<RetroTable, SolveError> {
    solve_keyed(
        game,
        &G::Folding::default(),
        &G::Parents::default(),
        progress,
    )
}

/// Solves every position of `game`, building a reverse graph from its moves.
pub fn solve<G: Indexed>(game: &G, progress: &dyn Progress) -> Result<RetroTable, SolveError> {
    solve_keyed(game, &Unfolded, &FromMoves, progress)
}

/// Solves one position per symmetry class of `game` and copies each class's
/// cell to the rest, building a reverse graph between classes.
pub fn solve_symmetric<G: Indexed + Symmetric>(
    game: &G,
    progress: &dyn Progress,
) -> Result<RetroTable, SolveError> {
    solve_keyed(game, &BySymmetry, &FromMoves, progress)
}

/// Solves every position of `game`, finding parents by un-moves.
pub fn solve_with_parents<G: Indexed + Parents>(
    game: &G,
    progress: &dyn Progress,
) -> Result<RetroTable, SolveError> {
    solve_keyed(game, &Unfolded, &FromUnmoves, progress)
}

/// Solves one position per symmetry class of `game`, finding parents by
/// un-moves, and copies each class's cell to the rest.
pub fn solve_symmetric_with_parents<G: Indexed + Parents + Symmetric>(
    game: &G,
    progress: &dyn Progress,
) -> Result<RetroTable, SolveError> {
    solve_keyed(game, &BySymmetry, &FromUnmoves, progress)
}

/// How a game's positions share table slots in retrograde analysis: each in
/// its own ([`Unfolded`]), or each symmetry class in one ([`BySymmetry`]).
pub trait Folding<G: Indexed>: Default + Sync {
    /// Whether positions are folded onto symmetry classes.
    const REDUCED: bool;
    /// The slot of `position`: its own index, or its class's.
    fn key(&self, game: &G, position: &G::Position) -> u64;
    /// Calls `visit` with the index of every position that shares the slot
    /// of `position`: its symmetric images, or itself alone.
    fn for_each_image(&self, game: &G, position: &G::Position, visit: impl FnMut(u64));
}

/// Every position in its own slot: for any game with an index.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unfolded;

impl<G: Indexed> Folding<G> for Unfolded {
    const REDUCED: bool = false;
    #[inline(always)]
    fn key(&self, game: &G, position: &G::Position) -> u64 {
        game.rank(position)
    }
    fn for_each_image(&self, game: &G, position: &G::Position, mut visit: impl FnMut(u64)) {
        visit(game.rank(position));
    }
}

/// Every position in its canonical representative's slot: for a game with
/// symmetries ([`Symmetric`]), whose classes are solved once each.
#[derive(Clone, Copy, Debug, Default)]
pub struct BySymmetry;

impl<G: Indexed + Symmetric> Folding<G> for BySymmetry {
    const REDUCED: bool = true;
    #[inline(always)]
    fn key(&self, game: &G, position: &G::Position) -> u64 {
        game.canonical_index(position)
    }
    fn for_each_image(&self, game: &G, position: &G::Position, mut visit: impl FnMut(u64)) {
        game.for_each_symmetric(position, |image| visit(game.rank(&image)));
    }
}

/// Where retrograde analysis finds the parents of a decided position: a
/// reverse graph it builds from the moves ([`FromMoves`]), or the game's
/// un-moves ([`FromUnmoves`]).
pub trait ParentRule<G: Indexed>: Default + Sync {
    /// Whether a reverse graph is built from the moves (and read instead
    /// of [`ParentRule::for_each_parent`]).
    const STORED: bool;
    /// Calls `visit` with every parent of `position` the rule generates.
    fn for_each_parent(&self, game: &G, position: &G::Position, visit: impl FnMut(G::Position));
}

/// Parents read from a reverse graph built from the moves: for any game
/// with an index, at a slot per position and per move.
#[derive(Clone, Copy, Debug, Default)]
pub struct FromMoves;

impl<G: Indexed> ParentRule<G> for FromMoves {
    const STORED: bool = true;
    /// Generates none: the analysis reads them from the graph it built.
    fn for_each_parent(&self, _game: &G, _position: &G::Position, _visit: impl FnMut(G::Position)) {
    }
}

/// Parents generated by the game's un-moves ([`Parents`]): no graph stored.
#[derive(Clone, Copy, Debug, Default)]
pub struct FromUnmoves;

impl<G: Indexed + Parents> ParentRule<G> for FromUnmoves {
    const STORED: bool = false;
    #[inline(always)]
    fn for_each_parent(&self, game: &G, position: &G::Position, visit: impl FnMut(G::Position)) {
        game.for_each_parent(position, visit);
    }
}

/// Keeps the first of equal slots in `slots`, in order. Short lists (most
/// games have a few moves per position) are compared pairwise, first
/// without branches to find out whether anything repeats at all; longer
/// ones go through a small hash set on the stack; the longest are sorted.
/// Keeps the first of equal indices in `indices`, in order (the
/// distributed solver's lists of children and parents).
#[cfg(feature = "dist")]
pub(crate) fn remove_duplicate_indices(indices: &mut Vec<u64>) {
    remove_duplicates(indices);
}

fn remove_duplicates<S: Slot>(slots: &mut Vec<S>) {
    match slots.len() {
        0..=24 => remove_duplicates_pairwise(slots),
        25..=HASHED_MAX => remove_duplicates_hashed(slots),
        _ => {
            slots.sort_unstable();
            slots.dedup();
        }
    }
}

fn remove_duplicates_pairwise<S: Slot>(slots: &mut Vec<S>) {
    let repeats = (1..slots.len()).fold(false, |found, i| {
        found
            | slots[..i]
                .iter()
                .fold(false, |seen, &slot| seen | (slot == slots[i]))
    });
    if !repeats {
        return;
    }
    let mut kept = 0;
    for i in 0..slots.len() {
        let slot = slots[i];
        if !slots[..kept].contains(&slot) {
            slots[kept] = slot;
            kept += 1;
        }
    }
    slots.truncate(kept);
}

/// The longest list [`remove_duplicates_hashed`] takes: its table stays at
/// most half full.
const HASHED_MAX: usize = 128;

fn remove_duplicates_hashed<S: Slot>(slots: &mut Vec<S>) {
    // No slot is u64::MAX: indexes are below it.
    const EMPTY: u64 = u64::MAX;
    let mut table = [EMPTY; 2 * HASHED_MAX];
    let mut kept = 0;
    for i in 0..slots.len() {
        let slot = slots[i];
        let key = slot.index();
        let mut place = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        loop {
            if table[place] == EMPTY {
                table[place] = key;
                slots[kept] = slot;
                kept += 1;
                break;
            }
            if table[place] == key {
                break;
            }
            place = (place + 1) % table.len();
        }
    }
    slots.truncate(kept);
}

/// A counter of undecided children, as narrow as the game allows.
trait Counter: Send + Sync + Sized + bytemuck::Zeroable {
    /// The largest count it holds.
    const MAX: usize;
    /// Stores `count` (at most [`Counter::MAX`]).
    fn set(&self, count: usize);
    /// Counts one child down, returning the count before.
    fn decrement(&self) -> usize;
    /// The current count.
    fn get(&self) -> usize;
}

macro_rules! counter {
    ($atomic:ty, $int:ty) => {
        impl Counter for $atomic {
            const MAX: usize = <$int>::MAX as usize;
            fn set(&self, count: usize) {
                self.store(count as $int, Ordering::Relaxed);
            }
            fn decrement(&self) -> usize {
                self.fetch_sub(1, Ordering::Relaxed) as usize
            }
            fn get(&self) -> usize {
                self.load(Ordering::Relaxed) as usize
            }
        }
    };
}

counter!(AtomicU8, u8);
counter!(AtomicU16, u16);
counter!(AtomicU32, u32);

/// Parents of each slot, in one array cut by offsets (CSR).
struct ReverseGraph<S> {
    offsets: Vec<S>,
    parents: Vec<S>,
}

impl<S: Slot> ReverseGraph<S> {
    fn parents_of(&self, child: S) -> &[S] {
        let child = child.at();
        &self.parents[self.offsets[child].at()..self.offsets[child + 1].at()]
    }
}

/// What the first pass over the index finds.
struct Seeds<S> {
    /// Slots decided at remoteness 0.
    ends: u64,
    /// Slots solved directly.
    solved: u64,
    /// Distinct moves from them.
    moves: u64,
    /// If a reverse graph is to be built, the moves, one list per chunk of
    /// records: a slot, its number of children, then their slots.
    forward: Vec<Vec<S>>,
    /// Slots with more children than the counters hold, and how many.
    wide: Vec<(usize, usize)>,
}

impl<S> Default for Seeds<S> {
    fn default() -> Self {
        Self {
            ends: 0,
            solved: 0,
            moves: 0,
            forward: Vec::new(),
            wide: Vec::new(),
        }
    }
}

impl<S> Seeds<S> {
    fn merge(mut self, mut other: Self) -> Self {
        self.ends += other.ends;
        self.solved += other.solved;
        self.moves += other.moves;
        self.forward.append(&mut other.forward);
        self.wide.append(&mut other.wide);
        self
    }
}

/// Calls `visit(parent, child)` for every move kept by the first pass
/// whose child is in `children`, in the order the first pass kept them.
fn for_each_move_kept<S: Slot>(
    forward: &[Vec<S>],
    children: Range<usize>,
    mut visit: impl FnMut(S, usize),
) {
    for records in forward {
        let mut rest = &records[..];
        while let [parent, count, tail @ ..] = rest {
            let (kids, tail) = tail.split_at(count.at());
            for &child in kids {
                if children.contains(&child.at()) {
                    visit(*parent, child.at());
                }
            }
            rest = tail;
        }
    }
}

/// The value a decided cell holds ([`Value::Draw`] for an undecided one,
/// which no parent hears of).
#[inline(always)]
fn value(cell: Cell) -> Value {
    cell.unpack().map_or(Value::Draw, |outcome| outcome.value)
}

/// A parent's slot in the working tables, as [`rule::hear`] decides it: a
/// cell, and a counter of undecided children counted down atomically.
struct Slotted<'w, 'a, G, K, P, C, S> {
    work: &'w Work<'a, G, K, P, C, S>,
    slot: S,
}

impl<G: Indexed, K: Folding<G>, P: ParentRule<G>, C: Counter, S: Slot> rule::Parent
    for Slotted<'_, '_, G, K, P, C, S>
{
    #[inline(always)]
    fn decide(&mut self, cell: Cell, _: &Ply) -> bool {
        self.work.decide(self.slot, cell)
    }

    #[inline(always)]
    fn count_down(&mut self, ply: &Ply) -> bool {
        self.work.counters[self.slot.at()].decrement() == 1 && self.work.decide(self.slot, ply.lose)
    }
}

/// The working tables of one analysis.
struct Work<'a, G, K, P, C, S> {
    game: &'a G,
    keys: &'a K,
    source: &'a P,
    progress: &'a dyn Progress,
    len: u64,
    cells: Vec<AtomicU16>,
    counters: Vec<C>,
    slots: std::marker::PhantomData<S>,
}

fn solve_keyed<G: Indexed, K: Folding<G>, P: ParentRule<G>>(
    game: &G,
    keys: &K,
    source: &P,
    progress: &dyn Progress,
) -> Result<RetroTable, SolveError> {
    // Indexes below u32::MAX fit 4-byte slots (u32::MAX itself is kept
    // free as an end marker).
    if game.index_len() <= u64::from(u32::MAX) {
        solve_slots::<G, K, P, u32>(game, keys, source, progress)
    } else {
        solve_slots::<G, K, P, u64>(game, keys, source, progress)
    }
}

/// [`solve_keyed`] with slots of type `S`.
fn solve_slots<G: Indexed, K: Folding<G>, P: ParentRule<G>, S: Slot>(
    game: &G,
    keys: &K,
    source: &P,
    progress: &dyn Progress,
) -> Result<RetroTable, SolveError> {
    let len = game.index_len();
    let slot = std::mem::size_of::<S>() as f64;
    // Cells, the narrowest counters and three bit sets, and the reverse
    // graph's offsets if there is one (its moves are checked once counted).
    let per_position = 2.0 + 1.0 + 3.0 / 8.0 + if P::STORED { slot } else { 0.0 };
    let bytes = len as f64 * per_position;
    if bytes > usize::MAX as f64 {
        return Err(SolveError::TooLarge(TooLarge::Positions {
            game: game.name(),
            positions: len,
            most: (usize::MAX as f64 / per_position) as u64,
        }));
    }
    check_memory(&game.name(), bytes as u64)?;
    // Byte counters first; the first pass lists the few positions with
    // more children, and the counters are widened once, to the narrowest
    // that holds them all, without counting again.
    let work = Work::<G, K, P, AtomicU8, S>::new(game, keys, source, progress);
    let ends = IndexSet::new(len);
    let ties = IndexSet::new(len);
    let mut seeds = work.seed(&ends, &ties);
    let wide = std::mem::take(&mut seeds.wide);
    let widest = wide.iter().map(|&(_, n)| n).max().unwrap_or(0);
    if widest <= <AtomicU8 as Counter>::MAX {
        work.finish(seeds, ends, ties)
    } else if widest <= <AtomicU16 as Counter>::MAX {
        work.widen::<AtomicU16>(&wide).finish(seeds, ends, ties)
    } else if widest <= <AtomicU32 as Counter>::MAX {
        work.widen::<AtomicU32>(&wide).finish(seeds, ends, ties)
    } else {
        Err(SolveError::TooLarge(TooLarge::Moves {
            game: game.name(),
            moves: widest as u64,
            most: <AtomicU32 as Counter>::MAX as u64,
        }))
    }
}

/// Refuses an analysis of `name` needing `bytes` more than the memory the
/// system says is available.
fn check_memory(name: &str, bytes: u64) -> Result<(), SolveError> {
    limits::check_memory(&format!("retrograde analysis of {name}"), bytes)
        .map_err(SolveError::TooLarge)
}

impl<'a, G: Indexed, K: Folding<G>, P: ParentRule<G>, C: Counter, S: Slot> Work<'a, G, K, P, C, S> {
    fn new(game: &'a G, keys: &'a K, source: &'a P, progress: &'a dyn Progress) -> Self {
        let len = game.index_len();
        Self {
            game,
            keys,
            source,
            progress,
            len,
            cells: bytemuck::zeroed_vec(len as usize),
            counters: bytemuck::zeroed_vec(len as usize),
            slots: std::marker::PhantomData,
        }
    }

    /// The same work with counters of type `C2`, holding the counts of
    /// these and, for the slots in `wide`, the counts given there.
    fn widen<C2: Counter>(self, wide: &[(usize, usize)]) -> Work<'a, G, K, P, C2, S> {
        let counters: Vec<C2> = bytemuck::zeroed_vec(self.counters.len());
        counters
            .par_iter()
            .zip(&self.counters)
            .for_each(|(wider, narrow)| wider.set(narrow.get()));
        for &(slot, count) in wide {
            counters[slot].set(count);
        }
        Work {
            game: self.game,
            keys: self.keys,
            source: self.source,
            progress: self.progress,
            len: self.len,
            cells: self.cells,
            counters,
            slots: std::marker::PhantomData,
        }
    }

    /// The table, from the first pass's `seeds` and the positions it
    /// decided (`frontier`: wins and losses; `ties`).
    fn finish(
        self,
        mut seeds: Seeds<S>,
        frontier: IndexSet,
        ties: IndexSet,
    ) -> Result<RetroTable, SolveError> {
        self.check_cancelled()?;
        let graph = if P::STORED {
            let forward = std::mem::take(&mut seeds.forward);
            let slot = std::mem::size_of::<S>() as u64;
            check_memory(
                &self.game.name(),
                slot.saturating_mul(self.len.saturating_add(seeds.moves)),
            )?;
            Some(self.reverse_graph(forward, seeds.moves)?)
        } else {
            None
        };
        self.check_cancelled()?;
        self.progress.begin("retrograde", seeds.solved);
        self.progress.advance(seeds.ends);
        let mut next = IndexSet::new(self.len);
        // Wins and losses, then ties ([`rule`]). Only a win counts its
        // parents down, so only its parents must be distinct: deciding a
        // parent twice is harmless, as the second decision finds it decided.
        let hear = |child: Value, parent: S, ply: &Ply| {
            rule::hear(
                &mut Slotted {
                    work: &self,
                    slot: parent,
                },
                child,
                ply,
            )
        };
        // Each sweep its own call, so that the tie sweep, whose children
        // are all ties, is compiled knowing it.
        self.spread_by_plies(
            graph.as_ref(),
            frontier,
            &mut next,
            |child| value(child) == Value::Win,
            |child, parent, ply| hear(value(child), parent, ply),
        )?;
        self.spread_by_plies(
            graph.as_ref(),
            ties,
            &mut next,
            |_| false,
            |_, parent, ply| hear(Value::Tie, parent, ply),
        )?;
        drop(graph);
        self.mark_draws();
        self.progress.end();
        if K::REDUCED {
            self.copy_to_symmetric();
        }
        Ok(RetroTable {
            cells: self
                .cells
                .into_iter()
                .map(|cell| Cell::from_bits(cell.into_inner()))
                .collect(),
            solved: seeds.solved,
            moves: seeds.moves,
        })
    }

    /// Stops the analysis if the progress reporter asks.
    fn check_cancelled(&self) -> Result<(), SolveError> {
        if self.progress.cancelled() {
            Err(SolveError::Cancelled(
                "retrograde analysis cancelled".into(),
            ))
        } else {
            Ok(())
        }
    }

    /// The directly solved position in `index`, if any.
    fn solved_position(&self, index: u64) -> Option<G::Position> {
        let position = self.game.unrank(index)?;
        (!K::REDUCED || self.keys.key(self.game, &position) == index).then_some(position)
    }

    /// The slots of the parents of the position in slot `child`, in `out`:
    /// from the reverse graph if one was built, otherwise from the game's
    /// un-moves, each slot once when `distinct` (otherwise a slot may
    /// repeat). A graph built from distinct children lists each parent once.
    fn parents(&self, graph: Option<&ReverseGraph<S>>, child: S, distinct: bool, out: &mut Vec<S>) {
        out.clear();
        if P::STORED {
            if let Some(graph) = graph {
                out.extend_from_slice(graph.parents_of(child));
            }
            return;
        }
        if let Some(position) = self.game.unrank(child.index()) {
            self.source.for_each_parent(self.game, &position, |parent| {
                out.push(S::from_index(self.keys.key(self.game, &parent)))
            });
        }
        if distinct {
            remove_duplicates(out);
        }
    }

    /// The distinct slots of the children of `position`, in `out`.
    fn children(&self, position: &G::Position, out: &mut Vec<S>) {
        out.clear();
        self.game.for_each_move(position, |_, child| {
            out.push(S::from_index(self.keys.key(self.game, &child)))
        });
        remove_duplicates(out);
    }

    /// The first pass: decides primitive positions and positions without
    /// moves, and sets every other counter to its number of children
    /// (keeping the moves if a reverse graph is to be built); counts that
    /// do not fit `C` are listed in [`Seeds::wide`]. Does no more work once
    /// the progress reporter asks to cancel.
    fn seed(&self, ends: &IndexSet, ties: &IndexSet) -> Seeds<S> {
        self.progress.begin("counting moves", self.len);
        let seeds = chunks(self.len)
            .map_init(Vec::new, |children, range| {
                let mut seeds = Seeds::default();
                let mut forward = Vec::new();
                let count = range.end - range.start;
                if self.progress.cancelled() {
                    return seeds;
                }
                for index in range {
                    let Some(position) = self.solved_position(index) else {
                        continue;
                    };
                    seeds.solved += 1;
                    let slot = index as usize;
                    let primitive = self.game.primitive(&position);
                    if primitive.is_none() {
                        self.children(&position, children);
                    }
                    if let Some(outcome) = rule::seed(primitive, !children.is_empty()) {
                        self.cells[slot].store(Cell::pack(outcome).bits(), Ordering::Relaxed);
                        match Sweep::of(outcome.value) {
                            Some(Sweep::WinLose) => {
                                ends.insert(index);
                            }
                            Some(Sweep::Tie) => {
                                ties.insert(index);
                            }
                            None => {}
                        }
                        seeds.ends += 1;
                        continue;
                    }
                    if children.len() > C::MAX {
                        seeds.wide.push((slot, children.len()));
                    }
                    self.counters[slot].set(children.len().min(C::MAX));
                    seeds.moves += children.len() as u64;
                    if P::STORED {
                        forward.push(S::from_index(index));
                        forward.push(S::from_index(children.len() as u64));
                        forward.extend_from_slice(children);
                    }
                }
                if !forward.is_empty() {
                    seeds.forward.push(forward);
                }
                self.progress.advance(count);
                seeds
            })
            .reduce(Seeds::default, Seeds::merge);
        self.progress.end();
        seeds
    }

    /// Builds the reverse graph from the moves kept by [`Work::seed`].
    fn reverse_graph(
        &self,
        forward: Vec<Vec<S>>,
        moves: u64,
    ) -> Result<ReverseGraph<S>, SolveError> {
        if moves > S::MAX {
            return Err(SolveError::TooLarge(TooLarge::Moves {
                game: self.game.name(),
                moves,
                most: S::MAX,
            }));
        }
        // Each thread owns a range of children: it reads every move but
        // counts and places only its own, so nothing is shared and no
        // atomic operation is needed.
        let parts = rayon::current_num_threads().max(1);
        let len = self.len as usize;
        let bounds: Vec<usize> = (0..=parts).map(|part| len * part / parts).collect();
        let range = |part: usize| bounds[part]..bounds[part + 1];
        self.progress.begin("reverse graph", 2 * parts as u64);
        let in_degrees: Vec<Vec<u32>> = (0..parts)
            .into_par_iter()
            .map(|part| {
                let children = range(part);
                let mut counts = vec![0u32; children.len()];
                for_each_move_kept(&forward, children.clone(), |_, child| {
                    counts[child - children.start] += 1;
                });
                self.progress.advance(1);
                counts
            })
            .collect();
        let mut offsets = Vec::with_capacity(len + 1);
        let mut total = 0u64;
        offsets.push(S::from_index(0));
        for &in_degree in in_degrees.iter().flatten() {
            total += u64::from(in_degree);
            offsets.push(S::from_index(total));
        }
        drop(in_degrees);
        let mut parents = vec![S::from_index(0); total as usize];
        let mut pieces = Vec::with_capacity(parts);
        let mut rest = &mut parents[..];
        for part in 0..parts {
            let children = range(part);
            let size = offsets[children.end].at() - offsets[children.start].at();
            let (piece, tail) = rest.split_at_mut(size);
            pieces.push(piece);
            rest = tail;
        }
        pieces
            .into_par_iter()
            .enumerate()
            .for_each(|(part, piece)| {
                let children = range(part);
                let base = offsets[children.start].at();
                let mut next: Vec<usize> = offsets[children.clone()]
                    .iter()
                    .map(|&offset| offset.at() - base)
                    .collect();
                for_each_move_kept(&forward, children.clone(), |parent, child| {
                    let place = &mut next[child - children.start];
                    piece[*place] = parent;
                    *place += 1;
                });
                self.progress.advance(1);
            });
        self.progress.end();
        Ok(ReverseGraph { offsets, parents })
    }

    /// Decides `parent` as `cell` if it is still undecided; true if this
    /// call decided it.
    fn decide(&self, parent: S, cell: Cell) -> bool {
        self.cells[parent.at()]
            .compare_exchange(
                Cell::UNKNOWN.bits(),
                cell.bits(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    fn undecided(&self, slot: S) -> bool {
        self.cells[slot.at()].load(Ordering::Relaxed) == Cell::UNKNOWN.bits()
    }

    /// Spreads outcomes a ply at a time from `frontier` (at remoteness
    /// 0): each ply spreads the frontier (`spread`) with `distinct` and
    /// `settle(child's cell, parent, the cells of that ply)` into `next`,
    /// which becomes the frontier, until a ply decides none.
    fn spread_by_plies(
        &self,
        graph: Option<&ReverseGraph<S>>,
        mut frontier: IndexSet,
        next: &mut IndexSet,
        distinct: impl Fn(Cell) -> bool + Sync,
        settle: impl Fn(Cell, S, &Ply) -> bool + Sync,
    ) -> Result<(), SolveError> {
        let mut remoteness: Remoteness = 0;
        loop {
            let ply = Ply::after(remoteness).ok_or_else(SolveError::remoteness_overflow)?;
            let decided = self.spread(graph, &frontier, next, &distinct, |child, parent| {
                settle(child, parent, &ply)
            });
            self.progress.advance(decided);
            if decided == 0 {
                return Ok(());
            }
            self.check_cancelled()?;
            std::mem::swap(&mut frontier, next);
            remoteness = ply.remoteness;
        }
    }

    /// Empties `frontier`, calling `settle(child's cell, parent)` for every
    /// still undecided parent of every position in it, in parallel, and
    /// puts the parents for which it returns true in `next`; returns how
    /// many there are. A child's parents are listed once each where
    /// `distinct(child's cell)`, and may repeat otherwise.
    fn spread(
        &self,
        graph: Option<&ReverseGraph<S>>,
        frontier: &IndexSet,
        next: &IndexSet,
        distinct: impl Fn(Cell) -> bool + Sync,
        settle: impl Fn(Cell, S) -> bool + Sync,
    ) -> u64 {
        frontier.drain(|child, parents: &mut Vec<S>| {
            let cell = Cell::from_bits(self.cells[child as usize].load(Ordering::Relaxed));
            let child = S::from_index(child);
            self.parents(graph, child, distinct(cell), parents);
            let mut decided = 0;
            for &parent in parents.iter() {
                if self.undecided(parent) && settle(cell, parent) {
                    next.insert(parent.index());
                    decided += 1;
                }
            }
            decided
        })
    }

    /// Every solved position still undecided is a draw: it still has
    /// children left to decide, so its counter is not zero.
    fn mark_draws(&self) {
        self.cells
            .par_iter()
            .zip(&self.counters)
            .for_each(|(cell, counter)| {
                if cell.load(Ordering::Relaxed) == Cell::UNKNOWN.bits() && counter.get() > 0 {
                    cell.store(Cell::pack(rule::LEFT).bits(), Ordering::Relaxed);
                }
            });
    }

    /// Gives every position not solved directly the cell of its class,
    /// going from each solved position (the ones decided so far) to its
    /// images.
    fn copy_to_symmetric(&self) {
        let solved: Vec<S> = (0..self.len)
            .into_par_iter()
            .map(S::from_index)
            .filter(|&slot| !self.undecided(slot))
            .collect();
        self.progress.begin("symmetries", solved.len() as u64);
        solved.par_chunks(CHUNK as usize).for_each(|chunk| {
            for &slot in chunk {
                let bits = self.cells[slot.at()].load(Ordering::Relaxed);
                if let Some(position) = self.game.unrank(slot.index()) {
                    self.keys.for_each_image(self.game, &position, |image| {
                        self.cells[image as usize].store(bits, Ordering::Relaxed);
                    });
                }
            }
            self.progress.advance(chunk.len() as u64);
        });
        self.progress.end();
    }
}

// A cell for every index: the table answers as a `Solution` directly.
crate::solution::index_solution!(RetroTable);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::PositionError;
    use crate::progress::NoProgress;
    use proptest::prelude::*;
    use std::sync::atomic::AtomicUsize;

    /// A game on an explicit graph: node `i` moves to `children[i]` unless
    /// `primitive[i]` ends play there. With `mirrored`, node `i` and node
    /// `i + n/2` are images of each other under a symmetry.
    #[derive(Clone, Debug)]
    struct GraphGame {
        children: Vec<Vec<u32>>,
        primitive: Vec<Option<Value>>,
        parents: Vec<Vec<u32>>,
        mirrored: bool,
    }

    impl GraphGame {
        fn new(children: Vec<Vec<u32>>, primitive: Vec<Option<Value>>, mirrored: bool) -> Self {
            let mut parents = vec![Vec::new(); children.len()];
            for (parent, kids) in children.iter().enumerate() {
                if primitive[parent].is_none() {
                    for &kid in kids {
                        parents[kid as usize].push(parent as u32);
                    }
                }
            }
            Self {
                children,
                primitive,
                parents,
                mirrored,
            }
        }

        /// The graph doubled: a second copy with every edge mirrored, so
        /// that swapping the copies is a symmetry.
        fn doubled(children: Vec<Vec<u32>>, primitive: Vec<Option<Value>>) -> Self {
            let n = children.len() as u32;
            let image = |v: u32| if v < n { v + n } else { v - n };
            // Edges of the first copy may lead into either copy.
            let first: Vec<Vec<u32>> = children
                .iter()
                .enumerate()
                .map(|(i, kids)| {
                    kids.iter()
                        .map(|&k| {
                            if (i as u32 + k).is_multiple_of(3) {
                                k + n
                            } else {
                                k
                            }
                        })
                        .collect()
                })
                .collect();
            let second: Vec<Vec<u32>> = first
                .iter()
                .map(|kids| kids.iter().map(|&k| image(k)).collect())
                .collect();
            let primitive = primitive.iter().chain(&primitive).copied().collect();
            Self::new(first.into_iter().chain(second).collect(), primitive, true)
        }
    }

    impl Game for GraphGame {
        type Position = u32;
        type Move = u32;
        fn name(&self) -> String {
            "graph".into()
        }
        fn start(&self) -> u32 {
            0
        }
        fn primitive(&self, position: &u32) -> Option<Value> {
            self.primitive[*position as usize]
        }
        fn for_each_move(&self, position: &u32, mut visit: impl FnMut(u32, u32)) {
            for &child in &self.children[*position as usize] {
                visit(child, child);
            }
        }
        fn parse_position(&self, text: &str) -> Result<u32, PositionError> {
            text.parse().map_err(|_| PositionError::new("not a node"))
        }
        fn format_position(&self, position: &u32) -> String {
            position.to_string()
        }
        fn format_move(&self, _position: &u32, mv: u32) -> String {
            mv.to_string()
        }
    }

    impl Indexed for GraphGame {
        fn index_len(&self) -> u64 {
            self.children.len() as u64
        }
        fn rank(&self, position: &u32) -> u64 {
            u64::from(*position)
        }
        fn unrank(&self, index: u64) -> Option<u32> {
            (index < self.index_len()).then_some(index as u32)
        }
    }

    impl Parents for GraphGame {
        fn for_each_parent(&self, position: &u32, mut visit: impl FnMut(u32)) {
            for &parent in &self.parents[*position as usize] {
                visit(parent);
            }
        }
    }

    impl Symmetric for GraphGame {
        fn for_each_symmetric(&self, position: &u32, mut visit: impl FnMut(u32)) {
            visit(*position);
            if self.mirrored {
                let half = self.children.len() as u32 / 2;
                visit(if *position < half {
                    position + half
                } else {
                    position - half
                });
            }
        }
    }

    /// The plain method: decide level after level of remoteness by scanning
    /// every position against a snapshot of the levels before.
    fn by_levels(game: &GraphGame) -> Vec<Outcome> {
        let n = game.children.len();
        let mut known: Vec<Option<Outcome>> = (0..n)
            .map(|i| match game.primitive[i] {
                Some(value) => Some(Outcome::terminal(value)),
                None if game.children[i].is_empty() => Some(Outcome::lose(0)),
                None => None,
            })
            .collect();
        for ties in [false, true] {
            for level in 1.. {
                let before = known.clone();
                let mut any = false;
                for i in (0..n).filter(|&i| before[i].is_none()) {
                    let kids: Vec<Option<Outcome>> = game.children[i]
                        .iter()
                        .map(|&k| before[k as usize])
                        .collect();
                    let outcome = if ties {
                        kids.contains(&Some(Outcome::tie(level - 1)))
                            .then(|| Outcome::tie(level))
                    } else if kids.contains(&Some(Outcome::lose(level - 1))) {
                        Some(Outcome::win(level))
                    } else if kids
                        .iter()
                        .all(|k| k.is_some_and(|o| o.value == Value::Win))
                        && kids.contains(&Some(Outcome::win(level - 1)))
                    {
                        Some(Outcome::lose(level))
                    } else {
                        None
                    };
                    if outcome.is_some() {
                        known[i] = outcome;
                        any = true;
                    }
                }
                if !any {
                    break;
                }
            }
        }
        known
            .into_iter()
            .map(|o| o.unwrap_or(Outcome::DRAW))
            .collect()
    }

    fn outcomes(table: &RetroTable) -> Vec<Outcome> {
        (0..table.len())
            .map(|i| table.outcome_at(i).unwrap())
            .collect()
    }

    fn graph() -> impl Strategy<Value = (Vec<Vec<u32>>, Vec<Option<Value>>)> {
        (1usize..40).prop_flat_map(|n| {
            let value = prop_oneof![
                6 => Just(None),
                1 => Just(Some(Value::Win)),
                2 => Just(Some(Value::Lose)),
                1 => Just(Some(Value::Tie)),
                1 => Just(Some(Value::Draw)),
            ];
            (
                proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..4), n),
                proptest::collection::vec(value, n),
            )
        })
    }

    #[test]
    fn a_cycle_without_an_exit_is_a_draw_and_an_exit_decides_it() {
        // 0 -> 1 -> 0 and 1 -> 2, where 2 is lost for its mover.
        let game = GraphGame::new(
            vec![vec![1], vec![0, 2], vec![]],
            vec![None, None, Some(Value::Lose)],
            false,
        );
        let table = solve(&game, &NoProgress).unwrap();
        assert_eq!(
            outcomes(&table),
            [Outcome::lose(2), Outcome::win(1), Outcome::lose(0)]
        );
        let game = GraphGame::new(vec![vec![1], vec![0]], vec![None, None], false);
        let table = solve_with_parents(&game, &NoProgress).unwrap();
        assert_eq!(outcomes(&table), [Outcome::DRAW, Outcome::DRAW]);
    }

    #[test]
    fn duplicates_go_and_first_occurrences_stay_in_order() {
        for len in [0, 1, 5, 24, 25, 100, 128, 129, 400] {
            let list: Vec<u32> = (0..len).map(|i| (i * 7919 % 61) as u32).collect();
            let mut expected = Vec::new();
            for &x in &list {
                if !expected.contains(&x) {
                    expected.push(x);
                }
            }
            let mut deduped = list.clone();
            remove_duplicates(&mut deduped);
            if len > HASHED_MAX {
                expected.sort_unstable();
            }
            assert_eq!(deduped, expected, "{len}");
        }
    }

    #[test]
    fn counters_widen_when_a_position_has_many_children() {
        // Past u8, then past u16: the second goes straight to u32.
        for n in [300u32, 70_000] {
            let mut children = vec![(1..n).collect::<Vec<u32>>()];
            children.extend((1..n).map(|_| Vec::new()));
            let mut primitive = vec![None; n as usize];
            primitive[7] = Some(Value::Win);
            let game = GraphGame::new(children, primitive, false);
            let table = solve(&game, &NoProgress).unwrap();
            assert_eq!(table.outcome_at(0), Some(Outcome::win(1)), "{n}");
            assert_eq!(table.moves(), u64::from(n - 1));
        }
    }

    /// Asks to cancel from the `after`th poll on.
    struct CancelAfter {
        polls: AtomicUsize,
        after: usize,
    }

    impl Progress for CancelAfter {
        fn begin(&self, _: &str, _: u64) {}
        fn advance(&self, _: u64) {}
        fn end(&self) {}
        fn cancelled(&self) -> bool {
            self.polls.fetch_add(1, Ordering::Relaxed) >= self.after
        }
    }

    #[test]
    fn a_cancelled_analysis_stops_with_an_error() {
        // A chain 0 -> 1 -> ... -> 99 has 99 remoteness layers to poll at.
        let n = 100u32;
        let children: Vec<Vec<u32>> = (0..n).map(|i| (i + 1..n).take(1).collect()).collect();
        let game = GraphGame::new(children, vec![None; n as usize], false);
        let expected = outcomes(&solve(&game, &NoProgress).unwrap());
        assert_eq!(expected[0], Outcome::win(99));
        for after in [0, 1, 2, 50] {
            let progress = CancelAfter {
                polls: AtomicUsize::new(0),
                after,
            };
            assert_eq!(
                solve(&game, &progress).unwrap_err(),
                SolveError::Cancelled("retrograde analysis cancelled".into())
            );
        }
        let never = CancelAfter {
            polls: AtomicUsize::new(0),
            after: usize::MAX,
        };
        assert_eq!(outcomes(&solve(&game, &never).unwrap()), expected);
    }

    #[test]
    fn more_memory_than_available_is_refused() {
        assert_eq!(check_memory("small", 1 << 20), Ok(()));
        if crate::limits::available_memory().is_some() {
            let err = check_memory("huge", u64::MAX).unwrap_err();
            assert!(
                matches!(
                    &err,
                    SolveError::TooLarge(TooLarge::Memory {
                        needed: u64::MAX,
                        ..
                    })
                ),
                "{err:?}"
            );
            let text = err.to_string();
            assert!(
                text.starts_with("retrograde analysis of huge needs")
                    && text.contains("is available"),
                "{text}"
            );
        }
    }

    proptest! {
        #[test]
        fn every_way_of_solving_agrees_with_the_plain_method((children, primitive) in graph()) {
            let game = GraphGame::new(children.clone(), primitive.clone(), false);
            let expected = by_levels(&game);
            prop_assert_eq!(&outcomes(&solve(&game, &NoProgress).unwrap()), &expected);
            prop_assert_eq!(&outcomes(&solve_with_parents(&game, &NoProgress).unwrap()), &expected);

            let game = GraphGame::doubled(children, primitive);
            let expected = by_levels(&game);
            let table = solve_symmetric(&game, &NoProgress).unwrap();
            prop_assert_eq!(&outcomes(&table), &expected);
            prop_assert_eq!(table.solved_positions(), table.len() / 2);
            let table = solve_symmetric_with_parents(&game, &NoProgress).unwrap();
            prop_assert_eq!(&outcomes(&table), &expected);
            prop_assert_eq!(&outcomes(&solve(&game, &NoProgress).unwrap()), &expected);
        }

        #[test]
        fn wide_slots_agree_with_the_plain_method((children, primitive) in graph()) {
            // The 8-byte slots games beyond u32 use, on small games.
            let game = GraphGame::doubled(children, primitive);
            let expected = by_levels(&game);
            for (how, table) in [
                ("unfolded, from moves", solve_slots::<_, _, _, u64>(&game, &Unfolded, &FromMoves, &NoProgress)),
                ("unfolded, from un-moves", solve_slots::<_, _, _, u64>(&game, &Unfolded, &FromUnmoves, &NoProgress)),
                ("by symmetry, from moves", solve_slots::<_, _, _, u64>(&game, &BySymmetry, &FromMoves, &NoProgress)),
                ("by symmetry, from un-moves", solve_slots::<_, _, _, u64>(&game, &BySymmetry, &FromUnmoves, &NoProgress)),
            ] {
                prop_assert_eq!(&outcomes(&table.unwrap()), &expected, "{}", how);
            }
        }
    }
}
