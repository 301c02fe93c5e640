//! The Yehr Game: its un-moves match its moves, its colour swap is a
//! symmetry, and its retrograde solution is consistent everywhere.

use ply_core::solve::retro;
use ply_core::{Game, Indexed, NoProgress, Outcome, Parents, Symmetric};
use ply_games::Yehr;
use proptest::prelude::*;
use rayon::prelude::*;

fn children(game: &Yehr, position: &<Yehr as Game>::Position) -> Vec<<Yehr as Game>::Position> {
    let mut children = Vec::new();
    if game.primitive(position).is_none() {
        game.for_each_move(position, |_, child| children.push(child));
    }
    children
}

proptest! {
    #[test]
    fn parents_are_exactly_the_positions_with_a_move_here(index in 0..Yehr.index_len()) {
        let game = Yehr;
        let position = game.unrank(index).unwrap();
        for child in children(&game, &position) {
            let mut found = false;
            game.for_each_parent(&child, |parent| found |= parent == position);
            prop_assert!(found, "{} -> {} has no un-move", position, child);
        }
        game.for_each_parent(&position, |parent| {
            assert!(children(&game, &parent).contains(&position), "{parent} is no parent of {position}");
        });
    }

    #[test]
    fn the_colour_swap_maps_moves_to_moves(index in 0..Yehr.index_len()) {
        let game = Yehr;
        let position = game.unrank(index).unwrap();
        let mut images = Vec::new();
        game.for_each_symmetric(&position, |image| images.push(image));
        prop_assert_eq!(images.len(), 2);
        let swap = |p| {
            let mut images = Vec::new();
            game.for_each_symmetric(&p, |image| images.push(image));
            images[1]
        };
        prop_assert_eq!(swap(images[1]), position);
        let least = images.iter().map(|image| game.rank(image)).min();
        prop_assert_eq!(Some(game.rank(&game.canonical(&position))), least);
        prop_assert_eq!(Some(game.canonical_index(&position)), least);
        let mut expected: Vec<u64> = children(&game, &position).into_iter().map(|c| game.rank(&swap(c))).collect();
        let mut found: Vec<u64> = children(&game, &images[1]).iter().map(|c| game.rank(c)).collect();
        expected.sort_unstable();
        found.sort_unstable();
        prop_assert_eq!(expected, found);
    }
}

#[test]
fn the_solution_is_consistent_with_every_move_and_symmetric() {
    let game = Yehr;
    let table = retro::solve_with_parents(&game, &NoProgress).unwrap();
    assert_eq!(table.solved_positions(), game.index_len());
    let reduced = retro::solve_symmetric_with_parents(&game, &NoProgress).unwrap();
    assert_eq!(reduced.solved_positions(), game.index_len() / 2);
    (0..game.index_len()).into_par_iter().for_each(|index| {
        let position = game.unrank(index).unwrap();
        let outcome = table.outcome_at(index).unwrap();
        let expected = match game.primitive(&position) {
            Some(value) => Outcome::terminal(value),
            None => Outcome::from_children(
                children(&game, &position)
                    .iter()
                    .map(|child| table.outcome(&game, child).unwrap()),
            )
            .unwrap_or(Outcome::lose(0)),
        };
        assert_eq!(outcome, expected, "{position}");
        assert_eq!(reduced.outcome_at(index), Some(outcome), "{position}");
        game.for_each_symmetric(&position, |image| {
            assert_eq!(
                table.outcome(&game, &image),
                Some(outcome),
                "{position} vs {image}"
            );
        });
    });
    let census = table.census(0..game.index_len());
    assert_eq!(census.positions, game.index_len());
    assert_eq!(
        census.draw + census.tie,
        0,
        "the spec says no Yehr position is drawn"
    );
    assert!(census.win > 0 && census.lose > 0);
}
