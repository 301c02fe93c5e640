//! Which indices of a game can be reached from its start (or from a set of
//! starts), found into a dense bit set: tier by tier for tiered games,
//! breadth first for any indexed game.

use crate::census::Census;
use crate::db_error::DbError;
use crate::game::{Indexed, Symmetric, TableWalk};
use crate::progress::Progress;
use crate::solution::Solution;
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
        // Zeroed by the allocator (pages the system hands over zeroed),
        // not filled word by word on one thread.
        let words = bytemuck::zeroed_slice_box(len.div_ceil(64) as usize);
        Self { words, len }
    }

    /// The words of the set, bit `i % 64` of word `i / 64` standing for `i`.
    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// The size of the index space the set ranges over.
    pub fn capacity(&self) -> u64 {
        self.len
    }

    /// Adds `index`, and says whether it was new; indices outside
    /// `0..capacity` are ignored (and are never new).
    pub fn insert(&self, index: u64) -> bool {
        if index >= self.len {
            return false;
        }
        let word = &self.words[(index / 64) as usize];
        let bit = 1 << (index % 64);
        // A plain load first: most indices are found already present,
        // and a locked read-modify-write costs far more than a load.
        word.load(Relaxed) & bit == 0 && word.fetch_or(bit, Relaxed) & bit == 0
    }

    /// Whether `index` is in the set.
    pub fn contains(&self, index: u64) -> bool {
        index < self.len && self.words[(index / 64) as usize].load(Relaxed) >> (index % 64) & 1 == 1
    }

    /// Empties the set, calling `visit(index, scratch)` on every index in it
    /// and summing what `visit` returns: in parallel, in index order within
    /// each task, each task with its own `scratch`. Going in index order
    /// keeps neighbouring positions, whose parents are often neighbours
    /// too, together.
    pub fn drain<S: Default + Send>(&self, visit: impl Fn(u64, &mut S) -> u64 + Sync) -> u64 {
        /// Words handled by one task.
        const TASK: usize = 1 << 10;
        self.words
            .par_chunks(TASK)
            .enumerate()
            .map_init(S::default, |scratch, (task, words)| {
                let mut total = 0;
                for (i, word) in words.iter().enumerate() {
                    let mut bits = word.swap(0, Relaxed);
                    let base = ((task * TASK + i) * 64) as u64;
                    while bits != 0 {
                        total += visit(base + u64::from(bits.trailing_zeros()), scratch);
                        bits &= bits - 1;
                    }
                }
                total
            })
            .sum()
    }

    /// Empties the set a run of up to 2^16 indices at a time, in
    /// parallel: `run(indices)` gets each run's indices, in increasing
    /// order; the results come back in index order.
    pub fn drain_runs<T: Send>(&self, run: impl Fn(&[u64]) -> T + Sync) -> Vec<T> {
        /// Words handled by one task.
        const TASK: usize = 1 << 10;
        self.words
            .par_chunks(TASK)
            .enumerate()
            .map_init(Vec::new, |indices, (task, words)| {
                indices.clear();
                for (i, word) in words.iter().enumerate() {
                    let mut bits = word.swap(0, Relaxed);
                    let base = ((task * TASK + i) * 64) as u64;
                    while bits != 0 {
                        indices.push(base + u64::from(bits.trailing_zeros()));
                        bits &= bits - 1;
                    }
                }
                run(indices)
            })
            .collect()
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
        expand_tier(game, tier, &set, &set);
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
        par_for_each_in_tier(game, tier, |index, position| {
            if reached.contains(index) {
                let mut least = index;
                game.for_each_symmetric(&position, |image| {
                    least = least.min(game.rank(&image));
                });
                classes.insert(least);
            }
        });
        expand_tier(game, tier, &classes, &reached);
        progress.advance(1);
    }
    progress.end();
    Some(classes)
}

/// Calls `visit` with every index of `tier` and its position, chunks of the
/// index space in parallel.
fn par_for_each_in_tier<G: TableWalk>(
    game: &G,
    tier: usize,
    visit: impl Fn(u64, G::Position) + Sync,
) {
    chunks(game.index_len()).for_each(|range| game.for_each_index_in_tier(tier, range, &visit));
}

