//! The four retrograde solvers against one plain reference of the rule
//! ([`super::rule`]), cell for cell, on the same random loopy graphs:
//! whole-game retrograde analysis ([`super::retro`], from moves and from
//! un-moves), the byte solver ([`super::byte_retro`]), the tier solver
//! ([`crate::tier::solve`], with un-moves inside tiers and without) and the
//! distributed one ([`crate::dist`], two workers in this process, from
//! moves and from un-moves).
//!
//! A graph's positions lie in tiers of consecutive indices; a move stays in
//! its tier (where play may loop) or goes to a lower one. Positions end play
//! as wins, losses, ties or draws, or have no move at all. The byte solver
//! knows only losses as ends of play, so it is held to the same graph with
//! every end of play a loss, which the others solve too.

use super::{byte_retro, retro};
use crate::dist::{self, Cluster, Partition};
use crate::game::{Game, Indexed, NamedTiers, Parents, PositionError, Symmetric};
use crate::progress::NoProgress;
use crate::tier::cells::Cells;
use crate::tier::solve::{ChildCells, solve_tier};
use crate::value::{Cell, Outcome, Value};
use proptest::prelude::*;

/// A game on an explicit graph of positions `0..n`: position `i` moves to
/// each of `moves[i]` in turn (a child may repeat) unless `ends[i]` ends
/// play there. Tier `k` holds positions `starts[k]..starts[k + 1]`. With
/// `UNMOVES`, the tier solver is given un-moves inside tiers.
#[derive(Clone, Debug)]
struct Loopy<const UNMOVES: bool> {
    moves: Vec<Vec<u32>>,
    ends: Vec<Option<Value>>,
    /// The parents of each position, once for each of their moves to it.
    parents: Vec<Vec<u32>>,
    starts: Vec<u32>,
}

impl<const UNMOVES: bool> Loopy<UNMOVES> {
    fn new(moves: Vec<Vec<u32>>, ends: Vec<Option<Value>>, starts: Vec<u32>) -> Self {
        let mut parents = vec![Vec::new(); moves.len()];
        for (parent, children) in moves.iter().enumerate() {
            if ends[parent].is_none() {
                for &child in children {
                    parents[child as usize].push(parent as u32);
                }
            }
        }
        Self {
            moves,
            ends,
            parents,
            starts,
        }
    }

    /// The same graph, its tier solver given un-moves as `U` says.
    fn with_unmoves<const U: bool>(&self) -> Loopy<U> {
        Loopy::new(self.moves.clone(), self.ends.clone(), self.starts.clone())
    }

    /// The same graph with every end of play a loss for the mover.
    fn losses_only(&self) -> Self {
        let ends = self
            .ends
            .iter()
            .map(|end| end.map(|_| Value::Lose))
            .collect();
        Self::new(self.moves.clone(), ends, self.starts.clone())
    }

    fn len(&self) -> usize {
        self.moves.len()
    }
}

impl<const UNMOVES: bool> Game for Loopy<UNMOVES> {
    type Position = u32;
    type Move = u32;
    fn name(&self) -> String {
        "loopy".into()
    }
    fn start(&self) -> u32 {
        0
    }
    fn primitive(&self, position: &u32) -> Option<Value> {
        self.ends[*position as usize]
    }
    fn for_each_move(&self, position: &u32, mut visit: impl FnMut(u32, u32)) {
        for &child in &self.moves[*position as usize] {
            visit(child, child);
        }
    }
    fn parse_position(&self, text: &str) -> Result<u32, PositionError> {
        text.parse()
            .map_err(|_| PositionError::new("not a position"))
    }
    fn format_position(&self, position: &u32) -> String {
        position.to_string()
    }
    fn format_move(&self, _: &u32, mv: u32) -> String {
        mv.to_string()
    }
}

