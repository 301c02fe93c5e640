//! Solvers. Each is chosen from the capabilities a game offers.

pub mod alphabeta;
pub mod search;
pub mod sparse;
