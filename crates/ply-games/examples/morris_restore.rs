//! Times the tier solver's finding again of a Nine Men's Morris moving
//! sector's left-out remoteness ([`ply_core::tier::restore`]), as the
//! whole game does when it takes the moving phase's shard of that sector,
//! and checks the cells found against a shard that keeps every remoteness.
//! Prints the cells found and the seconds; exits 1 if a cell differs, 2 if
//! a shard cannot be read.
//!
//! `cargo run --release -p ply-games --example morris_restore -- LEFT_OUT_DIR WHOLE_DIR SECTOR`
//!
//! LEFT_OUT_DIR holds `ply analyze morris --save`'s shards (the wins'
//! remoteness left out); WHOLE_DIR a `morris:9,whole` build holding the
//! sector and its child sectors (every remoteness kept).

use ply_core::NamedTiers;
use ply_core::db::Expect;
use ply_core::tier::restore;
use ply_core::tier::{Plan, Shards, TierError};
use ply_games::Morris;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [left_out, whole_dir, sector] = args.as_slice() else {
        eprintln!("usage: morris_restore LEFT_OUT_DIR WHOLE_DIR SECTOR");
        return ExitCode::from(2);
    };
    match run(left_out.into(), whole_dir.into(), sector) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("morris_restore: {e}");
            ExitCode::from(2)
        }
    }
}

/// Finds `sector`'s left-out cells again; whether they equal the whole
/// build's.
fn run(left_out: PathBuf, whole_dir: PathBuf, sector: &str) -> Result<bool, String> {
    let (game, moving) = (Morris::new(9), Morris::moving_phase(9));
    let plan = Plan::new(&game).map_err(|e| e.to_string())?;
    let step = plan
        .named(sector)
        .ok_or_else(|| format!("no sector {sector}"))?;
    let (theirs, mine) = (
        Shards::new(&left_out, Expect::of(&moving)),
        Shards::new(&whole_dir, Expect::of(&game)),
    );
    let started = Instant::now();
    let children = step
        .children
        .iter()
        .filter_map(|&t| plan.step(t))
        .map(|s| Ok((s.tier, mine.load(s)?)))
        .collect::<Result<Vec<_>, ply_core::db::DbError>>()
        .map_err(|e| e.to_string())?;
    let mut cells = theirs.load(step).map_err(|e| e.to_string())?;
    let loaded = started.elapsed();
    let found = restore(
        &game,
        step.tier,
        &mut cells,
        |tier, index| match children.iter().find(|(t, _)| *t == tier) {
            Some((_, child)) => Ok(child.cell(index as usize)),
            None => Err(TierError::Game(format!(
                "a move leads to {}",
                game.tier_name(tier)
            ))),
        },
        |index| TierError::Game(format!("index {index} not found")),
    )
    .map_err(|e| e.to_string())?;
    let restoring = started.elapsed() - loaded;
    let whole = mine.load(step).map_err(|e| e.to_string())?;
    let differ = (0..step.size() as usize)
        .filter(|&i| cells.cell(i) != whole.cell(i))
        .count();
    println!(
        "sector {sector}: read in {:.1} s, {found} left-out cells found again in {:.1} s, {differ} differ",
        loaded.as_secs_f64(),
        restoring.as_secs_f64()
    );
    Ok(differ == 0)
}
