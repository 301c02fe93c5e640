//! The Yehr Game (HDU 3649 "New Game"): a 10-row board of four columns,
//! A (acm), B (bahamas), C (cab) and D (daze), with one Red and one Black
//! piece in each column, Red below Black.
//!
//! Moves: the acm one row forward (Red up, Black down), capturing the
//! opposing acm by moving onto it; B and C any distance either way without
//! reaching the opposing piece; the daze one row backward (Red down to row
//! 1 at the lowest, Black up to row 10). Whoever cannot move loses.
//!
//! A capture is a move like any other: it leads to a position with both
//! acms on one row, a primitive loss for the player to move there (whose acm
//! was taken). So the capturing move is a win in one ply, not a shortcut.
//!
//! Text: `R/4,5,5,5/7,6,6,6` is the mover (`R` Red or `B` Black), then
//! Red's A,B,C,D rows, then Black's. Moves: the piece letter and its new
//! row, e.g. `B3`, `A6`.
//!
//! Index: every position, either side to move: each acm pair with Red below
//! Black (45) or captured (9 rows, see [`YehrPosition::new`]), each B and C
//! pair with Red below Black (45 each), each daze pair (25): 5,467,500 in all.

use ply_core::board::{Board, BoardMove, Look, Piece};
use ply_core::{
    BySymmetry, FromUnmoves, Game, Indexed, Parents, PositionError, Progress, RetroTable,
    Retrograde, Symmetric, Value, reachable_from,
};
use rayon::prelude::*;
use std::fmt;

/// One of the two players.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Red moves up the board, starting in rows 1..5.
    Red,
    /// Black moves down the board, starting in rows 6..10.
    Black,
}

impl Side {
    /// The other player.
    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::Red => Side::Black,
            Side::Black => Side::Red,
        }
    }

    /// The player's name, as the contest prints it.
    pub fn name(self) -> &'static str {
        match self {
            Side::Red => "Red",
            Side::Black => "Black",
        }
    }

    fn letter(self) -> char {
        match self {
            Side::Red => 'R',
            Side::Black => 'B',
        }
    }
}

/// The column of the acm, which moves one row forward and captures.
pub const ACM: usize = 0;
/// The column of the bahamas, which slides either way.
pub const BAHAMAS: usize = 1;
/// The column of the cab, which slides either way.
pub const CAB: usize = 2;
/// The column of the daze, which moves one row backward.
pub const DAZE: usize = 3;

/// The lowest and highest rows.
const ROWS: std::ops::RangeInclusive<u8> = 1..=10;
/// Column letters, A to D.
const LETTERS: [char; 4] = ['A', 'B', 'C', 'D'];

/// A position: who moves, and the row of every piece (Red's and Black's, in
/// column order A, B, C, D).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct YehrPosition {
    mover: Side,
    red: [u8; 4],
    black: [u8; 4],
}

impl YehrPosition {
    /// A position, if every piece stands where the game can put it: all rows
    /// in 1..10; Red's B and C below Black's; Red's daze in 1..5 and Black's
    /// in 6..10; Red's acm below Black's, or on the same row if it has just
    /// been captured (then the mover lost; the capturer came from one row
    /// back, so that row is at most 9 with Red to move, at least 2 with
    /// Black to move).
    pub fn new(mover: Side, red: [u8; 4], black: [u8; 4]) -> Result<Self, PositionError> {
        for (side, rows) in [(Side::Red, red), (Side::Black, black)] {
            if let Some(column) = (0..4).find(|&c| !ROWS.contains(&rows[c])) {
                return Err(PositionError::illegal(format!(
                    "{}'s {} is on row {}; rows are 1..10",
                    side.name(),
                    LETTERS[column],
                    rows[column]
                )));
            }
        }
        for column in [BAHAMAS, CAB] {
            if red[column] >= black[column] {
                return Err(PositionError::illegal(format!(
                    "column {}: Red's piece (row {}) must be below Black's (row {})",
                    LETTERS[column], red[column], black[column]
                )));
            }
        }
        if red[DAZE] > 5 || black[DAZE] < 6 {
            return Err(PositionError::illegal(format!(
                "column D: Red's daze must be on rows 1..5 and Black's on 6..10, found {} and {}",
                red[DAZE], black[DAZE]
            )));
        }
        let (r, k) = (red[ACM], black[ACM]);
        if r > k {
            return Err(PositionError::illegal(format!(
                "column A: Red's acm (row {r}) must be below Black's (row {k})"
            )));
        }
        let capturer_came_from = match mover {
            Side::Red => k + 1,
            Side::Black => r.wrapping_sub(1),
        };
        if r == k && !ROWS.contains(&capturer_came_from) {
            return Err(PositionError::illegal(format!(
                "column A: both acms on row {r} with {} to move, but {} cannot have captured there",
                mover.name(),
                mover.other().name()
            )));
        }
        Ok(Self { mover, red, black })
    }

