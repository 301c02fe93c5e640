//! Sessions for loopy games solved whole by retrograde analysis. The table
//! is built once, on first use, and answers every later query.

use super::solved::{Method, SolvedSession};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::solve::retro::{self, RetroError, RetroTable};
use ply_core::{Census, Indexed, Progress, Value, reachable_from};
use ply_games::LGame;
use ply_games::yehr::{Side, Yehr, YehrPosition};
use rayon::prelude::*;
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::ops::Range;

/// A game with a dense index that retrograde analysis solves whole, and
/// what `ply analyze` says about it.
pub trait Retrograde: Indexed + Sized {
    /// Solves every position, by the fastest method the game's capabilities
    /// allow.
    fn solve_all(&self, progress: &dyn Progress) -> Result<RetroTable, RetroError>;

    /// The indices `ply analyze` counts, and what they are.
    fn counted(&self) -> (Range<u64>, &'static str) {
        (0..self.index_len(), "every position")
    }

    /// Facts beyond the counts for `ply analyze`.
    fn extra(&self, _table: &RetroTable, _progress: &dyn Progress) -> BTreeMap<String, Json> {
        BTreeMap::new()
    }
}

impl Retrograde for LGame {
    fn solve_all(&self, progress: &dyn Progress) -> Result<RetroTable, RetroError> {
        retro::solve_symmetric(self, progress)
    }

    fn counted(&self) -> (Range<u64>, &'static str) {
        (
            0..self.index_len() / 2,
            "positions with # to move (those with * to move mirror them)",
        )
    }

    fn extra(&self, table: &RetroTable, _progress: &dyn Progress) -> BTreeMap<String, Json> {
        BTreeMap::from([
            ("symmetry_classes".into(), json!(table.solved_positions())),
            ("index_size".into(), json!(self.index_len())),
        ])
    }
}

impl Retrograde for Yehr {
    fn solve_all(&self, progress: &dyn Progress) -> Result<RetroTable, RetroError> {
        retro::solve_symmetric_with_parents(self, progress)
    }

    fn extra(&self, table: &RetroTable, progress: &dyn Progress) -> BTreeMap<String, Json> {
        let captured = (0..self.index_len())
            .into_par_iter()
            .filter(|&i| self.unrank(i).is_some_and(|p| p.captured()))
            .count();
        let setups: Vec<_> = contest_setups().collect();
        let red_wins = setups
            .iter()
            .filter(|p| winner(table, p) == Some(Side::Red))
            .count();
        let reachable = reachable_from(self, setups.iter().copied(), progress);
        let reached = table.census_where(0..self.index_len(), |i| reachable.contains(i));
        BTreeMap::from([
            ("captured_positions".into(), json!(captured)),
            ("symmetry_classes".into(), json!(table.solved_positions())),
            ("contest_setups".into(), json!(setups.len())),
            ("contest_setups_red_wins".into(), json!(red_wins)),
            (
                "reachable_from_contest_setups".into(),
                json!(reached.positions),
            ),
            ("reachable_win".into(), json!(reached.win)),
            ("reachable_lose".into(), json!(reached.lose)),
            ("reachable_draw".into(), json!(reached.draw)),
        ])
    }
}

/// Every start the contest data can give: Red's A, B, C on rows 1..5,
/// Black's on 6..10, the dazes on 5 and 6, either side to move.
fn contest_setups() -> impl Iterator<Item = YehrPosition> {
    let rows = |low: u8| (0..125u8).map(move |n| [low + n / 25, low + n / 5 % 5, low + n % 5]);
    [0u8, 1].into_iter().flat_map(move |mover| {
        rows(1).flat_map(move |[a, b, c]| {
            rows(6).filter_map(move |[x, y, z]| {
                Yehr::contest_position(mover, [a, b, c, 5], [x, y, z, 6]).ok()
            })
        })
    })
}

/// Who wins `position` with perfect play.
fn winner(table: &RetroTable, position: &YehrPosition) -> Option<Side> {
    match table.outcome(&Yehr, position)?.value {
        Value::Win => Some(position.mover()),
        Value::Lose => Some(position.mover().other()),
        _ => None,
    }
}

/// The number of moves from the positions with an index in `indices`.
fn count_moves<G: Indexed>(game: &G, indices: Range<u64>) -> u64 {
    indices
        .into_par_iter()
        .map(|index| {
            let mut moves = 0;
            if let Some(position) = game.unrank(index) {
                if game.primitive(&position).is_none() {
                    game.for_each_move(&position, |_, _| moves += 1);
                }
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
        self.game
            .solve_all(progress)
            .map_err(|e| PlyError::argument(format!("{}: {e}", self.game.name())))
    }

    fn key(&self, position: &G::Position) -> u64 {
        self.game.rank(position)
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
        let census: Census<u64> = table.census(counted);
        let census = census.map_examples(|index| {
            self.game
                .unrank(index)
                .map(|p| self.game.format_position(&p))
                .unwrap_or_default()
        });
        let mut report = AnalyzeReport::from_census(self.game.name(), census);
        report.extra = self.game.extra(table, progress);
        report.extra.insert("counted".into(), json!(what));
        report.extra.insert(
            "moves".into(),
            json!(count_moves(&self.game, counted_range)),
        );
        Ok(report)
    }
}
