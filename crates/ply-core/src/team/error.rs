//! [`TeamError`]: why a process of a team could not go on with the others.
//! A database file's failure stays a [`DbError`] inside it, so a caller
//! can still tell a corrupt shard from a full disk.

use crate::db_error::DbError;
use crate::error::SolveError;
use std::fmt;

/// Why a process of a team could not go on with the others.
#[derive(Debug)]
pub enum TeamError {
    /// The processes given do not make a team (an index past the count,
    /// an empty hosts list).
    Config(String),
    /// This process could not reach every other one in time.
    Connect(String),
    /// A peer process is lost: it was killed, stopped or cut off (its
    /// heartbeat stopped), or it belongs to another team.
    Lost {
        /// The lost process's index.
        process: usize,
        /// Where it runs, where that is known: its `host:port` in the
        /// hosts list, or the host its heartbeat named.
        host: Option<String>,
        /// What was seen of it.
        why: String,
    },
    /// A peer sent a message that does not read back (its framing,
    /// checksum or cells do not add up): it runs another build of ply, or
    /// the bytes were damaged on the way.
    Garbled {
        /// The process that sent it.
        process: usize,
        /// Where it runs, where that is known: its `host:port`.
        host: Option<String>,
        /// What is wrong with the message.
        why: String,
    },
    /// A database file the team builds could not be read or written.
    Db(DbError),
    /// A socket (or another handle of the team's) failed.
    Io {
        /// What this process was doing.
        what: String,
        /// How it failed.
        error: std::io::Error,
    },
    /// The progress reporter asked the build to stop.
    Cancelled,
    /// This process's own share of the work failed as it would alone.
    Work(SolveError),
}

impl fmt::Display for TeamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config(why) => f.write_str(why),
            Self::Connect(why) => write!(f, "cannot connect the processes: {why}"),
            Self::Lost { process, host, why } => {
                write!(f, "lost process {process}")?;
                if let Some(host) = host {
                    write!(f, " ({host})")?;
                }
                write!(f, ": {why}")
            }
            Self::Garbled { process, host, why } => {
                write!(f, "process {process}")?;
                if let Some(host) = host {
                    write!(f, " ({host})")?;
                }
                write!(f, " sent a malformed message: {why}")
            }
            Self::Db(e) => e.fmt(f),
            Self::Io { what, error } => write!(f, "{what}: {error}"),
            Self::Cancelled => f.write_str("the team's build was cancelled"),
            Self::Work(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TeamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Db(e) => Some(e),
            Self::Io { error, .. } => Some(error),
            Self::Work(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DbError> for TeamError {
    fn from(e: DbError) -> Self {
        Self::Db(e)
    }
}

impl From<SolveError> for TeamError {
    fn from(e: SolveError) -> Self {
        match e {
            SolveError::Cancelled(_) => Self::Cancelled,
            other => Self::Work(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    #[test]
    fn a_database_failure_is_kept_whole() {
        let db = DbError::new(
            std::path::Path::new("/x/game.part"),
            crate::db_error::Problem::Truncated,
        );
        let error = TeamError::from(db);
        let TeamError::Db(kept) = &error else {
            panic!("not kept: {error}");
        };
        assert!(matches!(kept.problem, crate::db_error::Problem::Truncated));
        assert!(error.source().is_some());
        assert!(error.to_string().contains("/x/game.part"), "{error}");
    }

    #[test]
    fn a_lost_peer_is_named_with_its_host() {
        let lost = TeamError::Lost {
            process: 2,
            host: Some("node-c".into()),
            why: "silent".into(),
        };
        assert_eq!(lost.to_string(), "lost process 2 (node-c): silent");
        let unknown = TeamError::Lost {
            process: 1,
            host: None,
            why: "never seen".into(),
        };
        assert_eq!(unknown.to_string(), "lost process 1: never seen");
        let garbled = TeamError::Garbled {
            process: 1,
            host: Some("node-b".into()),
            why: "its checksum does not match".into(),
        };
        assert_eq!(
            garbled.to_string(),
            "process 1 (node-b) sent a malformed message: its checksum does not match"
        );
    }
}
