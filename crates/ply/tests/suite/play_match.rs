//! The perfect player in whole games through the library: every computer move
//! keeps the value of the position it was made from, a perfect person draws
//! out exactly the start's remoteness, and undo returns to the person's turn.

use ply::play::{Match, Verdict, choose};
use ply::registry;
use ply_core::{Outcome, Value};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

/// The verdict a position's value promises the player to move there.
fn promised(outcome: Outcome, mover_is_human: bool) -> Verdict {
    match outcome.value {
        Value::Tie => Verdict::Tie,
        Value::Draw => Verdict::Draw,
        Value::Win if mover_is_human => Verdict::HumanWins,
        Value::Lose if !mover_is_human => Verdict::HumanWins,
        _ => Verdict::ComputerWins,
    }
}

/// Plays to the end: the person picks with `person`, the computer perfectly.
/// Checks every computer move against the value before it.
fn play_out(game: &mut Match<'_>, mut person: impl FnMut(&Match<'_>) -> String) -> Verdict {
    loop {
        if let Some(verdict) = game.verdict() {
            return verdict;
        }
        if game.human_to_move() {
            let name = person(game);
            assert!(game.play(&name).unwrap(), "{name} is legal");
        } else {
            let before = game.current().outcome();
            game.computer_move().unwrap().unwrap();
            assert_eq!(
                game.current().outcome().through_move(),
                before,
                "the computer's move kept the value of {}",
                game.current().position
            );
        }
    }
}

/// Calls `check(spec, seed, human_first, game)` with a new match of each
/// game of `specs`, for every seed below its count and either side for the
/// person.
fn each_match(specs: &[(&str, u64)], mut check: impl FnMut(&str, u64, bool, Match<'_>)) {
    for &(spec, games) in specs {
        let session = registry::open(spec).unwrap();
        for seed in 0..games {
            for human_first in [true, false] {
                let game = Match::new(&*session, None, human_first, Some(seed)).unwrap();
                check(spec, seed, human_first, game);
            }
        }
    }
}

#[test]
fn the_computer_never_gives_up_value_against_a_random_person() {
    // The 4x4 board is searched afresh at every ply, so it gets fewer games.
    let specs = [("euler:3x3", 12), ("euler:2x4", 12), ("euler", 3)];
    each_match(&specs, |spec, seed, human_first, mut game| {
        let start = game.current().outcome();
        let mut rng = StdRng::seed_from_u64(seed + 100);
        let verdict = play_out(&mut game, |g| {
            g.current().moves.choose(&mut rng).unwrap().name.clone()
        });
        // A computer that starts winning wins, within the start's remoteness.
        if promised(start, human_first) == Verdict::ComputerWins {
            assert_eq!(verdict, Verdict::ComputerWins, "{spec} seed {seed}");
            assert!(game.plies() as u32 <= start.remoteness.unwrap());
        }
    });
}

#[test]
fn perfect_against_perfect_lasts_exactly_the_remoteness() {
    let specs = [("euler:3x3", 6), ("euler:3x4", 6), ("euler", 2)];
    each_match(&specs, |spec, seed, human_first, mut game| {
        let start = game.current().outcome();
        let mut rng = StdRng::seed_from_u64(seed);
        let verdict = play_out(&mut game, |g| {
            choose::choose(g.current(), &mut rng).unwrap().name.clone()
        });
        assert_eq!(verdict, promised(start, human_first), "{spec}");
        assert_eq!(Some(game.plies() as u32), start.remoteness, "{spec}");
    });
}

#[test]
fn undo_returns_to_the_persons_previous_turn() {
    let session = registry::open("euler:3x3").unwrap();
    let mut game = Match::new(&*session, None, true, Some(1)).unwrap();
    assert!(!game.undo());
    let start = game.current().position.clone();
    assert!(game.play("a1").unwrap());
    assert!(!game.human_to_move());
    game.computer_move().unwrap();
    assert!(game.human_to_move());
    assert!(game.undo());
    assert_eq!(game.plies(), 0);
    assert_eq!(game.current().position, start);

    let mut game = Match::new(&*session, None, false, Some(1)).unwrap();
    game.computer_move().unwrap();
    assert!(!game.undo(), "the computer's opening move stays");
    assert_eq!(game.plies(), 1);
    assert!(!game.play("no-such-move").unwrap());
}
