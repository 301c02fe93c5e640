//! Nim with several heaps, a game written outside ply's own games: this
//! program is the whole `ply` command (`solve`, `analyze`, `play`, `serve`,
//! ...) with one more game, `nim`.
//!
//! ```text
//! cargo run --release -p ply --example nim -- solve nim:1,2,3
//! cargo run --release -p ply --example nim -- play nim:3,4,5
//! ```
//!
//! A position is the heap sizes, `3,0,5`; a move takes counters from one
//! heap, `b2` taking two from the second. Who takes the last counter wins.
//! Nim offers a dense index and tiers (counters taken so far), so ply's
//! engine solves it whole into a table, or searches it when the table
//! would not fit.

use ply::{Entry, PlyError, Session};
use ply_core::{
    Game, Indexed, NumberedTiers, PositionError, Remoteness, Searchable, Symmetric, TableWalk,
    Value, Variant,
};
use std::process::ExitCode;

/// Nim from the given start heaps.
struct Nim {
    start: Vec<u8>,
}

/// The largest heap and the most heaps this example accepts.
const MAX_HEAP: u8 = 20;
const MAX_HEAPS: usize = 6;

/// Heaps of 3, 4 and 5 by default.
impl Default for Nim {
    fn default() -> Self {
        Self {
            start: vec![3, 4, 5],
        }
    }
}

/// `nim:A,B,...` starts from those heaps.
impl Variant for Nim {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        let start = parse_heaps(params, &[MAX_HEAP; MAX_HEAPS])?;
        if start.is_empty() {
            return Err(PositionError::parameters("nim needs at least one heap"));
        }
        Ok(Self { start })
    }
}

/// Reads `a,b,c` as heap sizes no larger than `limits` (and no more heaps).
fn parse_heaps(text: &str, limits: &[u8]) -> Result<Vec<u8>, PositionError> {
    let heaps: Vec<u8> = text
        .split(',')
        .map(|h| {
            h.trim()
                .parse()
                .map_err(|_| PositionError::new(format!("'{h}' is not a heap size")))
        })
        .collect::<Result<_, _>>()?;
    if heaps.len() > limits.len() {
        return Err(PositionError::illegal(format!(
            "at most {} heaps, got {}",
            limits.len(),
            heaps.len()
        )));
    }
    for (heap, limit) in heaps.iter().zip(limits) {
        if heap > limit {
            return Err(PositionError::illegal(format!(
                "heap {heap} is over {limit}"
            )));
        }
    }
    Ok(heaps)
}

impl Game for Nim {
    type Position = Vec<u8>;
    type Move = (u8, u8);

    fn name(&self) -> String {
        let heaps: Vec<String> = self.start.iter().map(u8::to_string).collect();
        format!("nim:{}", heaps.join(","))
    }

    fn start(&self) -> Vec<u8> {
        self.start.clone()
    }

    fn primitive(&self, heaps: &Vec<u8>) -> Option<Value> {
        heaps.iter().all(|&h| h == 0).then_some(Value::Lose)
    }

    fn for_each_move(&self, heaps: &Vec<u8>, mut visit: impl FnMut((u8, u8), Vec<u8>)) {
        for (i, &h) in heaps.iter().enumerate() {
            for take in 1..=h {
                let mut child = heaps.clone();
                child[i] -= take;
                visit((i as u8, take), child);
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<Vec<u8>, PositionError> {
        let heaps = parse_heaps(text, &self.start)?;
        if heaps.len() != self.start.len() {
            return Err(PositionError::new(format!(
                "{} heaps expected, got {}",
                self.start.len(),
                heaps.len()
            )));
        }
        Ok(heaps)
    }

    fn format_position(&self, heaps: &Vec<u8>) -> String {
        let heaps: Vec<String> = heaps.iter().map(u8::to_string).collect();
        heaps.join(",")
    }

    fn format_move(&self, _heaps: &Vec<u8>, (heap, take): (u8, u8)) -> String {
        format!("{}{take}", char::from(b'a' + heap))
    }
}

impl Indexed for Nim {
    fn index_len(&self) -> u64 {
        self.start.iter().map(|&h| u64::from(h) + 1).product()
    }

    fn rank(&self, heaps: &Vec<u8>) -> u64 {
        heaps.iter().zip(&self.start).fold(0, |index, (&h, &max)| {
            index * (u64::from(max) + 1) + u64::from(h)
        })
    }

    fn unrank(&self, mut index: u64) -> Option<Vec<u8>> {
        if index >= self.index_len() {
            return None;
        }
        let mut heaps = vec![0; self.start.len()];
        for (heap, &max) in heaps.iter_mut().zip(&self.start).rev() {
            let base = u64::from(max) + 1;
            *heap = (index % base) as u8;
            index /= base;
        }
        Some(heaps)
    }
}

impl NumberedTiers for Nim {
    fn tier_count(&self) -> usize {
        self.start.iter().map(|&h| usize::from(h)).sum::<usize>() + 1
    }

    fn tier(&self, heaps: &Vec<u8>) -> usize {
        let left: usize = heaps.iter().map(|&h| usize::from(h)).sum();
        self.tier_count() - 1 - left
    }
}

impl TableWalk for Nim {}

/// No symmetries: the identity alone (the default).
impl Symmetric for Nim {}

impl Searchable for Nim {
    fn key(&self, heaps: &Vec<u8>) -> u64 {
        self.rank(heaps)
    }

    fn key_space(&self) -> u64 {
        self.index_len()
    }

    /// The counters left: every move takes at least one.
    fn plies_left(&self, heaps: &Vec<u8>) -> Remoteness {
        heaps.iter().map(|&h| Remoteness::from(h)).sum()
    }
}

fn open(params: Option<&str>) -> Result<Box<dyn Session>, PlyError> {
    ply::open_acyclic(Nim::named(params)?)
}

fn main() -> ExitCode {
    ply::run(vec![Entry {
        name: "nim",
        summary: "Nim (an example outside ply's games): take counters from one heap; who takes the last wins",
        variants: "nim (heaps 3,4,5), nim:A,B,... (up to 6 heaps of up to 20)",
        open,
        distributed: None,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ply_core::check::{Check, random_play};

    #[test]
    fn nim_passes_the_conformance_check() {
        let game = Nim::named(Some("3,4,5")).expect("a game");
        let positions = random_play(&game, 40, 1);
        let summary = Check::new(&game, positions)
            .text()
            .board()
            .index()
            .symmetries()
            .tier_order()
            .finish()
            .unwrap_or_else(|failures| panic!("{failures}"));
        assert!(summary.moves > 0);
    }
}
