//! One conformance routine for any game, to run in its tests: the game's
//! capabilities checked against its moves on many positions, the way
//! GamesmanOne checks every game with one routine.
//!
//! [`Check::new`] takes the positions to check, usually [`random_play`]
//! from the start; each method checks one capability and records what it
//! finds wrong; [`Check::finish`] returns what was checked, or every
//! failure with the position's text.
//!
//! - [`Check::text`]: a position's text reads back as the same position
//!   (and [`Game::write_position`] appends the same text),
//!   every move has a name, distinct among the position's moves, and every
//!   child's text reads back too;
//! - [`Check::board`]: the board description lists exactly the legal moves,
//!   each with cells to click, and the game's tensor, if any, codes it;
//! - [`Check::index`]: rank lies in the index and unrank gives back the
//!   position, or one that shares its index and plays alike, for the
//!   positions and for every child;
//! - [`Check::parents`]: un-moves against moves: every child lists the
//!   position among its parents, and every parent has a move to it;
//! - [`Check::symmetries`]: the images include the position, share one
//!   canonical form, and agree on the end of play and the number of moves;
//! - [`Check::tier_order`] ([`NumberedTiers`]) and [`Check::tiers`] ([`NamedTiers`]):
//!   moves never climb back up the tiers, and each tier's dense index
//!   round-trips.
//!
//! ```
//! use ply_core::check::{Check, random_play};
//! # use ply_core::{Game, Indexed, PositionError, Value};
//! # struct Pile(u64);
//! # impl Game for Pile {
//! #     type Position = u64;
//! #     type Move = u64;
//! #     fn name(&self) -> String { format!("pile:{}", self.0) }
//! #     fn start(&self) -> u64 { self.0 }
//! #     fn primitive(&self, _: &u64) -> Option<Value> { None }
//! #     fn for_each_move(&self, pile: &u64, mut visit: impl FnMut(u64, u64)) {
//! #         for take in 1..=2.min(*pile) { visit(take, pile - take); }
//! #     }
//! #     fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
//! #         text.parse().map_err(|_| PositionError::new(format!("not a pile: {text}")))
//! #     }
//! #     fn format_position(&self, pile: &u64) -> String { pile.to_string() }
//! #     fn format_move(&self, _: &u64, take: u64) -> String { take.to_string() }
//! # }
//! # impl Indexed for Pile {
//! #     fn index_len(&self) -> u64 { self.0 + 1 }
//! #     fn rank(&self, pile: &u64) -> u64 { *pile }
//! #     fn unrank(&self, index: u64) -> Option<u64> { (index <= self.0).then_some(index) }
//! # }
//! let game = Pile(20);
//! let positions = random_play(&game, 50, 1);
//! let summary = Check::new(&game, positions).text().index().finish().unwrap();
//! assert!(summary.moves > 0);
//! ```

#[cfg(feature = "db")]
mod tiers;
#[cfg(feature = "db")]
pub use tiers::{Compared, solve_tiers, tiers_equal_retrograde};

use crate::game::{Game, Indexed, NamedTiers, NumberedTiers, Parents, Symmetric};
use std::collections::HashSet;
use std::fmt;

/// The most failures a check keeps (the first ones; the count goes on).
const KEPT_FAILURES: usize = 20;

/// What a finished check covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Positions checked.
    pub positions: u64,
    /// Moves followed from them.
    pub moves: u64,
    /// Capabilities checked (one per method called).
    pub checks: u32,
}

