//! Teeko (John Scarne, 1937), with the rules of GamesmanOne so that both
//! solvers answer the same game: a 5x5 board, four pieces a side, dropped
//! one at a time (Black `X` first), then moved one square in any of the 8
//! directions. Making a pattern with one's four pieces wins at once: four
//! in a row (across, down, diagonal) or a 2x2 square, 44 patterns; the
//! advanced game (`teeko:advanced`) adds the corners of the upright 3x3,
//! 4x4 and 5x5 squares, 14 more (GamesmanOne's list). Nothing else ends
//! play. `teeko:4x4` (and `teeko:4x4,advanced`) plays on a 4x4 board with
//! the patterns that fit on it, a game small enough to check solvers on.
//!
//! Text: the five rows from the top, each of `.`, `X` and `O`, joined by
//! `/`, then `/` and the side to move: `...../...../...../...../...../X`.
//! Moves: a drop is its square (`c3`), a step its from and to squares
//! (`c3d4`); columns `a`..`e` from the left, rows 1..5 from the top.
//!
//! Tiers: the pieces dropped, 0 to 7, and the move phase (8 pieces) as one
//! tier in which play loops. Index: tier by tier; within a tier the colex
//! rank of the X squares among the 25, then of the O squares among the
//! squares X leaves; in the drop phase the counts say who moves, in the
//! move phase the mover is the high part of the index. That is 172,401,726
//! indices over the 9 tiers, the number GamesmanOne gives for its own.
//! A move-phase index whose mover already shows a pattern is no position
//! (play ended before it); the other indices all are.

use crate::colex::{BINOMIAL, Colex, Packing, PackingPath, mark, pop, squares_of, with_packing};
use crate::two_sides::TwoSides;
use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::tensor::{Code, Tensor, fill_two_masks};
use ply_core::{
    BySymmetry, FromUnmoves, Game, Indexed, NamedTiers, Parents, PositionError, Progress,
    RetroTable, Retrograde, Symmetric, Value,
};
use std::ops::Range;

/// Squares on the full board.
const SQUARES: usize = 25;
/// Squares on a side of the full board.
const SIDE: usize = 5;
/// Pieces each player has.
const PIECES: u32 = 4;
/// The most patterns with one lowest square.
const PER_SQUARE: usize = 8;
/// The tier of the move phase (and the number of drop tiers).
pub const MOVE_TIER: usize = 8;
/// The number of tiers: 0 to 7 pieces dropped, then the move phase.
pub const TIERS: usize = 9;

/// The 44 patterns of the standard game, as GamesmanOne lists them:
/// across, down, the two diagonal directions, then the 2x2 squares.
const STANDARD: [[u8; 4]; 44] = [
    [0, 1, 2, 3],
    [1, 2, 3, 4],
    [5, 6, 7, 8],
    [6, 7, 8, 9],
    [10, 11, 12, 13],
    [11, 12, 13, 14],
    [15, 16, 17, 18],
    [16, 17, 18, 19],
    [20, 21, 22, 23],
    [21, 22, 23, 24],
    [0, 5, 10, 15],
    [5, 10, 15, 20],
    [1, 6, 11, 16],
    [6, 11, 16, 21],
    [2, 7, 12, 17],
    [7, 12, 17, 22],
    [3, 8, 13, 18],
    [8, 13, 18, 23],
    [4, 9, 14, 19],
    [9, 14, 19, 24],
    [1, 7, 13, 19],
    [0, 6, 12, 18],
    [6, 12, 18, 24],
    [5, 11, 17, 23],
    [3, 7, 11, 15],
    [4, 8, 12, 16],
    [8, 12, 16, 20],
    [9, 13, 17, 21],
    [0, 1, 5, 6],
    [1, 2, 6, 7],
    [2, 3, 7, 8],
    [3, 4, 8, 9],
    [5, 6, 10, 11],
    [6, 7, 11, 12],
    [7, 8, 12, 13],
    [8, 9, 13, 14],
    [10, 11, 15, 16],
    [11, 12, 16, 17],
    [12, 13, 17, 18],
    [13, 14, 18, 19],
    [15, 16, 20, 21],
    [16, 17, 21, 22],
    [17, 18, 22, 23],
    [18, 19, 23, 24],
];

