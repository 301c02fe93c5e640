//! Retrograde analysis gives the same values and remoteness as the table
//! solvers on the loop-free games: the full-index table on the Game of Euler
//! and the sparse reachable table on tic-tac-toe, on every position both know.

use ply_core::SparseTable;
use ply_core::Table;
use ply_core::solve::retro;
use ply_core::{Game, Indexed, NoProgress};
use ply_games::{Euler, TicTacToe};

fn euler_agrees(game: &Euler) {
    let table = Table::build(game, &NoProgress).expect("the table fits");
    let symmetric = Table::build_symmetric(game, &NoProgress).expect("the table fits");
    let plain = retro::solve(game, &NoProgress).expect("the retro table fits");
    let reduced = retro::solve_symmetric(game, &NoProgress).expect("the retro table fits");
    for index in 0..game.index_len() {
        let expected = table.outcome(index);
        assert!(
            expected.is_some(),
            "{}: index {index} unsolved",
            game.name()
        );
        assert_eq!(
            plain.outcome_at(index),
            expected,
            "{} retro, index {index}",
            game.name()
        );
        assert_eq!(
            reduced.outcome_at(index),
            expected,
            "{} symmetric retro, index {index}",
            game.name()
        );
        assert_eq!(
            symmetric.outcome(index),
            expected,
            "{} symmetric table, index {index}",
            game.name()
        );
    }
}

#[test]
fn retro_equals_the_table_on_every_euler_board() {
    for params in ["4x4", "3x3", "3x4x2", "2x5x4", "1x7"] {
        euler_agrees(&Euler::from_params(params).expect("valid parameters"));
    }
}

#[test]
fn retro_equals_the_sparse_table_on_every_reachable_tictactoe_position() {
    for params in ["3x3x3", "3x4x3", "4x3x3"] {
        let game = TicTacToe::from_params(params).expect("valid parameters");
        let sparse = SparseTable::build(&game, &game.start(), &NoProgress).expect("fits");
        let plain = retro::solve(&game, &NoProgress).expect("fits");
        let reduced = retro::solve_symmetric(&game, &NoProgress).expect("fits");
        let mut compared = 0u64;
        for index in 0..game.index_len() {
            let Some(position) = game.unrank(index) else {
                continue;
            };
            let Some(expected) = sparse.outcome(&game, &position) else {
                continue;
            };
            assert_eq!(
                plain.outcome_at(index),
                Some(expected),
                "{params} retro, {position:?}"
            );
            assert_eq!(
                reduced.outcome_at(index),
                Some(expected),
                "{params} symmetric retro, {position:?}"
            );
            compared += 1;
        }
        let reachable = sparse
            .census(&game)
            .expect("the empty board is symmetric")
            .positions;
        assert_eq!(
            compared, reachable,
            "{params}: every reachable position was compared"
        );
    }
}
