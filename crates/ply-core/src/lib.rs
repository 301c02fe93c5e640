//! ply-core: the engine of ply. It knows no concrete game and does no
//! terminal I/O. A game implements [`Game`] and any optional capabilities
//! ([`Indexed`], [`Symmetric`], ...); solvers in [`solve`] are chosen from
//! what the game offers.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod board;
pub mod census;
pub mod db;
pub mod dist;
pub mod game;
pub mod limits;
pub mod progress;
pub mod solution;
pub mod solve;
pub mod tier;
pub mod value;

pub use board::Board;
pub use census::Census;
pub use db::{Database, DbError};
pub use game::{
    Decompose, Game, Indexed, Parents, PositionError, Searchable, Symmetric, TableWalk, Tiered,
    Tiers,
};
pub use limits::{Budget, TooLarge};
pub use progress::{NoProgress, Progress};
pub use solution::{Solution, Source};

pub use solve::alphabeta::{AlphaBeta, SearchError};
pub use solve::byte_retro::{ByteRetroError, ByteTable, WinsAtOnce};
pub use solve::choose::{Choice, NoSolver, Offer, Offers, choose};
pub use solve::grundy::{
    MexSet, SumSolution, heaps_remoteness, largest_heap, nim_sum, solve_sum, sum_nimber,
    sum_remoteness,
};
pub use solve::heaps::{HeapError, HeapValues, SumSearch};
pub use solve::octal::{OctalCode, OctalError, OctalValues};
pub use solve::reach::{IndexSet, reachable, reachable_classes, reachable_from};
pub use solve::retro::{
    BySymmetry, Folding, FromMoves, FromUnmoves, ParentRule, RetroError, RetroTable, Retrograde,
    Unfolded,
};
pub use solve::search::{CycleError, MemoSolver};
pub use solve::sparse::{SparseError, SparseTable};
pub use solve::table::{Table, TableError};
pub use value::{Cell, Nimber, Outcome, Remoteness, Value};
