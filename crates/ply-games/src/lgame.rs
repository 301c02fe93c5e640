//! Edward de Bono's L Game (BOI 2002): a 4x4 board, an L-shaped piece for
//! each player and two neutral one-square pieces. A turn moves the mover's
//! L to a different placement, then optionally one neutral piece to an empty
//! square. Whoever cannot move their L loses; play can go on for ever.
//!
//! Text: rows of `.` (empty), `x` (neutral), `#` and `*` (the two Ls)
//! joined by `/`. `#` is to move unless a fifth segment names the mover:
//! `.***/#*.x/###./x.../*` has `*` to move (`/#` is also accepted).
//!
//! Moves: the four squares of the L's new placement in reading order, then,
//! if a neutral piece moves, a comma and its from and to squares:
//! `a2a3a4b4` or `a2a3a4b4,d2-a1`. Squares are named by column letter and
//! row number from 1 at the top (`a1` is the top-left square).
//!
//! Index: the mover's L (48 placements), the other L (one of the
//! placements it does not overlap), the neutral pair (28 pairs of the 8
//! free squares): 18,368 positions with a given player to move, times two
//! for the two players. Symmetries: the 8 of the square board, each also
//! with the players exchanged; the L has no symmetry of its own, so every
//! class has 16 members and 2,296 classes cover each player's half.

use crate::board::Shape;
use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::tensor::{Code, Tensor};
use ply_core::{
    BySymmetry, FromMoves, Game, Indexed, PositionError, Progress, RetroTable, Retrograde,
    Symmetric, Value,
};
use std::ops::Range;

/// A position: the mover's L, the other L and the neutral pieces, each as
/// a set of squares (bit `s` for square `s`, row-major from the top left),
/// and which player's symbol (`#` or `*`) the mover's L carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LPosition {
    /// The squares of the L of the player to move.
    pub mover: u16,
    /// The squares of the other L.
    pub other: u16,
    /// The squares of the two neutral pieces.
    pub neutrals: u16,
    /// Whether the mover is the `*` player (else the `#` player).
    pub star_to_move: bool,
}

/// A move: the L's new placement and, optionally, a neutral piece moved
/// from one square to another.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LMove {
    /// The squares of the L after the move.
    pub placement: u16,
    /// The neutral piece moved, as (from, to) squares, if any.
    pub neutral: Option<(u8, u8)>,
}

/// Positions with a given player to move.
const PER_MOVER: u64 = 18_368;
/// Neutral pairs among the 8 squares the Ls leave free.
const NEUTRAL_PAIRS: u32 = 28;
/// Marks a set of squares that is not an L.
const NO_PLACEMENT: u8 = u8::MAX;
/// Marks an ordered pair of placements that overlap.
const OVERLAP: u16 = u16::MAX;

/// The L Game, with its placement, index and symmetry tables.
#[derive(Clone, Debug)]
pub struct LGame {
    shape: Shape,
    /// The 48 placements of an L, as square sets, in increasing order.
    placements: Vec<u16>,
    /// `placement_of[mask]`: the number of the placement covering exactly
    /// `mask`, or [`NO_PLACEMENT`].
    placement_of: Vec<u8>,
    /// `pair_number[m][o]`: the number of the ordered pair of placements
    /// (mover, other) among the non-overlapping ones, or [`OVERLAP`].
    pair_number: Vec<[u16; 48]>,
    /// The ordered pairs of placement numbers, by pair number.
    pairs: Vec<(u8, u8)>,
    /// `images[s][half][byte]`: the image under symmetry `s` of the squares
    /// in one byte (half 0: squares 0..8, half 1: squares 8..16).
    images: Vec<[[u16; 256]; 2]>,
    /// For each placement, the symmetry that takes it to the first
    /// placement of its class.
    to_canonical: Vec<u8>,
    /// `canonical_pair[m][o]`: the pair number of (mover, other) after the
    /// symmetry `to_canonical[m]`, or [`OVERLAP`].
    canonical_pair: Vec<[u16; 48]>,
}