impl<const UNMOVES: bool> Indexed for Loopy<UNMOVES> {
    fn index_len(&self) -> u64 {
        self.len() as u64
    }
    fn rank(&self, position: &u32) -> u64 {
        u64::from(*position)
    }
    fn unrank(&self, index: u64) -> Option<u32> {
        (index < self.index_len()).then_some(index as u32)
    }
}

impl<const UNMOVES: bool> Parents for Loopy<UNMOVES> {
    fn for_each_parent(&self, position: &u32, visit: impl FnMut(u32)) {
        self.parents[*position as usize]
            .iter()
            .copied()
            .for_each(visit);
    }
}

impl<const UNMOVES: bool> Symmetric for Loopy<UNMOVES> {}

/// Even positions with a move that ends play in the mover's win are wins
/// at once; odd ones leave the byte solver to find that move itself.
impl<const UNMOVES: bool> crate::WinsAtOnce for Loopy<UNMOVES> {
    fn wins_at_once(&self, position: &u32) -> bool {
        position.is_multiple_of(2)
            && self.primitive(position).is_none()
            && self.moves[*position as usize]
                .iter()
                .any(|child| self.primitive(child) == Some(Value::Lose))
    }
}

impl<const UNMOVES: bool> NamedTiers for Loopy<UNMOVES> {
    type Tier = u32;
    const IN_TIER_PARENTS: bool = UNMOVES;
    fn tiers(&self) -> Vec<u32> {
        (0..self.starts.len() as u32 - 1).collect()
    }
    fn tier_name(&self, tier: u32) -> String {
        format!("t{tier}")
    }
    fn tier_of(&self, position: &u32) -> u32 {
        tier_at(&self.starts, *position)
    }
    fn tier_size(&self, tier: u32) -> u64 {
        u64::from(self.starts[tier as usize + 1] - self.starts[tier as usize])
    }
    fn tier_rank(&self, tier: u32, position: &u32) -> u64 {
        u64::from(position - self.starts[tier as usize])
    }
    fn tier_unrank(&self, tier: u32, index: u64) -> Option<u32> {
        (index < self.tier_size(tier)).then(|| self.starts[tier as usize] + index as u32)
    }
    fn child_tiers(&self, tier: u32) -> Vec<u32> {
        (0..tier).collect()
    }
    fn for_each_parent_in_tier(&self, position: &u32, mut visit: impl FnMut(u32)) {
        let tier = self.tier_of(position);
        for &parent in &self.parents[*position as usize] {
            if self.tier_of(&parent) == tier {
                visit(parent);
            }
        }
    }
}

/// The tier of `position` where tier `k` starts at `starts[k]`.
fn tier_at(starts: &[u32], position: u32) -> u32 {
    starts.partition_point(|&start| start <= position) as u32 - 1
}

/// The remoteness of each of `children` decided as `value`.
fn remoteness(children: &[Option<Outcome>], value: Value) -> impl Iterator<Item = u32> + '_ {
    children
        .iter()
        .flatten()
        .filter(move |o| o.value == value)
        .filter_map(|o| o.remoteness)
}

