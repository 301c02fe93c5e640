//! Dobutsu Shogi: solved by retrograde analysis over the positions the
//! start reaches, one byte each ([`ply_core::solve::byte_retro`]). The full
//! game takes minutes and most of a gigabyte, so queries about it are
//! answered from a saved database only (`ply analyze dobutsu --save`
//! builds one); the reduced variants (`dobutsu:C`, ...) are solved on first
//! use.

use super::solved::{Method, SolvedSession};
use super::store::{self, Store};
use super::{Session, Solver, parse_or_start};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, MoveReport, SolveReport};
use ply_core::db::Expect;
use ply_core::solve::byte_retro::{self, ByteRetroError, ByteTable, WinsAtOnce};
use ply_core::{Game, Indexed, Outcome, Progress, Source, Symmetric};
use ply_games::Dobutsu;
use ply_games::dobutsu::DobutsuPosition;
use serde_json::json;
use std::path::PathBuf;

/// Solves Dobutsu Shogi (or a variant) with the one-byte retrograde solver.
pub struct ByteMethod {
    game: Dobutsu,
}

impl ByteMethod {
    /// Why `position` of `game` has no answer: the start does not reach it.
    fn missing_text(game: &Dobutsu, position: &DobutsuPosition) -> String {
        format!(
            "position {} cannot be reached from the start of {} (play stops at a catch or a safe try)",
            game.format_position(position),
            game.name()
        )
    }
}

impl Method for ByteMethod {
    type Game = Dobutsu;
    type Built = ByteTable;

    fn game(&self) -> &Dobutsu {
        &self.game
    }

    fn build(&self, progress: &dyn Progress) -> Result<ByteTable, PlyError> {
        byte_retro::solve(&self.game, progress).map_err(|e| match e {
            ByteRetroError::Cancelled => {
                PlyError::Cancelled(format!("solving {}", self.game.name()))
            }
            e => PlyError::argument(format!("{}: {e}", self.game.name())),
        })
    }

    /// The lesser index of the position and its mirror image: the two
    /// have one value, and the solve and the database hold only this one
    /// (the other index is unknown in the file, which costs almost nothing
    /// on disk).
    fn key(&self, position: &DobutsuPosition) -> u64 {
        self.game.canonical_index(position)
    }

    fn missing(&self, position: &DobutsuPosition) -> String {
        Self::missing_text(&self.game, position)
    }

    fn analyze(
        &self,
        table: &ByteTable,
        _progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        let census = table.census().map_examples(|index| {
            self.game
                .unrank(index)
                .map(|p| self.game.format_position(&p))
                .unwrap_or_default()
        });
        let mut report = AnalyzeReport::from_census(self.game.name(), census);
        report.extra.insert(
            "counted".into(),
            json!("positions reached from the start, each up to turning the board (the mover's view); play stops at a catch or a safe try"),
        );
        report
            .extra
            .insert("index_size".into(), json!(self.game.index_len()));
        report
            .extra
            .insert("reached".into(), json!(table.reached()));
        report
            .extra
            .insert("wins_at_once".into(), json!(table.wins_at_once()));
        if let Some([stored, at_once]) = table.mirror_classes() {
            report
                .extra
                .insert("mirror_classes".into(), json!(stored + at_once));
            report
                .extra
                .insert("mirror_classes_not_winning_at_once".into(), json!(stored));
        }
        Ok(report)
    }
}

/// A session over Dobutsu Shogi or one of its reduced variants.
pub struct DobutsuSession {
    inner: SolvedSession<ByteMethod>,
    /// Whether queries need a saved database (the full game: its solve
    /// takes minutes).
    needs_database: bool,
}

impl DobutsuSession {
    /// A session over `game`; nothing is read or solved until asked.
    pub fn new(game: Dobutsu) -> Self {
        let needs_database = game.totals() == [2, 2, 2];
        Self {
            inner: SolvedSession::with(ByteMethod { game }),
            needs_database,
        }
    }

