//! One session for every game solved whole into a table, whatever the
//! table: a [`Method`] says how to build the game's solved form and how to
//! report on it; [`SolvedSession`] answers every query through the
//! [`Solution`] interface, from a database on disk when the store holds one
//! for the exact game, else from the table it builds once, on first use.

use super::Solver;
use super::store::{self, Store};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::db::{self, Database, Expect, Meta};
use ply_core::{Game, Indexed, Outcome, Progress, Solution, Source};
use std::path::PathBuf;
use std::sync::OnceLock;

/// How a game is solved whole, and what `ply analyze` says about it.
pub trait Method: Send + Sync {
    /// The game.
    type Game: Indexed;
    /// Its solved form in memory.
    type Built: Solution + 'static;

    /// The game.
    fn game(&self) -> &Self::Game;

    /// Solves the game whole.
    fn build(&self, progress: &dyn Progress) -> Result<Self::Built, String>;

    /// The key of `position` in the solved form (its index, or its class's
    /// canonical index).
    fn key(&self, position: &<Self::Game as ply_core::Game>::Position) -> u64;

    /// Why `position`, not in the solved form, has no answer.
    fn missing(&self, position: &<Self::Game as ply_core::Game>::Position) -> String;

    /// The report of `ply analyze`, from the solved form.
    fn analyze(
        &self,
        built: &Self::Built,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError>;
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

/// Why a session has no solved form.
#[derive(Clone)]
enum Failure {
    /// The store's database is unreadable or corrupt.
    Database(String),
    /// The game could not be solved.
    Solve(String),
}

impl From<Failure> for PlyError {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Database(m) => PlyError::Database(m),
            Failure::Solve(m) => PlyError::argument(m),
        }
    }
}

/// Answers queries about a game from its strong solution.
pub struct SolvedSession<M: Method> {
    method: M,
    held: OnceLock<Result<Held<M::Built>, Failure>>,
    fresh: OnceLock<Result<M::Built, String>>,
}

impl<M: Method> SolvedSession<M> {
    /// A session over the game of `method`; nothing is read or built until asked.
    pub fn with(method: M) -> Self {
        Self {
            method,
            held: OnceLock::new(),
            fresh: OnceLock::new(),
        }
    }

    /// What a database of this game must say about itself.
    fn expect(&self) -> Expect {
        let game = self.method.game();
        Expect {
            game: game.name(),
            rules_version: game.rules_version(),
        }
    }

    /// The solution answering queries: the store's database if it has one
    /// for this game (and may be read), else the table built now or before.
    pub fn solution(&self, progress: &dyn Progress) -> Result<&dyn Solution, PlyError> {
        let held = self.held.get_or_init(|| {
            if let Some(store) = store::current().filter(|s| s.read) {
                match store.open(&self.expect()) {
                    Ok(Some(db)) => return Ok(Held::Database(db)),
                    Ok(None) => {}
                    Err(e) => return Err(Failure::Database(e.to_string())),
                }
            }
            self.method
                .build(progress)
                .map(Held::Solved)
                .map_err(Failure::Solve)
        });
        match held {
            Ok(held) => Ok(held.solution()),
            Err(failure) => Err(failure.clone().into()),
        }
    }

    /// The table this process built: the one answering queries if it is
    /// one, else built now (a strong solve never reads the database).
    pub fn built(&self, progress: &dyn Progress) -> Result<&M::Built, PlyError> {
        if let Some(Ok(Held::Solved(built))) = self.held.get() {
            return Ok(built);
        }
        self.fresh
            .get_or_init(|| self.method.build(progress))
            .as_ref()
            .map_err(|e| PlyError::argument(e.clone()))
    }

    /// Writes the built table as a database into `store`, returning the
    /// file and its size in bytes.
    pub fn save(&self, store: &Store, progress: &dyn Progress) -> Result<(PathBuf, u64), PlyError> {
        let built = self.built(progress)?;
        let game = self.method.game();
        store.create()?;
        let path = store.path(&game.name());
        let meta = Meta {
            game: game.name(),
            rules_version: game.rules_version(),
            index_len: built.index_len(),
            range: 0..built.index_len(),
        };
        let size = db::save(&path, &meta, built, progress)?;
        Ok((path, size))
    }
}

impl<M: Method> Solver for SolvedSession<M> {
    type Game = M::Game;

    fn game(&self) -> &M::Game {
        self.method.game()
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.solution(progress).map(|_| ())
    }

    fn outcome(
        &self,
        position: &<M::Game as ply_core::Game>::Position,
    ) -> Result<Outcome, PlyError> {
        self.solution(&ply_core::NoProgress)?
            .outcome(self.method.key(position))?
            .ok_or_else(|| PlyError::argument(self.method.missing(position)))
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        self.method.analyze(self.built(progress)?, progress)
    }

    fn source(&self) -> Option<Source> {
        match self.held.get() {
            Some(Ok(held)) => Some(held.solution().source()),
            _ => None,
        }
    }

    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(PathBuf, u64)>, PlyError> {
        SolvedSession::save(self, store, progress).map(Some)
    }
}
