//! Sessions for acyclic games whose reachable positions fit a table: the
//! table is built once, on first use, and answers every query after.

use super::Solver;
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::{Indexed, NoProgress, Outcome, Progress, SparseTable, Symmetric, Tiered};
use std::sync::OnceLock;

/// Solves a game by tabulating every position reachable from its start
/// (see [`SparseTable`]).
pub struct SparseSession<G> {
    game: G,
    table: OnceLock<Result<SparseTable, String>>,
}

impl<G: Indexed + Symmetric + Tiered> SparseSession<G> {
    /// A session over `game`; nothing is built until the first query.
    pub fn new(game: G) -> Self {
        Self {
            game,
            table: OnceLock::new(),
        }
    }

    /// The table, built now if this is the first query.
    fn table(&self, progress: &dyn Progress) -> Result<&SparseTable, PlyError> {
        self.table
            .get_or_init(|| {
                SparseTable::build(&self.game, &self.game.start(), progress)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| PlyError::argument(format!("{}: {e}", self.game.name())))
    }
}

impl<G: Indexed + Symmetric + Tiered> Solver for SparseSession<G> {
    type Game = G;

    fn game(&self) -> &G {
        &self.game
    }

    fn outcome(&self, position: &G::Position) -> Result<Outcome, PlyError> {
        self.table(&NoProgress)?
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
