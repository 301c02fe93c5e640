//! The Game of Euler (UVA 10536): cover squares with pins pushed down or slid
//! in from an edge; whoever covers the last square loses.

use crate::board::{Shape, parse_dimensions};
use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::limits::{MAX_EULER_SQUARES, MAX_TABLE_BYTES, human_bytes};
use ply_core::tensor::{Code, Tensor};
use ply_core::{
    BySymmetry, FromMoves, Game, Indexed, NumberedTiers, PositionError, Remoteness, Retrograde,
    Searchable, Symmetric, TableWalk, Value,
};
use std::ops::Range;

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
    /// The slides of pins longer than one square, as families sharing an
    /// edge, a direction and a length, for generating moves with bit tricks.
    slides: Vec<Slide>,
    /// The board's symmetries, applied to masks.
    images: crate::board::MaskImages,
}

/// All slides of one pin length from one edge in one direction.
#[derive(Clone, Debug)]
struct Slide {
    /// The squares a pin enters at.
    entries: u64,
    /// How far apart, in bits, consecutive squares of the pin are.
    step: u32,
    /// Whether the pin runs towards lower bits (from the right or bottom edge).
    backwards: bool,
    /// The pin's length.
    len: u32,
    /// The squares the pin covers when it enters at square 0 (or, going
    /// backwards, when its far end is square 0).
    pattern: u64,
}

impl Slide {
    /// Calls `visit` with the squares covered by every slide of this family
    /// that fits the uncovered squares `free`.
    #[inline]
    fn for_each_fit(&self, free: u64, mut visit: impl FnMut(u64)) {
        let mut fits = free & self.entries;
        for j in 1..self.len {
            let shift = j * self.step;
            fits &= if self.backwards {
                free << shift
            } else {
                free >> shift
            };
        }
        let back = if self.backwards {
            (self.len - 1) * self.step
        } else {
            0
        };
        while fits != 0 {
            let entry = fits.trailing_zeros();
            visit(self.pattern << (entry - back));
            fits &= fits - 1;
        }
    }
}

impl Euler {
    /// The board must have at most [`MAX_EULER_SQUARES`] squares, so that a
    /// table of every position fits the engine's table limit.
    pub fn new(rows: u8, cols: u8, longest_pin: u8) -> Result<Self, PositionError> {
        let shape = Shape::new(rows, cols)?;
        let squares = shape.squares();
        if squares > MAX_EULER_SQUARES {
            return Err(PositionError::parameters(format!(
                "a {rows}x{cols} board is not supported: euler allows 1 to {MAX_EULER_SQUARES} \
                 squares, and it has {squares} (a table of 2^{MAX_EULER_SQUARES} positions fills \
                 the {} limit)",
                human_bytes(MAX_TABLE_BYTES)
            )));
        }
        if longest_pin == 0 {
            return Err(PositionError::parameters(
                "the longest pin must be at least 1",
            ));
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
            slides: slides(shape, longest_pin),
            images: shape.mask_images(),
        })
    }

    /// Calls `visit` with the squares covered by every move from the
    /// position `covered`, using bit tricks instead of testing every move.
    #[inline]
    fn for_each_fast_move(&self, covered: u64, mut visit: impl FnMut(u64)) {
        let free = !covered & self.full();
        let mut pushes = free;
        while pushes != 0 {
            visit(pushes & pushes.wrapping_neg());
            pushes &= pushes - 1;
        }
        for slide in &self.slides {
            slide.for_each_fit(free, &mut visit);
        }
    }

    /// Reads the parameters after `euler:`: `RxC` or `RxCxL` (L = longest pin).
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let dims = parse_dimensions(params, &["rows", "columns", "longest pin"], 1)?;
        let (rows, cols) = (dims[0], dims[1]);
        if rows == 0 || cols == 0 || rows.saturating_mul(cols) > MAX_EULER_SQUARES as u64 {
            // One limit in one wording, whatever the size asked.
            return Err(PositionError::parameters(format!(
                "a {rows}x{cols} board is not supported: euler allows 1 to {MAX_EULER_SQUARES} \
                 squares (a table of 2^{MAX_EULER_SQUARES} positions fills the {} limit)",
                human_bytes(MAX_TABLE_BYTES)
            )));
        }
        let shape = Shape::from_dimensions(rows, cols)?;
        let side = shape.rows.max(shape.cols);
        let longest_pin = match dims.get(2) {
            None => 3,
            Some(&pin) => u8::try_from(pin)
                .ok()
                .filter(|pin| (1..=side).contains(pin))
                .ok_or_else(|| {
                    PositionError::parameters(format!(
                        "the longest pin {pin} is out of range: it must be at least 1 and at most {side} on a {}x{} board",
                        shape.rows, shape.cols
                    ))
                })?,
        };
        Self::new(shape.rows, shape.cols, longest_pin)
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

