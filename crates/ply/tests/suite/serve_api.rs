//! `ply serve`'s API on an ephemeral loopback port: the games list, the same
//! JSON as `ply solve --json`, the board descriptions the page plays from,
//! errors as HTTP 400 with a JSON message, the
//! page served from the binary, and many requests at once.

use crate::common;

use common::http::{Client, solve_path};
use ply::serve::DEFAULT_CACHE_BYTES;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::SocketAddr;
use std::process::Command;
use std::sync::OnceLock;

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| common::server::start(2, DEFAULT_CACHE_BYTES))
}

fn client() -> Client {
    Client::connect(server()).unwrap()
}

/// What the command line prints for the same query: stdout, stderr, status.
fn cli_solve(game: &str, position: Option<&str>) -> (String, String, i32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ply"));
    command.args(["solve", game]);
    command.args(position);
    command.arg("--json");
    let out = command.output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// A random Euler board with at least one square uncovered.
fn random_board(rng: &mut StdRng, rows: usize, cols: usize) -> String {
    let mut rows_text = Vec::new();
    for _ in 0..rows {
        rows_text.push(
            (0..cols)
                .map(|_| if rng.random_bool(0.5) { 'X' } else { '.' })
                .collect::<String>(),
        );
    }
    rows_text.join("/")
}

#[test]
fn the_games_list_names_every_game_with_its_start() {
    let answer = client().get("/api/games").unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/json");
    let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    let games = json["games"].as_array().unwrap();
    assert_eq!(games.len(), ply::registry::GAMES.len());
    for (game, entry) in games.iter().zip(ply::registry::GAMES) {
        assert_eq!(game["name"], entry.name);
        assert_eq!(game["summary"], entry.summary);
        assert_eq!(game["variants"], entry.variants);
        let session = ply::registry::open(entry.name).unwrap();
        assert_eq!(game["game"], session.name());
        assert_eq!(game["start"], session.start());
    }
}

#[test]
fn solve_answers_exactly_what_ply_solve_json_prints() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut queries: Vec<(String, Option<String>)> = vec![
        ("euler".into(), None),
        ("euler:3x3".into(), None),
        ("euler".into(), Some("XXXX/XXXX/XXXX/XXXX".into())),
    ];
    for _ in 0..12 {
        queries.push(("euler".into(), Some(random_board(&mut rng, 4, 4))));
        queries.push(("euler:3x4x2".into(), Some(random_board(&mut rng, 3, 4))));
    }
    let mut client = client();
    for (game, position) in queries {
        let answer = client.get(&solve_path(&game, position.as_deref())).unwrap();
        let (stdout, _, code) = cli_solve(&game, position.as_deref());
        assert_eq!(code, 0);
        assert_eq!(answer.status, 200, "{game} {position:?}: {}", answer.body);
        assert_eq!(answer.content_type, "application/json");
        assert_eq!(answer.body, stdout.trim_end(), "{game} {position:?}");
        // A second time comes from the cache, and must not differ.
        let again = client.get(&solve_path(&game, position.as_deref())).unwrap();
        assert_eq!(again.body, answer.body);
    }
}

