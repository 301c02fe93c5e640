//! Sessions for games too large to tabulate: each query is searched on its
//! own by alpha-beta, with one transposition table kept across queries.

use super::once::lock_within;
use super::{Session, Solver};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::{AlphaBeta, Outcome, Progress, Searchable};
use std::sync::Mutex;

/// Solves single positions by alpha-beta search (see [`AlphaBeta`]);
/// refuses to analyze the whole game.
pub struct AlphaBetaSession<G: Searchable> {
    game: G,
    entries: u64,
    searcher: Mutex<Option<AlphaBeta<G>>>,
    why_no_table: String,
}

impl<G: Searchable> AlphaBetaSession<G> {
    /// A session over `game` whose transposition table, made on the first
    /// query, has at least `entries` entries. `why_no_table` is what
    /// `analyze` says when refusing.
    pub fn new(game: G, entries: u64, why_no_table: String) -> Self {
        Self {
            game,
            entries,
            searcher: Mutex::new(None),
            why_no_table,
        }
    }
}

impl<G: Searchable> Solver for AlphaBetaSession<G> {
    type Game = G;

    fn game(&self) -> &G {
        &self.game
    }

    fn outcome_within(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        let mut slot = lock_within(&self.searcher, progress, "another search of this game")?;
        let searcher = slot.get_or_insert_with(|| AlphaBeta::new(&self.game, self.entries));
        progress.begin(
            "alpha-beta search, no table of every position fits in memory",
            0,
        );
        let found = searcher.solve_within(&self.game, position, progress);
        progress.end();
        found.map_err(|e| {
            let what = if e.is_cancelled() {
                format!(
                    "the search of {} after {} positions",
                    self.game.name(),
                    searcher.nodes()
                )
            } else {
                self.game.name()
            };
            PlyError::solve(what, e)
        })
    }
}

impl<G: Searchable> Session for AlphaBetaSession<G> {
    super::solver_session!();

    fn memory_bound(&self) -> u64 {
        AlphaBeta::bytes_for(&self.game, self.entries)
    }

    /// The transposition table is kept across queries, and what a stopped
    /// search learnt stays in it.
    fn resumes_stopped(&self) -> bool {
        true
    }

    fn analyze(&self, _progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        Err(PlyError::argument(self.why_no_table.clone()))
    }
}
