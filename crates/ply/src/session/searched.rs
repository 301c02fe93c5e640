//! Sessions for games solved tier by tier that also answer positions by a
//! search of their own ([`Searched`]): a position is read from the game's
//! tier shards where the database directory holds them all (or where the
//! game is small enough to build for the query), and searched otherwise,
//! on as many threads as rayon's pool has, with one searcher (its
//! transposition table within `--memory`'s search budget) kept across
//! queries. Connect Four on 7x6 is answered this way, by a search that
//! stands alone; so is Morris's placing phase, by a search over the stored
//! moving phase, or read from the whole game's database where the
//! directory holds it ([`Searched::storing_all`]).

use super::once::{Once, lock_within};
use super::tier::{OwnBuild, TierSession};
use super::{Cutting, Serving, Session, Solver};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, SolveReport};
use ply_core::limits::search_table_bytes;
use ply_core::team::Team;
use ply_core::{Outcome, Progress, SearchStop, Searched, Source};
use std::sync::Mutex;

use super::store::Store;

/// A tiered game whose positions are searched where no database answers.
pub struct SearchedSession<G: Searched> {
    tiers: TierSession<G>,
    /// The searcher, made on the first searched query.
    search: Mutex<Option<G::Searcher>>,
    /// The game's variant that stores every position
    /// ([`Searched::storing_all`]), if the database directory holds its
    /// every tier: looked for at the first query outside the tiers.
    whole: Once<Option<TierSession<G>>>,
}

impl<G: Searched + 'static> SearchedSession<G> {
    /// A session over `game`.
    pub fn new(game: G) -> Result<Self, PlyError> {
        Ok(Self {
            tiers: TierSession::new(game)?,
            search: Mutex::new(None),
            whole: Once::default(),
        })
    }

    /// A session over `game` whose whole database is built by `own`
    /// ([`TierSession::with_own_build`]).
    pub fn with_own_build(game: G, own: OwnBuild<G>) -> Result<Self, PlyError> {
        let session = Self::new(game)?;
        Ok(Self {
            tiers: session.tiers.with_own_build(own),
            ..session
        })
    }

    /// Whether `position` is answered by search: it lies outside the
    /// stored tiers, or the search stands alone, no database of the game
    /// is stored, and the game is too large to build for one query.
    fn searched(&self, position: &G::Position, progress: &dyn Progress) -> Result<bool, PlyError> {
        Ok(self.game().searched_only(position) || self.searches_alone(progress)?)
    }

    /// Whether every position is searched: the search needs no stored
    /// position and no database answers.
    fn searches_alone(&self, progress: &dyn Progress) -> Result<bool, PlyError> {
        Ok(!self.game().search_reads_stored()
            && !self.tiers.buildable()
            && !self.tiers.holds_stored(progress)?)
    }

    /// The session of the variant storing every position, if the database
    /// directory holds its every tier.
    fn whole(&self, progress: &dyn Progress) -> Result<Option<&TierSession<G>>, PlyError> {
        let whole =
            self.whole
                .get_or_build(progress, "the whole game's database being opened", || {
                    let Some(game) = self.game().storing_all() else {
                        return Ok(None);
                    };
                    let whole = TierSession::new(game)?;
                    Ok(whole.holds_stored(progress)?.then_some(whole))
                })?;
        Ok(whole.as_ref())
    }
}

impl<G: Searched + 'static> SearchedSession<G> {
    /// The outcomes of `positions`, each answered by search.
    fn search_each(
        &self,
        positions: &[G::Position],
        progress: &dyn Progress,
    ) -> Result<Vec<Outcome>, PlyError> {
        // The database first, so that its build (if any) is not shown as
        // part of the search.
        if self.game().search_reads_stored() {
            self.tiers.prepare(progress)?;
        }
        let mut slot = lock_within(&self.search, progress, "another search of this game")?;
        let game = self.game();
        let searcher = slot.get_or_insert_with(|| {
            game.searcher(search_table_bytes(), rayon::current_num_threads())
        });
        progress.begin(&format!("alpha-beta search of {}", game.name()), 0);
        let stored = |leaf: &G::Position| self.tiers.outcome_within(leaf, progress);
        let found = game.search_each(searcher, positions, &stored, progress);
        progress.end();
        found.map_err(|stop| match stop {
            SearchStop::Cancelled => PlyError::Cancelled(format!(
                "the search of {} after {} positions",
                game.name(),
                game.searched_nodes(searcher)
            )),
            SearchStop::Leaf(error) => error,
        })
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
        if let Some(whole) = self.whole(progress)? {
            return whole.outcome_within(position, progress);
        }
        Ok(self.search_each(std::slice::from_ref(position), progress)?[0])
    }

    /// Searched side by side where each of them is searched
    /// ([`Searched::search_each`]), else one by one.
    fn outcomes_within(
        &self,
        positions: &[G::Position],
        progress: &dyn Progress,
    ) -> Result<Vec<Outcome>, PlyError> {
        let mut searched = true;
        for position in positions {
            searched &= self.searched(position, progress)?;
        }
        if !searched || self.whole(progress)?.is_some() {
            return super::one_by_one(self, positions, progress);
        }
        self.search_each(positions, progress)
    }

    /// A searched position: its moves' searches decide it.
    fn reports_from_moves(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<bool, PlyError> {
        Ok(self.whole(progress)?.is_none() && self.searched(position, progress)?)
    }
}

