//! Treblecross answered by Sprague-Grundy theory: the value, nimber and
//! winning squares of rows of any length up to the game's limit, in time
//! linear in the row once the 0.007 values cover its longest interval
//! (kept for later queries). Remoteness is exact where the search over
//! sums of intervals is small enough, and otherwise left out and said so.

use super::{Session, parse_or_start};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, MoveReport, SolveReport};
use ply_core::solve::grundy::solve_sum;
use ply_core::{Game, MemoSolver, NoProgress, Outcome, Progress, Remoteness, Value};
use ply_games::Treblecross;
use ply_games::treblecross::{MAX_LENGTH, PRECOMPUTED_ROW, REMOTENESS_LIMIT, RemotenessMemo, Row};
use std::sync::Mutex;

/// Rows up to this length list every move with the row it leads to;
/// longer rows list only their winning moves, without the rows, or, when
/// they have none, their first [`FULL_LISTING`] moves that do not lose at
/// once (every move loses).
pub const FULL_LISTING: usize = 256;
/// The longest row [`Session::solve_listing_all`] lists every move of,
/// with the rows they lead to (what `ply play` needs).
pub const PLAY_LISTING: usize = 4096;
/// The longest start row `ply analyze` searches in full (every subset of
/// squares is a position).
pub const ANALYZE_LIMIT: usize = 20;

/// Treblecross by theory, with a shared memo for exact remoteness.
pub struct TreblecrossSession {
    game: Treblecross,
    memo: Mutex<RemotenessMemo>,
}

impl TreblecrossSession {
    /// A session over `game`.
    pub fn new(game: Treblecross) -> Self {
        Self {
            game,
            memo: Mutex::new(RemotenessMemo::new()),
        }
    }

    fn remoteness(&self, row: &Row) -> Option<Remoteness> {
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        self.game.remoteness(row, &mut memo)
    }

    /// The outcome of the row an X on `square` leads to, for the player to
    /// move there, when the row before it had no immediate win.
    fn after_quiet_move(&self, row: &Row, square: usize, winning: bool) -> Outcome {
        if !self.game.is_safe(row, square) {
            // The opponent completes three in a row.
            return Outcome::win(1);
        }
        let child = row.with_x(square);
        Outcome {
            value: if winning { Value::Lose } else { Value::Win },
            remoteness: self.remoteness(&child),
        }
    }
}

impl Session for TreblecrossSession {
    fn name(&self) -> String {
        self.game.name()
    }

    fn start(&self) -> String {
        self.game.format_position(&self.game.start())
    }

    fn render(&self, position: &str) -> Result<String, PlyError> {
        Ok(self
            .game
            .render(&parse_or_start(&self.game, Some(position))?))
    }

    fn board(&self, position: Option<&str>) -> Result<ply_core::Board, PlyError> {
        super::board_of(&self.game, position)
    }

    fn solve_within(
        &self,
        position: Option<&str>,
        progress: &dyn Progress,
    ) -> Result<SolveReport, PlyError> {
        self.report(position, progress, FULL_LISTING)
    }

    fn solve_listing_all(&self, position: Option<&str>) -> Result<SolveReport, PlyError> {
        let len = position.map_or(self.game.start().len(), str::len);
        if len > PLAY_LISTING {
            return Err(PlyError::argument(format!(
                "a row of {len} squares: play lists every move, on rows of at most {PLAY_LISTING} squares"
            )));
        }
        self.report(position, &NoProgress, PLAY_LISTING)
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        self.analyze_start(progress)
    }

    fn notes(&self, report: &SolveReport) -> Vec<String> {
        self.notes_on(report)
    }
}

impl TreblecrossSession {
    /// Makes sure the 0.007 values cover a row of `len` squares, computing
    /// them under `progress` if they do not.
    fn prepare_row(&self, len: usize, progress: &dyn Progress) -> Result<(), PlyError> {
        if len > MAX_LENGTH {
            // parse_or_start says so.
            return Ok(());
        }
        self.game.prepare_length(len, progress).map_err(|e| {
            if progress.cancelled() {
                PlyError::Cancelled(format!(
                    "computing 0.007 values for a row of {len} squares (rows up to {PRECOMPUTED_ROW} are answered at once)"
                ))
            } else {
                PlyError::argument(e.to_string())
            }
        })
    }

