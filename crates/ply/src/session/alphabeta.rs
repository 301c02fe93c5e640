//! Sessions for games too large to tabulate: each query is searched on its
//! own by alpha-beta, with one transposition table kept across queries.

use super::{Session, parse_or_start, solve_report};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, SolveReport};
use ply_core::{AlphaBeta, Progress, Searchable};
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

impl<G: Searchable> Session for AlphaBetaSession<G> {
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

    fn solve(&self, position: Option<&str>) -> Result<SolveReport, PlyError> {
        let position = parse_or_start(&self.game, position)?;
        let mut slot = self
            .searcher
            .lock()
            .map_err(|_| PlyError::argument("an earlier search failed part-way"))?;
        let searcher = slot.get_or_insert_with(|| AlphaBeta::new(&self.game, self.entries));
        solve_report(&self.game, &position, |p| {
            searcher
                .solve(&self.game, p)
                .map_err(|e| PlyError::argument(format!("{}: {e}", self.game.name())))
        })
    }

    fn analyze(&self, _progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        Err(PlyError::argument(self.why_no_table.clone()))
    }
}
