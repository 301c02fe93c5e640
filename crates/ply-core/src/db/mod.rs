//! Solved databases on disk (format: docs/db-format.md): a versioned,
//! checksummed header, cells packed to the bits the game needs in
//! fixed-size zstd blocks, each checksummed, a block index, read with
//! positioned reads of the blocks a query needs. Any mismatch or
//! corruption is an error, never an answer.

pub mod codec;
pub mod format;
pub mod leave_out;
pub mod reader;
pub mod temporary;
pub mod writer;

pub use crate::db_error::{DbError, Problem};
pub use crate::solution::Keys;
pub use format::{FORMAT_VERSION, Header};
pub use reader::{Database, Expect};
pub use temporary::Temporary;
pub use writer::{Meta, write_canonical, write_indexed, write_indexed_of};

use crate::progress::Progress;
use crate::solution::Solution;
use crate::value::Cell;
use std::path::Path;
use std::sync::Mutex;

/// The extension of database files.
pub const EXTENSION: &str = "plydb";

/// The file name of the database of the game named `game` (full name with
/// parameters): `:` becomes `-`, and anything but letters, digits, `.`,
/// `-` and `_` becomes `_`.
pub fn file_name(game: &str) -> String {
    let stem: String = game
        .chars()
        .map(|c| match c {
            ':' => '-',
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') => c,
            _ => '_',
        })
        .collect();
    format!("{stem}.{EXTENSION}")
}

/// Writes `solution` whole to `path` as the database of the game `meta`
/// describes (whose `range` should be `0..index_len`). Returns the size.
pub fn save(
    path: &Path,
    meta: &Meta,
    solution: &dyn Solution,
    progress: &dyn Progress,
) -> Result<u64, DbError> {
    match solution.keys() {
        Keys::Index => {
            let failed = Mutex::new(None);
            let size = write_indexed(
                path,
                meta,
                |i| {
                    solution.cell(i).unwrap_or_else(|e| {
                        if let Ok(mut first) = failed.lock() {
                            first.get_or_insert(e);
                        }
                        Cell::UNKNOWN
                    })
                },
                progress,
            );
            match failed.into_inner().ok().flatten() {
                Some(error) => {
                    if size.is_ok() {
                        let _ = std::fs::remove_file(path);
                    }
                    Err(error)
                }
                None => size,
            }
        }
        Keys::Canonical => {
            let mut entries = Vec::new();
            solution.for_each_cell(meta.range.clone(), &mut |key, cell| {
                entries.push((key, cell))
            })?;
            write_canonical(path, meta, &entries, progress)
        }
    }
}
