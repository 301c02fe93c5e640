//! Times the tier solver on one sector of nine-stone Morris's whole game
//! (`morris:9,whole`), placing sectors included, from its child sectors'
//! shards in a whole build's directory, and checks the cells against the
//! stored shard of that sector. Prints the solver's notes (first pass,
//! layers) and the cells compared; exits 1 if a cell differs, 2 if a
//! shard cannot be read. For comparing versions of the solver on a sector
//! `scripts/morris-sector` cannot reach (it solves the moving phase).
//!
//! `cargo run --release -p ply-games --example morris_tier -- WHOLE_DIR SECTOR`
//!
//! With `moving` after SECTOR it reads the moving phase's database
//! (`morris`, as `scripts/morris-solve 9` leaves it) instead, for timing
//! one moving sector alone, without `ply analyze`'s setup.

use ply_core::db::Expect;
use ply_core::tier::{ChildCells, solve_tier};
use ply_core::tier::{Plan, Shards};
use ply_core::{NamedTiers, Progress};
use ply_games::Morris;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Prints the solver's notes.
struct Notes;

impl Progress for Notes {
    fn begin(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn end(&self) {}
    fn note(&self, line: &str) {
        println!("{line}");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, sector, moving) = match args.as_slice() {
        [dir, sector] => (dir, sector, false),
        [dir, sector, mode] if mode == "moving" => (dir, sector, true),
        _ => {
            eprintln!("usage: morris_tier DIR SECTOR [moving]");
            return ExitCode::from(2);
        }
    };
    let game = if moving {
        Morris::moving_phase(9)
    } else {
        Morris::new(9)
    };
    match run(&game, dir.into(), sector) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("morris_tier: {e}");
            ExitCode::from(2)
        }
    }
}

/// Solves `sector` from its child sectors in `dir`; whether its cells
/// equal the stored shard's.
fn run(game: &Morris, dir: PathBuf, sector: &str) -> Result<bool, String> {
    let plan = Plan::new(game).map_err(|e| e.to_string())?;
    let step = plan
        .named(sector)
        .ok_or_else(|| format!("no sector {sector}"))?;
    let shards = Shards::new(&dir, Expect::of(game));
    let children = step
        .children
        .iter()
        .filter_map(|&t| plan.step(t))
        .map(|s| {
            Ok(ChildCells {
                tier: s.tier,
                cells: shards.load(s)?,
            })
        })
        .collect::<Result<Vec<_>, ply_core::db::DbError>>()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let solved = solve_tier(game, step.tier, &children, &Notes).map_err(|e| e.to_string())?;
    let solving = started.elapsed();
    drop(children);
    let stored = shards.load(step).map_err(|e| e.to_string())?;
    let differ = (0..step.size())
        .filter(|&i| solved.cell(game, step.tier, i) != stored.cell(i as usize))
        .count();
    println!(
        "sector {sector} ({} indices): solved in {:.1} s, {differ} cells differ",
        game.tier_size(step.tier),
        solving.as_secs_f64()
    );
    Ok(differ == 0)
}
