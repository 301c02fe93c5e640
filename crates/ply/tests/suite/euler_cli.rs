//! The built `ply` binary on the Game of Euler and `ply judge uva10536`:
//! outputs, JSON shapes and exit codes.

use crate::common;

use common::cli::{json, ply};

/// Asserts exit code 2 with one line on stderr containing `needle`.
fn refused(args: &[&str], stdin: &[u8], needle: &str) {
    let out = ply(args, stdin);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{stderr:?} lacks {needle:?}");
}

#[test]
fn judge_answers_the_sample_byte_for_byte() {
    let out = ply(
        &["judge", "uva10536"],
        include_bytes!("../data/uva10536-sample.in"),
    );
    assert!(out.status.success());
    assert_eq!(out.stdout, include_bytes!("../data/uva10536-sample.out"));
}

#[test]
fn judge_rejects_malformed_input_with_its_line() {
    refused(
        &["judge", "uva10536"],
        b"2\n\n....\n....\n....\n....\n",
        "input line 7",
    );
    refused(
        &["judge", "uva10536"],
        b"1\n\n....\n.X.\n....\n....\n",
        "input line 4",
    );
    refused(
        &["judge", "uva10536"],
        b"1\n\nXXXX\nXXXX\nXXXX\nXXXX\n",
        "fully covered",
    );
    refused(&["judge", "uva10536"], b"three\n", "input line 1");
}

#[test]
fn solve_lists_every_move_with_its_value() {
    let report = json(&["solve", "euler", "XXX./XXX./.XXX/.XXX", "--json"]);
    assert_eq!(report["game"], "euler:4x4");
    assert_eq!(report["value"], "lose");
    assert_eq!(report["remoteness"], 3);
    let moves = report["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    assert!(moves.iter().all(|m| m["value"] == "win"));
    assert!(
        moves
            .iter()
            .any(|m| m["move"] == "a3-a4" && m["position"] == "XXX./XXX./XXXX/XXXX")
    );

    let start = json(&["solve", "euler", "--json"]);
    assert_eq!(start["position"], "..../..../..../....");
    assert_eq!(start["value"], "lose");
    assert_eq!(start["moves"].as_array().unwrap().len(), 48);

    let text = ply(&["solve", "euler:3x3"], b"");
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("position  .../.../..."));
}

#[test]
fn analyze_counts_every_reachable_position() {
    let report = json(&["analyze", "euler", "--json"]);
    assert_eq!(report["positions"], 65536);
    assert_eq!(report["lose"], 13802);
    assert_eq!(report["win"], 65536 - 13802);
    assert_eq!(report["draw"], 0);
    assert_eq!(report["tie"], 0);
    assert_eq!(report["longest_lose"]["position"], "..../..../..../....");
    assert_eq!(report["max_remoteness"], 13);
    assert_eq!(report["index_size"], 65536);
    assert!(report["symmetry_classes"].as_u64().unwrap() > 65536 / 8);

    let five = json(&["analyze", "euler:5x5", "--json"]);
    assert_eq!(five["positions"], 33_554_432u64);
    assert_eq!(
        five["win"].as_u64().unwrap() + five["lose"].as_u64().unwrap(),
        33_554_432
    );
}

#[test]
fn bad_arguments_exit_with_code_2() {
    refused(
        &["solve", "euler", "XXX./XXX./.XXX"],
        b"",
        "expected 4 rows",
    );
    refused(&["solve", "euler", "XXX./XXX./.XXX/.XXO"], b"", "row 4");
    // One limit in one wording, however far past it the board is.
    for board in [
        "euler:0x3",
        "euler:4x8",
        "euler:6x6",
        "euler:9x9",
        "euler:20x20",
    ] {
        refused(&["analyze", board], b"", "euler allows 1 to 30 squares");
    }
    refused(&["solve", "euler:4x4x0"], b"", "at least 1");
}
