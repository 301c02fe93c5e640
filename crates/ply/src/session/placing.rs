//! The session of Morris with the moving phase stored ([`Morris::moving_phase`],
//! `morris`): the tiers are the moving phase, solved and saved as any game
//! solved tier by tier ([`TierSession`]), and a placing position is
//! answered by search over them ([`PlacingSearch`]) on as many threads as
//! rayon's pool has (the cores, or `RAYON_NUM_THREADS`), with one
//! transposition table kept across queries. Where the database directory
//! holds the whole game's database too (`ply analyze morris:9,whole
//! --save`, every tier), a placing position is read from it instead.

use super::once::{Once, lock_within};
use super::tier::TierSession;
use super::{Serving, Session, Solver};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, SolveReport};
use ply_core::limits::search_table_bytes;
use ply_core::tier::Team;
use ply_core::{Game, Outcome, Progress, Source, Tiers};
use ply_games::Morris;
use ply_games::morris::index::Sector;
use ply_games::morris::search::{PlacingSearch, Stop};
use std::path::PathBuf;
use std::sync::Mutex;

use super::rows::Rows;
use super::store::Store;

/// Morris with its moving phase in tiers and its placing phase searched
/// (or read from the whole game's database where the directory holds it).
pub struct PlacingSession {
    tiers: TierSession<Morris>,
    /// The searcher, made on the first placing query.
    search: Mutex<Option<PlacingSearch>>,
    /// The whole game of as many stones, placing sectors included, if
    /// the database directory holds its every tier: looked for at the
    /// first placing query.
    whole: Once<Option<TierSession<Morris>>>,
}

impl PlacingSession {
    /// A session over `game`, whose tiers are its moving phase.
    pub fn new(game: Morris) -> Result<Self, PlyError> {
        Ok(Self {
            tiers: TierSession::new(game)?,
            search: Mutex::new(None),
            whole: Once::default(),
        })
    }

    /// The transposition table's entries: what fits in the search budget.
    fn entries() -> u64 {
        PlacingSearch::entries_within(search_table_bytes())
    }

    /// Whether `position` has stones in hand: answered by search, or
    /// from the whole game's database.
    fn placing(&self, position: &<Morris as Game>::Position) -> bool {
        matches!(self.game().tier_of(position), Sector::Placing { .. })
    }

    /// The whole game's session if the database directory holds its
    /// every tier.
    fn whole(&self, progress: &dyn Progress) -> Result<Option<&TierSession<Morris>>, PlyError> {
        let whole =
            self.whole
                .get_or_build(progress, "the whole game's database being opened", || {
                    let whole = TierSession::new(Morris::new(self.game().stones()))?;
                    Ok(whole.holds_stored(progress)?.then_some(whole))
                })?;
        Ok(whole.as_ref())
    }
}

impl Solver for PlacingSession {
    type Game = Morris;

    fn game(&self) -> &Morris {
        self.tiers.game()
    }

    fn outcome_within(
        &self,
        position: &<Morris as Game>::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        if !self.placing(position) {
            return self.tiers.outcome_within(position, progress);
        }
        if let Some(whole) = self.whole(progress)? {
            return whole.outcome_within(position, progress);
        }
        // The database first, so that its build (if any) is not shown as
        // part of the search.
        self.tiers.prepare(progress)?;
        let mut slot = lock_within(&self.search, progress, "another search of this game")?;
        let searcher = slot.get_or_insert_with(|| {
            PlacingSearch::new(Self::entries(), rayon::current_num_threads())
        });
        progress.begin(
            "alpha-beta search of the placing phase over the moving-phase database",
            0,
        );
        let found = searcher.solve(
            self.game(),
            position,
            &|leaf| self.tiers.outcome_within(leaf, progress),
            progress,
        );
        progress.end();
        found.map_err(|stop| match stop {
            Stop::Cancelled => PlyError::Cancelled(format!(
                "the search of the placing phase of {} after {} positions",
                self.game().name(),
                searcher.nodes()
            )),
            Stop::Leaf(error) => error,
        })
    }
}

impl Session for PlacingSession {
    super::solver_session!();

    /// The tiers' bound and the search's table.
    fn memory_bound(&self) -> u64 {
        self.tiers.memory_bound() + PlacingSearch::bytes_for(Self::entries())
    }

    /// The moving phase from its shards, and placing positions by a
    /// search over them, whose table is counted.
    fn serving(&self) -> Serving {
        match self.tiers.serving() {
            Serving::Database { what, bytes, .. } => Serving::Database {
                what,
                bytes: bytes + PlacingSearch::bytes_for(Self::entries()),
                search: Some(
                    "placing positions by alpha-beta search over the moving phase (or from \
                     the whole game's database where it is stored)"
                        .into(),
                ),
            },
            other => other,
        }
    }

    fn long_without_database(&self) -> Option<String> {
        self.tiers.long_without_database()
    }

    /// For a placing position: whether it was answered by search or read
    /// from the whole game's database (the same for every query, so that
    /// a long-lived server and one command agree).
    fn notes(&self, report: &SolveReport) -> Vec<String> {
        let placing = self
            .game()
            .parse_position(&report.position)
            .is_ok_and(|p| self.placing(&p));
        match self.whole.get() {
            _ if !placing => Vec::new(),
            Some(Some(whole)) => vec![format!(
                "a placing position: read from the whole game's database ({})",
                whole.game().name()
            )],
            _ => vec![
                "a placing position: answered by alpha-beta search over the moving-phase \
                 database"
                    .into(),
            ],
        }
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.tiers.prepare(progress)
    }

    fn warm(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.tiers.warm(progress)
    }

    fn source(&self) -> Option<Source> {
        self.tiers.source()
    }

    fn stale(&self) -> bool {
        self.tiers.stale()
    }

    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(PathBuf, u64)>, PlyError> {
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
        self.tiers.tiered()
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

    fn rows(&self, progress: &dyn Progress) -> Result<Option<Box<dyn Rows + '_>>, PlyError> {
        self.tiers.rows(progress)
    }
}