/// The slide families of pins of length 2 to `longest_pin` on `shape`. A
/// pin as long as its line covers the same squares from either end, so only
/// the forward family is kept then.
fn slides(shape: Shape, longest_pin: u8) -> Vec<Slide> {
    let (rows, cols) = (usize::from(shape.rows), usize::from(shape.cols));
    let column = |c: usize| -> u64 { (0..rows).map(|r| 1u64 << shape.square(r, c)).sum() };
    let row = |r: usize| -> u64 { (0..cols).map(|c| 1u64 << shape.square(r, c)).sum() };
    let pattern = |len: u32, step: u32| -> u64 { (0..len).map(|j| 1u64 << (j * step)).sum() };
    let mut families = Vec::new();
    for len in 2..=u32::from(longest_pin) {
        let along = [
            (cols, column(0), column(cols - 1), 1),
            (rows, row(0), row(rows - 1), cols),
        ];
        for (line, first, last, step) in along {
            if len as usize > line {
                continue;
            }
            let step = step as u32;
            families.push(Slide {
                entries: first,
                step,
                backwards: false,
                len,
                pattern: pattern(len, step),
            });
            if (len as usize) < line {
                families.push(Slide {
                    entries: last,
                    step,
                    backwards: true,
                    len,
                    pattern: pattern(len, step),
                });
            }
        }
    }
    families
}

impl Default for Euler {
    fn default() -> Self {
        Self::new(4, 4, 3).expect("4x4 is a valid board")
    }
}

impl Game for Euler {
    type Position = Covered;
    type Move = u64;

    fn board(&self, position: &Covered) -> Board {
        self.describe(position)
    }

