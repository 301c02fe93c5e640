//! m,n,k tic-tac-toe: `x` and `o` take turns marking empty squares of a
//! rows x cols board, `x` first; whoever first has `k` marks in a row,
//! column or diagonal wins, and a full board without such a line is a tie.
//! The default is 4x4, four in a row (UVA 10111).
//!
//! Positions are two bitboards. Who is to move follows from the counts, so a
//! position is legal exactly when it can arise in play: `x` has as many marks
//! as `o` or one more, the player to move has no line, and every line of the
//! player who moved last passes through one of their marks (their last move).

use crate::board::{Shape, parse_dimensions};
use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::tensor::{Code, Tensor, fill_two_masks};
use ply_core::{
    BySymmetry, FromMoves, Game, Indexed, NumberedTiers, PositionError, Remoteness, Retrograde,
    Searchable, Symmetric, TableWalk, Value,
};

/// The most squares a board may have: keys of up to 3^36 stay exact in the
/// search's transposition table, and every index fits a `u64`.
pub const MAX_SQUARES: usize = 36;

/// A position: the squares marked by each player, bit `s` for square `s`
/// (row-major from the top left).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Marks {
    /// Squares marked `x`.
    pub x: u64,
    /// Squares marked `o`.
    pub o: u64,
}

impl Marks {
    /// Every marked square.
    pub fn occupied(self) -> u64 {
        self.x | self.o
    }

    /// Whether `x` is to move (the counts are equal).
    pub fn x_to_move(self) -> bool {
        self.x.count_ones() == self.o.count_ones()
    }

