//! Opens a game with the solver [`ply_core::choose`] picks from what the
//! game offers: the one place the binary turns a [`Choice`] into a session.

use super::Session;
use super::alphabeta::AlphaBetaSession;
use super::sparse::SparseSession;
use super::table::TableSession;
use crate::error::PlyError;
use ply_core::limits::{MAX_SPARSE_BYTES, SEARCH_TABLE_BYTES, human_bytes};
use ply_core::{Choice, Offer, Searchable, SparseTable, TableWalk, choose};
use ply_core::{Symmetric, Table};

/// Transposition table entries for alpha-beta search (8 bytes each).
pub const SEARCH_ENTRIES: u64 = SEARCH_TABLE_BYTES / 8;

/// Opens an acyclic game with an index, tiers, symmetries and a search key
/// with the solver its [`ply_core::Offers`] call for: a whole-index table, a
/// table of the reachable positions, or alpha-beta search per position.
pub fn open_acyclic<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: TableWalk + Symmetric + Searchable + Offer + 'static,
{
    let offers = game.offers();
    let choice =
        choose(&offers).map_err(|e| PlyError::argument(format!("{}: {e}", game.name())))?;
    let len = game.index_len();
    let bound = offers.reachable_bound.unwrap_or(len);
    let sparse_bytes = SparseTable::peak_bytes(len, bound);
    Ok(match choice {
        Choice::Table => Box::new(TableSession::new(game)?),
        Choice::SparseTable => Box::new(SparseSession::new(game, sparse_bytes)),
        Choice::AlphaBeta => {
            let name = game.name();
            let why = format!(
                "{name} is too large to analyze: a table of its positions could take {} GiB \
                 (up to {bound} positions after symmetry; the limit is {} GiB); \
                 `ply solve {name} POSITION` searches single positions instead",
                sparse_bytes.div_ceil(1 << 30),
                MAX_SPARSE_BYTES >> 30,
            );
            Box::new(AlphaBetaSession::new(game, SEARCH_ENTRIES, why))
        }
        other => {
            return Err(PlyError::argument(format!(
                "{}: the chosen solver ({other:?}) needs capabilities this game does not \
                 implement (a table needs {})",
                game.name(),
                human_bytes(Table::bytes_needed(len))
            )));
        }
    })
}
