//! Connect Four (Howard Wexler and Ned Strongin, Milton Bradley 1974):
//! two players drop discs into the columns of an upright grid, `x` first;
//! four of one's discs in a row (across, up or diagonal) wins at once, and
//! a full board without four is a tie. `connect4` is the standard 7 columns
//! by 6 rows; `connect4:WxH` plays W columns of H rows, any board whose
//! bitboard (W columns of H + 1 bits) fits in 64 bits, from 4x4 to 8x7.
//!
//! Text: the move sequence (`4453`, columns from `1` at the left, the form
//! of Pons's solver and Tromp's pages; the empty text is the start) or the
//! board, rows from the top joined by `/`, each of `.`, `x` and `o`
//! (`......./......./......./......./...o.../..xx...`); the mover follows
//! from the counts. Positions are written as boards. A move is its
//! column's digit.
//!
//! Bitboards in Pons's layout: column `c` holds bits `c * (H + 1)` up to
//! `c * (H + 1) + H - 1` from the bottom, with one spare bit above each
//! column so that shifts never carry a line from one column into the next.
//!
//! Tiers are the discs on the board ([`index`]); every move adds a disc,
//! so each tier is decided from the next one alone. A position's mirror
//! image (the columns reversed) plays alike: tiers are folded by it.
//! Single positions of boards too large to store are answered by search
//! ([`search`]).

pub mod index;
mod key;
pub mod legal;
mod present;
pub mod search;
mod stored;
pub mod streams;

use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::tensor::{Code, Tensor};
use ply_core::{Game, PositionError, Value};

/// A position: the discs of the player to move and all discs, as
/// bitboards in the layout of the module's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct C4Position {
    /// Every disc on the board.
    pub mask: u64,
    /// The discs of the player to move.
    pub mover: u64,
}

impl C4Position {
    /// The discs on the board.
    #[inline]
    pub fn discs(&self) -> u32 {
        self.mask.count_ones()
    }

    /// The discs of the player who moved last.
    #[inline]
    pub fn other(&self) -> u64 {
        self.mask ^ self.mover
    }

    /// The discs of `x`, the first player, and of `o`.
    #[inline]
    pub fn x_o(&self) -> (u64, u64) {
        if self.discs().is_multiple_of(2) {
            (self.mover, self.other())
        } else {
            (self.other(), self.mover)
        }
    }
}

/// Connect Four on a board of `width` columns and `height` rows.
#[derive(Clone, Debug)]
pub struct ConnectFour {
    width: u32,
    height: u32,
    /// The lowest cell of every column.
    bottom: u64,
    /// Every cell of the board.
    board: u64,
    /// The tiers' index tables.
    index: index::TierIndex,
}

impl Default for ConnectFour {
    fn default() -> Self {
        Self::sized(7, 6)
    }
}

/// Whether `discs` hold four in a row, on a board of columns of `stride`
/// bits (the height and a spare bit).
#[inline]
pub fn has_four(discs: u64, stride: u32) -> bool {
    for shift in [1, stride - 1, stride, stride + 1] {
        let pairs = discs & (discs >> shift);
        if pairs & (pairs >> (2 * shift)) != 0 {
            return true;
        }
    }
    false
}

impl ConnectFour {
    /// The board of `width` columns and `height` rows; refused unless both
    /// are at least 4 and the bitboard fits in 64 bits.
    pub fn new(width: u32, height: u32) -> Result<Self, PositionError> {
        if !(4..=9).contains(&width) || height < 4 || width * (height + 1) > 64 {
            return Err(PositionError::parameters(format!(
                "connect4 takes WxH with W and H at least 4, W at most 9 (one digit a column) \
                 and W * (H + 1) at most 64, from 4x4 to 8x7 (got {width}x{height})"
            )));
        }
        Ok(Self::sized(width, height))
    }

