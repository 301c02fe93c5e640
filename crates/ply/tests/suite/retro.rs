//! The L Game and the Yehr Game through the `ply` command and its judge:
//! spec samples, known counts, every winning move the judge prints, and
//! bad input.

use crate::common;

use common::cli::json;
use ply::judge::boi2002_lgame::{self, Answer};
use ply::session::retro::RetroSession;
use ply::session::{Session, Solver};
use ply_core::{Game, Indexed, NoProgress, Value};
use ply_games::lgame::LPosition;
use ply_games::{LGame, Yehr};
use std::collections::HashMap;
use std::process::Output;
use std::sync::OnceLock;

fn lgame() -> &'static RetroSession<LGame> {
    static SESSION: OnceLock<RetroSession<LGame>> = OnceLock::new();
    SESSION.get_or_init(|| RetroSession::new(LGame::new()))
}

fn ply(args: &[&str], stdin: &str) -> Output {
    common::cli::ply(args, stdin.as_bytes())
}

/// Checks that `board` (four rows) is the position after a legal move from
/// `position` that leaves the player to move there lost.
fn is_winning_move(position: &LPosition, board: &str) -> Result<(), String> {
    let game = lgame().game();
    let child = game
        .parse_position(&format!("{}/*", board.trim_end().replace('\n', "/")))
        .map_err(|e| format!("not a board: {e}"))?;
    let mut legal = false;
    game.for_each_move(position, |_, c| legal |= c == child);
    if !legal {
        return Err(format!("{board} is not one move from the input"));
    }
    match lgame().outcome(&child).map_err(|e| e.to_string())?.value {
        Value::Lose => Ok(()),
        other => Err(format!("after {board} the opponent's value is {other}")),
    }
}

#[test]
fn the_boi2002_sample_gets_a_winning_move() {
    let input = include_str!("../data/boi2002-lgame/sample.in");
    let position = lgame()
        .game()
        .parse_position(&input.trim_end().replace('\n', "/"))
        .unwrap();
    // The spec's own answer passes the check, and so does ply's.
    is_winning_move(&position, include_str!("../data/boi2002-lgame/sample.out")).unwrap();
    let output = ply(&["judge", "boi2002-lgame"], input);
    assert!(output.status.success());
    let printed = String::from_utf8(output.stdout).unwrap();
    assert_eq!(printed.lines().count(), 4);
    is_winning_move(&position, &printed).unwrap();
}

#[test]
fn every_winning_move_printed_is_legal_and_leaves_the_opponent_lost() {
    let game = lgame().game();
    let table = lgame().built(&NoProgress).unwrap();
    let mut answers = HashMap::new();
    for index in 0..game.index_len() / 2 {
        let position = game.unrank(index).unwrap();
        if !game.can_move(&position) {
            continue;
        }
        let outcome = lgame().outcome(&position).unwrap();
        let answer = boi2002_lgame::answer(game, table, &position);
        match &answer {
            Answer::Win(child) => {
                let board = boi2002_lgame::board_lines(game, child);
                is_winning_move(&position, &board).unwrap();
                // The fastest win: one ply more than the opponent's loss.
                let after = lgame().outcome(child).unwrap();
                assert_eq!(outcome.remoteness, after.remoteness.map(|r| r + 1));
            }
            Answer::Draw => assert_eq!(outcome.value, Value::Draw),
            Answer::Losing => assert_eq!(outcome.value, Value::Lose),
        }
        *answers.entry(std::mem::discriminant(&answer)).or_insert(0) += 1;
    }
    assert_eq!(answers.len(), 3, "wins, draws and losses all occur");
}

#[test]
fn the_table_is_built_once_and_kept() {
    let first = lgame().built(&NoProgress).unwrap() as *const _;
    lgame().solve(None).unwrap();
    assert!(std::ptr::eq(first, lgame().built(&NoProgress).unwrap()));
}

