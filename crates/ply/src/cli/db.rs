//! `ply db`: list, verify and remove the solved databases in the store.

use crate::error::PlyError;
use crate::registry;
use crate::session::store::Store;
use clap::Subcommand;
use ply_core::Database;
use ply_core::db::Expect;
use std::io::Write;
use std::path::PathBuf;

/// What `ply db` does.
#[derive(Subcommand, Debug)]
pub enum Action {
    /// Every database: game, positions, size, bytes per position, when and by what it was built.
    List,
    /// Check every block of every database (or GAME's) against its checksum.
    Verify {
        /// Only this game's database (NAME or NAME:PARAMS).
        game: Option<String>,
    },
    /// Remove GAME's database.
    Rm {
        /// The game, as NAME or NAME:PARAMS.
        game: String,
    },
}

/// Runs `action` on `store`, writing to `out`.
pub fn run(action: Action, store: &Store, out: &mut dyn Write) -> Result<(), PlyError> {
    match action {
        Action::List => {
            let files = store.all_files()?;
            writeln!(out, "database directory {}", store.dir.display())?;
            if files.is_empty() {
                writeln!(out, "no databases")?;
            }
            for path in files {
                let db = Database::open_shards(std::slice::from_ref(&path), None)
                    .or_else(|_| open_shard_alone(&path))?;
                let header = db.headers().next().expect("one file, one header");
                let positions = header.entries;
                let bytes = db.bytes();
                writeln!(
                    out,
                    "{:<16} {:>11} positions {:>11} bytes {:>7.3} bytes/position  built {}  by {}  ({})",
                    header.game,
                    positions,
                    bytes,
                    bytes as f64 / positions.max(1) as f64,
                    utc(header.built_unix),
                    header.built_by,
                    path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                )?;
            }
        }
        Action::Verify { game } => {
            let games: Vec<(Vec<PathBuf>, Option<Expect>)> = match game {
                Some(spec) => {
                    let expect = expect(&spec)?;
                    let files = store.files(&expect.game);
                    if files.is_empty() {
                        return Err(PlyError::argument(format!(
                            "no database of {} in {}",
                            expect.game,
                            store.dir.display()
                        )));
                    }
                    vec![(files, Some(expect))]
                }
                None => store
                    .all_files()?
                    .into_iter()
                    .map(|p| (vec![p], None))
                    .collect(),
            };
            for (files, expect) in games {
                let db = match Database::open_shards(&files, expect.as_ref()) {
                    Ok(db) => db,
                    Err(_) if expect.is_none() && files.len() == 1 => open_shard_alone(&files[0])?,
                    Err(e) => return Err(e.into()),
                };
                db.verify()?;
                for path in db.paths() {
                    writeln!(out, "ok  {}  {}", db.game(), path.display())?;
                }
            }
        }
        Action::Rm { game } => {
            let expect = expect(&game)?;
            let files = store.files(&expect.game);
            if files.is_empty() {
                return Err(PlyError::argument(format!(
                    "no database of {} in {}",
                    expect.game,
                    store.dir.display()
                )));
            }
            for path in files {
                std::fs::remove_file(&path).map_err(|e| {
                    PlyError::argument(format!("cannot remove {}: {e}", path.display()))
                })?;
                writeln!(out, "removed {}", path.display())?;
            }
        }
    }
    Ok(())
}

/// A shard opened by itself (its range need not cover the key space), for
/// listing and verifying.
fn open_shard_alone(path: &std::path::Path) -> Result<Database, PlyError> {
    Database::open_piece(path).map_err(PlyError::from)
}

/// What the database of the game `spec` must hold.
fn expect(spec: &str) -> Result<Expect, PlyError> {
    let session = registry::open(spec)?;
    Ok(Expect {
        game: session.name(),
        rules_version: session.rules_version(),
    })
}

/// `secs` since the Unix epoch as `YYYY-MM-DD HH:MM UTC`.
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}