    /// The player to move.
    pub fn mover(&self) -> Side {
        self.mover
    }

    /// The rows of `side`'s pieces, in column order A, B, C, D.
    #[inline]
    pub fn rows(&self, side: Side) -> [u8; 4] {
        match side {
            Side::Red => self.red,
            Side::Black => self.black,
        }
    }

    /// Whether the mover's acm has just been captured (both acms on one row):
    /// the game is over and the mover lost.
    #[inline]
    pub fn captured(&self) -> bool {
        self.red[ACM] == self.black[ACM]
    }

    /// The colour swap: the board turned upside down, Red and Black
    /// exchanged, the other side to move. Values are unchanged.
    #[inline]
    pub fn swapped(&self) -> Self {
        Self {
            mover: self.mover.other(),
            red: self.black.map(|row| 11 - row),
            black: self.red.map(|row| 11 - row),
        }
    }

    /// The same position with `side`'s piece in `column` on `row`, and the
    /// other player to move.
    #[inline]
    fn after(&self, side: Side, column: usize, row: u8) -> Self {
        let mut next = Self {
            mover: self.mover.other(),
            ..*self
        };
        match side {
            Side::Red => next.red[column] = row,
            Side::Black => next.black[column] = row,
        }
        next
    }
}

impl fmt::Display for YehrPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.red;
        let [w, x, y, z] = self.black;
        write!(f, "{}/{a},{b},{c},{d}/{w},{x},{y},{z}", self.mover.letter())
    }
}

/// Appends `n` in decimal.
fn push_decimal(text: &mut String, n: u8) {
    if n >= 100 {
        text.push(char::from(b'0' + n / 100));
    }
    if n >= 10 {
        text.push(char::from(b'0' + n / 10 % 10));
    }
    text.push(char::from(b'0' + n % 10));
}

/// A move: a piece (its column, [`ACM`]..[`DAZE`]) and the row it goes to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct YehrMove {
    /// The column of the piece moved.
    pub column: u8,
    /// The row it moves to.
    pub row: u8,
}

/// The pairs of rows `r < k` in 1..10, numbered 0..45 in order.
const PAIRS: [(u8, u8); 45] = {
    let mut pairs = [(0, 0); 45];
    let mut i = 0;
    let mut r = 1;
    while r <= 10 {
        let mut k = r + 1;
        while k <= 10 {
            pairs[i] = (r, k);
            i += 1;
            k += 1;
        }
        r += 1;
    }
    pairs
};

/// Index strides: the daze pair varies fastest, then the cab pair, the
/// bahamas pair, the acm code (45 pairs, then 9 captured rows) and the mover.
const CAB_STRIDE: u32 = 25;
const BAHAMAS_STRIDE: u32 = 45 * CAB_STRIDE;
const ACM_STRIDE: u32 = 45 * BAHAMAS_STRIDE;
const MOVER_STRIDE: u32 = (45 + 9) * ACM_STRIDE;

/// `PART[r][k]`: what a pair of rows adds to the index, for a column whose
/// pairs are numbered in [`PAIRS`] order with the given stride. Rows are
/// looked up masked to 4 bits, so the tables are 16 by 16.
const fn pair_parts(stride: u32) -> [[u32; 16]; 16] {
    let mut parts = [[0; 16]; 16];
    let mut i = 0;
    while i < 45 {
        let (r, k) = PAIRS[i];
        parts[r as usize][k as usize] = i as u32 * stride;
        i += 1;
    }
    parts
}

const BAHAMAS_PART: [[u32; 16]; 16] = pair_parts(BAHAMAS_STRIDE);
const CAB_PART: [[u32; 16]; 16] = pair_parts(CAB_STRIDE);

