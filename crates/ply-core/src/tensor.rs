//! A board written as numbers, for datasets: one small int per cell of the
//! board description ([`Board::cells`], row-major from the top left), 0
//! for an empty cell and `i` for a cell holding exactly the `i`th piece of
//! the game's legend. `ply export` writes it as its `board` column, with
//! the legend in the file's metadata.

use crate::board::{Board, Piece};
use serde::Serialize;

/// How a game's boards are written as numbers: the grid's shape and what
/// each nonzero code stands for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tensor {
    /// Rows of cells, as in the board description.
    pub rows: usize,
    /// Cells in a row.
    pub cols: usize,
    /// The pieces, code 1 first: a cell holding exactly `codes[i - 1]`
    /// is written `i`; an empty cell is written 0.
    pub codes: Vec<Code>,
}

/// One nonzero code of a [`Tensor`]: a piece and what to call it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Code {
    /// What the piece is, in a few words ("pin", "neutral piece").
    pub name: String,
    /// The piece as the board description draws it.
    pub piece: Piece,
}

impl Code {
    /// A code for `piece`, called `name`.
    pub fn new(name: impl Into<String>, piece: Piece) -> Self {
        Self {
            name: name.into(),
            piece,
        }
    }
}

impl Tensor {
    /// How many cells a board has, so how many codes a row holds.
    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The codes of `board`'s cells, or a sentence saying why there are
    /// none: a board of another shape, or a cell holding pieces the legend
    /// has no code for.
    pub fn encode(&self, board: &Board) -> Result<Vec<i8>, String> {
        if (board.rows, board.cols) != (self.rows, self.cols) {
            return Err(format!(
                "the board is {}x{}, the tensor {}x{}",
                board.rows, board.cols, self.rows, self.cols
            ));
        }
        board
            .cells
            .iter()
            .map(|cell| match cell.pieces.as_slice() {
                [] => Ok(0),
                [piece] => self
                    .codes
                    .iter()
                    .position(|code| &code.piece == piece)
                    .and_then(|i| i8::try_from(i + 1).ok())
                    .ok_or_else(|| format!("cell {} holds a piece with no code", cell.id)),
                _ => Err(format!("cell {} holds several pieces", cell.id)),
            })
            .collect()
    }
}

/// Writes the codes of a board held as two masks, bit `s` for cell `s`:
/// 1 where `first` has the bit, 2 where `second` has it, 0 elsewhere (the
/// masks share no bit).
pub fn fill_two_masks(first: u64, second: u64, cells: &mut [i8]) {
    for (s, cell) in cells.iter_mut().enumerate() {
        *cell = (first >> s & 1) as i8 | ((second >> s & 1) << 1) as i8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Look;

    fn pins() -> Tensor {
        Tensor {
            rows: 1,
            cols: 3,
            codes: vec![
                Code::new("pin", Piece::new("", None, Look::Pin)),
                Code::new("x", Piece::new("x", Some(0), Look::Cross)),
            ],
        }
    }

    #[test]
    fn cells_are_coded_by_their_piece() {
        let mut board = Board::grid(1, 3);
        board.cells[1].pieces.push(Piece::new("", None, Look::Pin));
        board.cells[2]
            .pieces
            .push(Piece::new("x", Some(0), Look::Cross));
        assert_eq!(pins().encode(&board), Ok(vec![0, 1, 2]));
    }

    #[test]
    fn two_masks_give_codes_one_and_two() {
        let mut cells = [9; 5];
        fill_two_masks(0b00101, 0b10010, &mut cells);
        assert_eq!(cells, [1, 2, 1, 0, 2]);
    }

    #[test]
    fn unknown_pieces_and_shapes_are_refused() {
        let mut board = Board::grid(1, 3);
        board.cells[0]
            .pieces
            .push(Piece::new("o", Some(1), Look::Ring));
        assert!(pins().encode(&board).unwrap_err().contains("a1"));
        assert!(pins().encode(&Board::grid(2, 3)).is_err());
    }
}
