//! The session for m,n,k tic-tac-toe: a table of every reachable position
//! where one fits in memory, alpha-beta search per position otherwise.

use super::Session;
use super::alphabeta::AlphaBetaSession;
use super::sparse::SparseSession;
use ply_core::{Indexed, SparseTable};
use ply_games::TicTacToe;

/// The most memory a whole-game table may take.
pub const MAX_TABLE_BYTES: u64 = ply_core::limits::MAX_SPARSE_BYTES;

/// Transposition table entries for alpha-beta search (8 bytes each).
pub const SEARCH_ENTRIES: u64 = ply_core::limits::SEARCH_TABLE_BYTES / 8;

/// The most memory a table of every position of `game` can take, judged
/// from the bound on its positions after symmetry.
pub fn table_bytes(game: &TicTacToe) -> u64 {
    SparseTable::peak_bytes(game.index_len(), game.class_bound())
}

/// Opens `game` with the solver that fits it.
pub fn open(game: TicTacToe) -> Box<dyn Session> {
    let bytes = table_bytes(&game);
    if bytes <= MAX_TABLE_BYTES {
        return Box::new(SparseSession::new(game, bytes));
    }
    let name = ply_core::Game::name(&game);
    let why = format!(
        "{name} is too large to analyze: a table of its positions could take {} GiB \
         (up to {} positions after symmetry; the limit is {} GiB); \
         `ply solve {name} POSITION` searches single positions instead",
        bytes.div_ceil(1 << 30),
        game.class_bound(),
        MAX_TABLE_BYTES >> 30,
    );
    Box::new(AlphaBetaSession::new(game, SEARCH_ENTRIES, why))
}
