//! Dobutsu Shogi ("Let's Catch the Lion!", Madoka Kitao 2008): a shogi on a
//! 3x4 board with drops, strongly solved by Tetsuro Tanaka in 2009.
//!
//! Positions are kept as the player to move sees them (the board turned so
//! that the mover always plays up, row 0 being the mover's far rank), with
//! a flag saying whether that player is the first player (Sente); the text
//! form is the absolute board of the spec, `gle/.c./.C./ELG/-/S`.
//!
//! End of play (see the `rules` module): a player whose Lion has been caught has
//! lost, and so has a player whose opponent's Lion stands on their home
//! rank where they cannot take it (a safe try). A position where the mover
//! can catch the Lion or make a safe try is therefore a win in 1: the
//! remoteness counts the catching move, and the retrograde solver does not
//! store it (the rules tell its value). Play goes on from it when the
//! mover plays something else, so the positions after a declined catch or
//! try are solved like any other. The solve covers every legal position
//! of the index (the `index` module: Lion placements the rules decide are
//! left out), whether or not play from the start reaches it.
//!
//! Variants: `dobutsu:GEC` is the game; leaving letters out takes those
//! pairs of pieces out of play (`dobutsu:C` has the Lions and the Chicks
//! only), which gives small games for checking the solver.

mod index;
mod rules;
mod unmoves;

pub use index::IndexTables;

use ply_core::board::{Area, AreaPiece, Board, BoardMove, Look, Piece};
use ply_core::{Count, MoveTally, moves_into_class_of};
use ply_core::{Game, Indexed, Parents, PositionError, Symmetric, Value, WinsAtOnce};
use std::cmp::Ordering;

/// An empty square.
pub const EMPTY: u8 = 0;
/// The Lion.
pub const LION: u8 = 1;
/// The Giraffe: one step orthogonally.
pub const GIRAFFE: u8 = 2;
/// The Elephant: one step diagonally.
pub const ELEPHANT: u8 = 3;
/// The Chick: one step forward.
pub const CHICK: u8 = 4;
/// The Hen, a promoted Chick: one step orthogonally or diagonally forward.
pub const HEN: u8 = 5;
/// Added to a piece of the player not to move.
pub const THEIRS: u8 = 8;

/// A position as the player to move sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DobutsuPosition {
    /// Squares row-major from the mover's far rank (row 0) to their home
    /// rank (row 3), columns from the mover's left: a piece kind, plus
    /// [`THEIRS`] for the other player's pieces, or [`EMPTY`].
    pub board: [u8; 12],
    /// Pieces in hand: `hands[0]` the mover's, `hands[1]` the other
    /// player's, each counting Giraffes, Elephants and Chicks.
    pub hands: [[u8; 3]; 2],
    /// Whether the player to move is the first player (Sente).
    pub sente: bool,
}

/// A move in the mover's frame: a piece from square `from` to square `to`,
/// or a drop when `from` is 12 + the hand kind (0 Giraffe, 1 Elephant,
/// 2 Chick).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DobutsuMove {
    /// The square left, or 12 + the kind dropped.
    pub from: u8,
    /// The square reached.
    pub to: u8,
}

/// Dobutsu Shogi, or a variant with fewer pieces, with its index tables.
#[derive(Clone, Debug)]
pub struct Dobutsu {
    /// How many Giraffes, Elephants and Chicks are in play (0 or 2 each).
    totals: [u8; 3],
    tables: IndexTables,
}

impl Default for Dobutsu {
    fn default() -> Self {
        Self::new()
    }
}

/// The hand kind (0 Giraffe, 1 Elephant, 2 Chick) of a piece on the board:
/// a captured Hen goes to hand as a Chick.
#[inline]
pub(crate) fn hand_kind(piece: u8) -> usize {
    match piece & 7 {
        GIRAFFE => 0,
        ELEPHANT => 1,
        _ => 2,
    }
}