    /// The report on `position`, listing every move with its row when the
    /// row has at most `listing` squares.
    fn report(
        &self,
        position: Option<&str>,
        progress: &dyn Progress,
        listing: usize,
    ) -> Result<SolveReport, PlyError> {
        let game = &self.game;
        self.prepare_row(position.map_or(game.start().len(), str::len), progress)?;
        let row = parse_or_start(game, position)?;
        let mut report = SolveReport {
            game: game.name(),
            position: row.to_string(),
            value: Value::Lose,
            remoteness: Some(0),
            nimber: None,
            moves: Vec::new(),
        };
        if let Some(value) = game.primitive(&row) {
            report.value = value;
            return Ok(report);
        }
        let solution = solve_sum(game, &row);
        let immediate = solution.nimber.is_none();
        report.value = solution.value;
        report.nimber = solution.nimber.map(u64::from);
        report.remoteness = if immediate {
            Some(1)
        } else {
            self.remoteness(&row)
        };
        let winning = solution.winning_moves;
        let listing = row.len() <= listing;
        let squares: Vec<usize> = if listing {
            (0..row.len()).filter(|&s| !row.is_x(s)).collect()
        } else if !winning.is_empty() {
            winning.clone()
        } else {
            // A lost row: every move loses; list the first that do not
            // lose at once (or, if all do, the first of those).
            let empty = (0..row.len()).filter(|&s| !row.is_x(s));
            let safe: Vec<usize> = empty
                .clone()
                .filter(|&s| game.is_safe(&row, s))
                .take(FULL_LISTING)
                .collect();
            if safe.is_empty() {
                empty.take(FULL_LISTING).collect()
            } else {
                safe
            }
        };
        for square in squares {
            let outcome = if row.completes_three(square) {
                Outcome::lose(0)
            } else if immediate {
                Outcome::win(1)
            } else if listing || winning.is_empty() {
                self.after_quiet_move(&row, square, winning.binary_search(&square).is_ok())
            } else {
                Outcome {
                    value: Value::Lose,
                    remoteness: None,
                }
            };
            report.moves.push(MoveReport {
                name: game.format_move(&row, square),
                position: if listing {
                    row.with_x(square).to_string()
                } else {
                    String::new()
                },
                value: outcome.value,
                remoteness: outcome.remoteness,
            });
        }
        Ok(report)
    }

    fn analyze_start(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        let start = self.game.start();
        if start.len() > ANALYZE_LIMIT {
            return Err(PlyError::argument(format!(
                "analyzing {} searches every one of 2^{} rows; at most {ANALYZE_LIMIT} squares",
                self.game.name(),
                start.len()
            )));
        }
        progress.begin("searching", 0);
        let mut solver = MemoSolver::new(&self.game);
        solver
            .solve(&start)
            .map_err(|e| PlyError::argument(e.to_string()))?;
        progress.end();
        let census = solver.census().map_examples(|row| row.to_string());
        Ok(AnalyzeReport::from_census(self.game.name(), census))
    }

    fn notes_on(&self, report: &SolveReport) -> Vec<String> {
        let mut notes = Vec::new();
        let Ok(row) = Row::parse(&report.position) else {
            return notes;
        };
        if report.remoteness.is_none() {
            notes.push(format!(
                "remoteness not computed: it needs a search over sums of intervals, \
                 done only when at most {REMOTENESS_LIMIT} squares are safe (this row has {})",
                self.game.safe_squares(&row)
            ));
        } else if report.moves.iter().any(|m| m.remoteness.is_none()) {
            notes.push(format!(
                "moves to rows with more than {REMOTENESS_LIMIT} safe squares have no remoteness: it is not computed"
            ));
        }
        let listed_all = report.moves.iter().all(|m| !m.position.is_empty());
        if row.len() > FULL_LISTING && !listed_all {
            notes.push(if report.value == Value::Win {
                format!(
                    "a row longer than {FULL_LISTING} squares lists only its winning moves, \
                     without the rows they lead to; every other move loses"
                )
            } else {
                format!(
                    "a lost row longer than {FULL_LISTING} squares lists only its first \
                     {FULL_LISTING} moves that do not lose at once, without the rows they \
                     lead to; every move loses"
                )
            });
        }
        notes
    }
}