#[test]
fn analyze_lgame_reports_the_known_counts() {
    let facts: HashMap<&str, u64> = include_str!("../../../ply-games/tests/data/lgame.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k, v.trim().parse().unwrap()))
        .collect();
    let report = json(&["analyze", "lgame", "--json"]);
    assert_eq!(report["positions"], facts["positions_per_mover"]);
    assert_eq!(report["symmetry_classes"], facts["classes"]);
    let by_value: u64 = ["win", "lose", "draw", "tie"]
        .iter()
        .map(|v| report[v].as_u64().unwrap())
        .sum();
    assert_eq!(by_value, facts["positions_per_mover"]);
    assert_eq!(
        report["by_remoteness"][0]["lose"],
        8 * facts["stalemate_classes"]
    );
    let longest = report["longest_win"]["position"].as_str().unwrap();
    let solved = json(&["solve", "lgame", longest, "--json"]);
    assert_eq!(solved["remoteness"], report["longest_win"]["remoteness"]);
}

#[test]
fn the_yehr_sample_and_the_whole_game() {
    let sample = include_str!("../data/yehr-sample.txt");
    let (input, expected) = sample
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ")
        .split_once("=>")
        .map(|(i, e)| (i.to_string(), e.trim().to_string()))
        .unwrap();
    let numbers: Vec<u8> = input
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let position = Yehr::contest_position(
        numbers[0],
        numbers[1..5].try_into().unwrap(),
        numbers[5..9].try_into().unwrap(),
    )
    .unwrap();
    let solved = json(&["solve", "yehr", &position.to_string(), "--json"]);
    let winner = match solved["value"].as_str().unwrap() {
        "win" => position.mover(),
        _ => position.mover().other(),
    };
    assert_eq!(winner.name(), expected);

    let report = json(&["analyze", "yehr", "--json"]);
    assert_eq!(report["positions"], Yehr.index_len());
    // Uncaptured positions: 45 row pairs with Red below Black in each of
    // columns A, B, C, 5 x 5 dazes, either side to move (spec: about 4.5M,
    // with over 50M moves).
    let captured = report["captured_positions"].as_u64().unwrap();
    assert_eq!(Yehr.index_len() - captured, 45 * 45 * 45 * 25 * 2);
    assert!(report["moves"].as_u64().unwrap() > 50_000_000);
    assert_eq!(
        report["draw"], 0,
        "the spec says every position is won by one side"
    );
    assert_eq!(report["reachable_draw"], 0);
    assert_eq!(report["tie"], 0);
}

#[test]
fn impossible_positions_and_boards_are_refused_with_exit_code_2() {
    let stalemate = ".*../x*../#**x/###.";
    assert!(
        !lgame()
            .game()
            .can_move(&lgame().game().parse_position(stalemate).unwrap())
    );
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["solve", "lgame", ".***/#*.x/####/x..."],
            "",
            "covers 5 squares",
        ),
        (
            &["solve", "lgame", "..**/#**x/###./x..."],
            "",
            "do not form an L",
        ),
        (
            &["solve", "lgame", ".***/#*.x/###./xx.."],
            "",
            "3 neutral pieces",
        ),
        (
            &["solve", "lgame", ".***/#*.x/###./x.../?"],
            "",
            "expected 4 rows",
        ),
        (
            &["solve", "lgame:5x5", ".***/#*.x/###./x..."],
            "",
            "no parameters",
        ),
        (&["solve", "yehr", "R/8,5,5,5/7,6,6,6"], "", "acm"),
        (&["solve", "yehr", "R/4,6,5,5/7,6,6,6"], "", "column B"),
        (&["solve", "yehr", "R/4,5,5,7/7,6,6,6"], "", "daze"),
        (
            &["solve", "yehr", "R/10,5,5,5/10,6,6,6"],
            "",
            "cannot have captured",
        ),
        (&["solve", "yehr", "R/4,5,5,5"], "", "MOVER/RED/BLACK"),
        (
            &["judge", "boi2002-lgame"],
            ".***\n#*.x\n###.\nx..\n",
            "input line 4",
        ),
        (
            &["judge", "boi2002-lgame"],
            ".***\n#*.x\n###.\nx...\n\n.\n",
            "input line 6",
        ),
        (
            &["judge", "boi2002-lgame"],
            ".***\n#*.x\n####\nx...\n",
            "covers 5",
        ),
        (&["judge", "boi2002-lgame"], ".***\n#*.x\n", "input line 3"),
        (
            &["judge", "boi2002-lgame"],
            ".*..\nx*..\n#**x\n###.\n",
            "no legal move",
        ),
    ];
    for (args, stdin, expected) in cases {
        let output = ply(args, stdin);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?} {stdin:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?} {stdin:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}