    /// The marks of the player to move and of the player who moved last.
    pub fn mover_and_last(self) -> (u64, u64) {
        if self.x_to_move() {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }

    /// The position after the player to move marks `square`.
    pub fn play(self, square: usize) -> Marks {
        let bit = 1u64 << square;
        if self.x_to_move() {
            Marks {
                x: self.x | bit,
                o: self.o,
            }
        } else {
            Marks {
                x: self.x,
                o: self.o | bit,
            }
        }
    }
}

/// Bits per chunk in the lookup tables that rank and map bitboards.
const CHUNK: usize = 8;

/// m,n,k tic-tac-toe on a board of at most [`MAX_SQUARES`] squares.
#[derive(Clone, Debug)]
pub struct TicTacToe {
    shape: Shape,
    k: u8,
    full: u64,
    /// For each direction a line can run in: the step between its squares
    /// and the squares a line of `k` can start from.
    directions: Vec<(u32, u64)>,
    /// Runs of marks double in length, then top up to `k`: the lengths added.
    run_steps: Vec<u32>,
    /// Every line of `k` squares, as a mask.
    lines: Vec<u64>,
    /// Squares in search order: those on more lines first.
    search_order: Vec<u8>,
    /// `rank_chunks[c][b]`: the index contribution of the `x` marks `b` in
    /// chunk `c` (the `o` contribution is twice that).
    rank_chunks: Vec<[u64; 256]>,
    /// The same through every symmetry at once: lane `g` of
    /// `lane_chunks[c][b]` is the contribution to the index of the image
    /// under symmetry `g`, so images are ranked without being made.
    lane_chunks: Vec<[Lanes; 256]>,
    /// `lane_powers[s]`: lane `g` is the index of an `x` alone on square `s`,
    /// seen through symmetry `g`.
    lane_powers: Vec<Lanes>,
    /// Added to every lane vector: zero in the lanes of real symmetries, and
    /// too large to be least in the others.
    unused_lanes: Lanes,
    /// `image_chunks[g][c][b]`: where symmetry `g` maps the squares `b` of chunk `c`.
    image_chunks: Vec<Vec<[u64; 256]>>,
    /// `unrank_chunks[i]`: the `x` and `o` marks of the chunk whose base-3 digits make `i`.
    unrank_chunks: Vec<(u8, u8)>,
}

/// Symmetries a board can have at most.
const MAX_SYMMETRIES: usize = 8;

/// One number per symmetry of the board.
type Lanes = [u64; MAX_SYMMETRIES];

impl TicTacToe {
    /// A board of rows x cols with `k` in a row to win.
    pub fn new(rows: u8, cols: u8, k: u8) -> Result<Self, PositionError> {
        let shape = Shape::new(rows, cols)?;
        let squares = shape.squares();
        if squares > MAX_SQUARES {
            return Err(PositionError::parameters(format!(
                "a {rows}x{cols} board has {squares} squares; tic-tac-toe allows at most {MAX_SQUARES}"
            )));
        }
        if k == 0 || k > rows.max(cols) {
            return Err(PositionError::parameters(format!(
                "k = {k} cannot fit a {rows}x{cols} board: it must be between 1 and {}",
                rows.max(cols)
            )));
        }
        let (rows, cols, k) = (usize::from(rows), usize::from(cols), usize::from(k));
        let fits = |r: usize, c: usize, dr: isize, dc: isize| {
            let (end_r, end_c) = (
                r as isize + dr * (k as isize - 1),
                c as isize + dc * (k as isize - 1),
            );
            (0..rows as isize).contains(&end_r) && (0..cols as isize).contains(&end_c)
        };
        let mut directions = Vec::new();
        let mut lines = Vec::new();
        for (dr, dc) in [(0isize, 1isize), (1, 0), (1, 1), (1, -1)] {
            let step = (dr * cols as isize + dc) as u32;
            let mut starts = 0u64;
            for r in 0..rows {
                for c in 0..cols {
                    if fits(r, c, dr, dc) {
                        starts |= 1 << shape.square(r, c);
                        lines.push(
                            (0..k)
                                .map(|i| 1u64 << (shape.square(r, c) + i * step as usize))
                                .sum(),
                        );
                    }
                }
            }
            // A line of one square runs in every direction; count it once.
            if starts != 0 && (k > 1 || directions.is_empty()) {
                directions.push((step, starts));
            }
        }
        lines.sort_unstable();
        lines.dedup();
        let mut search_order: Vec<u8> = (0..squares as u8).collect();
        search_order.sort_by_key(|&s| {
            std::cmp::Reverse(lines.iter().filter(|&&l| l >> s & 1 == 1).count())
        });
        let powers: Vec<u64> = (0..squares as u32).map(|s| 3u64.pow(s)).collect();
        let symmetries = shape.symmetries();
        let chunks = squares.div_ceil(CHUNK);
        let chunk_table = |value: &dyn Fn(usize) -> u64| -> Vec<[u64; 256]> {
            (0..chunks)
                .map(|c| {
                    let mut table = [0u64; 256];
                    for (bits, slot) in table.iter_mut().enumerate() {
                        *slot = (0..CHUNK)
                            .filter(|i| bits >> i & 1 == 1 && c * CHUNK + i < squares)
                            .map(|i| value(c * CHUNK + i))
                            .sum();
                    }
                    table
                })
                .collect()
        };
        let rank_chunks = chunk_table(&|s| powers[s]);
        let mut lane_chunks = vec![[[0u64; MAX_SYMMETRIES]; 256]; chunks];
        for (g, map) in symmetries.iter().enumerate() {
            for (c, table) in chunk_table(&|s| powers[map[s]]).into_iter().enumerate() {
                for (b, &rank) in table.iter().enumerate() {
                    lane_chunks[c][b][g] = rank;
                }
            }
        }
        let lane_powers = (0..squares)
            .map(|s| {
                let mut lanes = [0u64; MAX_SYMMETRIES];
                for (lane, map) in lanes.iter_mut().zip(&symmetries) {
                    *lane = powers[map[s]];
                }
                lanes
            })
            .collect();
        let mut unused_lanes = [u64::MAX / 2; MAX_SYMMETRIES];
        unused_lanes[..symmetries.len()].fill(0);
        let mut run_steps = Vec::new();
        let mut run = 1;
        while run < k {
            let step = run.min(k - run);
            run_steps.push(step as u32);
            run += step;
        }
        let image_chunks = symmetries
            .iter()
            .map(|map| chunk_table(&|s| 1u64 << map[s]))
            .collect();
        let unrank_chunks = (0..3u32.pow(CHUNK as u32))
            .map(|index| {
                (0..CHUNK as u32).fold((0u8, 0u8), |(x, o), i| match index / 3u32.pow(i) % 3 {
                    1 => (x | 1 << i, o),
                    2 => (x, o | 1 << i),
                    _ => (x, o),
                })
            })
            .collect();
        Ok(Self {
            shape,
            k: k as u8,
            full: (1 << squares) - 1,
            directions,
            run_steps,
            lines,
            search_order,
            rank_chunks,
            lane_chunks,
            lane_powers,
            unused_lanes,
            image_chunks,
            unrank_chunks,
        })
    }

