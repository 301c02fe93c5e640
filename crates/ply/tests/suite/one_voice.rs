//! The command line, its help, its docs and the server say one thing
//! (issue 58): each contradiction a user tripped over has a test here so
//! that it cannot come back.

use crate::common;

use common::cli::{Scratch, json, json_of, ply};
use common::http::{Client, solve_path};
use ply::serve::limits::Limits;

/// A command that must fail with exit 2 and a first line on stderr that
/// names `needle` (ply's own errors are that one line; clap's argument
/// errors add a pointer to --help below it). Returns that line.
fn refused(args: &[&str], needle: &str) -> String {
    let out = ply(args, b"");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let first = stderr.lines().next().unwrap_or_default().to_string();
    if first.starts_with("ply: ") {
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    assert!(
        first.contains(needle),
        "{args:?}: {stderr:?} lacks {needle:?}"
    );
    assert!(!stderr.contains("os error"), "{args:?}: {stderr}");
    first
}

#[test]
fn byte_sizes_take_units() {
    for memory in ["1G", "512MiB", "1gib", "64M", "1073741824", "1.5G"] {
        let out = ply(&["solve", "euler:3x3", "--memory", memory, "--no-db"], b"");
        assert!(out.status.success(), "--memory {memory}: {out:?}");
    }
    refused(&["solve", "euler:3x3", "--memory", "12Q"], "--memory");
    refused(&["solve", "euler:3x3", "--memory", "1K"], "at least 1MiB");
    let dir = Scratch::new("one-voice-units");
    let db = dir.0.to_str().unwrap();
    let out = ply(
        &["analyze", "quixo:3x3", "--memory", "64MiB", "--db-dir", db],
        b"",
    );
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_database_directory_must_exist_except_for_save() {
    let dir = Scratch::new("one-voice-db-dir");
    let typo = dir.0.join("typo");
    let typo = typo.to_str().unwrap();
    // Named in one line, for every command that reads a database.
    refused(&["solve", "euler:3x3", "--db-dir", typo], typo);
    refused(&["db", "verify", "--db-dir", typo], typo);
    refused(&["db", "list", "--db-dir", typo], typo);
    refused(&["play", "euler:3x3", "--db-dir", typo], typo);
    // An empty directory is verified by saying it holds nothing.
    let empty = dir.0.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = ply(&["db", "verify", "--db-dir", empty.to_str().unwrap()], b"");
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("no databases in") && said.contains("nothing to verify"),
        "{said}"
    );
    // --save creates it, and says so.
    let out = ply(&["analyze", "euler:3x3", "--save", "--db-dir", typo], b"");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("created the database directory {typo}")),
        "{stderr}"
    );
    assert!(std::path::Path::new(typo).is_dir());
    // A file where a directory should be: named, not "File exists".
    let file = dir.0.join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let file = file.to_str().unwrap();
    let message = refused(&["analyze", "euler:3x3", "--save", "--db-dir", file], file);
    assert!(message.contains("is a file"), "{message}");
    refused(&["solve", "euler:3x3", "--db-dir", file], "is a file");
}

/// How much the player to move likes a move's outcome, from `--json`'s
/// move (whose value is for the player after it): greater is better.
fn liking(mv: &serde_json::Value) -> (u8, i64) {
    let r = mv["remoteness"].as_i64().unwrap_or(0);
    match mv["value"].as_str().unwrap() {
        "lose" => (3, -r),
        "tie" => (2, -r),
        "draw" => (1, 0),
        "win" => (0, r),
        other => panic!("value {other}"),
    }
}

