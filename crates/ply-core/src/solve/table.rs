//! The strong table solver for acyclic games with a dense index and tiers:
//! one two-byte [`Cell`] per index, tiers solved last first, each tier in
//! parallel (within a tier no position depends on another, so threads write
//! disjoint cells and only read finished tiers).

use crate::census::Census;
use crate::error::SolveError;
use crate::game::{Indexed, Symmetric, TableWalk};
use crate::limits::TooLarge;
use crate::progress::Progress;
use crate::solve::reach::IndexSet;
use crate::solve::{chunks, chunks_numbered};
use crate::value::{Cell, Outcome, Remoteness, Value};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering::Relaxed};

/// The most memory a table may take (see [`crate::limits`]).
pub const MEMORY_LIMIT: u64 = crate::limits::MAX_TABLE_BYTES;

/// The outcome of every indexed position of a game, two bytes each.
pub struct Table {
    cells: Box<[AtomicU16]>,
}

impl Table {
    /// The bytes a table over `positions` indices takes.
    pub fn bytes_needed(positions: u64) -> u64 {
        positions.saturating_mul(std::mem::size_of::<Cell>() as u64)
    }

    /// Whether a table for `game` fits under `MEMORY_LIMIT` and its
    /// remoteness fits a cell; says why not before any work is done.
    pub fn check<G: TableWalk>(game: &G) -> Result<(), SolveError> {
        let positions = game.index_len();
        let bytes = Self::bytes_needed(positions);
        if bytes > MEMORY_LIMIT || usize::try_from(positions).is_err() {
            return Err(SolveError::TooLarge(TooLarge::Table {
                positions,
                bytes,
                most: MEMORY_LIMIT,
            }));
        }
        // A move climbs at least one tier, so remoteness stays below the tier count.
        let tiers = game.tier_count();
        if tiers > Cell::MAX_REMOTENESS as usize + 1 {
            return Err(SolveError::Overflow(format!(
                "{tiers} tiers: remoteness past {} does not fit a table cell",
                Cell::MAX_REMOTENESS
            )));
        }
        Ok(())
    }

    /// Solves every indexed position of `game`, last tier first, reporting
    /// each position solved to `progress`.
    pub fn build<G: TableWalk>(game: &G, progress: &dyn Progress) -> Result<Table, SolveError> {
        Self::fill(
            game,
            progress,
            &mut Alone,
            |_, index, position, cells, broken, _| {
                let cell = solve_position(game, cells, &position);
                if cell == Cell::UNKNOWN {
                    broken.store(true, Relaxed);
                }
                cells[index as usize].store(cell.bits(), Relaxed);
            },
        )
    }

    /// Like [`Table::build`], but solves only the canonical member of each
    /// class of symmetric positions (the one with the least index) and copies
    /// its cell to the rest of the class. Pays where finding a position's
    /// images costs less than solving it, as with Euler's table lookups.
    /// The game's symmetries must keep every position in its tier.
    pub fn build_symmetric<G: TableWalk + Symmetric>(
        game: &G,
        progress: &dyn Progress,
    ) -> Result<Table, SolveError> {
        Self::fill_symmetric(game, progress, &mut Alone)
    }

    /// [`Table::build_symmetric`] with `hooks` saying which chunks of each
    /// tier this process solves and sharing what it solved.
    pub(super) fn fill_symmetric<G: TableWalk + Symmetric, H: Hooks>(
        game: &G,
        progress: &dyn Progress,
        hooks: &mut H,
    ) -> Result<Table, H::Error> {
        Self::fill(
            game,
            progress,
            hooks,
            |tier, index, position, cells, broken, hooks: &H| {
                let mut canonical = true;
                game.for_each_symmetric(&position, |image| {
                    canonical &= game.rank(&image) >= index;
                });
                if !canonical {
                    return;
                }
                let cell = solve_position(game, cells, &position);
                if cell == Cell::UNKNOWN {
                    broken.store(true, Relaxed);
                }
                hooks.record(index);
                game.for_each_symmetric(&position, |image| {
                    match cells.get(game.rank(&image) as usize) {
                        Some(slot) if game.tier(&image) == tier => slot.store(cell.bits(), Relaxed),
                        _ => broken.store(true, Relaxed),
                    }
                });
            },
        )
    }

