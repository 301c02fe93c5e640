//! Treblecross (UVA 10561): a row of squares; both players put an X on an
//! empty square, and whoever makes three X in a row wins.
//!
//! # The game as a sum
//! With no immediate win on the board (no `XX.`, `.XX` or `X.X`), an X put
//! within two squares of another hands the opponent three in a row at once:
//! those squares are *dead*. The other empty squares are *safe*, and they
//! fall into intervals between the X's. A move on a safe square kills the
//! squares within two of it in its own interval only (intervals are five or
//! more squares apart), so the intervals are independent games, and the
//! player left without a safe square loses. Playing the `s`-th of `L` safe
//! squares leaves `s - 3` and `L - s - 2` safe squares (none if negative).
//!
//! That is octal game 0.007 (take three tokens from a heap, leaving zero,
//! one or two heaps) with an interval of `L` safe squares as a heap of
//! `L + 2`: taking the tokens `s..s + 2` of it leaves heaps of `s - 1` and
//! `L - s`, and heaps 0, 1 and 2 are all worth 0, just as an interval with
//! no safe square. In terms of a run of `k` empty squares:
//! - between two X's, `L = k - 4`: the heap is `k - 2`;
//! - at one end of the row, next to an X, `L = k - 2`: the heap is `k`;
//! - a row with no X at all, `L = k`: the heap is `k + 2`.
//!
//! The position's value is the XOR of its heaps' 0.007 values (the
//! *nimber* reported: the Grundy value of play where no X may go next to or
//! one square from another unless it wins, the rule the spec states), and
//! the winning moves are the safe squares that bring the XOR to 0. With an
//! immediate win on the board, the squares that complete three in a row
//! are the only winning moves: after any other move the opponent completes.
//!
//! # Remoteness
//! Remoteness does not follow from nimbers. Positions with an immediate
//! win are wins in 1; with none, the game is the sum of intervals played to
//! the end, then one forced move onto a dead square and the opponent's
//! completing move: the remoteness of the sum plus 2
//! ([`Decompose::plies_when_played_out`]). The engine finds the remoteness
//! of the sum by search over multisets of heaps, exact but exponential, so
//! only for sums with few safe squares.

use crate::board::parse_number;
use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::limits::MAX_TREBLECROSS_ROW;
use ply_core::tensor::{Code, Tensor};
use ply_core::{Decompose, Game, OctalCode, PositionError, Remoteness, Value};
use std::fmt;

/// The longest row accepted. Intervals up to 2^20 - 2 squares use the 0.007
/// values ply ships; a longer one needs them computed, in time quadratic
/// in its length (several CPU-minutes at this limit).
pub const MAX_LENGTH: usize = MAX_TREBLECROSS_ROW;
/// The start row's length when none is given.
pub const DEFAULT_LENGTH: usize = 9;

/// A row: which of its squares hold an X.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    len: usize,
    words: Vec<u64>,
}

impl Row {
    /// A row of `len` empty squares.
    pub fn empty(len: usize) -> Self {
        Self {
            len,
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// The number of squares.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the row has no squares.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether square `square` (from 0) holds an X; false off the row.
    pub fn is_x(&self, square: usize) -> bool {
        square < self.len && self.words[square / 64] >> (square % 64) & 1 == 1
    }

    /// Whether the square `square - back` holds an X (false off the row).
    fn is_x_back(&self, square: usize, back: usize) -> bool {
        square.checked_sub(back).is_some_and(|s| self.is_x(s))
    }

    /// The same row with an X on `square`.
    pub fn with_x(&self, square: usize) -> Self {
        let mut next = self.clone();
        next.words[square / 64] |= 1 << (square % 64);
        next
    }

    /// The squares holding an X, ascending.
    pub fn xs(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + bit
                })
            })
        })
    }

    /// Whether three X stand in a row somewhere.
    pub fn has_three(&self) -> bool {
        let mut run = (usize::MAX - 1, 0);
        for x in self.xs() {
            run = if x == run.0 + 1 {
                (x, run.1 + 1)
            } else {
                (x, 1)
            };
            if run.1 == 3 {
                return true;
            }
        }
        false
    }

    /// Whether an X on the empty square `square` makes three in a row.
    pub fn completes_three(&self, square: usize) -> bool {
        let (l1, l2) = (self.is_x_back(square, 1), self.is_x_back(square, 2));
        let (r1, r2) = (self.is_x(square + 1), self.is_x(square + 2));
        !self.is_x(square) && (l1 && (l2 || r1) || r1 && r2)
    }

    /// The empty squares that complete three in a row, ascending, each once.
    pub fn completing_squares(&self) -> Vec<usize> {
        let mut squares: Vec<usize> = self
            .xs()
            .flat_map(|x| [x.wrapping_sub(2), x.wrapping_sub(1), x + 1, x + 2])
            .filter(|&s| s < self.len && self.completes_three(s))
            .collect();
        squares.sort_unstable();
        squares.dedup();
        squares
    }

    /// Reads a row of `.` (empty) and `X`.
    pub fn parse(text: &str) -> Result<Self, PositionError> {
        let mut row = Row::empty(text.len());
        for (i, ch) in text.bytes().enumerate() {
            match ch {
                b'X' => row.words[i / 64] |= 1 << (i % 64),
                b'.' => {}
                other => {
                    return Err(PositionError::new(format!(
                        "square {} is '{}': a row holds only '.' (empty) and 'X'",
                        i + 1,
                        other.escape_ascii()
                    )));
                }
            }
        }
        Ok(row)
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: String = (0..self.len)
            .map(|s| if self.is_x(s) { 'X' } else { '.' })
            .collect();
        f.write_str(&text)
    }
}