/// What the daze rows add to the index: Red's row 1..5 times 5, plus
/// Black's row 6..10.
const DAZE_PART: [[u32; 16]; 16] = {
    let mut parts = [[0; 16]; 16];
    let mut r = 1;
    while r <= 5 {
        let mut k = 6;
        while k <= 10 {
            parts[r][k] = ((r - 1) * 5 + k - 6) as u32;
            k += 1;
        }
        r += 1;
    }
    parts
};

/// What the mover and the acm rows add to the index: a pair's number, or
/// 45 plus the captured row counted from the lowest possible one.
const ACM_PART: [[[u32; 16]; 16]; 2] = {
    let mut parts = [[[0; 16]; 16]; 2];
    let mut mover = 0;
    while mover < 2 {
        let base = mover as u32 * MOVER_STRIDE;
        let mut i = 0;
        while i < 45 {
            let (r, k) = PAIRS[i];
            parts[mover][r as usize][k as usize] = base + i as u32 * ACM_STRIDE;
            i += 1;
        }
        let mut captured = 0;
        while captured < 9 {
            let row = LOWEST_CAPTURE_ROW[mover] as usize + captured;
            parts[mover][row][row] = base + (45 + captured) as u32 * ACM_STRIDE;
            captured += 1;
        }
        mover += 1;
    }
    parts
};

/// The lowest row of a captured acm pair, with Red (0) or Black (1) to
/// move: the capturer came from the row behind.
const LOWEST_CAPTURE_ROW: [u8; 2] = [1, 2];

/// The index of the position with mover number `mover` (0 Red, 1 Black)
/// and the given rows.
#[inline]
fn index_of(mover: usize, red: [u8; 4], black: [u8; 4]) -> u64 {
    let part = |parts: &[[u32; 16]; 16], column: usize| {
        parts[usize::from(red[column] & 15)][usize::from(black[column] & 15)]
    };
    u64::from(
        part(&ACM_PART[mover & 1], ACM)
            + part(&BAHAMAS_PART, BAHAMAS)
            + part(&CAB_PART, CAB)
            + part(&DAZE_PART, DAZE),
    )
}

#[inline]
fn mover_number(side: Side) -> usize {
    match side {
        Side::Red => 0,
        Side::Black => 1,
    }
}

/// The Yehr Game with every position indexed, either side to move.
#[derive(Copy, Clone, Debug, Default)]
pub struct Yehr;

impl Yehr {
    /// Reads the contest's numbers: the mover (`0` Red, `1` Black) and the
    /// rows of Red's and Black's pieces.
    pub fn contest_position(
        mover: u8,
        red: [u8; 4],
        black: [u8; 4],
    ) -> Result<YehrPosition, PositionError> {
        let mover = match mover {
            0 => Side::Red,
            1 => Side::Black,
            other => {
                return Err(PositionError::new(format!(
                    "the first player must be 0 (Red) or 1 (Black), found {other}"
                )));
            }
        };
        YehrPosition::new(mover, red, black)
    }
}

fn parse_rows(text: &str, side: Side) -> Result<[u8; 4], PositionError> {
    let mut rows = [0u8; 4];
    let mut parts = text.split(',');
    for (column, row) in rows.iter_mut().enumerate() {
        let part = parts.next().unwrap_or("");
        *row = part.trim().parse().map_err(|_| {
            PositionError::new(format!(
                "{}'s {} row '{part}' is not a number",
                side.name(),
                LETTERS[column]
            ))
        })?;
    }
    if parts.next().is_some() {
        return Err(PositionError::new(format!(
            "{}'s rows '{text}': expected four rows A,B,C,D",
            side.name()
        )));
    }
    Ok(rows)
}

impl Game for Yehr {
    fn board(&self, position: &YehrPosition) -> Board {
        self.describe(position)
    }

    type Position = YehrPosition;
    type Move = YehrMove;

    fn name(&self) -> String {
        "yehr".to_string()
    }

    fn start(&self) -> YehrPosition {
        YehrPosition {
            mover: Side::Red,
            red: [4, 5, 5, 5],
            black: [7, 6, 6, 6],
        }
    }

    #[inline]
    fn primitive(&self, position: &YehrPosition) -> Option<Value> {
        position.captured().then_some(Value::Lose)
    }

