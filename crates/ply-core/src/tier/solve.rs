//! Retrograde analysis inside one tier, seeded with its child tiers' values.
//!
//! A first pass looks at every position once: primitive positions and
//! positions without moves are decided at once, and so is a position whose
//! every move leaves the tier (its children are all solved already). Any
//! other position gets a counter of its distinct children inside the tier,
//! plus one if some child in a child tier keeps it from losing; what the
//! child tiers promise is kept beside the cell as a *seed*: a win at a given
//! remoteness (a child tier's loss), a tie (a child tier's tie), or the
//! remoteness at which its children in child tiers, all wins, stop holding
//! off its loss. Where the game knows a position's children inside the tier
//! to be distinct it counts them without ranking them
//! ([`NamedTiers::for_each_child_outside`]): only children in child tiers need
//! an index, to be read.
//!
//! Then remoteness layers, one scan of the tier each: a position decided at
//! remoteness `r - 1` decides its parents in the tier (a loss makes them
//! wins at `r`; a win takes one off their counters, and a counter that
//! reaches zero makes a loss at `r`), and seeds due at `r` fire. Parents
//! come from the game's un-moves when it gives them; otherwise every
//! undecided position looks at its children in the tier at each layer.
//! Ties spread the same way in a second series of layers, and whatever is
//! left undecided is a draw. With un-moves, each block of [`BLOCK`]
//! indices keeps a mask of the remoteness values (modulo 256) the first
//! pass decided or made due in it, and each group of [`GROUP`] indices a
//! bit for each of the last two layers, set where that layer decided a
//! position; a layer skips the blocks where nothing was decided at the
//! layer before and nothing is due now, and in a block with nothing due
//! scans only the groups the layer before decided in: the long tail of
//! layers that decide few positions scans little, and so does a busy
//! layer in a block that holds no seed. A layer tells the parents of 64
//! decided positions at a time, reading all their cells before it changes any, so that the cache misses
//! overlap (an atomic exchange waits for its own). The result equals
//! whole-game retrograde analysis ([`crate::solve::retro`]) cell for cell.
//!
//! A game with symmetries inside its tiers ([`NamedTiers::IN_TIER_SYMMETRY`])
//! has only one position per class solved: the first pass marks every
//! position that is not its class's representative ([`NamedTiers::fold_in_tier`])
//! as folded and skips it; children inside the tier and un-move parents are
//! folded to their representatives, so a counter counts distinct classes of
//! children and a parent class hears once of each child class. A last pass
//! gives each folded position its representative's cell, so the tier's
//! cells are whole and read as if every position had been solved. Where
//! the classes are small enough (`Representatives::estimate`), only the
//! representatives have working cells, found first and numbered in order
//! ([`Representatives`]); the other positions' cells are then read
//! through their representatives as the shard is written
//! ([`SolvedTier::cell`]), and no last pass is needed.
//!
//! Memory: one 2-byte working cell per index of the tier, plus the child
//! tiers' cells (a byte each, see [`Cells`]); no allocation per position
//! (each thread keeps one list of children, reused). A working cell holds
//! a 3-bit tag and 13 bits: an undecided position's counter (tag 0), a
//! decided position's value and remoteness (tags 1 to 4, as in [`Cell`]),
//! or a seed's layer (tags 5 to 7). A position that is a seed has no
//! counter: a win or tie seed cannot lose, so it needs none; a lose event
//! (its children in child tiers all wins, the last of them at remoteness
//! `E - 1`) counts its children in the tier afresh just before layer `E`,
//! leaving out those decided wins before `E - 1` (the wins at `E - 1`
//! take themselves off during layer `E`, as for any counter).

