//! Sessions for acyclic games solved by memoised depth-first search.

use super::{Session, parse_or_start, solve_report};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, SolveReport};
use ply_core::{Game, MemoSolver, Progress};

/// Solves positions of an acyclic game by memoised search, one query at a time.
pub struct SearchSession<G> {
    game: G,
}

impl<G: Game> SearchSession<G> {
    /// A session over `game`.
    pub fn new(game: G) -> Self {
        Self { game }
    }
}

impl<G: Game> Session for SearchSession<G> {
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
        let mut solver = MemoSolver::new(&self.game);
        solve_report(&self.game, &position, |p| {
            solver
                .solve(p)
                .map_err(|e| PlyError::argument(e.to_string()))
        })
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        progress.begin("searching", 0);
        let mut solver = MemoSolver::new(&self.game);
        solver
            .solve(&self.game.start())
            .map_err(|e| PlyError::argument(e.to_string()))?;
        progress.end();
        let census = solver
            .census()
            .map_examples(|p| self.game.format_position(&p));
        Ok(AnalyzeReport::from_census(self.game.name(), census))
    }
}