    /// Reads the parameters after `tictactoe:`: `RxCxK`, e.g. `3x3x3` or `5x5x4`.
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let dims = parse_dimensions(params, &["rows", "columns", "k"], 0)?;
        let shape = Shape::from_dimensions(dims[0], dims[1])?;
        let k = u8::try_from(dims[2]).map_err(|_| {
            PositionError::parameters(format!(
                "k = {} cannot fit a {}x{} board: it must be between 1 and {}",
                dims[2],
                shape.rows,
                shape.cols,
                shape.rows.max(shape.cols)
            ))
        })?;
        Self::new(shape.rows, shape.cols, k)
    }

    /// The board's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// How many in a row win.
    pub fn k(&self) -> u8 {
        self.k
    }

    /// The mask of every square.
    pub fn full(&self) -> u64 {
        self.full
    }

    /// Whether `marks` hold `k` in a row.
    pub fn has_line(&self, marks: u64) -> bool {
        self.directions.iter().any(|&(step, starts)| {
            let mut run = marks;
            for &length in &self.run_steps {
                run &= run >> (length * step);
            }
            run & starts != 0
        })
    }

    /// The empty squares where `marks` would complete a line not blocked by
    /// `other` marks.
    pub fn winning_squares(&self, marks: u64, other: u64) -> u64 {
        let need = u32::from(self.k) - 1;
        self.lines
            .iter()
            .filter(|&&line| line & other == 0 && (line & marks).count_ones() == need)
            .fold(0, |squares, &line| squares | (line & !marks))
    }

    /// An upper bound on the positions after symmetry: boards with legal
    /// counts, ignoring that play stops at a line, divided by the number of
    /// symmetries. Decides whether a whole-game table can fit in memory.
    pub fn class_bound(&self) -> u64 {
        let squares = self.shape.squares() as u64;
        let total: u128 = (0..=squares)
            .map(|t| binomial(squares, t) * binomial(t, t.div_ceil(2)))
            .sum();
        let classes = total / self.image_chunks.len() as u128;
        u64::try_from(classes).unwrap_or(u64::MAX)
    }

    /// Why `marks` cannot arise in play, if it cannot.
    pub fn check(&self, marks: Marks) -> Result<(), PositionError> {
        let (nx, no) = (marks.x.count_ones(), marks.o.count_ones());
        if marks.x & marks.o != 0 || marks.occupied() & !self.full != 0 {
            return Err(PositionError::illegal("marks overlap or lie off the board"));
        }
        if nx != no && nx != no + 1 {
            return Err(PositionError::illegal(format!(
                "x has {nx} marks and o has {no}: x moves first, so x has as many as o or one more"
            )));
        }
        let (mover, last) = marks.mover_and_last();
        let (mover_name, last_name) = if marks.x_to_move() {
            ("x", "o")
        } else {
            ("o", "x")
        };
        match (self.has_line(mover), self.has_line(last)) {
            (true, true) => Err(PositionError::illegal("both x and o have a line")),
            (true, false) => Err(PositionError::illegal(format!(
                "{mover_name} has a line but is to move: only {last_name}, who moved last, can have one"
            ))),
            (false, true) if !self.one_move_made_every_line(last) => Err(PositionError::illegal(
                format!("{last_name} has lines no single last move could have completed"),
            )),
            _ => Ok(()),
        }
    }

