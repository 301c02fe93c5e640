//! Distributed retrograde analysis on worker threads gives the
//! single-machine retrograde solver's cells, position for position, and the
//! same census, however the index is cut and with 1 to 4 workers: over
//! every position, and over one position per symmetry class.

use ply_core::dist::{self, Cluster, DistSolution, Partition, Plan};
use ply_core::solve::retro::{self, RetroTable};
use ply_core::{Census, Indexed, NoProgress, Retrograde};
use ply_games::{Euler, LGame, TicTacToe, Yehr};

fn plan(threads: usize, partition: Partition, len: u64) -> Plan {
    Plan {
        cluster: Cluster::Threads(threads),
        partition,
        counted: 0..len,
        save: None,
    }
}

/// Every cell, the census and the fingerprint agree with `expected`, and
/// the workers solved every position directly.
fn agrees<G: Indexed>(game: &G, expected: &RetroTable, solution: &DistSolution, what: &str) {
    agrees_owning(
        game,
        expected,
        solution,
        what,
        expected.census(0..game.index_len()).positions,
    );
}

/// As [`agrees`], the workers having solved `owned` positions directly.
fn agrees_owning<G: Indexed>(
    game: &G,
    expected: &RetroTable,
    solution: &DistSolution,
    what: &str,
    owned: u64,
) {
    let len = game.index_len();
    let mut print = 0u64;
    for index in 0..len {
        let cell = expected.cell(index);
        assert_eq!(
            solution.cell(index),
            Some(cell),
            "{} {what}: index {index}",
            game.name()
        );
        if cell.unpack().is_some() {
            print = print.wrapping_add(dist::fingerprint(index, cell));
        }
    }
    let census = solution.census.clone().expect("process 0 has the census");
    assert_eq!(
        counts(census),
        counts(expected.census(0..len)),
        "{} {what}: census",
        game.name()
    );
    assert_eq!(solution.fingerprint, Some(print), "{} {what}", game.name());
    let stats = solution.stats.as_ref().expect("process 0 has the totals");
    assert_eq!(
        stats.worker_positions.iter().sum::<u64>(),
        owned,
        "{} {what}: positions owned",
        game.name()
    );
}

/// A census without its example positions, which depend on the order in
/// which parts are merged; their remoteness stays.
fn counts(census: Census<u64>) -> Census<()> {
    census.map_examples(|_| ())
}

/// The partition tried with `n` workers: both kinds over the runs.
fn partition(n: usize) -> Partition {
    if n.is_multiple_of(2) {
        Partition::Strided
    } else {
        Partition::Blocks
    }
}

fn check_stored<G: Indexed + Clone + 'static>(game: G, threads: &[usize]) {
    let expected = retro::solve(&game, &NoProgress).expect("fits");
    for &n in threads {
        let partition = partition(n);
        let solution =
            dist::solve(&game, &plan(n, partition, game.index_len()), &NoProgress).expect("solves");
        agrees(
            &game,
            &expected,
            &solution,
            &format!("{n} workers {partition:?}"),
        );
    }
}

#[test]
fn l_game_on_one_to_four_workers() {
    check_stored(LGame::new(), &[1, 2, 3, 4]);
}

#[test]
fn euler_4x5_on_one_to_four_workers() {
    check_stored(Euler::from_params("4x5").unwrap(), &[1, 2, 3, 4]);
}

#[test]
fn tictactoe_on_one_to_four_workers() {
    check_stored(TicTacToe::from_params("3x3x3").unwrap(), &[1, 2, 3, 4]);
    check_stored(TicTacToe::from_params("3x4x3").unwrap(), &[2, 3]);
}

#[test]
fn yehr_by_unmoves_on_one_to_four_workers() {
    let game = Yehr;
    let expected = retro::solve_with_parents(&game, &NoProgress).expect("fits");
    for n in [1, 2, 3, 4] {
        let partition = partition(n);
        let solution =
            dist::solve_with_parents(&game, &plan(n, partition, game.index_len()), &NoProgress)
                .expect("solves");
        agrees(
            &game,
            &expected,
            &solution,
            &format!("{n} workers {partition:?}"),
        );
    }
}

/// [`dist::solve_all`] solves one position per symmetry class where the
/// game folds them, as the single-machine solver does, and still answers
/// and counts every position.
fn check_folded<G: Retrograde + Clone + 'static>(game: G, threads: &[usize]) {
    let expected = retro::solve_all(&game, &NoProgress).expect("fits");
    let len = game.index_len();
    assert!(
        expected.solved_positions() < expected.census(0..len).positions,
        "{} folds some positions together",
        game.name()
    );
    for &n in threads {
        let partition = partition(n);
        let solution =
            dist::solve_all(&game, &plan(n, partition, len), &NoProgress).expect("solves");
        let what = format!("{n} workers {partition:?}, folded");
        agrees_owning(
            &game,
            &expected,
            &solution,
            &what,
            expected.solved_positions(),
        );
    }
}

#[test]
fn symmetry_classes_on_one_to_four_workers() {
    check_folded(Yehr, &[1, 2, 3, 4]);
    check_folded(LGame::new(), &[1, 2, 3]);
    check_folded(Euler::from_params("4x5").unwrap(), &[2, 4]);
    check_folded(TicTacToe::from_params("3x3x3").unwrap(), &[1, 2, 3, 4]);
}