/// What a check found wrong: the first failures, each naming the
/// capability and the position, and how many there were in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failures {
    /// The game checked.
    pub game: String,
    /// The first failures found.
    pub first: Vec<String>,
    /// How many failures there were.
    pub count: u64,
}

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} conformance failures", self.game, self.count)?;
        for failure in &self.first {
            writeln!(f, "  {failure}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failures {}

/// A conformance check of `game` over a set of positions (see the module
/// docs).
pub struct Check<'a, G: Game> {
    game: &'a G,
    positions: Vec<G::Position>,
    failures: Vec<String>,
    count: u64,
    summary: Summary,
}

impl<'a, G: Game> Check<'a, G> {
    /// A check of `game` on `positions`.
    pub fn new(game: &'a G, positions: Vec<G::Position>) -> Self {
        let mut check = Self {
            game,
            summary: Summary {
                positions: positions.len() as u64,
                ..Summary::default()
            },
            positions,
            failures: Vec::new(),
            count: 0,
        };
        if check.positions.is_empty() {
            check.fail("no positions", "nothing to check".into());
        }
        check
    }

    fn fail(&mut self, what: &str, why: String) {
        self.count += 1;
        if self.failures.len() < KEPT_FAILURES {
            self.failures.push(format!("{what}: {why}"));
        }
    }

    fn name(&self, position: &G::Position) -> String {
        self.game.format_position(position)
    }

    /// The moves of `position` (none where play has ended).
    fn moves(&self, position: &G::Position) -> Vec<(G::Move, G::Position)> {
        let mut moves = Vec::new();
        if self.game.primitive(position).is_none() {
            self.game
                .for_each_move(position, |mv, child| moves.push((mv, child)));
        }
        moves
    }

    /// Text round trips, for the positions and their children, and move
    /// names: present and distinct among a position's moves.
    pub fn text(mut self) -> Self {
        self.summary.checks += 1;
        for position in std::mem::take(&mut self.positions) {
            let moves = self.moves(&position);
            self.summary.moves += moves.len() as u64;
            for p in std::iter::once(&position).chain(moves.iter().map(|(_, c)| c)) {
                let text = self.name(p);
                match self.game.parse_position(&text) {
                    Ok(back) if &back == p => {}
                    Ok(back) => {
                        let back = self.name(&back);
                        self.fail("text", format!("{text} reads back as {back}"));
                    }
                    Err(e) => self.fail("text", format!("{text} does not read back: {e}")),
                }
                let mut written = String::from("~");
                self.game.write_position(p, &mut written);
                if written[1..] != text {
                    self.fail("text", format!("{text} is written as {}", &written[1..]));
                }
            }
            let mut names = HashSet::new();
            for &(mv, _) in &moves {
                let name = self.game.format_move(&position, mv);
                if name.is_empty() || !names.insert(name.clone()) {
                    let text = self.name(&position);
                    self.fail(
                        "move names",
                        format!("{text}: move '{name}' empty or repeated"),
                    );
                }
            }
            self.positions.push(position);
        }
        self
    }

    /// The board description lists exactly the legal moves, by name, each
    /// with at least one cell to click; a game with a [`Game::tensor`]
    /// writes the description's cells as the tensor codes them.
    pub fn board(mut self) -> Self {
        self.summary.checks += 1;
        for position in std::mem::take(&mut self.positions) {
            let board = self.game.board(&position);
            let mut expected: Vec<String> = self
                .moves(&position)
                .into_iter()
                .map(|(mv, _)| self.game.format_move(&position, mv))
                .collect();
            let mut listed: Vec<String> = board.moves.iter().map(|m| m.name.clone()).collect();
            expected.sort();
            listed.sort();
            if expected != listed {
                let text = self.name(&position);
                self.fail(
                    "board",
                    format!("{text}: the board lists {listed:?}, the moves are {expected:?}"),
                );
            }
            if let Some(m) = board.moves.iter().find(|m| m.clicks.is_empty()) {
                let text = self.name(&position);
                self.fail("board", format!("{text}: move {} has no clicks", m.name));
            }
            if let Some(tensor) = self.game.tensor() {
                let mut cells = vec![0; tensor.cells()];
                self.game.fill_tensor(&position, &mut cells);
                match tensor.encode(&board) {
                    Ok(codes) if codes == cells => {}
                    Ok(codes) => {
                        let text = self.name(&position);
                        self.fail(
                            "board",
                            format!("{text}: the tensor is {cells:?}, the board codes {codes:?}"),
                        );
                    }
                    Err(why) => {
                        let text = self.name(&position);
                        self.fail("board", format!("{text}: no tensor codes the board: {why}"));
                    }
                }
            }
            self.positions.push(position);
        }
        self
    }
}

impl<G: Indexed> Check<'_, G> {
    /// The index against moves, for the positions and every child: a rank
    /// lies in the index (a position where play is over, or that the game
    /// calls [`Indexed::unindexed`], may rank past it, outside the index)
    /// and unranks to a position of that rank, the
    /// position itself or one that shares its index and plays alike (the
    /// same end of play and as many moves).
    pub fn index(mut self) -> Self {
        self.summary.checks += 1;
        let len = self.game.index_len();
        for position in std::mem::take(&mut self.positions) {
            let moves = self.moves(&position);
            for p in std::iter::once(&position).chain(moves.iter().map(|(_, c)| c)) {
                let rank = self.game.rank(p);
                if rank >= len {
                    if !self.game.unindexed(p) {
                        let text = self.name(p);
                        self.fail(
                            "index",
                            format!("{text}: rank {rank} is outside the index of {len}"),
                        );
                    }
                    continue;
                }
                let why = match self.game.unrank(rank) {
                    None => Some("unranks to nothing".to_string()),
                    Some(back) if &back == p => None,
                    Some(back) if self.game.rank(&back) != rank => {
                        Some(format!("unranks to {}, of another rank", self.name(&back)))
                    }
                    Some(back)
                        if self.game.primitive(&back) != self.game.primitive(p)
                            || self.moves(&back).len() != self.moves(p).len() =>
                    {
                        Some(format!(
                            "unranks to {}, which plays otherwise",
                            self.name(&back)
                        ))
                    }
                    Some(_) => None,
                };
                if let Some(why) = why {
                    let text = self.name(p);
                    self.fail("index", format!("{text}: rank {rank} {why}"));
                }
            }
            self.positions.push(position);
        }
        self
    }
}