    fn one_move_made_every_line(&self, marks: u64) -> bool {
        let mut bits = marks;
        while bits != 0 {
            let square = bits & bits.wrapping_neg();
            if !self.has_line(marks & !square) {
                return true;
            }
            bits &= bits - 1;
        }
        false
    }

    fn chunk_sum(tables: &[[u64; 256]], bits: u64) -> u64 {
        tables
            .iter()
            .enumerate()
            .map(|(c, table)| table[(bits >> (c * CHUNK)) as usize & 0xff])
            .sum()
    }

    fn chunk_or(tables: &[[u64; 256]], bits: u64) -> u64 {
        tables.iter().enumerate().fold(0, |image, (c, table)| {
            image | table[(bits >> (c * CHUNK)) as usize & 0xff]
        })
    }

    /// The index of the image of `marks` under each symmetry, lane by lane.
    fn symmetric_ranks(&self, marks: Marks) -> Lanes {
        let mut lanes = self.unused_lanes;
        for (c, table) in self.lane_chunks.iter().enumerate() {
            let (x, o) = (
                &table[(marks.x >> (c * CHUNK)) as usize & 0xff],
                &table[(marks.o >> (c * CHUNK)) as usize & 0xff],
            );
            for g in 0..MAX_SYMMETRIES {
                lanes[g] += x[g] + 2 * o[g];
            }
        }
        lanes
    }

    fn image(&self, symmetry: usize, marks: Marks) -> Marks {
        let tables = &self.image_chunks[symmetry];
        Marks {
            x: Self::chunk_or(tables, marks.x),
            o: Self::chunk_or(tables, marks.o),
        }
    }
}

fn binomial(n: u64, k: u64) -> u128 {
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

impl Default for TicTacToe {
    fn default() -> Self {
        Self::new(4, 4, 4).expect("4x4x4 is a valid board")
    }
}

impl Game for TicTacToe {
    type Position = Marks;
    type Move = u8;

    fn board(&self, position: &Marks) -> Board {
        self.describe(position)
    }

    /// One code per square: 0 empty, 1 `x`, 2 `o`.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: usize::from(self.shape.rows),
            cols: usize::from(self.shape.cols),
            codes: vec![
                Code::new("x", Piece::new("x", Some(0), Look::Cross)),
                Code::new("o", Piece::new("o", Some(1), Look::Ring)),
            ],
        })
    }

    fn fill_tensor(&self, position: &Marks, cells: &mut [i8]) {
        fill_two_masks(position.x, position.o, cells);
    }

    fn name(&self) -> String {
        format!(
            "tictactoe:{}x{}x{}",
            self.shape.rows, self.shape.cols, self.k
        )
    }

    fn start(&self) -> Marks {
        Marks::default()
    }

    fn primitive(&self, position: &Marks) -> Option<Value> {
        let (_, last) = position.mover_and_last();
        if self.has_line(last) {
            Some(Value::Lose)
        } else if position.occupied() == self.full {
            Some(Value::Tie)
        } else {
            None
        }
    }

    fn for_each_move(&self, position: &Marks, mut visit: impl FnMut(u8, Marks)) {
        let mut empty = self.full & !position.occupied();
        while empty != 0 {
            let square = empty.trailing_zeros() as usize;
            visit(square as u8, position.play(square));
            empty &= empty - 1;
        }
    }

    fn parse_position(&self, text: &str) -> Result<Marks, PositionError> {
        let mut marks = Marks::default();
        for (r, row) in self.shape.split_rows(text)?.into_iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let bit = 1u64 << self.shape.square(r, c);
                match ch {
                    b'x' => marks.x |= bit,
                    b'o' => marks.o |= bit,
                    b'.' => {}
                    other => {
                        return Err(PositionError::new(format!(
                            "row {} has '{}': expected '.', 'x' or 'o'",
                            r + 1,
                            other.escape_ascii()
                        )));
                    }
                }
            }
        }
        self.check(marks)?;
        Ok(marks)
    }

    fn format_position(&self, position: &Marks) -> String {
        let cols = usize::from(self.shape.cols);
        let mut text = String::with_capacity(self.shape.squares() + usize::from(self.shape.rows));
        for s in 0..self.shape.squares() {
            if s > 0 && s % cols == 0 {
                text.push('/');
            }
            text.push(match (position.x >> s & 1, position.o >> s & 1) {
                (1, _) => 'x',
                (_, 1) => 'o',
                _ => '.',
            });
        }
        text
    }

    fn format_move(&self, _position: &Marks, mv: u8) -> String {
        self.shape.square_name(usize::from(mv))
    }
}

