//! `ply judge uva10561` and `ply solve treblecross`: the spec's sample byte
//! for byte, squares listed once, brute force on short rows, and malformed
//! input rejected with a line number and exit code 2.

use crate::common;

use common::cli::ply;
use common::problem::{answer, assert_answers};
use ply::registry;
use ply_core::{Game, MemoSolver, Value};
use ply_games::Treblecross;
use ply_games::treblecross::Row;
use proptest::prelude::*;

fn judge(input: &str) -> Result<String, String> {
    answer("uva10561", input)
}

#[test]
fn the_spec_sample_byte_for_byte() {
    assert_answers("uva10561", "uva10561_sample");
}

#[test]
fn squares_a_pattern_completes_twice_are_printed_once() {
    assert_answers("uva10561", "uva10561_twice");
}

/// The judge's answer for one row, from brute-force minimax.
fn brute_force_answer(row: &Row) -> String {
    let game = Treblecross::default();
    let mut solver = MemoSolver::new(&game);
    let mut winning = Vec::new();
    game.for_each_move(row, |square, child| {
        if solver.solve(&child).unwrap().value == Value::Lose {
            winning.push((square + 1).to_string());
        }
    });
    if winning.is_empty() {
        "LOSING\n\n".to_string()
    } else {
        format!("WINNING\n{}\n", winning.join(" "))
    }
}

fn row_without_three() -> impl Strategy<Value = Row> {
    (3usize..=14)
        .prop_flat_map(|len| proptest::collection::vec(proptest::bool::weighted(0.25), len))
        .prop_map(|xs| {
            xs.iter()
                .enumerate()
                .filter(|(_, x)| **x)
                .fold(Row::empty(xs.len()), |row, (s, _)| row.with_x(s))
        })
        .prop_filter("no three in a row", |row| !row.has_three())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn judge_answers_match_brute_force(rows in proptest::collection::vec(row_without_three(), 1..6)) {
        let input: String = std::iter::once(rows.len().to_string())
            .chain(rows.iter().map(Row::to_string))
            .map(|line| line + "\n")
            .collect();
        let expected: String = rows.iter().map(brute_force_answer).collect();
        prop_assert_eq!(judge(&input).unwrap(), expected);
    }
}

#[test]
fn malformed_input_is_rejected_with_its_line() {
    for (input, message) in [
        (
            "2\n.....\n",
            "input line 3: input ended; expected position 2 of 2",
        ),
        ("1\n..o..\n", "input line 2: square 3 is 'o'"),
        (
            "1\n.XXX.\n",
            "input line 2: the row '.XXX.' already has three X in a row",
        ),
        (
            "1\n..\n",
            "input line 2: a row has 3 to 200 squares, found 2",
        ),
        ("1\n.....\n...\n", "input line 3: more positions than T = 1"),
        (
            "three\n",
            "input line 1: expected the number of positions T",
        ),
    ] {
        let err = judge(input).unwrap_err();
        assert!(err.starts_with(message), "{input:?}: {err}");
    }
    let long = format!("1\n{}\n", ".".repeat(201));
    assert!(judge(&long).unwrap_err().contains("found 201"));
    // Trailing blank lines are fine.
    assert_eq!(judge("1\n...\n\n\n").unwrap(), "WINNING\n1 2 3\n");
}

#[test]
fn the_binary_exits_2_with_one_line_on_stderr() {
    let output = ply(&["judge", "uva10561"], b"2\n.....\nX.X.Q\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        output.stdout.is_empty(),
        "nothing is printed before the error"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("input line 3"), "{stderr}");
}

#[test]
fn solve_reports_value_nimber_and_every_move() {
    let session = registry::open("treblecross").unwrap();
    let report = session.solve(Some("..........")).unwrap();
    assert_eq!(report.value, Value::Win);
    assert_eq!(report.nimber, Some(1));
    assert_eq!(report.moves.len(), 10);
    let winning: Vec<&str> = report
        .moves
        .iter()
        .filter(|m| m.value == Value::Lose)
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(winning, ["2", "5", "6", "9"]);
    assert!(session.notes(&report).is_empty());
    // An immediate win: only the completing square wins.
    let report = session.solve(Some("X.X.....")).unwrap();
    assert_eq!(
        (report.value, report.remoteness, report.nimber),
        (Value::Win, Some(1), None)
    );
    let lose_in_0: Vec<&str> = report
        .moves
        .iter()
        .filter(|m| m.remoteness == Some(0))
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(lose_in_0, ["2"]);
}

/// A row of `len` squares with an X on every seventh square from the
/// fifth: runs of six empty squares between X's (heap 4, value 1).
fn sevenths(len: usize) -> String {
    (0..len)
        .map(|s| if s % 7 == 4 { 'X' } else { '.' })
        .collect()
}

#[test]
fn long_won_rows_list_their_winning_moves_by_theory() {
    let session = registry::open("treblecross").unwrap();
    let report = session.solve(Some(&sevenths(99_999))).unwrap();
    assert_eq!(report.value, Value::Win);
    assert_eq!(report.remoteness, None);
    assert!(!report.moves.is_empty());
    assert!(
        report
            .moves
            .iter()
            .all(|m| m.value == Value::Lose && m.position.is_empty())
    );
    let squares: Vec<usize> = report
        .moves
        .iter()
        .map(|m| m.name.parse().unwrap())
        .collect();
    assert!(
        squares.windows(2).all(|w| w[0] < w[1]),
        "ascending, each once"
    );
    let notes = session.notes(&report);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].starts_with("remoteness not computed"));
    // The value agrees with the nimber.
    assert_ne!(report.nimber, Some(0));
}

#[test]
fn long_lost_rows_list_moves_that_all_lose() {
    let session = registry::open("treblecross").unwrap();
    let report = session.solve(Some(&sevenths(100_000))).unwrap();
    assert_eq!((report.value, report.nimber), (Value::Lose, Some(0)));
    assert_eq!(report.moves.len(), 256);
    assert!(
        report
            .moves
            .iter()
            .all(|m| m.value == Value::Win && m.position.is_empty())
    );
    let notes = session.notes(&report);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[1].contains("every move loses"), "{notes:?}");
}

#[test]
fn analyze_prints_the_same_report_on_every_run() {
    // The examples of the longest win and loss come from a search memo:
    // each process must pick the same ones.
    let runs: Vec<Vec<u8>> = (0..4)
        .map(|_| {
            let output = ply(&["analyze", "treblecross:12", "--json"], b"");
            assert!(output.status.success());
            output.stdout
        })
        .collect();
    assert!(runs.windows(2).all(|w| w[0] == w[1]));
}
