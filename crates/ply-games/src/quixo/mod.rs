//! Quixo (Thierry Chartier, 1995), with GamesmanOne's rules, on 5x5, 4x4
//! or 3x3 boards: take a cube from the edge that is blank or shows your
//! symbol, turn it to your symbol and push it back in at another end of its
//! row or column. A move that leaves a line of the opponent's symbol loses,
//! even if it makes the mover's line too; one that leaves only the mover's
//! line wins. Play may loop for ever.
//!
//! Positions are two bit masks (X cubes, O cubes; square `r * n + c` from
//! the top left) and the mover. The game is solved tier by tier
//! ([`index`]): a tier is the number of X and O cubes, which moves never
//! lower; swapping the colours and the mover maps tier (x, o) onto (o, x).

pub mod index;
#[cfg(test)]
mod tests;

use crate::board::{MaskImages, Shape};
use crate::colex::{Colex, PackingPath};
use crate::two_sides::TwoSides;
use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::tensor::{Code, Tensor, fill_two_masks};
use ply_core::{Game, PositionError, Value};

/// A Quixo position: the cubes showing X and O, and who moves.
pub type Cubes = TwoSides;

/// A move: the square the cube is taken from and the square where it goes
/// back in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Slide {
    /// The edge square taken.
    pub from: u8,
    /// The end of its row or column where it goes back in.
    pub to: u8,
}

/// A precomputed slide: the squares from `from` to `to` shift one step
/// toward `from`.
#[derive(Copy, Clone, Debug)]
struct Path {
    slide: Slide,
    /// The squares from `from` to `to`, both included.
    span: u32,
    /// The bit distance of one step along the line (1 in a row, n in a column).
    step: u32,
}

impl Path {
    /// Applies the slide to one side's mask (the taken cube removed).
    #[inline]
    fn shift(&self, mask: u32) -> u32 {
        let moved = mask & self.span & !(1 << self.slide.from);
        let moved = if self.slide.to > self.slide.from {
            moved >> self.step
        } else {
            moved << self.step
        };
        (mask & !self.span) | moved
    }
}

/// Quixo on an n x n board.
#[derive(Clone)]
pub struct Quixo {
    n: u8,
    /// Ranks boards inside a tier.
    colex: &'static Colex,
    /// How the index packs point sets.
    packing: PackingPath,
    /// Every legal slide, in the order moves are listed.
    paths: Vec<Path>,
    /// The rows, columns and two diagonals.
    lines: Vec<u32>,
    /// The 8 symmetries of the square board, applied to masks: they map
    /// moves onto moves and lines onto lines.
    images: MaskImages,
}

impl std::fmt::Debug for Quixo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Quixo({}x{})", self.n, self.n)
    }
}

impl Default for Quixo {
    fn default() -> Self {
        Self::new(5)
    }
}

impl Quixo {
    /// Quixo on an `n` x `n` board, n from 3 to 5.
    pub fn new(n: u8) -> Quixo {
        let size = usize::from(n);
        let at = |r: usize, c: usize| (r * size + c) as u8;
        let mut paths = Vec::new();
        for r in 0..size {
            for c in 0..size {
                let edge = r == 0 || c == 0 || r == size - 1 || c == size - 1;
                if !edge {
                    continue;
                }
                let ends = [(r, 0), (r, size - 1), (0, c), (size - 1, c)];
                for (i, &(tr, tc)) in ends.iter().enumerate() {
                    if (tr, tc) == (r, c) {
                        continue;
                    }
                    let (from, to) = (at(r, c), at(tr, tc));
                    let step = if i < 2 { 1 } else { size as u32 };
                    let (lo, hi) = (from.min(to), from.max(to));
                    let span = (u32::from(lo)..=u32::from(hi))
                        .step_by(step as usize)
                        .fold(0, |m, s| m | 1 << s);
                    paths.push(Path {
                        slide: Slide { from, to },
                        span,
                        step,
                    });
                }
            }
        }
        let mut lines = Vec::new();
        for i in 0..size {
            lines.push((0..size).fold(0, |m, c| m | 1 << at(i, c)));
            lines.push((0..size).fold(0, |m, r| m | 1 << at(r, i)));
        }
        lines.push((0..size).fold(0, |m, i| m | 1 << at(i, i)));
        lines.push((0..size).fold(0, |m, i| m | 1 << at(i, size - 1 - i)));
        Quixo {
            n,
            colex: Colex::get(),
            packing: PackingPath::in_use(),
            paths,
            lines,
            images: Shape { rows: n, cols: n }.mask_images(),
        }
    }

