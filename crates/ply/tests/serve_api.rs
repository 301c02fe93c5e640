//! `ply serve`'s API on an ephemeral loopback port: the games list, the same
//! JSON as `ply solve --json`, errors as HTTP 400 with a JSON message, the
//! page served from the binary, and many requests at once.

mod common;

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
