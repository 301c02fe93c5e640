//! Solved databases: answers equal a fresh solve, `ply solve --json` is the
//! same with and without a database but for `source`, and every kind of
//! damage is a clear error (exit 2) naming the file, never an answer.

use crate::common;

use common::cli::{ply, scratch_dir};
use ply::session::retro::RetroSession;
use ply::session::sparse::SparseSession;
use ply::session::table::TableSession;
use ply_core::db::{self, Database, Expect, Meta};
use ply_core::{Game, Indexed, NoProgress, Solution};
use ply_games::{Euler, LGame, TicTacToe, Yehr};
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A fresh empty directory under the system's temporary directory.
/// Saves `solution` of `game` to a file in `dir`, opens it, and checks
/// that it answers like `solution` at every key in `keys`.
fn round_trip<G: Game>(
    dir: &Path,
    game: &G,
    solution: &dyn Solution,
    keys: impl Iterator<Item = u64>,
) -> usize {
    let path = dir.join(db::file_name(&game.name()));
    let meta = Meta::whole(game, solution.index_len());
    db::save(&path, &meta, solution, &NoProgress).unwrap();
    let expect = Expect::of(game);
    let database = Database::open(&path, &expect).unwrap();
    database.verify().unwrap();
    let mut checked = 0;
    for key in keys {
        assert_eq!(
            database.cell(key).unwrap(),
            solution.cell(key).unwrap(),
            "{} key {key}",
            game.name()
        );
        checked += 1;
    }
    let all = 0..solution.index_len();
    assert_eq!(
        database.census(all.clone()).unwrap(),
        solution.census(all).unwrap()
    );
    checked
}

fn random_keys(len: u64, n: usize) -> impl Iterator<Item = u64> {
    let mut rng = StdRng::seed_from_u64(8);
    (0..n).map(move |_| rng.random_range(0..len))
}