impl Default for LGame {
    fn default() -> Self {
        Self::new()
    }
}

impl LGame {
    /// The game on its 4x4 board.
    pub fn new() -> Self {
        let shape = Shape { rows: 4, cols: 4 };
        let symmetries = shape.symmetries();
        let images: Vec<[[u16; 256]; 2]> = symmetries
            .iter()
            .map(|map| {
                let mut table = [[0u16; 256]; 2];
                for (half, bytes) in table.iter_mut().enumerate() {
                    for (byte, image) in bytes.iter_mut().enumerate() {
                        *image = (0..8)
                            .filter(|bit| byte >> bit & 1 == 1)
                            .map(|bit| 1u16 << map[half * 8 + bit])
                            .fold(0, |a, b| a | b);
                    }
                }
                table
            })
            .collect();
        let map_mask = |s: usize, mask: u16| {
            images[s][0][usize::from(mask as u8)] | images[s][1][usize::from(mask >> 8)]
        };
        // An L: three squares in a column and one beside its lower end; its
        // images under the symmetries, slid to every place on the board.
        let shape_l = [(0usize, 0usize), (1, 0), (2, 0), (2, 1)];
        let mut placements = Vec::new();
        for s in 0..symmetries.len() {
            let base: u16 = shape_l.iter().fold(0, |m, &(r, c)| m | 1 << (r * 4 + c));
            let turned = to_top_left(map_mask(s, base));
            for dr in 0..4 {
                for dc in 0..4 {
                    placements.extend(shift(turned, dr, dc));
                }
            }
        }
        placements.sort_unstable();
        placements.dedup();
        let mut placement_of = vec![NO_PLACEMENT; 1 << 16];
        for (n, &mask) in placements.iter().enumerate() {
            placement_of[usize::from(mask)] = n as u8;
        }
        let number = |mask: u16| placements.binary_search(&mask).ok();
        let to_canonical: Vec<u8> = placements
            .iter()
            .map(|&p| {
                (0..symmetries.len())
                    .min_by_key(|&s| number(map_mask(s, p)))
                    .unwrap_or(0) as u8
            })
            .collect();
        let mut pair_number = vec![[OVERLAP; 48]; placements.len()];
        let mut pairs = Vec::new();
        for (m, &mover) in placements.iter().enumerate() {
            for (o, &other) in placements.iter().enumerate() {
                if mover & other == 0 {
                    pair_number[m][o] = pairs.len() as u16;
                    pairs.push((m as u8, o as u8));
                }
            }
        }
        let mut canonical_pair = vec![[OVERLAP; 48]; placements.len()];
        for &(m, o) in &pairs {
            let (m, o) = (usize::from(m), usize::from(o));
            let s = usize::from(to_canonical[m]);
            let image = |p: usize| number(map_mask(s, placements[p])).unwrap_or(0);
            canonical_pair[m][o] = pair_number[image(m)][image(o)];
        }
        Self {
            shape,
            placements,
            placement_of,
            pair_number,
            pairs,
            images,
            to_canonical,
            canonical_pair,
        }
    }

    /// The 48 placements of an L, as square sets.
    pub fn placements(&self) -> &[u16] {
        &self.placements
    }

    #[inline]
    fn placement_number(&self, mask: u16) -> Option<usize> {
        let number = self.placement_of[usize::from(mask)];
        (number != NO_PLACEMENT).then_some(usize::from(number))
    }

    #[inline]
    fn image(&self, symmetry: usize, mask: u16) -> u16 {
        let table = &self.images[symmetry];
        table[0][usize::from(mask as u8)] | table[1][usize::from(mask >> 8)]
    }

    /// The placement numbers of the mover's and the other L.
    #[inline]
    fn pair_numbers(&self, position: &LPosition) -> Option<(usize, usize)> {
        Some((
            self.placement_number(position.mover)?,
            self.placement_number(position.other)?,
        ))
    }

