//! A session's strong solution read key by key: every stored position with
//! its value, remoteness and best moves, and any position's outcome from
//! its text. What `ply export` streams to a file and what the Python
//! `Solver` answers bulk queries from, without going through a
//! [`crate::report::SolveReport`] per position.

use crate::error::PlyError;
use ply_core::{Game, Indexed, Outcome, Solution, Tensor};

/// One position of a solved game as an export row: its text and the names
/// of its best moves. Kept between rows so that its buffers are reused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// The position, as `ply solve` prints it.
    pub position: String,
    /// The names of the best moves (see [`Row::best_moves`]) one after
    /// another, and where each ends: one buffer for every row.
    best: String,
    best_ends: Vec<usize>,
    /// The board's codes, as [`Rows::tensor`] writes them, when asked
    /// for: the caller sizes it to the tensor's cells once.
    pub board: Vec<i8>,
}

impl Row {
    /// Forgets the best moves, to list them afresh.
    pub fn clear_best_moves(&mut self) {
        self.best.clear();
        self.best_ends.clear();
    }

    /// Adds a best move, which `write` appends to the buffer it is given.
    pub fn push_best_move(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.best);
        self.best_ends.push(self.best.len());
    }

    /// The moves that achieve the position's value and remoteness (those
    /// whose outcome, seen through the move, equals the position's), in
    /// the order `ply solve` lists moves.
    pub fn best_moves(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.best_ends.iter().copied());
        starts
            .zip(&self.best_ends)
            .map(|(start, &end)| &self.best[start..end])
    }
}

/// What [`Rows::row`] fills beyond the position's text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Want {
    /// The best moves.
    pub best: bool,
    /// The board's codes (for a game with a [`Rows::tensor`]).
    pub board: bool,
}

/// A strong solution read key by key (see the module docs). The keys are
/// those of [`Rows::solution`]: a position's index, or the index of its
/// class's canonical member.
pub trait Rows: Send + Sync {
    /// The game's full name with parameters.
    fn name(&self) -> String;

    /// The solution: its key space and the cell stored at each key.
    fn solution(&self) -> &dyn Solution;

    /// How the game writes its boards as numbers, if it does.
    fn tensor(&self) -> Option<Tensor>;

    /// Fills `row` with the position stored at `key`, whose cell is
    /// `outcome`, and what `want` asks for besides. Returns `false` (leaving `row`
    /// unspecified) if no position has that key.
    fn row(&self, key: u64, outcome: Outcome, want: Want, row: &mut Row) -> Result<bool, PlyError>;

    /// The position at `key`, as text, if any position has that key.
    fn position(&self, key: u64) -> Option<String>;

    /// The key of the position written `text` in the solution, or the
    /// error `ply solve` gives for that text.
    fn key_of(&self, text: &str) -> Result<u64, PlyError>;

    /// The outcome of the position written `text`, as `ply solve` reports
    /// it, or the error `ply solve` gives for it.
    fn outcome_of(&self, text: &str) -> Result<Outcome, PlyError>;
}

/// What a session with a solved table knows about one game: enough to
/// make it [`Rows`] (every [`Probe`] is).
pub trait Probe: Send + Sync {
    /// The game.
    type Game: Indexed;

    /// The game.
    fn game(&self) -> &Self::Game;

    /// The solution answering queries.
    fn solution(&self) -> &dyn Solution;

    /// The key of `position` in the solution.
    fn key(&self, position: &<Self::Game as ply_core::Game>::Position) -> u64;

    /// The outcome of `position` as the session answers it, `None` where it
    /// has none (a position the start does not reach).
    fn known(
        &self,
        position: &<Self::Game as ply_core::Game>::Position,
    ) -> Result<Option<Outcome>, PlyError>;

    /// Why `position`, with no outcome, has none: `ply solve`'s error.
    fn missing(&self, position: &<Self::Game as ply_core::Game>::Position) -> String;
}

impl<P: Probe> Rows for P {
    fn name(&self) -> String {
        self.game().name()
    }

    fn solution(&self) -> &dyn Solution {
        Probe::solution(self)
    }

    fn tensor(&self) -> Option<Tensor> {
        self.game().tensor()
    }

    fn row(&self, key: u64, outcome: Outcome, want: Want, row: &mut Row) -> Result<bool, PlyError> {
        let game = self.game();
        let Some(position) = game.unrank(key) else {
            return Ok(false);
        };
        row.position.clear();
        game.write_position(&position, &mut row.position);
        if want.board {
            game.fill_tensor(&position, &mut row.board);
        }
        row.best.clear();
        row.best_ends.clear();
        if !want.best || game.primitive(&position).is_some() {
            return Ok(true);
        }
        let mut failed = None;
        game.for_each_move(&position, |mv, child| {
            if failed.is_some() {
                return;
            }
            match self.known(&child) {
                Ok(Some(o)) if o.through_move() == outcome => {
                    game.write_move(&position, mv, &mut row.best);
                    row.best_ends.push(row.best.len());
                }
                Ok(_) => {}
                Err(e) => failed = Some(e),
            }
        });
        failed.map_or(Ok(true), Err)
    }

    fn position(&self, key: u64) -> Option<String> {
        let game = self.game();
        game.unrank(key).map(|p| game.format_position(&p))
    }

    fn key_of(&self, text: &str) -> Result<u64, PlyError> {
        let position = super::parse_or_start(self.game(), Some(text))?;
        Ok(self.key(&position))
    }

    fn outcome_of(&self, text: &str) -> Result<Outcome, PlyError> {
        let position = super::parse_or_start(self.game(), Some(text))?;
        self.known(&position)?
            .ok_or_else(|| PlyError::argument(self.missing(&position)))
    }
}
