//! The `ply` command on tic-tac-toe: known facts from data files, the
//! uva10111 judge (the spec sample byte for byte, and every answer checked
//! against the whole-game table), and exit code 2 on bad input.

use crate::common;

use common::cli::{json_of as json, ply};
use ply_core::{Game, NoProgress, SparseTable, Value};
use ply_games::TicTacToe;
use ply_games::tictactoe::Marks;
use std::path::PathBuf;
use std::process::Output;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Checks that `ply` failed with exit code 2 and one stderr line containing `why`.
fn assert_refused(output: &Output, why: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(why), "expected '{why}' in: {stderr}");
}

#[test]
fn known_facts_hold() {
    let facts = std::fs::read_to_string(data("tictactoe_facts.txt")).unwrap();
    let mut checked = 0;
    for line in facts
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [game, reachable, value] = fields[..] else {
            panic!("bad fact line: {line}");
        };
        let analysis = json(&ply(&["analyze", game, "--json"], b""));
        assert_eq!(
            analysis["positions"],
            reachable.parse::<u64>().unwrap(),
            "{game}"
        );
        let solution = json(&ply(&["solve", game, "--json"], b""));
        assert_eq!(solution["value"], value, "{game}");
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn judge_sample_is_answered_byte_for_byte() {
    let input = std::fs::read(data("uva10111_sample.in")).unwrap();
    let expected = std::fs::read(data("uva10111_sample.out")).unwrap();
    let output = ply(&["judge", "uva10111"], &input);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&expected)
    );
}

/// Boards with x to move, nobody won and empty squares left, from random
/// play on the empty board (a fixed xorshift sequence).
fn random_cases(game: &TicTacToe, count: usize) -> Vec<Marks> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut cases = Vec::new();
    while cases.len() < count {
        let mut board = game.start();
        let marks = 4 + 2 * (next() % 5) as u32;
        while board.occupied().count_ones() < marks && game.primitive(&board).is_none() {
            let mut moves = Vec::new();
            game.for_each_move(&board, |_, child| moves.push(child));
            board = moves[(next() % moves.len() as u64) as usize];
        }
        if game.primitive(&board).is_none() && board.x_to_move() {
            cases.push(board);
        }
    }
    cases
}

#[test]
fn judge_answers_match_the_table_and_repeats_get_the_same_answer() {
    let game = TicTacToe::default();
    let table = SparseTable::build(&game, &game.start(), &NoProgress).unwrap();
    let cases = random_cases(&game, 150);
    // Every case twice: once in order, then again in reverse.
    let all: Vec<Marks> = cases.iter().chain(cases.iter().rev()).copied().collect();
    let mut input = String::new();
    let mut expected = String::new();
    for board in &all {
        input.push_str("?\n");
        input.push_str(&game.format_position(board).replace('/', "\n"));
        input.push('\n');
        let first_win = (0..16).find(|&s| {
            board.occupied() >> s & 1 == 0
                && table.outcome(&game, &board.play(s)).map(|o| o.value) == Some(Value::Lose)
        });
        expected.push_str(&match first_win {
            Some(s) => format!("({},{})\n", s / 4, s % 4),
            None => "#####\n".into(),
        });
    }
    input.push_str("$\n");
    let output = ply(&["judge", "uva10111"], input.as_bytes());
    assert!(output.status.success(), "{output:?}");
    let answers = String::from_utf8(output.stdout).unwrap();
    assert_eq!(answers, expected);
    let lines: Vec<&str> = answers.lines().collect();
    let n = cases.len();
    for i in 0..n {
        assert_eq!(lines[i], lines[2 * n - 1 - i]);
    }
    assert!(lines.contains(&"#####") && lines.iter().any(|l| l.starts_with('(')));
}

#[test]
fn bad_judge_input_names_the_line_and_exits_2() {
    for (input, why) in [
        (
            "?\n....\nxx..\n....\n....\n$\n",
            "input line 5: it must be x's turn",
        ),
        ("?\n....\nxx..\n..o.\n", "input line 5: input ended"),
        (
            "?\n....\nxxo\n",
            "input line 3: a board row has 4 characters",
        ),
        ("....\n", "input line 1: expected a line of just '?'"),
        ("?\nxxxx\noooo\n....\n....\n$\n", "already won"),
    ] {
        assert_refused(&ply(&["judge", "uva10111"], input.as_bytes()), why);
    }
}

#[test]
fn bad_arguments_exit_2() {
    for (args, why) in [
        (
            vec!["solve", "tictactoe", "xx../..../..../...."],
            "x has 2 marks and o has 0",
        ),
        (vec!["solve", "tictactoe", "xxx./ooo"], "expected 4 rows"),
        (vec!["solve", "tictactoe:3x3x4"], "k = 4 cannot fit"),
        (vec!["solve", "tictactoe:7x7x5"], "at most 36"),
        (vec!["solve", "tictactoe:3x3"], "bad parameters"),
        (vec!["analyze", "tictactoe:5x5x4"], "too large to analyze"),
    ] {
        assert_refused(&ply(&args, b""), why);
    }
}

#[test]
fn large_boards_are_searched_per_position() {
    // o to move; x threatens the diagonal a1-d4, so only d4 saves o.
    let position = "x...o/.x.../..x.x/...../o...o";
    let solution = json(&ply(&["solve", "tictactoe:5x5x4", position, "--json"], b""));
    assert_eq!(solution["position"], position);
    let moves = solution["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 18);
    for m in moves {
        let loses_at_once = m["value"] == "win" && m["remoteness"] == 1;
        assert_eq!(loses_at_once, m["move"] != "d4", "{m}");
    }
    let block = moves.iter().find(|m| m["move"] == "d4").unwrap();
    assert_eq!(
        solution["remoteness"],
        block["remoteness"].as_u64().unwrap() + 1
    );
}
