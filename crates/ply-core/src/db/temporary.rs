//! The temporary files a build writes beside its database before renaming
//! them into place (`.NAME.PID.NANOS.SERIAL.tmp`), and which of them are
//! stale: left by a build that was killed, whose process is gone, so that
//! they will never be finished.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{SystemTime, UNIX_EPOCH};

/// A name beside `path` that no other builder uses: hidden, with this
/// process's id and the time, ending in `.tmp`.
pub fn path_for(path: &Path) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = path
        .file_name()
        .map_or_else(|| "db".into(), |n| n.to_string_lossy().into_owned());
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let serial = SERIAL.fetch_add(1, Relaxed);
    path.with_file_name(format!(
        ".{name}.{}.{nanos}.{serial}.tmp",
        std::process::id()
    ))
}

/// A temporary file of a build found in a database directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Temporary {
    /// The file.
    pub path: PathBuf,
    /// The name of the database file it becomes once renamed.
    pub database: String,
    /// The process that writes it.
    pub pid: u32,
}

impl Temporary {
    /// The temporary file at `path`, if its name is one a build gives.
    pub fn parse(path: &Path) -> Option<Temporary> {
        let name = path.file_name()?.to_str()?;
        let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
        let mut parts = inner.rsplitn(4, '.');
        let (serial, nanos, pid, database) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        serial.parse::<u64>().ok()?;
        nanos.parse::<u128>().ok()?;
        Some(Temporary {
            path: path.to_path_buf(),
            database: database.to_string(),
            pid: pid.parse().ok()?,
        })
    }

    /// Whether the build writing it is gone, so it will never be finished.
    /// Known only where `/proc` lists processes (Linux); elsewhere no file
    /// is called stale, so a build under way is never disturbed.
    pub fn stale(&self) -> bool {
        let proc = Path::new("/proc");
        self.pid != std::process::id()
            && proc.join("self").exists()
            && !proc.join(self.pid.to_string()).exists()
    }
}

/// The temporary files in `dir`, in name order (none if it cannot be read).
pub fn in_dir(dir: &Path) -> Vec<Temporary> {
    let mut found: Vec<Temporary> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| Temporary::parse(&entry.path()))
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Removes the stale temporary files of the database at `path` (left by
/// killed builds of it), returning those removed.
pub fn remove_stale(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    in_dir(dir)
        .into_iter()
        .filter(|t| name.to_str() == Some(t.database.as_str()) && t.stale())
        .filter(|t| std::fs::remove_file(&t.path).is_ok())
        .map(|t| t.path)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_name_reads_back() {
        let path = path_for(Path::new("/d/euler-3x4.plydb"));
        let found = Temporary::parse(&path).unwrap();
        assert_eq!(found.database, "euler-3x4.plydb");
        assert_eq!(found.pid, std::process::id());
        assert!(!found.stale(), "this process is running");
        let shard = Path::new("/d/.yehr.shard-1-of-2.plydb.4242.17.3.tmp");
        let found = Temporary::parse(shard).unwrap();
        assert_eq!(found.database, "yehr.shard-1-of-2.plydb");
        assert_eq!(found.pid, 4242);
        for other in [
            "/d/yehr.plydb",
            "/d/.yehr.plydb.tmp",
            "/d/.yehr.plydb.x.1.2.tmp",
            "/d/yehr.plydb.1.2.3.tmp",
        ] {
            assert_eq!(Temporary::parse(Path::new(other)), None, "{other}");
        }
    }
}
