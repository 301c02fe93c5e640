//! Memoised negamax for one position of an acyclic game: the plain method
//! every faster solver is checked against, and the fallback for games too
//! large to tabulate.

use crate::census::Census;
use crate::game::Game;
use crate::value::Outcome;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};

/// The game revisited a position that was still being searched: it has a
/// cycle, and needs retrograde analysis instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleError;

impl std::fmt::Display for CycleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the game has a cycle; a depth-first search cannot solve it")
    }
}

impl std::error::Error for CycleError {}

/// The memo's hasher: fixed keys, so that the memo's order, and with it the
/// examples [`MemoSolver::census`] picks, is the same on every run.
type FixedHasher = BuildHasherDefault<DefaultHasher>;

/// A memoised depth-first solver. Every position it has solved stays in its
/// memo, so repeated queries are cheap.
pub struct MemoSolver<'g, G: Game> {
    game: &'g G,
    memo: HashMap<G::Position, Option<Outcome>, FixedHasher>,
}

impl<'g, G: Game> MemoSolver<'g, G> {
    /// A solver with an empty memo.
    pub fn new(game: &'g G) -> Self {
        Self {
            game,
            memo: HashMap::default(),
        }
    }

    /// The outcome of `position` for the player to move.
    pub fn solve(&mut self, position: &G::Position) -> Result<Outcome, CycleError> {
        match self.memo.get(position) {
            Some(Some(outcome)) => return Ok(*outcome),
            Some(None) => return Err(CycleError),
            None => {}
        }
        let outcome = match self.game.primitive(position) {
            Some(value) => Outcome::terminal(value),
            None => {
                self.memo.insert(position.clone(), None);
                let mut children = Vec::new();
                self.game
                    .for_each_move(position, |_, child| children.push(child));
                let mut outcomes = Vec::with_capacity(children.len());
                for child in &children {
                    outcomes.push(self.solve(child)?);
                }
                Outcome::from_children(outcomes).unwrap_or(Outcome::terminal(crate::Value::Lose))
            }
        };
        self.memo.insert(position.clone(), Some(outcome));
        Ok(outcome)
    }

    /// How many positions the memo holds.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    /// Whether the memo is empty.
    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    /// Counts every solved position in the memo: after solving the start
    /// position, that is every position reachable from it.
    pub fn census(&self) -> Census<G::Position> {
        let mut census = Census::new();
        for (position, outcome) in &self.memo {
            if let Some(outcome) = outcome {
                census.add(*outcome, || position.clone());
            }
        }
        census
    }
}
