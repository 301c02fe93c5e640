//! `ply analyze connect4:WxH --json` as a user reads it: the counts of each
//! tier (a tier a number of discs, so a ply), which docs/connect4.md sets
//! beside Böck's, equal to what Böck's `solve.out` printed for the board
//! (tests/data/connect4), both as the build counts them and as read back
//! from the saved shards.

use crate::common::cli::{json, scratch_dir};
use serde_json::Value;
use std::collections::BTreeMap;

/// The won, drawn and lost counts per ply of `board` that Böck's
/// `solve.out` printed (its own output file, not the README's table).
fn bocks(board: &str) -> BTreeMap<u64, [u64; 3]> {
    let text = include_str!("../../../../tests/data/connect4/positions-per-ply.csv");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|line| line.split(',').collect::<Vec<_>>())
        .filter(|f| f[0] == board && f[6] == format!("bock-{board}.out"))
        .map(|f| {
            let n = |i: usize| f[i].parse::<u64>().unwrap();
            (n(1), [n(2), n(3), n(4)])
        })
        .collect()
}

/// The report's counts by ply (tiers named `discs-NN`), as won, drawn
/// (ties) and lost for the player to move, checked to add up to the
/// report's totals.
fn by_ply(report: &Value) -> BTreeMap<u64, [u64; 3]> {
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    let tiers = report["by_tier"].as_array().expect("by_tier");
    let mut plies = BTreeMap::new();
    for tier in tiers {
        let name = tier["tier"].as_str().unwrap();
        let ply: u64 = name.strip_prefix("discs-").unwrap().parse().unwrap();
        let counts = [
            n(tier, "win"),
            n(tier, "tie") + n(tier, "draw"),
            n(tier, "lose"),
        ];
        assert_eq!(counts.iter().sum::<u64>(), n(tier, "positions"), "{tier}");
        assert!(plies.insert(ply, counts).is_none(), "ply {ply} twice");
    }
    for (at, key) in [(0, "win"), (2, "lose")] {
        let sum: u64 = plies.values().map(|c| c[at]).sum();
        assert_eq!(sum, n(report, key), "{key}");
    }
    plies
}

#[test]
fn analyze_counts_each_ply_as_bocks_solver_does() {
    for board in ["4x4", "5x4"] {
        let dir = scratch_dir(board);
        let game = format!("connect4:{board}");
        let db = dir.to_str().unwrap();
        let built = json(&["analyze", &game, "--save", "--db-dir", db, "--json"]);
        assert_eq!(built["tiers_solved"].as_u64(), built["tiers"].as_u64());
        assert_eq!(by_ply(&built), bocks(board), "{board}, as built");
        let read = json(&["analyze", &game, "--save", "--db-dir", db, "--json"]);
        assert_eq!(
            read["tiers_solved"], 0,
            "{board}: read back, not solved again"
        );
        assert_eq!(by_ply(&read), bocks(board), "{board}, read back");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
