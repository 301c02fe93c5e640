//! The retrograde rule, stated once for every solver that works back from
//! the ends of play: [`super::retro`], [`super::byte_retro`], the tier
//! solver (`tier::solve`) and the distributed one (`dist::worker`).
//!
//! - **Seeds** ([`seed`]): a primitive position has its terminal value at
//!   remoteness 0, a position without moves is a loss in 0; every other
//!   position waits, counting its undecided children.
//! - **Sweeps** ([`Sweep`]): wins and losses spread first, ties second, each
//!   a round per remoteness. A decided position seeds the sweep of its
//!   value ([`Sweep::of`]); a primitive draw seeds none.
//! - **A round** ([`hear`]): each position decided at remoteness `r` tells
//!   its undecided parents, which are decided at `r + 1` ([`Ply::after`]):
//!   a loss makes a parent a win; a win counts the parent's undecided
//!   children down, and the last one makes it a loss; a tie makes it a tie.
//!   Deciding in rounds makes the remoteness exact: the fastest win, the
//!   slowest loss, the fastest tie.
//! - **The end** ([`LEFT`]): a position still undecided when both sweeps
//!   are over is a draw: neither side can force an end.
//!
//! A solver keeps its own working cells (a cell and a counter, a packed
//! word, a byte) and plugs them into [`hear`] through [`Parent`]; one whose
//! speed comes from a layout [`hear`] does not fit (the byte solver's
//! counters share a byte with remoteness) follows the same rule in its own
//! words, and the cross-solver test (`solve::rule_tests`) holds all four to
//! it on the same graphs.

use crate::value::{Cell, Outcome, Remoteness, Value};

/// The outcome a position has before any round: its terminal value if play
/// is over there (`primitive`), a loss in 0 if it has no move, else `None`
/// (it is decided by its children).
#[inline]
pub(crate) fn seed(primitive: Option<Value>, has_moves: bool) -> Option<Outcome> {
    match primitive {
        Some(value) => Some(Outcome::terminal(value)),
        None if !has_moves => Some(Outcome::lose(0)),
        None => None,
    }
}

/// The two sweeps of rounds, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sweep {
    /// Wins and losses.
    WinLose,
    /// Ties, through what the first sweep left undecided.
    Tie,
}

impl Sweep {
    /// The sweep a position decided as `value` spreads in: none for a
    /// draw, which no parent hears of.
    #[inline]
    pub(crate) fn of(value: Value) -> Option<Sweep> {
        match value {
            Value::Win | Value::Lose => Some(Sweep::WinLose),
            Value::Tie => Some(Sweep::Tie),
            Value::Draw => None,
        }
    }
}

/// What a position still undecided after both sweeps is.
pub(crate) const LEFT: Outcome = Outcome::DRAW;

/// The cells a round decides parents as: a win, a loss and a tie one ply
/// longer than the children it spreads from, packed once per round.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ply {
    /// The remoteness of the parents decided.
    pub(crate) remoteness: Remoteness,
    /// A parent of a loss.
    pub(crate) win: Cell,
    /// A parent whose last undecided child was a win.
    pub(crate) lose: Cell,
    /// A parent of a tie.
    pub(crate) tie: Cell,
}

impl Ply {
    /// The round that spreads from children at remoteness `child`, if its
    /// parents' remoteness fits a cell.
    pub(crate) fn after(child: Remoteness) -> Option<Ply> {
        let remoteness = child.checked_add(1)?;
        (remoteness <= Cell::MAX_REMOTENESS).then(|| Ply::at(remoteness))
    }

    /// The round that decides parents at `remoteness` (at most
    /// [`Cell::MAX_REMOTENESS`]: more is an engine bug).
    pub(crate) fn at(remoteness: Remoteness) -> Ply {
        Ply {
            remoteness,
            win: Cell::pack(Outcome::win(remoteness)),
            lose: Cell::pack(Outcome::lose(remoteness)),
            tie: Cell::pack(Outcome::tie(remoteness)),
        }
    }
}

/// An undecided parent as a solver keeps it: what [`hear`] does to it.
/// Each method leaves a decided position as it is.
pub(crate) trait Parent {
    /// Decides the parent as `cell` (a cell of `ply`) unless it is decided
    /// already; true if this call decided it.
    fn decide(&mut self, cell: Cell, ply: &Ply) -> bool;
    /// Takes one off the parent's count of undecided children, deciding it
    /// as `ply.lose` when none is left; true if this call decided it.
    fn count_down(&mut self, ply: &Ply) -> bool;
}

/// A parent hears that a child was decided as `child` in the round `ply`;
/// true if this decided the parent.
#[inline(always)]
pub(crate) fn hear(parent: &mut impl Parent, child: Value, ply: &Ply) -> bool {
    match child {
        Value::Lose => parent.decide(ply.win, ply),
        Value::Win => parent.count_down(ply),
        Value::Tie => parent.decide(ply.tie, ply),
        Value::Draw => false,
    }
}
