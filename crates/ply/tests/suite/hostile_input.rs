//! Bad input on the command line gets an error naming the real problem
//! (exit 2, a short message), and long work says what it is doing.

use crate::common;

use common::cli::ply;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a command that must fail with exit 2 and returns its stderr.
fn refused(args: &[&str], stdin: &[u8]) -> String {
    let out = ply(args, stdin);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.len() < 600, "{args:?}: a long message: {stderr}");
    stderr
}

#[test]
fn euler_pin_out_of_range_is_named() {
    let stderr = refused(&["solve", "euler:4x4x256"], b"");
    assert!(stderr.contains("longest pin 256"), "{stderr}");
    assert!(stderr.contains("at most 4"), "{stderr}");
    assert!(!stderr.contains("expected 3 numbers"), "{stderr}");
    let stderr = refused(&["solve", "euler:4x4x5"], b"");
    assert!(stderr.contains("longest pin 5"), "{stderr}");
    let stderr = refused(&["solve", "euler:4xbx3"], b"");
    assert!(stderr.contains("columns 'b' is not a number"), "{stderr}");
}

#[test]
fn euler_boards_stop_at_the_engine_limit() {
    let limit = ply_core::limits::MAX_EULER_SQUARES;
    let stderr = refused(&["solve", &format!("euler:1x{}", limit + 1)], b"");
    assert!(
        stderr.contains(&format!("1 to {limit} squares")),
        "{stderr}"
    );
}

#[test]
fn tictactoe_parameters_name_the_number_at_fault() {
    let stderr = refused(&["solve", "tictactoe:3x3x300"], b"");
    assert!(stderr.contains("k = 300"), "{stderr}");
    let stderr = refused(&["solve", "tictactoe:300x1x1"], b"");
    assert!(stderr.contains("300x1 board"), "{stderr}");
    let huge = format!("tictactoe:3x3x{}", "9".repeat(100_000));
    let stderr = refused(&["solve", &huge], b"");
    assert!(stderr.contains("far too large"), "{stderr}");
}

#[test]
fn octal_up_to_the_largest_number_states_the_real_need() {
    let stderr = refused(&["octal", "0.007", "--up-to", "18446744073709551615"], b"");
    assert!(!stderr.contains("need 0 MiB"), "{stderr}");
    // 4 bytes for each of 2^64 heaps: 2^36 GiB.
    assert!(stderr.contains("68719476736.0 GiB"), "{stderr}");
    assert!(stderr.contains("at most 1073741824 heaps"), "{stderr}");
}

#[test]
fn squares_past_column_z_have_letter_names() {
    let out = ply(&["solve", "tictactoe:1x28x1", "--json"], b"");
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = report["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["move"].as_str().expect("a name"))
        .collect();
    assert_eq!(names.len(), 28);
    assert!(names.contains(&"z1") && names.contains(&"aa1") && names.contains(&"ab1"));
    assert!(
        names
            .iter()
            .all(|n| n.bytes().all(|b| b.is_ascii_alphanumeric()))
    );
}

#[test]
fn non_utf8_input_names_the_line() {
    let stderr = refused(&["solve", "tictactoe:3x3x3", "-"], b"x..\n\xff../...\n");
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("not UTF-8"), "{stderr}");
    let stderr = refused(
        &["play", "tictactoe:3x3x3", "--seed", "1"],
        b"b2\n\xfe\xff\n",
    );
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("not UTF-8"), "{stderr}");
}

#[test]
fn a_huge_bad_move_is_quoted_short() {
    let line = format!("{}\nq\n", "z".repeat(1_000_000));
    let out = ply(&["play", "tictactoe:3x3x3", "--seed", "1"], line.as_bytes());
    assert!(out.status.success());
    assert!(
        out.stdout.len() < 10_000,
        "{} bytes of output",
        out.stdout.len()
    );
}

#[test]
fn a_long_search_says_on_stderr_what_it_is_doing() {
    // tictactoe:5x5x4 is searched by alpha-beta for over a minute; the line
    // comes after one second, then the search is stopped.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(["solve", "tictactoe:5x5x4"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ply runs");
    let started = Instant::now();
    let mut line = String::new();
    let read = BufReader::new(child.stderr.take().expect("stderr is piped")).read_line(&mut line);
    let waited = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    read.expect("stderr reads");
    assert!(line.contains("solving tictactoe:5x5x4"), "{line}");
    assert!(line.contains("alpha-beta"), "{line}");
    assert!(waited >= Duration::from_millis(900), "{waited:?}: {line}");
}

#[test]
fn a_quick_solve_says_nothing_on_stderr() {
    let out = ply(&["solve", "tictactoe:3x3x3"], b"");
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn octal_without_up_to_computes_a_default_stretch() {
    let out = ply(&["octal", "0.07", "--json"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["up_to"], ply::cli::octal::DEFAULT_UP_TO);
    // Dawson's Kayles: period 34 (Guy and Smith, 1956).
    assert_eq!(report["period"]["period"], 34);
    let given = ply(&["octal", "0.07", "--json", "--up-to", "10000"], b"");
    assert_eq!(given.stdout, out.stdout);
}