use super::TierError;
use super::cells::Cells;
use super::classes::Representatives;
use crate::game::NamedTiers;
use crate::progress::Progress;
use crate::solve::chunks;
use crate::solve::rule::{self, Ply, Sweep};
use crate::value::{Cell, Outcome, Remoteness, Value};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Bytes per index of the tier being solved: its working cell (the
/// blocks' masks add 1/128 of a byte, left out of the estimates).
pub const BYTES_PER_POSITION: u64 = 2;

/// The bytes of the working cells of `tier` of `game`, of `len` indices,
/// as [`solve_tier`] lays them out: [`BYTES_PER_POSITION`] an index, or
/// where a cell per symmetry class pays, the bits that find the classes
/// and a cell per class, estimated from a sample with a quarter to spare.
pub fn working_bytes<G: NamedTiers>(game: &G, tier: G::Tier, len: u64) -> u64 {
    match Representatives::estimate(game, tier, len) {
        Some(classes) => {
            Representatives::bytes(len) + BYTES_PER_POSITION * (classes + classes / 4 + 1).min(len)
        }
        None => BYTES_PER_POSITION * len,
    }
}

/// The indices of a block whose remoteness mask a layer looks at before
/// scanning it; divides [`crate::solve::chunks`]' chunk.
const BLOCK: u64 = 1 << 10;

/// The indices a bit of [`Work::fresh`] stands for: a sixteenth of a
/// [`BLOCK`], so that a layer whose masks let it skip a block scans only
/// the parts of it where the layer before decided a position.
const GROUP: u64 = 1 << 6;

/// Words of a block's mask: a bit for each remoteness modulo 256, so that
/// a layer scans a block only for a value at its own remoteness or the
/// one before (games such as Morris take about 200 layers).
const MARK_WORDS: usize = 4;

/// The word of a block's mask and the bit in it that stand for
/// `remoteness`.
fn mark_bit(remoteness: Remoteness) -> (usize, u64) {
    (
        (remoteness / 64) as usize % MARK_WORDS,
        1 << (remoteness % 64),
    )
}

/// Positions the first pass takes at a time.
const BATCH: usize = 64;

/// A position of the first pass whose children are listed in a [`Batch`].
#[derive(Clone, Copy)]
struct Listed {
    index: u64,
    /// Where its children in the tier end in [`Batch::inside`].
    inside_end: usize,
    /// Where its children in child tiers end in [`Batch::outside`].
    outside_end: usize,
    /// Its children in the tier that the game counted without listing
    /// them ([`NamedTiers::for_each_child_outside`]).
    left_out: usize,
    /// Whether it has a move.
    any: bool,
}

/// Positions of the first pass with their children listed, in order.
#[derive(Default)]
struct Batch {
    items: Vec<Listed>,
    /// Their children in the tier.
    inside: Vec<u64>,
    /// Their children in child tiers: where the tier is in the child
    /// tiers, and the index.
    outside: Vec<(usize, u64)>,
    /// What those say, once read.
    read: Vec<Option<Outcome>>,
}

/// A solved child tier, as the tier being solved reads it.
pub struct ChildCells<T> {
    /// The (canonical) tier.
    pub tier: T,
    /// Its cells, by index inside the tier.
    pub cells: Cells,
}

/// A working cell whose index names no position (tag 0, past any counter).
const NOT_A_POSITION: u16 = 0x1FFF;
/// A working cell of a position that is not its symmetry class's
/// representative: solved by its representative (tag 0, past any counter).
const FOLDED: u16 = 0x1FFE;
/// The most a counter holds: the children in the tier, plus one for the
/// children in child tiers.
const MOST_COUNTED: usize = FOLDED as usize - 1;
/// Tag of a seed: a win at the layer in the low bits.
const WIN_SEED: u16 = 5;
/// Tag of a seed: the layer at which the children in child tiers (all wins)
/// stop holding off a loss.
const LOSE_EVENT: u16 = 6;
/// Tag of a seed: a tie at the layer in the low bits.
const TIE_SEED: u16 = 7;
/// A working cell that never occurs: a win seed at layer 0 (seeds fire
/// at layer 1 or later). A layer looks for it where its phase spreads no
/// such value; [`NOT_A_POSITION`] would not do, as every index naming no
/// position holds it.
const NEVER: u16 = WIN_SEED << 13;

fn tag(bits: u16) -> u16 {
    bits >> 13
}

fn seed(kind: u16, layer: Remoteness) -> u16 {
    (kind << 13) | layer as u16
}

/// Whether the working cell holds a final value.
fn decided(bits: u16) -> bool {
    (1..=4).contains(&tag(bits))
}

/// Whether the working cell is of a position being solved and not decided.
fn open(bits: u16) -> bool {
    !decided(bits) && bits != NOT_A_POSITION && bits != FOLDED
}

/// Whether the working cell is an undecided position's counter.
fn counting(bits: u16) -> bool {
    bits != 0 && bits < FOLDED
}

/// What a position's children in child tiers say, folded as they come.
#[derive(Default)]
struct Outside {
    lose: Option<Remoteness>,
    tie: Option<Remoteness>,
    win: Option<Remoteness>,
    draw: bool,
}

impl Outside {
    fn add(&mut self, outcome: Outcome) {
        let r = outcome.remoteness.unwrap_or(0);
        match outcome.value {
            Value::Lose => self.lose = Some(self.lose.map_or(r, |l| l.min(r))),
            Value::Tie => self.tie = Some(self.tie.map_or(r, |t| t.min(r))),
            Value::Win => self.win = Some(self.win.map_or(r, |w| w.max(r))),
            Value::Draw => self.draw = true,
        }
    }

    /// The outcome when these are all the children.
    fn outcome(&self) -> Outcome {
        if let Some(l) = self.lose {
            Outcome::win(l + 1)
        } else if let Some(t) = self.tie {
            Outcome::tie(t + 1)
        } else if self.draw {
            Outcome::DRAW
        } else {
            Outcome::lose(self.win.map_or(0, |w| w + 1))
        }
    }

    /// Whether some child keeps the position from losing.
    fn blocks_loss(&self) -> bool {
        self.lose.is_some() || self.tie.is_some() || self.draw
    }
}

/// Where the working cell of an index lies: a layout of working cells.
/// Each layout is its own type, so that the solver's loops, which look up
/// a cell for every index of every layer, are compiled for one layout and
/// ask no question of it per index.
trait Slots: Sync {
    /// Whether the cells are those of one process's part of a tier cut
    /// between processes ([`Part`]): a parent outside the part is told
    /// by a message, and a position whose children in child tiers are
    /// all wins counts its children in the tier from the first pass (no
    /// lose event: its recount would read other processes' cells).
    const PART: bool = false;
    /// The place of the working cell of `index`, if it has one.
    fn slot(&self, index: u64) -> Option<usize>;
    /// The indices of a tier of `len` whose positions are solved here.
    fn range(&self, len: u64) -> Range<u64> {
        0..len
    }
    /// The representatives, where only they have working cells.
    fn representatives(&self) -> Option<&Representatives>;
    /// [`Slots::representatives`], given up.
    fn into_representatives(self) -> Option<Representatives>;
}

/// A working cell per index.
struct Dense;

impl Slots for Dense {
    #[inline]
    fn slot(&self, index: u64) -> Option<usize> {
        Some(index as usize)
    }

    fn representatives(&self) -> Option<&Representatives> {
        None
    }

    fn into_representatives(self) -> Option<Representatives> {
        None
    }
}

/// A working cell per representative of a symmetry class.
impl Slots for Representatives {
    #[inline]
    fn slot(&self, index: u64) -> Option<usize> {
        Representatives::slot(self, index)
    }

    fn representatives(&self) -> Option<&Representatives> {
        Some(self)
    }

    fn into_representatives(self) -> Option<Representatives> {
        Some(self)
    }
}

/// A working cell per index of one process's part of a tier cut between
/// processes: the indices `start..end`.
struct Part {
    start: u64,
    end: u64,
}

impl Slots for Part {
    const PART: bool = true;

    #[inline]
    fn slot(&self, index: u64) -> Option<usize> {
        (self.start..self.end)
            .contains(&index)
            .then(|| (index - self.start) as usize)
    }

    fn range(&self, _len: u64) -> Range<u64> {
        self.start..self.end
    }

    fn representatives(&self) -> Option<&Representatives> {
        None
    }

    fn into_representatives(self) -> Option<Representatives> {
        None
    }
}

/// The ranges of [`chunks`] of a tier that fall in `range`, cut to it.
fn chunks_in(range: Range<u64>) -> impl ParallelIterator<Item = Range<u64>> {
    chunks(range.end).filter_map(move |chunk| {
        let (start, end) = (chunk.start.max(range.start), chunk.end.min(range.end));
        (start < end).then_some(start..end)
    })
}

/// The work on one tier.
struct Work<'a, G: NamedTiers, S: Slots> {
    game: &'a G,
    tier: G::Tier,
    children: &'a [ChildCells<G::Tier>],
    /// The tier's indices.
    len: u64,
    /// Where each index's working cell lies.
    slots: S,
    /// The working cells: one per index, or one per representative.
    cells: Vec<AtomicU16>,
    /// Per block of [`BLOCK`] indices, with un-moves: the remoteness
    /// values the first pass decided in it or at which a seed in it fires, in
    /// [`MARK_WORDS`] words ([`mark_bit`]).
    marks: Vec<AtomicU64>,
    /// Per group of [`GROUP`] indices, with un-moves, a bit each: whether
    /// the layer of even remoteness (`fresh[0]`) or odd (`fresh[1]`)
    /// decided a position in it. A layer reads the bits of the layer
    /// before and clears its own ([`Work::clear_fresh`]): two bits per
    /// [`GROUP`] indices (0.7 MB for 180 million), where the masks,
    /// written as positions are decided, would be read at random.
    fresh: [Vec<AtomicU64>; 2],
    /// Set when the game breaks its promises (a child outside the child
    /// tiers, too many moves); the analysis then fails.
    broken: AtomicBool,
    /// The index and problem of the first broken promise.
    problem: Mutex<Option<String>>,
}

/// A solved tier's cells: one per index, or one per symmetry class, the
/// other positions read through their representatives.
pub struct SolvedTier {
    cells: Vec<Cell>,
    representatives: Option<Representatives>,
    /// Set when a position's representative turned out to have no cell
    /// (the game broke [`NamedTiers::fold_in_tier`]'s promise).
    broken: AtomicBool,
}

impl SolvedTier {
    /// The cell of the position at `index` of `tier`, the tier solved
    /// here, of `game` ([`Cell::UNKNOWN`] where no position has that
    /// index).
    pub fn cell<G: NamedTiers>(&self, game: &G, tier: G::Tier, index: u64) -> Cell {
        let Some(representatives) = &self.representatives else {
            return self
                .cells
                .get(index as usize)
                .copied()
                .unwrap_or(Cell::UNKNOWN);
        };
        if let Some(slot) = representatives.slot(index) {
            return self.cells[slot];
        }
        // A board is a position when its class's representative is one
        // (legality does not change under a symmetry); only a board whose
        // representative has no cell pays for the check of its legality.
        let Some(board) = game.tier_board(tier, index) else {
            return Cell::UNKNOWN;
        };
        match representatives.slot(game.tier_rank(tier, &game.fold_in_tier(&board))) {
            Some(slot) => self.cells[slot],
            None => {
                if game.tier_unrank(tier, index).is_some() {
                    self.broken.store(true, Relaxed);
                }
                Cell::UNKNOWN
            }
        }
    }

