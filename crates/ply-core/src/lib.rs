//! ply-core: the engine of ply. It knows no concrete game and does no
//! terminal I/O. A game implements [`Game`] and any optional capabilities
//! ([`Indexed`], [`Symmetric`], ...); solvers in [`solve`] are chosen from
//! what the game offers.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
mod bits;
pub mod board;
mod census;
pub mod check;
#[cfg(feature = "db")]
pub mod db;
mod db_error;
pub mod derive;
#[cfg(feature = "dist")]
pub mod dist;
mod error;
mod game;
mod huge;
pub mod limits;
mod octal_code;
mod prefetch;
mod progress;
mod ranked;
mod solution;
pub mod solve;
pub mod tensor;
#[cfg(feature = "db")]
pub mod tier;
mod value;
mod variant;

/// Bit deposit and extract on x86-64 with BMI2 (`pdep`, `pext`).
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
pub use bits::{gather, scatter};
pub use board::Board;
/// The count of wins, losses, ties and draws of a solved game.
pub use census::Census;
#[cfg(feature = "db")]
pub use db::Database;
pub use db_error::DbError;
pub use error::SolveError;
pub use game::{
    Count, Decompose, Game, Indexed, MoveTally, NamedTiers, NumberedTiers, Parents, PositionError,
    SearchStop, Searchable, Searched, Symmetric, TableWalk, WinsAtOnce, moves_into_class_of,
    stored_parent_classes,
};
/// A vector of a solver's table, its pages asked for before the first touch.
pub use huge::vec as huge_vec;
pub use limits::{Budget, TooLarge};
/// A hint that an item will soon be read.
pub use prefetch::prefetch;
pub use progress::{NoProgress, Progress};
pub use solution::{Keys, Solution, Source};
pub use tensor::Tensor;

pub use solve::alphabeta::AlphaBeta;
pub use solve::byte_retro::ByteTable;
pub use solve::choose::{Choice, choose};
pub use solve::grundy::{
    SumSolution, heaps, heaps_remoteness, largest_heap, nim_sum, solve_sum, sum_nimber,
    sum_remoteness, value_with_tempo,
};
pub use solve::heaps::{HeapValues, SEARCH_LIMIT, SEARCH_MEMO_BYTES, SumSearch, shipped};
pub use solve::mex::MexSet;
pub use solve::octal::{OctalCode, OctalError, OctalValues};
pub use solve::reach::{IndexSet, census_of_classes, reachable, reachable_classes, reachable_from};
pub use solve::retro::{
    BySymmetry, Folding, FromMoves, FromUnmoves, ParentRule, RetroTable, Retrograde, Unfolded,
};
pub use solve::search::{CycleError, MemoSolver};
pub use solve::sparse::{Canonical, SparseTable};
pub use solve::table::Table;
#[cfg(feature = "db")]
pub use solve::table_team::Exchanged;
pub use value::{Cell, Nimber, Outcome, Remoteness, Value};
pub use variant::Variant;