    /// One code per square: 0 uncovered, 1 covered by a pin.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: usize::from(self.shape.rows),
            cols: usize::from(self.shape.cols),
            codes: vec![Code::new("pin", Piece::new("", None, Look::Pin))],
        })
    }

    fn fill_tensor(&self, position: &Covered, cells: &mut [i8]) {
        for (s, cell) in cells.iter_mut().enumerate() {
            *cell = (position.0 >> s & 1) as i8;
        }
    }

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
        let mut text = String::with_capacity(self.shape.squares() + usize::from(self.shape.rows));
        self.write_position(position, &mut text);
        text
    }

    fn write_position(&self, position: &Covered, text: &mut String) {
        // Bytes first, then one append: no check per character (nor a
        // division per square).
        let mut bytes = [b'/'; 2 * MAX_EULER_SQUARES];
        let mut covered = position.0;
        let mut at = 0;
        for r in 0..self.shape.rows {
            if r > 0 {
                at += 1;
            }
            for _ in 0..self.shape.cols {
                bytes[at] = if covered & 1 == 1 { b'X' } else { b'.' };
                covered >>= 1;
                at += 1;
            }
        }
        text.push_str(std::str::from_utf8(&bytes[..at]).unwrap_or_default());
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

impl NumberedTiers for Euler {
    fn tier_count(&self) -> usize {
        self.shape.squares() + 1
    }

    fn tier(&self, position: &Covered) -> usize {
        position.0.count_ones() as usize
    }
}

impl TableWalk for Euler {
    /// Walks the masks with `tier` squares covered directly (Gosper's hack),
    /// never touching the others.
    fn for_each_index_in_tier(
        &self,
        tier: usize,
        range: Range<u64>,
        mut visit: impl FnMut(u64, Covered),
    ) {
        let end = range.end.min(self.index_len());
        let Some(mut mask) = first_with_ones(range.start, tier as u32) else {
            return;
        };
        while mask < end {
            visit(mask, Covered(mask));
            if mask == 0 {
                return;
            }
            let low = mask & mask.wrapping_neg();
            let ripple = mask + low;
            mask = ripple | ((mask ^ ripple) >> (2 + low.trailing_zeros()));
        }
    }

    fn for_each_child_index(&self, position: &Covered, mut visit: impl FnMut(u64)) {
        self.for_each_fast_move(position.0, |mv| visit(position.0 | mv));
    }
}

/// The least number at or above `from` with exactly `ones` bits set, if any.
fn first_with_ones(from: u64, ones: u32) -> Option<u64> {
    let mut x = from;
    loop {
        let count = x.count_ones();
        if count == ones {
            return Some(x);
        }
        if count < ones {
            // Setting the lowest clear bits gives the least larger number.
            for _ in count..ones {
                x |= !x & x.wrapping_add(1);
            }
            return (x.count_ones() == ones).then_some(x);
        }
        // Too many bits: every number below x + lowest bit is a superset of x.
        x = x.checked_add(x & x.wrapping_neg())?;
    }
}

impl Symmetric for Euler {
    fn for_each_symmetric(&self, position: &Covered, mut visit: impl FnMut(Covered)) {
        for symmetry in 0..self.images.len() {
            visit(Covered(u64::from(
                self.images.image(symmetry, position.0 as u32),
            )));
        }
    }
}

impl Searchable for Euler {
    /// The canonical mask: symmetric boards share what the search learns.
    fn key(&self, position: &Covered) -> u64 {
        self.canonical_index(position)
    }

    fn key_space(&self) -> u64 {
        self.index_len()
    }

    /// The uncovered squares: every move covers at least one.
    fn plies_left(&self, position: &Covered) -> Remoteness {
        self.shape.squares() as Remoteness - position.0.count_ones()
    }
}

/// Distributed retrograde analysis solves Euler from its moves (it has no
/// loops, but the analysis serves any game with an index).
impl Retrograde for Euler {
    type Folding = BySymmetry;
    type Parents = FromMoves;
}

/// The page's drawing: covered squares hold pins; a move is a click on a
/// square or a drag from one end of a pin to the other.
impl Euler {
    fn describe(&self, position: &Covered) -> Board {
        let mut board = Board::grid(usize::from(self.shape.rows), usize::from(self.shape.cols));
        for (s, cell) in board.cells.iter_mut().enumerate() {
            if position.0 >> s & 1 == 1 {
                cell.pieces.push(Piece::new("", None, Look::Pin));
            }
        }
        board.drag = true;
        board.howto = "Click an uncovered square to push a pin onto it; drag from one end of a \
                       line of uncovered squares at the edge to the other to slide in a longer pin. \
                       Covering the last square loses."
            .into();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let name = self.format_move(position, mv);
                // A pin is the two squares at its ends, pressed and
                // released in either order.
                let ends = name.split('-').map(String::from).collect();
                board.moves.push(BoardMove {
                    name,
                    clicks: vec![ends],
                });
            });
        }
        board
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn game() -> impl Strategy<Value = Euler> {
        (1u8..=5, 1u8..=6, 1u8..=4).prop_map(|(r, c, l)| Euler::new(r, c, l).unwrap())
    }

    fn game_and_mask() -> impl Strategy<Value = (Euler, u64)> {
        game().prop_flat_map(|g| {
            let full = g.full();
            (Just(g), 0..=full)
        })
    }

    proptest! {
        #[test]
        fn fast_moves_are_exactly_the_moves((game, covered) in game_and_mask()) {
            let mut fast = Vec::new();
            game.for_each_fast_move(covered, |mv| fast.push(mv));
            let mut slow = Vec::new();
            game.for_each_move(&Covered(covered), |mv, _| slow.push(mv));
            fast.sort_unstable();
            prop_assert_eq!(fast, slow);
        }

        #[test]
        fn symmetric_images_follow_the_square_maps((game, covered) in game_and_mask()) {
            let mut fast = Vec::new();
            game.for_each_symmetric(&Covered(covered), |image| fast.push(image.0));
            let slow: Vec<u64> = game.shape().symmetries().iter().map(|map| {
                (0..game.shape().squares()).filter(|&s| covered >> s & 1 == 1).map(|s| 1u64 << map[s]).sum()
            }).collect();
            prop_assert_eq!(fast, slow);
        }

        #[test]
        fn first_with_ones_is_the_least(from in 0u64..5000, ones in 0u32..14) {
            let expected = (from..1 << 14).find(|x| x.count_ones() == ones);
            prop_assert_eq!(first_with_ones(from, ones), expected);
        }

        #[test]
        fn tiers_walk_exactly_their_masks(rows in 1u8..=4, cols in 1u8..=4, tier in 0usize..=16, a in 0u64..1 << 16, b in 0u64..1 << 16) {
            let game = Euler::new(rows, cols, 3).unwrap();
            let range = a.min(b)..a.max(b);
            let mut walked = Vec::new();
            game.for_each_index_in_tier(tier, range.clone(), |index, position| {
                assert_eq!(position, Covered(index));
                walked.push(index);
            });
            let expected: Vec<u64> = range
                .filter(|&i| i < game.index_len() && i.count_ones() as usize == tier)
                .collect();
            prop_assert_eq!(walked, expected);
        }
    }

    #[test]
    fn slides_of_a_whole_line_are_not_repeated() {
        let game = Euler::new(2, 3, 3).unwrap();
        let mut moves = BTreeSet::new();
        let mut count = 0;
        game.for_each_fast_move(0, |mv| {
            moves.insert(mv);
            count += 1;
        });
        assert_eq!(count, moves.len());
    }

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
