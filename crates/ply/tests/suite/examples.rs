//! The examples under `examples/` (games written outside ply's own games,
//! run through `ply::run`): every position's value and remoteness from
//! `solve` on stdin against an independent brute force, and whole games
//! played from a script on stdin.

use crate::common;

use serde_json::Value as Json;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Once;

/// The built example `name`, built now (a test run filtered to this test
/// does not build the examples, or may find them stale). Built for the
/// whole workspace, as `cargo test --workspace` resolves features: `-p ply`
/// alone turns off features ply-py's dependencies turn on (syn's for
/// pyo3's macros, num-traits' defaults for numpy), so it compiled serde,
/// clap, parquet, ply and the rest again after the test build.
fn example(name: &str) -> PathBuf {
    static BUILD: Once = Once::new();
    let profile = std::env::current_exe()
        .expect("the test knows its path")
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/PROFILE/deps")
        .to_path_buf();
    let release = profile.ends_with("release");
    BUILD.call_once(|| {
        let mode = if release { "--release" } else { "--quiet" };
        let status = Command::new(env!("CARGO"))
            .args(["build", mode, "--workspace", "--examples"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "the examples build");
    });
    profile.join("examples").join(name)
}

fn run(name: &str, args: &[&str], stdin: &str) -> Output {
    let mut command = Command::new(example(name));
    command.args(args).env(
        "PLY_DB_DIR",
        std::env::temp_dir().join("ply-examples-test-no-db"),
    );
    common::cli::run(command, stdin.as_bytes())
}

/// `solve GAME -` with `position` on stdin, as JSON.
fn solve(name: &str, game: &str, position: &str) -> Json {
    common::cli::json_of(&run(
        name,
        &["solve", game, "-", "--json", "--no-db"],
        position,
    ))
}

/// Value and remoteness, by rounds: a position is lost in `r` once every
/// move leads to a win in less than `r`, won in `r` once some move leads to
/// a loss in `r - 1`; what is never decided is a draw.
fn brute_force<P: Clone + Eq + std::hash::Hash>(
    positions: &[P],
    moves: impl Fn(&P) -> Vec<P>,
) -> HashMap<P, (&'static str, Option<u64>)> {
    let mut known: HashMap<P, (&'static str, u64)> = HashMap::new();
    for round in 0..=positions.len() as u64 * 2 + 2 {
        let mut found = Vec::new();
        for p in positions.iter().filter(|p| !known.contains_key(*p)) {
            let children = moves(p);
            let child = |c: &P| known.get(c).copied();
            if children
                .iter()
                .all(|c| child(c).is_some_and(|(v, r)| v == "win" && r < round))
            {
                found.push((p.clone(), ("lose", round)));
            } else if round > 0
                && children
                    .iter()
                    .any(|c| child(c) == Some(("lose", round - 1)))
            {
                found.push((p.clone(), ("win", round)));
            }
        }
        known.extend(found);
    }
    positions
        .iter()
        .map(|p| {
            let answer = known.get(p).map_or(("draw", None), |&(v, r)| (v, Some(r)));
            (p.clone(), answer)
        })
        .collect()
}

fn check(report: &Json, expected: (&str, Option<u64>)) {
    assert_eq!(report["value"].as_str(), Some(expected.0), "{report}");
    assert_eq!(report["remoteness"].as_u64(), expected.1, "{report}");
}

/// The lines `play` ends a game with.
fn results(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("result: ").map(str::to_owned))
        .collect()
}

fn pebble_moves(pile: u32, max: u32) -> Vec<u32> {
    let mut moves: Vec<u32> = [2, 3]
        .iter()
        .filter(|&&t| pile >= t)
        .map(|t| pile - t)
        .collect();
    if pile % 2 == 1 && pile + 2 <= max {
        moves.push(pile + 2);
    }
    moves
}

#[test]
fn pebbles_values_match_a_brute_force_with_draws() {
    let max = 12;
    let piles: Vec<u32> = (0..=max).collect();
    let truth = brute_force(&piles, |&p| pebble_moves(p, max));
    let values: Vec<&str> = piles.iter().map(|p| truth[p].0).collect();
    for kind in ["win", "lose", "draw"] {
        assert!(
            values.contains(&kind),
            "the test needs a {kind}: {values:?}"
        );
    }
    for pile in piles {
        let report = solve("pebbles", "pebbles:12", &pile.to_string());
        check(&report, truth[&pile]);
        for mv in report["moves"].as_array().expect("moves") {
            let child: u32 = mv["position"]
                .as_str()
                .and_then(|p| p.parse().ok())
                .expect("a pile");
            check(mv, truth[&child]);
        }
    }
}

#[test]
fn a_whole_game_of_pebbles_is_won_by_the_perfect_player() {
    // Nine pebbles is a win for the mover: the computer, moving first,
    // wins whatever legal moves the script offers (others are refused).
    let truth = brute_force(&(0..=12).collect::<Vec<u32>>(), |&p| pebble_moves(p, 12));
    assert_eq!(truth[&9].0, "win");
    let script = "put2\ntake3\ntake2\n".repeat(12);
    for seed in ["1", "2"] {
        let out = run(
            "pebbles",
            &["play", "pebbles:12", "9", "--second", "--seed", seed],
            &script,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            results(&out),
            ["the computer wins"],
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

fn nim_positions(start: &[u8]) -> Vec<Vec<u8>> {
    start.iter().fold(vec![Vec::new()], |prefixes, &max| {
        prefixes
            .iter()
            .flat_map(|p| {
                (0..=max).map(move |h| {
                    let mut next = p.clone();
                    next.push(h);
                    next
                })
            })
            .collect()
    })
}

fn nim_moves(heaps: &[u8]) -> Vec<Vec<u8>> {
    let mut moves = Vec::new();
    for i in 0..heaps.len() {
        for left in 0..heaps[i] {
            let mut child = heaps.to_vec();
            child[i] = left;
            moves.push(child);
        }
    }
    moves
}

fn text(heaps: &[u8]) -> String {
    heaps
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn nim_values_match_a_brute_force_and_the_nim_sum() {
    let start = [1, 2, 3];
    let positions = nim_positions(&start);
    let truth = brute_force(&positions, |h| nim_moves(h));
    for heaps in &positions {
        let (value, _) = truth[heaps];
        // Bouton: the mover loses exactly when the heaps XOR to zero.
        let xor = heaps.iter().fold(0, |x, h| x ^ h);
        assert_eq!(value == "lose", xor == 0, "{heaps:?}");
        let report = solve("nim", "nim:1,2,3", &text(heaps));
        check(&report, truth[heaps]);
    }
}

#[test]
fn a_whole_game_of_nim_is_lost_from_a_zero_nim_sum() {
    // 1,2,3 XORs to zero: the person moving first loses against perfect
    // play. Taking one from the first non-empty heap is always legal among
    // these lines, so the script plays to the end.
    let script = "a1\nb1\nc1\n".repeat(6);
    for seed in ["1", "2", "3"] {
        let out = run("nim", &["play", "nim:1,2,3", "--seed", seed], &script);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(results(&out), ["the computer wins"], "{stdout}");
        assert!(stdout.contains("computer plays "), "{stdout}");
    }
}

#[test]
fn the_examples_list_their_game_and_refuse_bad_input() {
    let out = run("nim", &["games"], "");
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.lines().any(|l| l.starts_with("nim ")), "{listed}");
    assert!(listed.lines().any(|l| l.starts_with("euler ")), "{listed}");
    let out = run("nim", &["solve", "nim:1,2,3", "1,2,9"], "");
    assert_eq!(out.status.code(), Some(2));
    let out = run("pebbles", &["solve", "pebbles:x"], "");
    assert_eq!(out.status.code(), Some(2));
}

/// `serve` through the entry point lists the added game beside the
/// built-in ones in `/api/games`, so the page offers it.
#[test]
fn serve_lists_the_added_game() {
    use std::io::{BufRead, BufReader, Read};
    let mut child = Command::new(example("nim"))
        .args(["serve", "--addr", "127.0.0.1:0", "--no-db"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example serves");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .expect("the server says where it listens");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let mut stream = std::net::TcpStream::connect(&addr).expect("the server accepts");
    write!(
        stream,
        "GET /api/games HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("the request is sent");
    let mut reply = String::new();
    stream
        .read_to_string(&mut reply)
        .expect("the server replies");
    let _ = child.kill();
    let _ = child.wait();
    let body = reply.split("\r\n\r\n").nth(1).unwrap_or_default();
    let list: Json = serde_json::from_str(body.trim())
        .or_else(|_| {
            // A chunked reply: the JSON sits between the chunk sizes.
            let start = body.find('{').unwrap_or(0);
            let end = body.rfind('}').map_or(body.len(), |e| e + 1);
            serde_json::from_str(&body[start..end])
        })
        .unwrap_or_else(|e| panic!("{e}: {reply}"));
    let names: Vec<&str> = list["games"]
        .as_array()
        .expect("a games list")
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert!(names.contains(&"nim"), "{names:?}");
    assert!(names.contains(&"tictactoe"), "{names:?}");
}

/// Runs example `name` with `args` (an `analyze --json`), checking that it
/// succeeds; the report's values of `keys`, in order.
fn report_keys(name: &str, args: &[&str], keys: &[&str]) -> Json {
    let out = run(name, args, "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Json = serde_json::from_slice(&out.stdout).expect("analyze --json prints JSON");
    Json::Array(keys.iter().map(|&key| report[key].clone()).collect())
}

#[test]
fn pebbles_on_distributed_workers_counts_what_one_process_counts() {
    let counts = |args: &[&str]| -> Json {
        report_keys(
            "pebbles",
            args,
            &["positions", "win", "lose", "tie", "draw"],
        )
    };
    let whole = counts(&["analyze", "pebbles:40", "--json", "--no-db"]);
    let workers = counts(&[
        "analyze",
        "pebbles:40",
        "--workers",
        "2",
        "--json",
        "--no-db",
    ]);
    assert_eq!(whole, workers);
    assert_eq!(whole[0], 41);
    // Nim has no distributed opener, but its table is built tier by tier:
    // `--workers 2` runs that build on two threads, to the same counts.
    let nim = |args: &[&str]| -> Json {
        let keys = [
            "positions",
            "win",
            "lose",
            "tie",
            "draw",
            "by_remoteness",
            "workers",
        ];
        report_keys("nim", args, &keys)
    };
    let mut whole = nim(&["analyze", "nim", "--json", "--no-db"]);
    let workers = nim(&["analyze", "nim", "--workers", "2", "--json", "--no-db"]);
    whole[6] = Json::from(2);
    assert_eq!(whole, workers);
    // `--hosts` means the TCP addresses for every game: nim, which the
    // distributed solver does not take, builds its table as a team at
    // those addresses, into the database directory (so --save is needed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let scratch = std::env::temp_dir().join(format!("ply-nim-team-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let hosts = scratch.join("hosts");
    std::fs::write(&hosts, format!("127.0.0.1:{port}\n")).expect("hosts file");
    let hosts_arg = hosts.to_str().expect("a UTF-8 path");
    let db_dir = scratch.to_str().expect("a UTF-8 path");
    let team = [
        "analyze",
        "nim",
        "--workers",
        "2",
        "--processes",
        "1",
        "--process",
        "0",
        "--hosts",
        hosts_arg,
    ];
    let unsaved = run("nim", &team, "");
    assert_eq!(unsaved.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unsaved.stderr).contains("give --save"),
        "{}",
        String::from_utf8_lossy(&unsaved.stderr)
    );
    let mut saved_args = team.to_vec();
    saved_args.extend(["--save", "--db-dir", db_dir, "--json"]);
    let saved = nim(&saved_args);
    let _ = std::fs::remove_dir_all(&scratch);
    assert_eq!(saved, workers);
}
