//! m,n,k tic-tac-toe against the plain memoised solver: the reachable-table
//! solver and alpha-beta search must give the same value and remoteness on
//! random positions, values must follow from children's, and symmetric
//! positions must agree.

use ply_core::{
    AlphaBeta, Census, Game, Indexed, MemoSolver, NoProgress, Outcome, SparseTable, Symmetric,
    Table,
};
use ply_games::TicTacToe;
use ply_games::tictactoe::Marks;
use proptest::prelude::*;
use std::sync::OnceLock;

/// A board with its reachable table, built once for all tests.
struct Solved {
    game: TicTacToe,
    table: SparseTable,
}

fn solved(dims: (u8, u8, u8)) -> &'static Solved {
    static BOARDS: [OnceLock<Solved>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let slot = match dims {
        (3, 3, 3) => &BOARDS[0],
        (3, 4, 3) => &BOARDS[1],
        _ => &BOARDS[2],
    };
    slot.get_or_init(|| {
        let game = TicTacToe::new(dims.0, dims.1, dims.2).unwrap();
        let table = SparseTable::build(&game, &game.start(), &NoProgress).unwrap();
        Solved { game, table }
    })
}

/// The position after playing `choices` from the start (each picks among
/// the legal moves), stopping early if the game ends.
fn play_out(game: &TicTacToe, choices: &[usize]) -> Marks {
    let mut position = game.start();
    for &choice in choices {
        if game.primitive(&position).is_some() {
            break;
        }
        let mut moves = Vec::new();
        game.for_each_move(&position, |_, child| moves.push(child));
        position = moves[choice % moves.len()];
    }
    position
}

fn children(game: &TicTacToe, position: &Marks) -> Vec<Marks> {
    let mut children = Vec::new();
    if game.primitive(position).is_none() {
        game.for_each_move(position, |_, child| children.push(child));
    }
    children
}

/// Boards with the least number of marks at which the memoised solver is
/// quick: 3x3x3 and 3x4x3 from the start, 4x4x4 from 6 marks.
fn board_and_choices() -> impl Strategy<Value = ((u8, u8, u8), Vec<usize>)> {
    prop_oneof![
        (Just((3, 3, 3)), proptest::collection::vec(0..9usize, 0..10)),
        (
            Just((3, 4, 3)),
            proptest::collection::vec(0..12usize, 0..13)
        ),
        (
            Just((4, 4, 4)),
            proptest::collection::vec(0..16usize, 6..17)
        ),
    ]
}

#[test]
fn the_table_counts_what_the_memoised_solver_reaches() {
    for dims in [(3, 3, 3), (3, 4, 3)] {
        let Solved { game, table } = solved(dims);
        let mut memo = MemoSolver::new(game);
        memo.solve(&game.start()).unwrap();
        let ours: Census<Marks> = table.census(game).unwrap();
        let plain = memo.census();
        assert_eq!(
            (
                ours.positions,
                ours.win,
                ours.lose,
                ours.tie,
                &ours.by_remoteness
            ),
            (
                plain.positions,
                plain.win,
                plain.lose,
                plain.tie,
                &plain.by_remoteness
            ),
            "{}",
            game.name()
        );
        assert!(table.classes() < ours.positions);
    }
}

#[test]
fn the_full_index_table_agrees_with_the_sparse_one() {
    for dims in [(3, 3, 3), (3, 4, 3)] {
        let Solved { game, table } = solved(dims);
        let plain = Table::build(game, &NoProgress).unwrap();
        let symmetric = Table::build_symmetric(game, &NoProgress).unwrap();
        let mut legal = 0;
        for index in 0..game.index_len() {
            if let Some(position) = game.unrank(index) {
                legal += 1;
                let ours = table.outcome(game, &position);
                assert!(ours.is_some(), "{}", game.format_position(&position));
                assert_eq!(
                    plain.outcome(index),
                    ours,
                    "{}",
                    game.format_position(&position)
                );
                assert_eq!(symmetric.outcome(index), ours);
            }
        }
        // Every legal position is reachable, so the sparse census counts them all.
        assert_eq!(legal, table.census(game).unwrap().positions);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_table_agrees_with_the_memoised_solver((dims, choices) in board_and_choices()) {
        let Solved { game, table } = solved(dims);
        let position = play_out(game, &choices);
        let mut memo = MemoSolver::new(game);
        prop_assert_eq!(table.outcome(game, &position), Some(memo.solve(&position).unwrap()));
    }

    #[test]
    fn alpha_beta_agrees_with_the_memoised_solver((dims, choices) in board_and_choices()) {
        let Solved { game, .. } = solved(dims);
        let position = play_out(game, &choices);
        let mut memo = MemoSolver::new(game);
        let expected = memo.solve(&position).unwrap();
        let mut search = AlphaBeta::new(game, 1 << 12);
        prop_assert_eq!(search.solve(game, &position), Ok(expected));
        prop_assert_eq!(search.value(game, &position), Ok(expected.value));
        // Every child, with the table already holding facts from the parent.
        for child in children(game, &position) {
            prop_assert_eq!(search.solve(game, &child), Ok(memo.solve(&child).unwrap()));
        }
    }

    #[test]
    fn alpha_beta_agrees_on_late_5x5x4_positions(choices in proptest::collection::vec(0..25usize, 15..25)) {
        let game = TicTacToe::new(5, 5, 4).unwrap();
        let position = play_out(&game, &choices);
        let mut memo = MemoSolver::new(&game);
        let mut search = AlphaBeta::new(&game, 1 << 12);
        prop_assert_eq!(search.solve(&game, &position), Ok(memo.solve(&position).unwrap()));
    }

    #[test]
    fn values_follow_from_children((dims, choices) in board_and_choices()) {
        let Solved { game, table } = solved(dims);
        let position = play_out(game, &choices);
        let outcome = table.outcome(game, &position).unwrap();
        let expected = match game.primitive(&position) {
            Some(value) => Outcome::terminal(value),
            None => Outcome::from_children(
                children(game, &position).iter().map(|c| table.outcome(game, c).unwrap()),
            )
            .unwrap(),
        };
        prop_assert_eq!(outcome, expected);
    }

    #[test]
    fn symmetric_positions_have_equal_outcomes((dims, choices) in board_and_choices()) {
        let Solved { game, table } = solved(dims);
        let position = play_out(game, &choices);
        let mut memo = MemoSolver::new(game);
        let expected = memo.solve(&position).unwrap();
        let mut images = 0;
        game.for_each_symmetric(&position, |image| {
            images += 1;
            assert_eq!(memo.solve(&image).unwrap(), expected);
            assert_eq!(table.outcome(game, &image), Some(expected));
            assert_eq!(game.canonical(&image), game.canonical(&position));
        });
        prop_assert_eq!(images, if dims.0 == dims.1 { 8 } else { 4 });
    }

    #[test]
    fn legal_positions_round_trip_through_text_and_index((dims, choices) in board_and_choices()) {
        let Solved { game, .. } = solved(dims);
        let position = play_out(game, &choices);
        prop_assert_eq!(game.parse_position(&game.format_position(&position)), Ok(position));
        prop_assert_eq!(game.unrank(game.rank(&position)), Some(position));
    }
}
