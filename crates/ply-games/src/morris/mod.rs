//! Nine Men's Morris (Mills, Mühle) with Gasser's rules, and the smaller
//! games `morris:N` with N stones a side (3 to 9) for checks.
//!
//! The board is 24 points on three nested squares, named on a 7x7 grid
//! (files `a`-`g`, ranks `1`-`7`); the points are numbered 0..24 in the
//! order the text form writes them, row by row from the top. A position is
//! the two colours' point sets, the stones each still has in hand, and who
//! moves ([`Stones`]). Rules ([`rules`]): place while in hand, then slide to
//! a neighbouring point, jump anywhere with exactly three stones; a move
//! that closes a new mill removes one opponent stone (not one in a mill
//! unless all are); fewer than three stones (board and hand) loses, and so
//! does having no move.
//!
//! Text: `.../.../.../....../.../.../.../9,9/W` (the points row by row from
//! the top, the stones in hand `W,B`, the side to move). Moves: `d6`
//! (placing), `d6-d5` (moving), with `x` and the point of the stone removed
//! (`d6-d5xa1`, `c4xg7`).
//!
//! Sectors and the index are in [`index`], un-moves in [`unmoves`].

pub mod index;
pub mod rules;
pub mod search;
#[cfg(test)]
mod tests;
pub mod unmoves;

use crate::colex::PackingPath;
use ply_core::board::{Area, AreaPiece, Board, BoardMove, Look, Piece};
use ply_core::tensor::{Code, Tensor};
use ply_core::{Game, PositionError, Value};
use std::sync::OnceLock;

/// Points on the board.
pub const POINTS: usize = 24;
/// Every point.
pub const ALL: u32 = (1 << POINTS) - 1;
/// No point (a placing move's origin, a move without removal).
pub const NONE: u8 = POINTS as u8;

/// The points in text order, as (file, rank) from 0: a7 d7 g7 / b6 d6 f6 /
/// c5 d5 e5 / a4 b4 c4 e4 f4 g4 / c3 d3 e3 / b2 d2 f2 / a1 d1 g1.
const COORDS: [(i8, i8); POINTS] = [
    (0, 6),
    (3, 6),
    (6, 6),
    (1, 5),
    (3, 5),
    (5, 5),
    (2, 4),
    (3, 4),
    (4, 4),
    (0, 3),
    (1, 3),
    (2, 3),
    (4, 3),
    (5, 3),
    (6, 3),
    (2, 2),
    (3, 2),
    (4, 2),
    (1, 1),
    (3, 1),
    (5, 1),
    (0, 0),
    (3, 0),
    (6, 0),
];

/// Points in each text row, top to bottom.
const ROW_LENGTHS: [usize; 7] = [3, 3, 3, 6, 3, 3, 3];

/// The board's lines: neighbours, mills and symmetries.
#[derive(Debug)]
pub struct Geometry {
    /// The points one step from each point.
    pub adjacent: [u32; POINTS],
    /// The 16 mills.
    pub mills: [u32; 16],
    /// The two mills through each point.
    pub mills_through: [[u32; 2]; POINTS],
    /// The 16 symmetries as point permutations (the identity first).
    pub perms: [[u8; POINTS]; 16],
}

/// The point at (file, rank), if there is one.
fn point_at(x: i8, y: i8) -> Option<u8> {
    COORDS.iter().position(|&c| c == (x, y)).map(|p| p as u8)
}

