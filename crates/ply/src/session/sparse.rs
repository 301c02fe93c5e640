//! Sessions for acyclic games whose reachable positions fit a table: the
//! table is built once, on first use, and answers every query after.

use super::Solver;
use super::once::Once;
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::{
    Indexed, NoProgress, Outcome, Progress, SparseError, SparseTable, Symmetric, Tiered,
};

/// Solves a game by tabulating every position reachable from its start
/// (see [`SparseTable`]).
pub struct SparseSession<G> {
    game: G,
    table: Once<SparseTable>,
    /// The most bytes a build takes, as the opener judged it.
    bytes: u64,
}

impl<G: Indexed + Symmetric + Tiered> SparseSession<G> {
    /// A session over `game` whose table takes at most `bytes` to build;
    /// nothing is built until the first query.
    pub fn new(game: G, bytes: u64) -> Self {
        Self {
            game,
            table: Once::default(),
            bytes,
        }
    }

    /// The table, built now if this is the first query.
    fn table(&self, progress: &dyn Progress) -> Result<&SparseTable, PlyError> {
        self.table
            .get_or_build(progress, "the table being built", || {
                SparseTable::build(&self.game, &self.game.start(), progress).map_err(|e| match e {
                    SparseError::Cancelled => {
                        PlyError::Cancelled(format!("building the table of {}", self.game.name()))
                    }
                    e => PlyError::argument(format!("{}: {e}", self.game.name())),
                })
            })
    }
}

impl<G: Indexed + Symmetric + Tiered> Solver for SparseSession<G> {
    type Game = G;

    fn game(&self) -> &G {
        &self.game
    }

    fn outcome(&self, position: &G::Position) -> Result<Outcome, PlyError> {
        self.outcome_within(position, &NoProgress)
    }

    fn memory_bound(&self) -> u64 {
        self.bytes
    }

    fn outcome_within(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        self.table(progress)?
            .outcome(&self.game, position)
            .ok_or_else(|| {
                PlyError::argument(format!(
                    "position {} cannot be reached from the start of {}",
                    self.game.format_position(position),
                    self.game.name()
                ))
            })
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.table(progress).map(|_| ())
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        let table = self.table(progress)?;
        let census = table
            .census(&self.game)
            .ok_or_else(|| {
                PlyError::argument(format!(
                    "{}: the start position is not symmetric, so positions cannot be counted by class",
                    self.game.name()
                ))
            })?
            .map_examples(|p| self.game.format_position(&p));
        let mut report = AnalyzeReport::from_census(self.game.name(), census);
        report
            .extra
            .insert("symmetry_classes".into(), table.classes().into());
        Ok(report)
    }
}
