//! Loopy games too large for a cell of several bytes per index: solved by
//! retrograde analysis over the whole index, a byte per stored key and a
//! bit per index ([`ply_core::solve::byte_retro`]). A game whose index holds
//! [`ON_DEMAND_INDEX`] or more positions takes minutes and hundreds of
//! megabytes to solve, so queries about it are answered from a saved
//! database only (`ply analyze GAME --save` builds one); smaller ones
//! are solved on first use.

use super::rows::{Probe, Rows};
use super::solved::{Method, SolvedSession, build_error};
use super::store::{self, Store};
use super::{Session, Solver, parse_or_start, report_with};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, SolveReport};
use ply_core::WinsAtOnce;
use ply_core::limits::human_bytes;
use ply_core::solve::byte_retro::{self, ByteTable};
use ply_core::{Cell, Outcome, Progress, Solution, Source};
use serde_json::json;
use std::path::PathBuf;

/// Games with an index of this many positions or more are answered from a
/// saved database only: their solve takes minutes. (Full Dobutsu Shogi's
/// index, mirror images folded and the Lion placements the rules decide
/// left out, is 332,590,356; its variants with fewer
/// pieces are under 2^25.)
pub const ON_DEMAND_INDEX: u64 = 1 << 28;

/// Solves a game with the one-byte retrograde solver.
pub struct ByteMethod<G> {
    game: G,
}

impl<G: WinsAtOnce> ByteMethod<G> {
    /// Why `position` of `game` has no answer: it is outside the index the
    /// solve covers (every legal position the rules do not already decide).
    fn missing_text(game: &G, position: &G::Position) -> String {
        format!(
            "position {} is outside the positions solved for {}",
            game.format_position(position),
            game.name(),
        )
    }
}

impl<G: WinsAtOnce + Send + Sync> Method for ByteMethod<G> {
    type Game = G;
    type Built = ByteTable;

    fn game(&self) -> &G {
        &self.game
    }

    fn build(&self, progress: &dyn Progress) -> Result<ByteTable, PlyError> {
        byte_retro::solve(&self.game, progress).map_err(|e| build_error("solving ", &self.game, e))
    }

    /// The key the solve keeps ([`ply_core::Symmetric::canonical_index`]):
    /// for a game with a mirror, the lesser index of the position and its
    /// image; the other index is unknown in a database, which costs almost
    /// nothing on disk.
    fn key(&self, position: &G::Position) -> u64 {
        self.game.canonical_index(position)
    }

    fn missing(&self, position: &G::Position) -> String {
        Self::missing_text(&self.game, position)
    }

