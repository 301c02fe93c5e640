//! The `ply` command: every subcommand, the game registry, the sessions that
//! attach solvers to games, the contest judges, and play in the terminal and
//! the browser.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cli;
pub mod error;
pub mod fuzzing;
pub mod judge;
pub mod play;
pub mod registry;
pub mod report;
pub mod serve;
pub mod session;

pub use cli::dist::{Distributed, Whole};
pub use error::PlyError;
pub use registry::Entry;
pub use session::Session;
pub use session::choice::{open_acyclic, open_loopy, open_sum, open_wins_at_once};

use clap::Parser;

/// Runs the `ply` command line (`solve`, `analyze`, `play`, `serve`, ...)
/// on the process arguments, knowing `extra` games besides the built-in
/// ones: how a program outside this workspace gets every command for its
/// own game. Prints any error on stderr and returns exit code 2 for it, as
/// the `ply` binary does (a closed stdout is not an error).
pub fn run(extra: Vec<Entry>) -> std::process::ExitCode {
    use std::process::ExitCode;
    // An unusable PLY_PACKING is refused before any work (issue 59).
    let result = ply_games::colex::PackingPath::current()
        .map_err(PlyError::Argument)
        .and_then(|_| registry::add(extra))
        .and_then(|()| cli::Cli::parse().run());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(PlyError::Io(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("ply: {err}");
            ExitCode::from(err.kind().codes().0)
        }
    }
}
