//! The packing path of point sets (`pext` or byte tables, issue 59) as a
//! user meets it: `ply --version` names it, `PLY_PACKING` forces it, a bad
//! value is refused with one line, and both paths count the same.

use crate::common;

use common::cli::run;
use ply_games::colex::{BUILD_HAS_BMI2, PACKING_VARIABLE};
use std::process::{Command, Output};

fn ply_with(packing: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ply"));
    command.args(args).env_remove(PACKING_VARIABLE);
    if let Some(path) = packing {
        command.env(PACKING_VARIABLE, path);
    }
    run(command, b"")
}

/// The paths this build can take.
fn paths() -> Vec<&'static str> {
    if BUILD_HAS_BMI2 {
        vec!["pext", "tables"]
    } else {
        vec!["tables"]
    }
}

#[test]
fn the_version_names_the_packing_path_in_use() {
    for path in paths() {
        let out = ply_with(Some(path), &["--version"]);
        assert!(out.status.success(), "{out:?}");
        let version = String::from_utf8_lossy(&out.stdout);
        assert!(
            version.contains(&format!("(packing: {path})")),
            "{PACKING_VARIABLE}={path}: {version}"
        );
    }
    let chosen = ply_games::colex::PackingPath::current().unwrap();
    let out = ply_with(None, &["--version"]);
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.contains(&format!("(packing: {})", chosen.name())),
        "{version}"
    );
}

#[test]
fn an_unknown_packing_is_refused_with_one_line() {
    let out = ply_with(Some("fast"), &["games"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("PLY_PACKING") && stderr.contains("'pext' or 'tables'"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn both_paths_count_the_same() {
    for game in ["morris:3", "teeko:4x4", "quixo:3x3"] {
        let reports: Vec<String> = paths()
            .into_iter()
            .map(|path| {
                let out = ply_with(Some(path), &["analyze", game, "--no-db", "--json"]);
                assert!(out.status.success(), "{game} under {path}: {out:?}");
                String::from_utf8(out.stdout).unwrap()
            })
            .collect();
        assert!(reports[0].contains("\"positions\""), "{}", reports[0]);
        for report in &reports[1..] {
            assert_eq!(report, &reports[0], "{game}");
        }
    }
}
