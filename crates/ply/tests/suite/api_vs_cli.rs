//! `GET /api/solve` answers exactly what `ply solve --json` prints (notes
//! included) for every game, at the start and at positions reached by
//! playing from it, and for Treblecross rows longer than 256 squares.

use crate::common;

use common::http::{Client, solve_path};
use ply::serve::DEFAULT_CACHE_BYTES;
use ply::serve::limits::Limits;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Mutex;

/// `ply solve GAME [POSITION] --json`: its stdout, which must succeed.
/// Run once a query: the positions are found from the same output the
/// answer is compared with (each run solves the whole game again, seconds
/// for Teeko, Yehr, Morris and 4x4 tic-tac-toe).
fn cli_solve(game: &str, position: Option<&str>) -> String {
    type Key = (String, Option<String>);
    static RUNS: Mutex<BTreeMap<Key, String>> = Mutex::new(BTreeMap::new());
    let key = (game.to_string(), position.map(str::to_string));
    if let Some(stdout) = RUNS.lock().unwrap().get(&key) {
        return stdout.clone();
    }
    let stdout = run_cli_solve(game, position);
    RUNS.lock().unwrap().insert(key, stdout.clone());
    stdout
}

fn run_cli_solve(game: &str, position: Option<&str>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ply"));
    command.args(["solve", game]).args(position).arg("--json");
    let out = command.output().expect("ply runs");
    assert!(
        out.status.success(),
        "{game} {position:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Positions one and two moves from the start, as the command lists them
/// (first, middle and last move), at most `count`.
fn reached(game: &str, count: usize) -> Vec<String> {
    if count == 0 {
        return Vec::new();
    }
    let moves = |position: Option<&str>| -> Vec<String> {
        let report: serde_json::Value =
            serde_json::from_str(&cli_solve(game, position)).expect("JSON");
        let moves: Vec<String> = report["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .filter_map(|m| m["position"].as_str().map(str::to_string))
            .filter(|p| !p.is_empty())
            .collect();
        let picks = [0, moves.len() / 2, moves.len().saturating_sub(1)];
        let mut picked: Vec<String> = picks
            .iter()
            .filter_map(|&i| moves.get(i).cloned())
            .collect();
        picked.dedup();
        picked
    };
    let mut positions = moves(None);
    if let Some(first) = positions.first().cloned() {
        positions.extend(moves(Some(&first)));
    }
    positions.truncate(count);
    positions
}

#[test]
fn every_game_answers_the_same_over_http_and_on_the_command_line() {
    // The answers are compared, not the server's limits: a search limit
    // of 10 s (the default) was once reached building tictactoe's table on
    // a machine loaded by other tests.
    let limits = Limits {
        solve_seconds: 120.0,
        ..Limits::default()
    };
    let addr = common::server::start_with(2, DEFAULT_CACHE_BYTES, limits).0;
    let long_row = ".".repeat(300);
    let played_row = format!("{}X{}", ".".repeat(120), ".".repeat(179));
    let mut queries: Vec<(String, Option<String>)> = Vec::new();
    for (game, count) in [
        ("euler", 3),
        ("euler:3x4x2", 4),
        ("tictactoe", 3),
        ("tictactoe:3x3x3", 4),
        ("treblecross", 4),
        ("lgame", 3),
        ("yehr", 0),
        ("dobutsu:C", 4),
        ("quixo:3x3", 4),
        ("teeko:4x4", 3),
        ("morris:3", 3),
        ("morris:3,moving", 3),
        ("connect4:4x4", 3),
    ] {
        queries.push((game.into(), None));
        for position in reached(game, count) {
            queries.push((game.into(), Some(position)));
        }
    }
    queries.push(("treblecross:300".into(), None));
    queries.push(("treblecross:300".into(), Some(long_row)));
    queries.push(("treblecross:300".into(), Some(played_row)));
    let mut games = std::collections::BTreeSet::new();
    for (game, position) in &queries {
        // A fresh connection each time: an idle one is closed while the
        // command line solves (the server times out silent clients).
        let answer = Client::connect(addr)
            .and_then(|mut client| client.get(&solve_path(game, position.as_deref())))
            .expect("the server answers");
        assert_eq!(answer.status, 200, "{game} {position:?}: {}", answer.body);
        let stdout = cli_solve(game, position.as_deref());
        assert_eq!(answer.body, stdout.trim_end(), "{game} {position:?}");
        if game == "treblecross:300" {
            let json: serde_json::Value = serde_json::from_str(&answer.body).expect("JSON");
            let notes = json["notes"].as_array().map_or(0, Vec::len);
            assert!(
                notes >= 1,
                "{game}: a long row carries its notes: {}",
                answer.body
            );
        }
        games.insert(game.split(':').next().unwrap_or(game).to_string());
    }
    let every: std::collections::BTreeSet<String> = ply::registry::GAMES
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    assert_eq!(games, every, "every game is compared");
    assert!(queries.len() >= 25, "{} queries", queries.len());
}
