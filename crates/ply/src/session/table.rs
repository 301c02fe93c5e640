//! Sessions for games solved whole into a table: games with a dense index,
//! tiers and symmetries. The table is built once, on first use, and kept,
//! so a long-lived session (`ply serve`) answers every query from it.

use super::Solver;
use super::once::Once;
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::{
    IndexSet, Outcome, Progress, Symmetric, Table, TableError, TableWalk, reachable,
    reachable_classes,
};
use rayon::prelude::*;
use serde_json::json;

/// Answers queries from a strong solution of the whole game.
pub struct TableSession<G> {
    game: G,
    table: Once<Table>,
}

impl<G: TableWalk + Symmetric> TableSession<G> {
    /// A session over `game`, refused at once if its table would not fit in
    /// memory.
    pub fn new(game: G) -> Result<Self, PlyError> {
        Table::check(&game).map_err(|e| table_error(&game, e))?;
        Ok(Self {
            game,
            table: Once::default(),
        })
    }

    /// The table, built on first use with `progress`, solving one position
    /// per class of symmetric positions.
    fn table(&self, progress: &dyn Progress) -> Result<&Table, PlyError> {
        self.table
            .get_or_build(progress, "the table being built", || {
                Table::build_symmetric(&self.game, progress).map_err(|e| match e {
                    TableError::Cancelled => PlyError::Cancelled(format!(
                        "building the table of {} ({})",
                        self.game.name(),
                        ply_core::limits::human_bytes(Table::bytes_needed(self.game.index_len()))
                    )),
                    e => table_error(&self.game, e),
                })
            })
    }

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

fn table_error<G: TableWalk>(game: &G, error: TableError) -> PlyError {
    PlyError::argument(format!("cannot solve {}: {error}", game.name()))
}

impl<G: TableWalk + Symmetric> Solver for TableSession<G> {
    type Game = G;

    fn game(&self) -> &G {
        &self.game
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.table(progress).map(|_| ())
    }

    fn outcome(&self, position: &G::Position) -> Result<Outcome, PlyError> {
        self.outcome_within(position, &ply_core::NoProgress)
    }

    fn memory_bound(&self) -> u64 {
        Table::bytes_needed(self.game.index_len())
    }

    fn outcome_within(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        self.table(progress)?
            .outcome(self.game.rank(position))
            .ok_or_else(|| {
                PlyError::argument(format!(
                    "{} cannot arise in {}",
                    self.game.format_position(position),
                    self.game.name()
                ))
            })
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        let table = self.table(progress)?;
        // Counting by classes expands one position per class; it needs a
        // symmetric start, else every reachable position is expanded.
        let (census, classes) = match reachable_classes(&self.game, progress) {
            Some(classes) => (
                table.census_of_classes(&self.game, &classes),
                classes.count(),
            ),
            None => {
                let reached = reachable(&self.game, progress);
                (
                    table.census(Some(&reached)),
                    self.symmetry_classes(&reached),
                )
            }
        };
        let census = census.map_examples(|index| {
            self.game
                .unrank(index)
                .map_or_else(|| format!("#{index}"), |p| self.game.format_position(&p))
        });
        let mut report = AnalyzeReport::from_census(self.game.name(), census);
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
