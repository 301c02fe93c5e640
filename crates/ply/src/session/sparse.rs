//! Acyclic games whose reachable positions fit a table: one
//! cell per symmetry class reachable from the start.

use super::solved::{Method, SolvedSession, build_error};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::Canonical;
use ply_core::team::{Exchanged, Team};
use ply_core::{Indexed, NumberedTiers, Progress, Solution, SparseTable, Symmetric};

/// Solves a game by tabulating every position reachable from its start
/// (see [`SparseTable`]).
pub struct SparseMethod<G> {
    game: G,
    /// The most bytes a build takes, as the opener judged it.
    bytes: u64,
}

/// A session over a game solved into a [`SparseTable`].
pub type SparseSession<G> = SolvedSession<SparseMethod<G>>;

impl<G: Indexed + Symmetric + NumberedTiers> SparseSession<G> {
    /// A session over `game` whose table takes at most `bytes` to build;
    /// nothing is built until the first query.
    pub fn new(game: G, bytes: u64) -> Self {
        SolvedSession::with(SparseMethod { game, bytes })
    }
}

impl<G: Indexed + Symmetric + NumberedTiers> Method for SparseMethod<G> {
    type Game = G;
    type Built = Canonical;

    fn game(&self) -> &G {
        &self.game
    }

    fn build(&self, progress: &dyn Progress) -> Result<Canonical, PlyError> {
        SparseTable::build(&self.game, &self.game.start(), progress)
            .map(|table| Canonical::new(table, self.game.index_len()))
            .map_err(|e| build_error("building the table of ", &self.game, e))
    }

    fn memory_bound(&self) -> u64 {
        self.bytes
    }

    fn build_shared(
        &self,
        team: &Team,
        progress: &dyn Progress,
    ) -> Result<(Canonical, Exchanged), PlyError> {
        SparseTable::build_team(&self.game, &self.game.start(), team, progress)
            .map(|(table, exchanged)| (Canonical::new(table, self.game.index_len()), exchanged))
            .map_err(|e| super::table::team_error(&self.game, team, e))
    }

    fn key(&self, position: &G::Position) -> u64 {
        self.game.canonical_index(position)
    }

    fn walks_tiers(&self) -> bool {
        true
    }

    fn missing(&self, position: &G::Position) -> String {
        format!(
            "position {} cannot be reached from the start of {}",
            self.game.format_position(position),
            self.game.name()
        )
    }

    fn analyze(
        &self,
        table: &Canonical,
        _progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        if !table.table().root_symmetric() {
            return Err(PlyError::argument(format!(
                "{}: the start position is not symmetric, so positions cannot be counted by class",
                self.game.name()
            )));
        }
        let census = table.census_by(0..table.index_len(), &|rank| {
            self.game
                .unrank(rank)
                .map_or(0, |p| self.game.class_size(rank, &p))
        })?;
        let mut report = self.census_report(census);
        report
            .extra
            .insert("symmetry_classes".into(), table.table().classes().into());
        Ok(report)
    }
}