#[test]
fn moves_are_listed_best_first_in_json_and_in_the_api() {
    let positions = [
        ("euler:3x3", "X../.../..."),
        ("tictactoe:3x3x3", "x../.o./..."),
        ("tictactoe:3x3x3", ".../.x./..."),
        ("quixo:3x3", ".../.../.../X"),
        ("dobutsu:C", ".l./.c./.C./.L./-/S"),
    ];
    let (addr, _) = common::server::start_with(1, 0, Limits::default());
    let mut client = Client::connect(addr).unwrap();
    let mut reordered = 0;
    for (game, position) in positions {
        let cli = json(&["solve", game, position, "--json", "--no-db"]);
        let answer = client.get(&solve_path(game, Some(position))).unwrap();
        assert_eq!(answer.status, 200, "{}", answer.body);
        let api: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        for listed in [&cli, &api] {
            let moves = listed["moves"].as_array().unwrap();
            assert!(moves.len() > 1, "{game} {position}");
            for pair in moves.windows(2) {
                assert!(
                    liking(&pair[0]) >= liking(&pair[1]),
                    "{game} {position}: {} before {}",
                    pair[0],
                    pair[1]
                );
            }
        }
        assert_eq!(cli["moves"], api["moves"], "{game} {position}");
        // The order is not the game's own order of moves.
        let mut names: Vec<&str> = cli["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap())
            .collect();
        let listed = names.clone();
        names.sort();
        reordered += usize::from(names != listed);
    }
    assert!(
        reordered > 0,
        "every position's best moves came in name order"
    );
}

#[test]
fn the_api_speaks_in_its_own_words_and_a_missing_database_is_503() {
    let (addr, _) = common::server::start_with(1, 0, Limits::default());
    let mut client = Client::connect(addr).unwrap();
    let answer = client.get("/api/solve").unwrap();
    assert_eq!(answer.status, 400);
    let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("no game given") && error.contains("/api/games"),
        "{error}"
    );
    assert!(!error.to_lowercase().contains("deserialize"), "{error}");
    // No database of the full Dobutsu: the server's state, not the asker's fault.
    let answer = client.get(&solve_path("dobutsu", None)).unwrap();
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(
        answer.body.contains("ply analyze dobutsu --save"),
        "{}",
        answer.body
    );
    // A game too large for the server's limits names a command that works:
    // the build of its database, not a solve that refuses.
    let small = Limits {
        max_table_mib: 1,
        ..Limits::default()
    };
    let (addr, _) = common::server::start_with(1, 0, small);
    let mut client = Client::connect(addr).unwrap();
    let answer = client.get(&solve_path("quixo:4x4", None)).unwrap();
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(
        answer.body.contains("`ply analyze quixo:4x4 --save`"),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("ply solve"), "{}", answer.body);
}

