//! The table solver on the Game of Euler, checked against the plain memoised
//! search and against the rules themselves.

use ply_core::{
    Game, Indexed, MemoSolver, NoProgress, Outcome, Symmetric, Table, Value, reachable,
    reachable_classes,
};
use ply_games::Euler;
use ply_games::euler::Covered;
use proptest::prelude::*;
use std::sync::OnceLock;

/// The variants every property runs on, each with its table built once
/// (with symmetry reduction; a test checks it against the plain build).
fn variants() -> &'static [(Euler, Table)] {
    static VARIANTS: OnceLock<Vec<(Euler, Table)>> = OnceLock::new();
    VARIANTS.get_or_init(|| {
        ["4x4", "3x3", "3x4x2", "2x5x4", "1x7", "4x5"]
            .iter()
            .map(|params| {
                let game = Euler::from_params(params).unwrap();
                let table = Table::build_symmetric(&game, &NoProgress).unwrap();
                (game, table)
            })
            .collect()
    })
}

fn variant_and_position() -> impl Strategy<Value = (usize, u64)> {
    (0..variants().len()).prop_flat_map(|v| (Just(v), 0..=variants()[v].0.full()))
}

proptest! {
    #[test]
    fn table_agrees_with_memoised_search((v, mask) in variant_and_position()) {
        let (game, table) = &variants()[v];
        let position = Covered(mask);
        let expected = MemoSolver::new(game).solve(&position).unwrap();
        prop_assert_eq!(table.outcome(game.rank(&position)), Some(expected));
    }

    #[test]
    fn outcomes_follow_from_children((v, mask) in variant_and_position()) {
        let (game, table) = &variants()[v];
        let position = Covered(mask);
        let outcome = table.outcome(mask).unwrap();
        match game.primitive(&position) {
            Some(value) => prop_assert_eq!(outcome, Outcome::terminal(value)),
            None => {
                let mut children = Vec::new();
                game.for_each_move(&position, |_, child| {
                    children.push(table.outcome(game.rank(&child)).unwrap());
                });
                prop_assert_eq!(Some(outcome), Outcome::from_children(children));
            }
        }
    }

    #[test]
    fn symmetric_positions_have_equal_outcomes((v, mask) in variant_and_position()) {
        let (game, table) = &variants()[v];
        let outcome = table.outcome(mask);
        game.for_each_symmetric(&Covered(mask), |image| {
            assert_eq!(table.outcome(game.rank(&image)), outcome, "{:b} vs {:b}", mask, image.0);
        });
    }
}

#[test]
fn every_euler_position_is_reachable() {
    for (game, table) in variants() {
        let reached = reachable(game, &NoProgress);
        assert_eq!(reached.count(), game.index_len(), "{}", game.name());
        let census = table.census(Some(&reached));
        assert_eq!(census.positions, game.index_len());
        assert_eq!(census.win + census.lose, game.index_len());
        assert_eq!(
            table.outcome(game.full()),
            Some(Outcome::terminal(Value::Win))
        );
    }
}

#[test]
fn symmetry_reduction_changes_no_cell() {
    for (game, table) in variants() {
        let plain = Table::build(game, &NoProgress).unwrap();
        for index in 0..game.index_len() {
            assert_eq!(
                plain.cell(index),
                table.cell(index),
                "{} #{index}",
                game.name()
            );
        }
    }
}

#[test]
fn counting_by_classes_counts_every_position() {
    for (game, table) in variants() {
        let classes = reachable_classes(game, &NoProgress).unwrap();
        let by_classes = table.census_of_classes(game, &classes);
        let all = table.census(Some(&reachable(game, &NoProgress)));
        assert_eq!(by_classes.positions, all.positions, "{}", game.name());
        assert_eq!((by_classes.win, by_classes.lose), (all.win, all.lose));
        assert_eq!(by_classes.by_remoteness, all.by_remoteness);
        let canonical = (0..game.index_len())
            .filter(|&i| game.rank(&game.canonical(&Covered(i))) == i)
            .count() as u64;
        assert_eq!(classes.count(), canonical);
    }
}