/// A run of safe squares between X's (or the row's ends): one 0.007 heap.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    /// The first safe square (from 0).
    pub first: usize,
    /// How many safe squares follow from it.
    pub safe: usize,
}

impl Interval {
    /// The 0.007 heap this interval is.
    pub fn heap(self) -> usize {
        self.safe + 2
    }
}

/// Treblecross on a row of any length from 3; the start position is an
/// empty row of a given length.
#[derive(Clone, Debug)]
pub struct Treblecross {
    start_len: usize,
}

impl Treblecross {
    /// The game whose start is an empty row of `start_len` squares.
    pub fn new(start_len: usize) -> Result<Self, PositionError> {
        check_length(start_len).map_err(|e| PositionError::parameters(e.message()))?;
        Ok(Self { start_len })
    }

    /// Reads the parameter after `treblecross:`: the start row's length.
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let len = parse_number(params, "the start row's length (e.g. treblecross:12)")?;
        Self::new(usize::try_from(len).unwrap_or(usize::MAX))
    }

    /// The intervals of safe squares, left to right, including empty ones
    /// (no safe square) between X's. Meaningful when the row has no
    /// immediate win.
    pub fn intervals(&self, row: &Row) -> Vec<Interval> {
        let mut intervals = Vec::new();
        let mut previous: Option<usize> = None;
        for x in row.xs() {
            intervals.push(match previous {
                None => Interval {
                    first: 0,
                    safe: x.saturating_sub(2),
                },
                Some(p) => Interval {
                    first: p + 3,
                    safe: (x - p - 1).saturating_sub(4),
                },
            });
            previous = Some(x);
        }
        intervals.push(match previous {
            None => Interval {
                first: 0,
                safe: row.len(),
            },
            Some(p) => Interval {
                first: p + 3,
                safe: (row.len() - p - 1).saturating_sub(2),
            },
        });
        intervals
    }

    /// The number of safe squares on a row with no immediate win.
    pub fn safe_squares(&self, row: &Row) -> usize {
        self.intervals(row).iter().map(|i| i.safe).sum()
    }

    /// Whether `square` is safe: empty and at least three squares from
    /// every X.
    pub fn is_safe(&self, row: &Row, square: usize) -> bool {
        (0..=2).all(|d| !row.is_x_back(square, d) && (d == 0 || !row.is_x(square + d)))
    }
}

impl Default for Treblecross {
    fn default() -> Self {
        Self {
            start_len: DEFAULT_LENGTH,
        }
    }
}

fn check_length(len: usize) -> Result<(), PositionError> {
    if (3..=MAX_LENGTH).contains(&len) {
        Ok(())
    } else {
        Err(PositionError::illegal(format!(
            "a row of {len} squares: rows have 3 to {MAX_LENGTH} squares"
        )))
    }
}

impl Game for Treblecross {
    fn board(&self, position: &Row) -> Board {
        self.describe(position)
    }

