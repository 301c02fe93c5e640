//! The tier solver: strongly solves a game cut into tiers ([`NamedTiers`]) past
//! the memory of the machine.
//!
//! Tiers are solved children first ([`Plan`]), each by retrograde analysis
//! inside the tier seeded with its child tiers' values ([`solve_tier`]), loops
//! and draws included. Mirror tiers are solved once: only canonical tiers
//! are solved and stored, and a position of a mirror tier is answered from
//! its image; inside a tier, a game's symmetries may fold positions into
//! classes of which one each is solved ([`Layout`]). Each solved tier is
//! written at once as a database shard
//! through the atomic writer ([`Shards`]); in memory are only the tier being
//! solved and its child tiers, read back from their shards. A memory budget
//! too small for some tier is refused before any work, naming the tier; a
//! killed build keeps its finished tiers and a rerun starts at the first
//! unfinished one ([`build()`]); tiers whose child tiers are done are
//! solved at the same time while the memory they need together stays
//! within the budget. Several processes may build one game
//! together, each into its own directory or a shared one, the tiers dealt
//! out among them (`deal`), each told over TCP when a child shard another
//! writes is there and fetching it over TCP if its directory lacks it,
//! and naming any of them that dies or whose heartbeat stops
//! ([`crate::team::Team`]). The shards of every tier read as one
//! database whose keys are [`Plan::key`].
//!
//! [`NamedTiers`]: crate::game::NamedTiers

pub(crate) mod build;
pub(crate) mod cells;
pub(crate) mod classes;
mod cut;
pub(crate) mod deal;
mod job;
pub(crate) mod plan;
pub(crate) mod restore;
pub(crate) mod shard;
pub(crate) mod solve;
mod together;

pub use build::{Built, Options, build};
pub use plan::{Plan, Step};
pub use restore::restore;
pub use shard::Shards;
pub use solve::{ChildCells, Layout, solve_tier, solve_tier_as};

use crate::db::DbError;
use crate::error::SolveError;
use crate::limits::{TooLarge, human_bytes};
use crate::team::TeamError;

/// Why a tiered build could not finish.
#[derive(Debug)]
pub enum TierError {
    /// A tier needs more memory than the budget allows: said before any
    /// work, or before the tier's when its child tiers' cells turn out to
    /// take two bytes each.
    Budget {
        /// The tier's name.
        tier: String,
        /// The bytes solving it needs.
        needed: u64,
        /// The budget.
        budget: u64,
    },
    /// The system has too little memory.
    TooLarge(TooLarge),
    /// The game broke a promise of [`crate::game::NamedTiers`].
    Game(String),
    /// Some remoteness does not fit a cell.
    RemotenessOverflow,
    /// The progress reporter asked the build to stop.
    Cancelled,
    /// A shard could not be read or written.
    Db(DbError),
    /// The team of processes building the tiers together failed: a
    /// process is lost (its heartbeat stopped, or it is of another team).
    Team(TeamError),
    /// A solve failed (a solver this one calls).
    Solve(SolveError),
}

impl std::fmt::Display for TierError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Budget {
                tier,
                needed,
                budget,
            } => write!(
                f,
                "tier {tier} needs {needed} bytes ({}) of memory, over the budget of {budget} bytes ({})",
                human_bytes(*needed),
                human_bytes(*budget)
            ),
            Self::TooLarge(why) => why.fmt(f),
            Self::Game(why) => write!(f, "the game's tiers are inconsistent: {why}"),
            Self::RemotenessOverflow => write!(
                f,
                "a remoteness exceeds {}, the most a cell holds",
                crate::value::Cell::MAX_REMOTENESS
            ),
            Self::Cancelled => f.write_str("tiered analysis cancelled"),
            Self::Db(e) => e.fmt(f),
            Self::Team(e) => e.fmt(f),
            Self::Solve(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TierError {}

impl From<SolveError> for TierError {
    fn from(e: SolveError) -> Self {
        match e {
            SolveError::Cancelled(_) => Self::Cancelled,
            other => Self::Solve(other),
        }
    }
}

impl From<TeamError> for TierError {
    fn from(e: TeamError) -> Self {
        match e {
            TeamError::Cancelled => Self::Cancelled,
            TeamError::Db(e) => Self::Db(e),
            other => Self::Team(other),
        }
    }
}

impl From<DbError> for TierError {
    fn from(e: DbError) -> Self {
        Self::Db(e)
    }
}

#[cfg(test)]
mod tests;