    /// Whether some position read through [`SolvedTier::cell`] had no
    /// representative with a cell: its cell read as unknown, and the
    /// tier must not be kept.
    pub fn broken(&self) -> bool {
        self.broken.load(Relaxed)
    }

    /// `present[bits]`: whether a cell with those bits may be read from
    /// [`SolvedTier::cell`] (every one that can is; with a cell per
    /// class, the unknown cell is listed whether or not it occurs).
    pub fn present(&self) -> Vec<bool> {
        let mut present = vec![false; 1 << 16];
        for cell in &self.cells {
            present[usize::from(cell.bits())] = true;
        }
        if self.representatives.is_some() {
            present[usize::from(Cell::UNKNOWN.bits())] = true;
        }
        present
    }

    /// Every index's cell, in order.
    pub fn cells<G: NamedTiers>(&self, game: &G, tier: G::Tier) -> Vec<Cell> {
        (0..game.tier_size(tier))
            .into_par_iter()
            .map(|index| self.cell(game, tier, index))
            .collect()
    }

    /// Positions with a working cell: every index, or one per class.
    pub fn solved(&self) -> u64 {
        self.cells.len() as u64
    }
}

/// Where [`solve_tier_as`] keeps working cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One per index.
    Dense,
    /// One per representative of a symmetry class.
    PerClass,
    /// One per class where that pays (`Representatives::estimate`).
    Best,
}

/// Solves `tier` (a canonical tier) of `game`, reading the cells of its
/// child tiers from `children`, with working cells where they pay
/// ([`Layout::Best`]).
pub fn solve_tier<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    children: &[ChildCells<G::Tier>],
    progress: &dyn Progress,
) -> Result<SolvedTier, TierError> {
    solve_tier_as(game, tier, children, Layout::Best, progress)
}

/// [`solve_tier`] with working cells laid out as `layout` says (a layout
/// per class only for games with symmetries inside tiers).
pub fn solve_tier_as<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    children: &[ChildCells<G::Tier>],
    layout: Layout,
    progress: &dyn Progress,
) -> Result<SolvedTier, TierError> {
    let len = game.tier_size(tier);
    let per_class = G::IN_TIER_SYMMETRY
        && match layout {
            Layout::Dense => false,
            Layout::PerClass => true,
            Layout::Best => Representatives::estimate(game, tier, len).is_some(),
        };
    let representatives = per_class.then(|| {
        progress.begin(&format!("tier {}: classes", game.tier_name(tier)), 0);
        let found = Representatives::find(game, tier, len);
        progress.end();
        found
    });
    match representatives {
        Some(representatives) => solve_in(game, tier, len, children, representatives, progress),
        None => solve_in(game, tier, len, children, Dense, progress),
    }
}

/// [`solve_tier_as`] with working cells laid out as `slots` says, for
/// `tier` of `len` indices.
fn solve_in<G: NamedTiers, S: Slots>(
    game: &G,
    tier: G::Tier,
    len: u64,
    children: &[ChildCells<G::Tier>],
    slots: S,
    progress: &dyn Progress,
) -> Result<SolvedTier, TierError> {
    let work = Work::new(game, tier, children, len, slots);
    let name = game.tier_name(tier);
    let started = Instant::now();
    progress.begin(&format!("tier {name}"), len);
    let seeds = work.seed(progress);
    progress.end();
    work.check(progress)?;
    let first_pass = started.elapsed();
    // Decides the positions of `sweep` a layer of remoteness at a time,
    // until a layer past the seeds' longest (`last`) decides none; returns
    // the layers it took.
    let layers = |sweep: Sweep, last: Remoteness| -> Result<Remoteness, TierError> {
        let mut remoteness: Remoteness = 1;
        work.clear_fresh(0);
        loop {
            let mut decided = 0;
            work.clear_fresh(remoteness);
            if sweep == Sweep::WinLose && seeds.event_at(remoteness) {
                decided += work.recount(remoteness);
                work.check(progress)?;
            }
            decided += work.layer(remoteness, sweep, None);
            work.check(progress)?;
            if decided == 0 && remoteness > last {
                return Ok(remoteness);
            }
            remoteness = next(remoteness)?;
        }
    };
    let mut rounds = layers(Sweep::WinLose, seeds.last_win_lose)?;
    if seeds.ties {
        rounds += layers(Sweep::Tie, seeds.last_tie)?;
    }
    let layered = started.elapsed() - first_pass;
    if G::IN_TIER_SYMMETRY && work.slots.representatives().is_none() {
        work.unfold();
        work.check(progress)?;
    }
    progress.note(&format!(
        "tier {name}: {len} indices, {} working cells; first pass {:.1} s, {rounds} layers {:.1} s, last pass {:.1} s",
        work.cells.len(),
        first_pass.as_secs_f64(),
        layered.as_secs_f64(),
        (started.elapsed() - first_pass - layered).as_secs_f64()
    ));
    let cells = work
        .cells
        .into_iter()
        .map(|cell| {
            let bits = cell.into_inner();
            if decided(bits) {
                Cell::from_bits(bits)
            } else if bits == NOT_A_POSITION {
                Cell::UNKNOWN
            } else {
                Cell::pack(rule::LEFT)
            }
        })
        .collect();
    Ok(SolvedTier {
        cells,
        representatives: work.slots.into_representatives(),
        broken: AtomicBool::new(false),
    })
}

/// Solves the indices `range` of `tier`, a canonical tier that every move
/// leaves ([`NamedTiers::leaves_tier`]), from the cells of its child tiers in
/// `children`: one pass, each position decided from its children alone (a
/// position that is not its class's representative from its
/// representative). The cells are those [`solve_tier`] gives the same
/// indices, so that slices solved apart make up the tier's shard. Fails,
/// naming the index, where a move stays in the tier.
pub fn solve_slice<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    children: &[ChildCells<G::Tier>],
    range: std::ops::Range<u64>,
    progress: &dyn Progress,
) -> Result<Vec<Cell>, TierError> {
    let start = range.start;
    let len = range.end.saturating_sub(start);
    let name = game.tier_name(tier);
    progress.begin(&format!("tier {name}, indices {start}..{}", range.end), len);
    let mut parts: Vec<(u64, Vec<Cell>)> = chunks(len)
        .map(|part| {
            if progress.cancelled() {
                return Err(TierError::Cancelled);
            }
            let mut cells = vec![Cell::UNKNOWN; (part.end - part.start) as usize];
            let mut problem = None;
            let indices = start + part.start..start + part.end;
            game.for_each_in_tier(tier, indices, |index, position| {
                if problem.is_some() {
                    return;
                }
                let decided = if G::IN_TIER_SYMMETRY && !game.is_representative(&position) {
                    decide_from_children(game, tier, children, &game.fold_in_tier(&position))
                } else {
                    decide_from_children(game, tier, children, &position)
                };
                match decided {
                    Ok(outcome) => {
                        cells[(index - start - part.start) as usize] = Cell::pack(outcome);
                    }
                    Err(why) => problem = Some(format!("tier {name} index {index}: {why}")),
                }
            });
            progress.advance(part.end - part.start);
            match problem {
                Some(why) => Err(TierError::Game(why)),
                None => Ok((part.start, cells)),
            }
        })
        .collect::<Result<_, _>>()?;
    progress.end();
    parts.sort_unstable_by_key(|&(at, _)| at);
    Ok(parts.into_iter().flat_map(|(_, cells)| cells).collect())
}

