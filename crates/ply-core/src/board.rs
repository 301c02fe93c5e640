//! A position described for people: a grid of cells holding pieces, areas
//! off the board (hands), and every legal move as the cells it touches in
//! click order. `ply serve`'s page draws and plays any game from this
//! description alone, so a new game needs no script of its own.

use serde::Serialize;

/// A position as a page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Board {
    /// Rows of cells, top to bottom.
    pub rows: usize,
    /// Cells in a row, left to right.
    pub cols: usize,
    /// The labels written above the columns (empty for none).
    pub col_labels: Vec<String>,
    /// The labels written left of the rows (empty for none).
    pub row_labels: Vec<String>,
    /// The cells, row-major from the top left: `rows * cols` of them.
    pub cells: Vec<Cell>,
    /// Pieces off the board (hands), each a place a click can pick from.
    pub areas: Vec<Area>,
    /// The players' names, first player first.
    pub players: [String; 2],
    /// The player to move (0 or 1), if the position says.
    pub mover: Option<u8>,
    /// Whether a press and the release that follows make up a whole move
    /// (a click, or a drag from one end of a pin to the other); otherwise
    /// clicks add up until they name exactly one move.
    pub drag: bool,
    /// How to play, in a sentence or two.
    pub howto: String,
    /// Lines joining cells, by their ids, for a board whose places are
    /// points joined by lines (Nine Men's Morris) rather than squares: a
    /// page draws the lines and a point at each cell they touch, and no
    /// cell that no line touches. Empty for a grid of squares.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<[String; 2]>,
    /// Stand-ins, by cell ids: a click on the first cell of a pair counts
    /// as a click on the second while the first starts no move of its own.
    /// Connect Four lets every cell of a column stand for the cell where
    /// the column's disc lands, so that a click anywhere in the column
    /// drops a disc to its bottom. Empty for a board without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<[String; 2]>,
    /// Every legal move, with the clicks that make it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<BoardMove>,
}

/// One square of the board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The name a click on it gives (the game's square name, like `a1`).
    pub id: String,
    /// The pieces on it, usually none or one.
    pub pieces: Vec<Piece>,
}

/// A piece, drawn by its shape and side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Piece {
    /// The letter written on it (may be empty).
    pub letter: String,
    /// Its owner: 0 the first player, 1 the second, `None` for neutral.
    pub side: Option<u8>,
    /// How it is drawn.
    pub look: Look,
    /// Steps it may take, as (columns right, rows down) on the drawn board,
    /// drawn as dots toward the edges of the piece.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dots: Vec<[i8; 2]>,
}

/// How a piece is drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Look {
    /// Its letter alone.
    Letter,
    /// A cross (tic-tac-toe's x).
    Cross,
    /// A ring (tic-tac-toe's o).
    Ring,
    /// A round token with its letter.
    Disc,
    /// A square tile with its letter, turned toward its owner's opponent.
    Tile,
    /// A part of a piece filling its cell, joined to its neighbours of the
    /// same side (the L Game's L).
    Block,
    /// A pin slid in from the edge, covering the cell (Euler's pins).
    Pin,
}

/// Pieces off the board: a player's hand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Area {
    /// What to call it ("Sente's hand").
    pub label: String,
    /// Its owner, if any.
    pub side: Option<u8>,
    /// Its pieces, each with the name a click on it gives.
    pub pieces: Vec<AreaPiece>,
}

/// A kind of piece in an area, as many as `count`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AreaPiece {
    /// The name a click on it gives (like `S:C`).
    pub id: String,
    /// The piece.
    pub piece: Piece,
    /// How many of it.
    pub count: u32,
}

/// A legal move and the clicks that make it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardMove {
    /// The move's name, as `ply solve` lists it.
    pub name: String,
    /// Steps in order; each is a set of cell or area names clicked in any
    /// order (the four squares of an L).
    pub clicks: Vec<Vec<String>>,
}

impl Piece {
    /// A piece with no movement dots.
    pub fn new(letter: impl Into<String>, side: Option<u8>, look: Look) -> Self {
        Self {
            letter: letter.into(),
            side,
            look,
            dots: Vec::new(),
        }
    }
}

impl BoardMove {
    /// A move made by clicking the named targets one after another.
    pub fn clicks<S: Into<String>>(
        name: impl Into<String>,
        targets: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            name: name.into(),
            clicks: targets.into_iter().map(|t| vec![t.into()]).collect(),
        }
    }
}

/// The column letters `a`, `b`, ... for `cols` columns.
pub fn letters(cols: usize) -> Vec<String> {
    (0..cols)
        .map(|c| {
            let c = u32::try_from(c).unwrap_or(u32::MAX);
            char::from_u32('a' as u32 + c % 26).map_or_else(String::new, String::from)
        })
        .collect()
}

/// The row numbers `1`, `2`, ... for `rows` rows.
pub fn numbers(rows: usize) -> Vec<String> {
    (1..=rows).map(|r| r.to_string()).collect()
}