impl<G: Parents> Check<'_, G> {
    /// Un-moves against moves: every child of a position lists it among its
    /// parents, and every parent of a position has a move to it.
    pub fn parents(mut self) -> Self {
        self.summary.checks += 1;
        for position in std::mem::take(&mut self.positions) {
            for (_, child) in self.moves(&position) {
                let mut found = false;
                self.game
                    .for_each_parent(&child, |p| found |= p == position);
                if !found {
                    let (text, child) = (self.name(&position), self.name(&child));
                    self.fail(
                        "parents",
                        format!("{child} does not list its parent {text}"),
                    );
                }
            }
            let mut parents = Vec::new();
            self.game.for_each_parent(&position, |p| parents.push(p));
            for parent in parents {
                if !self.moves(&parent).iter().any(|(_, c)| c == &position) {
                    let (text, parent) = (self.name(&position), self.name(&parent));
                    self.fail(
                        "parents",
                        format!("{parent} is listed as a parent of {text} but has no move to it"),
                    );
                }
            }
            self.positions.push(position);
        }
        self
    }
}

impl<G: Symmetric + Indexed> Check<'_, G> {
    /// Every position is among its own images, all images of an indexed
    /// position share one canonical form, and they agree on the end of play
    /// and on the number of moves.
    pub fn symmetries(mut self) -> Self {
        self.summary.checks += 1;
        for position in std::mem::take(&mut self.positions) {
            let mut images = Vec::new();
            self.game
                .for_each_symmetric(&position, |image| images.push(image));
            let text = self.name(&position);
            if !images.contains(&position) {
                self.fail("symmetries", format!("{text} is not among its own images"));
            }
            let canonical = self.game.canonical(&position);
            let primitive = self.game.primitive(&position);
            let moves = self.moves(&position).len();
            // Canonical forms are chosen by index; a position where play is
            // over may lie outside the index, and its images with it.
            let indexed = self.game.rank(&position) < self.game.index_len();
            for image in &images {
                if indexed && self.game.canonical(image) != canonical {
                    let image = self.name(image);
                    self.fail(
                        "symmetries",
                        format!("{text} and its image {image} differ in canonical form"),
                    );
                }
                if self.game.primitive(image) != primitive || self.moves(image).len() != moves {
                    let image = self.name(image);
                    self.fail(
                        "symmetries",
                        format!("{text} and its image {image} differ in play"),
                    );
                }
            }
            self.positions.push(position);
        }
        self
    }
}

