//! The `ply` command: every subcommand, the game registry, the sessions that
//! attach solvers to games, and the contest judges.

pub mod cli;
pub mod error;
pub mod judge;
pub mod registry;
pub mod report;
pub mod session;

pub use error::PlyError;
