//! Picks how an acyclic game with a dense index is solved, by size: the one
//! choice the types a game implements cannot make.
//!
//! The capabilities a game implements pick its solver family at compile
//! time (tables for [`crate::TableWalk`] games, retrograde analysis for
//! loopy ones, its one-byte form for [`crate::WinsAtOnce`] games,
//! Sprague-Grundy for [`crate::Decompose`] sums). Within the acyclic
//! family, numbers decide: [`choose`] takes a table of the positions the
//! start reaches where the game bounds them ([`crate::NumberedTiers::reachable_bound`])
//! and that table fits, else a cell for every index where that fits, else
//! alpha-beta search one position at a time.
//!
//! ```
//! use ply_core::{Choice, choose};
//!
//! // A small index: a table of every position.
//! assert_eq!(choose(1 << 20, None), Choice::Table);
//! // Few positions reachable: a table of those.
//! assert_eq!(choose(3u64.pow(16), Some(1 << 16)), Choice::SparseTable);
//! // Neither fits: search.
//! assert_eq!(choose(1 << 40, None), Choice::AlphaBeta);
//! ```

use crate::limits::{MAX_SPARSE_BYTES, MAX_TABLE_BYTES};
use crate::solve::sparse::SparseTable;
use crate::solve::table::Table;

/// How [`choose`] solves an acyclic game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A cell per index, solved tier by tier ([`crate::Table`]).
    Table,
    /// A table of the reachable positions ([`crate::SparseTable`]).
    SparseTable,
    /// Alpha-beta search per position ([`crate::AlphaBeta`]).
    AlphaBeta,
}

/// Picks the solver for an acyclic game with `index_len` indices, of which
/// at most `reachable_bound` (after symmetry) can arise from its start
/// when the game knows such a bound (see the module docs).
pub fn choose(index_len: u64, reachable_bound: Option<u64>) -> Choice {
    let sparse_fits = reachable_bound
        .is_some_and(|bound| SparseTable::peak_bytes(index_len, bound) <= MAX_SPARSE_BYTES);
    if sparse_fits {
        Choice::SparseTable
    } else if Table::bytes_needed(index_len) <= MAX_TABLE_BYTES {
        Choice::Table
    } else {
        Choice::AlphaBeta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reachable_table_then_a_whole_table_then_search() {
        let len = 3u64.pow(16);
        assert_eq!(choose(len, Some(1 << 20)), Choice::SparseTable);
        // A bound too large for a reachable table: the whole index fits.
        assert_eq!(choose(len, Some(MAX_SPARSE_BYTES)), Choice::Table);
        assert_eq!(choose(len, None), Choice::Table);
        // Past the table limit (two bytes a cell), only search is left.
        let past = MAX_TABLE_BYTES / 2 + 1;
        assert_eq!(choose(past - 1, None), Choice::Table);
        assert_eq!(choose(past, None), Choice::AlphaBeta);
        assert_eq!(choose(past, Some(past)), Choice::AlphaBeta);
        assert_eq!(choose(past, Some(1 << 10)), Choice::SparseTable);
    }
}
