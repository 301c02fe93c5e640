//! One session for every game solved whole into a table, whatever the
//! table: a [`Method`] says how to build the game's solved form and how to
//! report on it; [`SolvedSession`] answers every query through the
//! [`Solution`] interface, from a database on disk when the store holds one
//! for the exact game, else from the table it builds once, on first use.

use super::once::Once;
use super::store::{self, Store};
use super::{Cutting, Serving, Session, Solver};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::db::{self, Database, Expect, Meta};
use ply_core::team::{Exchanged, Team};
use ply_core::{Census, Game, Indexed, Outcome, Progress, Solution, SolveError, Source};
use serde_json::json;
use std::path::{Path, PathBuf};

/// How a game is solved whole, and what `ply analyze` says about it.
pub trait Method: Send + Sync {
    /// The game.
    type Game: Indexed;
    /// Its solved form in memory.
    type Built: Solution + 'static;

    /// The game.
    fn game(&self) -> &Self::Game;

    /// Solves the game whole.
    fn build(&self, progress: &dyn Progress) -> Result<Self::Built, PlyError>;

    /// The most memory the solved form may take once built (see
    /// [`crate::session::Session::memory_bound`]).
    fn memory_bound(&self) -> u64 {
        0
    }

    /// The key of `position` in the solved form: by default its index;
    /// a form with one cell per symmetry class keys it by its class's
    /// canonical index.
    fn key(&self, position: &<Self::Game as ply_core::Game>::Position) -> u64 {
        self.game().rank(position)
    }

    /// Whether the build walks the game's tiers ([`ply_core::NumberedTiers`]), a
    /// tier's positions cut between rayon's threads: then `ply analyze
    /// --workers N` runs it on N threads (see
    /// [`crate::session::Session::tiered`]). False by default.
    fn walks_tiers(&self) -> bool {
        false
    }

    /// Solves the game whole as process `team.process` of a team whose
    /// processes talk over TCP at the team's hosts (`ply analyze --save
    /// --processes P --process I`, with `--hosts` or on loopback from
    /// `--port`): every process gets the whole solved form, and what it
    /// exchanged. Only a build tier by tier can be shared; by default,
    /// refused.
    fn build_shared(
        &self,
        team: &Team,
        progress: &dyn Progress,
    ) -> Result<(Self::Built, Exchanged), PlyError> {
        let _ = (team, progress);
        Err(super::not_shared(&self.game().name()))
    }

    /// Why `position`, not in the solved form, has no answer.
    fn missing(&self, position: &<Self::Game as ply_core::Game>::Position) -> String;

    /// The start of a report of `ply analyze`: `census`, its keys being
    /// indices, with its examples as positions' text.
    fn census_report(&self, census: Census<u64>) -> AnalyzeReport {
        let game = self.game();
        let census = census.map_examples(|index| {
            game.unrank(index)
                .map_or_else(|| format!("#{index}"), |p| game.format_position(&p))
        });
        AnalyzeReport::from_census(game.name(), census)
    }

    /// The report of `ply analyze`, from the solved form.
    fn analyze(
        &self,
        built: &Self::Built,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError>;
}

/// A failed build of `game`'s solved form, for the command line: `doing`
/// says what was under way when it was cancelled (its other errors speak
/// for themselves).
pub fn build_error(doing: &str, game: &impl Game, error: SolveError) -> PlyError {
    let what = if error.is_cancelled() { doing } else { "" };
    PlyError::solve(format!("{what}{}", game.name()), error)
}

/// Where a session's answers come from once it has them.
enum Held<B> {
    /// A table this process built.
    Solved(B),
    /// A database on disk.
    Database(Database),
}

impl<B: Solution> Held<B> {
    fn solution(&self) -> &dyn Solution {
        match self {
            Held::Solved(built) => built,
            Held::Database(db) => db,
        }
    }
}

/// A table larger than this takes long to build for one answer.
pub const LONG_TABLE_BYTES: u64 = 256 << 20;

/// Answers queries about a game from its strong solution.
pub struct SolvedSession<M: Method> {
    method: M,
    held: Once<Held<M::Built>>,
    fresh: Once<M::Built>,
}

impl<M: Method> SolvedSession<M> {
    /// A session over the game of `method`; nothing is read or built until asked.
    pub fn with(method: M) -> Self {
        Self {
            method,
            held: Once::default(),
            fresh: Once::default(),
        }
    }

    /// The solution answering queries: the store's database if it has one
    /// for this game (and may be read), else the table built now or before.
    pub fn solution(&self, progress: &dyn Progress) -> Result<&dyn Solution, PlyError> {
        let held = self
            .held
            .get_or_build(progress, "the table being built", || {
                if let Some(store) = store::current().filter(|s| s.read)
                    && let Some(db) = store.open(&Expect::of(self.method.game()))?
                {
                    return Ok(Held::Database(db));
                }
                self.method.build(progress).map(Held::Solved)
            })?;
        Ok(held.solution())
    }

    /// The table this process built: the one answering queries if it is
    /// one, else built now (a strong solve never reads the database).
    pub fn built(&self, progress: &dyn Progress) -> Result<&M::Built, PlyError> {
        if let Some(Held::Solved(built)) = self.held.get() {
            return Ok(built);
        }
        self.fresh
            .get_or_build(progress, "the table being built", || {
                self.method.build(progress)
            })
    }

    /// Writes the built table as a database into `store`, returning the
    /// file and its size in bytes.
    pub fn save(&self, store: &Store, progress: &dyn Progress) -> Result<(PathBuf, u64), PlyError> {
        self.save_as(store, progress, |path, meta, built| {
            Ok(db::save(path, meta, built, progress)?)
        })
    }