/// The piece letter (upper case) of a board piece kind.
fn letter(kind: u8) -> char {
    match kind {
        LION => 'L',
        GIRAFFE => 'G',
        ELEPHANT => 'E',
        CHICK => 'C',
        _ => 'H',
    }
}

/// The kind of the piece dropped from hand kind `k`.
const HAND_PIECES: [u8; 3] = [GIRAFFE, ELEPHANT, CHICK];

impl Dobutsu {
    /// The full game: two Giraffes, two Elephants and two Chicks besides the
    /// Lions.
    pub fn new() -> Self {
        Self::with_totals([2, 2, 2])
    }

    fn with_totals(totals: [u8; 3]) -> Self {
        Self {
            totals,
            tables: IndexTables::new(totals, &index::SOLVED),
        }
    }

    /// The same variant over an index that keeps every placement of the
    /// Lions up to mirror images (72 for the full game, 855,232,344
    /// indices), those whose positions the rules decide too: for counting
    /// what play reaches ([`ply_core::solve::byte_retro::count_reached`]),
    /// which passes through them. The solve uses the smaller index.
    pub fn with_every_placement(&self) -> Self {
        Self {
            totals: self.totals,
            tables: IndexTables::new(self.totals, &index::EVERY).packed_by(self.tables.packing()),
        }
    }

    /// The same variant, its index packing point sets by `path` (by
    /// default [`crate::colex::PackingPath::in_use`]).
    pub fn packed_by(self, path: crate::colex::PackingPath) -> Self {
        Self {
            tables: self.tables.packed_by(path),
            ..self
        }
    }

    /// Reads the variant parameters: the letters of the pairs in play
    /// besides the Lions, in the order `G`, `E`, `C` (`GEC`, `GC`, `C`, ...).
    pub fn from_params(params: &str) -> Result<Self, PositionError> {
        let mut totals = [0u8; 3];
        let mut last = None;
        for ch in params.chars() {
            let k = "GEC".find(ch).ok_or_else(|| {
                PositionError::parameters(format!(
                    "bad dobutsu variant '{params}': expected letters of G, E, C in that order"
                ))
            })?;
            if last.is_some_and(|l| l >= k) {
                return Err(PositionError::parameters(format!(
                    "bad dobutsu variant '{params}': expected letters of G, E, C in that order"
                )));
            }
            last = Some(k);
            totals[k] = 2;
        }
        Ok(Self::with_totals(totals))
    }

    /// How many Giraffes, Elephants and Chicks are in play.
    pub fn totals(&self) -> [u8; 3] {
        self.totals
    }

    /// The letters of the pairs in play (`GEC` for the full game).
    fn letters(&self) -> String {
        "GEC"
            .chars()
            .zip(self.totals)
            .filter(|&(_, t)| t > 0)
            .map(|(c, _)| c)
            .collect()
    }

    /// Whether the mover can catch the other Lion (a win at once; the
    /// other is a safe try). Tanaka's count of reachable positions stops
    /// play here ([`ply_core::solve::byte_retro::count_reached`]).
    pub fn can_catch(position: &DobutsuPosition) -> bool {
        rules::can_catch(position)
    }

    /// The index of the mirror image of `position` (whose index is
    /// `index`) when both Lions stand on the middle file, where the image
    /// has an index of its own; `None` elsewhere, where the image shares
    /// the position's index.
    fn image_rank(&self, index: u64, position: &DobutsuPosition) -> Option<u64> {
        (self.tables.lions_against_mirror(index) == Ordering::Equal)
            .then(|| self.rank(&Self::mirror(position)))
    }

    /// The position mirrored left to right.
    pub fn mirror(position: &DobutsuPosition) -> DobutsuPosition {
        let mut image = *position;
        for row in 0..4 {
            image.board.swap(row * 3, row * 3 + 2);
        }
        image
    }

