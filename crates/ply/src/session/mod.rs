//! A [`Session`] is a game with a solver attached, as the commands see it:
//! positions come and go as text. `solve`, `analyze`, `play` and `serve` are
//! all written against this one trait, so a new game or solver plugs into
//! every command at once.

pub mod alphabeta;
pub mod byte_retro;
pub mod choice;
pub mod once;
pub mod retro;
pub mod rows;
pub mod searched;
pub mod solved;
pub mod sparse;
pub mod store;
pub mod sum;
pub mod table;
pub mod tier;

use crate::error::PlyError;
use crate::report::{AnalyzeReport, MoveReport, SolveReport};
use ply_core::team::Team;
use ply_core::{Board, Game, NoProgress, Outcome, Progress, Source, Value};
use rows::Rows;
use std::path::PathBuf;
use store::Store;

/// Which tiers a tier team cuts between its processes (`--cut-from`,
/// `--cut-classes`; see `ply_core::tier::Options`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cutting {
    /// The fewest indices of a tier cut; `None` for the default.
    pub from: Option<u64>,
    /// Whether a tier solved a cell per symmetry class is cut too.
    pub classes: bool,
}

/// A game with a solver attached.
pub trait Session: Send + Sync {
    /// The game's full name with parameters.
    fn name(&self) -> String;

    /// The start position, as text.
    fn start(&self) -> String;

    /// Draws a position for a person, over several lines.
    fn render(&self, position: &str) -> Result<String, PlyError>;

    /// Describes `position` (the start if `None`) for a page to draw and
    /// play by clicks (see [`Game::board`]).
    fn board(&self, position: Option<&str>) -> Result<Board, PlyError>;

    /// The value of `position` (the start if `None`) and of every move from it.
    fn solve(&self, position: Option<&str>) -> Result<SolveReport, PlyError> {
        self.solve_within(position, &NoProgress)
    }

    /// As [`Session::solve`], reporting to `progress` and stopping with
    /// [`PlyError::Cancelled`] soon after it says [`Progress::cancelled`].
    fn solve_within(
        &self,
        position: Option<&str>,
        progress: &dyn Progress,
    ) -> Result<SolveReport, PlyError>;

    /// As [`Session::solve`], but listing every move with the position it
    /// leads to, as `ply play` needs; sessions whose `solve` may leave moves
    /// out (sums with many moves) override it, and refuse positions too
    /// large to list.
    fn solve_listing_all(&self, position: Option<&str>) -> Result<SolveReport, PlyError> {
        self.solve(position)
    }

    /// The most memory the session may come to hold (its tables once
    /// built), so that a server can refuse or evict before it is spent.
    fn memory_bound(&self) -> u64 {
        0
    }

    /// How a long-lived holder such as the server will answer queries:
    /// from a stored database (needing only the memory of what it adds to
    /// the process's shared block cache, a search's table say), or by
    /// solving, with the tables of [`Session::memory_bound`], or not at
    /// all. Looks at the database directory; never builds or reads blocks.
    fn serving(&self) -> Serving {
        Serving::Solving {
            bytes: self.memory_bound(),
        }
    }

    /// Whether a query stopped part way (its time ran out, or it gave up
    /// waiting for another query's search of the game) leaves what was
    /// found for the next query to go on from, so that asking again comes
    /// nearer an answer: a search whose transposition table is kept across
    /// queries. The server then answers the stopped query as pending, and
    /// the page asks again. False by default: a build stopped part way is
    /// thrown away.
    fn resumes_stopped(&self) -> bool {
        false
    }

    /// Why answering one query without a stored database would take long
    /// (a build of the whole game first, thrown away after), if it would:
    /// `ply solve` then refuses and names `ply analyze --save`, unless
    /// `--no-db` asks for the build. `None` by default, and once a
    /// database is stored.
    fn long_without_database(&self) -> Option<String> {
        None
    }

    /// Strongly solves the whole game, reporting progress.
    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError>;

    /// Checks that `position` is a position of the game, without solving
    /// anything, so that a command refuses a bad position before any long
    /// preparation ([`Session::prepare`]). By default it parses the
    /// position as [`Session::render`] does.
    fn check_position(&self, position: &str) -> Result<(), PlyError> {
        self.render(position).map(|_| ())
    }