    /// The board of `width` columns and `height` rows, which
    /// [`ConnectFour::new`] has checked.
    fn sized(width: u32, height: u32) -> Self {
        let stride = height + 1;
        let column = (1u64 << height) - 1;
        let (mut bottom, mut board) = (0, 0);
        for c in 0..width {
            bottom |= 1 << (c * stride);
            board |= column << (c * stride);
        }
        Self {
            width,
            height,
            bottom,
            board,
            index: index::TierIndex::new(width, height),
        }
    }

    /// The game from the text after `connect4:`: `WxH`.
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let bad = || {
            PositionError::parameters(format!(
                "connect4 takes WxH, columns x rows, e.g. connect4:6x6 (got '{params}')"
            ))
        };
        let (w, h) = params.split_once('x').ok_or_else(bad)?;
        let width = w.parse().map_err(|_| bad())?;
        let height = h.parse().map_err(|_| bad())?;
        Self::new(width, height)
    }

    /// The columns.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The rows.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The bits a column takes: its height and a spare bit.
    #[inline]
    pub fn stride(&self) -> u32 {
        self.height + 1
    }

    /// The cells of the board.
    #[inline]
    pub fn cells(&self) -> u32 {
        self.width * self.height
    }

    /// The cells of column `c`.
    #[inline]
    pub fn column_mask(&self, c: u32) -> u64 {
        ((1u64 << self.height) - 1) << (c * self.stride())
    }

    /// The cell a disc dropped in column `c` lands on: empty where the
    /// column is full.
    #[inline]
    pub fn landing(&self, mask: u64, c: u32) -> u64 {
        (mask + (1 << (c * self.stride()))) & self.column_mask(c)
    }

    /// The cells every column's next disc lands on.
    #[inline]
    pub fn landings(&self, mask: u64) -> u64 {
        (mask + self.bottom) & self.board
    }

    /// The position after the mover drops a disc on `cell` (a landing cell).
    #[inline]
    pub fn play(&self, position: &C4Position, cell: u64) -> C4Position {
        C4Position {
            mask: position.mask | cell,
            mover: position.other(),
        }
    }

    /// Whether `discs` hold four in a row.
    #[inline]
    pub fn four(&self, discs: u64) -> bool {
        has_four(discs, self.stride())
    }

    /// The position with the columns reversed.
    pub fn mirror(&self, position: &C4Position) -> C4Position {
        let stride = self.stride();
        let column = (1u64 << stride) - 1;
        let (mut mask, mut mover) = (0, 0);
        for c in 0..self.width {
            let to = (self.width - 1 - c) * stride;
            mask |= ((position.mask >> (c * stride)) & column) << to;
            mover |= ((position.mover >> (c * stride)) & column) << to;
        }
        C4Position { mask, mover }
    }

    /// The discs in column `c`.
    #[inline]
    pub fn column_height(&self, mask: u64, c: u32) -> u32 {
        (mask & self.column_mask(c)).count_ones()
    }

    /// The position the move sequence `text` reaches (columns from `1`).
    fn parse_sequence(&self, text: &str) -> Result<C4Position, PositionError> {
        let mut position = self.start();
        for (at, ch) in text.chars().enumerate() {
            let column = ch
                .to_digit(10)
                .filter(|d| (1..=self.width).contains(d))
                .ok_or_else(|| {
                    PositionError::new(format!(
                        "move {} of the sequence is '{ch}': columns are the digits 1 to {}",
                        at + 1,
                        self.width
                    ))
                })?;
            if self.primitive(&position).is_some() {
                return Err(PositionError::illegal(format!(
                    "move {} of the sequence is played after the game is over",
                    at + 1
                )));
            }
            let cell = self.landing(position.mask, column - 1);
            if cell == 0 {
                return Err(PositionError::illegal(format!(
                    "move {} of the sequence drops a disc into column {column}, which is full",
                    at + 1
                )));
            }
            position = self.play(&position, cell);
        }
        Ok(position)
    }

    /// The position the board text `text` shows.
    fn parse_board(&self, text: &str) -> Result<C4Position, PositionError> {
        let rows: Vec<&str> = text.split('/').collect();
        if rows.len() != self.height as usize {
            return Err(PositionError::new(format!(
                "a {}x{} board has {} rows joined by '/', not {}",
                self.width,
                self.height,
                self.height,
                rows.len()
            )));
        }
        let (mut x, mut o) = (0u64, 0u64);
        for (r, row) in rows.iter().enumerate() {
            if row.chars().count() != self.width as usize {
                return Err(PositionError::new(format!(
                    "row {} ('{row}') has {} cells, not {}",
                    r + 1,
                    row.chars().count(),
                    self.width
                )));
            }
            let level = self.height - 1 - r as u32;
            for (c, ch) in row.chars().enumerate() {
                let bit = 1u64 << (c as u32 * self.stride() + level);
                match ch {
                    '.' => {}
                    'x' | 'X' => x |= bit,
                    'o' | 'O' => o |= bit,
                    _ => {
                        return Err(PositionError::new(format!(
                            "row {} has '{ch}': cells are '.', 'x' or 'o'",
                            r + 1
                        )));
                    }
                }
            }
        }
        let mask = x | o;
        for c in 0..self.width {
            let column = (mask >> (c * self.stride())) & ((1 << self.height) - 1);
            if column & (column + 1) != 0 {
                return Err(PositionError::illegal(format!(
                    "column {} has a disc floating above an empty cell",
                    c + 1
                )));
            }
        }
        let (nx, no) = (x.count_ones(), o.count_ones());
        if nx != no && nx != no + 1 {
            return Err(PositionError::illegal(format!(
                "{nx} x discs and {no} o discs: x plays first, so x has as many as o or one more"
            )));
        }
        let position = if nx == no {
            C4Position { mask, mover: x }
        } else {
            C4Position { mask, mover: o }
        };
        legal::check(self, &position).map_err(PositionError::illegal)?;
        Ok(position)
    }

    /// The cell name of bit `bit`: the column letter and the row from the
    /// top, as the page names squares.
    fn cell_name(&self, c: u32, level: u32) -> String {
        format!("{}{}", char::from(b'a' + c as u8), self.height - level)
    }
}