    /// The square name (`a1`..`c4`) of a square in the mover's frame.
    fn square_name(sente: bool, square: u8) -> String {
        let absolute = if sente { square } else { 11 - square };
        format!(
            "{}{}",
            (b'a' + absolute % 3) as char,
            char::from(b'1' + absolute / 3)
        )
    }
}

impl Game for Dobutsu {
    type Position = DobutsuPosition;
    type Move = DobutsuMove;

    fn board(&self, position: &DobutsuPosition) -> Board {
        self.describe(position)
    }

    /// 5: databases hold every legal position of an index without the
    /// Lion placements the rules decide, one byte per index (4 held the
    /// positions legal play reaches, mirror images folded; 3 keyed them by
    /// Tanaka's 132 Lion placements; 2 stopped play where the mover could
    /// catch the Lion or make a safe try).
    fn rules_version(&self) -> u32 {
        5
    }

    fn name(&self) -> String {
        if self.totals == [2, 2, 2] {
            "dobutsu".into()
        } else {
            format!("dobutsu:{}", self.letters())
        }
    }

    fn start(&self) -> DobutsuPosition {
        let text = match self.totals {
            [2, 2, 2] => "gle/.c./.C./ELG/-/S".to_string(),
            _ => {
                // The usual start with the pieces not in play taken away.
                let keep = |ch: char| {
                    let k = "GEC".find(ch.to_ascii_uppercase());
                    match k {
                        Some(k) if self.totals[k] == 0 => '.',
                        _ => ch,
                    }
                };
                let board: String = "gle/.c./.C./ELG".chars().map(keep).collect();
                format!("{board}/-/S")
            }
        };
        self.parse_position(&text)
            .expect("the start position is well formed")
    }

    fn primitive(&self, position: &DobutsuPosition) -> Option<Value> {
        rules::primitive(position)
    }

    fn for_each_move(
        &self,
        position: &DobutsuPosition,
        visit: impl FnMut(DobutsuMove, DobutsuPosition),
    ) {
        rules::for_each_move(position, visit);
    }

    fn parse_position(&self, text: &str) -> Result<DobutsuPosition, PositionError> {
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() != 6 {
            return Err(PositionError::new(format!(
                "expected 4 ranks, the hands and the side to move joined by '/' \
                 (like gle/.c./.C./ELG/-/S), found {} parts",
                parts.len()
            )));
        }
        let sente = match parts[5] {
            "S" => true,
            "g" => false,
            other => {
                return Err(PositionError::new(format!(
                    "the side to move is 'S' or 'g', not '{other}'"
                )));
            }
        };
        // Pieces of the absolute board, Sente's as "mine" first.
        let mut absolute = [EMPTY; 12];
        let mut counts = [0u8; 3];
        let mut lions = [0u8; 2];
        for (rank, row) in parts[..4].iter().enumerate() {
            if row.chars().count() != 3 {
                return Err(PositionError::new(format!(
                    "rank {} '{row}' must have 3 squares",
                    rank + 1
                )));
            }
            for (file, ch) in row.chars().enumerate() {
                if ch == '.' {
                    continue;
                }
                let kind = match ch.to_ascii_uppercase() {
                    'L' => LION,
                    'G' => GIRAFFE,
                    'E' => ELEPHANT,
                    'C' => CHICK,
                    'H' => HEN,
                    _ => {
                        return Err(PositionError::new(format!(
                            "unknown piece '{ch}' on rank {} (expected L G E C H, upper case \
                             for the first player, lower case for the second, or '.')",
                            rank + 1
                        )));
                    }
                };
                let gote = ch.is_ascii_lowercase();
                if kind == LION {
                    lions[usize::from(gote)] += 1;
                } else {
                    counts[hand_kind(kind)] += 1;
                }
                absolute[rank * 3 + file] = kind | if gote { THEIRS } else { 0 };
            }
        }
        // The mover's Lion may be missing: it has just been caught, and
        // play is over (`ply solve` lists such positions after a catch).
        let mover = usize::from(!sente);
        if lions[1 - mover] != 1 || lions[mover] > 1 {
            return Err(PositionError::illegal(
                "each player must have exactly one Lion on the board                  (the player to move none, once it has been caught)",
            ));
        }
        let mut hands = [[0u8; 3]; 2];
        if parts[4] != "-" {
            for ch in parts[4].chars() {
                let k = "GEC".find(ch.to_ascii_uppercase()).ok_or_else(|| {
                    PositionError::new(format!(
                        "unknown piece '{ch}' in hand (expected G E C, or '-' for empty hands)"
                    ))
                })?;
                hands[usize::from(ch.is_ascii_lowercase())][k] += 1;
                counts[k] += 1;
            }
        }
        if counts != self.totals {
            return Err(PositionError::illegal(format!(
                "expected {} Giraffes, {} Elephants and {} Chicks or Hens on the board and in \
                 hand, found {}, {} and {}",
                self.totals[0], self.totals[1], self.totals[2], counts[0], counts[1], counts[2]
            )));
        }
        let position = DobutsuPosition {
            board: absolute,
            hands,
            sente: true,
        };
        Ok(if sente {
            position
        } else {
            rules::turned(&position)
        })
    }

