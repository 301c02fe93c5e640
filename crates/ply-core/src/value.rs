//! Values of positions and how a position's value follows from its children's.

use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;

/// Plies to the end of the game under perfect play.
pub type Remoteness = u32;

/// A Grundy value: the Nim heap an impartial position under normal play equals.
pub type Nimber = u32;

/// The value of a position for the player to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Value {
    /// The player to move can force a win.
    Win,
    /// The player to move loses whatever they do.
    Lose,
    /// The game ends level (for example a full tic-tac-toe board).
    Tie,
    /// Play never ends under perfect play.
    Draw,
}

impl Value {
    /// All four values, in the order reports list them.
    pub const ALL: [Value; 4] = [Value::Win, Value::Lose, Value::Tie, Value::Draw];

    /// The lower-case name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Lose => "lose",
            Value::Tie => "tie",
            Value::Draw => "draw",
        }
    }

    /// The value of the same game seen by the other player.
    pub fn flip(self) -> Value {
        match self {
            Value::Win => Value::Lose,
            Value::Lose => Value::Win,
            other => other,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value together with its remoteness. Draws have no remoteness.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Who wins, for the player to move.
    pub value: Value,
    /// Plies to the end; `None` exactly for draws.
    pub remoteness: Option<Remoteness>,
}

impl Outcome {
    /// A win in `remoteness` plies.
    pub const fn win(remoteness: Remoteness) -> Self {
        Self {
            value: Value::Win,
            remoteness: Some(remoteness),
        }
    }
    /// A loss in `remoteness` plies.
    pub const fn lose(remoteness: Remoteness) -> Self {
        Self {
            value: Value::Lose,
            remoteness: Some(remoteness),
        }
    }
    /// A tie in `remoteness` plies.
    pub const fn tie(remoteness: Remoteness) -> Self {
        Self {
            value: Value::Tie,
            remoteness: Some(remoteness),
        }
    }
    /// A draw: play goes on for ever.
    pub const DRAW: Outcome = Outcome {
        value: Value::Draw,
        remoteness: None,
    };

    /// The outcome of a terminal position with value `value`.
    pub fn terminal(value: Value) -> Self {
        match value {
            Value::Draw => Self::DRAW,
            value => Self {
                value,
                remoteness: Some(0),
            },
        }
    }

    /// What this outcome of a child means for the player who moves into it:
    /// the value flips and one ply is added.
    pub fn through_move(self) -> Self {
        Self {
            value: self.value.flip(),
            remoteness: self.remoteness.map(|r| r + 1),
        }
    }

    /// Orders outcomes by how much the player to move likes them: a win beats
    /// a tie, a tie beats a draw, a draw beats a loss; the faster win, the
    /// faster tie and the slower loss are preferred.
    pub fn preference(self, other: Self) -> Ordering {
        self.preference_key().cmp(&other.preference_key())
    }

    fn preference_key(self) -> (u8, i64) {
        let r = i64::from(self.remoteness.unwrap_or(0));
        match self.value {
            Value::Win => (3, -r),
            Value::Tie => (2, -r),
            Value::Draw => (1, 0),
            Value::Lose => (0, r),
        }
    }

    /// The outcome of a position whose children have the given outcomes (each
    /// for the player to move in the child), or `None` if there are no children.
    pub fn from_children(children: impl IntoIterator<Item = Outcome>) -> Option<Outcome> {
        children
            .into_iter()
            .map(Outcome::through_move)
            .max_by(|a, b| a.preference(*b))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.remoteness {
            Some(r) => write!(f, "{} in {}", self.value, r),
            None => write!(f, "{}", self.value),
        }
    }
}

/// An outcome packed into two bytes for dense tables: the value in the top
/// three bits (1 win, 2 lose, 3 tie, 4 draw; 0 not yet known) and the
/// remoteness in the low thirteen (0 for a draw). The all-zero cell,
/// [`Cell::UNKNOWN`], means "not yet known".
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Cell(u16);

impl Cell {
    /// The cell of a position not yet solved.
    pub const UNKNOWN: Cell = Cell(0);
    /// The largest remoteness a cell can hold.
    pub const MAX_REMOTENESS: Remoteness = (1 << 13) - 1;

    /// Packs an outcome. Remoteness above [`Cell::MAX_REMOTENESS`] is an engine bug.
    pub fn pack(outcome: Outcome) -> Cell {
        let r = outcome.remoteness.unwrap_or(0);
        assert!(
            r <= Self::MAX_REMOTENESS,
            "remoteness {r} does not fit a table cell"
        );
        let tag: u16 = match outcome.value {
            Value::Win => 1,
            Value::Lose => 2,
            Value::Tie => 3,
            Value::Draw => 4,
        };
        Cell((tag << 13) | r as u16)
    }

    /// Unpacks the outcome, or `None` for [`Cell::UNKNOWN`].
    pub fn unpack(self) -> Option<Outcome> {
        let r = Remoteness::from(self.0 & ((1 << 13) - 1));
        match self.0 >> 13 {
            1 => Some(Outcome::win(r)),
            2 => Some(Outcome::lose(r)),
            3 => Some(Outcome::tie(r)),
            4 => Some(Outcome::DRAW),
            _ => None,
        }
    }

    /// A win or a loss whose remoteness a database leaves out, to be found
    /// again by a search of one ply ([`crate::derive`]): the value's tag
    /// plus four (5 for a win, 6 for a loss), remoteness bits zero.
    /// [`Cell::unpack`] gives `None` for it, so nothing reads it as an
    /// outcome by mistake. `None` for any other value.
    pub fn left_out(value: Value) -> Option<Cell> {
        match value {
            Value::Win => Some(Cell(5 << 13)),
            Value::Lose => Some(Cell(6 << 13)),
            Value::Tie | Value::Draw => None,
        }
    }

    /// The value of a cell made by [`Cell::left_out`], else `None`.
    pub fn left_out_value(self) -> Option<Value> {
        match self.0 {
            0xa000 => Some(Value::Win),
            0xc000 => Some(Value::Lose),
            _ => None,
        }
    }

    /// The raw bits, for storing cells in atomics or on disk.
    pub fn bits(self) -> u16 {
        self.0
    }

    /// A cell from raw bits produced by [`Cell::bits`].
    pub fn from_bits(bits: u16) -> Cell {
        Cell(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn outcome() -> impl Strategy<Value = Outcome> {
        prop_oneof![
            (0..100u32).prop_map(Outcome::win),
            (0..100u32).prop_map(Outcome::lose),
            (0..100u32).prop_map(Outcome::tie),
            Just(Outcome::DRAW),
        ]
    }

    #[test]
    fn a_losing_child_makes_a_win_one_ply_longer() {
        let children = [Outcome::win(3), Outcome::lose(4), Outcome::lose(2)];
        assert_eq!(Outcome::from_children(children), Some(Outcome::win(3)));
    }

    #[test]
    fn all_winning_children_make_the_slowest_loss() {
        let children = [Outcome::win(1), Outcome::win(5), Outcome::win(3)];
        assert_eq!(Outcome::from_children(children), Some(Outcome::lose(6)));
    }

    #[test]
    fn tie_beats_draw_and_draw_beats_loss() {
        assert_eq!(
            Outcome::from_children([Outcome::win(0), Outcome::DRAW]),
            Some(Outcome::DRAW)
        );
        assert_eq!(
            Outcome::from_children([Outcome::DRAW, Outcome::tie(7), Outcome::tie(2)]),
            Some(Outcome::tie(3))
        );
        assert_eq!(Outcome::from_children([]), None);
    }

    #[test]
    fn a_left_out_cell_is_no_outcome_and_keeps_its_value() {
        for value in [Value::Win, Value::Lose] {
            let cell = Cell::left_out(value).unwrap();
            assert_eq!(cell.unpack(), None);
            assert_ne!(cell, Cell::UNKNOWN);
            assert_eq!(cell.left_out_value(), Some(value));
        }
        assert_eq!(Cell::left_out(Value::Draw), None);
        assert_eq!(Cell::left_out(Value::Tie), None);
        for r in [0, 1, 7, Cell::MAX_REMOTENESS] {
            for o in [Outcome::win(r), Outcome::lose(r), Outcome::tie(r)] {
                assert_eq!(Cell::pack(o).left_out_value(), None);
            }
        }
        assert_eq!(Cell::UNKNOWN.left_out_value(), None);
    }

    proptest! {
        #[test]
        fn cells_round_trip(o in outcome()) {
            prop_assert_eq!(Cell::pack(o).unpack(), Some(o));
            prop_assert_ne!(Cell::pack(o), Cell::UNKNOWN);
        }

        #[test]
        fn the_chosen_child_is_one_of_the_children(children in proptest::collection::vec(outcome(), 1..8)) {
            let best = Outcome::from_children(children.iter().copied()).unwrap();
            prop_assert!(children.iter().any(|c| c.through_move() == best));
            for c in &children {
                prop_assert_ne!(c.through_move().preference(best), Ordering::Greater);
            }
        }
    }
}
