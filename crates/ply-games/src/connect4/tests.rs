//! Connect Four's rules, text, index and search against plain methods.

use super::search::{outcome, score_of};
use super::*;
use ply_core::{NamedTiers, Outcome};
use proptest::prelude::*;

/// The position random play reaches in `plies` moves (stopping early at
/// the end of play), choosing with `choices`.
fn random_play(game: &ConnectFour, plies: usize, choices: &[u8]) -> (C4Position, String) {
    let mut position = game.start();
    let mut text = String::new();
    for &choice in choices.iter().take(plies) {
        if game.primitive(&position).is_some() {
            break;
        }
        let mut moves = Vec::new();
        game.for_each_move(&position, |mv, child| moves.push((mv, child)));
        let (mv, child) = moves[usize::from(choice) % moves.len()];
        text.push_str(&game.format_move(&position, mv));
        position = child;
    }
    (position, text)
}

#[test]
fn names_and_parameters() {
    assert_eq!(ConnectFour::default().name(), "connect4");
    assert_eq!(
        ConnectFour::from_params("6x6").unwrap().name(),
        "connect4:6x6"
    );
    assert_eq!(ConnectFour::from_params("8x7").unwrap().cells(), 56);
    for bad in ["9x7", "3x4", "6", "x6", "7x", "axb", "4x16"] {
        assert!(
            matches!(
                ConnectFour::from_params(bad),
                Err(PositionError::Parameters(_))
            ),
            "{bad}"
        );
    }
}

#[test]
fn both_forms_read_the_spec_example() {
    let game = ConnectFour::default();
    let by_moves = game.parse_position("443").unwrap();
    let board = "......./......./......./......./...o.../..xx...";
    assert_eq!(game.format_position(&by_moves), board);
    assert_eq!(game.parse_position(board).unwrap(), by_moves);
    assert_eq!(game.parse_position("").unwrap(), game.start());
}

#[test]
fn malformed_text_is_refused_with_one_line() {
    let game = ConnectFour::from_params("4x4").unwrap();
    let cases = [
        ("5", "columns are the digits 1 to 4"),
        ("0", "columns are the digits 1 to 4"),
        ("11111", "column 1, which is full"),
        ("12121212", "after the game is over"),
        ("..../..../x.../....", "floating"),
        ("..../..../..../xx..", "x plays first"),
        ("..../..../..../o...", "x plays first"),
        ("x.o./x.o./x.o./x.o.", "both players"),
        ("..../..../..../xxxx", "x plays first"),
        ("..../..../..../.x.", "has 3 cells"),
        ("..../....", "4 rows"),
        ("..../..../..../..a.", "cells are"),
        ("12a", "neither"),
        ("..../..../xx../oo..", "no order of play"),
    ];
    for (text, expect) in cases {
        let error = game.parse_position(text).expect_err(text);
        let message = error.to_string();
        assert!(message.contains(expect), "{text}: {message}");
        assert!(!message.contains('\n'), "{text}: {message}");
    }
}

#[test]
fn a_four_made_by_the_last_disc_is_over_and_others_are_refused() {
    let game = ConnectFour::from_params("5x4").unwrap();
    // x's fourth disc in column 1 ends play: the mover (o) has lost.
    let won = game.parse_position("1212121").unwrap();
    assert_eq!(game.primitive(&won), Some(Value::Lose));
    let board = game.format_position(&won);
    assert_eq!(game.parse_position(&board).unwrap(), won);
    // An x disc away from the four may have been dropped before it.
    assert!(game.parse_position("x..../xo.../xo.../xoo.x").is_ok());
    // An o disc on top of x's four: play went on after the four.
    let game = ConnectFour::from_params("5x5").unwrap();
    let error = game
        .parse_position("o..../x..../x..../x..../xoo..")
        .unwrap_err();
    assert!(
        error.to_string().contains("play would have gone on"),
        "{error}"
    );
}

proptest! {
    #[test]
    fn sequences_and_boards_round_trip(
        dims in prop::sample::select(vec![(4u32, 4u32), (5, 4), (7, 6), (8, 7), (6, 6)]),
        plies in 0usize..56,
        choices in prop::collection::vec(any::<u8>(), 56),
    ) {
        let game = ConnectFour::new(dims.0, dims.1).unwrap();
        let (position, text) = random_play(&game, plies, &choices);
        prop_assert_eq!(game.parse_position(&text).unwrap(), position);
        let board = game.format_position(&position);
        prop_assert_eq!(game.parse_position(&board).unwrap(), position);
        // The tier index round-trips every position play reaches.
        let tier = game.tier_of(&position);
        let index = game.tier_rank(tier, &position);
        prop_assert!(index < game.tier_size(tier));
        prop_assert_eq!(game.tier_unrank(tier, index), Some(position));
        // The mirror image plays alike and folds to one representative.
        let mirror = game.mirror(&position);
        prop_assert_eq!(game.mirror(&mirror), position);
        prop_assert_eq!(game.fold_in_tier(&mirror), game.fold_in_tier(&position));
        prop_assert_eq!(game.primitive(&mirror), game.primitive(&position));
    }
}

