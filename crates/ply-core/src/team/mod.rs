//! The processes that solve one game together: who they are
//! ([`Team`]), how each knows the others are alive ([`Heartbeat`]), how
//! they exchange what they solved, and why one stops ([`TeamError`]).
//!
//! This module is the one seam between the solvers and the other
//! processes: [`crate::tier`] (a tier team) and [`crate::solve`] (a table
//! team) reach their peers only through what is listed here, and nothing
//! here knows a solver. Its processes reach each other over **TCP** and
//! nothing else: every process connected to every other one (`connect`,
//! at the addresses of the team's hosts), a heartbeat connection beside
//! each data connection ([`Heartbeat`]), and the losses found by either
//! told to every peer (the `losses` module), so that the error names the
//! process that was really lost. Over the data connections (`Crew`):
//!
//! - a tier team tells its peers what it finished (notices of 9 bytes),
//!   and a process fetches from its peer a shard (or slice) it needs and
//!   does not have, streamed in chunks; so no directory need be shared;
//! - a table team sends each tier's cells it solved to every peer, and
//!   reads every peer's (an all-gather per tier: `Member`, its messages
//!   coded by the `part` module). It shares no directory, and keeps
//!   nothing between runs but the database process 0 saves at the end.
//!
//! The `dist` module hands the connections to timely instead.

mod crew;
mod error;
mod exchange;
mod heartbeat;
mod losses;
mod membership;
mod network;
mod part;
pub(crate) mod varints;

pub use error::TeamError;
pub use exchange::Exchanged;
pub use heartbeat::Heartbeat;
pub use membership::Team;

pub use membership::CONNECT_TIMEOUT;

pub use crew::Traffic;
pub(crate) use crew::{Crew, Files, Notice, tag};
pub(crate) use exchange::Member;
#[cfg(feature = "dist")]
pub(crate) use losses::{lost, lost_now, record, seen_any};
#[cfg(test)]
pub(crate) use network::free_hosts;
pub(crate) use network::{Links, connect, tag_of};
pub(crate) use part::Run;