impl Board {
    /// An empty grid, columns lettered from `a` and rows numbered from 1 at
    /// the top, cells named like `a1`; no moves yet.
    pub fn grid(rows: usize, cols: usize) -> Self {
        Self::labelled(letters(cols), numbers(rows))
    }

    /// An empty grid with the given labels, cells named by column label then
    /// row label (by the column label alone if there are no row labels).
    pub fn labelled(col_labels: Vec<String>, row_labels: Vec<String>) -> Self {
        let (rows, cols) = (row_labels.len().max(1), col_labels.len());
        let cells = (0..rows * cols)
            .map(|i| Cell {
                id: format!(
                    "{}{}",
                    col_labels[i % cols],
                    row_labels.get(i / cols).map_or("", String::as_str)
                ),
                pieces: Vec::new(),
            })
            .collect();
        Self {
            rows,
            cols,
            col_labels,
            row_labels,
            cells,
            areas: Vec::new(),
            players: ["player 1".into(), "player 2".into()],
            mover: None,
            drag: false,
            howto: "Click the squares a move changes.".into(),
            lines: Vec::new(),
            aliases: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// The plain drawing of a position written as rows joined by `/`: each
    /// character but `.` and `-` a lettered piece, upper case the first
    /// player's and lower case the second's.
    pub fn from_text(text: &str) -> Self {
        let rows: Vec<Vec<char>> = text.split('/').map(|r| r.chars().collect()).collect();
        let cols = rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut board = Self::grid(rows.len(), cols);
        for (r, row) in rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                if ch != '.' && ch != '-' {
                    let side = if ch.is_lowercase() {
                        Some(1)
                    } else if ch.is_uppercase() {
                        Some(0)
                    } else {
                        None
                    };
                    board.cells[r * cols + c]
                        .pieces
                        .push(Piece::new(ch, side, Look::Letter));
                }
            }
        }
        board
    }

    /// The names of the cells whose pieces differ between two boards of one
    /// shape, in reading order (all of this board's cells if shapes differ).
    pub fn changed(&self, other: &Board) -> Vec<String> {
        self.cells
            .iter()
            .enumerate()
            .filter(|&(i, cell)| other.cells.get(i).is_none_or(|o| o.pieces != cell.pieces))
            .map(|(_, cell)| cell.id.clone())
            .collect()
    }

    /// The cell at `row`, `col`, to put pieces on.
    pub fn cell_mut(&mut self, row: usize, col: usize) -> &mut Cell {
        &mut self.cells[row * self.cols + col]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rows_become_a_grid_of_lettered_pieces() {
        let board = Board::from_text("x.o/.X.");
        assert_eq!((board.rows, board.cols), (2, 3));
        let ids: Vec<&str> = board.cells.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a1", "b1", "c1", "a2", "b2", "c2"]);
        assert_eq!(board.cells[0].pieces[0].side, Some(1));
        assert_eq!(board.cells[4].pieces[0].side, Some(0));
        assert!(board.cells[1].pieces.is_empty());
    }

    #[test]
    fn changed_names_the_cells_that_differ() {
        let a = Board::from_text("x../...");
        let b = Board::from_text("x../.o.");
        assert_eq!(a.changed(&b), ["b2"]);
        assert_eq!(a.changed(&a), Vec::<String>::new());
    }

    /// Marks on a row of three: each move marks an empty square, upper case
    /// for the first player; play ends when the row is full.
    struct Marks;

    impl crate::Game for Marks {
        type Position = String;
        type Move = usize;

        fn name(&self) -> String {
            "marks".into()
        }
        fn start(&self) -> String {
            "...".into()
        }
        fn primitive(&self, position: &String) -> Option<crate::Value> {
            (!position.contains('.')).then_some(crate::Value::Tie)
        }
        fn for_each_move(&self, position: &String, mut visit: impl FnMut(usize, String)) {
            let mark = if position.matches('.').count() % 2 == 1 {
                "A"
            } else {
                "b"
            };
            for (i, _) in position.match_indices('.') {
                let mut child = position.clone();
                child.replace_range(i..=i, mark);
                visit(i, child);
            }
        }
        fn parse_position(&self, text: &str) -> Result<String, crate::PositionError> {
            Ok(text.into())
        }
        fn format_position(&self, position: &String) -> String {
            position.clone()
        }
        fn format_move(&self, _: &String, mv: usize) -> String {
            format!("m{mv}")
        }
    }

    #[test]
    fn the_default_board_clicks_the_squares_a_move_changes() {
        use crate::Game;
        let board = Marks.board(&"A.b".to_string());
        assert_eq!(board.cells[0].pieces[0].side, Some(0));
        assert_eq!(board.cells[2].pieces[0].side, Some(1));
        assert_eq!(board.moves.len(), 1);
        assert_eq!(board.moves[0].name, "m1");
        assert_eq!(board.moves[0].clicks, [["b1"]]);
        assert!(Marks.board(&"AbA".to_string()).moves.is_empty());
    }

    #[test]
    fn a_row_without_row_labels_names_cells_by_column() {
        let board = Board::labelled(numbers(3), Vec::new());
        assert_eq!(board.cells[2].id, "3");
        assert_eq!(board.rows, 1);
    }
}