#[test]
fn a_long_solve_without_a_database_refuses_and_names_analyze_save() {
    let dir = Scratch::new("one-voice-long");
    let db = dir.0.to_str().unwrap();
    for game in ["quixo:4x4", "teeko", "morris:5", "euler:5x6"] {
        let message = refused(&["solve", game, "--db-dir", db], "--no-db");
        assert!(
            message.contains(&format!("`ply analyze {game} --save`")),
            "{message}"
        );
    }
    // A quick one still answers at once.
    let out = ply(&["solve", "morris:3", "--db-dir", db], b"");
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn help_and_docs_agree_with_the_program() {
    let help = |args: &[&str]| {
        let out = ply(args, b"");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let judge = help(&["judge", "--help"]);
    assert!(!judge.contains("see `ply judge --help`"), "{judge}");
    assert!(judge.contains("uva10536"), "{judge}");
    let export = help(&["export", "--help"]);
    assert!(export.contains("symmetry class"), "{export}");
    // Every example position `ply games` gives is a position of the
    // game's default variant.
    let games = help(&["games"]);
    let mut examples = 0;
    let mut name = "";
    for line in games.lines() {
        if !line.starts_with(' ') {
            name = line.split_whitespace().next().unwrap();
        }
        let Some((_, rest)) = line.split_once("positions like ") else {
            continue;
        };
        let example = rest
            .split(|c: char| c.is_whitespace() || c == ';' || c == ')')
            .next()
            .unwrap();
        let session = ply::registry::open(name).unwrap();
        session
            .check_position(example)
            .unwrap_or_else(|e| panic!("{name}: example {example}: {e}"));
        examples += 1;
    }
    assert!(examples >= 5, "{games}");
    // docs/python.md lists every game, in the order ply.games() gives.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/python.md"))
        .unwrap();
    let names: Vec<String> = ply::registry::entries()
        .map(|e| format!("'{}'", e.name))
        .collect();
    let listed = format!("[{}]", names.join(", "));
    assert!(doc.contains(&listed), "docs/python.md lacks {listed}");
}

/// Each move's value and remoteness as a table prints them, by move name:
/// the rows after the heading line that contains `heading`, each `NAME
/// VALUE [in N]` (a leading `+`, `=` or `-` mark skipped), up to a line
/// that is not a move.
fn table_values(text: &str, heading: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut lines = text.lines().skip_while(|l| !l.contains(heading));
    assert!(lines.next().is_some(), "no heading {heading:?} in\n{text}");
    for line in lines {
        let words: Vec<&str> = line
            .split_whitespace()
            .skip_while(|w| ["+", "=", "-"].contains(w))
            .collect();
        let value = match words.as_slice() {
            [name, value @ ("win" | "lose" | "tie"), "in", r, ..] => {
                (name, format!("{value} in {r}"))
            }
            [name, "draw", ..] => (name, "draw".to_string()),
            _ => break,
        };
        rows.push((value.0.to_string(), value.1));
    }
    rows
}

/// `value in r` (or `draw`) as the tables write a JSON value and remoteness.
fn written(value: &serde_json::Value, remoteness: &serde_json::Value) -> String {
    match remoteness.as_u64() {
        Some(r) => format!("{} in {r}", value.as_str().unwrap()),
        None => value.as_str().unwrap().to_string(),
    }
}

#[test]
fn every_output_gives_a_moves_value_for_the_player_making_it() {
    // Positions where the mover's and the next player's values differ.
    let positions = [
        ("euler:4x4", "XXXX/XXXX/XXXX/XX.."),
        ("euler:3x3", "X../.../..."),
        ("tictactoe:3x3x3", "xo./.x./..o"),
        ("lgame", ".***/#*.x/###./x..."),
    ];
    let (addr, _) = common::server::start_with(1, 0, Limits::default());
    let mut client = Client::connect(addr).unwrap();
    let mut wins = 0;
    for (game, position) in positions {
        let cli = json(&["solve", game, position, "--json", "--no-db"]);
        let mut expected: Vec<(String, String)> = Vec::new();
        for mv in cli["moves"].as_array().unwrap() {
            let mover = written(&mv["mover_value"], &mv["mover_remoteness"]);
            // The contract's fields stay the next player's: the mover's
            // value flipped, one ply nearer the end.
            let flipped = match mv["value"].as_str().unwrap() {
                "win" => "lose",
                "lose" => "win",
                other => other,
            };
            let next = mv["remoteness"].as_u64().map(|r| r + 1);
            assert_eq!(
                mover,
                written(&flipped.into(), &next.into()),
                "{game} {position}: {mv}"
            );
            wins += usize::from(mv["mover_value"] == "win");
            expected.push((mv["move"].as_str().unwrap().to_string(), mover));
        }
        expected.sort();
        let sorted = |mut rows: Vec<(String, String)>| {
            rows.sort();
            rows
        };
        // ply solve's text.
        let out = ply(&["solve", game, position, "--no-db"], b"");
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains("next player"), "{text}");
        let solve = sorted(table_values(&text, "for the player making it"));
        assert_eq!(solve, expected, "ply solve {game} {position}:\n{text}");
        // ply play's `?`.
        let out = ply(&["play", game, position, "--seed", "1"], b"?\nq\n");
        let text = String::from_utf8(out.stdout).unwrap();
        let play = sorted(table_values(&text, "for the player making it"));
        assert_eq!(play, expected, "ply play {game} {position}:\n{text}");
        // The page's /api/board.
        let path = solve_path(game, Some(position)).replacen("/api/solve", "/api/board", 1);
        let answer = client.get(&path).unwrap();
        assert_eq!(answer.status, 200, "{}", answer.body);
        let board: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        let page = sorted(
            board["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["move"].as_str().unwrap().to_string(),
                        written(&m["value"], &m["remoteness"]),
                    )
                })
                .collect(),
        );
        assert_eq!(page, expected, "/api/board {game} {position}");
    }
    assert!(
        wins > 0,
        "no position had a winning move to tell the sides apart"
    );
}

/// The first `count` lines `ply ARGS` writes on a piped stderr; the
/// command is then stopped.
fn first_stderr_lines(args: &[&str], count: usize) -> Vec<String> {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ply runs");
    let stderr = std::io::BufReader::new(child.stderr.take().expect("stderr is piped"));
    let lines: Vec<String> = stderr.lines().take(count).map(Result::unwrap).collect();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(lines.len(), count, "{args:?}: {lines:?}");
    lines
}