/// The rule read plainly, as a fixed point: every position not decided by
/// its seed is computed afresh from its children's values of the pass
/// before until a pass changes nothing, first wins (the fastest loss of a
/// child, one ply longer) and losses (every child a win: the slowest, one
/// ply longer), then ties (the fastest tie of a child, one ply longer)
/// among what that leaves; what is still undecided is a draw.
fn reference<const U: bool>(game: &Loopy<U>) -> Vec<Outcome> {
    let seeds: Vec<Option<Outcome>> = (0..game.len())
        .map(|i| match game.ends[i] {
            Some(value) => Some(Outcome::terminal(value)),
            None if game.moves[i].is_empty() => Some(Outcome::lose(0)),
            None => None,
        })
        .collect();
    let children = |known: &[Option<Outcome>], i: usize| -> Vec<Option<Outcome>> {
        game.moves[i].iter().map(|&c| known[c as usize]).collect()
    };
    let fixed_point = |start: Vec<Option<Outcome>>,
                       step: &dyn Fn(&[Option<Outcome>]) -> Option<Outcome>| {
        let mut known = start.clone();
        loop {
            let next: Vec<Option<Outcome>> = (0..game.len())
                .map(|i| start[i].or_else(|| step(&children(&known, i))))
                .collect();
            if next == known {
                return known;
            }
            known = next;
        }
    };
    let wins_and_losses = fixed_point(seeds, &|children| {
        if let Some(r) = remoteness(children, Value::Lose).min() {
            Some(Outcome::win(r + 1))
        } else if children
            .iter()
            .all(|c| c.is_some_and(|o| o.value == Value::Win))
        {
            remoteness(children, Value::Win)
                .max()
                .map(|r| Outcome::lose(r + 1))
        } else {
            None
        }
    });
    fixed_point(wins_and_losses, &|children| {
        remoteness(children, Value::Tie)
            .min()
            .map(|r| Outcome::tie(r + 1))
    })
    .into_iter()
    .map(|o| o.unwrap_or(Outcome::DRAW))
    .collect()
}

/// Every solver's outcome of every position of `game`, by solver.
fn solved<const U: bool>(game: &Loopy<U>, bytes: bool) -> Vec<(&'static str, Vec<Outcome>)> {
    let len = game.index_len();
    let table = |table: retro::RetroTable| -> Vec<Outcome> {
        (0..len)
            .map(|i| table.outcome_at(i).expect("a cell"))
            .collect()
    };
    let mut all = vec![
        (
            "retro from moves",
            table(retro::solve(game, &NoProgress).unwrap()),
        ),
        (
            "retro from un-moves",
            table(retro::solve_with_parents(game, &NoProgress).unwrap()),
        ),
        ("tiers with un-moves", tiered(&game.with_unmoves::<true>())),
        (
            "tiers without un-moves",
            tiered(&game.with_unmoves::<false>()),
        ),
    ];
    for (name, parents, partition) in [
        ("dist from moves", false, Partition::Blocks),
        ("dist from un-moves", true, Partition::Strided),
    ] {
        let plan = dist::Plan {
            cluster: Cluster::Threads(2),
            partition,
            counted: 0..len,
            save: None,
        };
        let solution = if parents {
            dist::solve_with_parents(game, &plan, &NoProgress)
        } else {
            dist::solve(game, &plan, &NoProgress)
        }
        .unwrap();
        let cells = (0..len).map(|i| solution.cell(i).and_then(Cell::unpack).expect("a cell"));
        all.push((name, cells.collect()));
    }
    if bytes {
        use crate::WinsAtOnce;
        let table = byte_retro::solve(game, &NoProgress).unwrap();
        let cells = (0..len).map(|i| match table.outcome_at(i) {
            Some(outcome) => outcome,
            None => {
                assert!(game.wins_at_once(&(i as u32)), "position {i} not stored");
                Outcome::win(1)
            }
        });
        all.push(("bytes", cells.collect()));
    }
    all
}

/// The tier solver's outcomes, tier by tier from the lowest, each read
/// from the tiers below.
fn tiered<const U: bool>(game: &Loopy<U>) -> Vec<Outcome> {
    let mut below: Vec<ChildCells<u32>> = Vec::new();
    for tier in game.tiers() {
        let solved = solve_tier(game, tier, &below, &NoProgress).unwrap();
        below.push(ChildCells {
            tier,
            cells: Cells::Wide(solved.cells(game, tier)),
        });
    }
    below
        .iter()
        .flat_map(|child| (0..game.tier_size(child.tier) as usize).map(|i| child.cells.outcome(i)))
        .map(|outcome| outcome.expect("a cell"))
        .collect()
}

