//! What `ply serve` lets one request cost: each limit a flag with a default,
//! shown by `ply serve --help`.

use clap::Args;
use ply_core::limits::{MAX_TABLE_BYTES, human_bytes};
use std::time::Duration;

/// What the server's resident memory may take beyond `--session-mib`, in
/// MiB, as `ply serve --help` states: the answer cache
/// ([`super::DEFAULT_CACHE_BYTES`]), the program, its threads and the
/// allocator's slack.
pub const OVERHEAD_MIB: u64 = 160;

/// The server's limits.
#[derive(Args, Debug, Clone)]
pub struct Limits {
    /// The largest table the server builds for one game, in MiB (games
    /// whose tables would be larger are refused with 503; `ply solve` on the
    /// command line builds tables up to 2048 MiB).
    #[arg(long, value_name = "MIB", default_value_t = 512)]
    pub max_table_mib: u64,
    /// The longest position the server answers, in characters (a row of
    /// that many squares). A request target holds at most 64 KiB, so
    /// positions longer than about 60,000 characters (fewer where they
    /// must be percent-encoded) are for `ply solve` on the command line.
    #[arg(long, value_name = "SQUARES", default_value_t = 65536)]
    pub max_row: usize,
    /// The longest a solve may search, in seconds; past it the request gets
    /// 503 with Retry-After and the search stops. A search that keeps its
    /// table (Morris's placing phase over a stored moving phase) answers
    /// `"pending": true`: what it found is kept, and asking again goes on
    /// from there, as the page does.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub solve_seconds: f64,
    /// Memory for open games, in MiB: their tables, search caches and
    /// database caches. The least recently used games are closed to make
    /// room; a game that alone needs more is refused with 503. The
    /// server's resident memory stays under this plus 160 MiB (the answer
    /// cache's 64 MiB, the program, its threads and the allocator's slack).
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub session_mib: u64,
    /// Solves run at once (0: twice the cores, at least 4); more wait.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_solves: usize,
    /// The longest a request may take in all, in seconds; also the
    /// longest a client may leave its answer unread before the connection
    /// is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub request_seconds: f64,
    /// The longest a client may take to send a request's headers, in
    /// seconds; the connection is closed after it.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub header_seconds: f64,
    /// Connections open at once; more are closed at once.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub max_connections: usize,
    /// Another Host (name or name:port) to accept besides the address the
    /// server listens on and localhost; repeat for more. Requests for any
    /// other Host are refused (against DNS rebinding).
    #[arg(long, value_name = "HOST")]
    pub allow_host: Vec<String>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_table_mib: 512,
            max_row: 65536,
            solve_seconds: 10.0,
            session_mib: 1024,
            max_solves: 0,
            request_seconds: 30.0,
            header_seconds: 10.0,
            max_connections: 4096,
            allow_host: Vec::new(),
        }
    }
}

impl Limits {
    /// Says what is wrong with the limits, if anything.
    pub fn check(&self) -> Result<(), String> {
        for (name, seconds) in [
            ("--solve-seconds", self.solve_seconds),
            ("--request-seconds", self.request_seconds),
            ("--header-seconds", self.header_seconds),
        ] {
            if !(seconds > 0.0 && seconds <= 86_400.0) {
                return Err(format!(
                    "{name} {seconds}: give a number of seconds from above 0 to 86400"
                ));
            }
        }
        if self.max_table_bytes() > MAX_TABLE_BYTES {
            return Err(format!(
                "--max-table-mib {}: tables are at most {}",
                self.max_table_mib,
                human_bytes(MAX_TABLE_BYTES)
            ));
        }
        if self.max_connections == 0 {
            return Err("--max-connections 0: at least one connection is needed".into());
        }
        Ok(())
    }

    /// The largest table, in bytes.
    pub fn max_table_bytes(&self) -> u64 {
        self.max_table_mib.saturating_mul(1 << 20)
    }

    /// Memory for open games, in bytes.
    pub fn session_bytes(&self) -> u64 {
        self.session_mib.saturating_mul(1 << 20)
    }

    /// The bytes of decoded database blocks the server keeps, shared by
    /// every game it answers from a database: a quarter of
    /// `--session-mib` where databases are read, else none.
    pub fn block_cache_bytes(&self) -> u64 {
        let reads = crate::session::store::current().is_some_and(|s| s.read);
        if reads { self.session_bytes() / 4 } else { 0 }
    }

    /// What open games' own memory may take: `--session-mib` less the
    /// block cache.
    pub fn table_bytes(&self) -> u64 {
        self.session_bytes() - self.block_cache_bytes()
    }

    /// The transposition table of a search (Morris's placing phase over a
    /// database, Connect Four's 7x6 alone): the usual size, or a quarter
    /// of what open games may take if that is less, and never more than
    /// the largest table the server builds (`--max-table-mib`), so that a
    /// game answered by search alone is served under a tight table limit
    /// with a smaller table rather than refused.
    pub fn search_table_bytes(&self) -> u64 {
        ply_core::limits::SEARCH_TABLE_BYTES
            .min(self.table_bytes() / 4)
            .min(self.max_table_bytes())
    }

    /// Solves run at once.
    pub fn solves(&self) -> usize {
        if self.max_solves > 0 {
            return self.max_solves;
        }
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        (2 * cores).max(4)
    }

    /// The search budget of one solve.
    pub fn solve_time(&self) -> Duration {
        Duration::from_secs_f64(self.solve_seconds)
    }

    /// The time limit of one request.
    pub fn request_time(&self) -> Duration {
        Duration::from_secs_f64(self.request_seconds)
    }

    /// The time a client has to send its headers.
    pub fn header_time(&self) -> Duration {
        Duration::from_secs_f64(self.header_seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_table_limit_is_refused_not_wrapped() {
        let limits = Limits {
            max_table_mib: u64::MAX,
            ..Limits::default()
        };
        assert!(limits.check().unwrap_err().contains("tables are at most"));
        let limits = Limits {
            max_table_mib: MAX_TABLE_BYTES >> 20,
            ..Limits::default()
        };
        assert_eq!(limits.check(), Ok(()));
    }
}