    /// [`SolvedSession::save`] with the built table written by `write`, to
    /// the file at the path it is given under the header it is given;
    /// `write` returns the file's size in bytes.
    pub fn save_as(
        &self,
        store: &Store,
        progress: &dyn Progress,
        write: impl FnOnce(&Path, &Meta, &M::Built) -> Result<u64, PlyError>,
    ) -> Result<(PathBuf, u64), PlyError> {
        let built = self.built(progress)?;
        let game = self.method.game();
        store.create()?;
        let path = store.path(&game.name());
        let meta = Meta::whole(game, built.index_len());
        let size = write(&path, &meta, built)?;
        Ok((path, size))
    }
}

impl<M: Method> Solver for SolvedSession<M> {
    type Game = M::Game;

    fn game(&self) -> &M::Game {
        self.method.game()
    }

    fn outcome_within(
        &self,
        position: &<M::Game as ply_core::Game>::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        self.solution(progress)?
            .outcome(self.method.key(position))?
            .ok_or_else(|| PlyError::argument(self.method.missing(position)))
    }
}

impl<M: Method> Session for SolvedSession<M> {
    super::solver_session!();

    fn warm(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        Ok(self.solution(progress)?.warm()?)
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.solution(progress).map(|_| ())
    }

    fn memory_bound(&self) -> u64 {
        self.method.memory_bound()
    }

    /// A table past [`LONG_TABLE_BYTES`] to build when the store holds no
    /// database of the game.
    fn long_without_database(&self) -> Option<String> {
        let bytes = self.memory_bound();
        let stored = matches!(self.serving(), Serving::Database { .. });
        (!stored && self.held.get().is_none() && bytes > LONG_TABLE_BYTES).then(|| {
            format!(
                "{} has no database in the database directory, and one answer would first \
                 build its whole table ({})",
                self.method.game().name(),
                ply_core::limits::human_bytes(bytes)
            )
        })
    }

    /// From the store's database of the game where it has one, else by
    /// building the table.
    fn serving(&self) -> Serving {
        let name = self.method.game().name();
        if let Some(store) = store::current().filter(|s| s.read)
            && let Some(file) = store.files(&name).first()
        {
            return Serving::Database {
                what: file.display().to_string(),
                bytes: 0,
                search: None,
            };
        }
        Serving::Solving {
            bytes: self.memory_bound(),
        }
    }

    fn tiered(&self) -> bool {
        self.method.walks_tiers()
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        self.method.analyze(self.built(progress)?, progress)
    }

    /// Builds the table with the team (see [`Method::build_shared`]);
    /// process 0 then reports on it and saves it, as `ply analyze --save`
    /// alone would.
    fn analyze_shared(
        &self,
        team: &Team,
        end_tiers: Option<u32>,
        save: &Store,
        (memory, _): (Option<u64>, Cutting),
        progress: &dyn Progress,
    ) -> Result<Option<AnalyzeReport>, PlyError> {
        if end_tiers.is_some() {
            return Err(PlyError::argument(format!(
                "--end-tiers: {} is not solved by the tier solver, so it has no end tiers",
                self.name()
            )));
        }
        save.create()?;
        let mut exchanged = Exchanged::default();
        self.fresh
            .get_or_build(progress, "the table being built", || {
                let (built, done) = self.method.build_shared(team, progress)?;
                exchanged = done;
                Ok(built)
            })?;
        if team.process != 0 {
            return Ok(None);
        }
        let mut report = super::analyze_then_save(self, Some(save), memory, progress)?;
        for (key, value) in [
            ("processes", json!(team.processes)),
            ("bytes_exchanged", json!(exchanged.bytes_all)),
            ("rounds", json!(exchanged.rounds)),
        ] {
            report.extra.insert(key.into(), value);
        }
        report.note_traffic(&exchanged.traffic);
        Ok(Some(report))
    }

    fn source(&self) -> Option<Source> {
        self.held.get().map(|held| held.solution().source())
    }

    fn stale(&self) -> bool {
        matches!(self.held.get(), Some(Held::Database(db)) if !db.is_current())
    }

    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(PathBuf, u64)>, PlyError> {
        SolvedSession::save(self, store, progress).map(Some)
    }

    fn rows(
        &self,
        progress: &dyn Progress,
    ) -> Result<Option<Box<dyn super::rows::Rows + '_>>, PlyError> {
        Ok(Some(Box::new(SolvedProbe {
            method: &self.method,
            solution: self.solution(progress)?,
        })))
    }
}

/// A [`SolvedSession`]'s solution seen through its method, as
/// [`super::rows::Rows`]: every outcome comes from the solution.
struct SolvedProbe<'a, M> {
    method: &'a M,
    solution: &'a dyn Solution,
}

impl<M: Method> super::rows::Probe for SolvedProbe<'_, M> {
    type Game = M::Game;

    fn game(&self) -> &M::Game {
        self.method.game()
    }

    fn solution(&self) -> &dyn Solution {
        self.solution
    }

    fn key(&self, position: &<M::Game as ply_core::Game>::Position) -> u64 {
        self.method.key(position)
    }

    fn known(
        &self,
        position: &<M::Game as ply_core::Game>::Position,
    ) -> Result<Option<Outcome>, PlyError> {
        Ok(self.solution.outcome(self.method.key(position))?)
    }

    fn missing(&self, position: &<M::Game as ply_core::Game>::Position) -> String {
        self.method.missing(position)
    }
}
