//! Counts of positions by value and remoteness, as `ply analyze` reports them.

use crate::value::{Outcome, Remoteness, Value};

/// Counts of positions by value and remoteness, with an example of the
/// longest win and the longest loss. Two censuses of disjoint position sets
/// merge into the census of their union, so solvers can count in parallel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census<P> {
    /// Positions counted.
    pub positions: u64,
    /// Wins for the player to move.
    pub win: u64,
    /// Losses for the player to move.
    pub lose: u64,
    /// Ties.
    pub tie: u64,
    /// Draws.
    pub draw: u64,
    /// `by_remoteness[r]` counts (win, lose, tie) at remoteness `r`.
    pub by_remoteness: Vec<[u64; 3]>,
    /// A win with the greatest remoteness, and that remoteness.
    pub longest_win: Option<(Remoteness, P)>,
    /// A loss with the greatest remoteness, and that remoteness.
    pub longest_lose: Option<(Remoteness, P)>,
}

impl<P: Clone> Census<P> {
    /// An empty census.
    pub fn new() -> Self {
        Self {
            positions: 0,
            win: 0,
            lose: 0,
            tie: 0,
            draw: 0,
            by_remoteness: Vec::new(),
            longest_win: None,
            longest_lose: None,
        }
    }

    /// Counts one position. `example` is called only when the position
    /// becomes the new longest win or loss, so examples cost nothing otherwise.
    pub fn add(&mut self, outcome: Outcome, example: impl FnOnce() -> P) {
        self.add_many(outcome, 1, example);
    }

    /// Counts `n` positions of one outcome, `example` standing for them
    /// all (called as in [`Census::add`]).
    pub fn add_many(&mut self, outcome: Outcome, n: u64, example: impl FnOnce() -> P) {
        if n == 0 {
            return;
        }
        self.positions += n;
        let column = match outcome.value {
            Value::Win => {
                self.win += n;
                0
            }
            Value::Lose => {
                self.lose += n;
                1
            }
            Value::Tie => {
                self.tie += n;
                2
            }
            Value::Draw => {
                self.draw += n;
                return;
            }
        };
        let r = outcome.remoteness.unwrap_or(0);
        let slot = r as usize;
        if self.by_remoteness.len() <= slot {
            self.by_remoteness.resize(slot + 1, [0; 3]);
        }
        self.by_remoteness[slot][column] += n;
        let longest = match outcome.value {
            Value::Win => &mut self.longest_win,
            Value::Lose => &mut self.longest_lose,
            _ => return,
        };
        if longest.as_ref().is_none_or(|(best, _)| r > *best) {
            *longest = Some((r, example()));
        }
    }

    /// The census of `weight` copies of each position counted (none for 0),
    /// with the same examples.
    pub fn times(&self, weight: u64) -> Self {
        if weight == 0 {
            return Self::new();
        }
        let mut census = self.clone();
        for n in [
            &mut census.positions,
            &mut census.win,
            &mut census.lose,
            &mut census.tie,
            &mut census.draw,
        ] {
            *n *= weight;
        }
        for row in &mut census.by_remoteness {
            for n in row {
                *n *= weight;
            }
        }
        census
    }

    /// The census of both sets together.
    pub fn merge(mut self, other: Self) -> Self {
        self.positions += other.positions;
        self.win += other.win;
        self.lose += other.lose;
        self.tie += other.tie;
        self.draw += other.draw;
        if self.by_remoteness.len() < other.by_remoteness.len() {
            self.by_remoteness.resize(other.by_remoteness.len(), [0; 3]);
        }
        for (mine, theirs) in self.by_remoteness.iter_mut().zip(&other.by_remoteness) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        self.longest_win = longer(self.longest_win, other.longest_win);
        self.longest_lose = longer(self.longest_lose, other.longest_lose);
        self
    }

    /// The greatest remoteness of any counted position that has one.
    pub fn max_remoteness(&self) -> Option<Remoteness> {
        self.by_remoteness
            .iter()
            .rposition(|row| row.iter().any(|&n| n > 0))
            .map(|r| r as Remoteness)
    }

    /// The same census with examples turned into another form.
    pub fn map_examples<Q: Clone>(self, mut f: impl FnMut(P) -> Q) -> Census<Q> {
        Census {
            positions: self.positions,
            win: self.win,
            lose: self.lose,
            tie: self.tie,
            draw: self.draw,
            by_remoteness: self.by_remoteness,
            longest_win: self.longest_win.map(|(r, p)| (r, f(p))),
            longest_lose: self.longest_lose.map(|(r, p)| (r, f(p))),
        }
    }
}

fn longer<P>(a: Option<(Remoteness, P)>, b: Option<(Remoteness, P)>) -> Option<(Remoteness, P)> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.0 > a.0 { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_merge_and_keep_the_longest_examples() {
        let mut a = Census::new();
        a.add(Outcome::win(3), || "w3");
        a.add(Outcome::lose(0), || "l0");
        let mut b = Census::new();
        b.add(Outcome::win(5), || "w5");
        b.add(Outcome::DRAW, || "d");
        b.add(Outcome::tie(1), || "t1");
        let all = a.merge(b);
        assert_eq!(
            (all.positions, all.win, all.lose, all.tie, all.draw),
            (5, 2, 1, 1, 1)
        );
        assert_eq!(all.longest_win, Some((5, "w5")));
        assert_eq!(all.longest_lose, Some((0, "l0")));
        assert_eq!(all.max_remoteness(), Some(5));
        assert_eq!(all.by_remoteness[1], [0, 0, 1]);
    }
}
