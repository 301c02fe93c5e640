//! `ply serve` answers games solved tier by tier from their stored shards,
//! however small its table limit: the saved databases of `morris:5` and
//! `quixo:4x4` served with `--max-table-mib 1` give, on many random
//! positions, what `ply solve` gives from the same directory, within
//! `--session-mib` plus the stated overhead. A shard removed from the
//! directory gets a 503 naming it for the positions that need it, and
//! every other position is still answered; so does a shard whose blocks
//! are damaged.

mod common;

use common::cli::{Scratch, json, json_of, ply};
use common::http::{Client, solve_path};
use common::server::Process;
use ply::serve::limits::OVERHEAD_MIB;
use ply::session::Session;
use ply::session::store::{self, Store};
use ply_core::{Game, NamedTiers};
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The games served, each from its saved database.
const GAMES: [&str; 2] = ["morris:5", "quixo:4x4"];
/// Random positions asked of each game.
const POSITIONS: usize = 2000;
/// The server's memory for open games, in MiB.
const SESSION_MIB: u64 = 64;

/// `n` positions reached by random play from the start (mostly distinct),
/// using `truth` to list the moves.
fn positions(truth: &dyn Session, n: usize, seed: u64) -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let mut position = truth.start();
            for _ in 0..rng.random_range(0..40) {
                let report = truth.solve(Some(&position)).unwrap();
                if report.moves.is_empty() {
                    break;
                }
                position = report.moves[rng.random_range(0..report.moves.len())]
                    .position
                    .clone();
            }
            position
        })
        .collect()
}

/// What `truth` says of `position`, as `ply solve --json` prints it
/// (moves best first), without the `source` and `notes` of the answer.
fn expected(truth: &dyn Session, position: &str) -> serde_json::Value {
    let mut report = truth.solve(Some(position)).unwrap();
    report.best_first();
    serde_json::to_value(report).unwrap()
}

/// The server's answer to `game` at `position`: its status and JSON body.
fn ask(client: &mut Client, game: &str, position: &str) -> (u16, serde_json::Value) {
    let answer = client.get(&solve_path(game, Some(position))).unwrap();
    (answer.status, serde_json::from_str(&answer.body).unwrap())
}

/// A field of `/proc/PID/status` in KiB (`VmHWM`).
fn status_kib(proc: &str, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("{proc}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {status}"))
}

