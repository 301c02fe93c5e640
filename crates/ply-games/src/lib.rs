//! The built-in games of ply, one module per game. Each module gives the
//! rules, the text form of positions and moves, and whatever optional
//! capabilities (index, symmetries, ...) the game has.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod board;
pub mod colex;
pub mod connect4;
pub mod dobutsu;
pub mod euler;
pub mod lgame;
pub mod morris;
pub mod morris_facts;
pub mod quixo;
pub mod teeko;
pub mod tictactoe;
pub mod treblecross;
pub mod two_sides;
mod variants;
pub mod yehr;
pub mod yehr_theory;

pub use connect4::ConnectFour;
pub use dobutsu::Dobutsu;
pub use euler::Euler;
pub use lgame::LGame;
pub use morris::Morris;
pub use quixo::Quixo;
pub use teeko::Teeko;
pub use tictactoe::TicTacToe;
pub use treblecross::Treblecross;
pub use yehr::Yehr;
