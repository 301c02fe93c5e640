//! The built-in games by name. Each line opens the game through the engine
//! entry point for its family of capabilities; the engine picks the solver
//! (see [`crate::session::choice`]).

use crate::cli::dist::{Distributed, Whole};
use crate::error::PlyError;
use crate::session::Session;
use crate::session::choice::{
    open_acyclic, open_loopy, open_searched, open_searched_own, open_sum, open_tiered,
    open_wins_at_once,
};
use ply_core::Variant;
use ply_games::{
    ConnectFour, Dobutsu, Euler, LGame, Morris, Quixo, Teeko, TicTacToe, Treblecross, Yehr,
};
use std::sync::OnceLock;

/// Opens a game from the text after `:` in its name (`None` for the default).
pub type Opener = fn(Option<&str>) -> Result<Box<dyn Session>, PlyError>;

/// Opens a game for distributed retrograde analysis, from the text after
/// `:` in its name.
pub type DistOpener = fn(Option<&str>) -> Result<Box<dyn Distributed>, PlyError>;

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
    /// Opens it for `ply analyze --workers` (games with a dense index that
    /// retrograde analysis solves), if it can be.
    pub distributed: Option<DistOpener>,
}

/// Every built-in game (see [`entries`] for these and any added). Each
/// reads the text after `NAME:` through its [`Variant`] impl.
pub const GAMES: &[Entry] = &[
    Entry {
        name: "euler",
        summary: "Game of Euler (UVA 10536): cover squares with pins; covering the last one loses",
        variants: "euler (4x4, pins up to 3), euler:RxC, euler:RxCxL (longest pin L); up to 30 squares (a 2 GiB table)",
        open: |params| open_acyclic(Euler::named(params)?),
        distributed: Some(whole::<Euler>),
    },
    Entry {
        name: "tictactoe",
        summary: "m,n,k tic-tac-toe (UVA 10111): k in a row wins, a full board ties",
        variants: "tictactoe (4x4, four in a row), tictactoe:RxCxK (e.g. 3x3x3, 5x5x4); at most 36 squares; boards too large to tabulate are searched one position at a time",
        open: |params| open_acyclic(TicTacToe::named(params)?),
        distributed: Some(whole::<TicTacToe>),
    },
    Entry {
        name: "treblecross",
        summary: "Treblecross (UVA 10561): X's on a row; three in a row wins. Solved as a sum of 0.007 heaps",
        variants: "treblecross (start: 9 empty squares), treblecross:N (start: N); any row of 3 to 2^21 squares",
        open: |params| open_sum(Treblecross::named(params)?),
        distributed: None,
    },
    Entry {
        name: "lgame",
        summary: "de Bono's L Game (BOI 2002): move your L, then maybe a neutral piece; who cannot move loses",
        variants: "lgame (4x4 only); positions like .***/#*.x/###./x... with # to move, add /* for * to move",
        open: |params| open_loopy(LGame::named(params)?),
        distributed: Some(whole::<LGame>),
    },
    Entry {
        name: "yehr",
        summary: "Yehr Game (HDU 3649): four piece kinds on a 10x4 board; capture the acm or leave no move",
        variants: "yehr only; positions like R/4,5,5,5/7,6,6,6 (mover, Red's rows A-D, Black's rows A-D)",
        open: |params| open_loopy(Yehr::named(params)?),
        distributed: Some(whole::<Yehr>),
    },
    Entry {
        name: "dobutsu",
        summary: "Dobutsu Shogi (Kitao 2008, solved by Tanaka 2009): shogi on 3x4 with drops; catch the Lion or reach the far rank safely",
        variants: "dobutsu (positions like gle/.c./.C./ELG/-/S); dobutsu:GC, dobutsu:C, ... take pairs of pieces out (small games); the full game answers from a database built by `ply analyze dobutsu --save`",
        open: |params| open_wins_at_once(Dobutsu::named(params)?),
        distributed: None,
    },
    Entry {
        name: "quixo",
        summary: "Quixo (Chartier 1995, GamesmanOne's rules): push cubes back in from the edge; five of yours in a line wins, making the opponent's loses",
        variants: "quixo (5x5: answers from a database), quixo:4x4, quixo:3x3; positions like ...../...../...../...../...../X (quixo:4x4: ..../..../..../..../X); solved tier by tier (ply analyze --save --memory BYTES)",
        open: |params| open_tiered(Quixo::named(params)?),
        distributed: None,
    },
    Entry {
        name: "teeko",
        summary: "Teeko (Scarne 1937; GamesmanOne's rules): drop four pieces each on 5x5, then step them; four in a row or a 2x2 square wins",
        variants: "teeko (44 patterns), teeko:advanced (also the corners of the larger squares, 58), teeko:4x4 and teeko:4x4,advanced (a small board); positions like ...../...../..X../...../...../O; solved tier by tier (ply analyze --save --memory BYTES)",
        open: |params| open_tiered(Teeko::named(params)?),
        distributed: Some(whole::<Teeko>),
    },
    Entry {
        name: "morris",
        summary: "Nine Men's Morris (Gasser's rules, solved 1996: a draw): place nine stones, then slide (jump with three); a mill removes a stone; under three stones or no move loses",
        variants: "morris (nine stones a side: the 28 sectors of the moving phase are stored and placing positions searched over them, or read from morris:9,whole where it is stored), morris:N (N stones a side, 3 to 9: the whole game stored), morris:N,moving and morris:N,whole choose; positions like .../.../.../....../.../.../.../9,9/W; solved sector by sector (ply analyze --save --memory BYTES)",
        open: |params| {
            // The moving phase stored, its placing positions searched over it.
            let game = Morris::named(params)?;
            if game.moving_only() {
                open_searched(game)
            } else {
                open_tiered(game)
            }
        },
        distributed: None,
    },
    Entry {
        name: "connect4",
        summary: "Connect Four (Milton Bradley 1974; Allis and Tromp: a first-player win): drop discs into columns; four in a row wins, a full board ties",
        variants: "connect4 (7x6: any position by alpha-beta search), connect4:WxH (W columns of H rows, 4x4 to 8x7, e.g. 5x5, 6x6); positions as move sequences like 4453 or boards like ......./......./......./......./...o.../..xx...; solved tier by tier (ply analyze connect4:5x5 --save --memory BYTES)",
        open: |params| {
            open_searched_own(
                ConnectFour::named(params)?,
                ply_games::connect4::streams::own_build,
            )
        },
        distributed: None,
    },
];