    /// One code per square of the row: 0 empty, 1 `X`.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: 1,
            cols: self.start_len,
            codes: vec![Code::new("X", Piece::new("X", None, Look::Letter))],
        })
    }

    fn fill_tensor(&self, row: &Row, cells: &mut [i8]) {
        for (square, cell) in cells.iter_mut().enumerate() {
            *cell = i8::from(row.is_x(square));
        }
    }

    type Position = Row;
    /// A square, from 0.
    type Move = usize;

    fn name(&self) -> String {
        if self.start_len == DEFAULT_LENGTH {
            "treblecross".to_string()
        } else {
            format!("treblecross:{}", self.start_len)
        }
    }

    fn start(&self) -> Row {
        Row::empty(self.start_len)
    }

    fn primitive(&self, row: &Row) -> Option<Value> {
        // The player who just moved made three in a row.
        row.has_three().then_some(Value::Lose)
    }

    fn for_each_move(&self, row: &Row, mut visit: impl FnMut(usize, Row)) {
        for square in 0..row.len() {
            if !row.is_x(square) {
                visit(square, row.with_x(square));
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<Row, PositionError> {
        check_length(text.len())?;
        Row::parse(text)
    }

    fn format_position(&self, row: &Row) -> String {
        row.to_string()
    }

    fn format_move(&self, _row: &Row, square: usize) -> String {
        (square + 1).to_string()
    }

    fn render(&self, row: &Row) -> String {
        let numbers: String = (1..=row.len())
            .map(|s| char::from(b'0' + (s % 10) as u8))
            .collect();
        format!("{row}\n{numbers}")
    }
}

impl Decompose for Treblecross {
    type Component = Interval;

    fn for_each_immediate_win(&self, row: &Row, mut visit: impl FnMut(usize)) {
        row.completing_squares().into_iter().for_each(&mut visit);
    }

    fn for_each_component(&self, row: &Row, visit: impl FnMut(Interval)) {
        self.intervals(row)
            .into_iter()
            .filter(|i| i.safe > 0)
            .for_each(visit);
    }

    /// Octal game 0.007 (see the module docs).
    fn octal_code(&self) -> OctalCode {
        OctalCode::parse("0.007").expect("0.007 is an octal code")
    }

    /// A row with no X: its length plus 2.
    fn most_tokens(&self) -> usize {
        MAX_LENGTH + 2
    }

    fn heap(&self, interval: &Interval) -> usize {
        interval.heap()
    }

    fn for_each_component_move(
        &self,
        interval: &Interval,
        mut visit: impl FnMut(usize, [usize; 2]),
    ) {
        let safe = interval.safe;
        for s in 1..=safe {
            // Heaps of s - 1 and L - s remain (see the module docs).
            visit(interval.first + s - 1, [s - 1, safe - s]);
        }
    }

    /// The empty squares within two of an X.
    fn for_each_dead_move(&self, row: &Row, mut visit: impl FnMut(usize)) {
        (0..row.len())
            .filter(|&s| !row.is_x(s) && !self.is_safe(row, s))
            .for_each(&mut visit);
    }

    /// The empty squares.
    fn count_moves(&self, row: &Row) -> usize {
        row.len() - row.xs().count()
    }

    /// A forced X on a dead square, then the opponent's completing X.
    fn plies_when_played_out(&self) -> Remoteness {
        2
    }
}

/// The page's drawing: a numbered row of squares; a move is a click on one.
impl Treblecross {
    fn describe(&self, row: &Row) -> Board {
        let mut board = Board::labelled(ply_core::board::numbers(row.len()), Vec::new());
        for square in row.xs() {
            board.cells[square]
                .pieces
                .push(Piece::new("X", None, Look::Letter));
        }
        board.howto = "Click an empty square to put an X there; three in a row wins.".into();
        if self.primitive(row).is_none() {
            self.for_each_move(row, |square, _| {
                let name = self.format_move(row, square);
                board.moves.push(BoardMove::clicks(name.clone(), [name]));
            });
        }
        board
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_and_print() {
        let game = Treblecross::default();
        let row = game.parse_position("..X.X..").unwrap();
        assert_eq!(row.to_string(), "..X.X..");
        assert_eq!(row.xs().collect::<Vec<_>>(), [2, 4]);
        assert!(!row.has_three());
        assert_eq!(row.completing_squares(), [3]);
        assert!(game.parse_position("..x..").is_err());
        assert!(game.parse_position("..").is_err());
        assert!(game.parse_position("XXX").unwrap().has_three());
        assert_eq!(
            game.primitive(&game.parse_position(".XXX.").unwrap()),
            Some(Value::Lose)
        );
    }

    #[test]
    fn intervals_follow_the_heap_mapping() {
        let game = Treblecross::default();
        // An empty row of k squares is heap k + 2.
        let row = Row::parse(".......").unwrap();
        assert_eq!(game.intervals(&row), [Interval { first: 0, safe: 7 }]);
        // Runs at the ends next to an X: heap k; between X's: heap k - 2.
        let row = Row::parse("....X.......X...").unwrap();
        let heaps: Vec<usize> = game.intervals(&row).iter().map(|i| i.heap()).collect();
        assert_eq!(heaps, [4, 7 - 2, 3]);
        let safe: Vec<usize> = (0..row.len()).filter(|&s| game.is_safe(&row, s)).collect();
        assert_eq!(safe, [0, 1, 7, 8, 9, 15]);
    }
}
