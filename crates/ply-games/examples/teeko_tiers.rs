//! Teeko through the tier solver, timed, and checked cell for cell against
//! a database of the whole-game retrograde solver: the check of the drop
//! tiers and the move phase too large for CI (172,401,726 positions).
//!
//! `cargo run --release -p ply-games --example teeko_tiers -- PARAMS DIR [WHOLE_DB]`
//! builds `teeko[:PARAMS]` (`-` for none) tier by tier into DIR (resuming
//! from finished tiers), prints the time, each tier's value counts and the
//! start's value; with WHOLE_DB (a file written by `ply analyze teeko --save`
//! with the whole-game solver) it compares every position's cell and exits
//! 1 on any difference.

use ply_core::db::{Database, Expect};
use ply_core::tier::{Options, Plan, Shards, build};
use ply_core::{Cell, Game, NamedTiers, NoProgress, Solution, Variant};
use ply_games::Teeko;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || args.len() > 3 {
        eprintln!("usage: teeko_tiers PARAMS DIR [WHOLE_DB]   (PARAMS '-' for the standard game)");
        std::process::exit(2);
    }
    let params = (args[0] != "-").then_some(args[0].as_str());
    let game = Teeko::named(params).unwrap_or_else(|e| {
        eprintln!("teeko_tiers: {e}");
        std::process::exit(2)
    });
    let dir = PathBuf::from(&args[1]);
    let fail = |what: &str, e: &dyn std::fmt::Display| -> ! {
        eprintln!("teeko_tiers: {what}: {e}");
        std::process::exit(1)
    };
    let plan = Plan::new(&game).unwrap_or_else(|e| fail("plan", &e));
    let start = Instant::now();
    let options = Options {
        dir: dir.clone(),
        ..Options::default()
    };
    let built = build(&game, &plan, &options, &NoProgress).unwrap_or_else(|e| fail("build", &e));
    println!(
        "{}: {} tiers ({} found done, {} solved) in {:.2} s; largest tier needs {} bytes",
        game.name(),
        built.tiers,
        built.found_done,
        built.solved,
        start.elapsed().as_secs_f64(),
        built.peak_bytes
    );
    let expect = Expect::of(&game);
    let db = Shards::new(&dir, expect.clone())
        .open(&plan)
        .unwrap_or_else(|e| fail("open the shards", &e));
    let whole = args.get(2).map(|path| {
        Database::open(&PathBuf::from(path), &expect).unwrap_or_else(|e| fail(path, &e))
    });
    let mut differences = 0u64;
    for step in &plan.steps {
        let mut counts = std::collections::BTreeMap::<&str, u64>::new();
        for key in step.keys.clone() {
            let cell = db.cell(key).unwrap_or_else(|e| fail("read", &e));
            *counts
                .entry(cell.unpack().map_or("none", |o| o.value.as_str()))
                .or_default() += 1;
            if let Some(whole) = &whole {
                let theirs = whole.cell(key).unwrap_or_else(|e| fail("read", &e));
                if theirs != cell {
                    differences += 1;
                    if differences <= 10 {
                        let position = game.tier_unrank(step.tier, key - step.keys.start);
                        eprintln!(
                            "differ at {key} ({position:?}): tiers {cell:?}, whole {theirs:?}"
                        );
                    }
                }
            }
        }
        println!(
            "{:>14} {:>11} positions, by value {counts:?}",
            step.name,
            step.size()
        );
    }
    let first = db.cell(plan.key(&game, &game.start()).unwrap_or(0));
    println!(
        "start: {:?}",
        first
            .map(|c: Cell| c.unpack())
            .unwrap_or_else(|e| fail("read", &e))
    );
    if whole.is_some() {
        println!("against the whole-game database: {differences} cells differ");
        if differences > 0 {
            std::process::exit(1);
        }
    }
}
