//! How a team sharing a directory exchanges a table's tiers: each
//! process's *part* of a tier (the cells it solved, see the `part`
//! module) written there for the others to read, through a [`Member`] of
//! the team. [`crate::Table::build_symmetric_team`] (euler) and
//! [`crate::SparseTable::build_team`] (tictactoe) are its users.
//!
//! Each tier's chunks of positions are dealt out in turn: process `I`
//! solves chunks `I`, `I + P`, `I + 2P`, ... (neighbouring chunks cost
//! alike, so the shares are even). Once its share of a tier is solved, a
//! process writes the cells it set, in index order, as its part of the
//! tier (`GAME.table-tier-T.part-I-of-P.plypart`), then reads the other
//! processes' parts of the tier into its own cells before the next tier.
//! A move climbs a tier, so a tier needs only the tiers solved before it:
//! one pass and one exchange per tier, and every process ends with every
//! cell.
//!
//! Every process keeps a heartbeat in the directory ([`Heartbeat`]); one
//! waiting on a part takes its writer as lost when the writer's heartbeat
//! stops ([`Watch`]) and stops, naming it. Parts stay until the whole
//! team is done, so a rerun after a kill reads the tiers every process
//! finished instead of solving them, and solves the rest. Once each
//! process has written that it is done, process 0 removes the parts.

use super::part::{self, Label, Run};
use super::{Heartbeat, Team, TeamError, Watch};
use crate::db::{self, DbError};
use crate::game::Indexed;
use crate::progress::Progress;
use crate::value::Cell;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The extension of a part's file.
const PART_EXTENSION: &str = "plypart";

/// Cells per run of a part a sparse table's tier is coded in.
const RUN: usize = 1 << 16;

/// How long a process waiting on its peers' parts first sleeps between
/// looks, and at most.
const POLL_FIRST: Duration = Duration::from_micros(200);
const POLL_MOST: Duration = Duration::from_millis(10);

/// What a team's process did beside solving its share.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exchanged {
    /// Tiers, each one exchange.
    pub rounds: usize,
    /// Tiers read back from parts an earlier run left, not solved again.
    pub tiers_restored: usize,
    /// Bytes of the parts this process wrote.
    pub bytes_written: u64,
    /// Bytes of every process's parts, as process 0 saw them before
    /// removing them (0 in the other processes).
    pub bytes_all: u64,
}

/// Reads a part's cells in: given a key and its cell, false if there is
/// no such key. Called from several threads at once.
pub(crate) type Apply<'a> = &'a (dyn Fn(u64, Cell) -> bool + Sync);

/// One process of a team building a table tier by tier.
pub(crate) struct Member<'a> {
    /// What every part of this team says it is of, but its tier and process.
    label: Label,
    team: Team,
    dir: PathBuf,
    watch: Watch,
    progress: &'a dyn Progress,
    exchanged: Exchanged,
}

impl<'a> Member<'a> {
    /// Process `team.process` of `team`, building `game`'s table in `dir`,
    /// with its heartbeat (which beats until dropped).
    pub(crate) fn join(
        game: &impl Indexed,
        team: &Team,
        dir: &Path,
        progress: &'a dyn Progress,
    ) -> Result<(Heartbeat, Member<'a>), TeamError> {
        let name = game.name();
        std::fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
        let heartbeat = Heartbeat::in_dir(dir, &name, team)?;
        let member = Member {
            label: Label {
                game: name.clone(),
                rules_version: game.rules_version(),
                index_len: game.index_len(),
                tier: 0,
                process: team.process as u32,
                processes: team.processes as u32,
            },
            team: team.clone(),
            dir: dir.to_path_buf(),
            watch: Watch::new(dir, &name, team),
            progress,
            exchanged: Exchanged::default(),
        };
        Ok((heartbeat, member))
    }

    /// What this process exchanged so far.
    pub(crate) fn exchanged(&self) -> Exchanged {
        self.exchanged.clone()
    }

    /// Whether this process solves chunk (or task) number `chunk` of every
    /// tier: they are dealt out in turn.
    pub(crate) fn deals(&self, chunk: u64) -> bool {
        chunk % self.team.processes as u64 == self.team.process as u64
    }

    /// `GAME.table-WHAT.part-K-of-P.EXTENSION` in the team's directory,
    /// `K` being `process`.
    fn team_file(&self, what: &str, process: usize, extension: &str) -> PathBuf {
        self.dir.join(format!(
            "{}table-{what}.part-{process}-of-{}.{extension}",
            db::stem(&self.label.game),
            self.team.processes
        ))
    }

