//! What the search of Morris's placing phase costs: over the moving phase
//! of `morris:N,moving` saved in DIR (by `ply analyze morris:N,moving
//! --save --db-dir DIR`), solves placing positions `D` plies from the start
//! for each depth `D` from the last placing move down to the empty board,
//! and prints each position's outcome, the positions the search visited
//! and looked up, and its wall seconds. Positions are reached by random
//! placements (a fixed seed); each search starts with an empty table of
//! TABLE bytes and searches on THREADS threads. A search over LIMIT seconds
//! is stopped and reported as such.
//!
//! `cargo run --release -p ply-games --example morris_placing -- N DIR [SAMPLES] [LIMIT] [TABLE] [THREADS] [WHOLE_DIR] [LEAST_DEPTH]`
//! (SAMPLES positions per depth, 3 by default; LIMIT 600 seconds; TABLE
//! 64 MiB, the default of `ply solve`; THREADS the cores, as `ply solve`).
//!
//! With WHOLE_DIR, the directory of the whole game solved tier by tier
//! (`ply analyze morris:N --save`, or `morris:9,whole` for nine stones),
//! each outcome found by search is compared with the whole game's stored
//! cell, two independent methods: the retrograde solve of every placing
//! sector against alpha-beta over the moving phase. Depths below
//! LEAST_DEPTH (0 by default) are not searched. It exits with status 1 if
//! any position differs.

use ply_core::SearchStop;
use ply_core::db::{Database, Expect};
use ply_core::tier::{Plan, Shards};
use ply_core::{Cell, Game, Outcome, Progress, Solution};
use ply_games::Morris;
use ply_games::morris::search::PlacingSearch;
use std::time::{Duration, Instant};

/// Stops a search after a time limit.
struct Deadline(Instant);

impl Progress for Deadline {
    fn begin(&self, _phase: &str, _total: u64) {}
    fn advance(&self, _done: u64) {}
    fn end(&self) {}
    fn cancelled(&self) -> bool {
        Instant::now() > self.0
    }
}

/// The outcome of `p` in `db`, the database of `game` laid out by `plan`;
/// a cell whose remoteness the database leaves out is found again from
/// its children's ([`ply_core::derive::complete`]), as `ply solve` does.
fn outcome_of(
    game: &Morris,
    plan: &Plan<<Morris as ply_core::NamedTiers>::Tier>,
    db: &Database,
    p: &<Morris as Game>::Position,
) -> Result<Outcome, String> {
    let cell = |p: &<Morris as Game>::Position| -> Result<Cell, String> {
        let key = plan
            .key(game, p)
            .ok_or_else(|| format!("{} is in no tier", game.format_position(p)))?;
        db.cell(key).map_err(|e| e.to_string())
    };
    ply_core::derive::complete(game, p, cell(p)?, cell)?
        .ok_or_else(|| format!("{} is not solved", game.format_position(p)))
}

fn fail(why: impl std::fmt::Display) -> ! {
    eprintln!("morris_placing: {why}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(2..=8).contains(&args.len()) {
        fail(
            "usage: morris_placing N DIR [SAMPLES] [LIMIT_SECONDS] [TABLE_BYTES] [THREADS] \
             [WHOLE_DIR] [LEAST_DEPTH]",
        );
    }
    let stones: u8 = args[0].parse().unwrap_or_else(|_| fail("N is 3 to 9"));
    let game = Morris::from_params(&format!("{stones},moving")).unwrap_or_else(|e| fail(e));
    let samples: usize = args
        .get(2)
        .map_or(Ok(3), |s| s.parse())
        .unwrap_or_else(|e| fail(e));
    let limit: u64 = args
        .get(3)
        .map_or(Ok(600), |s| s.parse())
        .unwrap_or_else(|e| fail(e));
    let table: u64 = args
        .get(4)
        .map_or(Ok(ply_core::limits::SEARCH_TABLE_BYTES), |s| s.parse())
        .unwrap_or_else(|e| fail(e));
    let threads: usize = args
        .get(5)
        .map_or(Ok(rayon::current_num_threads()), |s| s.parse())
        .unwrap_or_else(|e| fail(e));
    let least_depth: usize = args
        .get(7)
        .map_or(Ok(0), |s| s.parse())
        .unwrap_or_else(|e| fail(e));
    let plan = Plan::new(&game).unwrap_or_else(|e| fail(e));
    let db = Shards::new(std::path::Path::new(&args[1]), Expect::of(&game))
        .open(&plan)
        .unwrap_or_else(|e| fail(format!("{}: {e}", args[1])));
    let whole = args.get(6).map(|dir| {
        let game = Morris::from_params(&format!("{stones},whole")).unwrap_or_else(|e| fail(e));
        let plan = Plan::new(&game).unwrap_or_else(|e| fail(e));
        let db = Shards::new(std::path::Path::new(dir), Expect::of(&game))
            .open(&plan)
            .unwrap_or_else(|e| fail(format!("{dir}: {e}")));
        (game, plan, db)
    });
    let stored = |p: &<Morris as Game>::Position| -> Option<Outcome> {
        let (game, plan, db) = whole.as_ref()?;
        Some(outcome_of(game, plan, db, p).unwrap_or_else(|e| fail(e)))
    };
    let show = |o: Outcome| {
        format!(
            "{} {}",
            o.value.as_str(),
            o.remoteness.map_or(String::new(), |r| r.to_string())
        )
    };
    let (mut compared, mut differ) = (0u64, 0u64);
    let leaf = |p: &<Morris as Game>::Position| outcome_of(&game, &plan, &db, p);
    println!(
        "depth  hands  position                                 outcome     nodes       leaves      seconds  whole"
    );
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut random = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for depth in (least_depth..2 * usize::from(stones)).rev() {
        for _ in 0..if depth == 0 { 1 } else { samples } {
            let mut position = game.start();
            for _ in 0..depth {
                let mut children = Vec::new();
                game.for_each_move(&position, |_, child| children.push(child));
                position = children[random(children.len())];
            }
            if game.primitive(&position).is_some() {
                continue;
            }
            let search = PlacingSearch::new(PlacingSearch::entries_within(table), threads);
            let start = Instant::now();
            let deadline = Deadline(start + Duration::from_secs(limit));
            let found = search.solve(&game, &position, &leaf, &deadline);
            let seconds = start.elapsed().as_secs_f64();
            let outcome = match &found {
                Ok(o) => show(*o),
                Err(SearchStop::Cancelled) => format!("over {limit}s"),
                Err(SearchStop::Leaf(e)) => fail(e),
            };
            let against = match (stored(&position), &found) {
                (Some(w), Ok(o)) => {
                    compared += 1;
                    if w == *o {
                        "same".to_string()
                    } else {
                        differ += 1;
                        format!("DIFFERS: {}", show(w))
                    }
                }
                (Some(w), Err(_)) => show(w),
                (None, _) => String::new(),
            };
            let [w, b] = position.hand;
            println!(
                "{depth:>5}  {w},{b}    {:<40} {outcome:<11} {:<11} {:<11} {seconds:<8.3} {against}",
                game.format_position(&position),
                search.nodes(),
                search.leaves()
            );
        }
    }
    if whole.is_some() {
        println!(
            "against the whole game's database: {compared} positions compared, {differ} differ"
        );
        if differ > 0 {
            std::process::exit(1);
        }
    }
}