    /// The index, among the positions with one player to move, of the pair
    /// of Ls numbered `pair`, which leave the squares `free`, with the
    /// neutral pieces on `neutrals`.
    #[inline]
    fn relative_index(pair: u32, free: u16, neutrals: u16) -> u32 {
        let below = |square: u32| (free & ((1u16 << square) - 1)).count_ones();
        let low = neutrals.trailing_zeros();
        let high = 15 - neutrals.leading_zeros();
        pair * NEUTRAL_PAIRS + neutral_pair_number(below(low), below(high))
    }

    /// The image of `position` under board symmetry `symmetry`.
    #[inline]
    fn transformed(&self, position: &LPosition, symmetry: usize) -> LPosition {
        LPosition {
            mover: self.image(symmetry, position.mover),
            other: self.image(symmetry, position.other),
            neutrals: self.image(symmetry, position.neutrals),
            star_to_move: position.star_to_move,
        }
    }

    /// Names a set of squares in reading order, e.g. `a2a3a4b4`.
    fn squares_name(&self, mask: u16) -> String {
        (0..16)
            .filter(|s| mask >> s & 1 == 1)
            .map(|s| self.shape.square_name(s))
            .collect()
    }

    /// Whether the player to move has any move, i.e. any other placement
    /// for their L clear of the other L and the neutral pieces.
    pub fn can_move(&self, position: &LPosition) -> bool {
        let blocked = position.other | position.neutrals;
        self.placements
            .iter()
            .any(|&p| p != position.mover && p & blocked == 0)
    }
}

/// `mask` slid up and left until it touches the top row and the left column.
fn to_top_left(mut mask: u16) -> u16 {
    while mask != 0 && mask & 0x000F == 0 {
        mask >>= 4;
    }
    while mask != 0 && mask & 0x1111 == 0 {
        mask >>= 1;
    }
    mask
}

/// The squares in `mask`, in increasing order.
#[inline]
fn squares_of(mut mask: u16) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        let square = mask.trailing_zeros() as u8;
        mask &= mask.wrapping_sub(1);
        (square < 16).then_some(square)
    })
}

/// The set of the given squares.
const fn squares(list: &[u8]) -> u16 {
    let mut mask = 0;
    let mut i = 0;
    while i < list.len() {
        mask |= 1 << list[i];
        i += 1;
    }
    mask
}

/// `mask` moved down `dr` rows and right `dc` columns, if it stays on the board.
fn shift(mask: u16, dr: usize, dc: usize) -> Option<u16> {
    let mut moved = 0u16;
    for s in (0..16).filter(|s| mask >> s & 1 == 1) {
        let (r, c) = (s / 4 + dr, s % 4 + dc);
        if r >= 4 || c >= 4 {
            return None;
        }
        moved |= 1 << (r * 4 + c);
    }
    Some(moved)
}

/// The number of the pair `i < j` (positions among the free squares) in
/// `0..28`.
#[inline]
fn neutral_pair_number(i: u32, j: u32) -> u32 {
    j * (j - 1) / 2 + i
}