    /// The file of process `process`'s part of tier `tier`.
    fn part(&self, tier: usize, process: usize) -> PathBuf {
        self.team_file(&format!("tier-{tier}"), process, PART_EXTENSION)
    }

    /// The file that says process `process` has every cell.
    fn done_mark(&self, process: usize) -> PathBuf {
        self.team_file("done", process, "done")
    }

    /// What process `process`'s part of `tier` must say it is.
    fn label(&self, tier: usize, process: usize) -> Label {
        Label {
            tier: tier as u64,
            process: process as u32,
            ..self.label.clone()
        }
    }

    /// Reads process `process`'s part of `tier` with `apply`.
    fn read_part(&self, tier: usize, process: usize, apply: Apply) -> Result<u64, TeamError> {
        let path = self.part(tier, process);
        Ok(part::read(&path, &self.label(tier, process), apply)?)
    }

    /// Waits for every other process's part of `tier` and reads it with
    /// `apply`; stops when a peer is lost or the build is cancelled.
    fn gather(&mut self, tier: usize, apply: Apply) -> Result<(), TeamError> {
        let me = self.team.process;
        for peer in (0..self.team.processes).filter(|&p| p != me) {
            let path = self.part(tier, peer);
            self.wait_for(peer, &path)?;
            self.read_part(tier, peer, apply)?;
        }
        Ok(())
    }

    /// If this process's part of `tier` is left from an earlier run and
    /// reads back whole, reads it and the peers' parts with `apply` and
    /// says so; a part that does not read back is removed.
    pub(crate) fn restore_tier(&mut self, tier: usize, apply: Apply) -> Result<bool, TeamError> {
        let own = self.part(tier, self.team.process);
        if !own.exists() {
            return Ok(false);
        }
        if self.read_part(tier, self.team.process, apply).is_err() {
            std::fs::remove_file(&own).map_err(|e| DbError::io(&own, e))?;
            return Ok(false);
        }
        self.gather(tier, apply)?;
        self.exchanged.tiers_restored += 1;
        Ok(true)
    }

    /// Writes `runs` (in key order), the cells this process solved in
    /// `tier`, as its part, then reads the peers' parts with `apply`.
    pub(crate) fn share_runs(
        &mut self,
        tier: usize,
        runs: Vec<Run>,
        apply: Apply,
    ) -> Result<(), TeamError> {
        let path = self.part(tier, self.team.process);
        self.exchanged.bytes_written +=
            part::write(&path, &self.label(tier, self.team.process), &runs)?;
        drop(runs);
        self.gather(tier, apply)
    }

    /// [`Member::share_runs`] of `entries` (increasing keys).
    pub(crate) fn share(
        &mut self,
        tier: usize,
        entries: &[(u64, Cell)],
        apply: Apply,
    ) -> Result<(), TeamError> {
        let runs = entries
            .par_chunks(RUN)
            .filter_map(|run| Run::code(run.iter().copied()))
            .collect();
        self.share_runs(tier, runs, apply)
    }

    /// Waits until `path`, written by `peer`, is there.
    fn wait_for(&mut self, peer: usize, path: &Path) -> Result<(), TeamError> {
        // Peers finish a tier at nearly the same moment, so look again
        // soon at first, then less often.
        let mut pause = POLL_FIRST;
        while !path.exists() {
            if self.progress.cancelled() {
                return Err(TeamError::Cancelled);
            }
            self.watch.alive(peer)?;
            std::thread::sleep(pause);
            pause = (pause * 2).min(POLL_MOST);
        }
        Ok(())
    }

    /// Says this process has every cell; process 0 waits until every
    /// process has said so, then removes the team's parts of the `tiers`
    /// tiers.
    pub(crate) fn finish(&mut self, tiers: usize) -> Result<(), TeamError> {
        self.exchanged.rounds = tiers;
        let mark = self.done_mark(self.team.process);
        let temp = db::temporary::path_for(&mark);
        std::fs::write(&temp, b"done\n")
            .and_then(|()| std::fs::rename(&temp, &mark))
            .map_err(|e| DbError::io(&mark, e))?;
        if self.team.process != 0 {
            return Ok(());
        }
        for peer in 1..self.team.processes {
            let mark = self.done_mark(peer);
            self.wait_for(peer, &mark)?;
        }
        for process in 0..self.team.processes {
            for tier in 0..tiers {
                let part = self.part(tier, process);
                if let Ok(meta) = std::fs::metadata(&part) {
                    self.exchanged.bytes_all += meta.len();
                }
                let _ = std::fs::remove_file(part);
            }
            let _ = std::fs::remove_file(self.done_mark(process));
        }
        Ok(())
    }
}