impl Game for ConnectFour {
    type Position = C4Position;
    /// The column, from 0 at the left.
    type Move = u8;

    fn name(&self) -> String {
        if (self.width, self.height) == (7, 6) {
            "connect4".into()
        } else {
            format!("connect4:{}x{}", self.width, self.height)
        }
    }

    fn start(&self) -> C4Position {
        C4Position { mask: 0, mover: 0 }
    }

    /// Four for the player who moved last ends play, lost for the mover;
    /// a full board without four is a tie.
    #[inline]
    fn primitive(&self, position: &C4Position) -> Option<Value> {
        if self.four(position.other()) {
            Some(Value::Lose)
        } else if position.mask == self.board {
            Some(Value::Tie)
        } else {
            None
        }
    }

    fn for_each_move(&self, position: &C4Position, mut visit: impl FnMut(u8, C4Position)) {
        for c in 0..self.width {
            let cell = self.landing(position.mask, c);
            if cell != 0 {
                visit(c as u8, self.play(position, cell));
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<C4Position, PositionError> {
        let text = text.trim();
        if text.contains('/') {
            self.parse_board(text)
        } else if text.chars().all(|c| c.is_ascii_digit()) {
            self.parse_sequence(text)
        } else {
            Err(PositionError::new(format!(
                "'{text}' is neither a move sequence (column digits 1 to {}) nor a board \
                 ({} rows of '.', 'x' and 'o' joined by '/')",
                self.width, self.height
            )))
        }
    }

    fn format_position(&self, position: &C4Position) -> String {
        let mut text = String::with_capacity(((self.width + 1) * self.height) as usize);
        self.write_position(position, &mut text);
        text
    }

    fn write_position(&self, position: &C4Position, text: &mut String) {
        let (x, o) = position.x_o();
        for level in (0..self.height).rev() {
            for c in 0..self.width {
                let bit = 1u64 << (c * self.stride() + level);
                text.push(if x & bit != 0 {
                    'x'
                } else if o & bit != 0 {
                    'o'
                } else {
                    '.'
                });
            }
            if level > 0 {
                text.push('/');
            }
        }
    }

    fn format_move(&self, _position: &C4Position, mv: u8) -> String {
        (mv + 1).to_string()
    }

    fn render(&self, position: &C4Position) -> String {
        let mut text = self.format_position(position).replace('/', "\n");
        text.push('\n');
        text.extend((1..=self.width).map(|c| char::from_digit(c, 10).unwrap_or('?')));
        let mover = if position.discs().is_multiple_of(2) {
            'x'
        } else {
            'o'
        };
        text.push_str(&format!("\n{mover} to move"));
        text
    }

    /// One code per cell: 0 empty, 1 an `x` disc, 2 an `o` disc; rows
    /// from the top.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: self.height as usize,
            cols: self.width as usize,
            codes: vec![
                Code::new("x (first)", Piece::new("", Some(0), Look::Disc)),
                Code::new("o (second)", Piece::new("", Some(1), Look::Disc)),
            ],
        })
    }