/// The square of the `n`th set bit of `mask`.
#[inline]
fn nth_square(mut mask: u16, n: u32) -> u32 {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

impl Game for LGame {
    fn board(&self, position: &LPosition) -> Board {
        self.describe(position)
    }

    /// One code per square: 0 empty, 1 the `#` L, 2 the `*` L, 3 a
    /// neutral piece.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: 4,
            cols: 4,
            codes: vec![
                Code::new("# L", Piece::new("", Some(0), Look::Block)),
                Code::new("* L", Piece::new("", Some(1), Look::Block)),
                Code::new("neutral piece", Piece::new("", None, Look::Disc)),
            ],
        })
    }

    fn fill_tensor(&self, position: &LPosition, cells: &mut [i8]) {
        let (hash, star) = if position.star_to_move {
            (position.other, position.mover)
        } else {
            (position.mover, position.other)
        };
        for (s, cell) in cells.iter_mut().enumerate() {
            let bit = 1 << s;
            *cell = if hash & bit != 0 {
                1
            } else if star & bit != 0 {
                2
            } else if position.neutrals & bit != 0 {
                3
            } else {
                0
            };
        }
    }

    type Position = LPosition;
    type Move = LMove;

    fn name(&self) -> String {
        "lgame".to_string()
    }

    /// The usual opening, `x##./.*#./.*#./.**x`: the Ls interlocked in the
    /// middle columns, the neutral pieces in opposite corners.
    fn start(&self) -> LPosition {
        LPosition {
            mover: squares(&[1, 2, 6, 10]),
            other: squares(&[5, 9, 13, 14]),
            neutrals: squares(&[0, 15]),
            star_to_move: false,
        }
    }

    #[inline]
    fn primitive(&self, _position: &LPosition) -> Option<Value> {
        None
    }

    fn for_each_move(&self, position: &LPosition, mut visit: impl FnMut(LMove, LPosition)) {
        let blocked = position.other | position.neutrals;
        for &placement in &self.placements {
            if placement == position.mover || placement & blocked != 0 {
                continue;
            }
            let child = LPosition {
                mover: position.other,
                other: placement,
                neutrals: position.neutrals,
                star_to_move: !position.star_to_move,
            };
            visit(
                LMove {
                    placement,
                    neutral: None,
                },
                child,
            );
            let empty = !(placement | blocked);
            for from in squares_of(position.neutrals) {
                for to in squares_of(empty) {
                    let neutrals = position.neutrals & !(1 << from) | 1 << to;
                    visit(
                        LMove {
                            placement,
                            neutral: Some((from, to)),
                        },
                        LPosition { neutrals, ..child },
                    );
                }
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<LPosition, PositionError> {
        let (board, star_to_move) = match text.rsplit_once('/') {
            Some((board, "*")) => (board, true),
            Some((board, "#")) => (board, false),
            _ => (text, false),
        };
        let mut masks = [0u16; 3];
        for (r, row) in self.shape.split_rows(board)?.into_iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let bit = 1 << self.shape.square(r, c);
                match ch {
                    b'#' => masks[0] |= bit,
                    b'*' => masks[1] |= bit,
                    b'x' => masks[2] |= bit,
                    b'.' => {}
                    other => {
                        return Err(PositionError::new(format!(
                            "row {} has '{}': expected '.', 'x', '#' or '*'",
                            r + 1,
                            other.escape_ascii()
                        )));
                    }
                }
            }
        }
        for (mask, symbol) in [(masks[0], '#'), (masks[1], '*')] {
            if mask.count_ones() != 4 {
                return Err(PositionError::illegal(format!(
                    "the {symbol} piece covers {} squares; an L covers 4",
                    mask.count_ones()
                )));
            }
            if self.placement_number(mask).is_none() {
                return Err(PositionError::illegal(format!(
                    "the {symbol} squares {} do not form an L",
                    self.squares_name(mask)
                )));
            }
        }
        if masks[2].count_ones() != 2 {
            return Err(PositionError::illegal(format!(
                "there are {} neutral pieces (x); the game has 2",
                masks[2].count_ones()
            )));
        }
        let [hash, star, neutrals] = masks;
        Ok(if star_to_move {
            LPosition {
                mover: star,
                other: hash,
                neutrals,
                star_to_move,
            }
        } else {
            LPosition {
                mover: hash,
                other: star,
                neutrals,
                star_to_move,
            }
        })
    }

    fn format_position(&self, position: &LPosition) -> String {
        let (hash, star) = if position.star_to_move {
            (position.other, position.mover)
        } else {
            (position.mover, position.other)
        };
        let mut text = String::with_capacity(21);
        for s in 0..16 {
            if s > 0 && s % 4 == 0 {
                text.push('/');
            }
            let bit = 1 << s;
            text.push(if hash & bit != 0 {
                '#'
            } else if star & bit != 0 {
                '*'
            } else if position.neutrals & bit != 0 {
                'x'
            } else {
                '.'
            });
        }
        if position.star_to_move {
            text.push_str("/*");
        }
        text
    }

    fn format_move(&self, _position: &LPosition, mv: LMove) -> String {
        let mut text = self.squares_name(mv.placement);
        if let Some((from, to)) = mv.neutral {
            text.push(',');
            text.push_str(&self.shape.square_name(usize::from(from)));
            text.push('-');
            text.push_str(&self.shape.square_name(usize::from(to)));
        }
        text
    }

    fn render(&self, position: &LPosition) -> String {
        let text = self.format_position(position);
        let board = text.strip_suffix("/*").unwrap_or(&text).replace('/', "\n");
        let mover = if position.star_to_move { '*' } else { '#' };
        format!("{board}\n{mover} to move")
    }
}

