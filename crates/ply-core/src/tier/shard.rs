//! Tier shards on disk: one database file per solved canonical tier,
//! `GAME.tier-NAME.plydb`, holding the tier's keys of the whole database
//! (so that the shards of every tier read as one database). A shard is
//! trusted only if it opens, names the game, its rules version and the
//! tier's keys, and every block passes its checksum; anything else is
//! discarded and the tier solved again.

use super::cells::Cells;
use super::plan::{Plan, Step};
use crate::db::{self, Database, DbError, Expect, Keys, Meta};
use crate::progress::Progress;
use crate::solution::Solution;
use crate::value::{Cell, Outcome, Value};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The shards of one game in one directory.
pub struct Shards {
    dir: PathBuf,
    expect: Expect,
    /// The zstd level shards are written at.
    level: i32,
}

impl Shards {
    /// The shards of the game `expect` names, in `dir`.
    pub fn new(dir: &Path, expect: Expect) -> Shards {
        Shards {
            dir: dir.to_path_buf(),
            expect,
            level: db::codec::ZSTD_LEVEL,
        }
    }

    /// The same shards, written as drafts (zstd level 3):
    /// fast, for shards to be rewritten smaller once the game is solved.
    pub fn drafts(self) -> Shards {
        Shards {
            level: db::codec::DRAFT_LEVEL,
            ..self
        }
    }

    /// The name of the game whose shards these are.
    pub fn game(&self) -> &str {
        &self.expect.game
    }

    /// The file name's start shared by every shard of the game: `GAME.tier-`.
    fn prefix(&self) -> String {
        db::Part::Tier.prefix(&self.expect.game)
    }

