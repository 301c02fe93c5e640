//! Sessions for games solved tier by tier that also answer positions by a
//! search of their own ([`Searched`]): a position is read from the game's
//! tier shards where the database directory holds them all (or where the
//! game is small enough to build for the query), and searched otherwise,
//! on as many threads as rayon's pool has, with one searcher (its
//! transposition table within `--memory`'s search budget) kept across
//! queries. Connect Four on 7x6 is answered this way.

use super::once::lock_within;
use super::tier::TierSession;
use super::{Session, Solver};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, SolveReport};
use ply_core::limits::search_table_bytes;
use ply_core::tier::Team;
use ply_core::{Outcome, PositionError, Progress, SearchStop, Searched, Source};
use std::sync::Mutex;

use super::store::Store;

/// A tiered game whose positions are searched where no database answers.
pub struct SearchedSession<G: Searched> {
    tiers: TierSession<G>,
    /// The searcher, made on the first searched query.
    search: Mutex<Option<G::Searcher>>,
}

impl<G: Searched + 'static> SearchedSession<G> {
    /// A session over `game`.
    pub fn new(game: G) -> Result<Self, PlyError> {
        Ok(Self {
            tiers: TierSession::new(game)?,
            search: Mutex::new(None),
        })
    }

    /// Whether `position` is answered by search: it lies outside the
    /// stored tiers, or no database of the game is stored and the game is
    /// too large to build for one query.
    fn searched(&self, position: &G::Position, progress: &dyn Progress) -> Result<bool, PlyError> {
        Ok(self.game().searched_only(position)
            || (!self.tiers.buildable() && !self.tiers.holds_stored(progress)?))
    }
}

impl<G: Searched + 'static> Solver for SearchedSession<G> {
    type Game = G;

    fn game(&self) -> &G {
        self.tiers.game()
    }

    fn outcome_within(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        if !self.searched(position, progress)? {
            return self.tiers.outcome_within(position, progress);
        }
        let mut slot = lock_within(&self.search, progress, "another search of this game")?;
        let game = self.game();
        let searcher = slot.get_or_insert_with(|| {
            game.searcher(search_table_bytes(), rayon::current_num_threads())
        });
        progress.begin(&format!("alpha-beta search of {}", game.name()), 0);
        let stored = |leaf: &G::Position| {
            self.tiers
                .outcome_within(leaf, &ply_core::NoProgress)
                .map_err(|e| PositionError::unavailable(e.to_string()))
        };
        let found = game.search(searcher, position, &stored, &|| progress.cancelled());
        progress.end();
        found.map_err(|stop| match stop {
            SearchStop::Cancelled => PlyError::Cancelled(format!(
                "the search of {} after {} positions",
                game.name(),
                game.searched_nodes(searcher)
            )),
            SearchStop::Leaf(error) => PlyError::argument(error.to_string()),
        })
    }
}

impl<G: Searched + 'static> Session for SearchedSession<G> {
    super::solver_session!();

    /// The tiers' bound and the search's table.
    fn memory_bound(&self) -> u64 {
        self.tiers.memory_bound() + search_table_bytes()
    }

    /// Whether the position was searched or read from the database.
    fn notes(&self, report: &SolveReport) -> Vec<String> {
        let searched = self
            .game()
            .parse_position(&report.position)
            .ok()
            .and_then(|p| self.searched(&p, &ply_core::NoProgress).ok())
            .unwrap_or(false);
        if searched {
            vec![format!(
                "answered by alpha-beta search (no database of {} is stored; \
                 `ply analyze {} --save` builds one where it fits)",
                self.game().name(),
                self.game().name()
            )]
        } else {
            Vec::new()
        }
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        if self.tiers.buildable() || self.tiers.holds_stored(progress)? {
            self.tiers.prepare(progress)
        } else {
            Ok(())
        }
    }

    fn warm(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.tiers.warm(progress)
    }

    fn source(&self) -> Option<Source> {
        self.tiers.source().or(Some(Source::Solved))
    }

    fn stale(&self) -> bool {
        self.tiers.stale()
    }

    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(std::path::PathBuf, u64)>, PlyError> {
        self.tiers.save(store, progress)
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        self.tiers.analyze(progress)
    }

    fn analyze_saving(
        &self,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        self.tiers.analyze_saving(save, memory, progress)
    }

    fn tiered(&self) -> bool {
        true
    }

    fn analyze_end_tiers(
        &self,
        height: u32,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        self.tiers.analyze_end_tiers(height, save, memory, progress)
    }

    fn analyze_shared(
        &self,
        team: &Team,
        end_tiers: Option<u32>,
        save: &Store,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<Option<AnalyzeReport>, PlyError> {
        self.tiers
            .analyze_shared(team, end_tiers, save, memory, progress)
    }

    fn rows(
        &self,
        progress: &dyn Progress,
    ) -> Result<Option<Box<dyn super::rows::Rows + '_>>, PlyError> {
        self.tiers.rows(progress)
    }
}