    #[inline]
    fn for_each_move(
        &self,
        position: &YehrPosition,
        mut visit: impl FnMut(YehrMove, YehrPosition),
    ) {
        let side = position.mover;
        let (own, theirs) = (position.rows(side), position.rows(side.other()));
        let mut go = |column: usize, row: u8| {
            visit(
                YehrMove {
                    column: column as u8,
                    row,
                },
                position.after(side, column, row),
            );
        };
        // The acm steps forward; the opposing acm is never behind it.
        match side {
            Side::Red => go(ACM, own[ACM] + 1),
            Side::Black => go(ACM, own[ACM] - 1),
        }
        for column in [BAHAMAS, CAB] {
            let range = match side {
                Side::Red => 1..theirs[column],
                Side::Black => theirs[column] + 1..11,
            };
            for row in range.filter(|&row| row != own[column]) {
                go(column, row);
            }
        }
        match side {
            Side::Red if own[DAZE] > 1 => go(DAZE, own[DAZE] - 1),
            Side::Black if own[DAZE] < 10 => go(DAZE, own[DAZE] + 1),
            _ => {}
        }
    }

    fn parse_position(&self, text: &str) -> Result<YehrPosition, PositionError> {
        let parts: Vec<&str> = text.split('/').collect();
        let [mover, red, black] = parts[..] else {
            return Err(PositionError::new(
                "expected MOVER/RED/BLACK, e.g. R/4,5,5,5/7,6,6,6",
            ));
        };
        let mover = match mover {
            "R" | "r" => Side::Red,
            "B" | "b" => Side::Black,
            other => {
                return Err(PositionError::new(format!(
                    "the mover '{other}' must be R (Red) or B (Black)"
                )));
            }
        };
        YehrPosition::new(
            mover,
            parse_rows(red, Side::Red)?,
            parse_rows(black, Side::Black)?,
        )
    }

    fn format_position(&self, position: &YehrPosition) -> String {
        position.to_string()
    }

    /// As the position's `Display`, without the formatting machinery (an
    /// export writes millions).
    fn write_position(&self, position: &YehrPosition, text: &mut String) {
        text.push(position.mover.letter());
        for rows in [position.red, position.black] {
            for (i, row) in rows.into_iter().enumerate() {
                text.push(if i == 0 { '/' } else { ',' });
                push_decimal(text, row);
            }
        }
    }

    fn format_move(&self, position: &YehrPosition, mv: YehrMove) -> String {
        let mut text = String::with_capacity(3);
        self.write_move(position, mv, &mut text);
        text
    }

    fn write_move(&self, _position: &YehrPosition, mv: YehrMove, text: &mut String) {
        text.push(LETTERS[usize::from(mv.column)]);
        push_decimal(text, mv.row);
    }

    fn render(&self, position: &YehrPosition) -> String {
        let mut text = String::from("    A B C D\n");
        for row in (1..=10u8).rev() {
            text.push_str(&format!("{row:>2}  "));
            for column in 0..4 {
                let red = position.red[column] == row;
                let black = position.black[column] == row;
                text.push(match (red, black) {
                    (true, true) => '*',
                    (true, false) => 'r',
                    (false, true) => 'b',
                    (false, false) => '.',
                });
                text.push(if column < 3 { ' ' } else { '\n' });
            }
        }
        text.push_str(&format!("{} to move", position.mover.name()));
        if position.captured() {
            text.push_str(" (its acm is captured: lost)");
        }
        text
    }
}

impl Indexed for Yehr {
    fn index_len(&self) -> u64 {
        2 * u64::from(MOVER_STRIDE)
    }

    #[inline]
    fn rank(&self, position: &YehrPosition) -> u64 {
        index_of(mover_number(position.mover), position.red, position.black)
    }

    #[inline]
    fn unrank(&self, index: u64) -> Option<YehrPosition> {
        if index >= self.index_len() {
            return None;
        }
        let index = index as u32;
        let (mover, rest) = (index / MOVER_STRIDE, index % MOVER_STRIDE);
        let (acm, rest) = (rest / ACM_STRIDE, rest % ACM_STRIDE);
        let (bahamas, rest) = (rest / BAHAMAS_STRIDE, rest % BAHAMAS_STRIDE);
        let (cab, daze) = (rest / CAB_STRIDE, rest % CAB_STRIDE);
        let mover = if mover == 0 { Side::Red } else { Side::Black };
        let (ra, ka) = match acm.checked_sub(45) {
            Some(captured) => {
                let row = LOWEST_CAPTURE_ROW[mover_number(mover)] + captured as u8;
                (row, row)
            }
            None => PAIRS[acm as usize],
        };
        let (rb, kb) = PAIRS[bahamas as usize];
        let (rc, kc) = PAIRS[cab as usize];
        Some(YehrPosition {
            mover,
            red: [ra, rb, rc, 1 + (daze / 5) as u8],
            black: [ka, kb, kc, 6 + (daze % 5) as u8],
        })
    }
}