impl Geometry {
    /// The board's tables, built once.
    pub fn get() -> &'static Geometry {
        static GEOMETRY: OnceLock<Geometry> = OnceLock::new();
        GEOMETRY.get_or_init(Geometry::build)
    }

    fn build() -> Geometry {
        // Lines along ranks and files: the points of one rank (or file) in
        // order, cut at the centre on the middle rank (file).
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for along_rank in [true, false] {
            for k in 0..7 {
                let mut line: Vec<(i8, u8)> = (0..POINTS as u8)
                    .filter_map(|p| {
                        let (x, y) = COORDS[usize::from(p)];
                        let (fixed, run) = if along_rank { (y, x) } else { (x, y) };
                        (fixed == k).then_some((run, p))
                    })
                    .collect();
                line.sort_unstable();
                if line.len() == 6 {
                    lines.push(line[..3].iter().map(|&(_, p)| p).collect());
                    lines.push(line[3..].iter().map(|&(_, p)| p).collect());
                } else if !line.is_empty() {
                    lines.push(line.iter().map(|&(_, p)| p).collect());
                }
            }
        }
        let mut adjacent = [0u32; POINTS];
        let mut mills = [0u32; 16];
        let mut mills_through = [[0u32; 2]; POINTS];
        for (i, line) in lines.iter().enumerate() {
            mills[i] = line.iter().fold(0, |m, &p| m | 1 << p);
            for pair in line.windows(2) {
                adjacent[usize::from(pair[0])] |= 1 << pair[1];
                adjacent[usize::from(pair[1])] |= 1 << pair[0];
            }
            for &p in line {
                let slot = usize::from(mills_through[usize::from(p)][0] != 0);
                mills_through[usize::from(p)][slot] = mills[i];
            }
        }
        // The 8 symmetries of the square about the centre (3, 3), each
        // with and without the inner and outer squares swapped.
        let mut perms = [[0u8; POINTS]; 16];
        let dihedral = |s: usize, dx: i8, dy: i8| -> (i8, i8) {
            let (a, b) = match s % 4 {
                0 => (dx, dy),
                1 => (-dy, dx),
                2 => (-dx, -dy),
                _ => (dy, -dx),
            };
            if s >= 4 { (-a, b) } else { (a, b) }
        };
        for (s, perm) in perms.iter_mut().enumerate() {
            for (p, image) in perm.iter_mut().enumerate() {
                let (x, y) = COORDS[p];
                let (mut dx, mut dy) = dihedral(s % 8, x - 3, y - 3);
                if s >= 8 {
                    let ring = dx.abs().max(dy.abs());
                    (dx, dy) = match ring {
                        3 => (dx / 3, dy / 3),
                        1 => (dx * 3, dy * 3),
                        _ => (dx, dy),
                    };
                }
                *image = point_at(dx + 3, dy + 3).expect("a symmetry maps points to points");
            }
        }
        Geometry {
            adjacent,
            mills,
            mills_through,
            perms,
        }
    }

    /// The stones of `set` that lie in a mill of `set`.
    #[inline]
    pub fn in_mills(&self, set: u32) -> u32 {
        self.mills
            .iter()
            .filter(|&&mill| mill & !set == 0)
            .fold(0, |acc, &mill| acc | mill)
    }

    /// Whether `set` has a mill through `point`.
    #[inline]
    pub fn mill_through(&self, set: u32, point: u8) -> bool {
        let [a, b] = self.mills_through[usize::from(point)];
        a & !set == 0 || b & !set == 0
    }

    /// The stones of `set` the opponent may remove: those in no mill, or
    /// all of them if every one is in a mill.
    #[inline]
    pub fn removable(&self, set: u32) -> u32 {
        let free = set & !self.in_mills(set);
        if free != 0 { free } else { set }
    }
}

/// The name of a point, like `d6`.
pub fn point_name(point: u8) -> String {
    let (x, y) = COORDS[usize::from(point)];
    format!("{}{}", char::from(b'a' + x as u8), y + 1)
}

/// The board's 32 lines between neighbouring points, by point name: two
/// points on one rank or file with no point between them, the centre
/// (d4, no point) never crossed.
fn lines() -> Vec<[String; 2]> {
    let mut lines = Vec::new();
    for (a, &(xa, ya)) in COORDS.iter().enumerate() {
        for (b, &(xb, yb)) in COORDS.iter().enumerate().skip(a + 1) {
            let between = |p: &(i8, i8)| {
                if ya == yb {
                    p.1 == ya && p.0 > xa.min(xb) && p.0 < xa.max(xb)
                } else {
                    p.0 == xa && p.1 > ya.min(yb) && p.1 < ya.max(yb)
                }
            };
            let centre = (3, 3);
            let aligned = ya == yb || xa == xb;
            if aligned && !COORDS.iter().any(between) && !between(&centre) {
                lines.push([point_name(a as u8), point_name(b as u8)]);
            }
        }
    }
    lines
}

/// The points of `set`, lowest first.
#[inline]
pub fn points(mut set: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let p = set.trailing_zeros() as u8;
            set &= set - 1;
            p
        })
    })
}

/// A position: each colour's stones on the board and in hand, and who moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stones {
    /// White's points (bit `p` for point `p`).
    pub white: u32,
    /// Black's points.
    pub black: u32,
    /// Stones in hand: White's, Black's.
    pub hand: [u8; 2],
    /// Whether Black moves (White moves first).
    pub black_to_move: bool,
}

impl Stones {
    /// The mover's points, the other player's, the mover's hand and the
    /// other's.
    #[inline]
    pub fn sides(&self) -> (u32, u32, u8, u8) {
        if self.black_to_move {
            (self.black, self.white, self.hand[1], self.hand[0])
        } else {
            (self.white, self.black, self.hand[0], self.hand[1])
        }
    }