    fn fill_tensor(&self, position: &C4Position, cells: &mut [i8]) {
        let (x, o) = position.x_o();
        let mut at = 0;
        for level in (0..self.height).rev() {
            for c in 0..self.width {
                let bit = 1u64 << (c * self.stride() + level);
                cells[at] = if x & bit != 0 {
                    1
                } else if o & bit != 0 {
                    2
                } else {
                    0
                };
                at += 1;
            }
        }
    }

    /// The upright grid with discs, columns labelled by their digits; a
    /// move is a click on the cell its disc lands on, and every other cell
    /// of a column that is not full stands in for that cell (the board's
    /// aliases), so a click anywhere in the column drops the disc to its
    /// bottom.
    fn board(&self, position: &C4Position) -> Board {
        let cols = (1..=self.width).map(|c| c.to_string()).collect();
        let mut board = Board::labelled(cols, Vec::new());
        board.rows = self.height as usize;
        board.cols = self.width as usize;
        let (x, o) = position.x_o();
        board.cells.clear();
        for level in (0..self.height).rev() {
            for c in 0..self.width {
                let bit = 1u64 << (c * self.stride() + level);
                let mut cell = ply_core::board::Cell {
                    id: self.cell_name(c, level),
                    pieces: Vec::new(),
                };
                if x & bit != 0 {
                    cell.pieces.push(Piece::new("", Some(0), Look::Disc));
                } else if o & bit != 0 {
                    cell.pieces.push(Piece::new("", Some(1), Look::Disc));
                }
                board.cells.push(cell);
            }
        }
        board.players = ["x (first)".into(), "o (second)".into()];
        board.mover = Some((position.discs() % 2) as u8);
        board.howto = format!(
            "Click a column to drop your disc into it: the disc falls to the lowest empty \
             cell. The move is named by its column, 1 to {}. Four of your discs in a row, \
             across, up or diagonal, wins; a full board is a tie.",
            self.width
        );
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let c = u32::from(mv);
                let level = self.column_height(position.mask, c);
                let landing = self.cell_name(c, level);
                for other in (0..self.height).filter(|&l| l != level) {
                    board
                        .aliases
                        .push([self.cell_name(c, other), landing.clone()]);
                }
                board
                    .moves
                    .push(BoardMove::clicks(self.format_move(position, mv), [landing]));
            });
        }
        board
    }
}

#[cfg(test)]
mod tests;