impl Parents for Yehr {
    #[inline]
    fn for_each_parent(&self, position: &YehrPosition, mut visit: impl FnMut(YehrPosition)) {
        // The player who moved last, and so moves in every parent.
        let side = position.mover.other();
        let (own, theirs) = (position.rows(side), position.rows(side.other()));
        let mut back = |column: usize, row: u8| visit(position.after(side, column, row));
        // The acm stepped forward from one row back (in a capture too).
        match side {
            Side::Red if own[ACM] > 1 => back(ACM, own[ACM] - 1),
            Side::Black if own[ACM] < 10 => back(ACM, own[ACM] + 1),
            _ => {}
        }
        if position.captured() {
            return;
        }
        for column in [BAHAMAS, CAB] {
            let range = match side {
                Side::Red => 1..theirs[column],
                Side::Black => theirs[column] + 1..11,
            };
            for row in range.filter(|&row| row != own[column]) {
                back(column, row);
            }
        }
        match side {
            Side::Red if own[DAZE] < 5 => back(DAZE, own[DAZE] + 1),
            Side::Black if own[DAZE] > 6 => back(DAZE, own[DAZE] - 1),
            _ => {}
        }
    }
}

impl Symmetric for Yehr {
    /// The identity, and the colour swap: the board turned upside down with
    /// Red and Black exchanged and the other side to move.
    fn for_each_symmetric(&self, position: &YehrPosition, mut visit: impl FnMut(YehrPosition)) {
        visit(*position);
        visit(position.swapped());
    }

    /// The image with Red to move, which has the smaller index.
    #[inline]
    fn canonical(&self, position: &YehrPosition) -> YehrPosition {
        match position.mover {
            Side::Red => *position,
            Side::Black => position.swapped(),
        }
    }

    #[inline]
    fn canonical_index(&self, position: &YehrPosition) -> u64 {
        match position.mover {
            Side::Red => index_of(0, position.red, position.black),
            Side::Black => index_of(
                0,
                position.black.map(|row| 11 - row),
                position.red.map(|row| 11 - row),
            ),
        }
    }
}

/// The page's drawing: four columns of ten rows, row 10 at the top, with
/// each side's four pieces lettered by column; a move is a click on the
/// square the piece goes to.
impl Yehr {
    fn describe(&self, position: &YehrPosition) -> Board {
        let rows: Vec<String> = ROWS.rev().map(|r| r.to_string()).collect();
        let mut board = Board::labelled(LETTERS.iter().map(char::to_string).collect(), rows);
        for (side, pieces) in [position.red, position.black].iter().enumerate() {
            for (column, &row) in pieces.iter().enumerate() {
                let side = u8::try_from(side).unwrap_or(1);
                board
                    .cell_mut(usize::from(10 - row), column)
                    .pieces
                    .push(Piece::new(LETTERS[column], Some(side), Look::Disc));
            }
        }
        board.players = ["Red".into(), "Black".into()];
        board.mover = Some(u8::from(position.mover == Side::Black));
        board.howto = "Click a square to move your piece in that column there. Red's acm (A) \
                       steps up and its daze (D) steps down; Black's the reverse; B and C slide \
                       either way up to the other side's piece. Landing on the other acm wins."
            .into();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let name = self.format_move(position, mv);
                board.moves.push(BoardMove::clicks(name.clone(), [name]));
            });
        }
        board
    }
}

/// Solved over symmetry classes by un-moves (no reverse graph); `ply
/// analyze` adds the contest's starts and what they reach.
impl Retrograde for Yehr {
    type Folding = BySymmetry;
    type Parents = FromUnmoves;