    /// The same game, its index packing point sets by `path` (by default
    /// [`PackingPath::in_use`]).
    pub fn packed_by(self, path: PackingPath) -> Quixo {
        Quixo {
            packing: path,
            ..self
        }
    }

    /// The game from the text after `quixo:` (`5x5`, `4x4` or `3x3`).
    pub fn from_params(params: &str) -> Result<Quixo, PositionError> {
        match params {
            "5x5" => Ok(Quixo::new(5)),
            "4x4" => Ok(Quixo::new(4)),
            "3x3" => Ok(Quixo::new(3)),
            other => Err(PositionError::parameters(format!(
                "'{other}' is not a Quixo board: give 5x5, 4x4 or 3x3"
            ))),
        }
    }

    /// The side of the board.
    pub fn side(&self) -> u8 {
        self.n
    }

    /// Squares on the board.
    fn squares(&self) -> u32 {
        u32::from(self.n) * u32::from(self.n)
    }

    /// Whether `mask` holds a whole line.
    #[inline]
    fn has_line(&self, mask: u32) -> bool {
        self.lines.iter().any(|&line| line & !mask == 0)
    }

    /// The square's name: column letter, row number from the top.
    fn square_name(&self, square: u8) -> String {
        let n = self.n;
        format!("{}{}", char::from(b'a' + square % n), square / n + 1)
    }

    /// Calls `visit` with every slide from `position` and the position it
    /// leads to (the mover's turn passes). Does not look at lines.
    #[inline]
    fn for_each_slide(&self, position: &Cubes, mut visit: impl FnMut(Slide, Cubes)) {
        let (mine, theirs) = position.sides();
        for path in &self.paths {
            if theirs & (1 << path.slide.from) != 0 {
                continue;
            }
            let mine = path.shift(mine) | 1 << path.slide.to;
            let theirs = path.shift(theirs);
            visit(
                path.slide,
                Cubes::from_sides(theirs, mine, !position.o_to_move),
            );
        }
    }

    /// Calls `visit` with every position of the same cube counts that has a
    /// slide to `position`: the last mover took one of their own cubes.
    fn for_each_unslide(&self, position: &Cubes, mut visit: impl FnMut(Cubes)) {
        // The last mover is the one not to move now.
        let (waiting, last) = position.sides();
        for path in &self.paths {
            if last & (1 << path.slide.to) == 0 {
                continue;
            }
            // Undo: the squares from `from` to `to` shift back toward `to`,
            // and the taken cube, the last mover's, returns to `from`.
            let back = Path {
                slide: Slide {
                    from: path.slide.to,
                    to: path.slide.from,
                },
                ..*path
            };
            let last = back.shift(last) | 1 << path.slide.from;
            let waiting = back.shift(waiting);
            visit(Cubes::from_sides(last, waiting, !position.o_to_move));
        }
    }
}

impl Game for Quixo {
    type Position = Cubes;
    type Move = Slide;

    fn name(&self) -> String {
        match self.n {
            5 => "quixo".to_string(),
            n => format!("quixo:{n}x{n}"),
        }
    }

    fn start(&self) -> Cubes {
        Cubes {
            x: 0,
            o: 0,
            o_to_move: false,
        }
    }

    /// The mover wins if they have a line (the opponent made it, whatever
    /// else it made), loses if only the opponent has one.
    fn primitive(&self, position: &Cubes) -> Option<Value> {
        let (mine, theirs) = position.sides();
        if self.has_line(mine) {
            Some(Value::Win)
        } else if self.has_line(theirs) {
            Some(Value::Lose)
        } else {
            None
        }
    }

