//! Where solved databases live and how a session finds its game's: the
//! directory is `--db-dir`, else `$PLY_DB_DIR`, else the platform's data
//! directory (`~/.local/share/ply/db` on Linux). The `ply` command sets the
//! store once at start; a library user who sets none uses no databases.

use crate::error::PlyError;
use ply_core::db::{self, Database, DbError, Expect, Temporary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The environment variable naming the database directory.
pub const ENV: &str = "PLY_DB_DIR";

/// A database directory, and whether sessions may answer from it.
#[derive(Clone, Debug)]
pub struct Store {
    /// The directory.
    pub dir: PathBuf,
    /// Whether sessions read databases from it (`--no-db` turns this off).
    pub read: bool,
}

static STORE: RwLock<Option<Store>> = RwLock::new(None);

/// Makes `store` the one sessions of this process use from now on: the
/// command sets it once; the Python package sets it as each `Solver` opens
/// its game. A session that has loaded its database keeps it.
pub fn configure(store: Store) {
    let mut slot = STORE
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *slot = Some(store);
}

/// The store set by [`configure`], if any.
pub fn current() -> Option<Store> {
    STORE
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

impl Store {
    /// The store in `dir` if given, else `$PLY_DB_DIR`, else the platform
    /// data directory.
    pub fn locate(dir: Option<PathBuf>, read: bool) -> Result<Store, PlyError> {
        let dir = match dir.or_else(|| std::env::var_os(ENV).map(PathBuf::from)) {
            Some(dir) => dir,
            None => directories::ProjectDirs::from("", "", "ply")
                .map(|dirs| dirs.data_dir().join("db"))
                .ok_or_else(|| {
                    PlyError::argument(format!(
                        "no home directory to keep databases in; give --db-dir or set {ENV}"
                    ))
                })?,
        };
        Ok(Store { dir, read })
    }

    /// Where the database of the game named `game` is written.
    pub fn path(&self, game: &str) -> PathBuf {
        self.dir.join(db::file_name(game))
    }

    /// The files of the database of `game`: its one file, or else its
    /// shards (`NAME.shard-K-of-N.plydb`); empty if there are none.
    pub fn files(&self, game: &str) -> Vec<PathBuf> {
        let whole = self.path(game);
        if whole.is_file() {
            return vec![whole];
        }
        self.starting(db::Part::Shard.prefix(game))
    }

    /// The tier shards of `game`, solved tier by tier
    /// (`NAME.tier-TIER.plydb`, and the slices of tiers being solved by
    /// several processes), in name order; empty if there are none.
    pub fn tier_files(&self, game: &str) -> Vec<PathBuf> {
        self.starting(db::Part::Tier.prefix(game))
    }

    /// The files named `prefix`, then anything, ending `.plydb`, in name
    /// order.
    fn starting(&self, prefix: String) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(db::EXTENSION))
            })
            .collect();
        files.sort();
        files
    }

    /// Opens the database of `expect.game`, if the store holds one.
    pub fn open(&self, expect: &Expect) -> Result<Option<Database>, DbError> {
        let files = self.files(&expect.game);
        if files.is_empty() {
            return Ok(None);
        }
        Database::open_shards(&files, Some(expect)).map(Some)
    }

    /// What the directory holds: every name ending in `.plydb` (whatever
    /// it is, so that a directory or FIFO can be reported), the shards of
    /// one database together, the tier shards of one game together, and
    /// the temporary files of builds.
    pub fn list(&self) -> Result<Listing, PlyError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(dir_error(&self.dir, e)),
        };
        let mut databases: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for path in entries.flatten().map(|e| e.path()) {
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if name.starts_with('.') || !name.ends_with(&format!(".{}", db::EXTENSION)) {
                continue;
            }
            let key = match db::Part::of(name) {
                Some((db::Part::Shard, stem)) => format!("{stem}{}", db::EXTENSION),
                Some((db::Part::Tier, stem)) => format!("{stem}tier"),
                None => name.to_string(),
            };
            databases.entry(key).or_default().push(path);
        }
        let databases = databases
            .into_values()
            .map(|mut files| {
                files.sort();
                files
            })
            .collect();
        Ok(Listing {
            databases,
            temporaries: db::temporaries_in(&self.dir),
        })
    }

    /// Makes sure the directory exists.
    /// Checks a directory the user named (`--db-dir`): it must be a
    /// directory that exists, except that with `create` (`--save`) a
    /// missing one is made, and said so on stderr. A file there is an
    /// error naming it, never the system's bare message.
    pub fn check_named(&self, create: bool) -> Result<(), PlyError> {
        let dir = self.dir.display();
        match std::fs::metadata(&self.dir) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(PlyError::argument(format!(
                "--db-dir {dir}: that is a file, not a directory; name a directory for the \
                 databases"
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                self.create()?;
                eprintln!("ply: created the database directory {dir}");
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(PlyError::argument(format!(
                "--db-dir {dir}: no such directory; check the path, or create it with \
                 `ply analyze GAME --save --db-dir {dir}`"
            ))),
            Err(e) => Err(PlyError::argument(format!("--db-dir {dir}: {e}"))),
        }
    }

    /// Creates the directory if it is missing.
    pub fn create(&self) -> Result<(), PlyError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| dir_error(&self.dir, e))
    }
}

/// What a database directory holds.
#[derive(Debug, Default)]
pub struct Listing {
    /// The databases, by file name, each as its files: its one file, its
    /// shards (`NAME.shard-K-of-N.plydb`) or its tier shards
    /// (`NAME.tier-TIER.plydb`), in name order.
    pub databases: Vec<Vec<PathBuf>>,
    /// The temporary files of builds, finished or killed.
    pub temporaries: Vec<Temporary>,
}

fn dir_error(dir: &Path, e: std::io::Error) -> PlyError {
    PlyError::argument(format!("database directory {}: {e}", dir.display()))
}