    /// The position with `mover` (with `mover_hand`) to move against
    /// `other` (with `other_hand`), the mover being Black if `black_to_move`.
    #[inline]
    pub fn from_sides(
        mover: u32,
        other: u32,
        mover_hand: u8,
        other_hand: u8,
        black_to_move: bool,
    ) -> Stones {
        if black_to_move {
            Stones {
                white: other,
                black: mover,
                hand: [other_hand, mover_hand],
                black_to_move,
            }
        } else {
            Stones {
                white: mover,
                black: other,
                hand: [mover_hand, other_hand],
                black_to_move,
            }
        }
    }
}

/// A move: where a stone comes from ([`NONE`] when placed from the hand),
/// where it goes, and the opponent stone removed ([`NONE`] for none).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// The point left, or [`NONE`] for a stone placed from the hand.
    pub from: u8,
    /// The point reached.
    pub to: u8,
    /// The opponent stone removed, or [`NONE`].
    pub remove: u8,
}

/// Nine Men's Morris, or the game with fewer stones a side.
#[derive(Clone, Debug)]
pub struct Morris {
    /// Stones each player starts with in hand.
    stones: u8,
    /// Whether the tiers are the moving phase only (placing positions are
    /// then answered by search), rather than the whole game.
    moving_only: bool,
    /// The board's lines.
    geometry: &'static Geometry,
    /// Every sector with its first global index, then the end (built on
    /// first use).
    layout: OnceLock<Vec<(index::Sector, u64)>>,
    /// How the index packs point sets.
    packing: PackingPath,
}

/// Nine Men's Morris: the moving phase stored, the placing phase searched.
impl Default for Morris {
    fn default() -> Self {
        Self::moving_phase(9)
    }
}

/// Whether the hands fit the turn: White places first, so while placing
/// the hands are equal when White moves and Black holds one more when
/// Black moves (both empty once placing is over).
pub fn hands_fit(hand: [u8; 2], black_to_move: bool) -> bool {
    let [w, b] = hand;
    if black_to_move {
        b == w + 1 || (w == 0 && b == 0)
    } else {
        w == b
    }
}

impl Morris {
    /// The game with `stones` stones a side, 3 to 9, solved whole: its
    /// tiers are the placing sectors as well as the moving ones.
    pub fn new(stones: u8) -> Morris {
        assert!((3..=9).contains(&stones), "3 to 9 stones a side");
        Morris {
            stones,
            moving_only: false,
            geometry: Geometry::get(),
            layout: OnceLock::new(),
            packing: PackingPath::in_use(),
        }
    }

    /// The same game, its index packing point sets by `path` (by default
    /// [`PackingPath::in_use`]).
    pub fn packed_by(self, path: PackingPath) -> Morris {
        Morris {
            packing: path,
            ..self
        }
    }

    /// The game with `stones` stones a side, 3 to 9, whose tiers are the
    /// moving phase only (Gasser's databases): a placing position is in no
    /// tier and is answered by search over them.
    pub fn moving_phase(stones: u8) -> Morris {
        Morris {
            moving_only: true,
            ..Morris::new(stones)
        }
    }

    /// The game from the text after `morris:`: the stones a side, 3 to 9,
    /// then optionally `,moving` (the tiers are the moving phase only) or
    /// `,whole` (the whole game). Nine stones default to the moving phase,
    /// fewer to the whole game.
    pub fn from_params(params: &str) -> Result<Morris, PositionError> {
        let (count, mode) = match params.split_once(',') {
            Some((count, mode)) => (count, Some(mode)),
            None => (params, None),
        };
        let stones = match count.parse::<u8>() {
            Ok(n) if (3..=9).contains(&n) => n,
            _ => {
                return Err(PositionError::parameters(format!(
                    "morris takes the stones a side, 3 to 9, then optionally ',moving' or \
                     ',whole', not '{}'",
                    params.escape_debug()
                )));
            }
        };
        match mode {
            None if stones == 9 => Ok(Morris::moving_phase(stones)),
            None | Some("whole") => Ok(Morris::new(stones)),
            Some("moving") => Ok(Morris::moving_phase(stones)),
            Some(other) => Err(PositionError::parameters(format!(
                "morris:{count} takes ',moving' (store the moving phase, search the placing \
                 phase) or ',whole' (store the whole game), not ',{}'",
                other.escape_debug()
            ))),
        }
    }

    /// Stones each player starts with.
    pub fn stones(&self) -> u8 {
        self.stones
    }

    /// Whether the tiers are the moving phase only (see
    /// [`Morris::moving_phase`]).
    pub fn moving_only(&self) -> bool {
        self.moving_only
    }