/// The 14 more patterns of the advanced game, as GamesmanOne lists them:
/// the corners of the 3x3, 4x4 and 5x5 squares.
const ADVANCED: [[u8; 4]; 14] = [
    [0, 2, 10, 12],
    [1, 3, 11, 13],
    [2, 4, 12, 14],
    [5, 7, 15, 17],
    [6, 8, 16, 18],
    [7, 9, 17, 19],
    [10, 12, 20, 22],
    [11, 13, 21, 23],
    [12, 14, 22, 24],
    [0, 3, 15, 18],
    [1, 4, 16, 19],
    [5, 8, 20, 23],
    [6, 9, 21, 24],
    [0, 4, 20, 24],
];

/// `neighbours[s]`: the squares one step from `s` in any of 8
/// directions, on a board of `side` x `side`.
fn neighbours(side: usize) -> [u32; SQUARES] {
    let mut table = [0u32; SQUARES];
    let side = side as i32;
    for (s, entry) in table.iter_mut().enumerate().take((side * side) as usize) {
        let (r, c) = (s as i32 / side, s as i32 % side);
        for dr in -1..=1 {
            for dc in -1..=1 {
                let (nr, nc) = (r + dr, c + dc);
                if (dr, dc) != (0, 0) && (0..side).contains(&nr) && (0..side).contains(&nc) {
                    *entry |= 1 << (nr * side + nc);
                }
            }
        }
    }
    table
}

/// A position: the squares of each side's pieces (bit `s` for square `s`,
/// row-major from the top left; X is Black, the first player, and O is
/// Red) and who moves.
pub type TeekoPosition = TwoSides;

/// The tier of `position`: pieces dropped, at most [`MOVE_TIER`] (the move
/// phase).
#[inline]
pub fn tier(position: &TeekoPosition) -> usize {
    pop(position.occupied()) as usize
}

/// A move: a drop on a square, or a step of a piece from one square to a
/// neighbouring one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TeekoMove {
    /// A piece put on an empty square (the drop phase).
    Drop(u8),
    /// A piece moved from the first square to the second (the move phase).
    Step(u8, u8),
}

/// Teeko, standard or advanced, on its 5x5 board or (a smaller game for
/// checks) on 4x4, with its pattern and index tables.
#[derive(Clone, Debug)]
pub struct Teeko {
    advanced: bool,
    /// Squares on a side: 5, or 4 for the small board.
    side: usize,
    /// Squares on the board.
    squares: usize,
    /// Every square.
    board: u32,
    /// The squares one step from each square.
    neighbours: [u32; SQUARES],
    /// The patterns as square sets, by their lowest square, 0 after the
    /// last (a side with four pieces has a pattern when its set is one of
    /// those of its lowest square).
    by_low: [[u32; PER_SQUARE]; SQUARES],
    /// The patterns kept in `by_low`, sorted.
    patterns: Vec<u32>,
    /// The first index of each tier, and the index count after the last.
    offsets: [u64; TIERS + 1],
    /// The board's symmetries, applied to masks.
    images: crate::board::MaskImages,
    /// How the index packs point sets.
    packing: PackingPath,
}

impl Default for Teeko {
    fn default() -> Self {
        Self::new(false)
    }
}

/// The set of the given squares.
const fn mask_of(squares: &[u8; 4]) -> u32 {
    1 << squares[0] | 1 << squares[1] | 1 << squares[2] | 1 << squares[3]
}

/// `mask` with the squares of `taken` squeezed out: bit `i` of the result
/// is the `i`th square not in `taken` (no square of `mask` is in `taken`).
#[inline]
fn squeeze<P: Packing>(mask: u32, taken: u32) -> u32 {
    Colex::get().compress::<P>(mask, !taken)
}

