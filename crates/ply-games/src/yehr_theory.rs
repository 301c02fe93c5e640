//! The Yehr Game (HDU 3649) by theory: the winner of any position from a
//! few subtractions, with no table. Works on plain rows; the brute-force
//! solver of [`crate::yehr`] checks it on every position it indexes.
//!
//! # The position as a sum
//! - **Acm column.** If the acms stand on adjacent rows, the mover captures
//!   and wins at once. Otherwise each acm step (by either player) shortens
//!   the gap by one, and whoever steps onto the square next to the opposing
//!   acm is captured next move: of the `d` rows between them (`d = k1 - r1`)
//!   `d - 2` steps are safe, shared by both players: a heap from which one
//!   token is taken at a time, of nimber `(d - 2) mod 2`.
//! - **Bahamas and cab columns.** Each is a Nim heap on the gap between its
//!   two pieces (`k - r - 1` empty rows): moving toward the opposing piece
//!   takes any number from the heap. Moving away is a reversible move: the
//!   opponent follows by the same distance and the gap is back, with the
//!   retreating piece closer to its edge, so retreats cannot go on for ever
//!   and do not change the value (as in Northcott's game).
//! - **Dazes.** Each daze only steps backward, and only its owner moves it:
//!   Red has `r4 - 1` spare moves, Black `10 - k4`. Spare moves are an
//!   integer in the sense of combinatorial game theory, and a nonzero
//!   integer outweighs any nimber.
//!
//! Every player always has a legal move (the acm can always step), so a game
//! ends only with a capture, and the player left with no safe move must step
//! next to the opposing acm. The sum is therefore played under the normal
//! play convention with safe moves: with `N` the XOR of the acm, bahamas and
//! cab nimbers and `s` the mover's spare moves minus the opponent's, the
//! mover wins if `s > 0`, loses if `s < 0`, and with `s = 0` wins exactly
//! when `N != 0`.
//!
//! The winner's strategy shows why: keep `N = 0` after each own move (a Nim
//! move toward the opposing piece, or a safe acm step), answer a retreat by
//! following it, and answer a daze move with a daze move (or, when `s > 0`,
//! spend one when `N = 0` is to be faced). The winner never retreats and
//! never steps next to the opposing acm, so every one of the winner's moves
//! is progress of which there is a bounded amount: the game ends, and with
//! the loser to step into capture.
//!
//! Every legal position that is not already over (acms on one row) is
//! covered; there are no exceptions to fall back on.

use ply_core::value_with_tempo;
use ply_core::{Nimber, PositionError, Value};

/// Column letters, A to D.
const LETTERS: [char; 4] = ['A', 'B', 'C', 'D'];

/// A Yehr position on plain rows: who moves and where every piece stands,
/// columns A (acm), B (bahamas), C (cab), D (daze).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct YehrRows {
    /// Whether Red moves.
    pub red_to_move: bool,
    /// Red's rows, columns A to D.
    pub red: [u8; 4],
    /// Black's rows, columns A to D.
    pub black: [u8; 4],
}

/// The parts of a position's value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum YehrSum {
    /// The acms stand on adjacent rows: the mover captures and wins.
    Capture,
    /// The position as a sum.
    Sum {
        /// The acm column's nimber: the parity of its safe steps.
        acm: Nimber,
        /// The bahamas column's gap, a Nim heap.
        bahamas: Nimber,
        /// The cab column's gap, a Nim heap.
        cab: Nimber,
        /// The mover's spare daze moves minus the opponent's.
        spare: i64,
    },
}

impl YehrRows {
    /// A position, if every row is in 1..10, Red's piece is below Black's
    /// in every column, Red's daze is on rows 1..5 and Black's on 6..10
    /// (dazes start there and only move back).
    pub fn new(red_to_move: bool, red: [u8; 4], black: [u8; 4]) -> Result<Self, PositionError> {
        for (side, rows) in [("Red", red), ("Black", black)] {
            if let Some(c) = (0..4).find(|&c| !(1..=10).contains(&rows[c])) {
                return Err(PositionError::illegal(format!(
                    "{side}'s {} is on row {}; rows are 1..10",
                    LETTERS[c], rows[c]
                )));
            }
        }
        if let Some(c) = (0..4).find(|&c| red[c] >= black[c]) {
            return Err(PositionError::illegal(format!(
                "column {}: Red's piece (row {}) must be below Black's (row {})",
                LETTERS[c], red[c], black[c]
            )));
        }
        if red[3] > 5 || black[3] < 6 {
            return Err(PositionError::illegal(format!(
                "column D: Red's daze must be on rows 1..5 and Black's on 6..10, found {} and {}",
                red[3], black[3]
            )));
        }
        Ok(Self {
            red_to_move,
            red,
            black,
        })
    }

    /// The position as a sum, the immediate capture first.
    pub fn sum(&self) -> YehrSum {
        let (red, black) = (self.red, self.black);
        let distance = black[0] - red[0];
        if distance == 1 {
            return YehrSum::Capture;
        }
        let gap = |c: usize| Nimber::from(black[c] - red[c] - 1);
        let red_spare = i64::from(red[3]) - 1;
        let black_spare = 10 - i64::from(black[3]);
        YehrSum::Sum {
            acm: Nimber::from(distance - 2) % 2,
            bahamas: gap(1),
            cab: gap(2),
            spare: if self.red_to_move {
                red_spare - black_spare
            } else {
                black_spare - red_spare
            },
        }
    }

    /// The value for the player to move.
    pub fn value(&self) -> Value {
        match self.sum() {
            YehrSum::Capture => Value::Win,
            YehrSum::Sum {
                acm,
                bahamas,
                cab,
                spare,
            } => value_with_tempo(acm ^ bahamas ^ cab, spare),
        }
    }

    /// Whether Red wins with perfect play.
    pub fn red_wins(&self) -> bool {
        (self.value() == Value::Win) == self.red_to_move
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_sample_is_a_red_win() {
        let rows = YehrRows::new(true, [4, 5, 5, 5], [7, 6, 6, 6]).unwrap();
        assert_eq!(
            rows.sum(),
            YehrSum::Sum {
                acm: 1,
                bahamas: 0,
                cab: 0,
                spare: 0
            }
        );
        assert!(rows.red_wins());
    }

    #[test]
    fn adjacent_acms_are_captured_and_spares_decide_first() {
        let rows = YehrRows::new(false, [6, 1, 1, 5], [7, 10, 10, 6]).unwrap();
        assert_eq!(rows.sum(), YehrSum::Capture);
        assert!(!rows.red_wins());
        // Red has one spare daze move more: Red wins whoever starts.
        for red_to_move in [true, false] {
            let rows = YehrRows::new(red_to_move, [1, 2, 3, 5], [9, 8, 7, 7]).unwrap();
            assert!(rows.red_wins());
        }
    }

    #[test]
    fn impossible_rows_are_rejected() {
        for (red, black, why) in [
            ([4, 5, 5, 5], [7, 6, 6, 11], "rows are 1..10"),
            ([0, 5, 5, 5], [7, 6, 6, 6], "rows are 1..10"),
            ([4, 6, 5, 5], [7, 6, 6, 6], "column B"),
            ([7, 5, 5, 5], [7, 6, 6, 6], "column A"),
            ([4, 5, 5, 6], [7, 6, 6, 7], "column D"),
        ] {
            let err = YehrRows::new(true, red, black).unwrap_err().to_string();
            assert!(err.contains(why), "{red:?} {black:?}: {err}");
        }
    }
}