/// The outcome of `position`, of `tier`, whose every move leads to a
/// solved child tier: as the first pass of [`solve_tier`] decides a
/// position with no child inside its tier.
fn decide_from_children<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    children: &[ChildCells<G::Tier>],
    position: &G::Position,
) -> Result<Outcome, String> {
    if let Some(value) = game.primitive(position) {
        return Ok(Outcome::terminal(value));
    }
    let mut any = false;
    let mut outside = Outside::default();
    let mut problem = None;
    game.for_each_folded_child(position, |child_tier, child| {
        any = true;
        if problem.is_some() {
            return;
        }
        let Some(cells) = children.iter().find(|c| c.tier == child_tier) else {
            problem = Some(if child_tier == tier {
                "a move stays inside the tier, which the game says every move leaves".to_string()
            } else {
                format!(
                    "a move leads to tier {}, which is not a child tier",
                    game.tier_name(child_tier)
                )
            });
            return;
        };
        match cells.cells.outcome(child as usize) {
            Some(outcome) => outside.add(outcome),
            None => {
                problem = Some(format!(
                    "a move leads to tier {} index {child}, which is not a solved child tier's position",
                    game.tier_name(child_tier)
                ));
            }
        }
    });
    if let Some(why) = problem {
        return Err(why);
    }
    if !any {
        return Ok(Outcome::lose(0));
    }
    let outcome = outside.outcome();
    if outcome.remoteness.unwrap_or(0) > Cell::MAX_REMOTENESS {
        return Err("a remoteness does not fit a cell".into());
    }
    Ok(outcome)
}

/// The layer after `remoteness`, if a cell holds it.
fn next(remoteness: Remoteness) -> Result<Remoteness, TierError> {
    if remoteness >= Cell::MAX_REMOTENESS {
        Err(TierError::RemotenessOverflow)
    } else {
        Ok(remoteness + 1)
    }
}

/// Positions decided at the layer before whose parents a layer tells in
/// one batch ([`SPREAD_BATCH`]), and the lists that takes, reused.
#[derive(Default)]
struct Spread {
    /// The positions, with their values.
    pending: Vec<(u64, Value)>,
    /// One position's parents.
    parents: Vec<u64>,
    /// Every parent of the batch (its index) with the value of its child.
    targets: Vec<(u64, Value)>,
    /// A position's children, for games without un-moves.
    found: Vec<u64>,
    /// In a part of a cut tier, the parents outside it, as [`away`]
    /// codes them.
    away: Vec<u64>,
}

/// What takes a list of parents outside a part of a cut tier, as
/// [`away`] codes them, and empties it.
pub(super) type Away<'a> = dyn Fn(&mut Vec<u64>) + Sync + 'a;

/// A parent outside this process's part of a cut tier, with the value of
/// its child: its index doubled, plus one if the child is a win.
#[inline]
fn away(parent: u64, child: Value) -> u64 {
    parent << 1 | u64::from(child == Value::Win)
}

/// Positions whose parents a layer tells together.
const SPREAD_BATCH: usize = 64;

/// The cells one layer looks for, as raw bits ([`NEVER`] where the sweep
/// has none).
struct Layer {
    sweep: Sweep,
    /// A seed firing now (a win or a tie, by sweep).
    seed: u16,
    /// In a part of a cut tier, a loss due now ([`Work::count_down`]).
    due: u16,
    /// Decided at the layer before: spread to parents.
    lost: u16,
    won: u16,
    tied: u16,
    /// The cells this layer decides parents as.
    ply: Ply,
}

impl Layer {
    fn new(remoteness: Remoteness, sweep: Sweep) -> Layer {
        let before =
            |outcome: fn(Remoteness) -> Outcome| Cell::pack(outcome(remoteness - 1)).bits();
        let ply = Ply::at(remoteness);
        match sweep {
            Sweep::WinLose => Layer {
                sweep,
                seed: seed(WIN_SEED, remoteness),
                due: seed(LOSE_EVENT, remoteness),
                lost: before(Outcome::lose),
                won: before(Outcome::win),
                tied: NEVER,
                ply,
            },
            Sweep::Tie => Layer {
                sweep,
                seed: seed(TIE_SEED, remoteness),
                due: NEVER,
                lost: NEVER,
                won: NEVER,
                tied: before(Outcome::tie),
                ply,
            },
        }
    }

    /// The cell a seed firing now decides its position as.
    fn seeded(&self) -> Cell {
        match self.sweep {
            Sweep::WinLose => self.ply.win,
            Sweep::Tie => self.ply.tie,
        }
    }
}

/// A parent inside the tier, as [`rule::hear`] decides it: its working
/// cell holds a counter until it is decided.
struct InTier<'w, 'a, G: NamedTiers, S: Slots> {
    work: &'w Work<'a, G, S>,
    index: u64,
}

impl<G: NamedTiers, S: Slots> rule::Parent for InTier<'_, '_, G, S> {
    #[inline(always)]
    fn decide(&mut self, cell: Cell, ply: &Ply) -> bool {
        self.work.decide(self.index, cell.bits(), ply.remoteness)
    }

    #[inline(always)]
    fn count_down(&mut self, ply: &Ply) -> bool {
        self.work.count_down(self.index, ply)
    }
}

/// Words of a set of layers, one bit a layer.
const LAYER_WORDS: usize = (Cell::MAX_REMOTENESS as usize + 1).div_ceil(64);

/// What the first pass found.
struct Seeds {
    /// The last layer a win or loss seed fires at.
    last_win_lose: Remoteness,
    /// The last layer a tie seed fires at.
    last_tie: Remoteness,
    /// Whether any tie was decided or seeded.
    ties: bool,
    /// The layers some lose event is due at, a bit each.
    events: [u64; LAYER_WORDS],
}

impl Default for Seeds {
    fn default() -> Seeds {
        Seeds {
            last_win_lose: 0,
            last_tie: 0,
            ties: false,
            events: [0; LAYER_WORDS],
        }
    }
}

impl Seeds {
    fn merge(mut self, other: Seeds) -> Seeds {
        self.last_win_lose = self.last_win_lose.max(other.last_win_lose);
        self.last_tie = self.last_tie.max(other.last_tie);
        self.ties |= other.ties;
        for (word, theirs) in self.events.iter_mut().zip(other.events) {
            *word |= theirs;
        }
        self
    }

    /// Notes a lose event due at `layer`.
    fn add_event(&mut self, layer: Remoteness) {
        self.last_win_lose = self.last_win_lose.max(layer);
        self.events[layer as usize / 64] |= 1 << (layer % 64);
    }

    /// Whether some lose event is due at `layer`.
    fn event_at(&self, layer: Remoteness) -> bool {
        self.events
            .get(layer as usize / 64)
            .is_some_and(|word| word & (1 << (layer % 64)) != 0)
    }
}