impl<G: NumberedTiers> Check<'_, G> {
    /// Tiers of an acyclic game: every tier is in range and every move
    /// leads to a higher tier.
    pub fn tier_order(mut self) -> Self {
        self.summary.checks += 1;
        let count = self.game.tier_count();
        for position in std::mem::take(&mut self.positions) {
            let tier = self.game.tier(&position);
            if tier >= count {
                let text = self.name(&position);
                self.fail("tiers", format!("{text}: tier {tier} of {count}"));
            }
            for (_, child) in self.moves(&position) {
                if self.game.tier(&child) <= tier {
                    let (text, child) = (self.name(&position), self.name(&child));
                    self.fail(
                        "tiers",
                        format!("{text} (tier {tier}) moves to {child}, not higher"),
                    );
                }
            }
            self.positions.push(position);
        }
        self
    }
}

impl<G: NamedTiers> Check<'_, G> {
    /// Tiers of the tier solver: each position's tier is listed, its rank
    /// in its tier round-trips (to it, or to a position of that rank that
    /// plays alike), moves stay in the tier or go to a child
    /// tier, mirror images land in their canonical tier, and in-tier
    /// un-moves agree with moves.
    pub fn tiers(mut self) -> Self {
        self.summary.checks += 1;
        let tiers: HashSet<G::Tier> = self.game.tiers().into_iter().collect();
        for position in std::mem::take(&mut self.positions) {
            let text = self.name(&position);
            let tier = self.game.tier_of(&position);
            if !tiers.contains(&tier) {
                self.fail("tiers", format!("{text}: tier {tier:?} is not listed"));
            }
            let rank = self.game.tier_rank(tier, &position);
            let size = self.game.tier_size(tier);
            // A tier's index may fold positions that play alike (symmetric
            // images, the colours swapped) onto one index: then it unranks
            // to one of them, of the same tier and rank.
            let back = (rank < size)
                .then(|| self.game.tier_unrank(tier, rank))
                .flatten();
            let round_trips = back.as_ref().is_some_and(|back| {
                back == &position
                    || (self.game.tier_of(back) == tier
                        && self.game.tier_rank(tier, back) == rank
                        && self.game.primitive(back) == self.game.primitive(&position)
                        && self.moves(back).len() == self.moves(&position).len())
            });
            if !round_trips {
                self.fail(
                    "tiers",
                    format!("{text}: rank {rank} of {size} in its tier does not unrank to it"),
                );
            }
            let canonical = self.game.canonical_tier(tier);
            if canonical != tier {
                let image = self.game.to_canonical_tier(&position);
                if self.game.tier_of(&image) != canonical {
                    let image = self.name(&image);
                    self.fail(
                        "tiers",
                        format!("{text}: its image {image} is not in tier {canonical:?}"),
                    );
                }
            }
            let children = self.game.child_tiers(tier);
            for (_, child) in self.moves(&position) {
                let to = self.game.tier_of(&child);
                if to != tier && !children.contains(&to) {
                    let child = self.name(&child);
                    self.fail(
                        "tiers",
                        format!("{text} moves to {child} in tier {to:?}, not a child tier"),
                    );
                }
                if G::IN_TIER_PARENTS && to == tier {
                    let mut found = false;
                    self.game
                        .for_each_parent_in_tier(&child, |p| found |= p == position);
                    if !found {
                        let child = self.name(&child);
                        self.fail(
                            "tiers",
                            format!("{child} does not list its parent {text} in its tier"),
                        );
                    }
                }
            }
            if G::IN_TIER_PARENTS {
                let mut parents = Vec::new();
                self.game
                    .for_each_parent_in_tier(&position, |p| parents.push(p));
                for parent in parents {
                    // Positions where play is over may be listed: the
                    // solver decided them before any un-move reaches them.
                    if self.game.primitive(&parent).is_some() {
                        continue;
                    }
                    let moves = self.moves(&parent);
                    if self.game.tier_of(&parent) != tier
                        || !moves.iter().any(|(_, c)| c == &position)
                    {
                        let parent = self.name(&parent);
                        self.fail(
                            "tiers",
                            format!(
                                "{parent} is listed as an in-tier parent of {text} but is none"
                            ),
                        );
                    }
                }
            }
            self.positions.push(position);
        }
        self
    }
}

