//! `ply serve` over a database that changes under it: truncated, copied
//! over by another game's database, replaced by a rename. The server stays
//! up, every answer it gives equals a fresh solve, every refusal names the
//! file, and a database renamed into place is read from the next request.

use crate::common;

use common::cli::{ply, scratch_dir};
use common::http::{Client, solve_path};
use common::server::Process;
use ply::session::Session;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::path::Path;

const GAME: &str = "euler:4x5";

/// A fresh empty directory under the system's temporary directory.
fn save(dir: &Path, game: &str) {
    let out = ply(
        &["analyze", game, "--save", "--db-dir", dir.to_str().unwrap()],
        b"",
    );
    assert!(out.status.success(), "{out:?}");
}

/// Positions reached by random play from the start, spread over the index.
fn positions(truth: &dyn Session, n: usize) -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(27);
    (0..n)
        .map(|_| {
            let mut position = truth.start();
            for _ in 0..rng.random_range(0..14) {
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

/// What the server says about `position`: the answer's source if it
/// answered (and then the answer equals `truth`'s), else the error.
fn ask(server: &Process, truth: &dyn Session, position: &str) -> Result<String, String> {
    let mut client = Client::connect(server.addr).expect("the server is up");
    let answer = client
        .get(&solve_path(GAME, Some(position)))
        .expect("the server answers");
    let mut body: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    if answer.status != 200 {
        assert!(answer.status >= 500, "{} {}", answer.status, answer.body);
        return Err(body["error"].as_str().unwrap().to_string());
    }
    let source = body.as_object_mut().unwrap().remove("source");
    let mut expected = truth.solve(Some(position)).unwrap();
    expected.best_first();
    let expected = serde_json::to_value(expected).unwrap();
    assert_eq!(body, expected, "{position}");
    Ok(source.unwrap().as_str().unwrap().to_string())
}

/// Files the process holds open that were removed or replaced since.
fn deleted_files(server: &Process) -> Vec<String> {
    std::fs::read_dir(format!("{}/fd", server.proc()))
        .unwrap()
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .map(|target| target.display().to_string())
        .filter(|target| target.ends_with("(deleted)"))
        .collect()
}

#[test]
fn a_database_changed_under_a_running_server_never_takes_it_down() {
    let dir = scratch_dir("changed");
    save(&dir, GAME);
    save(&dir, "lgame");
    let file = dir.join("euler-4x5.plydb");
    let good = std::fs::read(&file).unwrap();
    let lgame = std::fs::read(dir.join("lgame.plydb")).unwrap();
    let replace = || {
        let fresh = dir.join(".fresh");
        std::fs::write(&fresh, &good).unwrap();
        std::fs::rename(&fresh, &file).unwrap();
    };
    let server = Process::start(&["--db-dir", dir.to_str().unwrap()]);
    let truth = ply::registry::open(GAME).unwrap();
    let positions = positions(&*truth, 200);
    let mut asked = positions.chunks(40);
    let names_the_file = |error: &str| {
        assert!(error.contains(file.to_str().unwrap()), "{error}");
    };

    // The start only, so that most blocks are still unread.
    assert_eq!(
        ask(&server, &*truth, &truth.start()).as_deref(),
        Ok("database")
    );
    // Cut short in place: answers already read stay right, the rest are refused.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(8192)
        .unwrap();
    for position in asked.next().unwrap() {
        if let Err(error) = ask(&server, &*truth, position) {
            names_the_file(&error);
        }
    }
    // Another game's database copied over it in place.
    let mut wrong_game = 0;
    std::fs::write(&file, &lgame).unwrap();
    for position in asked.next().unwrap() {
        if let Err(error) = ask(&server, &*truth, position) {
            names_the_file(&error);
            wrong_game += usize::from(error.contains("holds lgame"));
        }
    }
    assert!(wrong_game > 0);
    // A whole database renamed into place is read from the next request.
    replace();
    for position in asked.next().unwrap() {
        assert_eq!(ask(&server, &*truth, position).as_deref(), Ok("database"));
    }
    // And again while a healthy copy is open: the old file is let go.
    replace();
    for position in asked.next().unwrap() {
        assert_eq!(ask(&server, &*truth, position).as_deref(), Ok("database"));
    }
    assert_eq!(deleted_files(&server), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}