    /// The shard of the tier named `name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir
            .join(format!("{}{name}.{}", self.prefix(), db::EXTENSION))
    }

    /// Removes temporary files left by killed writers of the shards of
    /// `steps`; returns how many. Only the process that writes those
    /// shards may call it: another's temporary files may be live.
    pub fn remove_leftovers<'a, T: 'a>(
        &self,
        steps: impl IntoIterator<Item = &'a Step<T>>,
    ) -> usize {
        let paths: Vec<PathBuf> = steps.into_iter().map(|s| self.path(&s.name)).collect();
        remove_temporaries(&self.dir, &paths)
    }

    /// Removes temporary files left by killed writers of slice `slice` of
    /// `slices` of each of `steps`; returns how many. Only the process
    /// that writes those slices may call it.
    pub fn remove_slice_leftovers<'a, T: 'a>(
        &self,
        steps: impl IntoIterator<Item = &'a Step<T>>,
        slice: usize,
        slices: usize,
    ) -> usize {
        let paths: Vec<PathBuf> = steps
            .into_iter()
            .map(|s| self.slice_path(&s.name, slice, slices))
            .collect();
        remove_temporaries(&self.dir, &paths)
    }

    /// The file of slice `slice` of `slices` of the tier named `name`
    /// (see [`Shards::slice_keys`]): `GAME.tier-NAME.slice-K-of-N.plydb`,
    /// kept only until the tier's shard is written from the slices.
    pub fn slice_path(&self, name: &str, slice: usize, slices: usize) -> PathBuf {
        self.dir.join(format!(
            "{}{name}.slice-{slice}-of-{slices}.{}",
            self.prefix(),
            db::EXTENSION
        ))
    }

    /// The keys of slice `slice` of `slices` of `step`: its keys cut into
    /// `slices` runs as even as can be, in order.
    pub fn slice_keys<T>(step: &Step<T>, slice: usize, slices: usize) -> Range<u64> {
        let size = u128::from(step.size());
        let at = |k: usize| step.keys.start + (size * k as u128 / slices.max(1) as u128) as u64;
        at(slice)..at(slice + 1)
    }

    /// Whether slice `slice` of `slices` of `step` is written and sound
    /// (as [`Shards::sound`] for the slice's keys); the reason if not.
    pub fn slice_sound<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        slice: usize,
        slices: usize,
    ) -> Result<(), String> {
        self.piece_sound(
            Some(plan.index_len),
            &self.slice_path(&step.name, slice, slices),
            &Self::slice_keys(step, slice, slices),
            &step.name,
        )
    }

    /// Whether the file at `path` is sound as slice `slice` of `slices` of
    /// `step` (as [`Shards::slice_sound`] finds the slice's own file); the
    /// reason if not. For a slice fetched from its writer, before it is
    /// put in place.
    pub fn slice_sound_at<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        (slice, slices): (usize, usize),
        path: &Path,
    ) -> Result<(), String> {
        self.piece_sound(
            Some(plan.index_len),
            path,
            &Self::slice_keys(step, slice, slices),
            &step.name,
        )
    }

    /// Removes the file of slice `slice` of `slices` of `step`, if there
    /// is one: called by its writer once the tier's shard is written.
    pub fn remove_slice<T>(&self, step: &Step<T>, slice: usize, slices: usize) {
        let _ = std::fs::remove_file(self.slice_path(&step.name, slice, slices));
    }

    /// Removes the temporary files that fetches of this game's files by
    /// process `process` of a team left (see `Crew::fetch`); returns how
    /// many. Another process's may be live.
    pub fn remove_fetch_leftovers(&self, process: usize) -> usize {
        let start = format!(".{}", self.prefix());
        let end = format!("-by-{process}.tmp");
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with(start.as_str()) && n.ends_with(end.as_str()))
            })
            .filter(|e| std::fs::remove_file(e.path()).is_ok())
            .count()
    }

    /// Writes slice `slice` of `slices` of `step` as its file, atomically,
    /// the cell of each of its keys ([`Shards::slice_keys`]) given by
    /// `cell` from the key's index in the tier.
    pub fn write_slice<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        (slice, slices): (usize, usize),
        cell: impl Fn(u64) -> Cell + Sync,
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        let start = step.keys.start;
        self.write_keys(
            plan,
            &self.slice_path(&step.name, slice, slices),
            Self::slice_keys(step, slice, slices),
            |key| cell(key - start),
            progress,
        )
    }

    /// Writes the shard of `step` from its `slices` slices, atomically, a
    /// block at a time: no more of the tier is held at once.
    pub fn write_from_slices<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        slices: usize,
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        let pieces = (0..slices)
            .map(|slice| Database::open_piece(&self.slice_path(&step.name, slice, slices)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut present = vec![false; 1 << 16];
        for cell in pieces.iter().flat_map(listed) {
            present[usize::from(cell.bits())] = true;
        }
        let start = step.keys.start;
        let fill = |indices: Range<u64>, cells: &mut [Cell]| {
            let keys = start + indices.start..start + indices.end;
            for piece in &pieces {
                piece.for_each_cell(keys.clone(), &mut |key, cell| {
                    cells[(key - keys.start) as usize] = cell;
                })?;
            }
            Ok(())
        };
        self.write_filled(plan, step, &present, fill, progress)
    }

    /// Removes every slice file of `step`, of any number of slices; returns
    /// how many. Called once the tier's shard is written.
    pub fn remove_slices<T>(&self, step: &Step<T>) -> usize {
        let start = format!("{}{}.slice-", self.prefix(), step.name);
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        entries
            .flatten()
            .filter(|e| {
                e.file_name().to_str().is_some_and(|n| {
                    n.starts_with(start.as_str()) && n.ends_with(&format!(".{}", db::EXTENSION))
                })
            })
            .filter(|e| std::fs::remove_file(e.path()).is_ok())
            .count()
    }

    /// Whether the shard of `step` is complete and sound. A file that is
    /// not (a half-written or corrupt shard, another game's) is removed,
    /// with the reason returned.
    pub fn finished<T>(&self, plan: &Plan<T>, step: &Step<T>) -> Result<bool, String> {
        let path = self.path(&step.name);
        if !path.exists() {
            return Ok(false);
        }
        match self.sound(plan, step) {
            Ok(()) => Ok(true),
            Err(why) => {
                let _ = std::fs::remove_file(&path);
                Err(format!("discarded {}: {why}", path.display()))
            }
        }
    }

    /// Whether the shard of `step` opens, is `step`'s of this game and
    /// passes every checksum; the reason if not. Nothing is removed.
    pub fn sound<T>(&self, plan: &Plan<T>, step: &Step<T>) -> Result<(), String> {
        self.piece_sound(
            Some(plan.index_len),
            &self.path(&step.name),
            &step.keys,
            &step.name,
        )
    }

    /// Whether the file at `path` is sound as the shard of `step` (as
    /// [`Shards::sound`] finds the shard itself); the reason if not. For a
    /// shard fetched from its writer, before it is put in place.
    pub fn sound_at<T>(&self, plan: &Plan<T>, step: &Step<T>, path: &Path) -> Result<(), String> {
        self.piece_sound(Some(plan.index_len), path, &step.keys, &step.name)
    }

    /// The shard of `step` opened once, found sound as [`Shards::sound`]
    /// finds it but for the size of the whole key space, which differs
    /// between games sharing tiers ([`crate::NamedTiers::counterpart`]), with
    /// the side whose remoteness it leaves out, if any.
    pub fn open_sound_keys<T>(&self, step: &Step<T>) -> Result<(Database, Option<Value>), String> {
        let db = self.open_sound(None, &self.path(&step.name), &step.keys, &step.name)?;
        let side = side_left_out(&db);
        Ok((db, side))
    }

    /// Whether the file at `path` opens, holds `keys` of this game (of
    /// the tier named `tier`) and passes every checksum; the reason if not.
    fn piece_sound(
        &self,
        index_len: Option<u64>,
        path: &Path,
        keys: &Range<u64>,
        tier: &str,
    ) -> Result<(), String> {
        self.open_sound(index_len, path, keys, tier).map(drop)
    }

    /// The file at `path` opened, if it holds `keys` of this game (of the
    /// tier named `tier`) and passes every checksum; the reason if not.
    fn open_sound(
        &self,
        index_len: Option<u64>,
        path: &Path,
        keys: &Range<u64>,
        tier: &str,
    ) -> Result<Database, String> {
        let db = Database::open_piece(path).map_err(|e| e.to_string())?;
        let header = db.headers().next().ok_or("no header")?;
        // A shard holds every index of its tier, or the ones its game
        // names (`Keys::Present`).
        let kind = match header.keys {
            Keys::Present => Keys::Present,
            _ => Keys::Index,
        };
        let expected = (
            self.expect.game.as_str(),
            self.expect.rules_version,
            kind,
            index_len.unwrap_or(header.index_len),
            keys,
        );
        let found = (
            header.game.as_str(),
            header.rules_version,
            header.keys,
            header.index_len,
            &header.range,
        );
        if expected != found {
            return Err(format!(
                "it holds {found:?} where tier {tier} is {expected:?}"
            ));
        }
        db.verify().map_err(|e| e.to_string())?;
        Ok(db)
    }

    /// Takes `theirs`, another game's shard of `step` (see
    /// [`crate::NamedTiers::counterpart`], opened by
    /// [`Shards::open_sound_keys`]), as this game's: written again under
    /// its name and `plan`'s key space, atomically.
    pub fn adopt<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        theirs: &Database,
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| DbError::io(&self.dir, e))?;
        db::writer::write_relabelled(
            theirs,
            &self.path(&step.name),
            (&self.expect.game, self.expect.rules_version, plan.index_len),
            progress,
        )
    }

    /// The distinct cells the shard of the solved tier `step` holds, from
    /// its headers.
    pub fn dictionary<T>(&self, step: &Step<T>) -> Result<Vec<Cell>, DbError> {
        Ok(listed(&Database::open_piece(&self.path(&step.name))?))
    }

    /// The cells of the solved tier `step`, read from its shard: a byte
    /// each if it holds few enough distinct cells (`Cells::new`). Cells
    /// whose remoteness the shard leaves out stay [`Cell::left_out`]
    /// ([`Shards::left_out`] says whether there are any).
    pub fn load<T>(&self, step: &Step<T>) -> Result<Cells, DbError> {
        let path = self.path(&step.name);
        let db = Database::open_piece(&path)?;
        let mut cells = Cells::new(step.size() as usize, &listed(&db));
        let start = step.keys.start;
        db.for_each_cell(step.keys.clone(), &mut |key, cell| {
            cells.set((key - start) as usize, cell);
        })?;
        Ok(cells)
    }

    /// The side whose remoteness the shard of the solved tier `step`
    /// leaves out, if any.
    pub fn left_out<T>(&self, step: &Step<T>) -> Result<Option<Value>, DbError> {
        Ok(side_left_out(&Database::open_piece(
            &self.path(&step.name),
        )?))
    }

    /// The shard of the solved tier `step`, read alone.
    pub fn open_step<T>(&self, step: &Step<T>) -> Result<Database, DbError> {
        Database::open_piece(&self.path(&step.name))
    }

    /// Writes the solved tier `step` as its shard, atomically, the cell of
    /// each key given by `cell`, whose distinct cells `present` lists (see
    /// [`db::write_indexed_of`]).
    pub fn write_of<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        present: &[bool],
        cell: impl Fn(u64) -> Cell + Sync,
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| DbError::io(&self.dir, e))?;
        let meta = self.meta(plan, step.keys.clone());
        db::write_indexed_of(&self.path(&step.name), &meta, present, cell, progress)
    }

    /// Writes the solved tier `step` as its shard, atomically, a block of
    /// keys at a time: `fill(indices, cells)` sets the cells of a run of
    /// the tier's indices (from 0), given unknown, or fails; `present`
    /// lists the distinct cells (see [`db::write_indexed_filled`]).
    pub fn write_filled<T>(
        &self,
        plan: &Plan<T>,
        step: &Step<T>,
        present: &[bool],
        fill: impl Fn(Range<u64>, &mut [Cell]) -> Result<(), DbError> + Sync,
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| DbError::io(&self.dir, e))?;
        let meta = self.meta(plan, step.keys.clone());
        let start = step.keys.start;
        db::write_indexed_filled(
            &self.path(&step.name),
            &meta,
            present,
            |keys, cells| fill(keys.start - start..keys.end - start, cells),
            progress,
        )
    }

    /// Writes the solved tier `step` as its final shard, atomically, at
    /// the full zstd level even for drafts, leaving out the remoteness of
    /// `side` (or of the side a sample of blocks says saves more, where
    /// `None`); `census` counts its cells, examples keys, and `fill` sets
    /// a run of its indices' cells as for [`Shards::write_filled`].
    /// Returns the side left out and the shard's size.
    pub fn write_leaving_out<T>(
        &self,
        (plan, step): (&Plan<T>, &Step<T>),
        census: &crate::Census<u64>,
        fill: impl Fn(Range<u64>, &mut [Cell]) -> Result<(), DbError> + Sync,
        side: Option<Value>,
        progress: &dyn Progress,
    ) -> Result<(Value, u64), DbError> {
        let meta = self.final_meta(plan, step)?;
        let start = step.keys.start;
        db::write_indexed_leaving_out_side(
            &self.path(&step.name),
            &meta,
            census,
            |keys, cells| fill(keys.start - start..keys.end - start, cells),
            (side, db::SAMPLE_EVERY),
            progress,
        )
    }

    /// Writes the solved tier `step` as its final shard of present keys
    /// ([`Keys::Present`]), atomically, at the full zstd level:
    /// `fill(indices, cells)` pushes the (index, cell) of each index of a
    /// run of the tier's indices (from 0) that its game names, in order;
    /// `entries` cells in all, whose positions `census` counts (examples
    /// keys). Returns the side left out, if any, and the shard's size.
    pub fn write_present<T>(
        &self,
        (plan, step): (&Plan<T>, &Step<T>),
        (census, entries): (&crate::Census<u64>, u64),
        leave: db::LeaveOut,
        fill: impl Fn(Range<u64>, &mut Vec<(u64, Cell)>) -> Result<(), DbError> + Sync,
        progress: &dyn Progress,
    ) -> Result<(Option<Value>, u64), DbError> {
        let meta = self.final_meta(plan, step)?;
        let start = step.keys.start;
        db::write_present(
            &self.path(&step.name),
            &meta,
            (census, entries),
            leave,
            |keys, cells| {
                let at = cells.len();
                fill(keys.start - start..keys.end - start, cells)?;
                for (index, _) in &mut cells[at..] {
                    *index += start;
                }
                Ok(())
            },
            progress,
        )
    }

    /// The side whose remoteness the finished shards of `steps` leave
    /// out, the first found.
    pub fn side_left_out<'a, T: 'a>(
        &self,
        steps: impl IntoIterator<Item = &'a Step<T>>,
    ) -> Option<Value> {
        steps
            .into_iter()
            .find_map(|step| self.left_out(step).ok().flatten())
    }

    /// The header of a file holding `keys` of this game.
    fn meta<T>(&self, plan: &Plan<T>, keys: Range<u64>) -> Meta {
        Meta {
            game: self.expect.game.clone(),
            rules_version: self.expect.rules_version,
            index_len: plan.index_len,
            range: keys,
            level: self.level,
        }
    }

    /// The header of `step`'s final shard, written at the full zstd level
    /// even for drafts, once the directory it goes in is made.
    fn final_meta<T>(&self, plan: &Plan<T>, step: &Step<T>) -> Result<Meta, DbError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| DbError::io(&self.dir, e))?;
        Ok(Meta {
            level: db::codec::ZSTD_LEVEL,
            ..self.meta(plan, step.keys.clone())
        })
    }

    /// Writes the cell of each of `keys` as the file at `path`, atomically.
    fn write_keys<T>(
        &self,
        plan: &Plan<T>,
        path: &Path,
        keys: Range<u64>,
        cell: impl Fn(u64) -> Cell + Sync,
        progress: &dyn Progress,
    ) -> Result<u64, DbError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| DbError::io(&self.dir, e))?;
        db::write_indexed(path, &self.meta(plan, keys), cell, progress)
    }

    /// Every tier's shard, read as one database.
    pub fn open<T>(&self, plan: &Plan<T>) -> Result<Database, DbError> {
        let paths: Vec<PathBuf> = plan.steps.iter().map(|s| self.path(&s.name)).collect();
        Database::open_shards(&paths, Some(&self.expect))
    }
}

