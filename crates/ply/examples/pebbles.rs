//! A small loopy game with draws, written outside ply's own games: this
//! program is the whole `ply` command with one more game, `pebbles`.
//!
//! ```text
//! cargo run --release -p ply --example pebbles -- analyze pebbles
//! cargo run --release -p ply --example pebbles -- play pebbles:12 --second
//! ```
//!
//! A pile of pebbles, at most N of them (12 by default). A move takes two or
//! three pebbles, or, when the pile is odd, puts two back (the pile staying
//! at most N). Who cannot move loses. Putting back lets play go round for
//! ever, so some positions are draws; the game offers a dense index, and
//! ply solves it whole by retrograde analysis.

use ply::Entry;
use ply_core::{FromMoves, Game, Indexed, PositionError, Retrograde, Unfolded, Value, Variant};
use std::process::ExitCode;

/// The pebble game on piles of at most `max`.
#[derive(Clone)]
struct Pebbles {
    max: u32,
}

/// The largest pile this example accepts.
const MAX_PILE: u32 = 1 << 20;

/// A move: pebbles taken (negative: put back).
type Move = i8;

impl Pebbles {
    fn read_pile(text: &str, max: u32) -> Result<u32, PositionError> {
        let pile: u32 = text
            .trim()
            .parse()
            .map_err(|_| PositionError::new(format!("'{text}' is not a number of pebbles")))?;
        if pile > max {
            return Err(PositionError::illegal(format!(
                "{pile} pebbles is over {max}"
            )));
        }
        Ok(pile)
    }
}

impl Game for Pebbles {
    type Position = u32;
    type Move = Move;

    fn name(&self) -> String {
        format!("pebbles:{}", self.max)
    }

    fn start(&self) -> u32 {
        self.max
    }

    fn primitive(&self, &pile: &u32) -> Option<Value> {
        // No move: no two pebbles to take, and none to put back.
        let stuck = pile < 2 && !(pile == 1 && self.max >= 3);
        stuck.then_some(Value::Lose)
    }

    fn for_each_move(&self, &pile: &u32, mut visit: impl FnMut(Move, u32)) {
        for take in [2, 3] {
            if pile >= take {
                visit(take as Move, pile - take);
            }
        }
        if pile % 2 == 1 && pile + 2 <= self.max {
            visit(-2, pile + 2);
        }
    }

    fn parse_position(&self, text: &str) -> Result<u32, PositionError> {
        Self::read_pile(text, self.max)
    }

    fn format_position(&self, pile: &u32) -> String {
        pile.to_string()
    }

    fn format_move(&self, _pile: &u32, mv: Move) -> String {
        if mv > 0 {
            format!("take{mv}")
        } else {
            format!("put{}", -mv)
        }
    }

    fn render(&self, pile: &u32) -> String {
        format!("{pile} pebbles")
    }
}

impl Indexed for Pebbles {
    fn index_len(&self) -> u64 {
        u64::from(self.max) + 1
    }

    fn rank(&self, pile: &u32) -> u64 {
        u64::from(*pile)
    }

    fn unrank(&self, index: u64) -> Option<u32> {
        u32::try_from(index).ok().filter(|&pile| pile <= self.max)
    }
}

/// No symmetries and no un-moves: every pile in its own slot, parents from
/// a reverse graph of the moves.
impl Retrograde for Pebbles {
    type Folding = Unfolded;
    type Parents = FromMoves;
}

/// Piles of at most 12 by default.
impl Default for Pebbles {
    fn default() -> Self {
        Self { max: 12 }
    }
}

/// `pebbles:N` allows piles of up to N.
impl Variant for Pebbles {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        let max = Pebbles::read_pile(params, MAX_PILE)?;
        Ok(Pebbles { max })
    }
}

fn main() -> ExitCode {
    ply::run(vec![Entry {
        name: "pebbles",
        summary: "Pebbles (an example outside ply's games): take 2 or 3, or put 2 back on an odd pile; loops give draws",
        variants: "pebbles (at most 12 pebbles), pebbles:N (at most N, up to 2^20)",
        open: |params| ply::open_loopy(Pebbles::named(params)?),
        distributed: Some(|params| Ok(Box::new(ply::Whole(Pebbles::named(params)?)))),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ply_core::check::{Check, random_play};

    #[test]
    fn pebbles_passes_the_conformance_check() {
        let game = Pebbles { max: 12 };
        let positions = random_play(&game, 40, 1);
        let summary = Check::new(&game, positions)
            .text()
            .board()
            .index()
            .finish()
            .unwrap_or_else(|failures| panic!("{failures}"));
        assert!(summary.moves > 0);
    }
}
