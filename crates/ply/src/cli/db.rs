//! `ply db list|verify|rm`: the saved databases of a directory. Each
//! database is one row, its shards (or a tier game's tier shards) together;
//! a file that cannot be read as
//! the database its name says is a row marked `bad` with the reason, the
//! others are still listed, and the command then exits 2. Only regular
//! files are opened (a FIFO bearing a database's name is reported, never
//! waited on). Temporary files left by killed builds are reported, and
//! removed by `ply db verify --fix` (or the next build of their database).

use crate::error::PlyError;
use crate::registry;
use crate::session::store::Store;
use clap::Subcommand;
use ply_core::db::{self, Database, DbError, Problem, Temporary};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `ply db` does.
#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// List the saved databases: game, positions, size, bytes per position,
    /// files (shards), when and by which version built. Exits 2 if one is bad.
    List {
        /// The database directory (default as for `ply solve`).
        #[arg(long, value_name = "DIR")]
        db_dir: Option<PathBuf>,
    },
    /// Check every block of every database (or of GAME's) against its
    /// checksum, and that each file holds the game its name says. Exits 2
    /// if one is bad.
    Verify {
        /// Only this game (NAME or NAME:PARAMS).
        game: Option<String>,
        /// Also remove the temporary files that killed builds left.
        #[arg(long)]
        fix: bool,
        /// The database directory (default as for `ply solve`).
        #[arg(long, value_name = "DIR")]
        db_dir: Option<PathBuf>,
    },
    /// Delete GAME's database.
    Rm {
        /// The game (NAME or NAME:PARAMS).
        game: String,
        /// The database directory (default as for `ply solve`).
        #[arg(long, value_name = "DIR")]
        db_dir: Option<PathBuf>,
    },
}

/// Runs `ply db ...`, writing its rows to `out`.
pub fn run(command: DbCommand, out: &mut impl Write) -> Result<(), PlyError> {
    match command {
        DbCommand::List { db_dir } => {
            let named = db_dir.is_some();
            let store = Store::locate(db_dir, true)?;
            if named {
                store.check_named(false)?;
            }
            let listing = store.list()?;
            if listing.databases.is_empty() {
                writeln!(out, "no databases in {}", store.dir.display())?;
            } else {
                writeln!(
                    out,
                    "{:<24} {:>14} {:>12} {:>9} {:>6}  {:<20} by",
                    "game", "positions", "bytes", "bytes/pos", "files", "built (UTC)"
                )?;
            }
            let mut bad = 0;
            for files in &listing.databases {
                match open(files) {
                    Ok(pieces) => {
                        // The latest build of the pieces: a tier game's
                        // shards are built one after another.
                        let header = pieces
                            .iter()
                            .filter_map(|db| db.headers().next())
                            .max_by_key(|header| header.built_unix)
                            .ok_or_else(|| {
                                PlyError::Database(format!("{}: no header", files[0].display()))
                            })?;
                        let entries: u64 = pieces
                            .iter()
                            .flat_map(Database::headers)
                            .map(|h| h.positions())
                            .sum();
                        let bytes: u64 = pieces.iter().map(Database::bytes).sum();
                        writeln!(
                            out,
                            "{:<24} {:>14} {:>12} {:>9.3} {:>6}  {:<20} {}",
                            pieces[0].game(),
                            entries,
                            bytes,
                            bytes as f64 / entries.max(1) as f64,
                            files.len(),
                            unix_time(header.built_unix),
                            header.built_by
                        )?;
                    }
                    Err(reason) => {
                        bad += 1;
                        writeln!(out, "bad  {reason}")?;
                    }
                }
            }
            temporaries(&listing.temporaries, false, out)?;
            outcome(bad, listing.databases.len(), &store)
        }
        DbCommand::Verify { game, fix, db_dir } => {
            let named = db_dir.is_some();
            let store = Store::locate(db_dir, true)?;
            if named {
                store.check_named(false)?;
            }
            let listing = store.list()?;
            let (databases, temps) = match &game {
                Some(game) => {
                    let name = registry::open(game)?.name();
                    let groups: Vec<Vec<PathBuf>> = [store.files(&name), store.tier_files(&name)]
                        .into_iter()
                        .filter(|files| !files.is_empty())
                        .collect();
                    if groups.is_empty() {
                        return Err(PlyError::argument(format!(
                            "no database of {name} in {}",
                            store.dir.display()
                        )));
                    }
                    let whole = db::file_name(&name);
                    let stem = db::stem(&name);
                    let temps = listing
                        .temporaries
                        .into_iter()
                        .filter(|t| t.database == whole || t.database.starts_with(&stem))
                        .collect();
                    (groups, temps)
                }
                None => (listing.databases, listing.temporaries),
            };
            if databases.is_empty() {
                // Said, so that an empty or mistaken directory is not
                // taken for a verified one.
                writeln!(
                    out,
                    "no databases in {}: nothing to verify",
                    store.dir.display()
                )?;
            }
            let mut bad = 0;
            for files in &databases {
                match open(files).and_then(|pieces| {
                    for db in &pieces {
                        db.verify().map_err(|e| e.to_string())?;
                    }
                    Ok(pieces)
                }) {
                    Ok(pieces) if files.len() == 1 => {
                        writeln!(out, "ok  {}  {}", pieces[0].game(), files[0].display())?;
                    }
                    Ok(pieces) => writeln!(
                        out,
                        "ok  {}  {} {}  {}",
                        pieces[0].game(),
                        files.len(),
                        if is_tiered(files) {
                            "tier shards"
                        } else {
                            "shards"
                        },
                        list_paths(files)
                    )?,
                    Err(reason) => {
                        bad += 1;
                        writeln!(out, "bad  {reason}")?;
                    }
                }
            }
            temporaries(&temps, fix, out)?;
            outcome(bad, databases.len(), &store)
        }
        DbCommand::Rm { game, db_dir } => {
            let named = db_dir.is_some();
            let store = Store::locate(db_dir, true)?;
            if named {
                store.check_named(false)?;
            }
            let name = registry::open(&game)?.name();
            let mut files = store.files(&name);
            files.extend(store.tier_files(&name));
            if files.is_empty() {
                return Err(PlyError::argument(format!(
                    "no database of {name} in {}",
                    store.dir.display()
                )));
            }
            for path in files {
                std::fs::remove_file(&path)
                    .map_err(|e| PlyError::argument(format!("removing {}: {e}", path.display())))?;
                writeln!(out, "removed {}", path.display())?;
            }
            Ok(())
        }
    }
}

