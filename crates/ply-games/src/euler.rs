//! The Game of Euler (UVA 10536): cover squares with pins pushed down or slid
//! in from an edge; whoever covers the last square loses.

use crate::board::{Shape, parse_dimensions};
use ply_core::{Game, Indexed, PositionError, Symmetric, Tiered, Value};

/// A position: the set of covered squares, bit `s` for square `s`
/// (row-major from the top left). Both players have the same moves, so who
/// is to move is not part of the position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Covered(pub u64);

/// The Game of Euler on a rows x cols board with pins up to a given length.
#[derive(Clone, Debug)]
pub struct Euler {
    shape: Shape,
    longest_pin: u8,
    /// Every distinct set of squares one move can cover.
    moves: Vec<u64>,
    symmetries: Vec<Vec<usize>>,
}

impl Euler {
    /// The board must have at most 32 squares, so the index fits a table.
    pub fn new(rows: u8, cols: u8, longest_pin: u8) -> Result<Self, PositionError> {
        let shape = Shape::new(rows, cols)?;
        if shape.squares() > 32 {
            return Err(PositionError::new("euler boards have at most 32 squares"));
        }
        if longest_pin == 0 {
            return Err(PositionError::new("the longest pin must be at least 1"));
        }
        let mut moves: Vec<u64> = (0..shape.squares()).map(|s| 1u64 << s).collect();
        let (rows, cols) = (usize::from(rows), usize::from(cols));
        let lines = (0..rows)
            .map(|r| (0..cols).map(|c| shape.square(r, c)).collect::<Vec<_>>())
            .chain((0..cols).map(|c| (0..rows).map(|r| shape.square(r, c)).collect()));
        for line in lines {
            let reversed: Vec<usize> = line.iter().rev().copied().collect();
            for from_edge in [line, reversed] {
                for len in 2..=usize::from(longest_pin).min(from_edge.len()) {
                    moves.push(from_edge[..len].iter().map(|&s| 1u64 << s).sum());
                }
            }
        }
        moves.sort_unstable();
        moves.dedup();
        Ok(Self {
            shape,
            longest_pin,
            moves,
            symmetries: shape.symmetries(),
        })
    }

    /// Reads the parameters after `euler:`: `RxC` or `RxCxL` (L = longest pin).
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let dims = parse_dimensions(params, 2).or_else(|_| parse_dimensions(params, 3))?;
        Self::new(dims[0], dims[1], dims.get(2).copied().unwrap_or(3))
    }

    /// The board's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The mask of a full board.
    pub fn full(&self) -> u64 {
        (1u64 << self.shape.squares()) - 1
    }

    /// Every distinct set of squares a single move can cover, sorted.
    pub fn move_masks(&self) -> &[u64] {
        &self.moves
    }
}

impl Default for Euler {
    fn default() -> Self {
        Self::new(4, 4, 3).expect("4x4 is a valid board")
    }
}

impl Game for Euler {
    type Position = Covered;
    type Move = u64;

    fn name(&self) -> String {
        if self.longest_pin == 3 {
            format!("euler:{}x{}", self.shape.rows, self.shape.cols)
        } else {
            format!(
                "euler:{}x{}x{}",
                self.shape.rows, self.shape.cols, self.longest_pin
            )
        }
    }

    fn start(&self) -> Covered {
        Covered(0)
    }

    fn primitive(&self, position: &Covered) -> Option<Value> {
        // The previous player covered the last square, and so lost.
        (position.0 == self.full()).then_some(Value::Win)
    }

    fn for_each_move(&self, position: &Covered, mut visit: impl FnMut(u64, Covered)) {
        for &mask in &self.moves {
            if mask & position.0 == 0 {
                visit(mask, Covered(position.0 | mask));
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<Covered, PositionError> {
        let mut covered = 0u64;
        for (r, row) in self.shape.split_rows(text)?.into_iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                match ch {
                    b'X' => covered |= 1 << self.shape.square(r, c),
                    b'.' => {}
                    other => {
                        return Err(PositionError::new(format!(
                            "row {} has '{}': expected 'X' (covered) or '.' (uncovered)",
                            r + 1,
                            other.escape_ascii()
                        )));
                    }
                }
            }
        }
        Ok(Covered(covered))
    }

    fn format_position(&self, position: &Covered) -> String {
        let cols = usize::from(self.shape.cols);
        let mut text = String::with_capacity(self.shape.squares() + usize::from(self.shape.rows));
        for s in 0..self.shape.squares() {
            if s > 0 && s % cols == 0 {
                text.push('/');
            }
            text.push(if position.0 >> s & 1 == 1 { 'X' } else { '.' });
        }
        text
    }

    fn format_move(&self, _position: &Covered, mv: u64) -> String {
        let first = mv.trailing_zeros() as usize;
        let last = 63 - mv.leading_zeros() as usize;
        if first == last {
            self.shape.square_name(first)
        } else {
            format!(
                "{}-{}",
                self.shape.square_name(first),
                self.shape.square_name(last)
            )
        }
    }
}

impl Indexed for Euler {
    fn index_len(&self) -> u64 {
        1 << self.shape.squares()
    }

    fn rank(&self, position: &Covered) -> u64 {
        position.0
    }

    fn unrank(&self, index: u64) -> Option<Covered> {
        (index < self.index_len()).then_some(Covered(index))
    }
}

impl Tiered for Euler {
    fn tier_count(&self) -> usize {
        self.shape.squares() + 1
    }

    fn tier(&self, position: &Covered) -> usize {
        position.0.count_ones() as usize
    }
}

impl Symmetric for Euler {
    fn for_each_symmetric(&self, position: &Covered, mut visit: impl FnMut(Covered)) {
        for map in &self.symmetries {
            let mut image = 0u64;
            let mut bits = position.0;
            while bits != 0 {
                let s = bits.trailing_zeros() as usize;
                image |= 1 << map[s];
                bits &= bits - 1;
            }
            visit(Covered(image));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_by_four_has_16_pushes_and_32_slides() {
        // Each of 16 lines from each of 2 ends gives a pin of length 2 and 3.
        assert_eq!(Euler::default().move_masks().len(), 16 + 16 * 2);
    }

    #[test]
    fn text_round_trips() {
        let game = Euler::default();
        let text = "XXX./XXX./.XXX/.XXX";
        assert_eq!(
            game.format_position(&game.parse_position(text).unwrap()),
            text
        );
        assert!(game.parse_position("XXX./XXX./.XXX").is_err());
        assert!(game.parse_position("XXX./XXX./.XXX/.XXO").is_err());
    }
}