    /// Does any long preparation up front (building a table), reporting
    /// progress, so later queries are quick. By default there is none;
    /// sessions that need it still prepare silently on first use.
    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        let _ = progress;
        Ok(())
    }

    /// Prepares as [`Session::prepare`] and also loads everything a query
    /// could read (every block of a database), so that even the first
    /// queries are fast: what `ply serve --preload` asks for.
    fn warm(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.prepare(progress)
    }

    /// What a report from [`Session::solve`] leaves out that its fields
    /// cannot say (a remoteness not computed, moves not listed). `ply solve`
    /// prints these and adds them to its JSON as `"notes"`. None by default.
    fn notes(&self, _report: &SolveReport) -> Vec<String> {
        Vec::new()
    }

    /// Where the answers come from, once the session has them (after
    /// [`Session::prepare`] or a first query): `None` for sessions that
    /// keep no solved table.
    fn source(&self) -> Option<Source> {
        None
    }

    /// Whether the database the session answers from has changed on disk
    /// since the session opened it (replaced by a new build, rewritten,
    /// truncated or removed), so that a long-lived holder such as the
    /// server should open the game afresh. False for sessions that read no
    /// database.
    fn stale(&self) -> bool {
        false
    }

    /// Writes the session's strong solution as a database into `store`,
    /// returning the file and its size; `None` for sessions that keep no
    /// solved table.
    fn save(
        &self,
        store: &Store,
        progress: &dyn Progress,
    ) -> Result<Option<(PathBuf, u64)>, PlyError> {
        let _ = (store, progress);
        Ok(None)
    }

    /// What `ply analyze` does: strongly solves the whole game and, with
    /// `save`, writes its database into that store, within `memory` bytes
    /// if given. By default [`Session::analyze`] then [`Session::save`];
    /// only games solved tier by tier take a memory budget (they override
    /// this, writing as they go).
    fn analyze_saving(
        &self,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        analyze_then_save(self, save, memory, progress)
    }

    /// Whether the game's own solver walks it tier by tier, each tier's
    /// positions cut between rayon's threads: the tier solver (quixo,
    /// teeko, morris) or a table built tier by tier (euler, tictactoe).
    /// Then `ply analyze --workers N` runs that solver on N threads, the
    /// cells of `ply analyze`, instead of the whole-index distributed
    /// solver.
    fn tiered(&self) -> bool {
        false
    }

    /// As [`Session::analyze_saving`], but only the game's end tiers:
    /// those at most `height` tier steps above a tier whose moves stay in
    /// it (for Quixo, at most `height` blank cubes). Only games solved tier
    /// by tier have them.
    fn analyze_end_tiers(
        &self,
        height: u32,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        let _ = (height, save, memory, progress);
        Err(PlyError::argument(format!(
            "--end-tiers: {} is not solved tier by tier, so it has no end tiers",
            self.name()
        )))
    }

    /// What `ply analyze --save --processes P --process I` does for a
    /// game the whole-index distributed solver does not take, or without
    /// `--hosts`: builds the game's tiers (its end tiers up to
    /// `end_tiers`, if given) into `save` together with the other
    /// processes of `team`, which talk over TCP at the team's hosts (a
    /// tier team tells its peers what it finished and fetches from them
    /// the child shards its directory lacks; a table team sends them each
    /// tier's cells).
    /// Process 0 returns the report once every tier is solved; the others
    /// return `None` once theirs are. Only games solved tier by tier can.
    /// A tier team cuts tiers between its processes as `cut` says.
    fn analyze_shared(
        &self,
        team: &Team,
        end_tiers: Option<u32>,
        save: &Store,
        (memory, cut): (Option<u64>, Cutting),
        progress: &dyn Progress,
    ) -> Result<Option<AnalyzeReport>, PlyError> {
        let _ = (team, end_tiers, save, memory, cut, progress);
        Err(not_shared(&self.name()))
    }

    /// The strong solution read key by key (see [`Rows`]), solved or
    /// loaded first as a query would; `None` for sessions that keep no
    /// table (answered by search or theory).
    fn rows(&self, progress: &dyn Progress) -> Result<Option<Box<dyn Rows + '_>>, PlyError> {
        let _ = progress;
        Ok(None)
    }
}

/// How a session answers queries (see [`Session::serving`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Serving {
    /// From a stored database: `what` names it (the file, or the shards
    /// and their directory); `bytes` is what answering takes besides the
    /// shared block cache (a search's table), `search` says what searches.
    Database {
        /// The database, as a person reads it.
        what: String,
        /// Memory besides the block cache.
        bytes: u64,
        /// What positions are searched over it, if any.
        search: Option<String>,
    },
    /// By solving, with tables of up to `bytes`.
    Solving {
        /// The most memory its tables may take.
        bytes: u64,
    },
    /// Not at all: one line says why and what command builds what is missing.
    Refused(String),
}

/// A solver over one game: what answers a position's outcome. A session
/// built on one takes the game's name, start and drawings, and its solve
/// report, from [`solver_session!`].
pub trait Solver: Send + Sync {
    /// The game solved.
    type Game: Game;

    /// The game.
    fn game(&self) -> &Self::Game;