#[test]
fn databases_answer_like_a_fresh_solve_for_every_game_with_a_table() {
    let dir = scratch_dir("equal");
    // Small games: every key.
    let euler = TableSession::new(Euler::default()).unwrap();
    let table = euler.built(&NoProgress).unwrap();
    round_trip(&dir, &Euler::default(), table, 0..table.len());
    let lgame = RetroSession::new(LGame::new());
    let table = lgame.built(&NoProgress).unwrap();
    round_trip(&dir, &LGame::new(), table, 0..table.len());
    // Canonical keys: every stored class, and random keys (mostly absent).
    let ttt = SparseSession::new(TicTacToe::default(), 2 << 30);
    let table = ttt.built(&NoProgress).unwrap();
    let mut stored = Vec::new();
    table
        .for_each_cell(0..table.index_len(), &mut |key, _| stored.push(key))
        .unwrap();
    let n = round_trip(
        &dir,
        &TicTacToe::default(),
        table,
        stored
            .iter()
            .copied()
            .chain(random_keys(table.index_len(), 100_000)),
    );
    assert!(n > 1_000_000);
    // Large games: 100,000 random positions.
    let yehr = RetroSession::new(Yehr);
    let table = yehr.built(&NoProgress).unwrap();
    round_trip(&dir, &Yehr, table, random_keys(Yehr.index_len(), 100_000));
    let game = Euler::from_params("5x5").unwrap();
    let euler5 = TableSession::new(game.clone()).unwrap();
    let table = euler5.built(&NoProgress).unwrap();
    round_trip(&dir, &game, table, random_keys(game.index_len(), 100_000));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ply ARGS` with the database directory `dir`; exit code, stdout, stderr.
fn ply_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db-dir", dir.to_str().unwrap()]);
    let out = ply(&all, b"");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn without_source(json: &str) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    let source = value.as_object_mut().unwrap().remove("source");
    assert!(source.is_some(), "{json}");
    value
}

#[test]
fn solve_json_is_the_same_with_and_without_a_database() {
    let dir = scratch_dir("json");
    for (game, position) in [
        ("euler:3x4", None),
        ("lgame", Some(".***/#*.x/###./x...")),
        ("tictactoe:3x3x3", None),
    ] {
        let mut args = vec!["solve", game, "--json"];
        args.extend(position);
        let (code, solved, _) = ply_in(&dir, &args);
        assert_eq!(code, 0);
        assert!(solved.contains(r#""source":"solved""#), "{solved}");
        let (code, _, _) = ply_in(&dir, &["analyze", game, "--save"]);
        assert_eq!(code, 0);
        let (code, from_db, _) = ply_in(&dir, &args);
        assert_eq!(code, 0);
        assert!(from_db.contains(r#""source":"database""#), "{from_db}");
        assert_eq!(without_source(&solved), without_source(&from_db));
        args.push("--no-db");
        let (_, ignored, _) = ply_in(&dir, &args);
        assert!(ignored.contains(r#""source":"solved""#), "{ignored}");
    }
    let (code, list, _) = ply_in(&dir, &["db", "list"]);
    assert_eq!(code, 0);
    assert!(
        list.contains("euler:3x4") && list.contains("lgame"),
        "{list}"
    );
    let (code, verified, _) = ply_in(&dir, &["db", "verify"]);
    assert_eq!(code, 0);
    assert_eq!(verified.lines().count(), 3, "{verified}");
    let (code, _, _) = ply_in(&dir, &["db", "rm", "lgame"]);
    assert_eq!(code, 0);
    assert!(!dir.join("lgame.plydb").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory holding a fresh database of euler:3x4, and its file.
fn damaged(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch_dir(name);
    let (code, _, err) = ply_in(&dir, &["analyze", "euler:3x4", "--save"]);
    assert_eq!(code, 0, "{err}");
    let file = dir.join("euler-3x4.plydb");
    assert!(file.is_file());
    (dir, file)
}

/// `ply solve euler:3x4` (and `ply db verify` if `verify`) fail with exit
/// 2 and a message naming the file and `problem`.
fn refused(dir: &Path, file: &Path, problem: &str, verify: bool) {
    let commands: &[&[&str]] = if verify {
        &[&["solve", "euler:3x4"], &["db", "verify", "euler:3x4"]]
    } else {
        &[&["solve", "euler:3x4"]]
    };
    for &args in commands {
        let (code, out, err) = ply_in(dir, args);
        assert_eq!(code, 2, "{args:?} answered: {out}");
        // `ply db` says why in the file's row, and that one was bad on stderr.
        let why = if args[0] == "db" {
            assert!(err.contains("is bad"), "{err}");
            out
        } else {
            assert!(out.is_empty(), "{out}");
            err
        };
        assert!(why.contains(file.to_str().unwrap()), "{why}");
        assert!(why.contains(problem), "{why}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Rewrites the header's checksum after a deliberate change.
fn reseal(bytes: &mut [u8]) {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let sum = db::checksum(&bytes[..len - 8]);
    bytes[len - 8..len].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn a_truncated_database_is_refused() {
    let (dir, file) = damaged("truncated");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 20]).unwrap();
    refused(&dir, &file, "truncated", true);
}

#[test]
fn a_flipped_byte_anywhere_is_refused() {
    let (dir, file) = damaged("flip-template");
    let bytes = std::fs::read(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let len = bytes.len();
    // Every byte of a small file: header, blocks, index, footer.
    for at in 0..len {
        let mut changed = bytes.clone();
        changed[at] ^= 0x10;
        let dir = scratch_dir("flip");
        let path = dir.join("euler-3x4.plydb");
        std::fs::write(&path, &changed).unwrap();
        let expect = Expect {
            game: "euler:3x4".into(),
            rules_version: 1,
        };
        let opened = Database::open(&path, &expect).and_then(|db| db.verify());
        let error = opened.expect_err(&format!("byte {at} of {len} changed, still read"));
        assert!(error.to_string().contains(path.to_str().unwrap()));
        let _ = std::fs::remove_dir_all(&dir);
    }
    // And through the command, one byte in the middle (a block).
    let (dir, file) = damaged("flip-cli");
    let mut changed = bytes.clone();
    changed[len / 2] ^= 1;
    std::fs::write(&file, &changed).unwrap();
    refused(&dir, &file, "checksum", true);
}

#[test]
fn a_database_of_another_variant_is_refused() {
    let (dir, file) = damaged("variant");
    let other = dir.join("euler-4x3.plydb");
    std::fs::rename(&file, &other).unwrap();
    let (code, _, err) = ply_in(&dir, &["solve", "euler:4x3"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(other.to_str().unwrap()) && err.contains("holds euler:3x4, not euler:4x3"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_database_of_other_rules_is_refused() {
    let (dir, file) = damaged("rules");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[16..20].copy_from_slice(&7u32.to_le_bytes());
    reseal(&mut bytes);
    std::fs::write(&file, &bytes).unwrap();
    refused(&dir, &file, "rules version 7", false);
}

#[test]
fn a_database_of_a_newer_format_is_refused() {
    let (dir, file) = damaged("format");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[8..12].copy_from_slice(&(db::FORMAT_VERSION + 1).to_le_bytes());
    reseal(&mut bytes);
    std::fs::write(&file, &bytes).unwrap();
    refused(&dir, &file, "newer", true);
}

#[test]
fn a_killed_build_leaves_no_database() {
    let dir = scratch_dir("killed");
    for delay_ms in [50, 150, 300, 600, 1000] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ply"))
            .args(["analyze", "euler:4x5", "--save", "--db-dir"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        let status = child.wait().unwrap();
        let file = dir.join("euler-4x5.plydb");
        if file.exists() {
            // It finished first, or was killed after the rename that makes
            // the file whole (between `try_wait` and `kill`): whole either way.
            let (code, _, err) = ply_in(&dir, &["db", "verify"]);
            assert_eq!(code, 0, "killed after {delay_ms} ms: {err}");
            std::fs::remove_file(&file).unwrap();
        } else {
            assert!(
                !(finished && status.success()),
                "finished after {delay_ms} ms without a database"
            );
            let (code, out, _) = ply_in(&dir, &["db", "list"]);
            assert_eq!(code, 0);
            assert!(out.contains("no databases"), "{out}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_builders_at_once_leave_one_sound_database() {
    let dir = scratch_dir("concurrent");
    let children: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_ply"))
                .args(["analyze", "euler:4x4", "--save", "--db-dir"])
                .arg(&dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let (code, out, err) = ply_in(&dir, &["db", "verify"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    let (code, out, _) = ply_in(&dir, &["solve", "euler", "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains(r#""source":"database""#));
    let _ = std::fs::remove_dir_all(&dir);
}

/// What is done to a database file while it is open.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// Cut short in place, to a random length.
    Truncate,
    /// A random range overwritten in place with random bytes.
    Scribble,
    /// Another game's database copied over it in place.
    CopyOther,
    /// A fresh copy renamed over its path.
    Rename,
}

/// euler:4x5 solved in memory and saved as a database into `dir`: the
/// game, the session holding the solution, the file and its bytes.
fn saved_euler(dir: &Path) -> (Euler, TableSession<Euler>, PathBuf, Vec<u8>) {
    let game = Euler::from_params("4x5").unwrap();
    let session = TableSession::new(game.clone()).unwrap();
    let truth = session.built(&NoProgress).unwrap();
    let path = dir.join(db::file_name(&game.name()));
    let meta = Meta::whole(&game, truth.index_len());
    db::save(&path, &meta, truth, &NoProgress).unwrap();
    let good = std::fs::read(&path).unwrap();
    (game, session, path, good)
}

#[test]
fn a_database_changed_while_open_answers_right_or_refuses_never_faults() {
    let dir = scratch_dir("changed");
    let (game, session, path, good) = saved_euler(&dir);
    let truth = session.built(&NoProgress).unwrap();
    let lgame = RetroSession::new(LGame::new());
    let other_path = dir.join("lgame.plydb");
    let other = LGame::new();
    let other_meta = Meta::whole(&other, other.index_len());
    db::save(
        &other_path,
        &other_meta,
        lgame.built(&NoProgress).unwrap(),
        &NoProgress,
    )
    .unwrap();
    let other = std::fs::read(&other_path).unwrap();
    let expect = Expect::of(&game);
    let changes = [
        Change::Truncate,
        Change::Scribble,
        Change::CopyOther,
        Change::Rename,
    ];
    let mut rng = StdRng::seed_from_u64(27);
    let (mut answered, mut refused) = (0, 0);
    for round in 0..400 {
        std::fs::write(&path, &good).unwrap();
        let database = Database::open(&path, &expect).unwrap();
        // A few blocks read and kept before the change, the rest not yet.
        for key in random_keys(truth.index_len(), 2).map(|k| k ^ round) {
            let key = key % truth.index_len();
            assert_eq!(
                database.cell(key).unwrap(),
                Solution::cell(truth, key).unwrap()
            );
        }
        let change = changes[round as usize % changes.len()];
        match change {
            Change::Truncate => {
                let len = rng.random_range(0..good.len() as u64);
                let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                file.set_len(len).unwrap();
            }
            Change::Scribble => {
                use std::os::unix::fs::FileExt;
                let at = rng.random_range(0..good.len() as u64);
                let noise: Vec<u8> = (0..rng.random_range(1..4096))
                    .map(|_| rng.random())
                    .collect();
                let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                file.write_all_at(&noise, at).unwrap();
            }
            Change::CopyOther => std::fs::write(&path, &other).unwrap(),
            Change::Rename => {
                let fresh = dir.join("fresh.tmp");
                std::fs::write(&fresh, &good).unwrap();
                std::fs::rename(&fresh, &path).unwrap();
            }
        }
        for _ in 0..40 {
            let key = rng.random_range(0..truth.index_len());
            match database.cell(key) {
                Ok(cell) => {
                    assert_eq!(
                        cell,
                        Solution::cell(truth, key).unwrap(),
                        "{change:?} key {key}"
                    );
                    answered += 1;
                }
                Err(e) => {
                    assert!(
                        !matches!(change, Change::Rename),
                        "the file opened is still whole: {e}"
                    );
                    assert!(e.to_string().contains(path.to_str().unwrap()), "{e}");
                    refused += 1;
                }
            }
        }
        // A rename or a new length is seen; a same-length rewrite within
        // the file system's clock tick may not be (its blocks' checksums
        // still refuse it).
        if matches!(
            change,
            Change::Rename | Change::Truncate | Change::CopyOther
        ) {
            assert!(!database.is_current(), "{change:?}");
        }
    }
    assert!(answered > 1000 && refused > 1000, "{answered} {refused}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_database_shrinking_and_growing_while_read_never_gives_a_wrong_answer() {
    let dir = scratch_dir("shrinking");
    let (game, session, path, good) = saved_euler(&dir);
    let truth = session.built(&NoProgress).unwrap();
    let expect = Expect::of(&game);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Cuts the file short and writes it whole again, over and over,
        // leaving it whole for a moment each time: without the pause, a
        // busy machine's reader could find it cut at every open.
        scope.spawn(|| {
            let mut rng = StdRng::seed_from_u64(5);
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                file.set_len(rng.random_range(0..good.len() as u64))
                    .unwrap();
                std::thread::sleep(Duration::from_micros(rng.random_range(0..200)));
                std::os::unix::fs::FileExt::write_all_at(&file, &good, 0).unwrap();
                std::thread::sleep(Duration::from_micros(rng.random_range(0..500)));
            }
        });
        let mut rng = StdRng::seed_from_u64(6);
        let (mut answered, mut refused) = (0, 0);
        // At least 300 opens; more (for at most a minute) until one has
        // been answered, so that the check is never empty.
        let start = std::time::Instant::now();
        let mut opens = 0;
        while opens < 300 || (answered == 0 && start.elapsed() < Duration::from_secs(60)) {
            opens += 1;
            let Ok(database) = Database::open(&path, &expect) else {
                refused += 1;
                continue;
            };
            for _ in 0..20 {
                let key = rng.random_range(0..truth.index_len());
                match database.cell(key) {
                    Ok(cell) => {
                        assert_eq!(cell, Solution::cell(truth, key).unwrap(), "key {key}");
                        answered += 1;
                    }
                    Err(_) => refused += 1,
                }
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        eprintln!("answered {answered}, refused {refused}");
        assert!(answered > 0, "{refused} refused, none answered");
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ply ARGS` with the database directory `dir`, killed and failed if it
/// has not finished within 20 s (a FIFO must never be waited on).
fn ply_in_within(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(args)
        .arg("--db-dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ply {args:?} still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The row of `out` that names `what`.
fn row<'a>(out: &'a str, what: &str) -> &'a str {
    out.lines()
        .find(|line| line.contains(what))
        .unwrap_or_else(|| panic!("no row for {what} in:\n{out}"))
}

#[test]
fn a_bad_file_in_the_database_folder_is_one_row_marked_bad() {
    let dir = scratch_dir("folder");
    for game in ["euler:3x4", "lgame"] {
        let (code, _, err) = ply_in(&dir, &["analyze", game, "--save"]);
        assert_eq!(code, 0, "{err}");
    }
    let status = Command::new("mkfifo")
        .arg(dir.join("a-fifo.plydb"))
        .status()
        .unwrap();
    assert!(status.success());
    let mut rng = StdRng::seed_from_u64(3);
    let noise: Vec<u8> = (0..5000).map(|_| rng.random()).collect();
    std::fs::write(dir.join("garbage.plydb"), noise).unwrap();
    // lgame's database under yehr's name: never read for yehr, nor for lgame.
    std::fs::copy(dir.join("lgame.plydb"), dir.join("yehr.plydb")).unwrap();
    for args in [&["db", "list"][..], &["db", "verify"]] {
        let (code, out, err) = ply_in_within(&dir, args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(err.contains("3 of the 5 databases"), "{err}");
        assert_eq!(out.lines().filter(|l| l.starts_with("bad ")).count(), 3);
        assert!(row(&out, "a-fifo.plydb").contains("not a regular file"));
        assert!(row(&out, "garbage.plydb").contains("not a ply database"));
        assert!(
            row(&out, "yehr.plydb").contains("holds lgame, whose database is named lgame.plydb"),
            "{out}"
        );
        // The good ones are still there, whatever their place in the list.
        assert!(!row(&out, "euler:3x4").starts_with("bad"), "{out}");
        assert!(!row(&out, "lgame ").starts_with("bad"), "{out}");
    }
    // Verifying the good ones alone succeeds.
    let (code, out, _) = ply_in_within(&dir, &["db", "verify", "lgame"]);
    assert_eq!(code, 0, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sharded_database_is_one_row_with_its_shard_count() {
    let dir = scratch_dir("shards");
    // One process of the distributed solver (on one process alone,
    // `--workers` runs tictactoe's own table solver, which saves one file).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let hosts = std::env::temp_dir().join(format!("ply-db-shards-hosts-{}", std::process::id()));
    std::fs::write(&hosts, format!("127.0.0.1:{port}\n")).unwrap();
    let (code, _, err) = ply_in(
        &dir,
        &[
            "analyze",
            "tictactoe:3x3x3",
            "--workers",
            "3",
            "--processes",
            "1",
            "--process",
            "0",
            "--hosts",
            hosts.to_str().unwrap(),
            "--save",
        ],
    );
    let _ = std::fs::remove_file(&hosts);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = ply_in_within(&dir, &["db", "list"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().count(), 2, "a header and one row: {out}");
    let fields: Vec<&str> = row(&out, "tictactoe:3x3x3").split_whitespace().collect();
    assert_eq!(fields[4], "3", "{out}");
    assert_eq!(fields[1], "19683", "{out}");
    let (code, out, _) = ply_in_within(&dir, &["db", "verify"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("ok  tictactoe:3x3x3  3 shards"), "{out}");
    // One shard gone: the database is one row, bad.
    std::fs::remove_file(dir.join("tictactoe-3x3x3.shard-1-of-3.plydb")).unwrap();
    let (code, out, _) = ply_in_within(&dir, &["db", "list"]);
    assert_eq!(code, 2, "{out}");
    assert!(row(&out, "tictactoe").starts_with("bad "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tier_games_shards_are_one_row_verified_and_removed_together() {
    let dir = scratch_dir("tiers");
    let (code, _, err) = ply_in(&dir, &["analyze", "quixo:3x3", "--save"]);
    assert_eq!(code, 0, "{err}");
    let tiers: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".tier-"))
        .collect();
    assert!(tiers.len() > 1, "{tiers:?}");
    let (code, out, err) = ply_in_within(&dir, &["db", "list"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.lines().count(), 2, "a header and one row: {out}");
    let fields: Vec<&str> = row(&out, "quixo:3x3").split_whitespace().collect();
    assert_eq!(fields[4], tiers.len().to_string(), "{out}");
    for what in [&["db", "verify"][..], &["db", "verify", "quixo:3x3"]] {
        let (code, out, err) = ply_in_within(&dir, what);
        assert_eq!(code, 0, "{what:?}: {out}{err}");
        let head = format!("ok  quixo:3x3  {} tier shards", tiers.len());
        assert!(out.starts_with(&head), "{what:?}: {out}");
    }
    // One shard damaged in its last block: the game is one row, bad.
    let victim = &tiers[tiers.len() / 2];
    let mut bytes = std::fs::read(victim).unwrap();
    let at = bytes.len() - 40;
    bytes[at] ^= 0x5a;
    std::fs::write(victim, bytes).unwrap();
    let (code, out, _) = ply_in_within(&dir, &["db", "verify", "quixo:3x3"]);
    assert_eq!(code, 2, "{out}");
    assert!(row(&out, "quixo").starts_with("bad "), "{out}");
    let (code, out, err) = ply_in_within(&dir, &["db", "rm", "quixo:3x3"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.lines().count(), tiers.len(), "{out}");
    assert!(tiers.iter().all(|p| !p.exists()), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stale_temporary_files_are_reported_and_removed() {
    let dir = scratch_dir("stale");
    let (code, _, err) = ply_in(&dir, &["analyze", "euler:3x4", "--save"]);
    assert_eq!(code, 0, "{err}");
    // Left by killed builds: no process has an id this large (pid_max is
    // at most 2^22).
    let stale = dir.join(".euler-3x4.plydb.999999999.1.0.tmp");
    let other = dir.join(".lgame.plydb.999999998.1.0.tmp");
    std::fs::write(&stale, b"half").unwrap();
    std::fs::write(&other, b"half").unwrap();
    let (code, out, _) = ply_in_within(&dir, &["db", "list"]);
    assert_eq!(code, 0, "{out}");
    assert!(row(&out, ".euler-3x4.plydb.").starts_with("stale"), "{out}");
    assert!(row(&out, ".lgame.plydb.").starts_with("stale"), "{out}");
    assert!(stale.exists() && other.exists());
    // The next build of euler:3x4 removes its own leftovers only.
    let (code, _, err) = ply_in(&dir, &["analyze", "euler:3x4", "--save"]);
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists() && other.exists());
    let (code, out, _) = ply_in_within(&dir, &["db", "verify", "--fix"]);
    assert_eq!(code, 0, "{out}");
    assert!(row(&out, ".lgame.plydb.").starts_with("removed"), "{out}");
    assert!(!other.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