#[test]
fn malformed_queries_get_400_with_the_same_message_as_the_command() {
    let mut client = client();
    for (game, position) in [
        ("chess", None),
        ("euler:9x9", None),
        ("euler", Some("XXX./XXX.")),
        ("euler", Some("XXX./XXX./.XXX/.XXO")),
    ] {
        let answer = client.get(&solve_path(game, position)).unwrap();
        assert_eq!(answer.status, 400, "{game} {position:?}");
        assert_eq!(answer.content_type, "application/json");
        let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        let (_, stderr, code) = cli_solve(game, position);
        assert_eq!(code, 2);
        assert_eq!(
            format!("ply: {}\n", json["error"].as_str().unwrap()),
            stderr,
            "{game} {position:?}"
        );
    }
    for path in [
        "/api/solve",
        "/api/solve?position=....",
        &format!("/api/solve?game=euler&position={}", "X".repeat(5000)),
        &format!("/api/solve?game={}", "e".repeat(100)),
    ] {
        let answer = client.get(path).unwrap();
        assert_eq!(answer.status, 400, "{}", &path[..path.len().min(60)]);
        let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert!(json["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    let answer = client.get("/no/such/page").unwrap();
    assert_eq!(answer.status, 404);
    assert!(answer.body.contains("no such page"));
}

#[test]
fn request_bodies_are_limited() {
    let mut client = client();
    let answer = client
        .request("POST", "/api/solve", &vec![b'x'; 64 << 10])
        .unwrap();
    assert_eq!(answer.status, 413);
}

#[test]
fn the_page_is_served_from_the_binary_with_nothing_from_outside() {
    let mut client = client();
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/api.js", "text/javascript"),
        ("/board.js", "text/javascript"),
        ("/chart.js", "text/javascript"),
        ("/svg.js", "text/javascript"),
        ("/style.css", "text/css"),
    ] {
        let answer = client.get(path).unwrap();
        assert_eq!(answer.status, 200, "{path}");
        assert!(
            answer.content_type.starts_with(kind),
            "{path}: {}",
            answer.content_type
        );
        assert!(
            !answer.body.contains("https://"),
            "{path} loads something from outside"
        );
        assert!(
            !answer.body.contains("//cdn"),
            "{path} loads something from a CDN"
        );
    }
    let page = client.get("/").unwrap().body;
    for id in [
        "board", "chart", "moves", "undo", "redo", "computer", "position", "game",
    ] {
        assert!(
            page.contains(&format!("id=\"{id}\"")),
            "the page has no #{id}"
        );
    }
}

#[test]
fn many_requests_at_once_get_the_same_answers() {
    let positions: Vec<String> = {
        let mut rng = StdRng::seed_from_u64(11);
        (0..8).map(|_| random_board(&mut rng, 4, 4)).collect()
    };
    let expected: Vec<String> = positions
        .iter()
        .map(|p| cli_solve("euler", Some(p)).0.trim_end().to_string())
        .collect();
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let positions = positions.clone();
            let expected = expected.clone();
            std::thread::spawn(move || {
                let mut client = client();
                for round in 0..20 {
                    let i = (t + round) % positions.len();
                    let answer = client
                        .get(&solve_path("euler", Some(&positions[i])))
                        .unwrap();
                    assert_eq!(answer.status, 200);
                    assert_eq!(answer.body, expected[i]);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

/// The answer of `/api/board` for a position.
fn board(client: &mut Client, game: &str, position: Option<&str>) -> serde_json::Value {
    let path = solve_path(game, position).replacen("/api/solve", "/api/board", 1);
    let answer = client.get(&path).unwrap();
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    assert_eq!(answer.content_type, "application/json");
    serde_json::from_str(&answer.body).unwrap()
}

/// For each cell of a board answer, its id and what stands on it.
fn cells(view: &serde_json::Value) -> Vec<(String, String)> {
    view["board"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["pieces"].to_string(),
            )
        })
        .collect()
}

/// How good a value and remoteness are for whoever has them, greater better.
fn preference(value: &str, remoteness: Option<u64>) -> (u8, i64) {
    let r = remoteness.map_or(0, |r| r as i64);
    match value {
        "win" => (3, -r),
        "tie" => (2, -r),
        "draw" => (1, 0),
        _ => (0, r),
    }
}

#[test]
fn board_answers_the_solve_and_every_move_with_its_clicks_value_and_rank() {
    let mut client = client();
    for game in [
        "euler:3x3",
        "tictactoe:3x3x3",
        "treblecross:7",
        "lgame",
        "dobutsu:C",
    ] {
        let view = board(&mut client, game, None);
        let (stdout, _, code) = cli_solve(game, None);
        assert_eq!(code, 0);
        let solved: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(view["solve"], solved, "{game}: the solve is ply solve's");
        let tone = match solved["value"].as_str().unwrap() {
            "draw" => "tie",
            v => v,
        };
        assert_eq!(view["tone"], tone);
        let moves = view["moves"].as_array().unwrap();
        let listed = solved["moves"].as_array().unwrap();
        assert_eq!(moves.len(), listed.len(), "{game}");
        let targets: Vec<String> = cells(&view)
            .into_iter()
            .map(|(id, _)| id)
            .chain(
                view["board"]["areas"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|a| {
                        a["pieces"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|p| p["id"].as_str().unwrap().to_string())
                    }),
            )
            .collect();
        let mut seen_clicks = Vec::new();
        let mut rank = 0;
        let mut last: Option<(u8, i64)> = None;
        for mv in moves {
            let name = mv["move"].as_str().unwrap();
            let cli = listed.iter().find(|m| m["move"] == name).unwrap();
            // The value for the player making the move: the child's, flipped.
            let value = match cli["value"].as_str().unwrap() {
                "win" => "lose",
                "lose" => "win",
                v => v,
            };
            let remoteness = cli["remoteness"].as_u64().map(|r| r + 1);
            assert_eq!(mv["value"], value, "{game} {name}");
            assert_eq!(mv["remoteness"].as_u64(), remoteness, "{game} {name}");
            assert_eq!(mv["position"], cli["position"], "{game} {name}");
            // Best first, equal moves sharing a rank.
            let pref = preference(value, remoteness);
            if let Some(previous) = last {
                assert!(pref <= previous, "{game}: {name} listed after a worse move");
                if pref < previous {
                    rank += 1;
                }
            }
            last = Some(pref);
            assert_eq!(mv["rank"], rank, "{game} {name}");
            // Clicks name targets on the board, and no two moves share them.
            let clicks: Vec<Vec<String>> = serde_json::from_value(mv["clicks"].clone()).unwrap();
            assert!(!clicks.is_empty(), "{game} {name} has no clicks");
            for target in clicks.iter().flatten() {
                assert!(
                    targets.contains(target),
                    "{game} {name}: no target {target}"
                );
            }
            let mut key: Vec<Vec<String>> = clicks.clone();
            key.iter_mut().for_each(|step| step.sort());
            assert!(
                !seen_clicks.contains(&key),
                "{game}: two moves click {key:?}"
            );
            seen_clicks.push(key);
        }
    }
}

#[test]
fn a_move_clicks_the_cells_it_changes() {
    let mut client = client();
    // Each move's clicked cells against the cells whose pieces differ in
    // the position it leads to: exactly those for a mark put down or a
    // piece moved or dropped; for a pin, its two ends among them.
    for (game, position, exact) in [
        ("tictactoe:3x3x3", Some("x.o/.x./..."), true),
        ("treblecross:7", Some("X.....X"), true),
        ("dobutsu:C", Some(".l./.c./.../.L./C/S"), true),
        ("euler:3x3", Some("X../.../..."), false),
    ] {
        let view = board(&mut client, game, position);
        let before = cells(&view);
        for mv in view["moves"].as_array().unwrap() {
            let child = board(&mut client, game, mv["position"].as_str());
            let changed: Vec<String> = before
                .iter()
                .zip(cells(&child))
                .filter(|(a, b)| a.1 != b.1)
                .map(|(a, _)| a.0.clone())
                .collect();
            let clicked: Vec<String> =
                serde_json::from_value::<Vec<Vec<String>>>(mv["clicks"].clone())
                    .unwrap()
                    .into_iter()
                    .flatten()
                    .filter(|t| before.iter().any(|(id, _)| id == t))
                    .collect();
            let name = &mv["move"];
            assert!(
                clicked.iter().all(|c| changed.contains(c)),
                "{game} {name}: clicks {clicked:?}, changes {changed:?}"
            );
            if exact {
                assert_eq!(
                    clicked.len(),
                    changed.len(),
                    "{game} {name}: clicks {clicked:?}, changes {changed:?}"
                );
            }
        }
    }
}

#[test]
fn a_move_on_a_5000_square_treblecross_row_is_answered_like_the_command() {
    let game = "treblecross:5000";
    let mut client = client();
    let start = board(&mut client, game, None);
    let row = start["solve"]["position"].as_str().unwrap();
    assert_eq!(row.len(), 5000);
    // The page plays a move by asking for the position it leads to: every
    // move it offers has one, the row with an X on the move's square.
    let offered = start["moves"].as_array().unwrap();
    assert!(!offered.is_empty());
    for mv in offered.iter().take(8) {
        let square: usize = mv["move"].as_str().unwrap().parse().unwrap();
        let next = mv["position"].as_str().unwrap();
        let mut expected = row.as_bytes().to_vec();
        expected[square - 1] = b'X';
        assert_eq!(next.as_bytes(), expected, "move {square}");
        let after = board(&mut client, game, Some(next));
        let mover = mv["value"].as_str().unwrap();
        let opponent = after["solve"]["value"].as_str().unwrap();
        assert_eq!((mover, opponent), ("win", "lose"), "move {square}");
    }
    // Moves far apart on the row, each one X: positions of 5,000 characters.
    for square in [0, 2499, 4999] {
        let mut row = vec![b'.'; 5000];
        row[square] = b'X';
        let position = String::from_utf8(row).unwrap();
        let answer = client.get(&solve_path(game, Some(&position))).unwrap();
        assert_eq!(answer.status, 200, "{}", answer.body);
        let (cli, err, code) = cli_solve(game, Some(&position));
        assert_eq!(code, 0, "{err}");
        assert_eq!(answer.body, cli.trim_end());
        let view = board(&mut client, game, Some(&position));
        assert_eq!(view["solve"]["position"].as_str(), Some(position.as_str()));
    }
}

#[test]
fn a_position_longer_than_max_row_is_refused_naming_the_limit() {
    let limits = ply::serve::limits::Limits {
        max_row: 100,
        ..Default::default()
    };
    let (addr, _) = common::server::start_with(1, DEFAULT_CACHE_BYTES, limits);
    let mut client = Client::connect(addr).unwrap();
    let answer = client
        .get(&solve_path("treblecross:200", Some(&".".repeat(101))))
        .unwrap();
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(
        answer.body.contains("at most 100 (its --max-row)"),
        "{}",
        answer.body
    );
    let answer = client
        .get(&solve_path("treblecross:100", Some(&".".repeat(100))))
        .unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
}
