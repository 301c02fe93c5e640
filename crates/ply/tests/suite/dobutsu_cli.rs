//! Dobutsu Shogi through the `ply` command: the full game refuses to solve
//! unasked without a database and says how to build one; a reduced variant
//! saved as a database answers as its fresh solve does; the values `ply
//! solve` prints follow from the children it lists, including the ends of
//! play answered from the rules.

use crate::common;

use common::cli::{json, scratch_dir};
use serde_json::Value as Json;
use std::path::Path;
use std::process::Output;

fn ply(args: &[&str]) -> Output {
    common::cli::ply(args, b"")
}

/// A fresh, empty database directory for one test.
fn empty_dir(name: &str) -> String {
    scratch_dir(&format!("dobutsu-cli-{name}"))
        .display()
        .to_string()
}

#[test]
fn the_full_game_without_a_database_says_how_to_build_one() {
    let dir = empty_dir("none");
    let output = ply(&["solve", "dobutsu", "--db-dir", &dir]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ply analyze dobutsu --save"),
        "stderr: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
}

#[test]
fn a_bad_position_is_refused_in_one_line() {
    let output = ply(&["solve", "dobutsu:C", "gle/.c./.C./ELG/-/S"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stderr).lines().count(), 1);
}

/// Whether `value` (with `remoteness`) follows from the children listed.
fn follows_from_children(report: &Json) -> bool {
    let moves = report["moves"].as_array().expect("moves");
    let value = report["value"].as_str().expect("value");
    let remoteness = report["remoteness"].as_u64();
    let losses: Vec<u64> = moves
        .iter()
        .filter(|m| m["value"] == "lose")
        .filter_map(|m| m["remoteness"].as_u64())
        .collect();
    match value {
        "win" => losses.iter().min().map(|r| r + 1) == remoteness,
        "lose" => {
            moves.iter().all(|m| m["value"] == "win")
                && moves
                    .iter()
                    .filter_map(|m| m["remoteness"].as_u64())
                    .max()
                    .map_or(Some(0), |r| Some(r + 1))
                    == remoteness
        }
        "draw" => losses.is_empty() && moves.iter().any(|m| m["value"] == "draw"),
        _ => false,
    }
}

#[test]
fn a_saved_variant_answers_as_its_fresh_solve_and_values_follow_from_children() {
    let dir = empty_dir("saved");
    let saved = json(&["analyze", "dobutsu:C", "--save", "--db-dir", &dir, "--json"]);
    assert!(Path::new(saved["saved"].as_str().expect("saved path")).is_file());
    // Walk a line of play from the start, always the first move listed,
    // comparing the database with a fresh solve at every step.
    let mut position = json(&["solve", "dobutsu:C", "--no-db", "--json"])["position"]
        .as_str()
        .expect("start")
        .to_string();
    for _ in 0..12 {
        let fresh = json(&["solve", "dobutsu:C", &position, "--no-db", "--json"]);
        let stored = json(&["solve", "dobutsu:C", &position, "--db-dir", &dir, "--json"]);
        assert_eq!(stored["source"], "database");
        assert_eq!(fresh["value"], stored["value"], "{position}");
        assert_eq!(fresh["remoteness"], stored["remoteness"], "{position}");
        assert_eq!(fresh["moves"], stored["moves"], "{position}");
        assert!(follows_from_children(&fresh), "{fresh}");
        // Follow a move that leaves play going (a catch ends it).
        let Some(next) = fresh["moves"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["remoteness"] != 0))
        else {
            break;
        };
        position = next["position"].as_str().expect("position").to_string();
    }
}

#[test]
fn a_catch_is_a_win_in_one_and_the_caught_side_has_lost() {
    // Sente's Chick on b3 takes Gote's Lion on b2.
    let report = json(&[
        "solve",
        "dobutsu:C",
        "..c/.l./.C./.L./-/S",
        "--no-db",
        "--json",
    ]);
    assert_eq!(report["value"], "win");
    assert_eq!(report["remoteness"], 1);
    assert!(follows_from_children(&report), "{report}");
}

/// Repetition gives a draw. In this hand-picked position each side's Chick
/// stands on the other side's back rank, where a Chick cannot move (it can
/// only have been dropped there), and the Lions face each other on a board
/// otherwise empty: the solver calls it a draw, the draw follows from the
/// children, and keeping the draw move after move comes back to a position
/// already played, so the game would go on for ever.
#[test]
fn repetition_gives_a_draw() {
    let mut position = ".lC/.../.../c.L/-/S".to_string();
    let mut seen = Vec::new();
    for _ in 0..40 {
        let report = json(&["solve", "dobutsu:C", &position, "--no-db", "--json"]);
        assert_eq!(report["value"], "draw", "{position}");
        assert_eq!(report["remoteness"], Json::Null, "{position}");
        assert!(follows_from_children(&report), "{report}");
        seen.push(position.clone());
        position = report["moves"]
            .as_array()
            .and_then(|moves| moves.iter().find(|m| m["value"] == "draw"))
            .and_then(|m| m["position"].as_str())
            .expect("a move that keeps the draw")
            .to_string();
        if seen.contains(&position) {
            return;
        }
    }
    panic!("40 plies of drawing moves never repeated a position: {seen:?}");
}
