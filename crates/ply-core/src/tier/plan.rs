//! The plan of a tiered solve: which tiers are solved (the canonical
//! ones), in which order (children first), where each lies in the
//! database's key space, and the memory each needs.

use super::TierError;
use super::solve::working_bytes;
use crate::game::NamedTiers;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::OnceLock;

/// One canonical tier in the plan.
#[derive(Clone, Debug)]
pub struct Step<T> {
    /// The tier.
    pub tier: T,
    /// Its name, from the game.
    pub name: String,
    /// Its keys in the database: its indices, shifted.
    pub keys: Range<u64>,
    /// The canonical tiers its moves lead to (itself left out).
    pub children: Vec<T>,
    /// How many tiers of the game it answers for (itself and its mirrors).
    pub mirrors: u64,
    /// Its height: 0 for a tier without child tiers, else one more than
    /// its highest child tier (for Quixo, the blank cubes).
    pub height: u32,
    /// The bytes of its working cells while it is solved, once asked
    /// ([`Step::working`]).
    working: OnceLock<u64>,
}

impl<T> Step<T> {
    /// Positions (indices) in the tier.
    pub fn size(&self) -> u64 {
        self.keys.end - self.keys.start
    }

    /// The bytes of its working cells while `game` solves it: 2 an index,
    /// or where a cell per symmetry class pays, an estimate of those
    /// (`working_bytes`), from a sample of the tier taken the first time
    /// it is asked, so that a plan only read from (a query) takes none.
    pub fn working<G: NamedTiers<Tier = T>>(&self, game: &G) -> u64
    where
        T: Copy,
    {
        *self
            .working
            .get_or_init(|| working_bytes(game, self.tier, self.size()))
    }
}

/// Every canonical tier of a game, children before parents.
#[derive(Clone, Debug)]
pub struct Plan<T> {
    /// The tiers in solving order.
    pub steps: Vec<Step<T>>,
    /// Where each tier is in `steps`.
    at: BTreeMap<T, usize>,
    /// The size of the whole key space: every canonical tier's indices.
    pub index_len: u64,
}

impl<T: Copy + Ord> Plan<T> {
    /// The plan of `game`'s tiers. Fails if a tier's moves lead to a tier
    /// the game does not list, or if the tiers form a cycle.
    pub fn new<G: NamedTiers<Tier = T>>(game: &G) -> Result<Plan<T>, TierError> {
        let all: BTreeSet<T> = game.tiers().into_iter().collect();
        let mut mirrors: BTreeMap<T, u64> = BTreeMap::new();
        for &tier in &all {
            let canonical = game.canonical_tier(tier);
            if !all.contains(&canonical) || game.canonical_tier(canonical) != canonical {
                return Err(TierError::Game(format!(
                    "tier {} has canonical tier {}, which is not a canonical tier of the game",
                    game.tier_name(tier),
                    game.tier_name(canonical)
                )));
            }
            *mirrors.entry(canonical).or_default() += 1;
        }
        // Keys in the order of the tiers' labels.
        let mut keys = BTreeMap::new();
        let mut next = 0u64;
        for &tier in mirrors.keys() {
            let size = game.tier_size(tier);
            keys.insert(tier, next..next + size);
            next = next
                .checked_add(size)
                .ok_or_else(|| TierError::Game("the tiers hold more than 2^64 positions".into()))?;
        }
        let children = |tier: T| -> Result<Vec<T>, TierError> {
            let mut out = BTreeSet::new();
            for child in game.child_tiers(tier) {
                if !all.contains(&child) {
                    return Err(TierError::Game(format!(
                        "tier {} leads to tier {}, which the game does not list",
                        game.tier_name(tier),
                        game.tier_name(child)
                    )));
                }
                let child = game.canonical_tier(child);
                if child == tier {
                    return Err(TierError::Game(format!(
                        "tier {} leads to one of its own mirror tiers",
                        game.tier_name(tier)
                    )));
                }
                out.insert(child);
            }
            Ok(out.into_iter().collect())
        };
        // Depth-first, children first; a tier met again while open is a cycle.
        let mut steps = Vec::with_capacity(mirrors.len());
        let mut at = BTreeMap::new();
        let mut open = BTreeSet::new();
        for &root in mirrors.keys() {
            if at.contains_key(&root) {
                continue;
            }
            let mut stack = vec![(root, children(root)?, 0usize)];
            open.insert(root);
            while let Some((tier, kids, next_kid)) = stack.last_mut() {
                if let Some(&kid) = kids.get(*next_kid) {
                    *next_kid += 1;
                    if at.contains_key(&kid) {
                        continue;
                    }
                    if !open.insert(kid) {
                        return Err(TierError::Game(format!(
                            "the tiers form a cycle through tier {}",
                            game.tier_name(kid)
                        )));
                    }
                    let grandchildren = children(kid)?;
                    stack.push((kid, grandchildren, 0));
                    continue;
                }
                let (tier, kids) = (*tier, std::mem::take(kids));
                stack.pop();
                open.remove(&tier);
                let height = kids
                    .iter()
                    .map(|kid| {
                        let step: &Step<T> = &steps[at[kid]];
                        step.height + 1
                    })
                    .max()
                    .unwrap_or(0);
                at.insert(tier, steps.len());
                steps.push(Step {
                    tier,
                    name: game.tier_name(tier),
                    keys: keys[&tier].clone(),
                    children: kids,
                    mirrors: mirrors[&tier],
                    height,
                    working: OnceLock::new(),
                });
            }
        }
        Ok(Plan {
            steps,
            at,
            index_len: next,
        })
    }

