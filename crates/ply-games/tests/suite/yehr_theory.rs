//! The Yehr Game by theory against the brute-force retrograde solution:
//! every contest setup and every other position the solver indexes.

use ply_core::solve::retro;
use ply_core::{Indexed, NoProgress, RetroTable};
use ply_games::Yehr;
use ply_games::yehr::{Side, YehrPosition};
use ply_games::yehr_theory::YehrRows;
use rayon::prelude::*;
use std::sync::OnceLock;

/// The brute-force solution, built once. Call it before any parallel loop:
/// building it uses rayon, so workers must not be waiting for it.
fn table() -> &'static RetroTable {
    static TABLE: OnceLock<RetroTable> = OnceLock::new();
    TABLE.get_or_init(|| retro::solve_with_parents(&Yehr, &NoProgress).unwrap())
}

/// Checks the theory on `position`; returns whether Red wins.
fn check(position: &YehrPosition) -> bool {
    let truth = table().outcome(&Yehr, position).unwrap().value;
    let rows = YehrRows::new(
        position.mover() == Side::Red,
        position.rows(Side::Red),
        position.rows(Side::Black),
    )
    .unwrap();
    assert_eq!(rows.value(), truth, "{position}: {:?}", rows.sum());
    rows.red_wins()
}

#[test]
fn every_contest_setup_matches_brute_force() {
    let mut setups = 0;
    let mut red_wins = 0;
    for code in 0..5u32.pow(6) {
        let digit = |i: u32| (code / 5u32.pow(i) % 5) as u8;
        let red = [1 + digit(0), 1 + digit(1), 1 + digit(2), 5];
        let black = [6 + digit(3), 6 + digit(4), 6 + digit(5), 6];
        for mover in [Side::Red, Side::Black] {
            let position = YehrPosition::new(mover, red, black).unwrap();
            red_wins += usize::from(check(&position));
            setups += 1;
        }
    }
    assert_eq!(setups, 31_250);
    assert!(red_wins > 0 && red_wins < setups);
}

#[test]
fn every_position_the_solver_indexes_matches_brute_force() {
    let game = Yehr;
    table();
    let checked: u64 = (0..game.index_len())
        .into_par_iter()
        .map(|index| {
            let position = game.unrank(index).unwrap();
            if position.captured() {
                // The game is over; the theory is about positions in play.
                return 0;
            }
            check(&position);
            1
        })
        .sum();
    // 45 acm pairs (not 54 codes) of the index are in play.
    assert_eq!(checked, game.index_len() / 54 * 45);
}