    fn format_position(&self, position: &DobutsuPosition) -> String {
        // Back to the absolute board with Sente's pieces as "mine".
        let absolute = if position.sente {
            *position
        } else {
            rules::turned(position)
        };
        let mut text = String::new();
        for (square, &piece) in absolute.board.iter().enumerate() {
            if square > 0 && square % 3 == 0 {
                text.push('/');
            }
            text.push(match piece {
                EMPTY => '.',
                p if p & THEIRS != 0 => letter(p & 7).to_ascii_lowercase(),
                p => letter(p),
            });
        }
        text.push('/');
        let mut hands = String::new();
        for (side, hand) in absolute.hands.iter().enumerate() {
            for (k, &n) in hand.iter().enumerate() {
                let ch = letter(HAND_PIECES[k]);
                let ch = if side == 0 {
                    ch
                } else {
                    ch.to_ascii_lowercase()
                };
                hands.extend(std::iter::repeat_n(ch, usize::from(n)));
            }
        }
        text.push_str(if hands.is_empty() { "-" } else { &hands });
        text.push_str(if position.sente { "/S" } else { "/g" });
        text
    }

    fn format_move(&self, position: &DobutsuPosition, mv: DobutsuMove) -> String {
        let to = Self::square_name(position.sente, mv.to);
        if mv.from >= 12 {
            format!("{}*{to}", letter(HAND_PIECES[usize::from(mv.from - 12)]))
        } else {
            format!("{}{to}", Self::square_name(position.sente, mv.from))
        }
    }

    fn render(&self, position: &DobutsuPosition) -> String {
        let text = self.format_position(position);
        let parts: Vec<&str> = text.split('/').collect();
        format!(
            "{}\n{}\n{}\n{}\nin hand: {}\n{} to move",
            parts[0],
            parts[1],
            parts[2],
            parts[3],
            parts[4],
            if position.sente {
                "Sente (upper case)"
            } else {
                "Gote (lower case)"
            }
        )
    }
}

/// The index covers positions as the mover sees them: a position and its
/// turned image (the other player to move, the board turned round, the
/// colours exchanged) share an index, and [`Indexed::unrank`] gives the one
/// with Sente to move. So do a position and its left-right mirror image,
/// unless both Lions stand on the middle file: [`Indexed::unrank`] gives
/// the one whose Lions the index keeps. Positions whose mover's Lion has
/// been caught (play is over), and those of the Lion placements the rules
/// decide, are outside the index and rank to [`Indexed::index_len`].
impl Indexed for Dobutsu {
    fn index_len(&self) -> u64 {
        self.tables.len()
    }

    fn rank(&self, position: &DobutsuPosition) -> u64 {
        self.tables.rank(position)
    }

    fn unrank(&self, index: u64) -> Option<DobutsuPosition> {
        self.tables.unrank(index)
    }

