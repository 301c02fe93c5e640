//! `ply serve` on Morris with only the moving phase stored
//! (`morris:N,moving`, as `morris` is for nine stones), under tight
//! limits: a placing position is answered by the bounded search over the
//! stored moving phase, exactly as `ply solve` answers it; a search
//! stopped at `--solve-seconds` is answered as pending (503, `"pending":
//! true`) and goes on where it stopped when asked again, until it answers;
//! where the directory also holds the whole game's database
//! (`morris:N`), placing positions are read from it; and where nothing
//! answers (nine stones, no database), a 503 names the command that
//! builds what is missing.

use crate::common;

use common::cli::{Scratch, json, ply};
use common::http::{Client, solve_path};
use common::server::Process;
use ply_core::Game;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::collections::BTreeSet;

/// The tight limits of the tests.
const TIGHT: [&str; 4] = ["--max-table-mib", "1", "--session-mib", "64"];

/// Distinct placing positions of `stones`-stone Morris (stones still in
/// hand), reached by random play from the start.
fn placing(stones: u8, n: usize, seed: u64) -> Vec<String> {
    let game = ply_games::Morris::new(stones);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut found = BTreeSet::new();
    for _ in 0..n * 20 {
        if found.len() == n {
            break;
        }
        let mut position = game.start();
        for _ in 0..rng.random_range(0..2 * u32::from(stones)) {
            let mut children = Vec::new();
            if game.primitive(&position).is_none() {
                game.for_each_move(&position, |_, child| children.push(child));
            }
            if children.is_empty() {
                break;
            }
            position = children.swap_remove(rng.random_range(0..children.len()));
        }
        let text = game.format_position(&position);
        if !text.contains("/0,0/") {
            found.insert(text);
        }
    }
    assert_eq!(found.len(), n, "placing positions of morris:{stones}");
    found.into_iter().collect()
}

/// The server's answer to `game` at `position`: its status and JSON body.
fn ask(client: &mut Client, game: &str, position: &str) -> (u16, serde_json::Value) {
    let answer = client.get(&solve_path(game, Some(position))).unwrap();
    (answer.status, serde_json::from_str(&answer.body).unwrap())
}

/// `ply solve GAME POSITION --json` from the database directory `db`.
fn cli(game: &str, position: &str, db: &str) -> serde_json::Value {
    json(&["solve", game, position, "--json", "--db-dir", db])
}

/// Its notes, as one string.
fn notes(body: &serde_json::Value) -> String {
    body["notes"].to_string()
}

fn analyze(game: &str, db: &str) {
    let out = ply(&["analyze", game, "--save", "--db-dir", db], b"");
    assert!(out.status.success(), "{game}: {out:?}");
}

#[test]
fn placing_positions_are_searched_within_limits_pending_then_answered_or_read_from_the_whole_game()
{
    let dir = Scratch::new("serve-placing");
    let db = dir.0.to_str().unwrap();
    analyze("morris:4,moving", db);
    analyze("morris:5,moving", db);

    // Searched over the stored moving phase, within the tight limits.
    let server = Process::start(&[&["--db-dir", db][..], &TIGHT].concat());
    let mut client = Client::connect(server.addr).unwrap();
    let game = "morris:4,moving";
    for position in placing(4, 24, 1) {
        let (status, api) = ask(&mut client, game, &position);
        assert_eq!(status, 200, "{position}: {api}");
        assert_eq!(api["source"], "database", "{position}");
        assert!(
            notes(&api).contains("alpha-beta search"),
            "{position}: {api}"
        );
        assert_eq!(api, cli(game, &position, db), "{position}");
    }
    drop(server);

    // Stopped at a time limit of 1 ms: pending, and asked again, the search
    // goes on from what it found until it answers.
    let server =
        Process::start(&[&["--db-dir", db, "--solve-seconds", "0.001"][..], &TIGHT].concat());
    let mut client = Client::connect(server.addr).unwrap();
    let game = "morris:5,moving";
    let start = ".../.../.../....../.../.../.../5,5/W";
    let mut pending = 0;
    let answer = loop {
        let (status, body) = ask(&mut client, game, start);
        if status == 200 {
            break body;
        }
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["pending"], true, "{body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains("still searching"), "{error}");
        assert!(
            error.contains(&format!("ply solve {game} '{start}'")),
            "{error}"
        );
        pending += 1;
        assert!(pending < 20_000, "still pending after {pending} requests");
    };
    eprintln!("answered after {pending} pending answers");
    assert!(pending > 0, "a search of the empty board within 1 ms");
    assert_eq!(answer, cli(game, start, db));
    drop(server);

    // With the whole game's database beside the moving phase, placing
    // positions are read from it: no search, so no time limit matters.
    analyze("morris:4", db);
    let server =
        Process::start(&[&["--db-dir", db, "--solve-seconds", "0.001"][..], &TIGHT].concat());
    let mut client = Client::connect(server.addr).unwrap();
    let game = "morris:4,moving";
    for position in placing(4, 24, 2) {
        let (status, api) = ask(&mut client, game, &position);
        assert_eq!(status, 200, "{position}: {api}");
        assert!(
            notes(&api).contains("read from the whole game's database (morris:4)"),
            "{position}: {api}"
        );
        assert_eq!(api, cli(game, &position, db), "{position}");
    }
    drop(server);

    // Nine stones with no database: listed as refused, and a placing
    // position gets a 503 naming the command that builds the moving phase.
    let empty = Scratch::new("serve-placing-empty");
    let server = Process::start(&[&["--db-dir", empty.0.to_str().unwrap()][..], &TIGHT].concat());
    let mut client = Client::connect(server.addr).unwrap();
    let games: serde_json::Value =
        serde_json::from_str(&client.get("/api/games").unwrap().body).unwrap();
    let morris = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "morris")
        .unwrap();
    assert_eq!(morris["answered"], "refused", "{morris}");
    assert!(
        morris["answered_how"]
            .as_str()
            .unwrap()
            .contains("ply analyze morris --save"),
        "{morris}"
    );
    for position in [".../.../.../....../.../.../.../9,9/W", &placing(9, 1, 3)[0]] {
        let (status, body) = ask(&mut client, "morris", position);
        assert_eq!(status, 503, "{position}: {body}");
        assert!(body.get("pending").is_none(), "{body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains("ply analyze morris --save"), "{error}");
    }
}
