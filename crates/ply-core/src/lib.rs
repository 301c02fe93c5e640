//! ply-core: the engine of ply. It knows no concrete game and does no
//! terminal I/O. A game implements [`Game`] and any optional capabilities
//! ([`Indexed`], [`Symmetric`], ...); solvers in [`solve`] are chosen from
//! what the game offers.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
pub mod bits;
pub mod board;
pub mod census;
pub mod check;
#[cfg(feature = "db")]
pub mod db;
pub mod db_error;
pub mod derive;
#[cfg(feature = "dist")]
pub mod dist;
pub mod error;
pub mod game;
pub mod huge;
pub mod limits;
pub mod octal_code;
pub mod prefetch;
pub mod progress;
pub mod ranked;
pub mod solution;
pub mod solve;
pub mod tensor;
#[cfg(feature = "db")]
pub mod tier;
pub mod value;
pub mod variant;

pub use board::Board;
pub use census::Census;
#[cfg(feature = "db")]
pub use db::Database;
pub use db_error::DbError;
pub use error::SolveError;
pub use game::{
    Count, Decompose, Game, Indexed, MoveTally, Parents, PositionError, SearchStop, Searchable,
    Searched, Symmetric, TableWalk, Tiered, Tiers, WinsAtOnce, moves_into_class_of,
    stored_parent_classes,
};
pub use limits::{Budget, TooLarge};
pub use progress::{NoProgress, Progress};
pub use solution::{Keys, Solution, Source};
pub use tensor::Tensor;

pub use solve::alphabeta::AlphaBeta;
pub use solve::byte_retro::ByteTable;
pub use solve::choose::{Choice, choose};
pub use solve::grundy::{
    SumSolution, heaps_remoteness, largest_heap, nim_sum, solve_sum, sum_nimber, sum_remoteness,
    value_with_tempo,
};
pub use solve::heaps::{HeapValues, SumSearch};
pub use solve::mex::MexSet;
pub use solve::octal::{OctalCode, OctalError, OctalValues};
pub use solve::reach::{IndexSet, reachable, reachable_classes, reachable_from};
pub use solve::retro::{
    BySymmetry, Folding, FromMoves, FromUnmoves, ParentRule, RetroTable, Retrograde, Unfolded,
};
pub use solve::search::{CycleError, MemoSolver};
pub use solve::sparse::SparseTable;
pub use solve::table::Table;
#[cfg(feature = "db")]
pub use solve::table_team::Exchanged;
pub use value::{Cell, Nimber, Outcome, Remoteness, Value};
pub use variant::Variant;
