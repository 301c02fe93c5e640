//! Acyclic games whose reachable positions fit a table: one
//! cell per symmetry class reachable from the start.

use super::solved::{Method, SolvedSession};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::solution::{Canonical, class_size};
use ply_core::{Indexed, Progress, Solution, SparseError, SparseTable, Symmetric, Tiered};

/// Solves a game by tabulating every position reachable from its start
/// (see [`SparseTable`]).
pub struct SparseMethod<G> {
    game: G,
    /// The most bytes a build takes, as the opener judged it.
    bytes: u64,
}

/// A session over a game solved into a [`SparseTable`].
pub type SparseSession<G> = SolvedSession<SparseMethod<G>>;

impl<G: Indexed + Symmetric + Tiered> SparseSession<G> {
    /// A session over `game` whose table takes at most `bytes` to build;
    /// nothing is built until the first query.
    pub fn new(game: G, bytes: u64) -> Self {
        SolvedSession::with(SparseMethod { game, bytes })
    }
}

impl<G: Indexed + Symmetric + Tiered> Method for SparseMethod<G> {
    type Game = G;
    type Built = Canonical;

    fn game(&self) -> &G {
        &self.game
    }

    fn build(&self, progress: &dyn Progress) -> Result<Canonical, PlyError> {
        SparseTable::build(&self.game, &self.game.start(), progress)
            .map(|table| Canonical::new(table, self.game.index_len()))
            .map_err(|e| match e {
                SparseError::Cancelled => {
                    PlyError::Cancelled(format!("building the table of {}", self.game.name()))
                }
                e @ SparseError::IndexTooLarge(_) => {
                    PlyError::TooLarge(format!("{}: {e}", self.game.name()))
                }
                e => PlyError::argument(format!("{}: {e}", self.game.name())),
            })
    }

    fn memory_bound(&self) -> u64 {
        self.bytes
    }

    fn key(&self, position: &G::Position) -> u64 {
        self.game.canonical_index(position)
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
        let census = table
            .census_by(0..table.index_len(), &|rank| {
                self.game
                    .unrank(rank)
                    .map_or(0, |p| class_size(&self.game, &p, rank))
            })?
            .map_examples(|rank| {
                self.game
                    .unrank(rank)
                    .map_or_else(|| format!("#{rank}"), |p| self.game.format_position(&p))
            });
        let mut report = AnalyzeReport::from_census(self.game.name(), census);
        report
            .extra
            .insert("symmetry_classes".into(), table.table().classes().into());
        Ok(report)
    }
}