#[test]
fn progress_off_a_terminal_is_a_line_then_one_per_tier_or_per_10_s() {
    // A search of unknown size (alpha-beta, over a minute): a line after
    // the quiet start, then another ten seconds on, not a single one.
    let lines = first_stderr_lines(&["solve", "tictactoe:5x5x4"], 2);
    assert!(
        lines[0].starts_with("ply: solving tictactoe:5x5x4")
            && lines[0].contains("still working after 1 s"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("ply: solving tictactoe:5x5x4")
            && lines[1].contains("still working after")
            && lines[1] != lines[0],
        "{lines:?}"
    );
    // A tier by tier build: a line per tier (and how far it is when ten
    // seconds pass without one), no bar drawn.
    let dir = Scratch::new("one-voice-progress");
    let db = dir.0.to_str().unwrap();
    let lines = first_stderr_lines(&["analyze", "quixo:4x4", "--db-dir", db], 3);
    for line in &lines {
        let status = line.starts_with("ply: ") && line.contains(" of ") && line.contains(" after ");
        assert!(status || line.starts_with("tier "), "{lines:?}");
        assert!(!line.contains('\r') && !line.contains("eta"), "{lines:?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("tier ")), "{lines:?}");
}

#[test]
fn export_says_what_a_row_is_and_the_docs_count_right() {
    let dir = Scratch::new("one-voice-export");
    let file = dir.0.join("t.csv");
    let out = ply(
        &[
            "export",
            "tictactoe:3x3x3",
            "--format",
            "csv",
            "--no-moves",
            "--out",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{out:?}");
    let rows = std::fs::read_to_string(&file).unwrap().lines().count() - 1;
    let positions = json(&["analyze", "tictactoe:3x3x3", "--json"])["positions"]
        .as_u64()
        .unwrap();
    assert!(
        rows < positions as usize,
        "{rows} rows, {positions} positions"
    );
    // The README, docs/python.md and export --help give those numbers.
    let said = format!(
        "{rows} rows for `tictactoe:3x3x3`, whose {} positions",
        grouped(positions)
    );
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    for doc in ["README.md", "docs/python.md"] {
        let text = std::fs::read_to_string(format!("{root}/{doc}")).unwrap();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(&said), "{doc} lacks {said:?}");
    }
    let out = ply(&["export", "--help"], b"");
    let help = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains(&format!(
            "writes {rows} rows where `ply analyze` counts {} positions",
            grouped(positions)
        )),
        "{help}"
    );
}

/// `n` with commas between groups of three digits, as the docs write it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The value and remoteness of `position` by plain negamax over the rules:
/// the fastest win, the slowest loss, a tie's plies to the full board.
fn negamax(
    game: &ply_games::connect4::ConnectFour,
    position: &ply_games::connect4::C4Position,
) -> ply_core::Outcome {
    use ply_core::{Game, Outcome, Value};
    if let Some(value) = game.primitive(position) {
        return match value {
            Value::Lose => Outcome::lose(0),
            _ => Outcome::tie(0),
        };
    }
    let mut best: Option<Outcome> = None;
    game.for_each_move(position, |_, child| {
        let theirs = negamax(game, &child);
        let remoteness = theirs.remoteness.unwrap() + 1;
        let mine = match theirs.value {
            Value::Lose => Outcome::win(remoteness),
            Value::Win => Outcome::lose(remoteness),
            _ => Outcome::tie(remoteness),
        };
        let rank = |o: &Outcome| match o.value {
            Value::Win => (2, -i64::from(o.remoteness.unwrap())),
            Value::Tie => (1, 0),
            _ => (0, i64::from(o.remoteness.unwrap())),
        };
        if best.is_none_or(|b| rank(&mine) > rank(&b)) {
            best = Some(mine);
        }
    });
    best.unwrap()
}

#[test]
fn connect_four_7x6_is_searched_without_a_database() {
    use ply_core::Game;
    // The search needs no database: an empty directory is no reason to
    // refuse (it once was, as if the 7x6 tiers had to be built first).
    let dir = Scratch::new("one-voice-connect4");
    let db = dir.0.to_str().unwrap();
    let game = ply_games::connect4::ConnectFour::default();
    // The first line of 33 discs, depth first, with no game over on the
    // way, each ply trying the columns from a different one.
    fn extend(
        game: &ply_games::connect4::ConnectFour,
        line: &mut Vec<(String, ply_games::connect4::C4Position)>,
    ) -> bool {
        let (text, position) = line.last().unwrap().clone();
        if position.discs() == 33 {
            return true;
        }
        let mut children = Vec::new();
        game.for_each_move(&position, |mv, child| children.push((mv, child)));
        let turn = (position.discs() as usize * 3) % 7;
        children.sort_by_key(|&(mv, _)| (usize::from(mv) + 7 - turn) % 7);
        for (mv, child) in children {
            if game.primitive(&child).is_none() {
                line.push((text.clone() + &game.format_move(&position, mv), child));
                if extend(game, line) {
                    return true;
                }
                line.pop();
            }
        }
        false
    }
    let mut line = vec![(String::new(), game.start())];
    assert!(extend(&game, &mut line), "no 33-disc line");
    let (text, position) = line.pop().unwrap();
    let out = ply(&["solve", "connect4", &text, "--json", "--db-dir", db], b"");
    assert!(out.status.success(), "{text}: {out:?}");
    let report = json_of(&out);
    let expected = negamax(&game, &position);
    assert_eq!(
        report["value"].as_str().unwrap(),
        expected.value.to_string(),
        "{text}"
    );
    assert_eq!(
        report["remoteness"].as_u64().map(|r| r as u32),
        expected.remoteness,
        "{text}"
    );
}