    /// Refuses a query about the full game when no database is saved,
    /// rather than starting a solve of minutes unasked.
    fn check_database(&self) -> Result<(), PlyError> {
        if !self.needs_database || Solver::source(&self.inner).is_some() {
            return Ok(());
        }
        let game = self.inner.game();
        let expect = Expect {
            game: game.name(),
            rules_version: game.rules_version(),
        };
        let found = store::current()
            .filter(|s| s.read)
            .is_some_and(|s| !s.files(&expect.game).is_empty());
        if found {
            Ok(())
        } else {
            Err(PlyError::argument(format!(
                "no saved database of {name}; build one first with `ply analyze {name} --save` \
                 (a few minutes, about 1 GiB of memory)",
                name = game.name()
            )))
        }
    }
}

impl DobutsuSession {
    /// The outcome of `position` if known: ends of play and wins at once
    /// from the rules (play stops there, so the table need not hold them),
    /// the rest from the solution; `None` for a position the start does
    /// not reach.
    fn known(
        &self,
        position: &DobutsuPosition,
        progress: &dyn Progress,
    ) -> Result<Option<Outcome>, PlyError> {
        let game = self.inner.game();
        if let Some(value) = game.primitive(position) {
            return Ok(Some(Outcome::terminal(value)));
        }
        if game.wins_at_once(position) {
            return Ok(Some(Outcome::win(1)));
        }
        self.check_database()?;
        Ok(self
            .inner
            .solution(progress)?
            .outcome(game.canonical_index(position))?)
    }
}

/// Moves left out of a report: those from a catch-or-try position to
/// positions the start does not reach (play stops at the win at once).
const LEFT_OUT: &str = "moves to positions the start does not reach are left out: play stops \
                        at a catch or a safe try";

impl Session for DobutsuSession {
    fn name(&self) -> String {
        self.inner.game().name()
    }

    fn start(&self) -> String {
        let game = self.inner.game();
        game.format_position(&game.start())
    }

    fn render(&self, position: &str) -> Result<String, PlyError> {
        let game = self.inner.game();
        Ok(game.render(&parse_or_start(game, Some(position))?))
    }

    fn board(&self, position: Option<&str>) -> Result<ply_core::Board, PlyError> {
        super::board_of(self.inner.game(), position)
    }

    fn solve_within(
        &self,
        position: Option<&str>,
        progress: &dyn Progress,
    ) -> Result<SolveReport, PlyError> {
        let game = self.inner.game();
        let position = parse_or_start(game, position)?;
        let outcome = self
            .known(&position, progress)?
            .ok_or_else(|| PlyError::argument(ByteMethod::missing_text(game, &position)))?;
        let mut children = Vec::new();
        if game.primitive(&position).is_none() {
            game.for_each_move(&position, |mv, child| children.push((mv, child)));
        }
        let mut moves = Vec::new();
        for (mv, child) in children {
            // Only the children of a win at once may be missing.
            if let Some(o) = self.known(&child, progress)? {
                moves.push(MoveReport {
                    name: game.format_move(&position, mv),
                    position: game.format_position(&child),
                    value: o.value,
                    remoteness: o.remoteness,
                });
            }
        }
        Ok(SolveReport {
            game: game.name(),
            position: game.format_position(&position),
            value: outcome.value,
            remoteness: outcome.remoteness,
            nimber: None,
            moves,
        })
    }

    fn notes(&self, report: &SolveReport) -> Vec<String> {
        let game = self.inner.game();
        let Ok(position) = game.parse_position(&report.position) else {
            return Vec::new();
        };
        let mut legal = 0;
        if game.primitive(&position).is_none() {
            game.for_each_move(&position, |_, _| legal += 1);
        }
        if report.moves.len() < legal {
            vec![LEFT_OUT.to_string()]
        } else {
            Vec::new()
        }
    }

    fn memory_bound(&self) -> u64 {
        Solver::memory_bound(&self.inner)
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.check_database()?;
        Solver::prepare(&self.inner, progress)
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        Solver::analyze(&self.inner, progress)
    }

    fn source(&self) -> Option<Source> {
        Solver::source(&self.inner)
    }

    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(PathBuf, u64)>, PlyError> {
        Solver::save(&self.inner, store, progress)
    }
}
