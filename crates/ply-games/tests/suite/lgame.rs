//! The L Game: known counts, symmetries, and a retrograde solution that is
//! consistent with every move and the same with or without symmetry
//! reduction.

use ply_core::solve::retro::{self, RetroTable};
use ply_core::{Game, Indexed, NoProgress, Outcome, Symmetric};
use ply_games::LGame;
use ply_games::lgame::LPosition;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

fn facts() -> HashMap<String, u64> {
    include_str!("../data/lgame.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (name, value) = line.split_once(' ').expect("name value");
            (name.to_string(), value.trim().parse().expect("a number"))
        })
        .collect()
}

fn game() -> &'static LGame {
    static GAME: OnceLock<LGame> = OnceLock::new();
    GAME.get_or_init(LGame::new)
}

fn table() -> &'static RetroTable {
    static TABLE: OnceLock<RetroTable> = OnceLock::new();
    TABLE.get_or_init(|| retro::solve_symmetric(game(), &NoProgress).unwrap())
}

fn children(position: &LPosition) -> Vec<LPosition> {
    let mut children = Vec::new();
    game().for_each_move(position, |_, child| children.push(child));
    children
}

fn images(position: &LPosition) -> Vec<LPosition> {
    let mut images = Vec::new();
    game().for_each_symmetric(position, |image| images.push(image));
    images
}

/// The positions with `#` to move.
fn hash_to_move() -> impl Iterator<Item = LPosition> {
    (0..game().index_len())
        .filter_map(|i| game().unrank(i))
        .filter(|p| !p.star_to_move)
}

#[test]
fn the_known_counts_hold() {
    let facts = facts();
    assert_eq!(hash_to_move().count() as u64, facts["positions_per_mover"]);
    assert_eq!(game().index_len(), 2 * facts["positions_per_mover"]);
    // Classes counted plainly: the set of each position's images.
    let classes: HashSet<Vec<u64>> = hash_to_move()
        .map(|p| {
            let mut class: Vec<u64> = images(&p)
                .iter()
                .filter(|image| !image.star_to_move)
                .map(|image| game().rank(image))
                .collect();
            class.sort_unstable();
            class
        })
        .collect();
    assert_eq!(classes.len() as u64, facts["classes"]);
    assert_eq!(table().solved_positions(), facts["classes"]);
    let stalemates: HashSet<u64> = hash_to_move()
        .filter(|p| children(p).is_empty())
        .map(|p| game().rank(&game().canonical(&p)))
        .collect();
    assert_eq!(stalemates.len() as u64, facts["stalemate_classes"]);
}

#[test]
fn every_image_has_the_same_canonical_form() {
    for position in (0..game().index_len()).filter_map(|i| game().unrank(i)) {
        let canonical = game().canonical(&position);
        assert!(images(&position).contains(&canonical));
        assert_eq!(game().canonical_index(&position), game().rank(&canonical));
        for image in images(&position) {
            assert_eq!(game().canonical(&image), canonical, "{position:?}");
        }
    }
}

#[test]
fn the_solution_is_consistent_with_every_move_and_needs_no_symmetry() {
    let plain = retro::solve(game(), &NoProgress).unwrap();
    assert_eq!(plain.solved_positions(), game().index_len());
    for index in 0..game().index_len() {
        let position = game().unrank(index).unwrap();
        let outcome = table().outcome_at(index).unwrap();
        assert_eq!(plain.outcome_at(index), Some(outcome), "{position:?}");
        let expected = Outcome::from_children(
            children(&position)
                .iter()
                .map(|child| table().outcome(game(), child).unwrap()),
        )
        .unwrap_or(Outcome::lose(0));
        assert_eq!(outcome, expected, "{}", game().format_position(&position));
    }
}

proptest! {
    #[test]
    fn symmetric_positions_have_equal_values(index in 0..36_736u64) {
        let position = game().unrank(index).unwrap();
        let outcome = table().outcome(game(), &position);
        prop_assert!(outcome.is_some());
        for image in images(&position) {
            prop_assert_eq!(table().outcome(game(), &image), outcome);
        }
    }

    #[test]
    fn values_are_consistent_with_children(index in 0..36_736u64) {
        let position = game().unrank(index).unwrap();
        let kids = children(&position);
        let outcome = table().outcome(game(), &position).unwrap();
        let best = Outcome::from_children(kids.iter().map(|c| table().outcome(game(), c).unwrap()));
        prop_assert_eq!(best.unwrap_or(Outcome::lose(0)), outcome);
        prop_assert_eq!(kids.is_empty(), !game().can_move(&position));
    }
}