    fn for_each_unranked(
        &self,
        range: std::ops::Range<u64>,
        visit: impl FnMut(u64, &DobutsuPosition),
    ) {
        self.tables.walk(range, visit);
    }

    fn for_each_unranked_of(
        &self,
        indices: impl IntoIterator<Item = u64>,
        visit: impl FnMut(u64, &DobutsuPosition),
    ) {
        self.tables.unrank_each(indices, visit);
    }

    /// Where play is over or the mover wins at once: the solved index
    /// leaves out the Lion placements the rules decide (Lions side by side,
    /// the other Lion on the mover's home rank), whose positions are all
    /// such.
    fn unindexed(&self, position: &DobutsuPosition) -> bool {
        rules::over_or_wins_at_once(position)
    }
}

impl Symmetric for Dobutsu {
    fn for_each_symmetric(
        &self,
        position: &DobutsuPosition,
        mut visit: impl FnMut(DobutsuPosition),
    ) {
        visit(*position);
        visit(Self::mirror(position));
    }

    /// The image whose Lions the index keeps; with both Lions on the
    /// middle file, the one of the lesser index. (The default, the image of
    /// the least index, cannot choose between images sharing an index.)
    fn canonical(&self, position: &DobutsuPosition) -> DobutsuPosition {
        let mirror = Self::mirror(position);
        match IndexTables::position_against_mirror(position) {
            Ordering::Less => *position,
            Ordering::Greater => mirror,
            Ordering::Equal if self.rank(&mirror) < self.rank(position) => mirror,
            Ordering::Equal => *position,
        }
    }

    /// The lesser of the indexes of the position and its mirror image (one
    /// index unless both Lions stand on the middle file), ranking the image
    /// only when the Lions do not already decide.
    fn canonical_index(&self, position: &DobutsuPosition) -> u64 {
        self.tables.canonical_rank(position)
    }

    /// Every index is its class's key unless both Lions stand on the middle
    /// file, where the image is ranked to tell (elsewhere the index numbers
    /// classes).
    fn is_key(&self, index: u64, position: &DobutsuPosition) -> bool {
        self.image_rank(index, position)
            .is_none_or(|image| image >= index)
    }

    /// One look at the Lions' placement for both, and with both Lions on
    /// the middle file one rank of the image.
    fn key_size(&self, index: u64, position: &DobutsuPosition) -> Option<u64> {
        match self.image_rank(index, position) {
            Some(image) => (image >= index).then(|| 1 + u64::from(image != index)),
            None => Some(2),
        }
    }

    /// Two unless both Lions stand on the middle file (only then can a
    /// position be its own image), where the image is ranked to tell.
    fn class_size(&self, index: u64, position: &DobutsuPosition) -> u64 {
        1 + u64::from(self.image_rank(index, position) != Some(index))
    }
}

impl WinsAtOnce for Dobutsu {
    fn wins_at_once(&self, position: &DobutsuPosition) -> bool {
        rules::wins_at_once(position)
    }

    fn what_wins_at_once(&self) -> &'static str {
        "a catch or a safe try"
    }

    fn tally_moves(&self, position: &DobutsuPosition) -> MoveTally {
        rules::tally_moves(position)
    }

    fn count(&self, position: &DobutsuPosition) -> Count {
        rules::count(position)
    }

    fn for_each_stored_parent(
        &self,
        position: &DobutsuPosition,
        visit: impl FnMut(DobutsuPosition),
    ) {
        unmoves::for_each_stored_parent(position, visit);
    }

    /// Each parent ranked from the position's planes, without a board
    /// made ([`unmoves::for_each_stored_parent_class`]); its moves into the
    /// class follow from whether it is its own image or its class's key.
    fn for_each_stored_parent_class(
        &self,
        index: u64,
        position: &DobutsuPosition,
        moves: bool,
        mut visit: impl FnMut(u64, u8),
    ) {
        let size = if moves {
            self.class_size(index, position)
        } else {
            2
        };
        unmoves::for_each_stored_parent_class(&self.tables, position, |class| {
            let moves = if moves {
                moves_into_class_of(size, class.own_image, || class.key)
            } else {
                1
            };
            if moves > 0 {
                visit(class.index, moves);
            }
        });
    }
}

