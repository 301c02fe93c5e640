//! What the distributed solver (`ply analyze --processes`) must give:
//! the single-machine retrograde solver's table (ply_core's `retro`), and
//! checks of a report and of saved shards against it.

use ply_core::Indexed;
use ply_core::db::Database;
use ply_core::dist::fingerprint;
use ply_core::solve::retro::RetroTable;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the single-machine solver says: its table, the indices counted.
pub struct Expected {
    /// The single-machine table.
    pub table: RetroTable,
    /// The indices the census counts.
    pub counted: std::ops::Range<u64>,
    /// The length of the game's index.
    pub len: u64,
}

impl Expected {
    /// What `table`, the solution of `game`, says of the indices `counted`.
    pub fn of<G: Indexed>(game: &G, table: RetroTable, counted: std::ops::Range<u64>) -> Self {
        Self {
            table,
            counted,
            len: game.index_len(),
        }
    }

    /// The report agrees with the table: counts by value and remoteness,
    /// and the fingerprint of every cell.
    pub fn check_report(&self, report: &Value, what: &str) {
        let census = self.table.census(self.counted.clone());
        for (key, want) in [
            ("positions", census.positions),
            ("win", census.win),
            ("lose", census.lose),
            ("tie", census.tie),
            ("draw", census.draw),
            (
                "max_remoteness",
                u64::from(census.max_remoteness().unwrap_or(0)),
            ),
        ] {
            assert_eq!(report[key].as_u64(), Some(want), "{what}: {key}");
        }
        let rows: Vec<[u64; 4]> = census
            .by_remoteness
            .iter()
            .enumerate()
            .map(|(r, &[w, l, t])| [r as u64, w, l, t])
            .filter(|row| row[1..] != [0, 0, 0])
            .collect();
        let got: Vec<[u64; 4]> = report["by_remoteness"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|row| {
                ["remoteness", "win", "lose", "tie"].map(|k| row[k].as_u64().expect("a count"))
            })
            .filter(|row| row[1..] != [0, 0, 0])
            .collect();
        assert_eq!(got, rows, "{what}: by remoteness");
        let print = (0..self.len)
            .map(|i| (i, self.table.cell(i)))
            .filter(|(_, cell)| cell.unpack().is_some())
            .fold(0u64, |sum, (i, cell)| {
                sum.wrapping_add(fingerprint(i, cell))
            });
        assert_eq!(
            report["cells_fingerprint"].as_str(),
            Some(format!("{print:016x}").as_str()),
            "{what}: cells"
        );
    }

    /// The shards in `db` read as one database whose every cell is the
    /// table's, and nothing else is left there. Returns the files.
    pub fn check_shards(&self, db: &Path, workers: usize, what: &str) -> Vec<PathBuf> {
        let files = shards_in(db, workers, what);
        self.check_files(&files, what);
        files
    }

    /// `files` (shards, wherever each was written) read as one database
    /// whose every cell is the table's: no index is missing or held twice.
    pub fn check_files(&self, files: &[PathBuf], what: &str) {
        let database = Database::open_shards(files, None).expect("the shards read as one");
        for index in 0..self.len {
            let cell = ply_core::Solution::cell(&database, index).expect("a cell");
            assert_eq!(cell, self.table.cell(index), "{what}: index {index}");
        }
    }
}

/// The files in `db`, sorted, after checking that every one is a shard of a
/// set cut for `workers` workers (an older run's leftovers were cleaned).
pub fn shards_in(db: &Path, workers: usize, what: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(db)
        .expect("db dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.contains(".shard-") && n.ends_with(&format!("-of-{workers}.plydb"))),
        "{what}: only the new shards are left: {names:?}"
    );
    files
}
