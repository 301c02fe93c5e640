//! Solvers. Each is chosen from the capabilities a game offers.

pub mod grundy;
pub mod octal;
pub mod retro;
pub mod search;
