//! `ply` on Morris with the moving phase stored (`morris:N,moving`, as
//! `morris` is for nine stones): the moving sectors analyzed and saved,
//! placing positions answered by search over them exactly as the whole
//! game's solution answers them, moves included, and read from the whole
//! game's database once the directory holds it.

use crate::common;

use common::cli::{json_of as json, ply};

/// What `ply solve` says of a position and of each of its moves.
fn answer(report: &serde_json::Value) -> (String, String, Vec<String>) {
    let moves = report["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            format!(
                "{} {} {} {}",
                m["move"], m["position"], m["value"], m["remoteness"]
            )
        })
        .collect();
    (
        report["value"].to_string(),
        report["remoteness"].to_string(),
        moves,
    )
}

#[test]
fn placing_positions_are_searched_over_the_saved_moving_phase() {
    let dir = std::env::temp_dir().join(format!("ply-morris-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.to_str().unwrap();
    let analyzed = json(&ply(
        &[
            "analyze",
            "morris:4,moving",
            "--save",
            "--db-dir",
            db,
            "--json",
        ],
        b"",
    ));
    assert_eq!(analyzed["tiers"], 4, "three moving sectors and lost");
    for position in [
        ".../.../.../....../.../.../.../4,4/W",
        "W../.B./.../....../.../.../.../3,3/W",
        "WW./.../.../....../BB./.../.../2,2/W",
        "WW./.B./.../W.B.../.../.../.../1,2/B",
    ] {
        let searched = json(&ply(
            &[
                "solve",
                "morris:4,moving",
                position,
                "--db-dir",
                db,
                "--json",
            ],
            b"",
        ));
        assert_eq!(searched["source"], "database");
        let notes = searched["notes"].to_string();
        assert!(notes.contains("answered by alpha-beta search"), "{notes}");
        let whole = json(&ply(&["solve", "morris:4", position, "--json"], b""));
        assert_eq!(answer(&searched), answer(&whole), "{position}");
        // The least memory: a table of 512 KiB and a block cache of as
        // much, a few blocks at most, so lookups decode blocks again.
        let small = json(&ply(
            &[
                "solve",
                "morris:4,moving",
                position,
                "--db-dir",
                db,
                "--memory",
                "1048576",
                "--json",
            ],
            b"",
        ));
        assert_eq!(answer(&small), answer(&whole), "{position}, --memory 1 MiB");
    }
    let refused = ply(
        &[
            "solve",
            "morris:4,moving",
            "--db-dir",
            db,
            "--memory",
            "4096",
        ],
        b"",
    );
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("--memory"), "{said}");
    // A moving-phase position is read from the database, with no search.
    let stored = json(&ply(
        &[
            "solve",
            "morris:4,moving",
            "WWW/W../.../....../BBB/B../.../0,0/W",
            "--db-dir",
            db,
            "--json",
        ],
        b"",
    ));
    assert!(stored["notes"].is_null(), "{}", stored["notes"]);
    assert_eq!(stored["source"], "database");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The whole game's report without what says where its shards came from.
fn counts(report: &serde_json::Value) -> serde_json::Value {
    let mut report = report.clone();
    for key in ["saved", "tiers_taken", "tiers_solved", "tiers_found_done"] {
        report.as_object_mut().expect("a report").remove(key);
    }
    report
}

#[test]
fn the_whole_game_takes_the_moving_sectors_a_saved_moving_phase_leaves_out_a_side_of() {
    let root = std::env::temp_dir().join(format!("ply-morris-take-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let analyze = |game: &str, dir: &std::path::Path| {
        json(&ply(
            &[
                "analyze",
                game,
                "--save",
                "--db-dir",
                dir.to_str().unwrap(),
                "--json",
            ],
            b"",
        ))
    };
    let alone = analyze("morris:4", &root.join("alone"));
    assert_eq!(alone["tiers_solved"], 31, "{alone}");
    // `ply analyze --save` leaves out a side's remoteness in the moving
    // phase's shards: each is found again as the shard is taken.
    let beside = root.join("beside");
    analyze("morris:4,moving", &beside);
    let solve = |position: &str| {
        json(&ply(
            &[
                "solve",
                "morris:4,moving",
                position,
                "--db-dir",
                beside.to_str().unwrap(),
                "--json",
            ],
            b"",
        ))
    };
    let placing = [
        ".../.../.../....../.../.../.../4,4/W",
        "WW./.B./.../W.B.../.../.../.../1,2/B",
    ];
    let searched = placing.map(solve);
    let whole = analyze("morris:4", &beside);
    assert_eq!(whole["tiers_taken"], 4, "{whole}");
    assert_eq!(whole["tiers_solved"], 27);
    assert_eq!(counts(&whole), counts(&alone));
    // With the whole game's database beside it, a placing position of the
    // moving-phase game is read from it, and the answer is the search's.
    for (position, searched) in placing.iter().zip(&searched) {
        let notes = searched["notes"].to_string();
        assert!(notes.contains("answered by alpha-beta search"), "{notes}");
        let read = solve(position);
        let notes = read["notes"].to_string();
        assert!(
            notes.contains("read from the whole game's database (morris:4)"),
            "{notes}"
        );
        assert_eq!(read["source"], "database");
        assert_eq!(answer(&read), answer(searched), "{position}");
    }
    // A moving-phase position is still read from the moving phase's own.
    let moving = solve("WWW/W../.../....../BBB/B../.../0,0/W");
    assert!(moving["notes"].is_null(), "{}", moving["notes"]);
    let _ = std::fs::remove_dir_all(&root);
}