/// The inverse of [`squeeze`]: bit `i` of `squeezed` becomes the `i`th
/// square not in `taken`.
#[inline]
fn spread<P: Packing>(squeezed: u32, taken: u32) -> u32 {
    Colex::get().expand::<P>(squeezed, !taken)
}

/// The number of indices in `tier` on a board of `squares` squares.
const fn tier_len(squares: usize, tier: usize) -> u64 {
    if tier < MOVE_TIER {
        let (x, o) = drop_counts(tier);
        BINOMIAL[squares][x] * BINOMIAL[squares - x][o]
    } else {
        2 * BINOMIAL[squares][4] * BINOMIAL[squares - 4][4]
    }
}

/// The pieces X and O have after `tier` drops (X drops first).
#[inline]
const fn drop_counts(tier: usize) -> (usize, usize) {
    (tier.div_ceil(2), tier / 2)
}

impl Teeko {
    /// Standard Teeko, or the advanced game with its 14 more patterns.
    pub fn new(advanced: bool) -> Self {
        Self::on_board(SIDE, advanced)
    }

    /// The game on a `side` x `side` board (5, or 4 for a small game whose
    /// patterns are those of the full board that fit on it).
    fn on_board(side: usize, advanced: bool) -> Self {
        let squares = side * side;
        // A pattern of the full board on the top-left `side` x `side`
        // squares, renumbered for the smaller board.
        let fit = |pattern: &[u8; 4]| {
            pattern
                .iter()
                .all(|&s| usize::from(s) % SIDE < side && usize::from(s) / SIDE < side)
                .then(|| {
                    let squares = pattern.map(|s| {
                        let (r, c) = (usize::from(s) / SIDE, usize::from(s) % SIDE);
                        (r * side + c) as u8
                    });
                    mask_of(&squares)
                })
        };
        let mut patterns: Vec<u32> = STANDARD.iter().filter_map(fit).collect();
        if advanced {
            patterns.extend(ADVANCED.iter().filter_map(fit));
        }
        patterns.sort_unstable();
        let mut by_low = [[0u32; PER_SQUARE]; SQUARES];
        let mut kept = Vec::with_capacity(patterns.len());
        for &pattern in &patterns {
            let bucket = &mut by_low[pattern.trailing_zeros() as usize];
            // Every list fits (7 at most, in the advanced game's corner);
            // `patterns()` shows what is kept.
            if let Some(slot) = bucket.iter_mut().find(|slot| **slot == 0) {
                *slot = pattern;
                kept.push(pattern);
            }
        }
        let patterns = kept;
        let mut offsets = [0u64; TIERS + 1];
        for tier in 0..TIERS {
            offsets[tier + 1] = offsets[tier] + tier_len(squares, tier);
        }
        let shape = crate::board::Shape {
            rows: side as u8,
            cols: side as u8,
        };
        let images = shape.mask_images();
        Self {
            advanced,
            side,
            squares,
            board: (1 << squares) - 1,
            neighbours: neighbours(side),
            by_low,
            patterns,
            offsets,
            images,
            packing: PackingPath::in_use(),
        }
    }

    /// The same game, its index packing point sets by `path` (by default
    /// [`PackingPath::in_use`]).
    pub fn packed_by(self, path: PackingPath) -> Self {
        Self {
            packing: path,
            ..self
        }
    }