    /// Allocates the cells, then visits every position of each tier from
    /// the last down, in parallel chunks, with `visit(tier, index, position,
    /// cells, broken, hooks)`, reporting each position visited; stops when
    /// cancelled, or at the first tier that sets `broken`. Only the chunks
    /// `hooks` calls this process's are visited; [`Hooks::solved`] is told
    /// of each tier solved.
    fn fill<G: TableWalk, H: Hooks>(
        game: &G,
        progress: &dyn Progress,
        hooks: &mut H,
        visit: impl Fn(usize, u64, G::Position, &[AtomicU16], &AtomicBool, &H) + Sync,
    ) -> Result<Table, H::Error> {
        Self::check(game)?;
        let len = game.index_len();
        // Ask for the memory first, so that a refusal is an error, not an abort.
        // Zeroed by the allocator, not filled on one thread.
        let cells: Box<[AtomicU16]> = bytemuck::try_zeroed_slice_box(len as usize)
            .map_err(|_| SolveError::OutOfMemory(Self::bytes_needed(len)))?;
        let broken = AtomicBool::new(false);
        progress.begin("solving", len);
        for tier in (0..game.tier_count()).rev() {
            let shared: &H = hooks;
            chunks_numbered(len)
                .filter(|&(chunk, _)| shared.mine(chunk))
                .for_each(|(_, range)| {
                    if progress.cancelled() {
                        return;
                    }
                    let mut seen = 0;
                    game.for_each_index_in_tier(tier, range, |index, position| {
                        visit(tier, index, position, &cells, &broken, shared);
                        seen += 1;
                    });
                    progress.advance(seen);
                });
            if progress.cancelled() {
                progress.end();
                return Err(SolveError::Cancelled("the table build was stopped".into()).into());
            }
            if broken.load(Relaxed) {
                progress.end();
                return Err(SolveError::Unsupported(format!(
                    "a move from tier {tier} did not lead to a higher tier of the index"
                ))
                .into());
            }
            hooks.solved(tier, &cells)?;
        }
        progress.end();
        Ok(Table { cells })
    }

    /// The size of the index space.
    pub fn len(&self) -> u64 {
        self.cells.len() as u64
    }

    /// Whether the index space is empty.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cell at `index` ([`Cell::UNKNOWN`] where no position has that
    /// index, or past the end).
    pub fn cell(&self, index: u64) -> Cell {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.cells.get(i))
            .map_or(Cell::UNKNOWN, |cell| Cell::from_bits(cell.load(Relaxed)))
    }

    /// The outcome of the position with `index`, or `None` where no position
    /// has that index.
    pub fn outcome(&self, index: u64) -> Option<Outcome> {
        self.cell(index).unpack()
    }

    /// Counts the solved positions, or only those in `within`; examples are
    /// indices.
    pub fn census(&self, within: Option<&IndexSet>) -> Census<u64> {
        chunks(self.len())
            .fold(Census::new, |mut census, range| {
                for index in range {
                    if within.is_none_or(|set| set.contains(index))
                        && let Some(outcome) = self.outcome(index)
                    {
                        census.add(outcome, || index);
                    }
                }
                census
            })
            .reduce(Census::new, Census::merge)
    }

    /// Counts every member of the classes of symmetric positions whose
    /// canonical members are in `classes`; examples are canonical indices.
    pub fn census_of_classes<G: Indexed + Symmetric>(
        &self,
        game: &G,
        classes: &IndexSet,
    ) -> Census<u64> {
        chunks(self.len())
            .fold(
                || (Census::new(), Vec::new()),
                |(mut census, mut images), range| {
                    for index in range.filter(|&i| classes.contains(i)) {
                        let (Some(outcome), Some(position)) =
                            (self.outcome(index), game.unrank(index))
                        else {
                            continue;
                        };
                        images.clear();
                        game.for_each_symmetric(&position, |image| images.push(game.rank(&image)));
                        images.sort_unstable();
                        images.dedup();
                        for _ in 0..images.len() {
                            census.add(outcome, || index);
                        }
                    }
                    (census, images)
                },
            )
            .map(|(census, _)| census)
            .reduce(Census::new, Census::merge)
    }
}

/// How one process takes part in a table build: which chunks of a tier
/// it solves, and what it does with a tier once solved. A build alone
/// ([`Alone`]) solves every chunk and keeps what it solved to itself; a
/// team's process solves its share and exchanges it
/// ([`super::table_team`]).
pub(super) trait Hooks: Sync {
    /// What stops the build.
    type Error: From<SolveError>;

    /// Notes that this process solved the position at `index` in the tier
    /// being solved (and set the cells of its class).
    fn record(&self, index: u64);

