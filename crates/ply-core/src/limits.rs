//! The limits of the engine, in one place: the commands' parameter checks,
//! `ply games`, the docs and the errors all quote these numbers, and every
//! solver checks them before it allocates.
//!
//! Also [`Budget`]: the [`Progress`] a bounded computation runs under, which
//! asks it to stop on a deadline, an explicit cancel (a client gone, Ctrl-C),
//! or never, and passes progress on to another reporter.

use crate::progress::Progress;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The most memory one dense table may take: 2 GiB (two bytes per position,
/// so 2^30 positions).
pub const MAX_TABLE_BYTES: u64 = 2 << 30;

/// The most squares an Euler board may have: a dense table of 2^30
/// positions fills [`MAX_TABLE_BYTES`].
pub const MAX_EULER_SQUARES: usize = 30;

/// The most memory a table of every reachable tic-tac-toe position may take
/// (the same budget as a dense table).
pub const MAX_SPARSE_BYTES: u64 = MAX_TABLE_BYTES;

/// The most memory an alpha-beta transposition table takes unless told
/// otherwise ([`set_search_table_bytes`]): 64 MiB.
pub const SEARCH_TABLE_BYTES: u64 = 64 << 20;

/// The bytes of a search's transposition table made from now on.
static SEARCH_TABLE: AtomicU64 = AtomicU64::new(SEARCH_TABLE_BYTES);

/// Sets the bytes of the transposition tables of searches made from now
/// on (`ply solve --memory`): Morris's placing phase.
pub fn set_search_table_bytes(bytes: u64) {
    SEARCH_TABLE.store(bytes, Ordering::Relaxed);
}

/// The bytes a search's transposition table takes (see
/// [`set_search_table_bytes`]).
pub fn search_table_bytes() -> u64 {
    SEARCH_TABLE.load(Ordering::Relaxed)
}

/// The longest Treblecross row: rows up to 2^20 - 2 squares are answered
/// from the 0.007 values shipped with ply ([`crate::shipped`]), longer
/// ones compute 0.007 values first (minutes of CPU at this limit).
pub const MAX_TREBLECROSS_ROW: usize = 1 << 21;

/// Bytes in a human unit, for messages: `512 MiB`, `2.0 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if bytes >= GIB {
        format!("{:.1} GiB", bytes as f64 / GIB as f64)
    } else if bytes >= MIB {
        format!("{} MiB", bytes.div_ceil(MIB))
    } else {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    }
}

/// Why a computation does not fit: said before it starts where possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TooLarge {
    /// `what` needs `needed` bytes of memory and the system has only
    /// `available` free.
    Memory {
        /// What the memory is for.
        what: String,
        /// The bytes it needs.
        needed: u64,
        /// The bytes the system says are available.
        available: u64,
    },
    /// `game` has more positions than the solver handles.
    Positions {
        /// The game's name.
        game: String,
        /// Its positions (the size of its index).
        positions: u64,
        /// The most the solver handles.
        most: u64,
    },
    /// `game` has more moves (from one position, or in all) than the
    /// solver counts.
    Moves {
        /// The game's name.
        game: String,
        /// The moves found.
        moves: u64,
        /// The most the solver counts.
        most: u64,
    },
    /// `what` needs `needed` bytes of disk in `dir` and its file system
    /// has only `available` free.
    Disk {
        /// What the disk is for.
        what: String,
        /// The directory written.
        dir: std::path::PathBuf,
        /// The bytes it needs.
        needed: u64,
        /// The bytes free to an unprivileged user there.
        available: u64,
    },
    /// A table over `positions` indices needs `bytes`, over the limit
    /// `most` of one table.
    Table {
        /// The indices the table covers.
        positions: u64,
        /// The bytes it needs.
        bytes: u64,
        /// The most one table may take.
        most: u64,
    },
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Memory {
                what,
                needed,
                available,
            } => write!(
                f,
                "{what} needs {} of memory but only {} is available",
                human_bytes(*needed),
                human_bytes(*available)
            ),
            Self::Disk {
                what,
                dir,
                needed,
                available,
            } => write!(
                f,
                "{what} needs about {} of disk in {} but only {} is free there",
                human_bytes(*needed),
                dir.display(),
                human_bytes(*available)
            ),
            Self::Positions {
                game,
                positions,
                most,
            } => write!(
                f,
                "{game} has {positions} positions; this solver handles at most {most}"
            ),
            Self::Moves { game, moves, most } => write!(
                f,
                "{game} has {moves} moves where this solver counts at most {most}"
            ),
            Self::Table {
                positions,
                bytes,
                most,
            } => write!(
                f,
                "a table of {positions} positions needs {}, over the {} limit",
                human_bytes(*bytes),
                human_bytes(*most)
            ),
        }
    }
}

