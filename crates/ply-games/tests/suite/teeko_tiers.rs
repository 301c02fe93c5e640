//! Teeko through the tier solver against whole-game retrograde analysis,
//! cell for cell, on the 4x4 board (every tier, the loopy move phase and
//! the drop tiers seeded from it), standard and advanced: the tier solver
//! works back through the game's un-moves inside the move phase, the
//! whole-game solver through a reverse graph built from the moves. Two
//! processes cutting every drop tier between them build the same cells.

use ply_core::db::Expect;
use ply_core::solve::retro;
use ply_core::team::Team;
use ply_core::tier::{Options, Plan, Shards, build};
use ply_core::{Cell, Game, Indexed, NamedTiers, NoProgress, Solution, Value};
use ply_games::Teeko;
use std::collections::BTreeMap;
use std::time::Duration;

fn check(params: &str) {
    let game = Teeko::from_params(params).unwrap();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plan = Plan::new(&game).unwrap();
    assert_eq!(plan.index_len, game.index_len());
    let options = Options {
        dir: dir.path().to_path_buf(),
        ..Options::default()
    };
    let built = build(&game, &plan, &options, &NoProgress).unwrap();
    assert!(built.complete());
    assert_eq!(built.tiers, 9);
    let db = Shards::new(dir.path(), Expect::of(&game))
        .open(&plan)
        .unwrap();
    let truth = retro::solve(&game, &NoProgress).unwrap();
    let mut by_tier: BTreeMap<(u8, &str), u64> = BTreeMap::new();
    let mut positions = 0;
    for index in 0..game.index_len() {
        let Some(position) = game.unrank(index) else {
            assert_eq!(truth.cell(index), Cell::UNKNOWN);
            continue;
        };
        positions += 1;
        // The tier solver's keys are the whole game's index.
        assert_eq!(plan.key(&game, &position), Some(index));
        let cell = db.cell(index).unwrap();
        assert_eq!(
            cell,
            truth.cell(index),
            "{params}: {}",
            game.format_position(&position)
        );
        let outcome = cell.unpack().unwrap();
        *by_tier
            .entry((game.tier_of(&position), outcome.value.as_str()))
            .or_default() += 1;
    }
    assert!(positions > 1_000_000, "{params}: {positions}");
    // Every kind of value shows up where it should: wins, losses and
    // draws in the loopy move phase, and no tie anywhere.
    for value in [Value::Win, Value::Lose, Value::Draw] {
        assert!(
            by_tier.contains_key(&(8, value.as_str())),
            "{params}: {by_tier:?}"
        );
    }
    assert!(by_tier.keys().all(|&(_, v)| v != Value::Tie.as_str()));
    cut_between_two(&game, &plan, &db, params);
}

/// Two processes (threads here) building the tiers together, every tier
/// cut between them (the drop tiers, each said to be left by every move,
/// from their child tiers; the move phase, with moves inside it, in
/// lockstep rounds; each cut although it is solved a cell per class
/// alone): the same cells as one build, and both processes solved a
/// slice of each.
fn cut_between_two(game: &Teeko, plan: &Plan<u8>, one: &ply_core::db::Database, params: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let drops = game
        .tiers()
        .into_iter()
        .filter(|&t| game.leaves_tier(t))
        .count();
    assert_eq!(drops, 8, "{params}: the drop tiers are left by every move");
    // The two tell each other over TCP on loopback, at ports free a
    // moment ago.
    let listeners: Vec<_> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let hosts: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().expect("an address").to_string())
        .collect();
    drop(listeners);
    let built: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|process| {
                let options = Options {
                    dir: dir.path().to_path_buf(),
                    team: Some(
                        Team::on_hosts(hosts.clone(), process, Duration::from_secs(30)).unwrap(),
                    ),
                    cut_from: Some(1),
                    cut_classes: true,
                    drafts: false,
                    ..Options::default()
                };
                scope.spawn(move || build(game, plan, &options, &NoProgress))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for built in built {
        let built = built.unwrap_or_else(|e| panic!("{params}: {e}"));
        assert!(built.complete());
        assert_eq!(
            built.slices,
            drops + 1,
            "{params}: the drop tiers and the move phase"
        );
    }
    let db = Shards::new(dir.path(), Expect::of(game))
        .open(plan)
        .unwrap();
    for index in 0..game.index_len() {
        assert_eq!(
            db.cell(index).unwrap(),
            one.cell(index).unwrap(),
            "{params}: {index}"
        );
    }
}

#[test]
fn the_tier_solver_agrees_with_retrograde_analysis_on_4x4() {
    check("4x4");
}

#[test]
fn the_tier_solver_agrees_with_retrograde_analysis_on_4x4_advanced() {
    check("4x4,advanced");
}

#[test]
fn the_small_board_keeps_the_patterns_that_fit() {
    let standard = Teeko::from_params("4x4").unwrap();
    let advanced = Teeko::from_params("4x4,advanced").unwrap();
    // 4 rows, 4 columns, 2 diagonals, 9 squares; then 4 + 1 corner sets.
    assert_eq!(standard.patterns().len(), 19);
    assert_eq!(advanced.patterns().len(), 24);
    assert_eq!(standard.name(), "teeko:4x4");
    assert_eq!(
        Teeko::from_params(&advanced.name()["teeko:".len()..])
            .unwrap()
            .name(),
        advanced.name()
    );
    let start = standard.start();
    assert_eq!(standard.format_position(&start), "..../..../..../..../X");
    let corners = standard.parse_position("X..X/.OO./.OO./X..X/X");
    // O's 2x2 square in the middle ended play; X's corners only count in
    // the advanced game, where both sides have a pattern: no position.
    assert_eq!(standard.primitive(&corners.unwrap()), Some(Value::Lose));
    assert!(advanced.parse_position("X..X/.OO./.OO./X..X/X").is_err());
    assert!(Teeko::from_params("6x6").is_err());
    assert!(
        standard
            .parse_position("...../...../...../...../...../X")
            .is_err()
    );
}

/// The move phase (no child tiers) solved with a working cell per index
/// and with one per symmetry class: every index reads the same cell, and
/// the classes take about a sixteenth of the cells.
#[test]
fn a_cell_per_class_gives_the_cells_of_a_cell_per_index() {
    use ply_core::tier::{Layout, solve_tier_as};
    for params in ["4x4", "4x4,advanced"] {
        let game = Teeko::from_params(params).unwrap();
        let tier = ply_games::teeko::MOVE_TIER as u8;
        let dense = solve_tier_as(&game, tier, &[], Layout::Dense, &NoProgress).unwrap();
        let classes = solve_tier_as(&game, tier, &[], Layout::PerClass, &NoProgress).unwrap();
        let len = game.tier_size(tier);
        assert_eq!(dense.solved(), len);
        assert!(
            classes.solved() * 12 < len,
            "{params}: {} cells for {len} indices",
            classes.solved()
        );
        let decided = (0..len)
            .filter(|&index| {
                let cell = dense.cell(&game, tier, index);
                assert_eq!(classes.cell(&game, tier, index), cell, "{params}: {index}");
                cell.unpack().is_some()
            })
            .count();
        assert!(decided > 0, "{params}: some positions");
        assert!(!classes.broken(), "{params}");
        assert_eq!(dense.cells(&game, tier), classes.cells(&game, tier));
    }
}
