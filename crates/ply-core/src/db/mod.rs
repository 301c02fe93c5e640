//! Solved databases on disk (format: docs/db-format.md): a versioned,
//! checksummed header, cells packed to the bits the game needs in
//! fixed-size zstd blocks, each checksummed, a block index, read with
//! positioned reads of the blocks a query needs. Any mismatch or
//! corruption is an error, never an answer.

pub(crate) mod codec;
pub(crate) mod format;
pub(crate) mod leave_out;
pub(crate) mod present;
pub(crate) mod reader;
pub(crate) mod temporary;
pub(crate) mod writer;

pub use crate::db_error::{DbError, Problem};
pub use crate::solution::Keys;
pub use crate::solution::Presence;
pub use codec::{ZSTD_LEVEL, checksum};
pub use format::{FOOTER, FORMAT_VERSION, Header, INDEX_ENTRY, PRESENT_RUN};
pub use leave_out::{
    SAMPLE_EVERY, leave_out, smaller_side, write_indexed_leaving_out,
    write_indexed_leaving_out_side,
};
pub use present::{LeaveOut, PRESENT_BLOCK, leave_out_present, write_present};
pub use reader::{Database, Expect};
pub use reader::{block_cache_bytes, set_block_cache_bytes};
pub use temporary::Temporary;
/// The temporaries an interrupted write left in a directory.
pub use temporary::in_dir as temporaries_in;
pub use writer::{
    INDEX_BLOCK, Meta, write_canonical, write_indexed, write_indexed_filled, write_indexed_of,
};

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

/// The start every file of the game named `game` shares: its database's
/// file name without the extension (`NAME.`).
pub fn stem(game: &str) -> String {
    let mut name = file_name(game);
    name.truncate(name.len() - EXTENSION.len());
    name
}

/// Files that each hold part of a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A shard of one database, a range of its keys:
    /// `NAME.shard-K-of-N.plydb`.
    Shard,
    /// A tier shard of a game solved tier by tier, its tier's keys:
    /// `NAME.tier-TIER.plydb`.
    Tier,
}

impl Part {
    /// What follows the stem in the names of such files.
    const fn tag(self) -> &'static str {
        match self {
            Part::Shard => "shard-",
            Part::Tier => "tier-",
        }
    }

    /// The start of the names of the game `game`'s files of this kind:
    /// `NAME.shard-` or `NAME.tier-`.
    pub fn prefix(self, game: &str) -> String {
        format!("{}{}", stem(game), self.tag())
    }

    /// The kind of the file named `name` and its stem (`NAME.`), if it is
    /// a part of a database.
    pub fn of(name: &str) -> Option<(Part, &str)> {
        [Part::Shard, Part::Tier].into_iter().find_map(|part| {
            let at = name.find(&format!(".{}", part.tag()))?;
            Some((part, &name[..=at]))
        })
    }
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
        // Cells of present keys are written again with their keys.
        Keys::Canonical | Keys::Present => {
            let mut entries = Vec::new();
            solution.for_each_cell(meta.range.clone(), &mut |key, cell| {
                entries.push((key, cell))
            })?;
            write_canonical(path, meta, &entries, progress)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parts_name_starts_with_its_prefix_and_is_told_back() {
        for (game, part, rest) in [
            ("quixo:3x3", Part::Tier, "m9-8.plydb"),
            ("yehr", Part::Shard, "1-of-2.plydb"),
            ("a game:4", Part::Tier, "x.tier-y.plydb"),
        ] {
            let name = format!("{}{rest}", part.prefix(game));
            assert!(name.starts_with(&stem(game)), "{name}");
            assert_eq!(Part::of(&name), Some((part, stem(game).as_str())), "{name}");
        }
        assert_eq!(stem("quixo:3x3"), "quixo-3x3.");
        assert_eq!(Part::of("quixo-3x3.plydb"), None);
        assert_eq!(
            Part::of("euler-5x5.table-tier-20.part-1-of-2.plypart"),
            None
        );
    }
}