    /// Whether this process solves chunk number `chunk` of every tier.
    fn mine(&self, chunk: u64) -> bool;

    /// Called once this process's share of `tier` is solved.
    fn solved(&mut self, tier: usize, cells: &[AtomicU16]) -> Result<(), Self::Error>;
}

/// A build by one process alone: every chunk, nothing exchanged.
struct Alone;

impl Hooks for Alone {
    type Error = SolveError;

    #[inline(always)]
    fn record(&self, _: u64) {}

    fn mine(&self, _: u64) -> bool {
        true
    }

    fn solved(&mut self, _: usize, _: &[AtomicU16]) -> Result<(), SolveError> {
        Ok(())
    }
}

/// The cell of a position whose children are all solved already
/// ([`Cell::UNKNOWN`] if one is not).
#[inline]
fn solve_position<G: TableWalk>(game: &G, cells: &[AtomicU16], position: &G::Position) -> Cell {
    if let Some(value) = game.primitive(position) {
        return Cell::pack(Outcome::terminal(value));
    }
    let mut best = Best::default();
    game.for_each_child_index(position, |child| match cells.get(child as usize) {
        Some(cell) => best.add(cell.load(Relaxed)),
        None => best.add(Cell::UNKNOWN.bits()),
    });
    best.cell()
}

/// The best outcome so far among a position's children, kept as one number
/// that grows with the mover's preference, so choosing is a `max`.
///
/// Child cells map to keys by class: a losing child (a win for the mover,
/// sooner is better) above a tie (sooner is better) above a draw above a
/// winning child (a loss for the mover, later is better). 0 means no child
/// yet; an unknown child makes the whole result unknown.
#[derive(Default)]
struct Best {
    key: u16,
    unknown: bool,
}

const LOW: u16 = (1 << 14) - 1;

/// Keys are `BASE[tag] + SIGN[tag] * remoteness`, indexed by a cell's tag
/// (0 unknown, 1 win, 2 lose, 3 tie, 4 draw), so no branch is taken.
const BASE: [u16; 8] = [0, 1, (3 << 14) | LOW, (2 << 14) | LOW, 1 << 14, 0, 0, 0];
const SIGN: [i16; 8] = [0, 1, -1, -1, 0, 0, 0, 0];

impl Best {
    #[inline(always)]
    fn add(&mut self, child: u16) {
        let tag = usize::from(child >> 13);
        let r = (child & Cell::MAX_REMOTENESS as u16) as i16;
        let key = BASE[tag].wrapping_add((SIGN[tag] * r) as u16);
        self.unknown |= tag == 0;
        self.key = self.key.max(key);
    }

    /// The mover's outcome; with no children, a loss (normal play).
    fn cell(&self) -> Cell {
        if self.unknown {
            return Cell::UNKNOWN;
        }
        let low = Remoteness::from(self.key & LOW);
        let outcome = match self.key >> 14 {
            3 => Outcome::win(Remoteness::from(LOW) - low + 1),
            2 => Outcome::tie(Remoteness::from(LOW) - low + 1),
            1 => Outcome::DRAW,
            _ if self.key == 0 => Outcome::terminal(Value::Lose),
            _ => Outcome::lose(low),
        };
        Cell::pack(outcome)
    }
}

// A cell for every index: the table answers as a `Solution` directly.
crate::solution::index_solution!(Table);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn outcome() -> impl Strategy<Value = Outcome> {
        let r = 0..Cell::MAX_REMOTENESS;
        prop_oneof![
            r.clone().prop_map(Outcome::win),
            r.clone().prop_map(Outcome::lose),
            r.prop_map(Outcome::tie),
            Just(Outcome::DRAW),
        ]
    }

    proptest! {
        #[test]
        fn best_agrees_with_from_children(children in proptest::collection::vec(outcome(), 0..8)) {
            let mut best = Best::default();
            for child in &children {
                best.add(Cell::pack(*child).bits());
            }
            let expected = Outcome::from_children(children.iter().copied())
                .unwrap_or(Outcome::terminal(Value::Lose));
            prop_assert_eq!(best.cell().unpack(), Some(expected));
        }
    }

    #[test]
    fn an_unknown_child_makes_the_result_unknown() {
        let mut best = Best::default();
        best.add(Cell::pack(Outcome::lose(0)).bits());
        best.add(Cell::UNKNOWN.bits());
        assert_eq!(best.cell(), Cell::UNKNOWN);
    }
}