/// Random graphs of 1 to 36 positions in 1 to 4 tiers; a position's moves
/// (0 to 3) stay in its tier about half the time, else go anywhere below
/// its tier's end.
fn graph() -> impl Strategy<Value = Loopy<true>> {
    (1usize..=36, 1usize..=4).prop_flat_map(|(n, tiers)| {
        let tiers = tiers.min(n);
        let end = prop_oneof![
            6 => Just(None),
            2 => Just(Some(Value::Lose)),
            1 => Just(Some(Value::Win)),
            1 => Just(Some(Value::Tie)),
            1 => Just(Some(Value::Draw)),
        ];
        let pick = (any::<bool>(), any::<u32>());
        (
            proptest::collection::vec(proptest::collection::vec(pick, 0..4), n),
            proptest::collection::vec(end, n),
        )
            .prop_map(move |(picks, ends)| {
                let starts: Vec<u32> = (0..=tiers).map(|k| (k * n / tiers) as u32).collect();
                let moves = picks
                    .into_iter()
                    .enumerate()
                    .map(|(i, picks)| {
                        let tier = tier_at(&starts, i as u32) as usize;
                        let (start, end) = (starts[tier], starts[tier + 1]);
                        picks
                            .into_iter()
                            .map(|(same, r)| {
                                if same {
                                    start + r % (end - start)
                                } else {
                                    r % end
                                }
                            })
                            .collect()
                    })
                    .collect();
                Loopy::new(moves, ends, starts)
            })
    })
}

/// The reference is the rule: each position not decided by its seed has
/// the outcome its children give it ([`Outcome::from_children`]).
fn check_reference<const U: bool>(game: &Loopy<U>, outcomes: &[Outcome]) {
    for (i, &outcome) in outcomes.iter().enumerate() {
        if game.ends[i].is_none() && !game.moves[i].is_empty() {
            let children = game.moves[i].iter().map(|&c| outcomes[c as usize]);
            assert_eq!(
                Outcome::from_children(children),
                Some(outcome),
                "position {i}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_solver_follows_the_rule_cell_for_cell(game in graph()) {
        for (game, bytes) in [(game.clone(), false), (game.losses_only(), true)] {
            let expected = reference(&game);
            check_reference(&game, &expected);
            for (solver, outcomes) in solved(&game, bytes) {
                for (i, (got, want)) in outcomes.iter().zip(&expected).enumerate() {
                    prop_assert_eq!(got, want, "{} at position {} of {:?}", solver, i, game);
                }
            }
        }
    }
}

/// A hand-made graph over two tiers with every kind of outcome: a loop
/// with no way out (a draw), a loop left by a loss, a tie reached through
/// a loop, a primitive draw, and a move down a tier.
#[test]
fn every_solver_solves_a_graph_with_every_outcome() {
    // Tier 0: 0 <-> 1 (a draw), 2 ends in a loss, 3 ends in a tie,
    // 4 ends in a draw. Tier 1: 5 <-> 6, 6 -> 2; 7 <-> 8, 8 -> 3;
    // 9 -> 4 and 9 -> 6.
    let moves = vec![
        vec![1],
        vec![0],
        vec![],
        vec![],
        vec![],
        vec![6],
        vec![5, 2],
        vec![8],
        vec![7, 3],
        vec![4, 6],
    ];
    let mut ends = vec![None; 10];
    ends[2] = Some(Value::Lose);
    ends[3] = Some(Value::Tie);
    ends[4] = Some(Value::Draw);
    let game = Loopy::<true>::new(moves, ends, vec![0, 5, 10]);
    let expected = vec![
        Outcome::DRAW,
        Outcome::DRAW,
        Outcome::lose(0),
        Outcome::tie(0),
        Outcome::DRAW,
        Outcome::lose(2),
        Outcome::win(1),
        Outcome::tie(2),
        Outcome::tie(1),
        Outcome::DRAW,
    ];
    assert_eq!(reference(&game), expected);
    for (solver, outcomes) in solved(&game, false) {
        assert_eq!(outcomes, expected, "{solver}");
    }
}
