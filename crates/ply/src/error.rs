//! Errors the `ply` command reports: one clear line on stderr, exit code 2.

use ply_core::{PositionError, SolveError};
use std::fmt;

/// Everything that can go wrong in a `ply` command.
#[derive(Debug)]
pub enum PlyError {
    /// A bad command-line argument: unknown game, malformed position, ...
    Argument(String),
    /// Malformed judge input, with the 1-based line number where it went wrong.
    Input {
        /// The line the problem was found on.
        line: usize,
        /// What was expected there.
        message: String,
    },
    /// Reading input or writing output failed.
    Io(std::io::Error),
    /// The work was stopped before it finished: its budget ran out, its
    /// client went away or Ctrl-C was pressed. Says what was stopped.
    Cancelled(String),
    /// A solved database is unreadable, corrupt or for something else
    /// (the message names the file and the problem).
    Database(String),
    /// The request is valid but does not fit this machine or its limits
    /// now: a table too large for the memory, an allocation refused, an
    /// answer that could not be computed. Not the asker's fault.
    Unavailable(String),
}

/// What kind of error a [`PlyError`] is: the CLI's exit code and the
/// server's HTTP status follow from it, in one table ([`Kind::codes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A bad argument or malformed input: the asker's fault.
    Argument,
    /// Reading or writing failed, or a database is bad: the server's fault.
    Internal,
    /// Stopped before the end, or beyond this machine's limits now: ask
    /// again later or smaller.
    Unavailable,
}

impl Kind {
    /// The exit code of `ply` and the HTTP status of `ply serve` for this
    /// kind of error. Every error exits 2, the command contract; the
    /// server tells the asker's fault (400) from its own (500) and from
    /// what it cannot do now (503, with Retry-After).
    pub fn codes(self) -> (u8, u16) {
        match self {
            Self::Argument => (2, 400),
            Self::Internal => (2, 500),
            Self::Unavailable => (2, 503),
        }
    }
}

impl PlyError {
    /// The kind of this error (see [`Kind::codes`]).
    pub fn kind(&self) -> Kind {
        match self {
            Self::Argument(_) | Self::Input { .. } => Kind::Argument,
            Self::Io(_) | Self::Database(_) => Kind::Internal,
            Self::Cancelled(_) | Self::Unavailable(_) => Kind::Unavailable,
        }
    }

    /// A solver's `error` while solving `what` (a game, or what was being
    /// done to it), kept by kind: a stopped solve is [`PlyError::Cancelled`],
    /// one that does not fit is [`PlyError::Unavailable`], and what the
    /// solver does not do is an argument error.
    pub fn solve(what: impl fmt::Display, error: SolveError) -> Self {
        match error {
            SolveError::Cancelled(_) => Self::Cancelled(what.to_string()),
            SolveError::TooLarge(_) | SolveError::OutOfMemory(_) => {
                Self::Unavailable(format!("{what}: {error}"))
            }
            SolveError::Overflow(_) | SolveError::Unsupported(_) => {
                Self::Argument(format!("{what}: {error}"))
            }
        }
    }

    /// A bad argument.
    pub fn argument(message: impl Into<String>) -> Self {
        Self::Argument(message.into())
    }

    /// Malformed input at `line`.
    pub fn input(line: usize, message: impl Into<String>) -> Self {
        Self::Input {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for PlyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Argument(message) => f.write_str(&excerpt(message, MAX_MESSAGE_CHARS)),
            Self::Input { line, message } => write!(
                f,
                "input line {line}: {}",
                excerpt(message, MAX_MESSAGE_CHARS)
            ),
            Self::Io(err) => write!(f, "I/O error: {err}"),
            Self::Cancelled(what) => write!(f, "stopped: {what}"),
            Self::Database(message) | Self::Unavailable(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for PlyError {}

/// The longest error message printed, in characters: a message quoting a
/// huge bad input is cut.
const MAX_MESSAGE_CHARS: usize = 500;

/// `text` cut to its first `max_chars` characters for a message, saying how
/// long it was when cut, so that a huge bad input makes a short error.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}... ({} bytes in all)", &text[..cut], text.len()),
    }
}

impl From<std::io::Error> for PlyError {
    fn from(err: std::io::Error) -> Self {
        Self::Io(err)
    }
}

impl From<ply_core::DbError> for PlyError {
    fn from(err: ply_core::DbError) -> Self {
        Self::Database(err.to_string())
    }
}

impl From<PositionError> for PlyError {
    /// Keeps the kind: a position that could not be answered is the
    /// server's limit, not a bad argument.
    fn from(err: PositionError) -> Self {
        match err {
            PositionError::Unavailable(message) => Self::Unavailable(message),
            other => Self::Argument(other.to_string()),
        }
    }
}
