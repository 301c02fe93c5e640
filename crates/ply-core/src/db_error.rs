//! What can be wrong with a solved form read through [`crate::Solution`],
//! most often a database file. Every problem names the file; none of them
//! ever yields an answer. Built with or without the `db` feature, since
//! in-memory solutions share the interface.

use std::fmt;
use std::path::{Path, PathBuf};

/// A database that cannot be read or written, and why.
#[derive(Debug)]
pub struct DbError {
    /// The file (or directory) concerned.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: Problem,
}

/// What is wrong with a database file.
#[derive(Debug)]
pub enum Problem {
    /// Reading or writing failed.
    Io(std::io::Error),
    /// The file does not start with the database magic bytes.
    NotADatabase,
    /// The file ends before its footer says it should.
    Truncated,
    /// The path names no regular file (a directory, a FIFO, a device).
    NotAFile,
    /// The file changed on disk after it was opened (rewritten or
    /// truncated by another program); it must be opened again.
    Changed,
    /// Written by a newer ply, in a format this one cannot read.
    NewerFormat {
        /// The format version in the file.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The header's checksum does not match its bytes.
    HeaderChecksum,
    /// The block index's checksum does not match its bytes.
    IndexChecksum,
    /// A block's checksum does not match its bytes.
    BlockChecksum {
        /// The block, counting from 0.
        block: u64,
    },
    /// The file holds another game or variant.
    WrongGame {
        /// The game asked for.
        expected: String,
        /// The game in the file.
        found: String,
    },
    /// The file holds a game other than the one its name says, so that
    /// ply, which looks for a game's database by its name, never reads it.
    Misnamed {
        /// The game in the file.
        found: String,
        /// The name its database bears.
        name: String,
    },
    /// The file was built under other rules (or another index) of the game.
    WrongRules {
        /// The game's rules version in this build.
        expected: u32,
        /// The rules version in the file.
        found: u32,
    },
    /// The file's structure contradicts itself.
    Corrupt(String),
    /// The build was cancelled before it finished.
    Cancelled,
    /// The file holds only the indices its game names ([`crate::Keys::Present`])
    /// and was read without the game's test of them.
    NoPresence,
}

impl DbError {
    /// `problem` with the file at `path`.
    pub fn new(path: &Path, problem: Problem) -> Self {
        Self {
            path: path.to_path_buf(),
            problem,
        }
    }

    /// A structural contradiction in the file at `path`.
    pub fn corrupt(path: &Path, what: impl Into<String>) -> Self {
        Self::new(path, Problem::Corrupt(what.into()))
    }

    /// An I/O failure on `path`.
    pub fn io(path: &Path, error: std::io::Error) -> Self {
        Self::new(path, Problem::Io(error))
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::NotADatabase => f.write_str("not a ply database (bad magic bytes)"),
            Self::Truncated => f.write_str("truncated (the file ends early)"),
            Self::NotAFile => f.write_str("not a regular file"),
            Self::Changed => f.write_str(
                "the file changed on disk while it was open (rewritten or truncated); \
                 open it again",
            ),
            Self::NewerFormat { found, supported } => write!(
                f,
                "format version {found} is newer than this ply reads (up to {supported}); rebuild it or upgrade ply"
            ),
            Self::HeaderChecksum => f.write_str("header checksum mismatch (the file is corrupt)"),
            Self::IndexChecksum => {
                f.write_str("block index checksum mismatch (the file is corrupt)")
            }
            Self::BlockChecksum { block } => {
                write!(f, "block {block} checksum mismatch (the file is corrupt)")
            }
            Self::WrongGame { expected, found } => {
                write!(f, "holds {found}, not {expected}")
            }
            Self::Misnamed { found, name } => write!(
                f,
                "holds {found}, whose database is named {name}: ply never reads it under this name"
            ),
            Self::WrongRules { expected, found } => write!(
                f,
                "built under rules version {found}, but this ply plays rules version {expected}; rebuild it"
            ),
            Self::Corrupt(what) => write!(f, "corrupt: {what}"),
            Self::Cancelled => f.write_str("build cancelled"),
            Self::NoPresence => f.write_str(
                "it holds only the positions its game names, and was read without the game",
            ),
        }
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "database {}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for DbError {}
