//! Solvers. Each is chosen from the capabilities a game offers.

pub mod retro;
pub mod search;