/// Whether `files` are the tier shards of a game solved tier by tier
/// (`NAME.tier-TIER.plydb`), each a database of its own tier's keys.
fn is_tiered(files: &[PathBuf]) -> bool {
    files.iter().all(|p| part_of(p) == Some(db::Part::Tier))
}

/// The kind of database part the file at `path` is, by its name.
fn part_of(path: &Path) -> Option<db::Part> {
    let name = path.file_name()?.to_str()?;
    db::Part::of(name).map(|(part, _)| part)
}

/// Opens the database of `files` (one file, the shards of one, or a tier
/// game's tier shards, each read alone) and checks that its files bear the
/// names of the game inside; the reason if it cannot be read as the
/// database its names say.
fn open(files: &[PathBuf]) -> Result<Vec<Database>, String> {
    let sharded = files.iter().any(|p| part_of(p) == Some(db::Part::Shard));
    let pieces = match files {
        _ if is_tiered(files) => files
            .iter()
            .map(|path| Database::open_piece(path))
            .collect::<Result<Vec<_>, _>>(),
        // A shard alone is a database with shards missing: refused.
        [one] if !sharded => Database::open_piece(one).map(|db| vec![db]),
        shards => Database::open_shards(shards, None).map(|db| vec![db]),
    }
    .map_err(|e| e.to_string())?;
    let game = pieces.first().map(Database::game).unwrap_or_default();
    let whole = db::file_name(game);
    let (shard_prefix, tier_prefix) = (db::Part::Shard.prefix(game), db::Part::Tier.prefix(game));
    let suffix = format!(".{}", db::EXTENSION);
    for (path, piece) in files.iter().zip(pieces.iter().cycle()) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let named_right = piece.game() == game
            && (name == whole
                || ((name.starts_with(&shard_prefix) || name.starts_with(&tier_prefix))
                    && name.ends_with(&suffix)));
        if !named_right {
            let misnamed = Problem::Misnamed {
                found: piece.game().to_string(),
                name: whole,
            };
            return Err(DbError::new(path, misnamed).to_string());
        }
    }
    Ok(pieces)
}

/// The files of a sharded database, for one row.
fn list_paths(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reports the temporary files of builds: stale ones (their build was
/// killed) removed if `fix`, the rest as builds under way.
fn temporaries(found: &[Temporary], fix: bool, out: &mut impl Write) -> Result<(), PlyError> {
    for temp in found {
        let path = temp.path.display();
        if !temp.stale() {
            writeln!(
                out,
                "tmp  {path}  being written by process {} (a build under way)",
                temp.pid
            )?;
        } else if fix {
            std::fs::remove_file(&temp.path)
                .map_err(|e| PlyError::argument(format!("removing {path}: {e}")))?;
            writeln!(out, "removed  {path}  (left by a killed build)")?;
        } else {
            writeln!(
                out,
                "stale  {path}  left by a killed build (process {} is gone); \
                 `ply db verify --fix` removes it",
                temp.pid
            )?;
        }
    }
    Ok(())
}

/// Exit 2, after every row, if `bad` of `all` databases were bad.
fn outcome(bad: usize, all: usize, store: &Store) -> Result<(), PlyError> {
    if bad == 0 {
        return Ok(());
    }
    Err(PlyError::Database(format!(
        "{bad} of the {all} databases in {} {} bad (the rows marked bad say why)",
        store.dir.display(),
        if bad == 1 { "is" } else { "are" }
    )))
}

/// A Unix time as `YYYY-MM-DD HH:MM:SS` (UTC).
fn unix_time(secs: u64) -> String {
    let days = secs / 86_400;
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_read_as_dates() {
        assert_eq!(unix_time(0), "1970-01-01 00:00:00");
        assert_eq!(unix_time(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(unix_time(1_700_000_000), "2023-11-14 22:13:20");
    }
}