    fn analyze(
        &self,
        table: &ByteTable,
        _progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        let mut report = self.census_report(table.census());
        report.extra.insert(
            "counted".into(),
            json!(format!(
                "every legal position of the index, as the mover sees them (those legal play \
                 reaches from the start among them); those where the mover wins at once ({}) \
                 are wins in 1 by the rules",
                self.game.what_wins_at_once()
            )),
        );
        report
            .extra
            .insert("index_size".into(), json!(self.game.index_len()));
        report
            .extra
            .insert("wins_at_once".into(), json!(table.wins_at_once()));
        if let Some([stored, at_once]) = table.classes() {
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

/// A session over a game solved by the one-byte retrograde solver.
pub struct ByteRetroSession<G: WinsAtOnce + Send + Sync> {
    inner: SolvedSession<ByteMethod<G>>,
    /// Whether queries need a saved database (an index of at least
    /// [`ON_DEMAND_INDEX`]: its solve takes minutes).
    needs_database: bool,
}

impl<G: WinsAtOnce + Send + Sync> ByteRetroSession<G> {
    /// A session over `game`; nothing is read or solved until asked.
    pub fn new(game: G) -> Self {
        let needs_database = game.index_len() >= ON_DEMAND_INDEX;
        Self {
            inner: SolvedSession::with(ByteMethod { game }),
            needs_database,
        }
    }

    /// Refuses a query about the full game when no database is saved,
    /// rather than starting a solve of minutes unasked.
    fn check_database(&self) -> Result<(), PlyError> {
        if !self.needs_database || self.inner.source().is_some() {
            return Ok(());
        }
        match self.without_database() {
            Some(why) => Err(PlyError::Unavailable(why)),
            None => Ok(()),
        }
    }

    /// Why the game cannot be answered, if it needs a database and the
    /// store holds none: the server's state, not the asker's fault.
    fn without_database(&self) -> Option<String> {
        let game = self.inner.game();
        let found = store::current()
            .filter(|s| s.read)
            .is_some_and(|s| !s.files(&game.name()).is_empty());
        (self.needs_database && !found).then(|| {
            format!(
                "no saved database of {name}; build one first with `ply analyze {name} --save` \
                 (minutes, up to {memory} of memory)",
                name = game.name(),
                memory = human_bytes(byte_retro::peak_bytes(game))
            )
        })
    }
}

impl<G: WinsAtOnce + Send + Sync> ByteRetroSession<G> {
    /// The outcome of `position` if known: ends of play and wins at once
    /// from the rules (the table does not hold them), the rest from the
    /// solution; `None` for a position outside the solved index.
    fn known(
        &self,
        position: &G::Position,
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
        let solution = self.inner.solution(progress)?;
        let stored = solution.cell(game.canonical_index(position))?;
        // A database leaving out a side's remoteness answers that side
        // from the children's cells, one ply away.
        let outcome = ply_core::derive::complete(game, position, stored, |child| {
            Ok::<_, PlyError>(if game.wins_at_once(child) {
                Cell::pack(Outcome::win(1))
            } else {
                solution.cell(game.canonical_index(child))?
            })
        })?;
        match (outcome, stored.left_out_value()) {
            (None, Some(value)) => Err(super::not_derived(
                &game.name(),
                &game.format_position(position),
                value,
            )),
            (outcome, _) => Ok(outcome),
        }
    }
}

impl<G: WinsAtOnce + Send + Sync + 'static> Session for ByteRetroSession<G> {
    super::game_methods!(self => self.inner.game());

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
        report_with(game, &position, outcome, |child| {
            // Every child of a solved position is solved: none is left out.
            self.known(child, progress)?.ok_or_else(|| {
                PlyError::Database(format!(
                    "the database of {} lacks position {}, a move from {}: rebuild it with \
                     `ply analyze {} --save`",
                    game.name(),
                    game.format_position(child),
                    game.format_position(&position),
                    game.name()
                ))
            })
        })
    }

    fn memory_bound(&self) -> u64 {
        self.inner.memory_bound()
    }

    fn long_without_database(&self) -> Option<String> {
        self.inner.long_without_database()
    }

    fn serving(&self) -> super::Serving {
        match self.without_database() {
            Some(why) => super::Serving::Refused(why),
            None => self.inner.serving(),
        }
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.check_database()?;
        self.inner.prepare(progress)
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        self.inner.analyze(progress)
    }

    fn source(&self) -> Option<Source> {
        self.inner.source()
    }

    fn stale(&self) -> bool {
        self.inner.stale()
    }

    /// Saves the database leaving out the remoteness of the side a sample
    /// of its blocks says saves more (queries find it again one ply away,
    /// [`ply_core::derive`]), in one pass over the table.
    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(PathBuf, u64)>, PlyError> {
        let saved = self.inner.save_as(store, progress, |path, meta, table| {
            let census = table.key_census();
            let (_, size) = ply_core::db::write_indexed_leaving_out(
                path,
                meta,
                &census,
                |range, cells| {
                    let start = range.start;
                    table.for_each_cell(range, &mut |index, cell| {
                        cells[(index - start) as usize] = cell;
                    })
                },
                ply_core::db::SAMPLE_EVERY,
                progress,
            )?;
            Ok(size)
        })?;
        Ok(Some(saved))
    }

    fn rows(&self, progress: &dyn Progress) -> Result<Option<Box<dyn Rows + '_>>, PlyError> {
        self.check_database()?;
        Ok(Some(Box::new(ByteProbe {
            session: self,
            solution: self.inner.solution(progress)?,
        })))
    }
}

/// A [`ByteRetroSession`]'s solution as [`Rows`]: outcomes as the session
/// answers them, ends of play and wins at once from the rules.
struct ByteProbe<'a, G: WinsAtOnce + Send + Sync> {
    session: &'a ByteRetroSession<G>,
    solution: &'a dyn Solution,
}

impl<G: WinsAtOnce + Send + Sync> Probe for ByteProbe<'_, G> {
    type Game = G;

    fn game(&self) -> &G {
        self.session.inner.game()
    }

    fn solution(&self) -> &dyn Solution {
        self.solution
    }

    fn key(&self, position: &G::Position) -> u64 {
        self.game().canonical_index(position)
    }

    fn known(&self, position: &G::Position) -> Result<Option<Outcome>, PlyError> {
        self.session.known(position, &ply_core::NoProgress)
    }

    fn missing(&self, position: &G::Position) -> String {
        ByteMethod::missing_text(self.game(), position)
    }
}
