//! The processes that solve one game together: who they are
//! ([`Team`]), how each knows the others are alive ([`Heartbeat`]), how
//! they exchange what they solved, and why one stops ([`TeamError`]).
//!
//! This module is the one seam between the solvers and the other
//! processes: [`crate::tier`] (a tier team) and [`crate::solve`] (a table
//! team) reach their peers only through what is listed here, and nothing
//! here knows a solver. It knows two ways of reaching the peers:
//!
//! - **TCP** (a team with hosts): every process connected to every other
//!   one (`connect`), a heartbeat connection beside each data connection,
//!   and the losses found by either told to every peer (the `losses`
//!   module), so that the error names the process that was really lost.
//!   A tier team tells its peers what it finished over the data
//!   connections (`Crew`); the `dist` module hands them to timely.
//! - **A shared directory** (the table team, which has not moved to TCP
//!   yet): heartbeat files ([`Heartbeat::in_dir`], watched by `Watch`),
//!   and each tier's cells a process solved as a *part* file its peers
//!   read (`Member`, the `part` module).

mod crew;
mod error;
mod exchange;
mod heartbeat;
mod losses;
mod membership;
mod network;
mod part;
mod watch;

pub use error::TeamError;
pub use exchange::Exchanged;
pub use heartbeat::Heartbeat;
pub use membership::Team;

pub use membership::CONNECT_TIMEOUT;

pub(crate) use crew::{Crew, Notice, tag};
pub(crate) use exchange::Member;
#[cfg(feature = "dist")]
pub(crate) use losses::{lost, lost_now, record, seen_any};
#[cfg(test)]
pub(crate) use network::free_hosts;
pub(crate) use network::{Links, connect, tag_of};
pub(crate) use part::Run;
pub(crate) use watch::Watch;