impl Indexed for LGame {
    fn index_len(&self) -> u64 {
        2 * PER_MOVER
    }

    #[inline]
    fn rank(&self, position: &LPosition) -> u64 {
        let pair = match self.pair_numbers(position) {
            Some((m, o)) => u32::from(self.pair_number[m][o]),
            None => u32::from(OVERLAP),
        };
        let free = !(position.mover | position.other);
        let relative = Self::relative_index(pair, free, position.neutrals);
        u64::from(position.star_to_move) * PER_MOVER + u64::from(relative)
    }

    #[inline]
    fn unrank(&self, index: u64) -> Option<LPosition> {
        if index >= self.index_len() {
            return None;
        }
        let (side, relative) = (index / PER_MOVER, (index % PER_MOVER) as u32);
        let (m, o) = self.pairs[(relative / NEUTRAL_PAIRS) as usize];
        let (mover, other) = (
            self.placements[usize::from(m)],
            self.placements[usize::from(o)],
        );
        let code = relative % NEUTRAL_PAIRS;
        let high = (1..8).find(|&j| j * (j + 1) / 2 > code).unwrap_or(7);
        let low = code - high * (high - 1) / 2;
        let free = !(mover | other);
        Some(LPosition {
            mover,
            other,
            neutrals: 1 << nth_square(free, low) | 1 << nth_square(free, high),
            star_to_move: side == 1,
        })
    }
}

impl Symmetric for LGame {
    fn for_each_symmetric(&self, position: &LPosition, mut visit: impl FnMut(LPosition)) {
        for symmetry in 0..self.images.len() {
            let image = self.transformed(position, symmetry);
            visit(image);
            visit(LPosition {
                star_to_move: !image.star_to_move,
                ..image
            });
        }
    }

    /// The image with `#` to move whose mover's L is the first placement of
    /// its class: one image, as the L has no symmetry of its own.
    #[inline]
    fn canonical(&self, position: &LPosition) -> LPosition {
        let symmetry = self
            .placement_number(position.mover)
            .map_or(0, |m| usize::from(self.to_canonical[m]));
        LPosition {
            star_to_move: false,
            ..self.transformed(position, symmetry)
        }
    }

    /// The index of the canonical image, straight from tables.
    #[inline]
    fn canonical_index(&self, position: &LPosition) -> u64 {
        let Some((m, o)) = self.pair_numbers(position) else {
            return self.rank(&self.canonical(position));
        };
        let symmetry = usize::from(self.to_canonical[m]);
        let pair = u32::from(self.canonical_pair[m][o]);
        // A symmetry permutes the squares, so it maps the free squares too.
        let free = self.image(symmetry, !(position.mover | position.other));
        u64::from(Self::relative_index(
            pair,
            free,
            self.image(symmetry, position.neutrals),
        ))
    }
}

