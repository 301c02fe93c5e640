//! The games the server has opened, each opened once and shared between
//! requests, within a memory budget: each game weighs what answering it
//! will take ([`Session::serving`]): a game answered from a stored database
//! only what it adds to the shared block cache (a search's table), a game
//! solved the tables it builds ([`Session::memory_bound`]); the least
//! recently used games are closed to make room ([`moka`], weighed in KiB,
//! LRU). The server never refuses a game for want of room, only a game
//! that alone is larger than its limits, or one it cannot answer at all.

use super::limits::Limits;
use crate::error::PlyError;
use crate::registry;
use crate::session::{Serving, Session};
use moka::policy::EvictionPolicy;
use moka::sync::Cache;
use ply_core::limits::human_bytes;
use std::sync::Arc;

/// How many differently spelled game names the server remembers.
const MAX_SPELLINGS: u64 = 256;
/// How many distinct games the server keeps open at most, however small:
/// each game weighs at least this share of the budget.
const MAX_GAMES: u64 = 64;

/// Open games by the name they were asked for, shared between requests.
pub struct Sessions {
    /// The most memory one game's tables may take.
    max_table_bytes: u64,
    /// The most memory all open games' tables may take together.
    budget: u64,
    /// The longest start position served, in characters.
    max_row: usize,
    /// By the name as asked (`euler`, `euler:4x4`, ...): the full name.
    by_spelling: Cache<String, String>,
    /// By the game's full name, so two spellings of one game share tables.
    by_name: Cache<String, Kept>,
}

/// An open game and the memory its tables may take.
#[derive(Clone)]
struct Kept {
    session: Arc<dyn Session>,
    bytes: u64,
}

/// Why a game could not be had.
#[derive(Debug)]
pub enum OpenError {
    /// No such game, or bad parameters.
    Unknown(PlyError),
    /// The game is larger than the server's limits allow.
    TooLarge(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unknown(err) => err.fmt(f),
            Self::TooLarge(message) => f.write_str(message),
        }
    }
}

impl Sessions {
    /// No games open yet; games within `limits`.
    pub fn new(limits: &Limits) -> Self {
        let budget = limits.table_bytes();
        // Weights are in KiB (moka weighs in u32); every game weighs at
        // least 1/MAX_GAMES of the budget, so at most MAX_GAMES stay open.
        let budget_kib = budget / 1024;
        let least_kib = (budget_kib / MAX_GAMES).max(1);
        let by_name = Cache::builder()
            .max_capacity(budget_kib)
            .weigher(move |_: &String, kept: &Kept| {
                u32::try_from(kept.bytes.div_ceil(1024).max(least_kib)).unwrap_or(u32::MAX)
            })
            .eviction_policy(EvictionPolicy::lru())
            .build();
        Self {
            max_table_bytes: limits.max_table_bytes(),
            budget,
            max_row: limits.max_row,
            by_spelling: Cache::builder()
                .max_capacity(MAX_SPELLINGS)
                .eviction_policy(EvictionPolicy::lru())
                .build(),
            by_name,
        }
    }

    /// The session for `spec` (`NAME` or `NAME:PARAMS`), opened on first use.
    /// Opening can take a while for some games: call this off the async threads.
    pub fn get(&self, spec: &str) -> Result<Arc<dyn Session>, OpenError> {
        if let Some(name) = self.by_spelling.get(spec)
            && let Some(kept) = self.by_name.get(&name)
        {
            if !kept.session.stale() {
                return Ok(kept.session);
            }
            // Its database changed on disk: open the game afresh, to read
            // what is there now. Requests still using the old session
            // finish with it.
            self.by_name.invalidate(&name);
        }
        let opened: Arc<dyn Session> = Arc::from(registry::open(spec).map_err(OpenError::Unknown)?);
        let name = opened.name();
        let bytes = self.check(spec, &*opened)?;
        // Another request may have opened the same game meanwhile: keep its
        // session unless that one is stale.
        let kept = self
            .by_name
            .entry(name.clone())
            .or_insert_with_if(
                || Kept {
                    session: opened,
                    bytes,
                },
                |kept| kept.session.stale(),
            )
            .into_value();
        // Close the least recently used games now, not at moka's next
        // housekeeping, so the budget holds at every moment a game is added.
        self.by_name.run_pending_tasks();
        self.by_spelling.insert(spec.to_string(), name);
        Ok(kept.session)
    }

