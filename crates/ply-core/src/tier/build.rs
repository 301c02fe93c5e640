//! Builds a game's database tier by tier: refuses a memory budget too
//! small before any work, keeps the tiers a killed build finished, and
//! solves the rest children first, writing each as its shard at once.

use super::TierError;
use super::plan::Plan;
use super::shard::Shards;
use super::solve::{ChildCells, solve_tier};
use crate::db::Expect;
use crate::game::Tiers;
use crate::limits;
use crate::progress::Progress;
use std::path::PathBuf;

/// How a tiered build runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The directory the tier shards are written to (and found in).
    pub dir: PathBuf,
    /// The most memory one tier's solve may use, in bytes; `None` for
    /// whatever the system has.
    pub memory: Option<u64>,
    /// Stop once this many tiers were solved in this run (the rest are
    /// left for a later run).
    pub stop_after: Option<usize>,
}

/// What a build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// Canonical tiers in the game.
    pub tiers: usize,
    /// Tiers found finished by an earlier run.
    pub found_done: usize,
    /// Tiers solved in this run.
    pub solved: usize,
    /// Shards found unsound and discarded, with the reason.
    pub discarded: Vec<String>,
    /// The most memory one tier's solve needed, in bytes.
    pub peak_bytes: u64,
}

impl Built {
    /// Whether every tier is solved.
    pub fn complete(&self) -> bool {
        self.found_done + self.solved == self.tiers
    }
}

/// Solves every tier of `game` that `dir` holds no sound shard of, children
/// first, each written as its shard as soon as it is solved.
pub fn build<G: Tiers>(
    game: &G,
    plan: &Plan<G::Tier>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Built, TierError> {
    let mut peak_bytes = 0;
    for step in &plan.steps {
        let needed = plan.bytes_needed(step);
        peak_bytes = peak_bytes.max(needed);
        if let Some(budget) = options.memory
            && needed > budget
        {
            return Err(TierError::Budget {
                tier: step.name.clone(),
                needed,
                budget,
            });
        }
    }
    limits::check_memory(&format!("the largest tier of {}", game.name()), peak_bytes)
        .map_err(TierError::TooLarge)?;
    let shards = Shards::new(&options.dir, Expect::of(game));
    shards.remove_leftovers();
    let mut done = Vec::with_capacity(plan.steps.len());
    let mut discarded = Vec::new();
    for step in &plan.steps {
        match shards.finished(plan, step) {
            Ok(finished) => done.push(finished),
            Err(why) => {
                progress.note(&why);
                discarded.push(why);
                done.push(false);
            }
        }
    }
    let found_done = done.iter().filter(|&&d| d).count();
    progress.note(&format!(
        "{found_done} of {} tiers found done",
        plan.steps.len()
    ));
    let mut solved = 0;
    for (step, done) in plan.steps.iter().zip(done) {
        if done {
            continue;
        }
        if options.stop_after.is_some_and(|most| solved >= most) {
            break;
        }
        if progress.cancelled() {
            return Err(TierError::Cancelled);
        }
        let mut children = Vec::with_capacity(step.children.len());
        for &tier in &step.children {
            let child = plan.step(tier).ok_or_else(|| {
                TierError::Game(format!("tier {} is not planned", game.tier_name(tier)))
            })?;
            children.push(ChildCells {
                tier,
                cells: shards.load(child)?,
            });
        }
        let cells = solve_tier(game, step.tier, &children, progress)?;
        drop(children);
        shards.write(plan, step, &cells, progress)?;
        solved += 1;
    }
    Ok(Built {
        tiers: plan.steps.len(),
        found_done,
        solved,
        discarded,
        peak_bytes,
    })
}
