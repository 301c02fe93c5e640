//! `ply play` driven by a script on stdin, as a person at a terminal would
//! drive it: whole games of Euler to their result line, `?`, `m`, `u`,
//! `--second`, `--seed`, and bad input.

use crate::common;

use common::cli::ply;

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn play(args: &[&str], script: &str) -> Run {
    let args: Vec<&str> = std::iter::once("play")
        .chain(args.iter().copied())
        .collect();
    let out = ply(&args, script.as_bytes());
    Run {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn solve(position: Option<&str>) -> serde_json::Value {
    let args: Vec<&str> = ["solve", "euler"]
        .into_iter()
        .chain(position)
        .chain(["--json"])
        .collect();
    let out = ply(&args, b"");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn results(run: &Run) -> Vec<&str> {
    run.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("result: "))
        .collect()
}

fn last_position(run: &Run) -> &str {
    run.stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("position "))
        .unwrap()
}

/// Every square of the 4x4 board, row by row: pushing a pin onto each in turn
/// plays a whole game whatever the computer does (covered squares are refused).
fn every_square() -> String {
    let mut script = String::new();
    for row in 1..=4 {
        for col in ['a', 'b', 'c', 'd'] {
            script.push_str(&format!("{col}{row}\n"));
        }
    }
    script
}

#[test]
fn a_whole_game_from_the_start_ends_with_the_perfect_players_result() {
    // The person moves first; the computer then plays perfectly, so the result
    // follows from the start's value for the person.
    let start = solve(None);
    let expected = match start["value"].as_str().unwrap() {
        "lose" => "the computer wins",
        "win" => panic!("the person can win; this script proves nothing then"),
        other => panic!("euler has no {other}"),
    };
    for seed in ["1", "2", "3"] {
        let run = play(&["euler", "--seed", seed], &every_square());
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(results(&run), [expected], "seed {seed}:\n{}", run.stdout);
        assert!(last_position(&run).starts_with("XXXX/XXXX/XXXX/XXXX"));
        assert!(run.stdout.contains("computer plays "));
    }
}

#[test]
fn covering_the_last_square_loses_in_the_result_line() {
    // Two squares left: covering one leaves the last to the computer.
    let run = play(&["euler", "XXXX/XXXX/XXXX/XX.."], "c4\n");
    assert_eq!(results(&run), ["you win"], "{}", run.stdout);
    assert!(run.stdout.contains("computer plays d4"));
    // Covering both with one pin covers the last square.
    let run = play(&["euler", "XXXX/XXXX/XXXX/XX.."], "c4-d4\n");
    assert_eq!(results(&run), ["the computer wins"], "{}", run.stdout);
    // Moving second, the computer must cover the last square itself.
    let run = play(&["euler", "XXXX/XXXX/XXXX/XXX.", "--second"], "");
    assert_eq!(run.code, 0);
    assert_eq!(results(&run), ["you win"], "{}", run.stdout);
}

#[test]
fn question_mark_shows_every_move_as_ply_solve_values_it() {
    let position = "XXXX/XXXX/X.X./....";
    let run = play(&["euler", position], "?\nq\n");
    assert_eq!(run.code, 0);
    let solved = solve(Some(position));
    let moves = solved["moves"].as_array().unwrap();
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with(" + ") || l.starts_with(" - ") || l.starts_with(" = "))
        .collect();
    assert_eq!(rows.len(), moves.len());
    for m in moves {
        let name = m["move"].as_str().unwrap();
        // The table shows the move from the mover's side: the value flips
        // and the move itself adds one ply.
        let (mark, value) = match m["value"].as_str().unwrap() {
            "win" => ("-", "lose"),
            "lose" => ("+", "win"),
            other => panic!("euler has no {other}"),
        };
        let remoteness = m["remoteness"].as_u64().unwrap() + 1;
        let row = rows
            .iter()
            .find(|r| r.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}"));
        let words: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            words,
            [mark, name, value, "in", &remoteness.to_string()],
            "{row}"
        );
    }
}