    /// The game from the text after `teeko:`: `advanced` or `standard`,
    /// and `4x4` for the small board (`4x4,advanced` for both).
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let (mut side, mut advanced) = (SIDE, false);
        for part in params.split(',') {
            match part {
                "advanced" => advanced = true,
                "standard" => advanced = false,
                "4x4" => side = 4,
                "5x5" => side = SIDE,
                other => {
                    return Err(PositionError::parameters(format!(
                        "teeko takes 'advanced', 'standard', '4x4' or '5x5' (joined by ','), \
                         not '{}'",
                        other.escape_debug()
                    )));
                }
            }
        }
        Ok(Self::on_board(side, advanced))
    }

    /// Whether this is the advanced game.
    pub fn is_advanced(&self) -> bool {
        self.advanced
    }

    /// The patterns that win, as square sets.
    pub fn patterns(&self) -> &[u32] {
        &self.patterns
    }

    /// Whether the pieces on `mask` make a pattern.
    #[inline]
    pub fn has_pattern(&self, mask: u32) -> bool {
        // A pattern has 4 squares: a set with more or fewer equals none,
        // and the empty set is kept from the lists' zero padding.
        mask != 0 && self.by_low[(mask.trailing_zeros() as usize).min(SQUARES - 1)].contains(&mask)
    }

    /// The number of indices in `tier` (0 past the last tier): on the full
    /// board, GamesmanOne's tier size.
    #[inline]
    pub fn tier_len(&self, tier: usize) -> u64 {
        match (self.offsets.get(tier), self.offsets.get(tier + 1)) {
            (Some(start), Some(end)) => end - start,
            _ => 0,
        }
    }

    /// The indices of `tier` in the whole index.
    pub fn tier_range(&self, tier: usize) -> Range<u64> {
        self.offsets[tier]..self.offsets[tier + 1]
    }

    /// The index of `position` within its tier.
    #[inline]
    pub fn rank_in_tier(&self, position: &TeekoPosition) -> u64 {
        self.rank_in(tier(position).min(MOVE_TIER), position)
    }

    /// The index of `position` within `tier`, its tier.
    #[inline]
    fn rank_in(&self, tier: usize, position: &TeekoPosition) -> u64 {
        with_packing!(self.packing, P => self.rank_by::<P>(tier, position))
    }

    /// [`Teeko::rank_in`], packing by `P`.
    #[inline]
    fn rank_by<P: Packing>(&self, tier: usize, position: &TeekoPosition) -> u64 {
        let (x_count, o_count) = if tier == MOVE_TIER {
            (4, 4)
        } else {
            drop_counts(tier)
        };
        let rest = BINOMIAL[self.squares - x_count][o_count];
        let colex = Colex::get();
        let within =
            colex.rank(position.x) * rest + colex.rank(squeeze::<P>(position.o, position.x));
        if tier == MOVE_TIER {
            u64::from(position.o_to_move) * (self.tier_len(MOVE_TIER) / 2) + within
        } else {
            within
        }
    }

    /// The position of `tier` with index `index` within it, if that index
    /// is in the tier and names a position of the game.
    pub fn unrank_in_tier(&self, tier: usize, index: u64) -> Option<TeekoPosition> {
        if tier >= TIERS || index >= self.tier_len(tier) {
            return None;
        }
        let (x_count, o_count, o_to_move, within) = if tier == MOVE_TIER {
            let half = self.tier_len(MOVE_TIER) / 2;
            (4, 4, index >= half, index % half)
        } else {
            let (x, o) = drop_counts(tier);
            (x, o, x != o, index)
        };
        let rest = BINOMIAL[self.squares - x_count][o_count];
        let colex = Colex::get();
        let x = colex.unrank(within / rest, x_count as u32, self.squares as u32);
        let squeezed = colex.unrank(
            within % rest,
            o_count as u32,
            (self.squares - x_count) as u32,
        );
        let o = with_packing!(self.packing, P => spread::<P>(squeezed, x));
        let position = TeekoPosition { x, o, o_to_move };
        self.is_legal(&position).then_some(position)
    }

    /// Whether a board with its mover is a position of the game: the counts
    /// fit the drop order, and the mover shows no pattern (else play ended
    /// before it was the mover's turn).
    fn is_legal(&self, position: &TeekoPosition) -> bool {
        let (mover, _) = position.sides();
        let (x, o) = (pop(position.x), pop(position.o));
        let counts = x <= PIECES
            && o <= PIECES
            && position.x & position.o == 0
            && (x + o == 2 * PIECES || x == o + u32::from(position.o_to_move));
        counts && (position.occupied() & !self.board) == 0 && !self.has_pattern(mover)
    }

    /// The image of a set of squares under board symmetry `symmetry`.
    #[inline]
    fn image(&self, symmetry: usize, mask: u32) -> u32 {
        self.images.image(symmetry, mask)
    }

    /// Names a square, like `c3`.
    fn square_name(&self, square: u8) -> String {
        let square = usize::from(square);
        format!(
            "{}{}",
            char::from(b'a' + (square % self.side) as u8),
            square / self.side + 1
        )
    }
}