/// Opens a game with a dense index for distributed retrograde analysis,
/// from the text after `:` in its name.
fn whole<G>(params: Option<&str>) -> Result<Box<dyn Distributed>, PlyError>
where
    G: Variant,
    Whole<G>: Distributed + 'static,
{
    Ok(Box::new(Whole(G::named(params)?)))
}

/// Games a program using ply as a library adds to the built-in ones (see
/// [`crate::run`]); set at most once per process.
static EXTRA: OnceLock<Vec<Entry>> = OnceLock::new();

/// Adds `extra` to the games every command knows, for the rest of the
/// process. Fails if games were added before, or if a name is taken.
pub fn add(extra: Vec<Entry>) -> Result<(), PlyError> {
    for (i, entry) in extra.iter().enumerate() {
        let taken = GAMES
            .iter()
            .chain(&extra[..i])
            .any(|e| e.name == entry.name);
        if taken || entry.name.is_empty() || entry.name.contains(':') {
            return Err(PlyError::argument(format!(
                "cannot add a game named '{}': the name is taken or not a plain name",
                entry.name
            )));
        }
    }
    EXTRA
        .set(extra)
        .map_err(|_| PlyError::argument("games were already added to this process"))
}

/// Every game known to this process: the built-in ones, then any added
/// with [`add`].
pub fn entries() -> impl Iterator<Item = &'static Entry> {
    GAMES.iter().chain(EXTRA.get().into_iter().flatten())
}

/// The entry of a game named `NAME` or `NAME:PARAMS`, and the parameters.
fn entry_of(spec: &str) -> Result<(&'static Entry, Option<&str>), PlyError> {
    let (name, params) = match spec.split_once(':') {
        Some((name, params)) => (name, Some(params)),
        None => (spec, None),
    };
    let entry = entries().find(|e| e.name == name).ok_or_else(|| {
        let known: Vec<&str> = entries().map(|e| e.name).collect();
        PlyError::argument(format!(
            "unknown game '{}'; known games: {}",
            crate::error::excerpt(name, 60),
            known.join(", ")
        ))
    })?;
    Ok((entry, params))
}

/// An opener's error, naming the game as asked.
fn in_game(spec: &str, e: PlyError) -> PlyError {
    PlyError::argument(format!("game '{}': {e}", crate::error::excerpt(spec, 60)))
}

/// Opens a game named `NAME` or `NAME:PARAMS`.
pub fn open(spec: &str) -> Result<Box<dyn Session>, PlyError> {
    let (entry, params) = entry_of(spec)?;
    (entry.open)(params).map_err(|e| in_game(spec, e))
}

/// Opens a game named `NAME` or `NAME:PARAMS` for distributed retrograde
/// analysis (`ply analyze --workers`): any game with a dense index.
pub fn open_distributed(spec: &str) -> Result<Box<dyn Distributed>, PlyError> {
    let (entry, params) = entry_of(spec)?;
    let Some(open) = entry.distributed else {
        // Bad parameters are reported before the lack of an opener.
        (entry.open)(params).map_err(|e| in_game(spec, e))?;
        return Err(PlyError::argument(format!(
            "{} cannot be analyzed by distributed workers: that needs a game retrograde \
             analysis solves whole over its index",
            crate::error::excerpt(spec, 60)
        )));
    };
    open(params).map_err(|e| in_game(spec, e))
}

/// Whether `spec` names a game the whole-index distributed solver takes
/// ([`open_distributed`]); `false` for an unknown game.
pub fn is_distributed(spec: &str) -> bool {
    entry_of(spec).is_ok_and(|(entry, _)| entry.distributed.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game refuses parameters it cannot read in the one form: an
    /// argument error that names the game as asked, for the command and
    /// for distributed workers alike.
    #[test]
    fn bad_parameters_are_one_argument_error_naming_the_game() {
        for entry in GAMES {
            let spec = format!("{}:%?", entry.name);
            let prefix = format!("game '{spec}': ");
            let errors = [
                open(&spec).err().map(|e| e.to_string()),
                open_distributed(&spec).err().map(|e| e.to_string()),
            ];
            for (which, error) in errors.into_iter().enumerate() {
                match error {
                    Some(message) => assert!(
                        message.starts_with(&prefix) && message.contains("%?"),
                        "{spec} ({which}): {message}"
                    ),
                    None => panic!("{spec} ({which}) was accepted"),
                }
            }
            assert!(matches!(open(&spec), Err(PlyError::Argument(_))), "{spec}");
        }
    }
}
