//! The built-in games by name, each with the solver that fits it best.

use crate::error::PlyError;
use crate::session::Session;
use crate::session::table::TableSession;
use ply_games::{Euler, TicTacToe};

/// Opens a game from the text after `:` in its name (`None` for the default).
pub type Opener = fn(Option<&str>) -> Result<Box<dyn Session>, PlyError>;

/// A built-in game: its name, what it is, and how to open it.
pub struct Entry {
    /// The name before any `:PARAMS`.
    pub name: &'static str,
    /// One line on what the game is.
    pub summary: &'static str,
    /// The parameters it takes, with the default.
    pub variants: &'static str,
    /// Opens the game with the text after `:` (or `None` for the default).
    pub open: Opener,
}

/// Every built-in game.
pub const GAMES: &[Entry] = &[
    Entry {
        name: "euler",
        summary: "Game of Euler (UVA 10536): cover squares with pins; covering the last one loses",
        variants: "euler (4x4, pins up to 3), euler:RxC, euler:RxCxL (longest pin L); up to 30 squares (a 2 GiB table)",
        open: |params| {
            let game = match params {
                Some(p) => Euler::from_params(p)?,
                None => Euler::default(),
            };
            Ok(Box::new(TableSession::new(game)?))
        },
    },
    Entry {
        name: "tictactoe",
        summary: "m,n,k tic-tac-toe (UVA 10111): k in a row wins, a full board ties",
        variants: "tictactoe (4x4, four in a row), tictactoe:RxCxK (e.g. 3x3x3, 5x5x4); at most 36 squares; boards too large to tabulate are searched one position at a time",
        open: |params| {
            let game = match params {
                Some(p) => TicTacToe::from_params(p)?,
                None => TicTacToe::default(),
            };
            Ok(crate::session::tictactoe::open(game))
        },
    },
];

/// Opens a game named `NAME` or `NAME:PARAMS`.
pub fn open(spec: &str) -> Result<Box<dyn Session>, PlyError> {
    let (name, params) = match spec.split_once(':') {
        Some((name, params)) => (name, Some(params)),
        None => (spec, None),
    };
    let entry = GAMES.iter().find(|e| e.name == name).ok_or_else(|| {
        let known: Vec<&str> = GAMES.iter().map(|e| e.name).collect();
        PlyError::argument(format!(
            "unknown game '{name}'; known games: {}",
            known.join(", ")
        ))
    })?;
    (entry.open)(params).map_err(|e| PlyError::argument(format!("game '{spec}': {e}")))
}