impl Game for Teeko {
    type Position = TeekoPosition;
    type Move = TeekoMove;

    fn name(&self) -> String {
        match (self.side == SIDE, self.advanced) {
            (true, false) => "teeko".into(),
            (true, true) => "teeko:advanced".into(),
            (false, false) => format!("teeko:{0}x{0}", self.side),
            (false, true) => format!("teeko:{0}x{0},advanced", self.side),
        }
    }

    fn start(&self) -> TeekoPosition {
        TeekoPosition {
            x: 0,
            o: 0,
            o_to_move: false,
        }
    }

    /// A pattern on the board ends play: its maker has won, so the player
    /// to move has lost.
    #[inline]
    fn primitive(&self, position: &TeekoPosition) -> Option<Value> {
        (self.has_pattern(position.x) || self.has_pattern(position.o)).then_some(Value::Lose)
    }

    fn for_each_move(
        &self,
        position: &TeekoPosition,
        mut visit: impl FnMut(TeekoMove, TeekoPosition),
    ) {
        let (mover, other) = position.sides();
        let empty = self.board & !position.occupied();
        let next = !position.o_to_move;
        if tier(position) < MOVE_TIER {
            for to in squares_of(empty) {
                let child = TeekoPosition::from_sides(other, mover | 1 << to, next);
                visit(TeekoMove::Drop(to), child);
            }
        } else {
            for from in squares_of(mover) {
                for to in squares_of(self.neighbours[usize::from(from)] & empty) {
                    let moved = mover & !(1 << from) | 1 << to;
                    let child = TeekoPosition::from_sides(other, moved, next);
                    visit(TeekoMove::Step(from, to), child);
                }
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<TeekoPosition, PositionError> {
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() != self.side + 1 {
            return Err(PositionError::new(format!(
                "expected {} rows and the side to move joined by '/' (like {}), got {} parts",
                self.side,
                self.format_position(&self.start()),
                parts.len()
            )));
        }
        let (mut x, mut o) = (0u32, 0u32);
        for (r, row) in parts[..self.side].iter().enumerate() {
            if row.len() != self.side {
                return Err(PositionError::new(format!(
                    "row {} has {} characters; a row has {}",
                    r + 1,
                    row.chars().count(),
                    self.side
                )));
            }
            for (c, ch) in row.bytes().enumerate() {
                let bit = 1u32 << (r * self.side + c);
                match ch {
                    b'X' => x |= bit,
                    b'O' => o |= bit,
                    b'.' => {}
                    other => {
                        return Err(PositionError::new(format!(
                            "row {} has '{}': expected '.', 'X' or 'O'",
                            r + 1,
                            other.escape_ascii()
                        )));
                    }
                }
            }
        }
        let o_to_move = match parts[self.side] {
            "X" => false,
            "O" => true,
            other => {
                return Err(PositionError::new(format!(
                    "the side to move is '{}': expected X or O",
                    other.escape_debug()
                )));
            }
        };
        let position = TeekoPosition { x, o, o_to_move };
        let (xs, os) = (x.count_ones(), o.count_ones());
        if xs > PIECES || os > PIECES {
            return Err(PositionError::illegal(format!(
                "X has {xs} and O {os} pieces; each has at most 4"
            )));
        }
        if xs + os < 2 * PIECES && xs != os + u32::from(o_to_move) {
            return Err(PositionError::illegal(format!(
                "X has {xs} and O {os} pieces with {} to move: X drops first, so while \
                 dropping X has as many pieces as O when X moves, one more when O moves",
                parts[self.side]
            )));
        }
        if !self.is_legal(&position) {
            return Err(PositionError::illegal(format!(
                "{} to move already has a pattern: play ended before this turn",
                parts[self.side]
            )));
        }
        Ok(position)
    }

    fn format_position(&self, position: &TeekoPosition) -> String {
        let mut text = String::with_capacity(31);
        for s in 0..self.squares {
            if s > 0 && s % self.side == 0 {
                text.push('/');
            }
            text.push(mark(position.x, position.o, s as u32, ['X', 'O', '.']));
        }
        text.push('/');
        text.push(if position.o_to_move { 'O' } else { 'X' });
        text
    }

    fn format_move(&self, _position: &TeekoPosition, mv: TeekoMove) -> String {
        match mv {
            TeekoMove::Drop(to) => self.square_name(to),
            TeekoMove::Step(from, to) => self.square_name(from) + &self.square_name(to),
        }
    }

    fn render(&self, position: &TeekoPosition) -> String {
        let text = self.format_position(position);
        let (board, mover) = text.split_at(text.len() - 2);
        format!("{}\n{} to move", board.replace('/', "\n"), &mover[1..])
    }

    /// The board with discs; a drop is one click on its square, a step a
    /// click on the piece and one on the square it goes to.
    /// One code per square: 0 empty, 1 an X (black) piece, 2 an O (red) one.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: self.side,
            cols: self.side,
            codes: vec![
                Code::new("X (black)", Piece::new("X", Some(0), Look::Disc)),
                Code::new("O (red)", Piece::new("O", Some(1), Look::Disc)),
            ],
        })
    }

