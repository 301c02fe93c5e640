//! One interface over every solved form of a game: full-index tables,
//! reachable canonical tables, retrograde tables and on-disk databases.
//! Commands ask a [`Solution`] for cells and censuses and never learn where
//! the answers are kept.

use crate::census::Census;
use crate::db_error::DbError;
use crate::value::{Cell, Outcome};
use rayon::prelude::*;
use std::ops::Range;

/// Where a solution's answers come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Solved in this process.
    Solved,
    /// Read from a database on disk.
    Database,
}

impl Source {
    /// The name reports use: `solved` or `database`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Solved => "solved",
            Source::Database => "database",
        }
    }
}

/// What a solved form's keys are (and a database's).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Keys {
    /// Every index of the game's dense index, in order: one cell each.
    Index,
    /// The canonical index of each symmetry class reachable from the start,
    /// increasing: each block lists its keys beside its cells.
    Canonical,
    /// The indices of a dense index that the game names (its
    /// [`crate::db::Presence`]), in order, with no keys stored: each block
    /// covers a fixed run of indices and counts the cells of each piece of
    /// it, and a probe counts the named indices before its own. For a game
    /// whose index is mostly waste (Connect Four's boards of many discs).
    Present,
}

/// Which indices of a file of present keys ([`Keys::Present`]) hold a
/// cell, as its game says ([`crate::NamedTiers::tier_presence`]).
pub trait Presence: Send + Sync {
    /// How many positions the cell of index `index` (counted from the
    /// start of the file's range) stands for: 0 where the file holds none.
    fn stands_for(&self, index: u64) -> u64;
}

/// The strong solution of a game: a [`Cell`] per key, where a key is a
/// position's index or its class's canonical index (see [`Solution::keys`]).
pub trait Solution: Send + Sync {
    /// What the keys are: every index, or canonical indices only.
    fn keys(&self) -> Keys;

    /// The size of the key space (the game's index length).
    fn index_len(&self) -> u64;

    /// The raw cell at `key`: [`Cell::UNKNOWN`] where nothing is stored.
    /// Fails only if the solution is on disk and the disk is corrupt.
    fn cell(&self, key: u64) -> Result<Cell, DbError>;

    /// The outcome at `key`, if one is stored.
    fn outcome(&self, key: u64) -> Result<Option<Outcome>, DbError> {
        Ok(self.cell(key)?.unpack())
    }

    /// Calls `visit` with every key in `range` holding a known cell, in
    /// increasing key order.
    fn for_each_cell(
        &self,
        range: Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), DbError>;

    /// Loads whatever later probes would otherwise load on first use (a
    /// database decodes every block it caches). Nothing to do by default.
    fn warm(&self) -> Result<(), DbError> {
        Ok(())
    }

    /// Where the answers come from.
    fn source(&self) -> Source {
        Source::Solved
    }

    /// Counts the positions with keys in `range`, each key standing for
    /// `weight(key)` positions (0 leaves it out); examples are keys.
    fn census_by(
        &self,
        range: Range<u64>,
        weight: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<Census<u64>, DbError> {
        census_in_chunks(self, range, 1 << 14, weight)
    }

    /// Counts the positions with keys in `range`, one per key.
    fn census(&self, range: Range<u64>) -> Result<Census<u64>, DbError> {
        self.census_by(range, &|_| 1)
    }
}

/// [`Solution::census_by`] computed in parallel over chunks of `chunk` keys.
pub fn census_in_chunks<S: Solution + ?Sized>(
    solution: &S,
    range: Range<u64>,
    chunk: u64,
    weight: &(dyn Fn(u64) -> u64 + Sync),
) -> Result<Census<u64>, DbError> {
    let range = range.start..range.end.min(solution.index_len());
    let len = range.end.saturating_sub(range.start);
    (0..len.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let start = range.start + c * chunk;
            let mut census = Census::new();
            solution.for_each_cell(start..range.end.min(start + chunk), &mut |key, cell| {
                add(&mut census, key, cell, weight(key));
            })?;
            Ok(census)
        })
        .try_reduce(Census::new, |a, b| Ok(a.merge(b)))
}

pub(crate) fn add(census: &mut Census<u64>, key: u64, cell: Cell, weight: u64) {
    if let Some(outcome) = cell.unpack() {
        for _ in 0..weight {
            census.add(outcome, || key);
        }
    }
}

/// `impl Solution` for a table in memory with a cell for every index
/// (keys are indices), answered by its own `len()` and `cell(key)`.
macro_rules! index_solution {
    ($table:ty) => {
        impl $crate::solution::Solution for $table {
            fn keys(&self) -> $crate::solution::Keys {
                $crate::solution::Keys::Index
            }
            fn index_len(&self) -> u64 {
                self.len()
            }
            fn cell(&self, key: u64) -> Result<$crate::value::Cell, $crate::db_error::DbError> {
                Ok(<$table>::cell(self, key))
            }
            fn for_each_cell(
                &self,
                range: std::ops::Range<u64>,
                visit: &mut dyn FnMut(u64, $crate::value::Cell),
            ) -> Result<(), $crate::db_error::DbError> {
                $crate::solution::visit_slice(
                    range,
                    self.len(),
                    |k| <$table>::cell(self, k),
                    visit,
                );
                Ok(())
            }
        }
    };
}
pub(crate) use index_solution;

/// Visits the known cells of `cells` (indexed from 0) with keys in `range`.
pub(crate) fn visit_slice(
    range: Range<u64>,
    len: u64,
    cell: impl Fn(u64) -> Cell,
    visit: &mut dyn FnMut(u64, Cell),
) {
    for key in range.start..range.end.min(len) {
        let c = cell(key);
        if c != Cell::UNKNOWN {
            visit(key, c);
        }
    }
}
