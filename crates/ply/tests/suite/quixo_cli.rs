//! `ply analyze quixo:3x3 --save` through the tier solver: a rerun finds
//! every tier done and counts the same; lost and half-written shards are
//! solved again; a budget too small is refused before any work, naming the
//! tier; the database answers `ply solve`.

use crate::common;

use common::cli::{json, scratch_dir, shard_files};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Output;

fn ply(args: &[&str]) -> Output {
    common::cli::ply(args, b"")
}

fn analyze(dir: &Path, extra: &[&str]) -> Json {
    let dir = dir.to_str().unwrap();
    let mut args = vec!["analyze", "quixo:3x3", "--save", "--json", "--db-dir", dir];
    args.extend_from_slice(extra);
    json(&args)
}

fn fresh(name: &str) -> PathBuf {
    scratch_dir(&format!("quixo-cli-{name}"))
}

#[test]
fn a_rerun_resumes_from_the_finished_tiers_with_the_same_counts() {
    let dir = fresh("resume");
    let first = analyze(&dir, &[]);
    // Canonical tiers: x >= o and x + o <= 9, floor(s/2)+1 for each sum s.
    let canonical: u64 = (0..=9).map(|s| s / 2 + 1).sum();
    assert_eq!(first["tiers"], canonical);
    assert_eq!(first["tiers_found_done"], 0);
    assert_eq!(first["positions"], 2 * 3u64.pow(9));
    let files = shard_files(&dir);
    assert_eq!(files.len() as u64, canonical);
    let second = analyze(&dir, &[]);
    assert_eq!(second["tiers_found_done"], canonical);
    assert_eq!(second["tiers_solved"], 0);
    // Lose one shard, cut another in half: both are solved again.
    std::fs::remove_file(&files[3]).unwrap();
    let bytes = std::fs::read(&files[7]).unwrap();
    std::fs::write(&files[7], &bytes[..bytes.len() / 2]).unwrap();
    let third = analyze(&dir, &[]);
    assert_eq!(third["tiers_found_done"], canonical - 2);
    assert_eq!(third["tiers_solved"], 2);
    for key in [
        "positions",
        "win",
        "lose",
        "draw",
        "max_remoteness",
        "by_remoteness",
    ] {
        assert_eq!(first[key], second[key], "{key}");
        assert_eq!(first[key], third[key], "{key}");
    }
    let solve = |extra: Option<&str>| -> Json {
        let out = ply(&[
            "solve",
            "quixo:3x3",
            "--db-dir",
            dir.to_str().unwrap(),
            "--json",
        ]
        .into_iter()
        .chain(extra)
        .collect::<Vec<_>>());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (stored, fresh) = (solve(None), solve(Some("--no-db")));
    assert_eq!(stored["source"], "database");
    assert_eq!(fresh["source"], "solved");
    for key in ["value", "remoteness", "moves"] {
        assert_eq!(stored[key], fresh[key], "{key}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_budget_too_small_is_refused_before_any_work_naming_the_tier() {
    let dir = fresh("budget");
    let out = ply(&[
        "analyze",
        "quixo:3x3",
        "--save",
        "--memory",
        "1000",
        "--db-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tier x") && stderr.contains("1000 bytes"),
        "{stderr}"
    );
    assert!(
        !dir.exists() || shard_files(&dir).is_empty(),
        "no tier was written"
    );
    let out = ply(&["analyze", "lgame", "--memory", "1000000"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "only tiered games take a budget"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_position_is_refused_before_any_solve_or_build() {
    // Quixo 5x5 is far too large to build for one query, so a position
    // reaching the solver is refused for that; a bad one must be refused
    // for itself first, naming the position and what is wrong with it.
    let dir = fresh("bad-position");
    for (bad, why) in [
        ("...../...../...../...../...../Z", "the mover is 'Z'"),
        ("...../...../X", "parts"),
        ("..../..../..../..../X", "parts"),
    ] {
        let out = ply(&["solve", "quixo", bad, "--db-dir", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("bad quixo position") && stderr.contains(why),
            "{bad}: {stderr}"
        );
        assert!(!stderr.contains("too many to solve"), "{bad}: {stderr}");
    }
    // A good position gets past parsing: it is refused for want of a
    // database, naming the command that builds one.
    let out = ply(&[
        "solve",
        "quixo",
        "...../...../...../...../...../X",
        "--db-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("has no database") && stderr.contains("`ply analyze quixo --save`"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
