//! Which indices of a tiered game can be reached from its start position,
//! found tier by tier into a dense bit set.

use crate::game::{Symmetric, TableWalk};
use crate::progress::Progress;
use crate::solve::chunks;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A set of indices in `0..len`, one bit each, that many threads may add to
/// at once.
pub struct IndexSet {
    words: Box<[AtomicU64]>,
    len: u64,
}

impl IndexSet {
    /// An empty set over `0..len`.
    pub fn new(len: u64) -> Self {
        let words = (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        Self { words, len }
    }

    /// The size of the index space the set ranges over.
    pub fn capacity(&self) -> u64 {
        self.len
    }

    /// Adds `index`; indices outside `0..capacity` are ignored.
    pub fn insert(&self, index: u64) {
        if index < self.len {
            let word = &self.words[(index / 64) as usize];
            let bit = 1 << (index % 64);
            // A plain load first: most indices are found already present,
            // and a locked read-modify-write costs far more than a load.
            if word.load(Relaxed) & bit == 0 {
                word.fetch_or(bit, Relaxed);
            }
        }
    }

    /// Whether `index` is in the set.
    pub fn contains(&self, index: u64) -> bool {
        index < self.len && self.words[(index / 64) as usize].load(Relaxed) >> (index % 64) & 1 == 1
    }

    /// How many indices the set holds.
    pub fn count(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| u64::from(w.load(Relaxed).count_ones()))
            .sum()
    }
}

/// The indices of every position reachable from `game.start()`, the start
/// included, where play stops at primitive positions. Works tier by tier
/// from the start's tier up, each tier in parallel.
pub fn reachable<G: TableWalk>(game: &G, progress: &dyn Progress) -> IndexSet {
    let len = game.index_len();
    let set = IndexSet::new(len);
    let start = game.start();
    set.insert(game.rank(&start));
    let first = game.tier(&start);
    let tiers = game.tier_count();
    progress.begin("reaching", (tiers - first.min(tiers)) as u64);
    for tier in first..tiers {
        chunks(len).for_each(|range| {
            game.for_each_index_in_tier(tier, range, |index, position| {
                if set.contains(index) && game.primitive(&position).is_none() {
                    game.for_each_child_index(&position, |child| set.insert(child));
                }
            });
        });
        progress.advance(1);
    }
    progress.end();
    set
}

/// The canonical members (least index) of the classes of symmetric
/// positions reachable from `game.start()`, or `None` if the start is not
/// symmetric under every symmetry, since then the reachable positions need
/// not be a union of classes.
///
/// The symmetries must map moves to moves (as board symmetries do) and keep
/// positions in their tier. Then the reachable positions are a union of
/// classes, and it is enough to expand one member of each: every tier is
/// first closed (each position reached marks its class's canonical member),
/// then only canonical members are expanded. That visits about one
/// position in the group's size instead of all.
pub fn reachable_classes<G: TableWalk + Symmetric>(
    game: &G,
    progress: &dyn Progress,
) -> Option<IndexSet> {
    let start = game.start();
    let mut symmetric = true;
    game.for_each_symmetric(&start, |image| symmetric &= image == start);
    if !symmetric {
        return None;
    }
    let len = game.index_len();
    let reached = IndexSet::new(len);
    let classes = IndexSet::new(len);
    reached.insert(game.rank(&start));
    let first = game.tier(&start);
    let tiers = game.tier_count();
    progress.begin("reaching", (tiers - first.min(tiers)) as u64);
    for tier in first..tiers {
        chunks(len).for_each(|range| {
            game.for_each_index_in_tier(tier, range, |index, position| {
                if reached.contains(index) {
                    let mut least = index;
                    game.for_each_symmetric(&position, |image| {
                        least = least.min(game.rank(&image));
                    });
                    classes.insert(least);
                }
            });
        });
        chunks(len).for_each(|range| {
            game.for_each_index_in_tier(tier, range, |index, position| {
                if classes.contains(index) && game.primitive(&position).is_none() {
                    game.for_each_child_index(&position, |child| reached.insert(child));
                }
            });
        });
        progress.advance(1);
    }
    progress.end();
    Some(classes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_hold_what_was_inserted() {
        let set = IndexSet::new(130);
        for i in [0, 63, 64, 129, 500] {
            set.insert(i);
        }
        assert!(set.contains(0) && set.contains(63) && set.contains(64) && set.contains(129));
        assert!(!set.contains(1) && !set.contains(128) && !set.contains(500));
        assert_eq!(set.count(), 4);
        assert_eq!(set.capacity(), 130);
    }
}