    /// The outcome of `position` for the player to move. By default
    /// [`Solver::outcome_within`], never cancelled.
    fn outcome(&self, position: &<Self::Game as Game>::Position) -> Result<Outcome, PlyError> {
        self.outcome_within(position, &NoProgress)
    }

    /// As [`Solver::outcome`], stopping with [`PlyError::Cancelled`] soon
    /// after `progress` says [`Progress::cancelled`].
    fn outcome_within(
        &self,
        position: &<Self::Game as Game>::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError>;

    /// Whether the report of `position` finds its moves' outcomes first
    /// and its own from theirs ([`Outcome::from_children`]) instead of
    /// asking for it: where each answer is a search, the position's own
    /// search would repeat what its moves' searches find. By default no.
    fn reports_from_moves(
        &self,
        _position: &<Self::Game as Game>::Position,
        _progress: &dyn Progress,
    ) -> Result<bool, PlyError> {
        Ok(false)
    }

    /// The outcomes of `positions` (a position's moves), each as
    /// [`Solver::outcome_within`] finds it; by default one after the
    /// other, where a search may find them side by side.
    fn outcomes_within(
        &self,
        positions: &[<Self::Game as Game>::Position],
        progress: &dyn Progress,
    ) -> Result<Vec<Outcome>, PlyError> {
        one_by_one(self, positions, progress)
    }
}

/// The outcomes of `positions`, each found by `solver` alone, one after
/// the other: [`Solver::outcomes_within`]'s default.
pub(super) fn one_by_one<S: Solver + ?Sized>(
    solver: &S,
    positions: &[<S::Game as Game>::Position],
    progress: &dyn Progress,
) -> Result<Vec<Outcome>, PlyError> {
    positions
        .iter()
        .map(|position| solver.outcome_within(position, progress))
        .collect()
}

/// The refusal of `--processes` without `--hosts` for a game whose tiers
/// are not written as shards of their own.
pub(super) fn not_shared(game: &str) -> PlyError {
    PlyError::argument(format!(
        "--processes: {game} does not write its tiers as shards of their own, so its \
         processes cannot build it as a team; the distributed solver (--processes, --process \
         and --hosts) takes only games retrograde analysis solves whole over their index"
    ))
}

/// The error for a stored cell leaving out `value`'s remoteness whose
/// children do not hold what finds it again (`position`, drawn as text, of
/// the game `game`): the database is damaged or from another build.
pub(super) fn not_derived(game: &str, position: &str, value: Value) -> PlyError {
    PlyError::Database(format!(
        "the database of {game} leaves out the remoteness of {position} but not of every {:?} \
         it needs to find it again: remove it and run `ply analyze {game} --save` again",
        value.flip()
    ))
}

/// The [`Session`] methods answered from the game alone (its name, its
/// start, and a position drawn as text or described for a page), in an
/// `impl Session` whose game is `$game`, an expression over `$self`.
macro_rules! game_methods {
    ($self:ident => $game:expr) => {
        fn name(&$self) -> String {
            $game.name()
        }

        fn start(&$self) -> String {
            let game = $game;
            game.format_position(&game.start())
        }

        fn render(&$self, position: &str) -> Result<String, $crate::error::PlyError> {
            let game = $game;
            Ok(game.render(&$crate::session::parse_or_start(game, Some(position))?))
        }

        fn board(
            &$self,
            position: Option<&str>,
        ) -> Result<ply_core::Board, $crate::error::PlyError> {
            $crate::session::board_of($game, position)
        }
    };
}
pub(crate) use game_methods;

/// The [`Session`] methods of a session that is a [`Solver`]: those of
/// [`game_methods!`], and the solve report from [`Solver::outcome_within`].
macro_rules! solver_session {
    () => {
        $crate::session::game_methods!(self => $crate::session::Solver::game(self));

        fn solve_within(
            &self,
            position: Option<&str>,
            progress: &dyn ply_core::Progress,
        ) -> Result<$crate::report::SolveReport, $crate::error::PlyError> {
            let game = $crate::session::Solver::game(self);
            let position = $crate::session::parse_or_start(game, position)?;
            let outcome_of = |p: &_| $crate::session::Solver::outcome_within(self, p, progress);
            if $crate::session::Solver::reports_from_moves(self, &position, progress)? {
                let outcomes_of =
                    |ps: &[_]| $crate::session::Solver::outcomes_within(self, ps, progress);
                $crate::session::report_from_moves(game, &position, outcomes_of, outcome_of)
            } else {
                $crate::session::solve_report(game, &position, outcome_of)
            }
        }
    };
}
pub(crate) use solver_session;

/// What `ply analyze` does by default (see [`Session::analyze_saving`]):
/// [`Session::analyze`], then [`Session::save`] into `save`; refuses a
/// memory budget, which only games solved tier by tier take.
pub(super) fn analyze_then_save<S: Session + ?Sized>(
    session: &S,
    save: Option<&Store>,
    memory: Option<u64>,
    progress: &dyn Progress,
) -> Result<AnalyzeReport, PlyError> {
    if memory.is_some() {
        return Err(PlyError::argument(format!(
            "--memory: {} is not solved tier by tier, so it takes no memory budget",
            session.name()
        )));
    }
    let mut report = session.analyze(progress)?;
    if let Some(store) = save {
        let (path, bytes) = session.save(store, progress)?.ok_or_else(|| {
            PlyError::argument(format!(
                "{} keeps no table to save: it is answered by search or theory",
                session.name()
            ))
        })?;
        report.extra.insert(
            "saved".into(),
            serde_json::json!(path.display().to_string()),
        );
        report
            .extra
            .insert("saved_bytes".into(), serde_json::json!(bytes));
    }
    Ok(report)
}

/// Refuses at once to answer from `session` when no database is stored
/// and one answer would first solve the whole game
/// ([`Session::long_without_database`]), naming the command that stores
/// it: what `ply solve` (without `--no-db`) and Python's `ply.solve` do.
pub fn refuse_long_without_database(session: &dyn Session) -> Result<(), PlyError> {
    match session.long_without_database() {
        Some(why) => Err(PlyError::Unavailable(format!(
            "{why}; `ply analyze {name} --save` stores its database once, and then \
             `ply solve {name}` answers at once; --no-db solves it now without saving",
            name = session.name()
        ))),
        None => Ok(()),
    }
}

/// Builds the report for `position` given a way to find any position's outcome.
pub fn solve_report<G: Game>(
    game: &G,
    position: &G::Position,
    mut outcome_of: impl FnMut(&G::Position) -> Result<Outcome, PlyError>,
) -> Result<SolveReport, PlyError> {
    let outcome = outcome_of(position)?;
    report_with(game, position, outcome, outcome_of)
}

/// Builds the report for `position` from its moves' outcomes, found
/// first and together (`outcomes_of`, given every move's position): its
/// own is the best of theirs, and asked for (`outcome_of`) only where it
/// has no move (the end of play).
pub fn report_from_moves<G: Game>(
    game: &G,
    position: &G::Position,
    outcomes_of: impl FnOnce(&[G::Position]) -> Result<Vec<Outcome>, PlyError>,
    mut outcome_of: impl FnMut(&G::Position) -> Result<Outcome, PlyError>,
) -> Result<SolveReport, PlyError> {
    let mut children = Vec::new();
    if game.primitive(position).is_none() {
        game.for_each_move(position, |_, child| children.push(child));
    }
    let outcomes = outcomes_of(&children)?;
    let found: Vec<_> = children.into_iter().zip(outcomes).collect();
    let outcome = match Outcome::from_children(found.iter().map(|(_, o)| *o)) {
        Some(outcome) => outcome,
        None => outcome_of(position)?,
    };
    report_with(game, position, outcome, |child| {
        match found.iter().find(|(c, _)| c == child) {
            Some((_, outcome)) => Ok(*outcome),
            None => outcome_of(child),
        }
    })
}

/// Builds the report for `position`, whose outcome is `outcome`, given a
/// way to find the outcome of each position it leads to.
pub fn report_with<G: Game>(
    game: &G,
    position: &G::Position,
    outcome: Outcome,
    mut child_outcome: impl FnMut(&G::Position) -> Result<Outcome, PlyError>,
) -> Result<SolveReport, PlyError> {
    let mut moves = Vec::new();
    let mut children = Vec::new();
    if game.primitive(position).is_none() {
        game.for_each_move(position, |mv, child| children.push((mv, child)));
    }
    for (mv, child) in children {
        let child_outcome = child_outcome(&child)?;
        moves.push(MoveReport {
            name: game.format_move(position, mv),
            position: game.format_position(&child),
            value: child_outcome.value,
            remoteness: child_outcome.remoteness,
        });
    }
    Ok(SolveReport {
        game: game.name(),
        position: game.format_position(position),
        value: outcome.value,
        remoteness: outcome.remoteness,
        nimber: None,
        moves,
    })
}

/// The description of `position` (the start if `None`) for a page.
pub fn board_of<G: Game>(game: &G, position: Option<&str>) -> Result<Board, PlyError> {
    Ok(game.board(&parse_or_start(game, position)?))
}

/// Reads `text` as a position of `game`, or takes the start position.
pub fn parse_or_start<G: Game>(game: &G, text: Option<&str>) -> Result<G::Position, PlyError> {
    match text {
        Some(text) => game
            .parse_position(text)
            .map_err(|e| PlyError::argument(format!("bad {} position '{text}': {e}", game.name()))),
        None => Ok(game.start()),
    }
}