    fn fill_tensor(&self, position: &TeekoPosition, cells: &mut [i8]) {
        fill_two_masks(u64::from(position.x), u64::from(position.o), cells);
    }

    fn board(&self, position: &TeekoPosition) -> Board {
        let mut board = Board::grid(self.side, self.side);
        for (s, cell) in board.cells.iter_mut().enumerate() {
            let bit = 1 << s;
            if position.x & bit != 0 {
                cell.pieces.push(Piece::new("X", Some(0), Look::Disc));
            } else if position.o & bit != 0 {
                cell.pieces.push(Piece::new("O", Some(1), Look::Disc));
            }
        }
        board.players = ["X (black)".into(), "O (red)".into()];
        board.mover = Some(u8::from(position.o_to_move));
        board.howto = "While each side has fewer than four pieces down, click an empty square \
                       to drop one there; then click one of your pieces and the empty square \
                       next to it to move it to. Four in a row or a 2x2 square wins."
            .into();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let name = self.format_move(position, mv);
                board.moves.push(match mv {
                    TeekoMove::Drop(to) => BoardMove::clicks(name, [self.square_name(to)]),
                    TeekoMove::Step(from, to) => {
                        BoardMove::clicks(name, [self.square_name(from), self.square_name(to)])
                    }
                });
            });
        }
        board
    }
}

impl Indexed for Teeko {
    fn index_len(&self) -> u64 {
        self.offsets[TIERS]
    }

    #[inline]
    fn rank(&self, position: &TeekoPosition) -> u64 {
        self.offsets[tier(position).min(MOVE_TIER)] + self.rank_in_tier(position)
    }

    fn unrank(&self, index: u64) -> Option<TeekoPosition> {
        let tier = self.offsets[1..].partition_point(|&end| end <= index);
        (tier < TIERS)
            .then(|| self.unrank_in_tier(tier, index - self.offsets[tier]))
            .flatten()
    }
}