    /// Refuses a game larger than the limits or that cannot be answered;
    /// else the memory it weighs.
    fn check(&self, spec: &str, session: &dyn Session) -> Result<u64, OpenError> {
        let bytes = match session.serving() {
            Serving::Refused(why) => return Err(OpenError::TooLarge(why)),
            Serving::Database { bytes, .. } if bytes > self.budget => {
                return Err(OpenError::TooLarge(format!(
                    "{spec} is answered from its database with a search needing {}; this \
                     server keeps at most {} for open games (raise --session-mib)",
                    human_bytes(bytes),
                    human_bytes(self.budget)
                )));
            }
            Serving::Database { bytes, .. } => bytes,
            Serving::Solving { bytes } => {
                let limit = self.max_table_bytes.min(self.budget);
                if bytes > limit {
                    let name = session.name();
                    return Err(OpenError::TooLarge(format!(
                        "{spec} has no database in this server's database directory and needs \
                         up to {} of tables to solve; this server builds at most {}; \
                         `ply analyze {name} --save` stores its database, which the server \
                         then answers from",
                        human_bytes(bytes),
                        human_bytes(limit)
                    )));
                }
                bytes
            }
        };
        let row = session.start().len();
        if row > self.max_row {
            return Err(OpenError::TooLarge(format!(
                "{spec} starts from a row of {row} squares; this server answers rows of at most {}; \
                 run `ply solve {spec}` on the command line",
                self.max_row
            )));
        }
        Ok(bytes)
    }

    /// How this server answers `session`'s game, for `/api/games` and the
    /// start of `ply serve`: `("database" | "solving" | "refused", what)`.
    pub fn answering(&self, session: &dyn Session) -> (&'static str, String) {
        let spec = session.name();
        match (session.serving(), self.check(&spec, session)) {
            (_, Err(why)) => ("refused", why.to_string()),
            (Serving::Database { what, search, .. }, Ok(_)) => (
                "database",
                match search {
                    Some(search) => format!(
                        "from {what}; {search}, within --solve-seconds and the memory limit"
                    ),
                    None => format!("from {what}"),
                },
            ),
            (_, Ok(0)) => ("solving", "by solving within this server's limits".into()),
            (_, Ok(bytes)) => (
                "solving",
                format!(
                    "by solving within this server's limits (tables of up to {})",
                    human_bytes(bytes)
                ),
            ),
        }
    }

    /// How many games are open, and the memory their tables may take.
    pub fn usage(&self) -> (usize, u64) {
        self.by_name.run_pending_tasks();
        self.by_name
            .iter()
            .fold((0, 0), |(games, bytes), (_, kept)| {
                (games + 1, bytes + kept.bytes)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(session_mib: u64) -> Limits {
        Limits {
            session_mib,
            ..Limits::default()
        }
    }

    #[test]
    fn two_spellings_of_one_game_share_a_session() {
        let sessions = Sessions::new(&limits(64));
        let a = sessions.get("euler").unwrap();
        let b = sessions.get("euler:4x4").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = sessions.get("euler:3x3").unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(matches!(sessions.get("chess"), Err(OpenError::Unknown(_))));
    }

    #[test]
    fn many_games_close_the_least_recently_used() {
        let sessions = Sessions::new(&limits(1024));
        let first = sessions.get("euler:2x2").unwrap();
        let mut opened = 0;
        // Small games (at most 16 squares), each far under the 16 MiB a game
        // weighs at least; more of them than MAX_GAMES are valid.
        let specs = (1..=16u32).flat_map(|r| {
            (1..=16 / r).flat_map(move |c| (1..=10).map(move |l| format!("euler:{r}x{c}x{l}")))
        });
        for spec in specs {
            if sessions.get(&spec).is_ok() {
                opened += 1;
            }
            // In steady use: never closed.
            assert!(Arc::ptr_eq(&first, &sessions.get("euler:2x2").unwrap()));
        }
        assert!(opened > MAX_GAMES, "{opened}");
        assert_eq!(sessions.usage().0 as u64, MAX_GAMES);
    }

    #[test]
    fn memory_is_kept_within_the_budget() {
        // euler:4x5 may take 2 MiB; a 5 MiB budget keeps two such games.
        let sessions = Sessions::new(&limits(5));
        for spec in ["euler:4x5", "euler:5x4", "euler:2x10", "euler:10x2"] {
            sessions.get(spec).unwrap();
            assert!(sessions.usage().1 <= 5 << 20, "{:?}", sessions.usage());
        }
        assert_eq!(sessions.usage().0, 2);
        // A game larger than the whole budget is refused.
        assert!(matches!(
            sessions.get("euler:4x6"),
            Err(OpenError::TooLarge(_))
        ));
    }
}
