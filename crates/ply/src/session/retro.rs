//! Sessions for loopy games solved whole by retrograde analysis. The table
//! is built once, on first use, and answers every later query.

use super::solved::{Method, SolvedSession, build_error};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::solve::retro::{self, RetroTable};
use ply_core::{Indexed, Progress};
use rayon::prelude::*;
use serde_json::json;
use std::ops::Range;

pub use ply_core::solve::retro::Retrograde;

/// The number of moves from the positions with an index in `indices`.
fn count_moves<G: Indexed>(game: &G, indices: Range<u64>) -> u64 {
    indices
        .into_par_iter()
        .map(|index| {
            let mut moves = 0;
            if let Some(position) = game.unrank(index)
                && game.primitive(&position).is_none()
            {
                game.for_each_move(&position, |_, _| moves += 1);
            }
            moves
        })
        .sum()
}

/// Solves a game whole by retrograde analysis (see [`Retrograde`]).
pub struct RetroMethod<G> {
    game: G,
}

/// A session over a game solved by retrograde analysis.
pub type RetroSession<G> = SolvedSession<RetroMethod<G>>;

impl<G: Retrograde> RetroSession<G> {
    /// A session over `game`; nothing is solved until asked.
    pub fn new(game: G) -> Self {
        SolvedSession::with(RetroMethod { game })
    }
}

impl<G: Retrograde> Method for RetroMethod<G> {
    type Game = G;
    type Built = RetroTable;

    fn game(&self) -> &G {
        &self.game
    }

    fn build(&self, progress: &dyn Progress) -> Result<RetroTable, PlyError> {
        retro::solve_all(&self.game, progress).map_err(|e| build_error("solving ", &self.game, e))
    }

    /// What the solver checks against the memory before it starts
    /// (`solve_slots` in [`ply_core::solve::retro`]): a two-byte cell, a
    /// one-byte counter and three bits an index, and a slot an index for
    /// the reverse graph's offsets where parents come from stored moves;
    /// so that the server sizes the game by the table it would build.
    fn memory_bound(&self) -> u64 {
        let len = self.game.index_len();
        let slot = if len <= u64::from(u32::MAX) { 4 } else { 8 };
        let graph = if <G::Parents as retro::ParentRule<G>>::STORED {
            slot
        } else {
            0
        };
        len.saturating_mul(8 * (3 + graph) + 3) / 8
    }

    fn missing(&self, position: &G::Position) -> String {
        format!(
            "{} is not in the {} table",
            self.game.format_position(position),
            self.game.name()
        )
    }

    fn analyze(
        &self,
        table: &RetroTable,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        let (counted, what) = self.game.counted();
        let counted_range = counted.clone();
        let mut report = self.census_report(table.census(counted));
        report.extra = self
            .game
            .facts(table, progress)
            .into_iter()
            .map(|(name, fact)| (name.to_string(), json!(fact)))
            .collect();
        report.extra.insert("counted".into(), json!(what));
        report.extra.insert(
            "moves".into(),
            json!(count_moves(&self.game, counted_range)),
        );
        Ok(report)
    }
}
