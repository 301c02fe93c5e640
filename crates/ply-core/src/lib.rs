//! ply-core: the engine of ply. It strongly solves two-player games: the
//! value (win, loss, tie or draw) and remoteness of every position. It
//! knows no concrete game (those live in `ply-games`) and does no terminal
//! I/O (that is the `ply` crate's).
//!
//! # What a game implements
//!
//! Every game implements [`Game`]: positions, moves, the value of a
//! position where play ends, and text for positions and moves. Everything
//! else is an optional capability; what a game implements decides which
//! solvers can take it.
//!
//! | capability | what it gives | used by |
//! |---|---|---|
//! | [`Indexed`] | a dense index: a position is a number below [`Indexed::index_len`] | every table solver, databases |
//! | [`Symmetric`] | symmetry classes, one position of each solved | tables, retrograde, databases |
//! | [`NumberedTiers`] and [`TableWalk`] | tiers `0..n`, every move to a higher tier (acyclic) | [`Table`], [`SparseTable`] |
//! | [`Parents`] | un-moves: a position's parents, so no reverse graph is stored | [`retro`](solve::retro), [`dist`](dist/index.html) |
//! | [`Searchable`] | a transposition key, a bound on play, move order | [`AlphaBeta`] |
//! | [`Decompose`] | a position as a sum of independent heaps | [`solve_sum`], [`SumSearch`], [`HeapValues`] |
//! | [`WinsAtOnce`] | immediate wins, never stored | [`ByteTable`] |
//! | [`NamedTiers`] | labelled tiers with a dense index each; play may loop inside a tier | the [`tier`](tier/index.html) solver |
//! | [`Searched`] | how to answer a position no stored tier holds | the `ply` crate's sessions |
//!
//! [`check::Check`] runs one conformance routine over any game's
//! capabilities; a game's tests call it.
//!
//! # Solvers, and how one is chosen
//!
//! The capabilities pick a family at compile time; within the acyclic
//! family, [`choose`] picks by size.
//!
//! - Acyclic games with a dense index ([`TableWalk`]): [`choose`] takes a
//!   [`SparseTable`] of the positions the start reaches where the game
//!   bounds them ([`NumberedTiers::reachable_bound`]) and that fits, else a
//!   [`Table`] of every index where that fits ([`limits`]), else
//!   [`AlphaBeta`] search one position at a time ([`Choice`]).
//! - Games that may loop: retrograde analysis ([`solve::retro`], giving a
//!   [`RetroTable`]; [`Retrograde`] names how a game folds symmetry and
//!   finds parents), or over a byte per stored position for
//!   [`WinsAtOnce`] games ([`solve::byte_retro`], giving a [`ByteTable`]).
//! - Any acyclic game, index or not: [`MemoSolver`], memoised negamax, the
//!   plain method every faster solver is checked against.
//! - Impartial sums: Sprague-Grundy ([`solve_sum`]), with the values of
//!   octal games computed once ([`OctalCode`], [`solve::octal`]).
//!
//! Solvers report through [`Progress`] (and stop when it says so), refuse
//! up front what would not fit in memory ([`TooLarge`], [`Budget`]), and
//! fail with [`SolveError`].
//!
//! # Reading a solution, and databases
//!
//! Every solved form answers through one trait, [`Solution`]: a [`Cell`]
//! (value and remoteness, [`Value`], [`Outcome`]) per key, and a
//! [`Census`]. Tables, [`Canonical`] sparse tables, retrograde tables and
//! databases on disk ([`Database`](db/struct.Database.html), in [`db`](db/index.html), feature `db`) all implement
//! it, so a command never learns where the answers are kept. A database
//! may leave out one side's remoteness; [`derive::complete`] finds it
//! again from the children.
//!
//! # Tiers past memory
//!
//! A game too large for memory implements [`NamedTiers`]; [`tier::build`](tier/fn.build.html)
//! solves its tiers children first, each by retrograde analysis inside the
//! tier, and writes each as a database shard at once ([`tier::Shards`](tier/struct.Shards.html)).
//! A killed build resumes; several processes may share one build
//! ([`team::Team`](team/struct.Team.html)).
//!
//! # Teams of processes
//!
//! [`team`](team/index.html) (feature `db`) owns what several processes
//! solving one game share: who they are, their heartbeats, how they
//! exchange cells, and [`team::TeamError`](team/enum.TeamError.html). The
//! tier solver, the table teams and [`dist`](dist/index.html) reach their
//! peers only through it.
//!
//! # Distribution
//!
//! [`dist`](dist/index.html) (feature `dist`) runs the same retrograde analysis on
//! timely-dataflow workers, threads or processes, each owning a part of
//! the index, and can save each part as a database shard.
//!
//! # Boards
//!
//! [`board`] draws positions as grids for people and pages; [`tensor`]
//! writes them as numbers for datasets; [`Variant`] reads a game's
//! parameters from the text after its name (`NAME:PARAMS`).
//!
//! (Links into `db`, `team`, `tier` and `dist` are written as addresses, not
//! paths, so that the page builds without those features.)

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
#[cfg(feature = "db")]
pub mod team;
pub mod tensor;
#[cfg(feature = "db")]
pub mod tier;
mod value;
mod variant;

// The game traits: what a game implements (see the front page).
pub use game::{
    Count, Decompose, Game, Indexed, MoveTally, NamedTiers, NumberedTiers, Parents, PositionError,
    SearchStop, Searchable, Searched, Symmetric, TableWalk, WinsAtOnce, moves_into_class_of,
    stored_parent_classes,
};
// Values, cells and their counts.
pub use census::Census;
pub use value::{Cell, Nimber, Outcome, Remoteness, Value};
// A game chosen by name, and positions drawn for people and datasets.
pub use board::Board;
pub use tensor::Tensor;
pub use variant::Variant;

// The solvers and how one is chosen.
pub use solve::alphabeta::AlphaBeta;
pub use solve::byte_retro::ByteTable;
pub use solve::choose::{Choice, choose};
pub use solve::retro::{
    BySymmetry, Folding, FromMoves, FromUnmoves, ParentRule, RetroTable, Retrograde, Unfolded,
};
pub use solve::search::{CycleError, MemoSolver};
pub use solve::sparse::{Canonical, SparseTable};
pub use solve::table::Table;
// The positions play reaches, as sets of indices or classes.
pub use solve::reach::{IndexSet, census_of_classes, reachable, reachable_classes, reachable_from};
// Impartial games: Sprague-Grundy sums, heap values, octal games.
pub use solve::grundy::{
    SumSolution, heaps, heaps_remoteness, largest_heap, nim_sum, solve_sum, sum_nimber,
    sum_remoteness, value_with_tempo,
};
pub use solve::heaps::{HeapValues, SEARCH_LIMIT, SEARCH_MEMO_BYTES, SumSearch, shipped};
pub use solve::octal::{OctalCode, OctalError, OctalValues};

// Reading what a solver found, on disk or in memory.
#[cfg(feature = "db")]
pub use db::Database;
pub use db_error::DbError;
pub use solution::{Keys, Solution, Source};

// How a solve reports, stops, fails and stays within memory.
pub use error::SolveError;
pub use limits::{Budget, TooLarge};
pub use progress::{NoProgress, Progress};

// Helpers for games' hot loops.
/// Bit deposit and extract on x86-64 with BMI2 (`pdep`, `pext`).
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
pub use bits::{gather, scatter, scatter64};
/// A vector for a large table, its pages asked for before the first touch.
pub use huge::vec as huge_vec;
/// A hint that an item will soon be read.
pub use prefetch::prefetch;