impl std::error::Error for TooLarge {}

/// The memory available to a new allocation, from `MemAvailable` in
/// /proc/meminfo; `None` where that cannot be read.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses to allocate `bytes` for `what` when the system has less than
/// that and an eighth more available (when it says: on Linux).
pub fn check_memory(what: &str, bytes: u64) -> Result<(), TooLarge> {
    match available_memory() {
        Some(available) if available < bytes.saturating_add(bytes / 8) => Err(TooLarge::Memory {
            what: what.to_string(),
            needed: bytes,
            available,
        }),
        _ => Ok(()),
    }
}

/// The bytes free to an unprivileged user in the file system holding
/// `dir`; `None` where that cannot be told.
pub fn available_disk(dir: &std::path::Path) -> Option<u64> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Refuses to write `bytes` for `what` into `dir` when its file system
/// has less than that free (when it says).
pub fn check_disk(what: &str, dir: &std::path::Path, bytes: u64) -> Result<(), TooLarge> {
    match available_disk(dir) {
        Some(available) if available < bytes => Err(TooLarge::Disk {
            what: what.to_string(),
            dir: dir.to_path_buf(),
            needed: bytes,
            available,
        }),
        _ => Ok(()),
    }
}

/// Asks a computation to stop when a deadline passes or when
/// [`Budget::cancel`] is called (from any thread, through a clone of the
/// [`Budget::flag`]); passes progress on to `inner`.
pub struct Budget<'a> {
    deadline: Option<Instant>,
    flag: Arc<AtomicBool>,
    inner: &'a dyn Progress,
}

impl<'a> Budget<'a> {
    /// No deadline, a fresh cancel flag, progress passed to `inner`.
    pub fn new(inner: &'a dyn Progress) -> Self {
        Self {
            deadline: None,
            flag: Arc::new(AtomicBool::new(false)),
            inner,
        }
    }

    /// The same budget, ending `limit` from now.
    pub fn with_limit(mut self, limit: Duration) -> Self {
        self.deadline = Instant::now().checked_add(limit);
        self
    }

    /// The same budget, cancelled when `flag` is set.
    pub fn with_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.flag = flag;
        self
    }

    /// The flag that cancels this budget when set.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Asks the computation to stop.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether the deadline (if any) has passed.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Progress for Budget<'_> {
    fn begin(&self, phase: &str, total: u64) {
        self.inner.begin(phase, total);
    }

    fn advance(&self, done: u64) {
        self.inner.advance(done);
    }

    fn end(&self) {
        self.inner.end();
    }

    fn note(&self, line: &str) {
        self.inner.note(line);
    }

    fn cancelled(&self) -> bool {
        if self.flag.load(Ordering::Relaxed) || self.inner.cancelled() {
            return true;
        }
        if self.expired() {
            self.cancel();
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;

    #[test]
    fn a_budget_stops_on_its_flag_and_its_deadline() {
        let open = Budget::new(&NoProgress);
        assert!(!open.cancelled());
        let flag = open.flag();
        flag.store(true, Ordering::Relaxed);
        assert!(open.cancelled());
        let timed = Budget::new(&NoProgress).with_limit(Duration::ZERO);
        assert!(timed.cancelled());
        assert!(timed.flag().load(Ordering::Relaxed), "expiry sets the flag");
    }

    #[test]
    fn the_disk_check_refuses_more_than_is_free_and_names_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let free = available_disk(dir.path()).expect("statvfs works on a temporary directory");
        assert!(free > 0);
        assert!(check_disk("a small build", dir.path(), 1).is_ok());
        let refused = check_disk(
            "a huge build",
            dir.path(),
            free.saturating_mul(2).max(1 << 50),
        );
        let why = refused
            .expect_err("more than is free is refused")
            .to_string();
        assert!(
            why.contains("a huge build") && why.contains(&dir.path().display().to_string()),
            "{why}"
        );
    }

    #[test]
    fn the_euler_limit_fills_the_table_limit() {
        assert_eq!(2u64 << MAX_EULER_SQUARES, MAX_TABLE_BYTES);
        assert_eq!(human_bytes(MAX_TABLE_BYTES), "2.0 GiB");
        assert_eq!(human_bytes(64 << 20), "64 MiB");
    }
}