#[test]
fn m_lists_the_legal_moves_and_bad_moves_are_refused() {
    let position = "XXXX/XXXX/XXXX/X...";
    let run = play(&["euler", position], "zz\na1\nm\nq\n");
    assert_eq!(run.code, 0);
    let listed = run
        .stdout
        .lines()
        .find_map(|l| l.split_once("legal moves: ").map(|(_, m)| m))
        .unwrap();
    let mut listed: Vec<&str> = listed.split(' ').collect();
    listed.sort();
    let solved = solve(Some(position));
    let mut names: Vec<&str> = solved["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(listed, names);
    assert_eq!(
        run.stdout
            .matches("is not a legal move or a command")
            .count(),
        2
    );
    assert_eq!(
        last_position(&run),
        format!("{position}  (ply 0, you to move)")
    );
}

#[test]
fn u_undoes_back_to_the_persons_turn() {
    let position = "XXXX/XXXX/XXXX/X...";
    let run = play(&["euler", position, "--seed", "4"], "u\nb4\nu\nq\n");
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("nothing to undo"));
    assert!(run.stdout.contains("computer plays"));
    assert_eq!(
        last_position(&run),
        format!("{position}  (ply 0, you to move)")
    );
    // Moving second, the computer's first move cannot be taken back.
    let run = play(&["euler", position, "--second"], "u\n");
    assert!(run.stdout.contains("nothing to undo"));
    // After the end, u goes back to the person's last turn.
    let run = play(&["euler", "XXXX/XXXX/XXXX/XX.."], "c4-d4\nu\n");
    assert_eq!(results(&run), ["the computer wins"]);
    assert_eq!(
        last_position(&run),
        "XXXX/XXXX/XXXX/XX..  (ply 0, you to move)"
    );
}

#[test]
fn a_seed_fixes_the_computers_choices() {
    let a = play(&["euler", "--seed", "9"], &every_square());
    let b = play(&["euler", "--seed", "9"], &every_square());
    assert_eq!(a.stdout, b.stdout);
    // Different seeds pick differently among equal moves at least once.
    let differ = (10..20)
        .map(|seed| play(&["euler", "--seed", &seed.to_string()], &every_square()).stdout)
        .any(|out| out != a.stdout);
    assert!(differ);
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &["euler", "XXX"][..],
        &["chess"][..],
        &["euler", "--first", "--second"][..],
    ] {
        let run = play(args, "");
        assert_eq!(run.code, 2, "{args:?}");
        assert!(!run.stderr.is_empty());
        assert!(run.stdout.is_empty());
    }
    let run = play(&["euler", "XXX"], "");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

#[test]
fn the_end_of_input_ends_the_game_quietly() {
    let run = play(&["euler"], "a1\n");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.is_empty());
    assert!(results(&run).is_empty());
}

/// The moves after `prefix` on the first line of `text` that has it.
fn listed<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines()
        .find_map(|l| l.split_once(prefix).map(|(_, m)| m))
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"))
        .split_whitespace()
        .collect()
}

/// The moves of the first `?` table in `text`, in its order.
fn table_moves(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.contains("for the player making it"))
        .skip(1)
        .take_while(|l| !l.starts_with('('))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect()
}

#[test]
fn the_terminal_says_who_you_are_where_things_are_and_when_you_blunder() {
    // x has played a corner: only the centre keeps the tie for o.
    let position = "x../.../...";
    let solved: serde_json::Value =
        serde_json::from_slice(&ply(&["solve", "tictactoe:3x3x3", position, "--json"], b"").stdout)
            .unwrap();
    let losing = solved["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["value"] == "win")
        .unwrap()["move"]
        .as_str()
        .unwrap()
        .to_string();
    let run = play(
        &["tictactoe:3x3x3", position, "--seed", "3"],
        &format!("h\nm\n?\n{losing}\nv\nm\n?\nq\n"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = &run.stdout;
    // Which side, the coordinates, and the value for the player to move.
    assert!(out.contains("you play o and move first"), "{out}");
    assert!(out.contains("\n  abc\n1 x..\n2 ...\n3 ...\n"), "{out}");
    assert!(
        out.contains("value for the player to move (you): tie in 8"),
        "{out}"
    );
    // h explains the notation with one of this position's moves.
    let first = solved["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .min()
        .unwrap();
    assert!(
        out.contains(&format!("For example `{first}` here")),
        "{out}"
    );
    // m and ? list the moves in one order, best first.
    let m = listed(out, "legal moves: ");
    assert_eq!(m, table_moves(out), "{out}");
    assert_eq!(m[0], "b2", "{out}");
    // A move that loses the tie is flagged.
    assert!(out.contains("that move turns the tie into a loss"), "{out}");
    // v hides the values: no value line, moves by name, ? says so.
    let hidden = out.split("values hidden").nth(1).unwrap();
    assert!(!hidden.contains("value for the player"), "{hidden}");
    let m = listed(hidden, "legal moves: ");
    let mut sorted = m.clone();
    sorted.sort();
    assert_eq!(m, sorted, "{hidden}");
    assert!(
        hidden.contains("values are hidden; v shows them"),
        "{hidden}"
    );
}