impl Indexed for TicTacToe {
    /// 3^squares: each square is empty (digit 0), `x` (1) or `o` (2).
    fn index_len(&self) -> u64 {
        3u64.pow(self.shape.squares() as u32)
    }

    fn rank(&self, position: &Marks) -> u64 {
        Self::chunk_sum(&self.rank_chunks, position.x)
            + 2 * Self::chunk_sum(&self.rank_chunks, position.o)
    }

    fn unrank(&self, index: u64) -> Option<Marks> {
        if index >= self.index_len() {
            return None;
        }
        let mut marks = Marks::default();
        let mut rest = index;
        let per_chunk = self.unrank_chunks.len() as u64;
        for c in 0..self.rank_chunks.len() {
            let (x, o) = self.unrank_chunks[(rest % per_chunk) as usize];
            marks.x |= u64::from(x) << (c * CHUNK);
            marks.o |= u64::from(o) << (c * CHUNK);
            rest /= per_chunk;
        }
        self.check(marks).ok().map(|()| marks)
    }
}

impl Symmetric for TicTacToe {
    fn for_each_symmetric(&self, position: &Marks, mut visit: impl FnMut(Marks)) {
        for symmetry in 0..self.image_chunks.len() {
            visit(self.image(symmetry, *position));
        }
    }

    /// The image with the least index, found from the images' indexes alone.
    fn canonical(&self, position: &Marks) -> Marks {
        let lanes = self.symmetric_ranks(*position);
        let best = (0..self.image_chunks.len())
            .min_by_key(|&g| lanes[g])
            .unwrap_or(0);
        self.image(best, *position)
    }

    /// Each child's images are its parent's plus one mark, so their indexes
    /// come from the parent's by one addition each.
    fn for_each_canonical_move(&self, position: &Marks, mut visit: impl FnMut(u8, Marks, u64)) {
        let parent = self.symmetric_ranks(*position);
        let digit = if position.x_to_move() { 1 } else { 2 };
        let mut empty = self.full & !position.occupied();
        while empty != 0 {
            let square = empty.trailing_zeros() as usize;
            let powers = &self.lane_powers[square];
            let mut rank = u64::MAX;
            for g in 0..MAX_SYMMETRIES {
                rank = rank.min(parent[g] + digit * powers[g]);
            }
            visit(square as u8, position.play(square), rank);
            empty &= empty - 1;
        }
    }
}

impl NumberedTiers for TicTacToe {
    /// Tier `t` holds the positions with `t` marks.
    fn tier_count(&self) -> usize {
        self.shape.squares() + 1
    }

