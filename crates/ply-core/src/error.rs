//! [`SolveError`]: why a solver could not answer, one type for every solver
//! family (tables, reachable tables, retrograde analysis in its forms,
//! alpha-beta search, heap values, the tier solver), by kind, so that a
//! caller tells a game too large from a stopped computation without
//! reading messages.

use crate::limits::TooLarge;
use crate::value::Cell;
use std::fmt;

/// Why a solver could not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The game does not fit the solver's tables or this machine's memory;
    /// said before any work starts where possible.
    TooLarge(TooLarge),
    /// The computation was asked to stop (a deadline, a cancel, Ctrl-C);
    /// says what was stopped.
    Cancelled(String),
    /// A remoteness, or a count of moves, past what a cell holds.
    Overflow(String),
    /// The game breaks a contract the solver relies on (a move that climbs
    /// a tier, a position it cannot unrank), or asks for what the solver
    /// does not do.
    Unsupported(String),
    /// The system would not give memory the solver asked for (this many
    /// bytes) although it looked available.
    OutOfMemory(u64),
}

impl SolveError {
    /// A remoteness past [`Cell::MAX_REMOTENESS`], the most a table cell holds.
    pub fn remoteness_overflow() -> Self {
        Self::Overflow(format!(
            "a remoteness exceeds {}, the most a table cell holds",
            Cell::MAX_REMOTENESS
        ))
    }

    /// Whether the computation was stopped rather than failed.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Self::Cancelled(_))
    }
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge(why) => why.fmt(f),
            Self::Cancelled(what) | Self::Overflow(what) | Self::Unsupported(what) => {
                f.write_str(what)
            }
            Self::OutOfMemory(bytes) => write!(
                f,
                "the system would not give the {} the solver asked for",
                crate::limits::human_bytes(*bytes)
            ),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<TooLarge> for SolveError {
    fn from(why: TooLarge) -> Self {
        Self::TooLarge(why)
    }
}
