//! Picks the solver for a game from what the game offers: one rule for
//! every game, so that a game never names a solver.
//!
//! A game describes itself with [`Offers`] (through [`Offer`]): the
//! capabilities it implements and hints only it can give (that play can
//! loop, how many positions it can reach). [`choose`] maps that to a
//! [`Choice`]:
//!
//! - components -> Sprague-Grundy ([`crate::solve::grundy`]);
//! - loops -> retrograde analysis over the dense index ([`crate::solve::retro`]),
//!   or, when the game names its immediate wins and parents, its one-byte
//!   form over the positions the start reaches ([`crate::solve::byte_retro`]);
//! - no loops, a bound on the reachable positions that fits -> a table of
//!   those ([`crate::SparseTable`]);
//! - tiers, no loops, an index whose table fits -> [`crate::Table`];
//! - otherwise alpha-beta search per position ([`crate::AlphaBeta`]).
//!
//! ```
//! use ply_core::solve::choose::{Choice, Offers, choose};
//!
//! // A loopy game with a small index: retrograde analysis.
//! let loopy = Offers { index_len: Some(1000), loops: true, ..Offers::default() };
//! assert_eq!(choose(&loopy), Ok(Choice::Retro));
//! // An acyclic game with tiers and a table that fits: a table.
//! let tiered = Offers { index_len: Some(1 << 20), table_walk: true, ..Offers::default() };
//! assert_eq!(choose(&tiered), Ok(Choice::Table));
//! ```

use crate::limits::{MAX_SPARSE_BYTES, MAX_TABLE_BYTES};
use crate::solve::sparse::SparseTable;
use crate::solve::table::Table;
use std::fmt;

/// What a game offers the solvers, and hints about its play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offers {
    /// The size of its dense index ([`crate::Indexed`]), if it has one.
    pub index_len: Option<u64>,
    /// Tiers walked by index ([`crate::TableWalk`]): a whole-index table.
    pub table_walk: bool,
    /// Tiers, symmetries and an index ([`crate::Tiered`], [`crate::Symmetric`]):
    /// a table of the reachable positions.
    pub reachable_table: bool,
    /// An upper bound on the positions a reachable table would hold (after
    /// symmetry), if known.
    pub reachable_bound: Option<u64>,
    /// Un-moves ([`crate::Parents`]).
    pub parents: bool,
    /// Symmetries ([`crate::Symmetric`]).
    pub symmetries: bool,
    /// Independent components ([`crate::Decompose`]).
    pub components: bool,
    /// A search key ([`crate::Searchable`]).
    pub search_key: bool,
    /// Moves that win at once, named ([`crate::solve::byte_retro::WinsAtOnce`]).
    pub wins_at_once: bool,
    /// Hint: play can return to a position, so some may be draws.
    pub loops: bool,
}

/// The solver [`choose`] picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A cell per index, solved tier by tier ([`crate::Table`]).
    Table,
    /// A table of the reachable positions ([`crate::SparseTable`]).
    SparseTable,
    /// Retrograde analysis with a cell per index ([`crate::RetroTable`]).
    Retro,
    /// Retrograde analysis with a byte per index ([`crate::ByteTable`]).
    ByteRetro,
    /// Alpha-beta search per position ([`crate::AlphaBeta`]).
    AlphaBeta,
    /// The XOR of component nimbers ([`crate::solve::grundy`]).
    Grundy,
}

impl std::fmt::Display for Choice {
    /// The solver in words, for messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Table => "a table of every index",
            Self::SparseTable => "a table of the reachable positions",
            Self::Retro => "retrograde analysis",
            Self::ByteRetro => "retrograde analysis in one byte per position",
            Self::AlphaBeta => "alpha-beta search",
            Self::Grundy => "Sprague-Grundy sums",
        })
    }
}

/// Why no solver fits a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoSolver {
    /// What the game lacks.
    pub missing: &'static str,
}

impl fmt::Display for NoSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no solver fits: the game {}", self.missing)
    }
}

impl std::error::Error for NoSolver {}

/// A game that says what it offers (see [`Offers`]).
pub trait Offer {
    /// The game's capabilities and hints.
    fn offers(&self) -> Offers;
}

/// The bytes a cell per index takes for one byte per cell.
fn byte_table_bytes(index_len: u64) -> u64 {
    index_len
}

