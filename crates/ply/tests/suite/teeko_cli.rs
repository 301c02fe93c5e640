//! `ply` on Teeko, as a user runs it: the small board analyzed and saved
//! tier by tier, positions answered from its shards, bad positions refused
//! with exit 2.

use crate::common;

use common::cli::{json_of as json, ply};

#[test]
fn the_small_board_is_saved_by_tiers_and_answered_from_them() {
    let dir = std::env::temp_dir().join(format!("ply-teeko-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.to_str().unwrap();
    let analyzed = json(&ply(
        &["analyze", "teeko:4x4", "--save", "--db-dir", db, "--json"],
        b"",
    ));
    // Every index but those whose mover already shows one of the 19
    // patterns (with any 4 of the 12 other squares for the other side).
    assert_eq!(analyzed["positions"], 2_418_897 - 2 * 19 * 495);
    let shards = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(shards, 9, "a shard per tier");
    // Each move's value is for the player who moves after it, so the
    // position's value follows from the best of them.
    let answer = json(&ply(
        &[
            "solve",
            "teeko:4x4",
            "X.../.O../..X./.O../X",
            "--db-dir",
            db,
            "--json",
        ],
        b"",
    ));
    assert_eq!(answer["position"], "X.../.O../..X./.O../X");
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 12);
    let value = answer["value"].as_str().unwrap();
    let best = moves.iter().map(|m| m["value"].as_str().unwrap());
    let expected = if best.clone().any(|v| v == "lose") {
        "win"
    } else if best.clone().any(|v| v == "draw") {
        "draw"
    } else {
        "lose"
    };
    assert_eq!(value, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_positions_are_refused_with_exit_2() {
    // On the small board: the session builds its tiers before it reads
    // the position (a minute or more for the full board).
    for bad in [
        "..../..../..../..../Q",
        "..../..../.X../..../X",
        "XXXX/OOO./..../O.../X",
        "...../...../...../...../...../X",
    ] {
        let out = ply(&["solve", "teeko:4x4", bad], b"");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{bad}: {err}");
    }
}