impl Parents for Dobutsu {
    fn for_each_parent(&self, position: &DobutsuPosition, visit: impl FnMut(DobutsuPosition)) {
        unmoves::for_each_parent(position, visit);
    }
}

/// The page's drawing: the 3x4 board as the spec writes it (Sente at the
/// bottom), each piece a tile with its letter and a dot for each step it
/// may take, and both hands. A move is a click on a piece, on the board or
/// in hand, then on the square it goes to.
impl Dobutsu {
    /// A tile for a piece kind of `side` (0 Sente, playing up; 1 Gote).
    fn tile(kind: u8, side: u8) -> Piece {
        // The steps below are Sente's, who plays up the drawn board.
        let forward: i8 = if side == 0 { 1 } else { -1 };
        let steps: &[[i8; 2]] = match kind {
            LION => &[
                [-1, -1],
                [0, -1],
                [1, -1],
                [-1, 0],
                [1, 0],
                [-1, 1],
                [0, 1],
                [1, 1],
            ],
            GIRAFFE => &[[0, -1], [-1, 0], [1, 0], [0, 1]],
            ELEPHANT => &[[-1, -1], [1, -1], [-1, 1], [1, 1]],
            CHICK => &[[0, -1]],
            _ => &[[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [0, 1]],
        };
        let letter = letter(kind);
        let letter = if side == 0 {
            letter
        } else {
            letter.to_ascii_lowercase()
        };
        let mut piece = Piece::new(letter, Some(side), Look::Tile);
        piece.dots = steps.iter().map(|&[dx, dy]| [dx, dy * forward]).collect();
        piece
    }

    fn describe(&self, position: &DobutsuPosition) -> Board {
        let absolute = if position.sente {
            *position
        } else {
            rules::turned(position)
        };
        let mut board = Board::grid(4, 3);
        for (cell, &piece) in board.cells.iter_mut().zip(&absolute.board) {
            if piece != EMPTY {
                cell.pieces
                    .push(Self::tile(piece & 7, u8::from(piece & THEIRS != 0)));
            }
        }
        for (side, name) in [(0u8, "Sente"), (1, "Gote")] {
            let pieces = absolute.hands[usize::from(side)]
                .iter()
                .zip(HAND_PIECES)
                .filter(|&(&n, _)| n > 0)
                .map(|(&n, kind)| AreaPiece {
                    id: Self::hand_id(side, kind),
                    piece: Self::tile(kind, side),
                    count: u32::from(n),
                })
                .collect();
            board.areas.push(Area {
                label: format!("{name}'s hand"),
                side: Some(side),
                pieces,
            });
        }
        board.players = ["Sente".into(), "Gote".into()];
        let mover = u8::from(!position.sente);
        board.mover = Some(mover);
        board.howto = "Click one of your pieces, on the board or in hand, then the square it goes \
                       to. Catch the Lion, or bring yours safely to the far rank."
            .into();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, _| {
                let from = if mv.from >= 12 {
                    Self::hand_id(mover, HAND_PIECES[usize::from(mv.from - 12)])
                } else {
                    Self::square_name(position.sente, mv.from)
                };
                let to = Self::square_name(position.sente, mv.to);
                board.moves.push(BoardMove::clicks(
                    self.format_move(position, mv),
                    [from, to],
                ));
            });
        }
        board
    }

    /// The name of a kind of piece in a side's hand, as the page clicks it.
    fn hand_id(side: u8, kind: u8) -> String {
        format!("{}:{}", ["S", "g"][usize::from(side)], letter(kind))
    }
}

#[cfg(test)]
mod tests;
