//! One build's work on its tiers, shared by the build's two ways of
//! solving them: one at a time ([`super::build()`]'s turn loop) and several
//! at once within a memory budget ([`super::together`]). Both import this
//! module and neither imports the other.

use super::TierError;
use super::cells::Cells;
use super::cut::{self, Cut};
use super::plan::{Plan, Step};
use super::restore;
use super::shard::Shards;
use super::solve::{ChildCells, solve_slice, solve_tier};
use crate::game::NamedTiers;
use crate::progress::Progress;
use crate::solution::Solution;
use crate::team::Crew;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// What the solving part of a build did.
pub(super) struct Run {
    /// Tiers solved.
    pub solved: usize,
    /// Slices of cut tiers solved.
    pub slices: usize,
    /// The most tiers solved at the same time.
    pub at_once: usize,
    /// The most memory the tiers solved at the same time needed together.
    pub at_once_bytes: u64,
}

/// What solving a tier reads and writes: the game, its plan and the
/// directory of its shards.
pub(super) struct Job<'a, G: NamedTiers> {
    /// The game.
    pub game: &'a G,
    /// Its plan.
    pub plan: &'a Plan<G::Tier>,
    /// Its shards.
    pub shards: &'a Shards,
    /// By step, the counterpart's shards whose left-out cells are found
    /// again and taken rather than solve the tier (`adopt` (in `build`)).
    pub counterparts: Vec<Option<Shards>>,
    /// How many of those were taken.
    pub taken: AtomicUsize,
}