impl<'a, G: NamedTiers, S: Slots> Work<'a, G, S> {
    /// The work on `tier` of `game`, of `len` indices, its working cells
    /// laid out by `slots`, none decided yet.
    fn new(
        game: &'a G,
        tier: G::Tier,
        children: &'a [ChildCells<G::Tier>],
        len: u64,
        slots: S,
    ) -> Work<'a, G, S> {
        let cells = match slots.representatives() {
            Some(representatives) => representatives.count(),
            None => {
                let range = slots.range(len);
                range.end - range.start
            }
        };
        Work {
            game,
            tier,
            children,
            len,
            slots,
            cells: crate::huge::vec(cells as usize, |_| AtomicU16::new(NOT_A_POSITION)),
            marks: (0..if G::IN_TIER_PARENTS {
                len.div_ceil(BLOCK) * MARK_WORDS as u64
            } else {
                0
            })
                .map(|_| AtomicU64::new(0))
                .collect(),
            fresh: [(); 2].map(|()| {
                (0..if G::IN_TIER_PARENTS {
                    len.div_ceil(GROUP).div_ceil(64)
                } else {
                    0
                })
                    .map(|_| AtomicU64::new(0))
                    .collect()
            }),
            broken: AtomicBool::new(false),
            problem: Mutex::new(None),
        }
    }

    /// Stops on a broken promise of the game or a cancel.
    fn check(&self, progress: &dyn Progress) -> Result<(), TierError> {
        if self.broken.load(Relaxed) {
            let problem = self
                .problem
                .lock()
                .ok()
                .and_then(|p| p.clone())
                .unwrap_or_default();
            return Err(TierError::Game(problem));
        }
        if progress.cancelled() {
            return Err(TierError::Cancelled);
        }
        Ok(())
    }

    /// Records that the game broke a promise at `index`.
    fn fail(&self, index: u64, what: &str) {
        if !self.broken.swap(true, Relaxed)
            && let Ok(mut problem) = self.problem.lock()
        {
            *problem = Some(format!(
                "tier {} index {index}: {what}",
                self.game.tier_name(self.tier)
            ));
        }
    }

    /// The first pass (see the module docs). Positions go through it
    /// [`BATCH`] at a time: their children are listed first, then the
    /// children in child tiers are read together, so that those reads'
    /// cache misses (they land all over the child tiers) overlap.
    fn seed(&self, progress: &dyn Progress) -> Seeds {
        let base = self.slots.range(self.len).start;
        chunks_in(self.slots.range(self.len))
            .map_init(Batch::default, |batch, range| {
                let mut seeds = Seeds::default();
                if progress.cancelled() || self.broken.load(Relaxed) {
                    return seeds;
                }
                let count = range.end - range.start;
                let mut one = |index: u64, position: G::Position| {
                    self.list_one(index, &position, batch, &mut seeds);
                    if batch.items.len() >= BATCH {
                        self.seed_batch(batch, &mut seeds);
                    }
                };
                match self.slots.representatives() {
                    None => {
                        let cells = (range.start - base) as usize..(range.end - base) as usize;
                        for cell in &self.cells[cells] {
                            cell.store(NOT_A_POSITION, Relaxed);
                        }
                        self.game.for_each_in_tier(self.tier, range, one);
                    }
                    // A representative was found a position: its board is read
                    // without its legality checked again.
                    Some(representatives) => representatives.for_each_in(range, |index| match self
                        .game
                        .tier_board(self.tier, index)
                    {
                        Some(position) => one(index, position),
                        None => self.fail(index, "a representative at an index naming no position"),
                    }),
                }
                self.seed_batch(batch, &mut seeds);
                progress.advance(count);
                seeds
            })
            .reduce(Seeds::default, Seeds::merge)
    }

    /// The first pass at one position, up to its children: a position
    /// decided without them is decided here; any other has its children
    /// listed in `batch`.
    fn list_one(&self, index: u64, position: &G::Position, batch: &mut Batch, seeds: &mut Seeds) {
        // Where only representatives have cells, only they are listed.
        if G::IN_TIER_SYMMETRY
            && self.slots.representatives().is_none()
            && !self.game.is_representative(position)
        {
            if let Some(cell) = self.cell(index) {
                cell.store(FOLDED, Relaxed);
            }
            return;
        }
        if let Some(value) = self.game.primitive(position) {
            seeds.ties |= value == Value::Tie;
            self.set(index, Outcome::terminal(value));
            return;
        }
        let mut any = false;
        let left_out = self.game.for_each_child_outside(position, |tier, child| {
            any = true;
            if tier == self.tier {
                batch.inside.push(child);
                return;
            }
            match self.children.iter().position(|c| c.tier == tier) {
                Some(at) => {
                    self.children[at].cells.prefetch(child as usize);
                    batch.outside.push((at, child));
                }
                None => self.fail(
                    index,
                    &format!(
                        "a move leads to tier {}, which is not a child tier",
                        self.game.tier_name(tier)
                    ),
                ),
            }
        });
        let left_out = left_out.unwrap_or(0);
        batch.items.push(Listed {
            index,
            inside_end: batch.inside.len(),
            outside_end: batch.outside.len(),
            left_out,
            any: any || left_out > 0,
        });
    }

    /// Reads the children in child tiers of every position listed in
    /// `batch`, then ends the first pass at each; empties the batch.
    fn seed_batch(&self, batch: &mut Batch, seeds: &mut Seeds) {
        batch.read.clear();
        batch.read.extend(
            batch
                .outside
                .iter()
                .map(|&(at, child)| self.children[at].cells.outcome(child as usize)),
        );
        let (mut inside_start, mut outside_start) = (0, 0);
        for i in 0..batch.items.len() {
            let listed = batch.items[i];
            let mut outside = Outside::default();
            let reads = outside_start..listed.outside_end;
            for (&read, &(at, child)) in batch.read[reads.clone()].iter().zip(&batch.outside[reads])
            {
                match read {
                    Some(outcome) => outside.add(outcome),
                    None => self.fail(
                        listed.index,
                        &format!(
                            "a move leads to tier {} index {child}, which is not a solved child tier's position",
                            self.game.tier_name(self.children[at].tier)
                        ),
                    ),
                }
            }
            let inside = &mut batch.inside[inside_start..listed.inside_end];
            inside.sort_unstable();
            let mut distinct = 0;
            for j in 0..inside.len() {
                if distinct == 0 || inside[j] != inside[distinct - 1] {
                    inside[distinct] = inside[j];
                    distinct += 1;
                }
            }
            let outside = listed.any.then_some(outside);
            self.seed_one(listed.index, outside, distinct + listed.left_out, seeds);
            inside_start = listed.inside_end;
            outside_start = listed.outside_end;
        }
        batch.items.clear();
        batch.inside.clear();
        batch.outside.clear();
    }

    /// The end of the first pass at one position: it has `inside` distinct
    /// children in the tier, and its children in child tiers say `outside`
    /// (`None` if it has no move).
    fn seed_one(&self, index: u64, outside: Option<Outside>, inside: usize, seeds: &mut Seeds) {
        let Some(outside) = outside else {
            self.set(index, Outcome::lose(0));
            return;
        };
        if inside == 0 {
            let outcome = outside.outcome();
            let r = outcome.remoteness.unwrap_or(0);
            if r > Cell::MAX_REMOTENESS {
                self.fail(index, "a remoteness does not fit a cell");
                return;
            }
            // Its parents in the tier hear of it at the next layer.
            match outcome.value {
                Value::Tie => {
                    seeds.ties = true;
                    seeds.last_tie = seeds.last_tie.max(r + 1);
                }
                Value::Win | Value::Lose => {
                    seeds.last_win_lose = seeds.last_win_lose.max(r + 1);
                }
                Value::Draw => {}
            }
            self.set(index, outcome);
            return;
        }
        if inside >= MOST_COUNTED {
            self.fail(
                index,
                &format!(
                    "more than {} distinct moves inside the tier",
                    MOST_COUNTED - 1
                ),
            );
            return;
        }
        if outside.lose.or(outside.tie).or(outside.win).unwrap_or(0) >= Cell::MAX_REMOTENESS {
            self.fail(index, "a remoteness does not fit a cell");
            return;
        }
        // A counter counts the children in the tier, plus one while some
        // child in a child tier keeps the position from losing.
        let (bits, due) = if let Some(l) = outside.lose {
            seeds.last_win_lose = seeds.last_win_lose.max(l + 1);
            (seed(WIN_SEED, l + 1), Some(l + 1))
        } else if let Some(t) = outside.tie {
            seeds.last_tie = seeds.last_tie.max(t + 1);
            seeds.ties = true;
            (seed(TIE_SEED, t + 1), Some(t + 1))
        } else if outside.blocks_loss() {
            (inside as u16 + 1, None)
        } else if let Some(w) = outside.win {
            if S::PART {
                // Counts its children in the tier now; once they are all
                // wins, its loss waits for those in child tiers
                // ([`Work::count_down`]).
                seeds.last_win_lose = seeds.last_win_lose.max(w + 1);
                (inside as u16, None)
            } else {
                seeds.add_event(w + 1);
                (seed(LOSE_EVENT, w + 1), Some(w + 1))
            }
        } else {
            (inside as u16, None)
        };
        if let Some(cell) = self.cell(index) {
            cell.store(bits, Relaxed);
        }
        if let Some(due) = due {
            self.mark(index, due);
        }
    }

    /// The working cell of the position at `index`, if it has one: every
    /// index has one, or every representative.
    #[inline]
    fn cell(&self, index: u64) -> Option<&AtomicU16> {
        self.slots.slot(index).and_then(|slot| self.cells.get(slot))
    }

    fn set(&self, index: u64, outcome: Outcome) {
        if let Some(cell) = self.cell(index) {
            cell.store(Cell::pack(outcome).bits(), Relaxed);
        }
        if let Some(r) = outcome.remoteness {
            self.mark(index, r);
        }
    }

    /// Notes in the mask of `index`'s block that a value at `remoteness`
    /// is decided or due there.
    #[inline]
    fn mark(&self, index: u64, remoteness: Remoteness) {
        let (word, bit) = mark_bit(remoteness);
        if let Some(mask) = self.marks.get((index / BLOCK) as usize * MARK_WORDS + word)
            && mask.load(Relaxed) & bit == 0
        {
            mask.fetch_or(bit, Relaxed);
        }
    }

    /// Notes in [`Work::fresh`] that a layer decided the position at
    /// `index` at `remoteness`.
    #[inline]
    fn note_fresh(&self, index: u64, remoteness: Remoteness) {
        let group = index / GROUP;
        let bit = 1 << (group % 64);
        if let Some(word) = self.fresh[remoteness as usize % 2].get((group / 64) as usize)
            && word.load(Relaxed) & bit == 0
        {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// The groups of the block starting at index `start` in which the
    /// layer of `remoteness` decided a position, a bit each from the
    /// block's first group.
    #[inline]
    fn fresh_groups(&self, start: u64, remoteness: Remoteness) -> u64 {
        const PER_BLOCK: u64 = BLOCK / GROUP;
        let group = start / GROUP;
        self.fresh[remoteness as usize % 2]
            .get((group / 64) as usize)
            .map_or(0, |word| {
                word.load(Relaxed) >> (group % 64) & u64::MAX >> (64 - PER_BLOCK)
            })
    }

    /// Forgets what the layer two before `remoteness` decided, before
    /// the layer of `remoteness` notes its own.
    fn clear_fresh(&self, remoteness: Remoteness) {
        for word in &self.fresh[remoteness as usize % 2] {
            word.store(0, Relaxed);
        }
    }

    /// Whether the block starting at index `start` may hold a value at
    /// `remoteness` (decided or due): its mask says so, or there are no
    /// masks.
    #[inline]
    fn marked(&self, start: u64, remoteness: Remoteness) -> bool {
        let (word, bit) = mark_bit(remoteness);
        self.marks
            .get((start / BLOCK) as usize * MARK_WORDS + word)
            .is_none_or(|mask| mask.load(Relaxed) & bit != 0)
    }

    /// Decides the position at `index` as the packed outcome `bits`, of
    /// remoteness `remoteness`, unless it is decided (or no position); true
    /// if this call decided it.
    #[inline]
    fn decide(&self, index: u64, bits: u16, remoteness: Remoteness) -> bool {
        let Some(cell) = self.cell(index) else {
            return false;
        };
        let mut current = cell.load(Relaxed);
        loop {
            if !open(current) {
                return false;
            }
            match cell.compare_exchange_weak(current, bits, Relaxed, Relaxed) {
                Ok(_) => {
                    self.note_fresh(index, remoteness);
                    return true;
                }
                Err(now) => current = now,
            }
        }
    }

    /// Takes one off the counter of the undecided position at `index` (one
    /// more child is a win); the loss of `ply` if none is left. True if
    /// this call decided it. A seed has no counter: a win or tie seed
    /// cannot lose, and a lose event counts its children when it is due.
    /// In a part of a cut tier ([`Slots::PART`]), a counter that runs out
    /// before the layer at which the children in child tiers (all wins)
    /// stop holding off the loss becomes a lose event due then, which
    /// that layer decides ([`Work::visit`]).
    #[inline]
    fn count_down(&self, index: u64, ply: &Ply) -> bool {
        let Some(cell) = self.cell(index) else {
            return false;
        };
        let mut current = cell.load(Relaxed);
        let mut due = None;
        loop {
            if !counting(current) {
                return false;
            }
            if S::PART && current == 1 && due.is_none() {
                due = Some(self.loss_due(index));
            }
            let next = match due {
                Some(due) if current == 1 && due > ply.remoteness => seed(LOSE_EVENT, due),
                _ if current == 1 => ply.lose.bits(),
                _ => current - 1,
            };
            match cell.compare_exchange_weak(current, next, Relaxed, Relaxed) {
                Ok(_) if tag(next) == LOSE_EVENT => {
                    self.mark(index, due.unwrap_or(0));
                    return false;
                }
                Ok(_) if current == 1 => {
                    self.note_fresh(index, ply.remoteness);
                    return true;
                }
                Ok(_) => return false,
                Err(now) => current = now,
            }
        }
    }

    /// The layer before which the children in child tiers of the position
    /// at `index` hold off its loss: one past the most remote of them
    /// (all wins, or it would have no counter to run out), 0 if it has
    /// none.
    fn loss_due(&self, index: u64) -> Remoteness {
        let Some(position) = self.game.tier_unrank(self.tier, index) else {
            self.fail(index, "a counter at an index naming no position");
            return 0;
        };
        let mut due = 0;
        self.game.for_each_child_outside(&position, |tier, child| {
            if tier == self.tier {
                return;
            }
            let outcome = self
                .children
                .iter()
                .find(|c| c.tier == tier)
                .and_then(|c| c.cells.outcome(child as usize));
            if let Some(outcome) = outcome {
                due = due.max(outcome.remoteness.unwrap_or(0) + 1);
            }
        });
        due
    }

    /// Before layer `remoteness` of wins and losses: each lose event due
    /// now counts its children in the tier that are not wins of
    /// remoteness below `remoteness - 1`, and is a loss now if none is
    /// left. Returns the losses it decided.
    fn recount(&self, remoteness: Remoteness) -> u64 {
        let len = self.len;
        let event = seed(LOSE_EVENT, remoteness);
        let lose = Cell::pack(Outcome::lose(remoteness)).bits();
        chunks(len)
            .map_init(Vec::new, |inside, range| {
                let mut lost = 0;
                let mut start = range.start;
                while start < range.end {
                    let end = (start + BLOCK).min(range.end);
                    let due = self.marked(start, remoteness);
                    for index in (start..end).filter(|_| due) {
                        let Some(cell) = self.cell(index) else {
                            continue;
                        };
                        if cell.load(Relaxed) != event {
                            continue;
                        }
                        let Some(position) = self.game.tier_unrank(self.tier, index) else {
                            self.fail(index, "a lose event at an index naming no position");
                            continue;
                        };
                        self.children_in_tier(&position, inside);
                        let left = inside
                            .iter()
                            .filter(|&&child| !self.won_before(child, remoteness - 1))
                            .count();
                        if left == 0 {
                            cell.store(lose, Relaxed);
                            self.note_fresh(index, remoteness);
                            lost += 1;
                        } else {
                            cell.store(left as u16, Relaxed);
                        }
                    }
                    start = end;
                }
                lost
            })
            .sum()
    }

    /// Whether the position at `index` of the tier is decided a win of
    /// remoteness below `remoteness`.
    fn won_before(&self, index: u64, remoteness: Remoteness) -> bool {
        self.cell(index)
            .map(|c| c.load(Relaxed))
            .filter(|&bits| decided(bits))
            .and_then(|bits| Cell::from_bits(bits).unpack())
            .is_some_and(|o| o.value == Value::Win && o.remoteness.is_some_and(|r| r < remoteness))
    }

    /// One layer: decides every position whose value has remoteness
    /// `remoteness` in `sweep`. Returns how many it decided.
    /// In a part of a cut tier, the parents outside the part are left in
    /// handed to `away` as [`away`] codes them, a chunk of the tier at a
    /// time (`away` empties the list).
    fn layer(&self, remoteness: Remoteness, sweep: Sweep, away: Option<&Away<'_>>) -> u64 {
        let decided_here = AtomicU64::new(0);
        let layer = Layer::new(remoteness, sweep);
        chunks_in(self.slots.range(self.len)).for_each_init(Spread::default, |spread, range| {
            if self.broken.load(Relaxed) {
                return;
            }
            let mut count = 0u64;
            let mut start = range.start;
            while start < range.end {
                // The block of `start` (a part may start inside one).
                let block = start - start % BLOCK;
                let end = (block + BLOCK).min(range.end);
                // Every group of a block with something due, else only the
                // groups where the layer before decided.
                let mut groups =
                    if self.marked(block, remoteness - 1) || self.marked(block, remoteness) {
                        u64::MAX
                    } else {
                        self.fresh_groups(block, remoteness - 1)
                    };
                while groups != 0 {
                    let first = block + u64::from(groups.trailing_zeros()) * GROUP;
                    if first >= end {
                        break;
                    }
                    groups &= groups - 1;
                    for index in first.max(start)..(first + GROUP).min(end) {
                        count += self.visit(index, &layer, spread);
                    }
                }
                start = end;
            }
            count += self.spread(&layer, spread);
            if let Some(away) = away
                && !spread.away.is_empty()
            {
                away(&mut spread.away);
            }
            decided_here.fetch_add(count, Relaxed);
        });
        decided_here.into_inner()
    }

    /// The work of one layer at one index; returns the positions it decided.
    /// A position decided at the layer before joins `spread`'s batch, whose
    /// parents are told once it is full.
    #[inline]
    fn visit(&self, index: u64, layer: &Layer, spread: &mut Spread) -> u64 {
        let Some(cell) = self.cell(index) else {
            return 0;
        };
        let bits = cell.load(Relaxed);
        if bits == layer.seed {
            return u64::from(self.decide(index, layer.seeded().bits(), layer.ply.remoteness));
        }
        if S::PART && bits == layer.due {
            return u64::from(self.decide(index, layer.ply.lose.bits(), layer.ply.remoteness));
        }
        if !G::IN_TIER_PARENTS {
            return if open(bits) {
                self.pull(index, layer, &mut spread.found)
            } else {
                0
            };
        }
        let value = if bits == layer.lost {
            Value::Lose
        } else if bits == layer.won {
            Value::Win
        } else if bits == layer.tied {
            Value::Tie
        } else {
            return 0;
        };
        spread.pending.push((index, value));
        if spread.pending.len() < SPREAD_BATCH {
            return 0;
        }
        self.spread(layer, spread)
    }

    /// Tells the parents of the positions in `spread`'s batch (decided at
    /// the layer before) of their values, and empties it; returns the
    /// positions decided. The parents of the whole batch are listed first,
    /// each cell fetched as it is listed ([`crate::prefetch()`]), then
    /// updated: the cache misses overlap where an update (an atomic
    /// exchange) would wait for each in turn.
    fn spread(&self, layer: &Layer, spread: &mut Spread) -> u64 {
        let Spread {
            pending,
            parents,
            targets,
            away,
            ..
        } = spread;
        targets.clear();
        for &(index, value) in pending.iter() {
            let Some(position) = self.game.tier_unrank(self.tier, index) else {
                continue;
            };
            parents.clear();
            let distinct =
                self.game
                    .for_each_parent_index_in_tier(self.tier, &position, |parent| {
                        parents.push(parent);
                    });
            if !distinct {
                parents.sort_unstable();
                parents.dedup();
            }
            for &parent in parents.iter() {
                if parent < self.len {
                    match self.cell(parent) {
                        Some(cell) => {
                            crate::prefetch::prefetch(cell);
                            targets.push((parent, value));
                        }
                        None if S::PART => away.push(self::away(parent, value)),
                        None => targets.push((parent, value)),
                    }
                } else {
                    self.fail(index, "an un-move leads outside the tier's index");
                }
            }
        }
        pending.clear();
        let mut count = 0;
        for &(index, value) in targets.iter() {
            let parent = &mut InTier { work: self, index };
            count += u64::from(rule::hear(parent, value, &layer.ply));
        }
        count
    }

    /// Tells the parents in `items` (as [`away`] codes them, each in this
    /// part) of their children decided at the layer before `remoteness`
    /// of `sweep`; returns the positions decided, or the first item that
    /// is no such parent.
    fn hear_away(&self, items: &[u64], remoteness: Remoteness, sweep: Sweep) -> Result<u64, u64> {
        let ply = Ply::at(remoteness);
        items
            .par_iter()
            .with_min_len(1 << 10)
            .map(|&item| {
                let index = item >> 1;
                let value = match (sweep, item & 1) {
                    (Sweep::WinLose, 0) => Value::Lose,
                    (Sweep::WinLose, _) => Value::Win,
                    (Sweep::Tie, 0) => Value::Tie,
                    (Sweep::Tie, _) => return Err(item),
                };
                if self.cell(index).is_none() {
                    return Err(item);
                }
                let parent = &mut InTier { work: self, index };
                Ok(u64::from(rule::hear(parent, value, &ply)))
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))
    }

    /// The distinct children of `position` inside the tier, in `out`.
    fn children_in_tier(&self, position: &G::Position, out: &mut Vec<u64>) {
        out.clear();
        self.game.for_each_folded_child(position, |tier, child| {
            if tier == self.tier {
                out.push(child);
            }
        });
        out.sort_unstable();
        out.dedup();
    }

    /// Without un-moves: the undecided position at `index` looks at its
    /// children in the tier decided at the layer before. Returns 1 if it is
    /// decided now.
    fn pull(&self, index: u64, layer: &Layer, found: &mut Vec<u64>) -> u64 {
        let (remoteness, sweep, ply) = (layer.ply.remoteness, layer.sweep, &layer.ply);
        let Some(position) = self.game.tier_unrank(self.tier, index) else {
            return 0;
        };
        self.children_in_tier(&position, found);
        let mut wins = 0;
        for &child in found.iter() {
            let Some(outcome) = self
                .cell(child)
                .map(|c| c.load(Relaxed))
                .filter(|&bits| decided(bits))
                .and_then(|bits| Cell::from_bits(bits).unpack())
            else {
                continue;
            };
            if outcome.remoteness != Some(remoteness - 1) {
                continue;
            }
            match (sweep, outcome.value) {
                (Sweep::WinLose, Value::Lose) => {
                    return u64::from(self.decide(index, ply.win.bits(), remoteness));
                }
                (Sweep::WinLose, Value::Win) => wins += 1,
                (Sweep::Tie, Value::Tie) => {
                    return u64::from(self.decide(index, ply.tie.bits(), remoteness));
                }
                _ => {}
            }
        }
        let mut decided_now = 0;
        for _ in 0..wins {
            decided_now += u64::from(self.count_down(index, ply));
        }
        decided_now
    }

    /// The last pass under symmetry with a cell per index: every folded
    /// position takes its representative's cell (representatives are
    /// never folded, so no cell read here is written here).
    fn unfold(&self) {
        let len = self.len;
        chunks(len).for_each(|range| {
            if self.broken.load(Relaxed) {
                return;
            }
            self.game
                .for_each_in_tier(self.tier, range, |index, position| {
                    let slot = index as usize;
                    if self.cells[slot].load(Relaxed) != FOLDED {
                        return;
                    }
                    let representative = self
                        .game
                        .tier_rank(self.tier, &self.game.fold_in_tier(&position));
                    match self
                        .cells
                        .get(representative as usize)
                        .map(|c| c.load(Relaxed))
                    {
                        Some(bits) if bits != FOLDED && bits != NOT_A_POSITION => {
                            self.cells[slot].store(bits, Relaxed);
                        }
                        _ => self.fail(
                            index,
                            "its symmetry class's representative is not a position of the tier",
                        ),
                    }
                });
        });
    }
}

/// The cell, as bits, that a working cell of `bits` ends as once the
/// sweeps are done (undecided is a draw); `None` for no position or one
/// folded onto its representative.
fn final_bits(bits: u16) -> Option<u16> {
    if decided(bits) {
        Some(bits)
    } else if bits == NOT_A_POSITION || bits == FOLDED {
        None
    } else {
        Some(Cell::pack(rule::LEFT).bits())
    }
}

/// One process's part of a tier cut between the processes of a team
/// (`super::cut` runs the rounds): working cells for the indices of its
/// range alone, solved as [`solve_tier`] solves the whole tier, a layer a
/// round. A layer leaves the parents outside the range to be told by
/// their processes ([`PartWork::layer`]), and hears those the other
/// processes find in it ([`PartWork::hear`]). Under symmetry inside
/// tiers, a position that is not its class's representative then takes
/// its representative's cell: here if that is in the part, else as its
/// process answers ([`PartWork::folded`]).
pub(super) struct PartWork<'a, G: NamedTiers> {
    work: Work<'a, G, Part>,
    seeds: Seeds,
}

