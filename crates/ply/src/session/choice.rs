//! Opens a game with its solver: the one place the binary turns a game
//! into a session.
//!
//! The traits a game implements pick its family, once, at compile time:
//! one entry point per family (acyclic games with tiers and a search key,
//! loopy games, loopy games that name their immediate wins, sums of
//! components). Only the acyclic family has a choice left, and it is made
//! by numbers: [`choose`] weighs a table against search by size.

use super::Session;
use super::alphabeta::AlphaBetaSession;
use super::byte_retro::ByteRetroSession;
use super::retro::RetroSession;
use super::searched::SearchedSession;
use super::sparse::SparseSession;
use super::sum::SumSession;
use super::table::TableSession;
use super::tier::TierSession;
use crate::error::PlyError;
use ply_core::limits::{MAX_SPARSE_BYTES, search_table_bytes};
use ply_core::{
    Choice, Decompose, Retrograde, Searchable, SparseTable, Symmetric, TableWalk, WinsAtOnce,
    choose,
};

/// Opens an acyclic game with an index, tiers, symmetries and a search key
/// with the solver [`choose`] picks by size: a whole-index table, a table
/// of the reachable positions, or alpha-beta search per position.
pub fn open_acyclic<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: TableWalk + Symmetric + Searchable + 'static,
{
    let len = game.index_len();
    let bound = game.reachable_bound();
    let sparse_bytes = SparseTable::peak_bytes(len, bound.unwrap_or(len));
    Ok(match choose(len, bound) {
        Choice::Table => Box::new(TableSession::new(game)?),
        Choice::SparseTable => Box::new(SparseSession::new(game, sparse_bytes)),
        Choice::AlphaBeta => {
            let name = game.name();
            let why = format!(
                "{name} is too large to analyze: a table of its positions could take {} GiB \
                 (up to {} positions after symmetry; the limit is {} GiB); \
                 `ply solve {name} POSITION` searches single positions instead",
                sparse_bytes.div_ceil(1 << 30),
                bound.unwrap_or(len),
                MAX_SPARSE_BYTES >> 30,
            );
            // Entries of 8 bytes, in the table `ply solve --memory` sets.
            let entries = search_table_bytes() / 8;
            Box::new(AlphaBetaSession::new(game, entries, why))
        }
    })
}

/// Opens a game that may loop, solved whole by retrograde analysis with
/// the folding and parents it offers (see [`Retrograde`]).
pub fn open_loopy<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: Retrograde + 'static,
{
    Ok(Box::new(RetroSession::new(game)))
}

/// Opens a game that may loop and names its immediate wins and parents
/// ([`WinsAtOnce`]): solved over every legal position of its index, a byte
/// per stored key.
pub fn open_wins_at_once<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: WinsAtOnce + Send + Sync + 'static,
{
    Ok(Box::new(ByteRetroSession::new(game)))
}

/// Opens a game whose positions split into components ([`Decompose`]):
/// answered by Sprague-Grundy theory over the heaps of its octal game.
pub fn open_sum<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: Decompose + 'static,
{
    Ok(Box::new(SumSession::new(game)))
}

/// Opens a game cut into tiers ([`ply_core::NamedTiers`]): solved tier by tier,
/// past memory, into database shards.
pub fn open_tiered<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: ply_core::NamedTiers + 'static,
{
    Ok(Box::new(TierSession::new(game)?))
}

/// Opens a game cut into tiers that answers positions by a search of its
/// own where no database answers them ([`ply_core::Searched`]): Morris's
/// moving phase with its placing phase searched, or Connect Four.
pub fn open_searched<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: ply_core::Searched + 'static,
{
    Ok(Box::new(SearchedSession::new(game)?))
}

/// [`open_searched`] for a game with a build of its own for its whole
/// database, faster than the generic tier solver: Connect Four's streams.
pub fn open_searched_own<G>(
    game: G,
    own: super::tier::OwnBuild<G>,
) -> Result<Box<dyn Session>, PlyError>
where
    G: ply_core::Searched + 'static,
{
    Ok(Box::new(SearchedSession::with_own_build(game, own)?))
}