#[test]
fn every_index_of_small_tiers_unranks_to_itself() {
    let game = ConnectFour::from_params("4x4").unwrap();
    let mut legal = 0u64;
    for tier in game.tiers() {
        for index in 0..game.tier_size(tier) {
            if let Some(position) = game.tier_unrank(tier, index) {
                assert_eq!(game.tier_of(&position), tier);
                assert_eq!(game.tier_rank(tier, &position), index);
                legal += 1;
            }
        }
    }
    // Every legal position is reached from the start by moves.
    let mut seen = std::collections::HashSet::new();
    let mut frontier = vec![game.start()];
    while let Some(p) = frontier.pop() {
        if !seen.insert(p) {
            continue;
        }
        if game.primitive(&p).is_none() {
            game.for_each_move(&p, |_, child| frontier.push(child));
        }
    }
    assert_eq!(legal, seen.len() as u64);
}

proptest! {
    /// The stepping walk of a tier visits what ranking each index afresh
    /// finds, from any start and on boards whose tiers span billions.
    #[test]
    fn walking_a_tier_equals_unranking_each_index(
        board in 0usize..3,
        tier_at in 0.0f64..1.0,
        start_at in 0.0f64..1.0,
        len in 1u64..3000,
    ) {
        let game = ConnectFour::from_params(["5x4", "6x5", "6x6"][board]).unwrap();
        let tier = (tier_at * f64::from(game.cells() + 1)) as u8;
        let size = game.tier_size(tier);
        let start = ((start_at * size as f64) as u64).min(size - 1);
        let range = start..size.min(start + len);
        let mut walked = Vec::new();
        game.for_each_in_tier(tier, range.clone(), |index, position| walked.push((index, position)));
        let unranked: Vec<_> = range
            .clone()
            .filter_map(|index| game.tier_unrank(tier, index).map(|p| (index, p)))
            .collect();
        prop_assert_eq!(walked, unranked);
        for index in range {
            let board = game.tier_board(tier, index).unwrap();
            prop_assert_eq!(game.tier_rank(tier, &board), index);
        }
    }
}

#[test]
fn scores_and_outcomes_are_inverse() {
    for (cells, discs) in [(42u32, 0u32), (42, 1), (42, 17), (25, 4), (25, 9), (56, 3)] {
        for score in -((cells as i32 - discs as i32) / 2)..=((cells as i32 + 1 - discs as i32) / 2)
        {
            let o = outcome(cells, discs, score);
            assert_eq!(score_of(cells, discs, o), score, "{cells} {discs} {score}");
            let r = o.remoteness.unwrap();
            assert!(discs + r <= cells);
            match o.value {
                Value::Win => assert_eq!(r % 2, 1),
                Value::Lose => assert_eq!(r % 2, 0),
                _ => assert_eq!(discs + r, cells),
            }
        }
    }
    // Pons's 7x6 start: score 1, the first player's 21st disc.
    assert_eq!(outcome(42, 0, 1), Outcome::win(41));
}

/// The page's description: each move is a click on the cell its disc
/// lands on, and every other cell of that column stands in for it, so a
/// click anywhere in a column plays it; a full column offers nothing.
#[test]
fn a_click_anywhere_in_a_column_drops_to_its_bottom() {
    let game = ConnectFour::from_params("4x4").unwrap();
    // Column 1 full, column 2 with one disc, columns 3 and 4 empty.
    let position = game.parse_position("11112").unwrap();
    let board = game.board(&position);
    assert_eq!((board.rows, board.cols), (4, 4));
    let names: Vec<&str> = board.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["2", "3", "4"]);
    let clicks: Vec<_> = board.moves.iter().map(|m| m.clicks.clone()).collect();
    // Rows are numbered from the top: the bottom row is 4.
    assert_eq!(clicks, [[["b3"]], [["c4"]], [["d4"]]]);
    let mut aliases: Vec<[&str; 2]> = board
        .aliases
        .iter()
        .map(|[from, to]| [from.as_str(), to.as_str()])
        .collect();
    aliases.sort_unstable();
    assert_eq!(
        aliases,
        [
            ["b1", "b3"],
            ["b2", "b3"],
            ["b4", "b3"],
            ["c1", "c4"],
            ["c2", "c4"],
            ["c3", "c4"],
            ["d1", "d4"],
            ["d2", "d4"],
            ["d3", "d4"],
        ]
    );
    // Every alias names cells of the board.
    let ids: Vec<&str> = board.cells.iter().map(|c| c.id.as_str()).collect();
    assert!(
        board
            .aliases
            .iter()
            .flatten()
            .all(|id| ids.contains(&id.as_str()))
    );
    // A finished game offers no move and no stand-in.
    let over = game.parse_position("1212121").unwrap();
    let board = game.board(&over);
    assert!(board.moves.is_empty() && board.aliases.is_empty());
}

proptest! {
    /// The colex rank a byte at a time equals the rank a bit at a time.
    #[test]
    fn colex_by_bytes_equals_colex_by_bits(packed in any::<u32>()) {
        prop_assert_eq!(index::colex32(packed), index::colex(u64::from(packed)));
    }

    /// So does the wide one, on sets of up to 56 squares holding at most
    /// 28 (a key of Connect Four's largest boards built by streams).
    #[test]
    fn wide_colex_by_bytes_equals_colex_by_bits(seed in any::<u64>(), squares in 0u32..=56) {
        let mut state = seed | 1;
        let mut packed = 0u64;
        for _ in 0..squares / 2 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            packed |= 1 << (state % u64::from(squares.max(1)));
        }
        prop_assert_eq!(index::colex64(packed), index::colex(packed));
    }
}
