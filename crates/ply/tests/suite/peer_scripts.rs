//! The peer scripts (`scripts/peer-*`) take binaries that the user built,
//! never sources (issue 63). Without any peer installed, each must refuse a
//! missing path, a file that is not executable and a stand-in program that
//! is not the peer, with exit status 2 and one line naming the path, before
//! it builds or runs anything; and its `--help` must exit 0, name the peer's
//! repository and give no build command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ply-peer-scripts-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `body` as a shell script at `path`, executable or not.
fn write_program(path: &Path, body: &str, executable: bool) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn run(name: &str, args: &[&str]) -> Output {
    Command::new(script(name))
        .args(args)
        // Without cargo on the PATH: every check must come before ply's build.
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The run was refused with status 2 and exactly one line on stderr that
/// names `path` and contains `what`; nothing on stdout.
fn assert_refused(out: &Output, path: &Path, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "not one line: {stderr:?}");
    assert!(
        lines[0].contains(&*path.to_string_lossy()),
        "the line does not name {}: {}",
        path.display(),
        lines[0]
    );
    assert!(lines[0].contains(what), "no '{what}' in: {}", lines[0]);
    assert!(
        out.stdout.is_empty(),
        "stdout: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `--help` exits 0, names the repository and tells the user to build the
/// peer as its README says, with no command that builds it.
fn assert_help(name: &str, repository: &str) {
    let out = run(name, &["--help"]);
    assert_eq!(out.status.code(), Some(0), "{name} --help: {out:?}");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains(repository),
        "{name} --help names no {repository}:\n{help}"
    );
    assert!(
        help.contains("README"),
        "{name} --help does not point at the README:\n{help}"
    );
    for build in [
        "cmake",
        "make ",
        "gcc",
        "clang",
        "g++",
        "apt-get",
        "git clone",
    ] {
        assert!(
            !help.contains(build),
            "{name} --help gives a build command ({build}):\n{help}"
        );
    }
}

/// The refusals every peer script makes of its binary option `option`:
/// missing, not executable, and a stand-in printing `impostor`.
fn assert_refusals(name: &str, option: &str, file: &str, impostor: &str, what: &str) {
    let dir = scratch(&format!("{name}{option}"));
    let missing = dir.join(file);
    assert_refused(
        &run(name, &[option, missing.to_str().unwrap()]),
        &missing,
        "no such file",
    );

    let plain = dir.join(format!("{file}-plain"));
    write_program(&plain, "exit 0", false);
    assert_refused(
        &run(name, &[option, plain.to_str().unwrap()]),
        &plain,
        "not an executable",
    );

    let stand_in = dir.join(format!("{file}-stand-in"));
    write_program(&stand_in, impostor, true);
    assert_refused(
        &run(name, &[option, stand_in.to_str().unwrap()]),
        &stand_in,
        what,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn peer_gamesmanone_checks_its_binary() {
    assert_help("peer-gamesmanone", "GamesCrafters/GamesmanOne");
    assert_refusals(
        "peer-gamesmanone",
        "--gamesman",
        "gamesman",
        "echo 'SomeOtherSolver version 1.3.0'",
        "not GamesmanOne",
    );
}

#[test]
fn peer_dobutsu_checks_its_binary() {
    assert_help("peer-dobutsu", "clausecker/dobutsu");
    assert_refusals(
        "peer-dobutsu",
        "--gentb",
        "gentb",
        "echo 'gentb version 2.0' >&2; exit 1",
        "not gentb",
    );
}

#[test]
fn peer_connect4_checks_its_binaries() {
    assert_help("peer-connect4", "markus7800/Connect4-Strong-Solver");
    assert_help("peer-connect4", "PascalPons/connect4");
    // Pons's c4solver first, with Böck's folder a stand-in that would pass.
    let dir = scratch("connect4");
    let bock = dir.join("bock");
    std::fs::create_dir_all(&bock).unwrap();
    let missing = dir.join("c4solver");
    assert_refused(
        &run(
            "peer-connect4",
            &[
                "--bock",
                bock.to_str().unwrap(),
                "--pons",
                missing.to_str().unwrap(),
            ],
        ),
        &missing,
        "no such file",
    );
    let wrong = dir.join("c4solver-stand-in");
    write_program(&wrong, "read line; echo \"$line is not a score\"", true);
    assert_refused(
        &run(
            "peer-connect4",
            &[
                "--bock",
                bock.to_str().unwrap(),
                "--pons",
                wrong.to_str().unwrap(),
            ],
        ),
        &wrong,
        "not Pons's c4solver",
    );

    // Böck's folder: its solve.out missing, not executable, or not his.
    let pons = dir.join("c4solver");
    write_program(&pons, "while read line; do echo \"$line 18\"; done", true);
    let solve = bock.join("solve.out");
    let args = [
        "--bock",
        bock.to_str().unwrap(),
        "--pons",
        pons.to_str().unwrap(),
    ];
    assert_refused(&run("peer-connect4", &args), &solve, "no such file");
    write_program(&solve, "exit 0", false);
    assert_refused(&run("peer-connect4", &args), &solve, "not an executable");
    write_program(&solve, "echo 'usage: solve.out FILE'", true);
    assert_refused(&run("peer-connect4", &args), &solve, "not Böck's solve.out");

    // With solve.out looking right, the alpha-beta build is checked too.
    write_program(
        &solve,
        "echo 'solve.out log2_tablesize width height'\necho '  strongly solves connect4 with retrograde symbolic analysis.'",
        true,
    );
    let search = bock.join("full_ab_search_w7_h6.out");
    assert_refused(&run("peer-connect4", &args), &search, "no such file");
    write_program(&search, "echo 'res = 0'", true);
    assert_refused(
        &run("peer-connect4", &args),
        &search,
        "not Böck's full_ab_search",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