/// Adds to `into` every child of a position of `tier` that is in `from` and
/// not primitive.
fn expand_tier<G: TableWalk>(game: &G, tier: usize, from: &IndexSet, into: &IndexSet) {
    par_for_each_in_tier(game, tier, |index, position| {
        if from.contains(index) && game.primitive(&position).is_none() {
            game.for_each_child_index(&position, |child| {
                into.insert(child);
            });
        }
    });
}

/// The indices of every position reachable from any of `starts` (the starts
/// included), where play stops at primitive positions. Breadth first, each
/// level in parallel; for games without tiers, or with several starts.
pub fn reachable_from<G: Indexed>(
    game: &G,
    starts: impl IntoIterator<Item = G::Position>,
    progress: &dyn Progress,
) -> IndexSet {
    let set = IndexSet::new(game.index_len());
    let mut frontier: Vec<u64> = starts
        .into_iter()
        .map(|p| game.rank(&p))
        .filter(|&i| set.insert(i))
        .collect();
    progress.begin("reachable", 0);
    while !frontier.is_empty() {
        progress.advance(frontier.len() as u64);
        frontier = frontier
            .par_iter()
            .fold(Vec::new, |mut next, &index| {
                if let Some(position) = game.unrank(index)
                    && game.primitive(&position).is_none()
                {
                    game.for_each_move(&position, |_, child| {
                        let child = game.rank(&child);
                        if set.insert(child) {
                            next.push(child);
                        }
                    });
                }
                next
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
    }
    progress.end();
    set
}

/// The census of every member of the classes whose canonical members are
/// in `classes`, from a solution over every index; examples are canonical
/// indices.
pub fn census_of_classes<G: Indexed + Symmetric>(
    solution: &dyn Solution,
    game: &G,
    classes: &IndexSet,
) -> Result<Census<u64>, DbError> {
    solution.census_by(0..solution.index_len(), &|index| {
        if !classes.contains(index) {
            return 0;
        }
        game.unrank(index)
            .map_or(0, |position| game.class_size(index, &position))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, PositionError};
    use crate::progress::NoProgress;
    use crate::value::Value;

    #[test]
    fn sets_hold_what_was_inserted() {
        let set = IndexSet::new(130);
        for i in [0, 63, 64, 129] {
            assert!(set.insert(i));
        }
        assert!(!set.insert(63) && !set.insert(500));
        assert!(set.contains(0) && set.contains(63) && set.contains(64) && set.contains(129));
        assert!(!set.contains(1) && !set.contains(128) && !set.contains(500));
        assert_eq!(set.count(), 4);
        assert_eq!(set.capacity(), 130);
    }

    /// Counting down from `n` by one or two; 0 is the end.
    struct Countdown(u64);

    impl Game for Countdown {
        type Position = u64;
        type Move = u64;
        fn name(&self) -> String {
            "countdown".into()
        }
        fn start(&self) -> u64 {
            self.0
        }
        fn primitive(&self, position: &u64) -> Option<Value> {
            (*position == 0).then_some(Value::Lose)
        }
        fn for_each_move(&self, position: &u64, mut visit: impl FnMut(u64, u64)) {
            for step in 1..=2.min(*position) {
                visit(step, position - step);
            }
        }
        fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
            text.parse().map_err(|_| PositionError::new("not a number"))
        }
        fn format_position(&self, position: &u64) -> String {
            position.to_string()
        }
        fn format_move(&self, _position: &u64, mv: u64) -> String {
            mv.to_string()
        }
    }

    impl Indexed for Countdown {
        fn index_len(&self) -> u64 {
            self.0 + 100
        }
        fn rank(&self, position: &u64) -> u64 {
            *position
        }
        fn unrank(&self, index: u64) -> Option<u64> {
            Some(index)
        }
    }

    #[test]
    fn counts_what_the_moves_reach_and_nothing_else() {
        let game = Countdown(70);
        let reach = reachable_from(&game, [70, 5], &NoProgress);
        assert_eq!(reach.count(), 71);
        assert!((0..=70).all(|i| reach.contains(i)));
        assert!(!reach.contains(71) && !reach.contains(1000));
        let none = reachable_from(&game, [], &NoProgress);
        assert_eq!(none.count(), 0);
        assert!(!none.contains(0));
    }
}
