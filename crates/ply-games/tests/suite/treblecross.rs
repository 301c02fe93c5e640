//! Treblecross by Sprague-Grundy theory against brute-force minimax of the
//! real game (every empty square a legal move, three in a row wins).

use ply_core::{Decompose, Game, MemoSolver, Outcome, Value};
use ply_core::{SumSearch, shipped};
use ply_core::{solve_sum, sum_nimber, sum_remoteness};
use ply_games::treblecross::{Row, Treblecross};
use proptest::prelude::*;
use std::sync::Arc;

/// Every row of `len` squares.
fn all_rows(len: usize) -> impl Iterator<Item = Row> {
    (0u32..1 << len).map(move |bits| {
        (0..len)
            .filter(|&s| bits >> s & 1 == 1)
            .fold(Row::empty(len), |row, s| row.with_x(s))
    })
}

/// The 0.007 values ply ships: they cover every row these tests make.
fn values(game: &Treblecross) -> Arc<Vec<u16>> {
    shipped(&game.octal_code()).expect("ply ships 0.007")
}

/// Checks the theory on `row` against the brute-force solver.
fn check(
    game: &Treblecross,
    row: &Row,
    brute: &mut MemoSolver<Treblecross>,
    search: &mut SumSearch,
) {
    let truth = brute.solve(row).unwrap();
    let theory = solve_sum(game, &values(game), row);
    assert_eq!(theory.value, truth.value, "{row}");
    if game.primitive(row).is_some() {
        return;
    }
    let mut winning = Vec::new();
    game.for_each_move(row, |square, child| {
        if brute.solve(&child).unwrap().value == Value::Lose {
            winning.push(square);
        }
    });
    assert_eq!(theory.winning_moves, winning, "winning squares of {row}");
    if let Some(r) = sum_remoteness(game, search, row) {
        assert_eq!(
            Outcome {
                value: theory.value,
                remoteness: Some(r)
            },
            truth,
            "remoteness of {row}"
        );
    }
}

#[test]
fn every_row_up_to_14_squares_agrees_with_brute_force() {
    let game = Treblecross::default();
    let mut search = SumSearch::new(game.octal_code());
    let mut rows = 0;
    for len in 3..=14 {
        let mut brute = MemoSolver::new(&game);
        for row in all_rows(len) {
            check(&game, &row, &mut brute, &mut search);
            rows += 1;
        }
    }
    assert_eq!(rows, (3..=14).map(|n| 1 << n).sum::<usize>());
}

#[test]
fn the_first_losing_empty_rows_are_confirmed_by_brute_force() {
    let facts = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/treblecross.txt"
    ))
    .unwrap();
    let expected: Vec<usize> = facts
        .lines()
        .find_map(|line| line.strip_prefix("empty-row-losses:"))
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let game = Treblecross::default();
    let mut losses = Vec::new();
    let mut theory_losses = Vec::new();
    for len in 3..=14 {
        let row = Row::empty(len);
        if MemoSolver::new(&game).solve(&row).unwrap().value == Value::Lose {
            losses.push(len);
        }
        if solve_sum(&game, &values(&game), &row).value == Value::Lose {
            theory_losses.push(len);
        }
    }
    assert_eq!(losses, expected);
    assert_eq!(theory_losses, expected);
}

/// The Grundy value of play where an X may not go within two squares of
/// another unless it wins: on rows without an immediate win, the mex over
/// safe moves.
fn safe_play_nimber(game: &Treblecross, row: &Row) -> u32 {
    let options: Vec<u32> = (0..row.len())
        .filter(|&s| game.is_safe(row, s))
        .map(|s| safe_play_nimber(game, &row.with_x(s)))
        .collect();
    (0..).find(|n| !options.contains(n)).unwrap()
}

#[test]
fn the_nimber_is_that_of_safe_play() {
    let game = Treblecross::default();
    let values = values(&game);
    for len in 3..=12 {
        for row in all_rows(len) {
            if row.has_three() || !row.completing_squares().is_empty() {
                assert_eq!(sum_nimber(&game, &values, &row), None);
                continue;
            }
            assert_eq!(
                sum_nimber(&game, &values, &row),
                Some(safe_play_nimber(&game, &row)),
                "{row}"
            );
        }
    }
}

fn random_row() -> impl Strategy<Value = Row> {
    (15usize..=18).prop_flat_map(|len| {
        proptest::collection::vec(proptest::bool::weighted(0.3), len).prop_map(|xs| {
            xs.iter()
                .enumerate()
                .filter(|(_, x)| **x)
                .fold(Row::empty(xs.len()), |row, (s, _)| row.with_x(s))
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_longer_rows_agree_with_brute_force(row in random_row()) {
        let game = Treblecross::default();
        check(&game, &row, &mut MemoSolver::new(&game), &mut SumSearch::new(game.octal_code()));
    }
}