/// Removes the temporary files in `dir` that atomic writers of the files
/// at `paths` left; returns how many.
fn remove_temporaries(dir: &Path, paths: &[PathBuf]) -> usize {
    let hidden: Vec<String> = paths
        .iter()
        .filter_map(|path| Some(format!(".{}.", path.file_name()?.to_str()?)))
        .collect();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| {
                n.ends_with(".tmp") && hidden.iter().any(|h| n.starts_with(h.as_str()))
            })
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// The distinct cells of `db`'s shards: those their dictionaries list,
/// and for a left-out side the left-out cell itself (as [`Shards::load`]
/// reads it) and the cells it stands for (from its counts, as they are
/// found again).
fn listed(db: &Database) -> Vec<Cell> {
    let mut cells = Vec::new();
    for header in db.headers() {
        cells.extend(header.dictionary.cells());
        if let Some(left_out) = &header.left_out {
            cells.extend(
                (0..left_out.by_remoteness.len())
                    .filter(|&r| left_out.by_remoteness[r] > 0)
                    .map(|r| match left_out.value {
                        Value::Win => Cell::pack(Outcome::win(r as u32)),
                        _ => Cell::pack(Outcome::lose(r as u32)),
                    }),
            );
        }
    }
    cells
}

/// The side whose remoteness the shard `db` leaves out, if any.
fn side_left_out(db: &Database) -> Option<Value> {
    db.headers()
        .find_map(|h| h.left_out.as_ref().map(|l| l.value))
}
