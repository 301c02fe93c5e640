//! The perfect player's choice: the fastest win, else a tie or draw (the
//! fastest tie first), else the slowest loss, at random among equals.

use crate::report::{MoveReport, SolveReport};
use rand::Rng;
use rand::seq::IndexedRandom;
use std::cmp::Ordering;

/// Every move as good as the best one, for the player to move.
pub fn best_moves(report: &SolveReport) -> Vec<&MoveReport> {
    let Some(best) = report
        .moves
        .iter()
        .map(|m| m.outcome().through_move())
        .max_by(|a, b| a.preference(*b))
    else {
        return Vec::new();
    };
    report
        .moves
        .iter()
        .filter(|m| m.outcome().through_move().preference(best) == Ordering::Equal)
        .collect()
}

/// One of the best moves, picked at random; `None` when there are no moves.
pub fn choose<'r>(report: &'r SolveReport, rng: &mut impl Rng) -> Option<&'r MoveReport> {
    best_moves(report).choose(rng).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ply_core::{Outcome, Value};
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn report(children: &[Outcome]) -> SolveReport {
        let outcome = Outcome::from_children(children.iter().copied())
            .unwrap_or(Outcome::terminal(Value::Lose));
        SolveReport {
            game: "test".into(),
            position: "p".into(),
            value: outcome.value,
            remoteness: outcome.remoteness,
            nimber: None,
            moves: children
                .iter()
                .enumerate()
                .map(|(i, o)| MoveReport {
                    name: format!("m{i}"),
                    position: format!("p{i}"),
                    value: o.value,
                    remoteness: o.remoteness,
                })
                .collect(),
        }
    }

    fn outcome() -> impl Strategy<Value = Outcome> {
        prop_oneof![
            (0..6u32).prop_map(Outcome::win),
            (0..6u32).prop_map(Outcome::lose),
            (0..6u32).prop_map(Outcome::tie),
            Just(Outcome::DRAW),
        ]
    }

    #[test]
    fn prefers_the_fastest_win_then_ties_then_the_slowest_loss() {
        let r = report(&[Outcome::lose(4), Outcome::lose(2), Outcome::win(1)]);
        let names: Vec<&str> = best_moves(&r).iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["m1"]);
        let r = report(&[Outcome::win(1), Outcome::DRAW, Outcome::tie(3)]);
        let names: Vec<&str> = best_moves(&r).iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["m2"]);
        let r = report(&[Outcome::win(1), Outcome::win(5), Outcome::win(5)]);
        let names: Vec<&str> = best_moves(&r).iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["m1", "m2"]);
        assert!(choose(&report(&[]), &mut StdRng::seed_from_u64(1)).is_none());
    }

    proptest! {
        #[test]
        fn the_choice_keeps_the_value_and_every_equal_move_gets_chosen(
            children in proptest::collection::vec(outcome(), 1..8)
        ) {
            let r = report(&children);
            let mut chosen = std::collections::BTreeSet::new();
            for seed in 0..200 {
                let m = choose(&r, &mut StdRng::seed_from_u64(seed)).unwrap();
                prop_assert_eq!(m.outcome().through_move(), r.outcome());
                chosen.insert(m.name.clone());
            }
            let expected: std::collections::BTreeSet<String> = r
                .moves
                .iter()
                .filter(|m| m.outcome().through_move() == r.outcome())
                .map(|m| m.name.clone())
                .collect();
            prop_assert_eq!(chosen, expected);
        }
    }
}