    fn tier(&self, position: &Marks) -> usize {
        position.occupied().count_ones() as usize
    }

    /// Most indices cannot arise: the bound on classes says how few can.
    fn reachable_bound(&self) -> Option<u64> {
        Some(self.class_bound())
    }
}

/// The full-index table solver walks tic-tac-toe by the defaults: it is
/// here to be checked against the sparse solver, which suits this game.
impl TableWalk for TicTacToe {}

/// Distributed retrograde analysis solves tic-tac-toe from its moves.
impl Retrograde for TicTacToe {
    type Folding = BySymmetry;
    type Parents = FromMoves;
}

impl Searchable for TicTacToe {
    /// The index of the canonical image: symmetric positions share what
    /// the search learns about them.
    fn key(&self, position: &Marks) -> u64 {
        let lanes = self.symmetric_ranks(*position);
        lanes.into_iter().min().unwrap_or(0)
    }

    fn key_space(&self) -> u64 {
        self.index_len()
    }

    /// The empty squares: a game that ends level fills the board.
    fn plies_left(&self, position: &Marks) -> Remoteness {
        (self.full & !position.occupied()).count_ones()
    }

    /// A win at once if there is one; else, if the opponent threatens to win
    /// at once, only the blocks (every other move loses in 2, and a block
    /// loses no faster); else every move, squares on more lines first.
    fn for_each_search_move(&self, position: &Marks, mut visit: impl FnMut(u8, Marks)) {
        let empty = self.full & !position.occupied();
        let (mover, last) = position.mover_and_last();
        let wins = self.winning_squares(mover, last) & empty;
        if wins != 0 {
            let square = wins.trailing_zeros() as usize;
            visit(square as u8, position.play(square));
            return;
        }
        let threats = self.winning_squares(last, mover) & empty;
        let candidates = if threats != 0 { threats } else { empty };
        for &square in &self.search_order {
            if candidates >> square & 1 == 1 {
                visit(square, position.play(usize::from(square)));
            }
        }
    }
}