impl Parents for Teeko {
    /// The previous mover took back a drop or a step; a parent showing a
    /// pattern would have ended play, so it is none.
    fn for_each_parent(&self, position: &TeekoPosition, mut visit: impl FnMut(TeekoPosition)) {
        let (mover, previous) = position.sides();
        let parent_o_to_move = !position.o_to_move;
        let pieces = tier(position);
        if pieces == 0 {
            return;
        }
        // The last move was a drop below the move phase, and into it when
        // the eighth piece (O's fourth) made it: then X moves.
        let dropped_last = pieces < MOVE_TIER || !position.o_to_move;
        if dropped_last && !self.has_pattern(mover) {
            for square in squares_of(previous) {
                let before = previous & !(1 << square);
                visit(TeekoPosition::from_sides(before, mover, parent_o_to_move));
            }
        }
        if pieces == MOVE_TIER {
            self.for_each_step_parent(position, visit);
        }
    }
}

impl Teeko {
    /// The representative of `position`'s class under the symmetries of
    /// [`Symmetric::for_each_symmetric`]: the image least by mover, then
    /// X's squares, then O's (compared as masks, with no ranking). Every
    /// image lies in the same tier.
    #[inline]
    fn fold(&self, position: &TeekoPosition) -> TeekoPosition {
        let key = |p: &TeekoPosition| {
            u64::from(p.o_to_move) << 50 | u64::from(p.x) << 25 | u64::from(p.o)
        };
        let swap = tier(position) == MOVE_TIER;
        let (mut best, mut least) = (*position, key(position));
        for symmetry in 1..self.images.len() {
            let image = TeekoPosition {
                x: self.image(symmetry, position.x),
                o: self.image(symmetry, position.o),
                o_to_move: position.o_to_move,
            };
            if key(&image) < least {
                (best, least) = (image, key(&image));
            }
        }
        if swap {
            for symmetry in 0..self.images.len() {
                let image = TeekoPosition {
                    x: self.image(symmetry, position.o),
                    o: self.image(symmetry, position.x),
                    o_to_move: !position.o_to_move,
                };
                if key(&image) < least {
                    (best, least) = (image, key(&image));
                }
            }
        }
        best
    }

    /// The parents of a move-phase position by a step taken back: the
    /// previous mover's piece returns to an empty neighbouring square. A
    /// parent showing a pattern would have ended play, so it is none.
    fn for_each_step_parent(&self, position: &TeekoPosition, mut visit: impl FnMut(TeekoPosition)) {
        let (mover, previous) = position.sides();
        if self.has_pattern(mover) {
            return;
        }
        let empty = self.board & !position.occupied();
        for to in squares_of(previous) {
            for from in squares_of(self.neighbours[usize::from(to)] & empty) {
                let before = previous & !(1 << to) | 1 << from;
                if !self.has_pattern(before) {
                    visit(TeekoPosition::from_sides(
                        before,
                        mover,
                        !position.o_to_move,
                    ));
                }
            }
        }
    }
}

impl Symmetric for Teeko {
    /// The 8 symmetries of the square; in the move phase each also with
    /// the colours and the mover exchanged (the rules are the same for
    /// both sides there).
    fn for_each_symmetric(&self, position: &TeekoPosition, mut visit: impl FnMut(TeekoPosition)) {
        let swap = tier(position) == MOVE_TIER;
        for symmetry in 0..self.images.len() {
            let image = TeekoPosition {
                x: self.image(symmetry, position.x),
                o: self.image(symmetry, position.o),
                o_to_move: position.o_to_move,
            };
            visit(image);
            if swap {
                visit(image.swapped());
            }
        }
    }
}

/// The tiers are the pieces dropped, 0 to 7, then the move phase (8).
impl NamedTiers for Teeko {
    type Tier = u8;
    const IN_TIER_PARENTS: bool = true;
    /// The symmetries of the square (and in the move phase the colours
    /// exchanged) keep a position in its tier: one position per class is
    /// solved, a sixteenth of the move phase.
    const IN_TIER_SYMMETRY: bool = true;