    /// The plan of the last tiers only: those of height at most `height`
    /// (see [`Step::height`]), which need no other tier. Keys stay those of
    /// the whole game, so their shards are the whole build's.
    pub fn end_tiers(&self, height: u32) -> Plan<T> {
        let steps: Vec<Step<T>> = self
            .steps
            .iter()
            .filter(|s| s.height <= height)
            .cloned()
            .collect();
        let at = steps.iter().enumerate().map(|(i, s)| (s.tier, i)).collect();
        Plan {
            steps,
            at,
            index_len: self.index_len,
        }
    }

    /// The step of canonical tier `tier`.
    pub fn step(&self, tier: T) -> Option<&Step<T>> {
        self.at.get(&tier).map(|&i| &self.steps[i])
    }

    /// The step of the tier named `name` ([`crate::NamedTiers::tier_name`]).
    pub fn named(&self, name: &str) -> Option<&Step<T>> {
        self.steps.iter().find(|s| s.name == name)
    }

    /// Where the step of canonical tier `tier` is in [`Plan::steps`].
    pub fn position_of(&self, tier: T) -> Option<usize> {
        self.at.get(&tier).copied()
    }

    /// The memory `game` needs to solve `step` at the least: its working cells, and
    /// its child tiers' cells at a byte each (what they take when each
    /// holds at most 256 distinct cells, as they nearly always do; see
    /// [`Plan::bytes_needed_with`]).
    pub fn bytes_needed<G: NamedTiers<Tier = T>>(&self, game: &G, step: &Step<T>) -> u64 {
        self.bytes_needed_with(game, step, |_| 1)
    }

    /// The memory solving `step` needs when each child tier's cells take
    /// `width(child)` bytes each.
    pub fn bytes_needed_with<G: NamedTiers<Tier = T>>(
        &self,
        game: &G,
        step: &Step<T>,
        mut width: impl FnMut(&Step<T>) -> u64,
    ) -> u64 {
        let children: u64 = step
            .children
            .iter()
            .filter_map(|&c| self.step(c))
            .map(|c| width(c) * c.size())
            .sum();
        step.working(game) + children
    }

    /// The step needing the most memory, and that memory.
    pub fn largest<G: NamedTiers<Tier = T>>(&self, game: &G) -> Option<(&Step<T>, u64)> {
        self.steps
            .iter()
            .map(|s| (s, self.bytes_needed(game, s)))
            .max_by_key(|&(_, bytes)| bytes)
    }

    /// Positions of the whole game, mirror tiers included.
    pub fn positions(&self) -> u64 {
        self.steps.iter().map(|s| s.size() * s.mirrors).sum()
    }
}

impl<T: Copy + Ord> Plan<T> {
    /// The key of `position` in the database: its image in its canonical
    /// tier, ranked there and shifted to that tier's keys.
    pub fn key<G: NamedTiers<Tier = T>>(&self, game: &G, position: &G::Position) -> Option<u64> {
        let tier = game.tier_of(position);
        let canonical = game.canonical_tier(tier);
        let rank = if canonical == tier {
            game.tier_rank(tier, position)
        } else {
            game.tier_rank(canonical, &game.to_canonical_tier(position))
        };
        let step = self.step(canonical)?;
        (rank < step.size()).then_some(step.keys.start + rank)
    }
    /// `db`, shards of `game` over this plan's keys, with the game's test
    /// of which indices each of its shards of present keys holds
    /// ([`NamedTiers::tier_presence`]), found by the shard's range.
    pub fn with_presence<G: NamedTiers<Tier = T>>(
        &self,
        game: &G,
        db: crate::db::Database,
    ) -> crate::db::Database {
        db.with_presence(|header| {
            let step = self.steps.iter().find(|s| s.keys == header.range)?;
            game.tier_presence(step.tier)
        })
    }
}