/// The page's drawing: crosses and rings; a move is a click on a square.
impl TicTacToe {
    fn describe(&self, position: &Marks) -> Board {
        let mut board = Board::grid(usize::from(self.shape.rows), usize::from(self.shape.cols));
        for (s, cell) in board.cells.iter_mut().enumerate() {
            if position.x >> s & 1 == 1 {
                cell.pieces.push(Piece::new("x", Some(0), Look::Cross));
            } else if position.o >> s & 1 == 1 {
                cell.pieces.push(Piece::new("o", Some(1), Look::Ring));
            }
        }
        board.players = ["x".into(), "o".into()];
        let (xs, os) = (position.x.count_ones(), position.o.count_ones());
        board.mover = Some(u8::from(xs > os));
        board.howto = "Click an empty square to play there.".into();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let name = self.format_move(position, mv);
                board.moves.push(BoardMove::clicks(name.clone(), [name]));
            });
        }
        board
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(game: &TicTacToe, text: &str) -> Marks {
        game.parse_position(text).unwrap()
    }

    #[test]
    fn text_round_trips_and_names_squares() {
        let game = TicTacToe::default();
        let text = "o.../.ox./.xxx/xooo";
        let marks = board(&game, text);
        assert_eq!(game.format_position(&marks), text);
        assert!(marks.x_to_move());
        assert_eq!(game.format_move(&marks, 7), "d2");
    }

    #[test]
    fn rejects_positions_that_cannot_arise() {
        let game = TicTacToe::default();
        for (text, why) in [
            ("xx../..../..../....", "x has 2 marks and o has 0"),
            ("o.../..../..../....", "x has 0 marks and o has 1"),
            ("xxxx/oooo/..../....", "both x and o have a line"),
            ("xxxx/ooo./..../o...", "x has a line but is to move"),
            ("xxx./..../..../...z", "expected '.', 'x' or 'o'"),
            ("xxx./..../....", "expected 4 rows"),
        ] {
            let err = game.parse_position(text).unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
        }
        // Two lines through the last mark are fine; two apart are not.
        board(&game, "xxxx/xooo/xoo./x.o.");
        let three = TicTacToe::new(4, 4, 3).unwrap();
        let err = three.parse_position("xxxo/oo../xxxo/o...").unwrap_err();
        assert!(err.to_string().contains("no single last move"), "{err}");
    }

    #[test]
    fn lines_run_in_all_four_directions_and_not_round_the_edge() {
        let game = TicTacToe::new(5, 5, 4).unwrap();
        assert_eq!(game.lines.len(), 2 * 5 * 2 + 2 * 2 * 2);
        let row = |r: usize, c: usize| (0..4).map(|i| 1u64 << game.shape.square(r, c + i)).sum();
        assert!(game.has_line(row(2, 1)));
        // Squares 3..=6 wrap from row 0 into row 1: not a line.
        assert!(!game.has_line(0b111_1000));
        let anti: u64 = (0..4)
            .map(|i| 1u64 << game.shape.square(1 + i, 4 - i))
            .sum();
        assert!(game.has_line(anti));
        let last = 1u64 << game.shape.square(4, 1);
        assert_eq!(game.winning_squares(anti & !last, 0), last);
        assert_eq!(game.winning_squares(anti & !last, last), 0);
    }

    #[test]
    fn primitive_values_follow_the_last_move() {
        let game = TicTacToe::new(3, 3, 3).unwrap();
        assert_eq!(
            game.primitive(&board(&game, "xxx/oo./...")),
            Some(Value::Lose)
        );
        assert_eq!(
            game.primitive(&board(&game, "xox/xoo/oxx")),
            Some(Value::Tie)
        );
        assert_eq!(game.primitive(&board(&game, "xo./.../...")), None);
    }

    #[test]
    fn index_and_symmetries_agree_with_the_plain_definitions() {
        let game = TicTacToe::new(3, 4, 3).unwrap();
        let marks = board(&game, "x.o./.x../o...");
        let plain = |m: &Marks| -> u64 {
            (0..12)
                .map(|s| 3u64.pow(s) * (m.x >> s & 1 | (m.o >> s & 1) << 1))
                .sum()
        };
        assert_eq!(game.rank(&marks), plain(&marks));
        assert_eq!(game.unrank(game.rank(&marks)), Some(marks));
        let mut images = Vec::new();
        game.for_each_symmetric(&marks, |image| images.push(image));
        assert_eq!(images.len(), 4);
        assert_eq!(images[0], marks);
        let least = images.iter().min_by_key(|m| plain(m)).unwrap();
        assert_eq!(&game.canonical(&marks), least);
    }

    #[test]
    fn class_bound_counts_legal_boards() {
        // 6046 boards of 3x3 have legal counts; 8 symmetries.
        assert_eq!(TicTacToe::new(3, 3, 3).unwrap().class_bound(), 6046 / 8);
    }

    #[test]
    fn every_board_is_solved_by_a_reachable_table_or_by_search() {
        // Most indices of a board cannot arise: a table of the reachable
        // positions where its bound fits, else search, never a whole index.
        for rows in 1..=6u8 {
            for cols in 1..=6u8 {
                let Ok(game) = TicTacToe::new(rows, cols, 3.min(rows.max(cols))) else {
                    continue;
                };
                let bytes = ply_core::SparseTable::peak_bytes(game.index_len(), game.class_bound());
                let expected = if bytes <= ply_core::limits::MAX_SPARSE_BYTES {
                    ply_core::Choice::SparseTable
                } else {
                    ply_core::Choice::AlphaBeta
                };
                assert_eq!(
                    ply_core::choose(game.index_len(), game.reachable_bound()),
                    expected,
                    "{rows}x{cols}"
                );
            }
        }
    }
}