impl<G: Game> Check<'_, G> {
    /// What was checked, or every failure found.
    pub fn finish(self) -> Result<Summary, Failures> {
        if self.count == 0 {
            Ok(self.summary)
        } else {
            Err(Failures {
                game: self.game.name(),
                first: self.failures,
                count: self.count,
            })
        }
    }
}

/// Positions met in `games` games of random play from the start, each
/// played to its end or for at most 200 plies, each position once, in the
/// order first met; `seed` makes the play repeatable.
pub fn random_play<G: Game>(game: &G, games: usize, seed: u64) -> Vec<G::Position> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |n: usize| {
        // xorshift64*: enough to pick moves, with no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    let mut seen = HashSet::new();
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut position = game.start();
        for _ in 0..200 {
            if seen.insert(position.clone()) {
                positions.push(position.clone());
            }
            if game.primitive(&position).is_some() {
                break;
            }
            let mut children = Vec::new();
            game.for_each_move(&position, |_, child| children.push(child));
            if children.is_empty() {
                break;
            }
            let pick = next(children.len());
            position = children.swap_remove(pick);
        }
    }
    positions
}

/// Inside the `impl Game` of a test game that wraps another as its field
/// `.0` (to start elsewhere, index it another way, or add un-moves): the
/// end of play, the moves, and the text of positions and moves, each the
/// wrapped game's.
#[macro_export]
macro_rules! forward_rules {
    () => {
        fn primitive(&self, position: &Self::Position) -> Option<$crate::Value> {
            $crate::Game::primitive(&self.0, position)
        }
        fn for_each_move(
            &self,
            position: &Self::Position,
            visit: impl FnMut(Self::Move, Self::Position),
        ) {
            $crate::Game::for_each_move(&self.0, position, visit)
        }
        fn parse_position(&self, text: &str) -> Result<Self::Position, $crate::PositionError> {
            $crate::Game::parse_position(&self.0, text)
        }
        fn format_position(&self, position: &Self::Position) -> String {
            $crate::Game::format_position(&self.0, position)
        }
        fn format_move(&self, position: &Self::Position, mv: Self::Move) -> String {
            $crate::Game::format_move(&self.0, position, mv)
        }
    };
}

