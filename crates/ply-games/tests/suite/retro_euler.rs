//! Retrograde analysis agrees with memoised search on a loop-free game, the
//! Game of Euler, in every way it can run: with a reverse graph or with
//! un-moves, with or without symmetry reduction.

use ply_core::solve::retro::{self, RetroTable};
use ply_core::{Game, Indexed, MemoSolver, NoProgress, Parents, Symmetric};
use ply_games::Euler;
use ply_games::euler::Covered;
use proptest::prelude::*;

ply_core::wrapper_game! {
    /// Euler with un-moves: the parents of a board are the boards with one
    /// move's squares taken away.
    struct EulerUnmoves(Euler);
}

impl Indexed for EulerUnmoves {
    ply_core::forward_index!();
}

impl Symmetric for EulerUnmoves {
    fn for_each_symmetric(&self, position: &Covered, visit: impl FnMut(Covered)) {
        self.0.for_each_symmetric(position, visit)
    }
}

impl Parents for EulerUnmoves {
    fn for_each_parent(&self, position: &Covered, mut visit: impl FnMut(Covered)) {
        for &mask in self.0.move_masks() {
            if position.0 & mask == mask {
                visit(Covered(position.0 & !mask));
            }
        }
    }
}

/// Every way of running retrograde analysis on `game`.
fn tables(game: &Euler) -> Vec<(&'static str, RetroTable)> {
    let unmoves = EulerUnmoves(game.clone());
    vec![
        ("reverse graph", retro::solve(game, &NoProgress).unwrap()),
        (
            "reverse graph, symmetric",
            retro::solve_symmetric(game, &NoProgress).unwrap(),
        ),
        (
            "un-moves",
            retro::solve_with_parents(&unmoves, &NoProgress).unwrap(),
        ),
        (
            "un-moves, symmetric",
            retro::solve_symmetric_with_parents(&unmoves, &NoProgress).unwrap(),
        ),
    ]
}

fn agrees_everywhere(game: Euler) {
    let mut memo = MemoSolver::new(&game);
    for (how, table) in tables(&game) {
        assert_eq!(table.len(), game.index_len());
        for index in 0..game.index_len() {
            let position = game.unrank(index).unwrap();
            assert_eq!(
                table.outcome_at(index),
                Some(memo.solve(&position).unwrap()),
                "{} {how}: {}",
                game.name(),
                game.format_position(&position)
            );
        }
    }
}

#[test]
fn retrograde_equals_search_on_every_3x3_and_3x4x2_board() {
    agrees_everywhere(Euler::new(3, 3, 3).unwrap());
    agrees_everywhere(Euler::new(3, 4, 2).unwrap());
}

#[test]
fn symmetry_reduction_solves_fewer_positions() {
    let game = Euler::default();
    let all = retro::solve(&game, &NoProgress).unwrap();
    let reduced = retro::solve_symmetric(&game, &NoProgress).unwrap();
    assert_eq!(all.solved_positions(), 1 << 16);
    assert!(reduced.solved_positions() * 7 < all.solved_positions());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn retrograde_equals_search_on_random_4x4_boards(covered in 0u64..1 << 16) {
        use std::sync::OnceLock;
        static TABLES: OnceLock<Vec<(&'static str, RetroTable)>> = OnceLock::new();
        let game = Euler::default();
        let tables = TABLES.get_or_init(|| tables(&Euler::default()));
        let expected = MemoSolver::new(&game).solve(&Covered(covered)).unwrap();
        for (how, table) in tables {
            prop_assert_eq!(table.outcome(&game, &Covered(covered)), Some(expected), "{}", how);
        }
    }
}