impl<'a, G: NamedTiers> PartWork<'a, G> {
    /// The first pass over `range` of `tier` (a canonical tier) of
    /// `game`, reading the cells of its child tiers from `children`.
    pub(super) fn new(
        game: &'a G,
        tier: G::Tier,
        children: &'a [ChildCells<G::Tier>],
        range: Range<u64>,
        progress: &dyn Progress,
    ) -> Result<PartWork<'a, G>, TierError> {
        let len = game.tier_size(tier);
        let slots = Part {
            start: range.start.min(len),
            end: range.end.min(len),
        };
        let work = Work::new(game, tier, children, len, slots);
        progress.begin(
            &format!(
                "tier {}, indices {}..{}",
                game.tier_name(tier),
                range.start,
                range.end
            ),
            range.end - range.start,
        );
        let seeds = work.seed(progress);
        progress.end();
        work.check(progress)?;
        Ok(PartWork { work, seeds })
    }

    /// The last layer a seed of `sweep` fires at in this part.
    pub(super) fn last(&self, sweep: Sweep) -> Remoteness {
        match sweep {
            Sweep::WinLose => self.seeds.last_win_lose,
            Sweep::Tie => self.seeds.last_tie,
        }
    }

    /// Whether the first pass decided or seeded a tie in this part.
    pub(super) fn ties(&self) -> bool {
        self.seeds.ties
    }

    /// Readies the layers of a sweep, before its first.
    pub(super) fn begin_sweep(&self) {
        self.work.clear_fresh(0);
    }

    /// The layer of `remoteness` of `sweep` in this part: returns the
    /// positions it decided, and hands `away` each parent outside the
    /// part of a position decided at the layer before, doubled, plus one
    /// if that position is a win, in lists of a chunk of the part each
    /// (from several threads at once; it empties each).
    pub(super) fn layer(
        &self,
        remoteness: Remoteness,
        sweep: Sweep,
        away: &Away<'_>,
        progress: &dyn Progress,
    ) -> Result<u64, TierError> {
        self.work.clear_fresh(remoteness);
        let decided = self.work.layer(remoteness, sweep, Some(away));
        self.work.check(progress)?;
        Ok(decided)
    }

    /// Hears `items`, parents in this part coded as [`PartWork::layer`]
    /// leaves them, at the layer of `remoteness` of `sweep`: returns the
    /// positions decided, or the first item naming no parent of this
    /// part.
    pub(super) fn hear(
        &self,
        items: &[u64],
        remoteness: Remoteness,
        sweep: Sweep,
    ) -> Result<u64, u64> {
        self.work.hear_away(items, remoteness, sweep)
    }

    /// Stops on a broken promise of the game or a cancel.
    pub(super) fn check(&self, progress: &dyn Progress) -> Result<(), TierError> {
        self.work.check(progress)
    }

    /// Once the sweeps are done, under symmetry inside tiers: gives each
    /// position of `range` (in this part) that is not its class's
    /// representative the representative's cell where that is in the
    /// part, and returns the others as (their representative's index,
    /// their own), for the representative's process to tell.
    pub(super) fn folded(
        &self,
        range: Range<u64>,
        progress: &dyn Progress,
    ) -> Result<Vec<(u64, u64)>, TierError> {
        let work = &self.work;
        let lists: Vec<Vec<(u64, u64)>> =
            chunks_in(range)
                .map(|chunk| {
                    let mut away = Vec::new();
                    work.game
                        .for_each_in_tier(work.tier, chunk, |index, position| {
                            let Some(cell) = work.cell(index).filter(|c| c.load(Relaxed) == FOLDED)
                            else {
                                return;
                            };
                            let representative = work
                                .game
                                .tier_rank(work.tier, &work.game.fold_in_tier(&position));
                            match work.cell(representative).map(|c| final_bits(c.load(Relaxed))) {
                        Some(Some(bits)) => cell.store(bits, Relaxed),
                        Some(None) => work.fail(
                            index,
                            "its symmetry class's representative is not a position of the tier",
                        ),
                        None => away.push((representative, index)),
                    }
                        });
                    away
                })
                .collect();
        work.check(progress)?;
        Ok(lists.concat())
    }

    /// The final cell, as bits, of the representative at `index`, once the
    /// sweeps are done; `None` where it is not a representative of this
    /// part.
    pub(super) fn representative_cell(&self, index: u64) -> Option<u16> {
        final_bits(self.work.cell(index)?.load(Relaxed))
    }

    /// Gives the position at `index` (in this part) the cell of bits
    /// `bits`, its representative's.
    pub(super) fn set_folded(&self, index: u64, bits: u16) {
        if let Some(cell) = self.work.cell(index) {
            cell.store(bits, Relaxed);
        }
    }

    /// The cell of the position at `index` (in this part) once every
    /// layer is done (unknown where no position is).
    pub(super) fn cell(&self, index: u64) -> Cell {
        self.work
            .cell(index)
            .and_then(|cell| final_bits(cell.load(Relaxed)))
            .map_or(Cell::UNKNOWN, Cell::from_bits)
    }
}