    fn for_each_move(&self, position: &Cubes, visit: impl FnMut(Slide, Cubes)) {
        self.for_each_slide(position, visit);
    }

    fn parse_position(&self, text: &str) -> Result<Cubes, PositionError> {
        let n = usize::from(self.n);
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() != n + 1 {
            return Err(PositionError::new(format!(
                "expected {n} rows of {n} squares and the mover, joined by '/' (like {}), got {} parts",
                self.format_position(&self.start()),
                parts.len()
            )));
        }
        let mut cubes = Cubes {
            x: 0,
            o: 0,
            o_to_move: false,
        };
        for (r, row) in parts[..n].iter().enumerate() {
            if row.chars().count() != n {
                return Err(PositionError::new(format!(
                    "row {} has {} squares, expected {n}",
                    r + 1,
                    row.chars().count()
                )));
            }
            for (c, ch) in row.chars().enumerate() {
                let bit = 1 << (r * n + c);
                match ch {
                    '.' => {}
                    'X' => cubes.x |= bit,
                    'O' => cubes.o |= bit,
                    other => {
                        return Err(PositionError::new(format!(
                            "row {} has '{other}': a square is '.', 'X' or 'O'",
                            r + 1
                        )));
                    }
                }
            }
        }
        cubes.o_to_move = match parts[n] {
            "X" => false,
            "O" => true,
            other => {
                return Err(PositionError::new(format!(
                    "the mover is '{other}': expected X or O"
                )));
            }
        };
        Ok(cubes)
    }

    fn format_position(&self, position: &Cubes) -> String {
        let n = usize::from(self.n);
        let mut text = String::with_capacity(n * (n + 1) + 1);
        for r in 0..n {
            for c in 0..n {
                let square = (r * n + c) as u32;
                text.push(crate::colex::mark(
                    position.x,
                    position.o,
                    square,
                    ['X', 'O', '.'],
                ));
            }
            text.push('/');
        }
        text.push(if position.o_to_move { 'O' } else { 'X' });
        text
    }

    fn format_move(&self, _: &Cubes, slide: Slide) -> String {
        format!(
            "{}{}",
            self.square_name(slide.from),
            self.square_name(slide.to)
        )
    }

    fn render(&self, position: &Cubes) -> String {
        let text = self.format_position(position);
        let (rows, mover) = text.rsplit_once('/').unwrap_or((&text, ""));
        format!("{}\n{mover} to move", rows.replace('/', "\n"))
    }

    /// One code per square: 0 a blank cube, 1 an X, 2 an O.
    fn tensor(&self) -> Option<Tensor> {
        let n = usize::from(self.n);
        Some(Tensor {
            rows: n,
            cols: n,
            codes: vec![
                Code::new("X", Piece::new("X", Some(0), Look::Cross)),
                Code::new("O", Piece::new("O", Some(1), Look::Ring)),
            ],
        })
    }

    fn fill_tensor(&self, position: &Cubes, cells: &mut [i8]) {
        fill_two_masks(u64::from(position.x), u64::from(position.o), cells);
    }

    fn board(&self, position: &Cubes) -> Board {
        let n = usize::from(self.n);
        let mut board = Board::grid(n, n);
        for square in 0..n * n {
            let bit = 1 << square;
            let piece = if position.x & bit != 0 {
                Some(Piece::new("X", Some(0), Look::Cross))
            } else if position.o & bit != 0 {
                Some(Piece::new("O", Some(1), Look::Ring))
            } else {
                None
            };
            board.cells[square].pieces.extend(piece);
        }
        board.players = ["X".into(), "O".into()];
        board.mover = Some(u8::from(position.o_to_move));
        board.howto = "Click a blank cube or one of yours on the edge, then the end of its row or column where it goes back in.".into();
        if self.primitive(position).is_none() {
            self.for_each_slide(position, |slide, _| {
                board.moves.push(BoardMove::clicks(
                    self.format_move(position, slide),
                    [self.square_name(slide.from), self.square_name(slide.to)],
                ));
            });
        }
        board
    }
}