impl<G: Searched + 'static> Session for SearchedSession<G> {
    super::solver_session!();

    /// The tiers' bound and the search's table.
    fn memory_bound(&self) -> u64 {
        self.tiers.memory_bound() + search_table_bytes()
    }

    /// From the stored tiers, searching over them where a position lies
    /// outside; or by the search alone within its table where it stands
    /// alone and no database is stored; else as the tiers are served.
    fn serving(&self) -> Serving {
        let name = self.game().name();
        match self.tiers.serving() {
            Serving::Database { what, bytes, .. } => Serving::Database {
                what,
                bytes: bytes + search_table_bytes(),
                search: Some(match self.game().storing_all() {
                    Some(whole) => format!(
                        "positions outside the stored tiers by alpha-beta search over them \
                         (or from the database of {} where it is stored)",
                        whole.name()
                    ),
                    None => format!("positions of {name} outside the stored tiers by search"),
                }),
            },
            Serving::Refused(_) if !self.game().search_reads_stored() => Serving::Solving {
                bytes: search_table_bytes(),
            },
            other => other,
        }
    }

    /// The searcher's table is kept across queries, and what a stopped
    /// search found stays in it; a stopped private build of the tiers is
    /// thrown away, so only where the tiers are read from the database
    /// directory (or the search needs none).
    fn resumes_stopped(&self) -> bool {
        self.tiers.source() == Some(Source::Database)
            || self.searches_alone(&ply_core::NoProgress).unwrap_or(false)
    }

    /// None where the search answers every position alone (Connect Four's
    /// 7x6): no database is missing then.
    fn long_without_database(&self) -> Option<String> {
        if self.searches_alone(&ply_core::NoProgress).unwrap_or(false) {
            return None;
        }
        self.tiers.long_without_database()
    }

    /// Whether the position was searched or read from a database: the
    /// same for every query, so that a long-lived server and one command
    /// agree.
    fn notes(&self, report: &SolveReport) -> Vec<String> {
        let game = self.game();
        let Ok(position) = game.parse_position(&report.position) else {
            return Vec::new();
        };
        if game.searched_only(&position) {
            return vec![match self.whole.get() {
                Some(Some(whole)) => format!(
                    "a position outside the stored tiers: read from the whole game's database ({})",
                    whole.game().name()
                ),
                _ => "a position outside the stored tiers: answered by alpha-beta search over \
                      them"
                    .into(),
            }];
        }
        if self.searches_alone(&ply_core::NoProgress).unwrap_or(false) {
            return vec![format!(
                "answered by alpha-beta search (no database of {name} is stored; \
                 `ply analyze {name} --save` builds one where it fits)",
                name = game.name()
            )];
        }
        Vec::new()
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        if self.searches_alone(progress)? {
            Ok(())
        } else {
            self.tiers.prepare(progress)
        }
    }

    fn warm(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.tiers.warm(progress)
    }

    /// The tiers' source once they are open; before that, the database
    /// where the whole game's has answered (a long-lived server's first
    /// queries may all be placing positions read from it, never opening
    /// the tiers), else solved.
    fn source(&self) -> Option<Source> {
        let whole = matches!(self.whole.get(), Some(Some(_))).then_some(Source::Database);
        self.tiers.source().or(whole).or(Some(Source::Solved))
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
        limits: (Option<u64>, Cutting),
        progress: &dyn Progress,
    ) -> Result<Option<AnalyzeReport>, PlyError> {
        self.tiers
            .analyze_shared(team, end_tiers, save, limits, progress)
    }

    fn rows(
        &self,
        progress: &dyn Progress,
    ) -> Result<Option<Box<dyn super::rows::Rows + '_>>, PlyError> {
        self.tiers.rows(progress)
    }
}