/// Declares a test game that wraps another (`struct Name(Inner);`, doc
/// comments allowed) and plays exactly as it: its `impl Game` forwards the
/// name, the start and [`forward_rules!`](crate::forward_rules) to the
/// wrapped game, for a wrapper that adds a capability of its own
/// (un-moves, another index).
#[macro_export]
macro_rules! wrapper_game {
    ($(#[$attr:meta])* $vis:vis struct $name:ident($inner:ty);) => {
        $(#[$attr])*
        $vis struct $name($inner);

        impl $crate::Game for $name {
            type Position = <$inner as $crate::Game>::Position;
            type Move = <$inner as $crate::Game>::Move;
            fn name(&self) -> String {
                $crate::Game::name(&self.0)
            }
            fn start(&self) -> Self::Position {
                $crate::Game::start(&self.0)
            }
            $crate::forward_rules!();
        }
    };
}

/// Inside the `impl Indexed` of a test game that wraps another as its
/// field `.0` (see [`forward_rules!`](crate::forward_rules)): the wrapped
/// game's index.
#[macro_export]
macro_rules! forward_index {
    () => {
        fn index_len(&self) -> u64 {
            $crate::Indexed::index_len(&self.0)
        }
        fn rank(&self, position: &Self::Position) -> u64 {
            $crate::Indexed::rank(&self.0, position)
        }
        fn unrank(&self, index: u64) -> Option<Self::Position> {
            $crate::Indexed::unrank(&self.0, index)
        }
        fn unindexed(&self, position: &Self::Position) -> bool {
            $crate::Indexed::unindexed(&self.0, position)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::PositionError;
    use crate::value::Value;

    /// A pile of counters, each move taking one or two, with a fault to
    /// plant: the check must name it.
    struct Pile {
        size: u64,
        fault: Option<&'static str>,
    }

    impl Game for Pile {
        type Position = u64;
        type Move = u64;
        fn name(&self) -> String {
            "pile".into()
        }
        fn start(&self) -> u64 {
            self.size
        }
        fn primitive(&self, _: &u64) -> Option<Value> {
            None
        }
        fn for_each_move(&self, pile: &u64, mut visit: impl FnMut(u64, u64)) {
            for take in 1..=2.min(*pile) {
                visit(take, pile - take);
            }
        }
        fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
            let pile: u64 = text.parse().map_err(|_| PositionError::new("not a pile"))?;
            Ok(if self.fault == Some("text") && pile == 3 {
                4
            } else {
                pile
            })
        }
        fn format_position(&self, pile: &u64) -> String {
            pile.to_string()
        }
        fn format_move(&self, _: &u64, take: u64) -> String {
            if self.fault == Some("move names") {
                "take".into()
            } else {
                take.to_string()
            }
        }
    }

    impl Indexed for Pile {
        fn index_len(&self) -> u64 {
            self.size + 1
        }
        fn rank(&self, pile: &u64) -> u64 {
            *pile
        }
        fn unrank(&self, index: u64) -> Option<u64> {
            let index = if self.fault == Some("index") && index == 5 {
                6
            } else {
                index
            };
            (index <= self.size).then_some(index)
        }
    }

    impl Parents for Pile {
        fn for_each_parent(&self, pile: &u64, mut visit: impl FnMut(u64)) {
            let most = if self.fault == Some("parents") { 3 } else { 2 };
            for take in 1..=most {
                if pile + take <= self.size {
                    visit(pile + take);
                }
            }
        }
    }

    impl NumberedTiers for Pile {
        fn tier_count(&self) -> usize {
            self.size as usize + 1
        }
        fn tier(&self, pile: &u64) -> usize {
            let tier = (self.size - pile) as usize;
            if self.fault == Some("tiers") && *pile == 2 {
                0
            } else {
                tier
            }
        }
    }

    fn check(fault: Option<&'static str>) -> Result<Summary, Failures> {
        let game = Pile { size: 12, fault };
        let positions = random_play(&game, 30, 9);
        Check::new(&game, positions)
            .text()
            .index()
            .parents()
            .tier_order()
            .finish()
    }

    #[test]
    fn a_sound_game_passes_and_every_planted_fault_is_named() {
        let summary = check(None).unwrap();
        assert_eq!(summary.checks, 4);
        assert_eq!(summary.positions, 13, "random play meets every pile");
        for fault in ["text", "move names", "index", "parents", "tiers"] {
            let failures = check(Some(fault)).expect_err(fault);
            assert!(failures.count > 0);
            assert!(
                failures.first.iter().all(|f| f.starts_with(fault)),
                "{fault}: {failures}"
            );
        }
    }

    #[test]
    fn no_positions_is_a_failure() {
        let game = Pile {
            size: 3,
            fault: None,
        };
        assert!(Check::new(&game, Vec::new()).text().finish().is_err());
    }
}
