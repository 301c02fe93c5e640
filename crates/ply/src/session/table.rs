//! Games solved whole into a table over every index: games with a dense
//! index, tiers and symmetries.

use super::solved::{Method, SolvedSession};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::census_of_classes;
use ply_core::team::{Exchanged, Team, TeamError};
use ply_core::{
    IndexSet, Progress, Solution, SolveError, Symmetric, Table, TableWalk, reachable,
    reachable_classes,
};
use rayon::prelude::*;
use serde_json::json;

/// Solves a game into a [`Table`], one position per symmetry class.
pub struct TableMethod<G> {
    game: G,
}

/// A session over a game solved into a [`Table`].
pub type TableSession<G> = SolvedSession<TableMethod<G>>;

impl<G: TableWalk + Symmetric> TableSession<G> {
    /// A session over `game`, refused at once if its table would not fit in
    /// memory.
    pub fn new(game: G) -> Result<Self, PlyError> {
        Table::check(&game).map_err(|e| table_error(&game, e))?;
        Ok(SolvedSession::with(TableMethod { game }))
    }
}

impl<G: TableWalk + Symmetric> TableMethod<G> {
    /// How many classes of symmetric positions the positions in `set` meet.
    fn symmetry_classes(&self, set: &IndexSet) -> u64 {
        const CHUNK: u64 = 1 << 14;
        let len = set.capacity();
        let canonical = IndexSet::new(len);
        (0..len.div_ceil(CHUNK)).into_par_iter().for_each(|chunk| {
            (chunk * CHUNK..len.min((chunk + 1) * CHUNK))
                .filter(|&index| set.contains(index))
                .filter_map(|index| self.game.unrank(index))
                .for_each(|p| {
                    canonical.insert(self.game.rank(&self.game.canonical(&p)));
                });
        });
        canonical.count()
    }
}

/// A team's failed build of `game`'s table, for the command line.
pub(super) fn team_error(game: &impl ply_core::Game, team: &Team, error: TeamError) -> PlyError {
    match error {
        TeamError::Cancelled => PlyError::Cancelled(format!(
            "building the table of {} with {} processes",
            game.name(),
            team.processes
        )),
        other => PlyError::argument(format!("{}: {other}", game.name())),
    }
}

fn table_error<G: TableWalk>(game: &G, error: SolveError) -> PlyError {
    PlyError::solve(format!("cannot solve {}", game.name()), error)
}

impl<G: TableWalk + Symmetric> Method for TableMethod<G> {
    type Game = G;
    type Built = Table;

    fn game(&self) -> &G {
        &self.game
    }

    fn build(&self, progress: &dyn Progress) -> Result<Table, PlyError> {
        Table::build_symmetric(&self.game, progress).map_err(|e| {
            if !e.is_cancelled() {
                return table_error(&self.game, e);
            }
            PlyError::solve(
                format!(
                    "building the table of {} ({})",
                    self.game.name(),
                    ply_core::limits::human_bytes(Table::bytes_needed(self.game.index_len()))
                ),
                e,
            )
        })
    }

    fn memory_bound(&self) -> u64 {
        Table::bytes_needed(self.game.index_len())
    }

    fn build_shared(
        &self,
        team: &Team,
        progress: &dyn Progress,
    ) -> Result<(Table, Exchanged), PlyError> {
        Table::build_symmetric_team(&self.game, team, progress)
            .map_err(|e| team_error(&self.game, team, e))
    }

    fn walks_tiers(&self) -> bool {
        true
    }

    fn missing(&self, position: &G::Position) -> String {
        format!(
            "{} cannot arise in {}",
            self.game.format_position(position),
            self.game.name()
        )
    }

    fn analyze(&self, table: &Table, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        // Counting by classes expands one position per class; it needs a
        // symmetric start, else every reachable position is expanded.
        let (census, classes) = match reachable_classes(&self.game, progress) {
            Some(classes) => (
                census_of_classes(table, &self.game, &classes)?,
                classes.count(),
            ),
            None => {
                let reached = reachable(&self.game, progress);
                (
                    table.census_by(0..table.index_len(), &|i| u64::from(reached.contains(i)))?,
                    self.symmetry_classes(&reached),
                )
            }
        };
        let mut report = self.census_report(census);
        report
            .extra
            .insert("index_size".into(), json!(self.game.index_len()));
        report.extra.insert(
            "table_bytes".into(),
            json!(Table::bytes_needed(self.game.index_len())),
        );
        report
            .extra
            .insert("symmetry_classes".into(), json!(classes));
        Ok(report)
    }
}
