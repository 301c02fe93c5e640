//! The games the server has opened, each opened once and shared between
//! requests, within a memory budget: each game counts the most memory its
//! tables may take ([`Session::memory_bound`]), and the least recently used
//! games are closed to make room. The server never refuses a game for want
//! of room, only a game that alone is larger than its limits.

use super::limits::Limits;
use crate::error::PlyError;
use crate::registry;
use crate::session::Session;
use ply_core::limits::human_bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many differently spelled game names the server remembers.
const MAX_SPELLINGS: usize = 256;
/// How many distinct games the server keeps open at most, however small.
const MAX_GAMES: usize = 64;

/// Open games by the name they were asked for, shared between requests.
pub struct Sessions {
    /// The most memory one game's tables may take.
    max_table_bytes: u64,
    /// The most memory all open games' tables may take together.
    budget: u64,
    /// The longest start position served, in characters.
    max_row: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    /// By the name as asked (`euler`, `euler:4x4`, ...): the full name.
    by_spelling: HashMap<String, String>,
    /// By the game's full name, so two spellings of one game share tables.
    by_name: HashMap<String, Kept>,
    /// Ticks at each use, to find the least recently used game.
    clock: u64,
    /// The memory bounds of every kept game, summed.
    bytes: u64,
}

struct Kept {
    session: Arc<dyn Session>,
    bytes: u64,
    used: u64,
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
        Self {
            max_table_bytes: limits.max_table_bytes(),
            budget: limits.session_bytes(),
            max_row: limits.max_row,
            open: Mutex::new(Open::default()),
        }
    }

    /// The session for `spec` (`NAME` or `NAME:PARAMS`), opened on first use.
    /// Opening can take a while for some games: call this off the async threads.
    pub fn get(&self, spec: &str) -> Result<Arc<dyn Session>, OpenError> {
        {
            let mut open = self.lock();
            if let Some(name) = open.by_spelling.get(spec).cloned()
                && let Some(session) = open.touch(&name)
            {
                if !session.stale() {
                    return Ok(session);
                }
                // Its database changed on disk: open the game afresh, to
                // read what is there now. Requests still using the old
                // session finish with it.
                open.close(&name);
            }
        }
        let opened: Arc<dyn Session> = Arc::from(registry::open(spec).map_err(OpenError::Unknown)?);
        let name = opened.name();
        let bytes = opened.memory_bound();
        self.check(spec, &*opened, bytes)?;
        let mut open = self.lock();
        let session = match open.touch(&name) {
            Some(session) => session,
            None => {
                open.make_room(bytes, self.budget);
                open.bytes += bytes;
                let used = open.clock;
                open.by_name.insert(
                    name.clone(),
                    Kept {
                        session: opened.clone(),
                        bytes,
                        used,
                    },
                );
                opened
            }
        };
        if open.by_spelling.len() < MAX_SPELLINGS {
            open.by_spelling.insert(spec.to_string(), name);
        }
        Ok(session)
    }

    /// Refuses a game larger than the limits.
    fn check(&self, spec: &str, session: &dyn Session, bytes: u64) -> Result<(), OpenError> {
        let limit = self.max_table_bytes.min(self.budget);
        if bytes > limit {
            return Err(OpenError::TooLarge(format!(
                "{spec} needs up to {} of tables; this server builds at most {}; \
                 run `ply solve {spec}` on the command line",
                human_bytes(bytes),
                human_bytes(limit)
            )));
        }
        let row = session.start().len();
        if row > self.max_row {
            return Err(OpenError::TooLarge(format!(
                "{spec} starts from a row of {row} squares; this server answers rows of at most {}; \
                 run `ply solve {spec}` on the command line",
                self.max_row
            )));
        }
        Ok(())
    }

    /// How many games are open, and the memory their tables may take.
    pub fn usage(&self) -> (usize, u64) {
        let open = self.lock();
        (open.by_name.len(), open.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        // The maps stay consistent even if a holder panicked: take them as they are.
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Open {
    /// The game named `name`, marked as used now.
    fn touch(&mut self, name: &str) -> Option<Arc<dyn Session>> {
        self.clock += 1;
        let clock = self.clock;
        let kept = self.by_name.get_mut(name)?;
        kept.used = clock;
        Some(kept.session.clone())
    }

    /// Closes the least recently used games until `bytes` more fit in
    /// `budget` and one more game fits under [`MAX_GAMES`]. Requests still
    /// using a closed game finish with it; then its memory is freed.
    fn make_room(&mut self, bytes: u64, budget: u64) {
        while !self.by_name.is_empty()
            && (self.bytes + bytes > budget || self.by_name.len() >= MAX_GAMES)
        {
            let Some(oldest) = self
                .by_name
                .iter()
                .min_by_key(|(_, kept)| kept.used)
                .map(|(name, _)| name.clone())
            else {
                break;
            };
            self.close(&oldest);
        }
    }

    /// Closes the game named `name`, forgetting its spellings.
    fn close(&mut self, name: &str) {
        if let Some(kept) = self.by_name.remove(name) {
            self.bytes -= kept.bytes;
        }
        self.by_spelling.retain(|_, full| full != name);
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
        for spec in (1..=5).flat_map(|r| {
            (1..=5).flat_map(move |c| (2..=5).map(move |l| format!("euler:{r}x{c}x{l}")))
        }) {
            if sessions.get(&spec).is_ok() {
                opened += 1;
            }
            // In steady use: never closed.
            assert!(Arc::ptr_eq(&first, &sessions.get("euler:2x2").unwrap()));
        }
        assert!(opened > MAX_GAMES, "{opened}");
        assert_eq!(sessions.usage().0, MAX_GAMES);
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
