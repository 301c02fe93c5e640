//! Errors the `ply` command reports: one clear line on stderr, exit code 2.

use ply_core::PositionError;
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
    /// The work needs more memory than the machine has free or than a
    /// solver's limits allow: refused before it allocates. Says what and
    /// how much. The server answers it with 503 (its fault, not the
    /// request's).
    TooLarge(String),
}

impl PlyError {
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
            Self::Database(message) | Self::TooLarge(message) => f.write_str(message),
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
    fn from(err: PositionError) -> Self {
        Self::Argument(err.to_string())
    }
}
