//! The games the server has opened, each opened once and kept with its
//! tables for as long as the server runs.

use crate::error::PlyError;
use crate::registry;
use crate::session::Session;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many differently spelled game names the server remembers.
const MAX_SPELLINGS: usize = 256;
/// How many distinct games (each with its own tables) the server keeps open.
const MAX_GAMES: usize = 16;

/// Open games by the name they were asked for, shared between requests.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    /// By the name as asked (`euler`, `euler:4x4`, ...).
    by_spelling: HashMap<String, Arc<dyn Session>>,
    /// By the game's full name, so two spellings of one game share tables.
    by_name: HashMap<String, Arc<dyn Session>>,
}

/// Why a game could not be had.
#[derive(Debug)]
pub enum OpenError {
    /// No such game, or bad parameters.
    Unknown(PlyError),
    /// The server already keeps as many games as it may.
    Full,
}

impl Sessions {
    /// No games open yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The session for `spec` (`NAME` or `NAME:PARAMS`), opened on first use.
    /// Opening can take a while for some games: call this off the async threads.
    pub fn get(&self, spec: &str) -> Result<Arc<dyn Session>, OpenError> {
        if let Some(session) = self.lock().by_spelling.get(spec) {
            return Ok(session.clone());
        }
        let opened: Arc<dyn Session> = Arc::from(registry::open(spec).map_err(OpenError::Unknown)?);
        let mut open = self.lock();
        let name = opened.name();
        let session = match open.by_name.get(&name) {
            Some(session) => session.clone(),
            None if open.by_name.len() >= MAX_GAMES => return Err(OpenError::Full),
            None => {
                open.by_name.insert(name, opened.clone());
                opened
            }
        };
        if open.by_spelling.len() < MAX_SPELLINGS {
            open.by_spelling.insert(spec.to_string(), session.clone());
        }
        Ok(session)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        // The maps stay consistent even if a holder panicked: take them as they are.
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spellings_of_one_game_share_a_session() {
        let sessions = Sessions::new();
        let a = sessions.get("euler").unwrap();
        let b = sessions.get("euler:4x4").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = sessions.get("euler:3x3").unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(matches!(sessions.get("chess"), Err(OpenError::Unknown(_))));
    }

    #[test]
    fn the_number_of_open_games_is_bounded() {
        let sessions = Sessions::new();
        let mut full = false;
        for cols in 1..=(MAX_GAMES + 2) {
            match sessions.get(&format!("euler:1x{cols}")) {
                Ok(_) => {}
                Err(OpenError::Full) => full = true,
                Err(OpenError::Unknown(e)) => panic!("{e}"),
            }
        }
        assert!(full);
    }
}