    fn facts(&self, table: &RetroTable, progress: &dyn Progress) -> Vec<(&'static str, u64)> {
        let captured = (0..self.index_len())
            .into_par_iter()
            .filter(|&i| self.unrank(i).is_some_and(|p| p.captured()))
            .count();
        let setups: Vec<_> = contest_setups().collect();
        let red_wins = setups
            .iter()
            .filter(|p| winner(table, p) == Some(Side::Red))
            .count();
        let reachable = reachable_from(self, setups.iter().copied(), progress);
        let reached = table.census_where(0..self.index_len(), |i| reachable.contains(i));
        vec![
            ("captured_positions", captured as u64),
            ("symmetry_classes", table.solved_positions()),
            ("contest_setups", setups.len() as u64),
            ("contest_setups_red_wins", red_wins as u64),
            ("reachable_from_contest_setups", reached.positions),
            ("reachable_win", reached.win),
            ("reachable_lose", reached.lose),
            ("reachable_draw", reached.draw),
        ]
    }
}

/// Every start the contest data can give: Red's A, B, C on rows 1..5,
/// Black's on 6..10, the dazes on 5 and 6, either side to move.
fn contest_setups() -> impl Iterator<Item = YehrPosition> {
    let rows = |low: u8| (0..125u8).map(move |n| [low + n / 25, low + n / 5 % 5, low + n % 5]);
    [0u8, 1].into_iter().flat_map(move |mover| {
        rows(1).flat_map(move |[a, b, c]| {
            rows(6).filter_map(move |[x, y, z]| {
                Yehr::contest_position(mover, [a, b, c, 5], [x, y, z, 6]).ok()
            })
        })
    })
}

/// Who wins `position` with perfect play.
fn winner(table: &RetroTable, position: &YehrPosition) -> Option<Side> {
    match table.outcome(&Yehr, position)?.value {
        Value::Win => Some(position.mover()),
        Value::Lose => Some(position.mover().other()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_round_trips() {
        let game = Yehr;
        assert_eq!(game.index_len(), 5_467_500);
        for index in (0..game.index_len()).step_by(97) {
            let position = game.unrank(index).unwrap();
            let checked = YehrPosition::new(position.mover, position.red, position.black);
            assert_eq!(checked, Ok(position));
            assert_eq!(game.rank(&position), index);
        }
    }

    #[test]
    fn written_texts_are_the_displayed_ones() {
        let game = Yehr;
        let mut text = String::new();
        for index in (0..game.index_len()).step_by(89) {
            let position = game.unrank(index).unwrap();
            text.clear();
            text.push('>');
            game.write_position(&position, &mut text);
            assert_eq!(text, format!(">{position}"));
            game.for_each_move(&position, |mv, _| {
                let expected = format!("{}{}", LETTERS[usize::from(mv.column)], mv.row);
                assert_eq!(game.format_move(&position, mv), expected);
                text.clear();
                game.write_move(&position, mv, &mut text);
                assert_eq!(text, expected);
            });
        }
    }

    #[test]
    fn text_round_trips_and_rejects_impossible_boards() {
        let game = Yehr;
        let text = "R/4,5,5,5/7,6,6,6";
        assert_eq!(
            game.format_position(&game.parse_position(text).unwrap()),
            text
        );
        for bad in [
            "R/4,5,5,5/7,6,6",
            "X/4,5,5,5/7,6,6,6",
            "R/4,6,5,5/7,6,6,6",
            "R/4,5,5,6/7,6,6,6",
            "R/8,5,5,5/7,6,6,6",
            "R/10,5,5,5/10,6,6,6",
            "B/1,5,5,5/1,6,6,6",
            "R/0,5,5,5/7,6,6,6",
            "R/4,5,5,5/7,6,6,x",
        ] {
            assert!(game.parse_position(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn capturing_wins_in_one_ply() {
        let game = Yehr;
        let position = game.parse_position("R/6,5,5,5/7,6,6,6").unwrap();
        let mut captures = Vec::new();
        game.for_each_move(&position, |mv, child| {
            if game.primitive(&child).is_some() {
                captures.push((game.format_move(&position, mv), child));
            }
        });
        assert_eq!(captures.len(), 1);
        assert_eq!(captures[0].0, "A7");
        assert_eq!(captures[0].1.to_string(), "B/7,5,5,5/7,6,6,6");
        assert_eq!(game.primitive(&captures[0].1), Some(Value::Lose));
    }
}