/// The page's drawing: the two Ls as joined blocks, the neutrals as discs.
/// A move is the four squares of the L's new placement, in any order, then
/// a neutral piece and the square it goes to, if one moves.
impl LGame {
    fn describe(&self, position: &LPosition) -> Board {
        let mut board = Board::grid(4, 4);
        let (hash, star) = if position.star_to_move {
            (position.other, position.mover)
        } else {
            (position.mover, position.other)
        };
        for (s, cell) in board.cells.iter_mut().enumerate() {
            let bit = 1 << s;
            if hash & bit != 0 {
                cell.pieces.push(Piece::new("", Some(0), Look::Block));
            } else if star & bit != 0 {
                cell.pieces.push(Piece::new("", Some(1), Look::Block));
            } else if position.neutrals & bit != 0 {
                cell.pieces.push(Piece::new("", None, Look::Disc));
            }
        }
        board.players = ["# (blue)".into(), "* (orange)".into()];
        board.mover = Some(u8::from(position.star_to_move));
        board.howto = "Click the four squares your L should stand on (it may overlap where it is \
                       now, and must change). Then click a neutral piece and the square to move it \
                       to, or play the move without one."
            .into();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let squares = (0..16)
                    .filter(|s| mv.placement >> s & 1 == 1)
                    .map(|s| self.shape.square_name(s))
                    .collect();
                let mut clicks = vec![squares];
                if let Some((from, to)) = mv.neutral {
                    clicks.push(vec![self.shape.square_name(usize::from(from))]);
                    clicks.push(vec![self.shape.square_name(usize::from(to))]);
                }
                board.moves.push(BoardMove {
                    name: self.format_move(position, mv),
                    clicks,
                });
            });
        }
        board
    }
}

/// Solved over symmetry classes with a reverse graph between them; `ply
/// analyze` counts the positions with `#` to move (the others mirror them).
impl Retrograde for LGame {
    type Folding = BySymmetry;
    type Parents = FromMoves;

    fn counted(&self) -> (Range<u64>, &'static str) {
        (
            0..self.index_len() / 2,
            "positions with # to move (those with * to move mirror them)",
        )
    }

    fn facts(&self, table: &RetroTable, _progress: &dyn Progress) -> Vec<(&'static str, u64)> {
        vec![
            ("symmetry_classes", table.solved_positions()),
            ("index_size", self.index_len()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_48_placements_none_symmetric_in_itself() {
        let game = LGame::new();
        assert_eq!(game.placements().len(), 48);
        assert_eq!(
            game.pairs.len() as u64 * u64::from(NEUTRAL_PAIRS),
            PER_MOVER
        );
        for &p in game.placements() {
            let mut images: Vec<u16> = (0..8).map(|s| game.image(s, p)).collect();
            images.sort_unstable();
            images.dedup();
            assert_eq!(images.len(), 8);
        }
    }

    #[test]
    fn every_index_round_trips() {
        let game = LGame::new();
        for index in 0..game.index_len() {
            let position = game.unrank(index).unwrap();
            assert_eq!(game.rank(&position), index);
            assert_eq!(position.neutrals.count_ones(), 2);
            assert_eq!(
                (position.mover | position.other | position.neutrals).count_ones(),
                10
            );
            let text = game.format_position(&position);
            assert_eq!(game.parse_position(&text), Ok(position), "{text}");
        }
    }

    #[test]
    fn impossible_boards_are_refused() {
        let game = LGame::new();
        for bad in [
            ".***/#*.x/###./x..",
            ".***/#*.x/###./x..y",
            ".***/#*.x/####/x...",
            ".***/#*.x/###./xx..",
            "****/#..x/###./x...",
            ".***/#*.x/###./x.../?",
            ".**./#**x/###./x...",
        ] {
            assert!(game.parse_position(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_example_position_reads_both_ways() {
        let game = LGame::new();
        let hash = game.parse_position(".***/#*.x/###./x...").unwrap();
        let star = game.parse_position(".***/#*.x/###./x.../*").unwrap();
        assert!(!hash.star_to_move && star.star_to_move);
        assert_eq!((hash.mover, hash.other), (star.other, star.mover));
        assert_eq!(game.format_position(&star), ".***/#*.x/###./x.../*");
        let mut names = Vec::new();
        game.for_each_move(&hash, |mv, _| names.push(game.format_move(&hash, mv)));
        assert!(names.contains(&"c2a3b3c3,a4-a2".to_string()), "{names:?}");
    }
}