    /// The board's lines.
    pub fn geometry(&self) -> &'static Geometry {
        self.geometry
    }

    /// Why `position` is no position of the game, if it is none.
    pub(crate) fn illegal(&self, p: &Stones) -> Option<String> {
        let n = self.stones;
        if p.white & p.black != 0 || (p.white | p.black) & !ALL != 0 {
            return Some("two stones on one point".into());
        }
        for (name, set, hand) in [("White", p.white, p.hand[0]), ("Black", p.black, p.hand[1])] {
            let on = index::pop(set) as u8;
            if hand > n || on + hand > n {
                return Some(format!(
                    "{name} has {on} stones on the board and {hand} in hand; each has {n} in all"
                ));
            }
        }
        if !hands_fit(p.hand, p.black_to_move) {
            return Some(format!(
                "hands {},{} with {} to move: White places first, so the hands are equal when \
                 White moves and Black holds one more when Black moves",
                p.hand[0],
                p.hand[1],
                if p.black_to_move { "Black" } else { "White" }
            ));
        }
        let (_, other, _, other_hand) = p.sides();
        if index::pop(other) + u32::from(other_hand) < 3 {
            return Some(
                "the player who just moved has fewer than 3 stones: play ended before".into(),
            );
        }
        None
    }
}

impl Game for Morris {
    type Position = Stones;
    type Move = Step;

    fn name(&self) -> String {
        match (self.stones, self.moving_only) {
            (9, true) => "morris".into(),
            (9, false) => "morris:9,whole".into(),
            (n, false) => format!("morris:{n}"),
            (n, true) => format!("morris:{n},moving"),
        }
    }

    /// 3 for the moving phase stored alone (its tiers are the moving
    /// sectors only, so `morris` databases of the whole game are refused);
    /// 4 for the whole game. Versions 2 and 1 were the same games with a
    /// moving sector's second half keyed by the mover's points rather than
    /// the other player's (see the index module): their cells lie in
    /// another order, so their databases are refused too.
    fn rules_version(&self) -> u32 {
        if self.moving_only { 3 } else { 4 }
    }

    fn start(&self) -> Stones {
        Stones {
            white: 0,
            black: 0,
            hand: [self.stones; 2],
            black_to_move: false,
        }
    }

    /// The mover with fewer than three stones (board and hand) has lost.
    #[inline]
    fn primitive(&self, position: &Stones) -> Option<Value> {
        let (mover, _, hand, _) = position.sides();
        (index::pop(mover) + u32::from(hand) < 3).then_some(Value::Lose)
    }

    fn for_each_move(&self, position: &Stones, visit: impl FnMut(Step, Stones)) {
        self.for_each_step(position, visit);
    }

    fn parse_position(&self, text: &str) -> Result<Stones, PositionError> {
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() != 9 {
            return Err(PositionError::new(format!(
                "expected 7 rows, the hands and the side to move joined by '/' (like {}), got {} parts",
                self.format_position(&self.start()),
                parts.len()
            )));
        }
        let (mut white, mut black, mut point) = (0u32, 0u32, 0usize);
        for (r, (row, &len)) in parts[..7].iter().zip(&ROW_LENGTHS).enumerate() {
            if row.len() != len {
                return Err(PositionError::new(format!(
                    "row {} has {} points; it has {len}",
                    r + 1,
                    row.chars().count()
                )));
            }
            for ch in row.bytes() {
                match ch {
                    b'W' => white |= 1 << point,
                    b'B' => black |= 1 << point,
                    b'.' => {}
                    other => {
                        return Err(PositionError::new(format!(
                            "row {} has '{}': a point is '.', 'W' or 'B'",
                            r + 1,
                            other.escape_ascii()
                        )));
                    }
                }
                point += 1;
            }
        }
        let hand = parts[7]
            .split_once(',')
            .and_then(|(w, b)| Some([w.parse::<u8>().ok()?, b.parse::<u8>().ok()?]))
            .ok_or_else(|| {
                PositionError::new(format!(
                    "the hands are '{}': expected White's and Black's stones in hand, like 9,9",
                    parts[7].escape_debug()
                ))
            })?;
        let black_to_move = match parts[8] {
            "W" => false,
            "B" => true,
            other => {
                return Err(PositionError::new(format!(
                    "the side to move is '{}': expected W or B",
                    other.escape_debug()
                )));
            }
        };
        let position = Stones {
            white,
            black,
            hand,
            black_to_move,
        };
        match self.illegal(&position) {
            Some(why) => Err(PositionError::illegal(why)),
            None => Ok(position),
        }
    }