/// Copies the files of `dir` whose names start with `prefix` into `to`.
fn copy_files(dir: &Path, prefix: &str, to: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(prefix) {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

#[test]
fn stored_tiers_are_served_under_a_tiny_table_limit_and_a_lost_shard_is_named() {
    let dir = Scratch::new("serve-tiers");
    let db = dir.0.to_str().unwrap();
    for game in GAMES {
        let out = ply(&["analyze", game, "--save", "--db-dir", db], b"");
        assert!(out.status.success(), "{game}: {out:?}");
    }
    store::configure(Store {
        dir: dir.0.clone(),
        read: true,
    });

    let session_mib = SESSION_MIB.to_string();
    let server = Process::start(&[
        "--db-dir",
        db,
        "--max-table-mib",
        "1",
        "--session-mib",
        &session_mib,
    ]);
    let mut client = Client::connect(server.addr).unwrap();

    // The server says how it answers each game: from these databases.
    let games = client.get("/api/games").unwrap();
    assert_eq!(games.status, 200, "{}", games.body);
    let games: serde_json::Value = serde_json::from_str(&games.body).unwrap();
    let listed = games["games"].as_array().unwrap();
    let quixo = listed.iter().find(|g| g["name"] == "quixo").unwrap();
    // The default quixo (5x5) has no database here: refused, saying what builds it.
    assert_eq!(quixo["answered"], "refused", "{quixo}");
    assert!(
        quixo["answered_how"]
            .as_str()
            .unwrap()
            .contains("ply analyze quixo --save"),
        "{quixo}"
    );

    let mut truths = BTreeMap::new();
    for (seed, game) in GAMES.into_iter().enumerate() {
        let truth = ply::registry::open(game).unwrap();
        assert!(
            matches!(truth.serving(), ply::session::Serving::Database { .. }),
            "{game}: {:?}",
            truth.serving()
        );
        let asked = positions(&*truth, POSITIONS, seed as u64);
        let distinct: HashSet<&String> = asked.iter().collect();
        assert!(distinct.len() > POSITIONS / 2, "{game}: {}", distinct.len());
        for position in &asked {
            let (status, mut body) = ask(&mut client, game, position);
            assert_eq!(status, 200, "{game} {position}: {body}");
            let source = body.as_object_mut().unwrap().remove("source");
            assert_eq!(source, Some("database".into()), "{game} {position}");
            body.as_object_mut().unwrap().remove("notes");
            assert_eq!(body, expected(&*truth, position), "{game} {position}");
        }
        // A few against the command itself, byte for byte as JSON.
        for position in asked.iter().step_by(POSITIONS / 8) {
            let cli = json(&["solve", game, position, "--json", "--db-dir", db]);
            let (status, api) = ask(&mut client, game, position);
            assert_eq!(status, 200);
            assert_eq!(api, cli, "{game} {position}");
        }
        truths.insert(game, (truth, asked));
    }
    let peak = status_kib(&server.proc(), "VmHWM");
    let limit = (SESSION_MIB + OVERHEAD_MIB) << 10;
    eprintln!("peak resident {peak} KiB; limit {limit} KiB");
    assert!(peak <= limit, "peak resident {peak} KiB over {limit} KiB");
    drop(server);

    // Morris with its most asked moving tier's shard removed.
    let (truth, asked) = &truths["morris:5"];
    let game = ply_games::Morris::new(5);
    let tier_of = |text: &str| {
        let position = game.parse_position(text).unwrap();
        game.tier_name(game.canonical_tier(game.tier_of(&position)))
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for position in asked {
        *counts.entry(tier_of(position)).or_default() += 1;
    }
    let (lost, _) = counts
        .iter()
        .filter(|(name, _)| name.starts_with('m'))
        .max_by_key(|(_, n)| **n)
        .unwrap();
    let partial = Scratch::new("serve-tiers-partial");
    copy_files(&dir.0, "morris-5.", &partial.0);
    let file = format!("morris-5.tier-{lost}.plydb");
    std::fs::remove_file(partial.0.join(&file)).unwrap();
    let server = Process::start(&[
        "--db-dir",
        partial.0.to_str().unwrap(),
        "--max-table-mib",
        "1",
    ]);
    let mut client = Client::connect(server.addr).unwrap();
    // Whether any position within `plies` moves of `text` is in the lost tier.
    fn near(game: &ply_games::Morris, text: &str, plies: u32, lost: &dyn Fn(&str) -> bool) -> bool {
        if lost(text) {
            return true;
        }
        let position = game.parse_position(text).unwrap();
        if plies == 0 || game.primitive(&position).is_some() {
            return false;
        }
        let mut children = Vec::new();
        game.for_each_move(&position, |_, child| children.push(child));
        children
            .iter()
            .any(|child| near(game, &game.format_position(child), plies - 1, lost))
    }
    let in_lost = |text: &str| tier_of(text) == *lost;
    let (mut named, mut answered) = (0, 0);
    for position in asked.iter().take(POSITIONS / 4) {
        let (status, mut body) = ask(&mut client, "morris:5", position);
        if status == 200 {
            assert!(!in_lost(position), "{position} is in the lost tier {lost}");
            body.as_object_mut().unwrap().remove("source");
            body.as_object_mut().unwrap().remove("notes");
            assert_eq!(body, expected(&**truth, position), "{position}");
            answered += 1;
        } else {
            assert_eq!(status, 503, "{position}: {body}");
            let error = body["error"].as_str().unwrap();
            assert!(error.contains(&file), "{position}: {error}");
            assert!(near(&game, position, 2, &in_lost), "{position}: {error}");
            named += 1;
        }
        // Positions far from the lost tier are always answered.
        if !near(&game, position, 2, &in_lost) {
            assert_eq!(status, 200, "{position}");
        }
    }
    assert!(
        named > 0 && answered > 0,
        "{named} named, {answered} answered"
    );
    drop(server);

    // The same shard damaged instead (bytes flipped in its blocks, its
    // header and block index sound): a position read from a damaged block
    // gets a 503 naming the shard and the command that builds it again;
    // the rest are answered.
    let damaged = Scratch::new("serve-tiers-damaged");
    copy_files(&dir.0, "morris-5.", &damaged.0);
    let shard = damaged.0.join(&file);
    let mut bytes = std::fs::read(&shard).unwrap();
    let len = bytes.len();
    for at in (len / 4..len / 2).step_by(257) {
        bytes[at] ^= 0xff;
    }
    std::fs::write(&shard, bytes).unwrap();
    let db = damaged.0.to_str().unwrap();
    let server = Process::start(&["--db-dir", db, "--max-table-mib", "1"]);
    let mut client = Client::connect(server.addr).unwrap();
    let (mut named, mut answered) = (0, 0);
    for position in asked.iter().take(POSITIONS / 4) {
        let (status, mut body) = ask(&mut client, "morris:5", position);
        if status == 200 {
            body.as_object_mut().unwrap().remove("source");
            body.as_object_mut().unwrap().remove("notes");
            assert_eq!(body, expected(&**truth, position), "{position}");
            answered += 1;
        } else {
            assert_eq!(status, 503, "{position}: {body}");
            let error = body["error"].as_str().unwrap();
            assert!(error.contains(&file), "{position}: {error}");
            assert!(error.contains("damaged"), "{position}: {error}");
            let command = format!("ply analyze morris:5 --save --db-dir {db}");
            assert!(error.contains(&command), "{position}: {error}");
            assert!(near(&game, position, 2, &in_lost), "{position}: {error}");
            named += 1;
        }
    }
    assert!(
        named > 0 && answered > 0,
        "damaged: {named} named, {answered} answered"
    );
}

/// Quixo 4x4's end tiers alone (`--end-tiers 1`, as Quixo 5x5's are
/// stored): under the tight limits, positions with at most one blank cube
/// are answered from them as `ply solve` answers them, and any other gets a
/// 503 naming its tier's missing shard and the command that builds it.
#[test]
fn end_tiers_alone_are_served_and_the_rest_named() {
    let dir = Scratch::new("serve-end-tiers");
    let db = dir.0.to_str().unwrap();
    let game = "quixo:4x4";
    let out = ply(
        &[
            "analyze",
            game,
            "--save",
            "--end-tiers",
            "1",
            "--db-dir",
            db,
        ],
        b"",
    );
    assert!(out.status.success(), "{out:?}");
    let server = Process::start(&[
        "--db-dir",
        db,
        "--max-table-mib",
        "1",
        "--session-mib",
        &SESSION_MIB.to_string(),
    ]);
    let mut client = Client::connect(server.addr).unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let (mut answered, mut named) = (0, 0);
    for _ in 0..200 {
        let blanks = rng.random_range(0..4);
        let mut cells: Vec<char> = (0..16)
            .map(|_| if rng.random_bool(0.5) { 'X' } else { 'O' })
            .collect();
        for _ in 0..blanks {
            cells[rng.random_range(0..16)] = '.';
        }
        let rows: Vec<String> = cells.chunks(4).map(|r| r.iter().collect()).collect();
        let mover = if rng.random_bool(0.5) { "X" } else { "O" };
        let position = format!("{}/{mover}", rows.join("/"));
        let held = cells.iter().filter(|&&c| c == '.').count() <= 1;
        let cli = ply(&["solve", game, &position, "--json", "--db-dir", db], b"");
        let (status, body) = ask(&mut client, game, &position);
        if held {
            assert_eq!(status, 200, "{position}: {body}");
            assert_eq!(body, json_of(&cli), "{position}");
            answered += 1;
        } else if status != 400 {
            assert_eq!(status, 503, "{position}: {body}");
            let error = body["error"].as_str().unwrap();
            assert!(error.contains("quixo-4x4.tier-"), "{position}: {error}");
            let command = format!("ply analyze {game} --save --db-dir {db}");
            assert!(error.contains(&command), "{position}: {error}");
            assert!(!cli.status.success(), "{position}");
            named += 1;
        }
    }
    assert!(
        answered > 20 && named > 20,
        "{answered} answered, {named} named"
    );
}

/// What `ply serve` prints as it starts and what `/api/games` says agree,
/// game by game: a game whose database is stored is answered from it (the
/// directory named), and one too large to solve without a database is
/// refused, naming the command that stores it.
#[test]
fn the_start_and_api_games_say_how_each_game_is_answered() {
    let dir = Scratch::new("serve-answered");
    let db = dir.0.to_str().unwrap();
    let out = ply(&["analyze", "euler", "--save", "--db-dir", db], b"");
    assert!(out.status.success(), "{out:?}");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db-dir", db])
        .args(["--max-table-mib", "1", "--session-mib", "64"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let first = lines.next().unwrap().unwrap();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    let mut client = Client::connect(addr).unwrap();
    let games: serde_json::Value =
        serde_json::from_str(&client.get("/api/games").unwrap().body).unwrap();
    let games = games["games"].as_array().unwrap();
    // One line a game, in the order of /api/games, saying what it says.
    let mut said = BTreeMap::new();
    for game in games {
        let line = lines.next().unwrap().unwrap();
        let expected = format!(
            "ply serve: {} ({}): {}",
            game["game"].as_str().unwrap(),
            game["answered"].as_str().unwrap(),
            game["answered_how"].as_str().unwrap()
        );
        assert_eq!(line, expected);
        said.insert(game["name"].as_str().unwrap().to_string(), game.clone());
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(said["euler"]["answered"], "database", "{}", said["euler"]);
    assert!(
        said["euler"]["answered_how"].as_str().unwrap().contains(db),
        "{}",
        said["euler"]
    );
    for (name, command) in [
        ("morris", "ply analyze morris --save"),
        ("dobutsu", "ply analyze dobutsu --save"),
        ("quixo", "ply analyze quixo --save"),
    ] {
        assert_eq!(said[name]["answered"], "refused", "{}", said[name]);
        let how = said[name]["answered_how"].as_str().unwrap();
        assert!(how.contains(command), "{name}: {how}");
    }
    // Yehr has no database here, and its table is larger than the 1 MiB
    // this server builds: refused, not built past --max-table-mib.
    assert_eq!(said["yehr"]["answered"], "refused", "{}", said["yehr"]);
    let how = said["yehr"]["answered_how"].as_str().unwrap();
    assert!(how.contains("ply analyze yehr --save"), "{how}");
    assert_eq!(said["lgame"]["answered"], "solving", "{}", said["lgame"]);
    // Connect Four on 7x6 is searched alone, with a table within the limit.
    assert_eq!(
        said["connect4"]["answered"], "solving",
        "{}",
        said["connect4"]
    );
}