    #[inline]
    fn fold_in_tier(&self, position: &TeekoPosition) -> TeekoPosition {
        self.fold(position)
    }

    fn tiers(&self) -> Vec<u8> {
        (0..TIERS as u8).collect()
    }

    /// GamesmanOne's names: `0_dropped` .. `7_dropped`, `moving_phase`.
    fn tier_name(&self, tier: u8) -> String {
        if usize::from(tier) < MOVE_TIER {
            format!("{tier}_dropped")
        } else {
            "moving_phase".into()
        }
    }

    #[inline]
    fn tier_of(&self, position: &TeekoPosition) -> u8 {
        tier(position).min(MOVE_TIER) as u8
    }

    fn tier_size(&self, tier: u8) -> u64 {
        self.tier_len(usize::from(tier))
    }

    #[inline]
    fn tier_rank(&self, tier: u8, position: &TeekoPosition) -> u64 {
        self.rank_in(usize::from(tier), position)
    }

    fn tier_unrank(&self, tier: u8, index: u64) -> Option<TeekoPosition> {
        self.unrank_in_tier(usize::from(tier), index)
    }

    /// Every move of the drop phase drops a piece: it leaves the tier.
    fn leaves_tier(&self, tier: u8) -> bool {
        usize::from(tier) < MOVE_TIER
    }

    /// A drop leads to the next tier; the move phase only to itself.
    fn child_tiers(&self, tier: u8) -> Vec<u8> {
        if usize::from(tier) < MOVE_TIER {
            vec![tier + 1]
        } else {
            Vec::new()
        }
    }

    /// Only the move phase has moves inside its tier: steps taken back.
    fn for_each_parent_in_tier(&self, position: &TeekoPosition, visit: impl FnMut(TeekoPosition)) {
        if tier(position) == MOVE_TIER {
            self.for_each_step_parent(position, visit);
        }
    }

    /// As by default, each parent folded and ranked, with the packing
    /// path chosen once for all of them.
    fn for_each_parent_index_in_tier(
        &self,
        tier: u8,
        position: &TeekoPosition,
        mut visit: impl FnMut(u64),
    ) -> bool {
        let tier = usize::from(tier);
        with_packing!(self.packing, P => self.for_each_parent_in_tier(position, |parent| {
            visit(self.rank_by::<P>(tier, &self.fold(&parent)));
        }));
        false
    }

    /// A drop leads to the next tier, a step stays in the move phase: the
    /// child's tier is known without counting its pieces.
    #[inline]
    fn for_each_child(&self, position: &TeekoPosition, mut visit: impl FnMut(u8, u64)) {
        let tier = (tier(position) + 1).min(MOVE_TIER);
        with_packing!(self.packing, P => self.for_each_move(position, |_, child| {
            visit(tier as u8, self.rank_by::<P>(tier, &child));
        }));
    }

    /// As [`NamedTiers::for_each_child`], a step's child (in the move phase,
    /// the position's own tier) folded to its representative.
    #[inline]
    fn for_each_folded_child(&self, position: &TeekoPosition, mut visit: impl FnMut(u8, u64)) {
        let own = tier(position).min(MOVE_TIER);
        let tier = (tier(position) + 1).min(MOVE_TIER);
        with_packing!(self.packing, P => self.for_each_move(position, |_, child| {
            let child = if tier == own {
                self.fold(&child)
            } else {
                child
            };
            visit(tier as u8, self.rank_by::<P>(tier, &child));
        }));
    }
}

/// Solved whole over symmetry classes, parents by un-moves.
impl Retrograde for Teeko {
    type Folding = BySymmetry;
    type Parents = FromUnmoves;

    fn counted(&self) -> (Range<u64>, &'static str) {
        (0..self.index_len(), "every position")
    }

    fn facts(&self, table: &RetroTable, _progress: &dyn Progress) -> Vec<(&'static str, u64)> {
        vec![
            ("symmetry_classes", table.solved_positions()),
            ("index_size", self.index_len()),
        ]
    }
}