    fn format_position(&self, position: &Stones) -> String {
        let mut text = String::with_capacity(40);
        let mut point = 0u32;
        for len in ROW_LENGTHS {
            for _ in 0..len {
                text.push(crate::colex::mark(
                    position.white,
                    position.black,
                    point,
                    ['W', 'B', '.'],
                ));
                point += 1;
            }
            text.push('/');
        }
        let [w, b] = position.hand;
        text.push_str(&format!("{w},{b}/"));
        text.push(if position.black_to_move { 'B' } else { 'W' });
        text
    }

    fn format_move(&self, _: &Stones, step: Step) -> String {
        let mut name = String::with_capacity(8);
        if step.from != NONE {
            name.push_str(&point_name(step.from));
            name.push('-');
        }
        name.push_str(&point_name(step.to));
        if step.remove != NONE {
            name.push('x');
            name.push_str(&point_name(step.remove));
        }
        name
    }

    fn render(&self, position: &Stones) -> String {
        let mut grid = [[b' '; 7]; 7];
        for (p, &(x, y)) in COORDS.iter().enumerate() {
            let bit = 1 << p;
            grid[6 - y as usize][x as usize] = if position.white & bit != 0 {
                b'W'
            } else if position.black & bit != 0 {
                b'B'
            } else {
                b'.'
            };
        }
        let mut out = String::new();
        for (r, row) in grid.iter().enumerate() {
            out.push_str(&format!("{} ", 7 - r));
            out.push_str(&String::from_utf8_lossy(row));
            out.push('\n');
        }
        let [w, b] = position.hand;
        out.push_str("  abcdefg\n");
        out.push_str(&format!(
            "in hand: W {w}, B {b}; {} to move",
            if position.black_to_move { "B" } else { "W" }
        ));
        out
    }

    /// The 7x7 grid with the 24 points; placing clicks the point, moving
    /// the stone then the point, and a removal adds a click on the stone
    /// removed. The hands are areas beside the board.
    /// One code per cell of the 7x7 grid the board is drawn on (the 24
    /// points and the empty cells between them): 0 empty, 1 a white stone,
    /// 2 a black one. Stones in hand are not on it.
    fn tensor(&self) -> Option<Tensor> {
        Some(Tensor {
            rows: 7,
            cols: 7,
            codes: vec![
                Code::new("white stone", Piece::new("", Some(0), Look::Disc)),
                Code::new("black stone", Piece::new("", Some(1), Look::Disc)),
            ],
        })
    }

    fn fill_tensor(&self, position: &Stones, cells: &mut [i8]) {
        cells.fill(0);
        for (p, &(x, y)) in COORDS.iter().enumerate() {
            let code = (position.white >> p & 1) | (position.black >> p & 1) << 1;
            cells[(6 - y as usize) * 7 + x as usize] = code as i8;
        }
    }

    fn board(&self, position: &Stones) -> Board {
        let files = ply_core::board::letters(7);
        let ranks = (1..=7).rev().map(|r| r.to_string()).collect();
        let mut board = Board::labelled(files, ranks);
        for (p, &(x, y)) in COORDS.iter().enumerate() {
            let bit = 1 << p;
            let cell = board.cell_mut(6 - y as usize, x as usize);
            if position.white & bit != 0 {
                cell.pieces.push(Piece::new("", Some(0), Look::Disc));
            } else if position.black & bit != 0 {
                cell.pieces.push(Piece::new("", Some(1), Look::Disc));
            }
        }
        for (side, label) in [(0u8, "White's hand"), (1, "Black's hand")] {
            board.areas.push(Area {
                label: label.into(),
                side: Some(side),
                pieces: vec![AreaPiece {
                    id: format!("hand{side}"),
                    piece: Piece::new("", Some(side), Look::Disc),
                    count: u32::from(position.hand[usize::from(side)]),
                }],
            });
        }
        board.lines = lines();
        board.players = ["White".into(), "Black".into()];
        board.mover = Some(u8::from(position.black_to_move));
        board.howto = "While you have stones in hand, click an empty point to place one; then \
                       click a stone and the point it moves to (anywhere with three stones). \
                       After closing a mill, click the opponent's stone to remove."
            .into();
        if self.primitive(position).is_none() {
            self.for_each_step(position, |step, _| {
                let mut clicks = Vec::with_capacity(3);
                if step.from != NONE {
                    clicks.push(point_name(step.from));
                }
                clicks.push(point_name(step.to));
                if step.remove != NONE {
                    clicks.push(point_name(step.remove));
                }
                board
                    .moves
                    .push(BoardMove::clicks(self.format_move(position, step), clicks));
            });
        }
        board
    }
}
