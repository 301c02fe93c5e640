//! Opens a game with the solver [`ply_core::choose`] picks from what the
//! game offers: the one place the binary turns a [`Choice`] into a session.
//!
//! Rust picks code by the traits a type implements only at compile time,
//! so there is one entry point per family of capabilities (acyclic games
//! with tiers and a search key, loopy games, loopy games that name their
//! immediate wins, sums of components); within a family the choice is
//! [`choose`]'s, from the game's [`Offer`].

use super::Session;
use super::alphabeta::AlphaBetaSession;
use super::byte_retro::ByteRetroSession;
use super::retro::RetroSession;
use super::sparse::SparseSession;
use super::sum::SumSession;
use super::table::TableSession;
use super::tier::TierSession;
use crate::error::PlyError;
use ply_core::limits::{MAX_SPARSE_BYTES, SEARCH_TABLE_BYTES, human_bytes};
use ply_core::{
    Choice, Decompose, Offer, Retrograde, Searchable, SparseTable, TableWalk, WinsAtOnce, choose,
};
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
    let choice = chosen(&game)?;
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

/// Opens a game that may loop, solved whole by retrograde analysis with
/// the folding and parents it offers (see [`Retrograde`]).
pub fn open_loopy<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: Retrograde + Offer + 'static,
{
    match chosen(&game)? {
        Choice::Retro => Ok(Box::new(RetroSession::new(game))),
        other => Err(lacks(&game, other)),
    }
}

/// Opens a game that may loop and names its immediate wins ([`WinsAtOnce`]):
/// solved over what its start reaches, a byte per index, when it offers
/// parents too (see [`choose`]).
pub fn open_wins_at_once<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: WinsAtOnce + Offer + Send + Sync + 'static,
{
    match chosen(&game)? {
        Choice::ByteRetro => Ok(Box::new(ByteRetroSession::new(game))),
        other => Err(lacks(&game, other)),
    }
}

/// Opens a game whose positions split into components ([`Decompose`]):
/// answered by Sprague-Grundy theory over the heaps of its octal game.
pub fn open_sum<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: Decompose + Offer + 'static,
{
    match chosen(&game)? {
        Choice::Grundy => Ok(Box::new(SumSession::new(game))),
        other => Err(lacks(&game, other)),
    }
}

/// Opens a game cut into tiers ([`ply_core::Tiers`]): solved tier by tier,
/// past memory, into database shards.
pub fn open_tiered<G>(game: G) -> Result<Box<dyn Session>, PlyError>
where
    G: ply_core::Tiers + 'static,
{
    Ok(Box::new(TierSession::new(game)?))
}

/// What [`choose`] picks for `game`, or why nothing fits.
fn chosen<G: ply_core::Game + Offer>(game: &G) -> Result<Choice, PlyError> {
    choose(&game.offers()).map_err(|e| PlyError::argument(format!("{}: {e}", game.name())))
}

/// The error for a game whose chosen solver needs capabilities its type
/// does not implement.
fn lacks<G: ply_core::Game>(game: &G, choice: Choice) -> PlyError {
    PlyError::argument(format!(
        "{}: the chosen solver ({choice:?}) needs capabilities this game does not implement",
        game.name()
    ))
}
