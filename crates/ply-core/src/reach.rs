//! The positions reachable from a set of starts, as a bit set over a
//! game's index, found breadth first with each level in parallel.

use crate::game::Indexed;
use crate::progress::Progress;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// A set of indices: one bit per index of a game.
#[derive(Clone, Debug)]
pub struct Reachable {
    bits: Vec<u64>,
    count: u64,
}

impl Reachable {
    /// Every position of `game` reachable from `starts` (the starts included).
    pub fn from_starts<G: Indexed>(
        game: &G,
        starts: impl IntoIterator<Item = G::Position>,
        progress: &dyn Progress,
    ) -> Self {
        let len = game.index_len();
        let bits: Vec<AtomicU64> = (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let mark = |index: u64| {
            let bit = 1 << (index % 64);
            bits[(index / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
        };
        let mut frontier: Vec<u64> = starts
            .into_iter()
            .map(|p| game.rank(&p))
            .filter(|&i| mark(i))
            .collect();
        let mut count = 0;
        progress.begin("reachable", 0);
        while !frontier.is_empty() {
            count += frontier.len() as u64;
            progress.advance(frontier.len() as u64);
            frontier = frontier
                .par_iter()
                .fold(Vec::new, |mut next, &index| {
                    if let Some(position) = game.unrank(index) {
                        if game.primitive(&position).is_none() {
                            game.for_each_move(&position, |_, child| {
                                let child = game.rank(&child);
                                if mark(child) {
                                    next.push(child);
                                }
                            });
                        }
                    }
                    next
                })
                .reduce(Vec::new, |mut a, mut b| {
                    a.append(&mut b);
                    a
                });
        }
        progress.end();
        Self {
            bits: bits.into_iter().map(AtomicU64::into_inner).collect(),
            count,
        }
    }

    /// Whether the position with index `index` is reachable.
    pub fn contains(&self, index: u64) -> bool {
        self.bits
            .get((index / 64) as usize)
            .is_some_and(|word| word >> (index % 64) & 1 == 1)
    }

    /// How many positions are reachable.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether nothing is reachable (there were no starts).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, PositionError};
    use crate::progress::NoProgress;
    use crate::value::Value;

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
        let reach = Reachable::from_starts(&game, [70, 5], &NoProgress);
        assert_eq!(reach.len(), 71);
        assert!((0..=70).all(|i| reach.contains(i)));
        assert!(!reach.contains(71) && !reach.contains(1000));
        let none = Reachable::from_starts(&game, [], &NoProgress);
        assert!(none.is_empty() && !none.contains(0));
    }
}
