//! The `ply` command: every subcommand, the game registry, the sessions that
//! attach solvers to games, the contest judges, and play in the terminal and
//! the browser.

pub mod cli;
pub mod error;
pub mod fuzzing;
pub mod judge;
pub mod play;
pub mod registry;
pub mod report;
pub mod serve;
pub mod session;

pub use error::PlyError;