/// Picks the solver for a game offering `offers` (see the module docs).
pub fn choose(offers: &Offers) -> Result<Choice, NoSolver> {
    if offers.components {
        return Ok(Choice::Grundy);
    }
    if offers.loops {
        let Some(len) = offers.index_len else {
            return Err(NoSolver {
                missing: "can loop but has no dense index for retrograde analysis",
            });
        };
        // Immediate wins and parents let the byte form solve only what
        // the start reaches, at a byte per index.
        if offers.wins_at_once && offers.parents {
            return Ok(Choice::ByteRetro);
        }
        let cells_fit = Table::bytes_needed(len) <= MAX_TABLE_BYTES;
        if !cells_fit && byte_table_bytes(len) > MAX_TABLE_BYTES {
            return Err(NoSolver {
                missing: "can loop and its index is too large for memory",
            });
        }
        return Ok(Choice::Retro);
    }
    if let Some(len) = offers.index_len {
        // A game that bounds its reachable positions says most indices
        // cannot arise: a table of those, where the bound fits.
        let sparse_fits = offers.reachable_table
            && offers
                .reachable_bound
                .is_some_and(|bound| SparseTable::peak_bytes(len, bound) <= MAX_SPARSE_BYTES);
        if sparse_fits {
            return Ok(Choice::SparseTable);
        }
        if offers.table_walk && Table::bytes_needed(len) <= MAX_TABLE_BYTES {
            return Ok(Choice::Table);
        }
        if offers.reachable_table && !offers.search_key {
            return Ok(Choice::SparseTable);
        }
    }
    if offers.search_key {
        return Ok(Choice::AlphaBeta);
    }
    Err(NoSolver {
        missing: "has no loops hint, dense index, tiers or search key a solver could use",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers() -> Offers {
        Offers::default()
    }

    #[test]
    fn components_go_to_sprague_grundy_before_anything_else() {
        let o = Offers {
            components: true,
            index_len: Some(10),
            table_walk: true,
            ..offers()
        };
        assert_eq!(choose(&o), Ok(Choice::Grundy));
    }

    #[test]
    fn loops_go_to_retrograde_analysis_and_its_byte_form_when_wins_are_named() {
        let small = Offers {
            index_len: Some(1 << 20),
            loops: true,
            table_walk: true,
            ..offers()
        };
        assert_eq!(choose(&small), Ok(Choice::Retro));
        let named = Offers {
            parents: true,
            wins_at_once: true,
            ..small
        };
        assert_eq!(choose(&named), Ok(Choice::ByteRetro));
        let only_wins = Offers {
            wins_at_once: true,
            ..small
        };
        assert_eq!(choose(&only_wins), Ok(Choice::Retro));
        let huge = Offers {
            index_len: Some(MAX_TABLE_BYTES),
            loops: true,
            parents: true,
            wins_at_once: true,
            ..offers()
        };
        assert_eq!(choose(&huge), Ok(Choice::ByteRetro));
        let no_index = Offers {
            loops: true,
            ..offers()
        };
        assert!(choose(&no_index).is_err());
        let huge_plain = Offers {
            index_len: Some(MAX_TABLE_BYTES * 4),
            loops: true,
            ..offers()
        };
        assert!(choose(&huge_plain).is_err());
    }

    #[test]
    fn acyclic_games_get_a_table_then_a_sparse_table_then_search() {
        let len = 3u64.pow(16);
        let sparse = Offers {
            index_len: Some(len),
            reachable_table: true,
            reachable_bound: Some(1 << 20),
            search_key: true,
            ..offers()
        };
        assert_eq!(choose(&sparse), Ok(Choice::SparseTable));
        let too_many = Offers {
            reachable_bound: Some(MAX_SPARSE_BYTES),
            ..sparse
        };
        assert_eq!(choose(&too_many), Ok(Choice::AlphaBeta));
        let whole = Offers {
            table_walk: true,
            reachable_table: false,
            ..sparse
        };
        assert_eq!(choose(&whole), Ok(Choice::Table));
        let bounded = Offers {
            table_walk: true,
            ..sparse
        };
        assert_eq!(choose(&bounded), Ok(Choice::SparseTable));
        let too_long = Offers {
            index_len: Some(MAX_TABLE_BYTES * 4),
            ..whole
        };
        assert_eq!(choose(&too_long), Ok(Choice::AlphaBeta));
        assert!(choose(&offers()).is_err());
    }
}