impl<G: NamedTiers> Job<'_, G> {
    /// Where child tier `tier` is in the plan's steps.
    pub fn position_of(&self, tier: G::Tier) -> Result<usize, TierError> {
        self.plan.position_of(tier).ok_or_else(|| {
            TierError::Game(format!("tier {} is not planned", self.game.tier_name(tier)))
        })
    }

    /// The memory solving `step` needs, its child tiers' cell widths read
    /// from their shards (all finished); fails if that is over `memory`.
    pub fn bytes_needed(
        &self,
        step: &Step<G::Tier>,
        memory: Option<u64>,
    ) -> Result<u64, TierError> {
        // The child tiers' cells take two bytes each where a tier holds
        // more than 256 distinct cells: known from their shards.
        let mut widths = BTreeMap::new();
        for &tier in &step.children {
            if let Some(child) = self.plan.step(tier) {
                widths.insert(tier, Cells::width(&self.shards.dictionary(child)?));
            }
        }
        let needed = self
            .plan
            .bytes_needed_with(self.game, step, |child| widths[&child.tier]);
        match memory {
            Some(budget) if needed > budget => Err(TierError::Budget {
                tier: step.name.clone(),
                needed,
                budget,
            }),
            _ => Ok(needed),
        }
    }

    /// The cells of `step`'s child tiers, read from their shards (all
    /// finished).
    fn children(&self, step: &Step<G::Tier>) -> Result<Vec<ChildCells<G::Tier>>, TierError> {
        let mut children = Vec::with_capacity(step.children.len());
        for &tier in &step.children {
            let at = self.position_of(tier)?;
            let child = &self.plan.steps[at];
            let cells = match self.shards.left_out(child)? {
                None => self.shards.load(child)?,
                Some(_) => self.restored(child)?,
            };
            children.push(ChildCells { tier, cells });
        }
        Ok(children)
    }

    /// The cells of the solved tier `step`, whose shard leaves out one
    /// side's remoteness (the whole game was solved, then a tier above it
    /// was lost): each left-out cell found again from its children's
    /// cells ([`restore::restore()`]), those in its child tiers read from their
    /// shards. Slow, a look-up on disk per such child, but only for
    /// repairing a build.
    fn restored(&self, step: &Step<G::Tier>) -> Result<Cells, TierError> {
        let dbs = step
            .children
            .iter()
            .filter_map(|&t| self.plan.step(t))
            .map(|s| Ok((s.tier, (s.keys.start, self.shards.open_step(s)?))))
            .collect::<Result<BTreeMap<_, _>, TierError>>()?;
        let mut cells = self.shards.load(step)?;
        restore::restore(
            self.game,
            step.tier,
            &mut cells,
            |tier, index| match dbs.get(&tier) {
                Some((start, db)) => Ok(db.cell(start + index)?),
                None => Err(self.not_a_child(step, tier)),
            },
            |index| self.unfound(self.shards, step, index),
        )?;
        Ok(cells)
    }

    /// The error of a move from `step` into `tier`, not one of its child
    /// tiers.
    fn not_a_child(&self, step: &Step<G::Tier>, tier: G::Tier) -> TierError {
        TierError::Game(format!(
            "tier {}: a move leads to tier {}, which is not a child tier",
            step.name,
            self.game.tier_name(tier)
        ))
    }

    /// The error of the cell at `index` of `step` in `shards`, whose
    /// left-out remoteness its children contradict.
    fn unfound(&self, shards: &Shards, step: &Step<G::Tier>, index: u64) -> TierError {
        TierError::Db(crate::db::DbError::corrupt(
            &shards.path(&step.name),
            format!(
                "the remoteness it leaves out at key {} is not found from its children",
                step.keys.start + index
            ),
        ))
    }

    /// Takes `theirs`' shard of `step`, which leaves out a side's
    /// remoteness: its cells read, each left-out one found again from its
    /// children ([`restore::restore()`]), in `step` and in its child tiers (all
    /// solved), and written as this game's shard.
    fn take(
        &self,
        step: &Step<G::Tier>,
        theirs: &Shards,
        progress: &dyn Progress,
    ) -> Result<(), TierError> {
        let started = Instant::now();
        let children = self.children(step)?;
        let mut cells = theirs.load(step)?;
        let loaded = started.elapsed();
        let found = restore::restore(
            self.game,
            step.tier,
            &mut cells,
            |tier, index| match children.iter().find(|c| c.tier == tier) {
                Some(child) => Ok(child.cells.cell(index as usize)),
                None => Err(self.not_a_child(step, tier)),
            },
            |index| self.unfound(theirs, step, index),
        )?;
        drop(children);
        let restoring = started.elapsed() - loaded;
        let size = step.size() as usize;
        let start = step.keys.start;
        let bytes = self.shards.write_of(
            self.plan,
            step,
            &restore::present(&cells, size),
            |key| cells.cell((key - start) as usize),
            progress,
        )?;
        self.taken.fetch_add(1, Relaxed);
        progress.note(&format!(
            "tier {}: {}'s shard taken: read with its child tiers in {:.1} s, \
             {found} left-out cells found again in {:.1} s, shard of {bytes} bytes written in {:.1} s",
            step.name,
            theirs.game(),
            loaded.as_secs_f64(),
            restoring.as_secs_f64(),
            (started.elapsed() - loaded - restoring).as_secs_f64()
        ));
        Ok(())
    }

    /// Solves slice `slice` of `slices` of `step`, a tier every move
    /// leaves, from its child tiers, and writes it as the slice's file;
    /// nothing if that file is there and sound (an unsound one is
    /// replaced). Whether it solved the slice.
    pub fn solve_slice(
        &self,
        step: &Step<G::Tier>,
        (slice, slices): (usize, usize),
        progress: &dyn Progress,
    ) -> Result<bool, TierError> {
        if self
            .shards
            .slice_sound(self.plan, step, slice, slices)
            .is_ok()
        {
            return Ok(false);
        }
        let children = self.children(step)?;
        let keys = Shards::slice_keys(step, slice, slices);
        let indices = keys.start - step.keys.start..keys.end - step.keys.start;
        let cells = solve_slice(self.game, step.tier, &children, indices.clone(), progress)?;
        drop(children);
        let cell = |index: u64| cells[(index - indices.start) as usize];
        self.shards
            .write_slice(self.plan, step, (slice, slices), cell, progress)?;
        Ok(true)
    }

    /// Solves this process's part of `step`, a tier with moves inside it
    /// cut between the processes of `crew` as `cut` says, in lockstep
    /// with them ([`cut::solve_part`]), its child tiers read from their
    /// shards, and writes the part as its slice's file (replacing any).
    pub fn solve_cut(
        &self,
        step: &Step<G::Tier>,
        cut: &Cut,
        crew: &mut Crew,
        progress: &dyn Progress,
    ) -> Result<(), TierError> {
        let children = self.children(step)?;
        let part = cut::solve_part(self.game, step.tier, &children, cut, crew, progress)?;
        let slice = (cut.process, cut.bounds.len() - 1);
        self.shards
            .write_slice(self.plan, step, slice, |index| part.cell(index), progress)?;
        Ok(())
    }

    /// Solves `step`, its child tiers read from their shards (all
    /// finished), and writes it as its shard; or, where `adopt` (in `build`) left
    /// the counterpart's shard of it to be taken in its turn, takes that
    /// ([`Job::take`]).
    pub fn solve(&self, step: &Step<G::Tier>, progress: &dyn Progress) -> Result<(), TierError> {
        if let Some(theirs) = &self.counterparts[self.position_of(step.tier)?] {
            return self.take(step, theirs, progress);
        }
        let started = Instant::now();
        let children = self.children(step)?;
        let loaded = started.elapsed();
        let solved = solve_tier(self.game, step.tier, &children, progress)?;
        drop(children);
        let writing = Instant::now();
        let start = step.keys.start;
        let bytes = self.shards.write_of(
            self.plan,
            step,
            &solved.present(),
            |key| solved.cell(self.game, step.tier, key - start),
            progress,
        )?;
        if solved.broken() {
            let _ = std::fs::remove_file(self.shards.path(&step.name));
            return Err(TierError::Game(format!(
                "tier {}: a position's symmetry class has no representative in the tier",
                step.name
            )));
        }
        if started.elapsed() >= NOTE_AFTER {
            progress.note(&format!(
                "tier {}: child tiers read in {:.1} s, shard of {bytes} bytes written in {:.1} s",
                step.name,
                loaded.as_secs_f64(),
                writing.elapsed().as_secs_f64()
            ));
        }
        Ok(())
    }
}

/// A tier's solve taking at least this long notes where its time went.
const NOTE_AFTER: Duration = Duration::from_secs(1);
