//! Two Nine Men's Morris databases' shards of one sector, cell for cell:
//! the value and remoteness at every key, however each file encodes them
//! (its dictionary, blocks and header may differ). Where one shard leaves
//! out a side's remoteness, that side's cells are compared by value.
//! Prints the cells compared and the first keys that differ; exits 1 if
//! any differs, 2 if a shard cannot be read.
//!
//! `cargo run --release -p ply-games --example morris_shard_diff -- DIR_A DIR_B SECTOR`

use ply_core::db::{Database, Expect};
use ply_core::tier::{Plan, Shards};
use ply_core::{Cell, Solution};
use ply_games::Morris;
use ply_games::morris_facts::runs;
use rayon::prelude::*;
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;

/// Keys compared at a time, per thread.
const RUN: u64 = 1 << 22;

/// Keys whose cells differ, at most, that are printed.
const SHOWN: usize = 10;

/// Whether two cells say the same: the same value and remoteness, or
/// where one of them leaves out the remoteness, the same value.
fn same(a: Cell, b: Cell) -> bool {
    match (a.unpack(), b.unpack()) {
        (Some(a), Some(b)) => a == b,
        _ => {
            let value = |cell: Cell| cell.unpack().map(|o| o.value).or(cell.left_out_value());
            value(a).is_some() && value(a) == value(b)
        }
    }
}

/// The known cells of `db` with keys in `run`, in key order.
fn cells(db: &Database, run: Range<u64>) -> Result<Vec<(u64, Cell)>, String> {
    let mut found = Vec::new();
    db.for_each_cell(run, &mut |key, cell| found.push((key, cell)))
        .map_err(|e| e.to_string())?;
    Ok(found)
}

/// The keys of `run` whose cells differ between `a` and `b`, and the
/// cells compared.
fn differ(a: &Database, b: &Database, run: Range<u64>) -> Result<(Vec<u64>, u64), String> {
    let (a, b) = (cells(a, run.clone())?, cells(b, run)?);
    let mut keys: Vec<u64> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&(ka, ca)), Some(&(kb, cb))) if ka == kb => {
                if !same(ca, cb) {
                    keys.push(ka);
                }
                i += 1;
                j += 1;
            }
            (Some(&(ka, _)), Some(&(kb, _))) if ka < kb => {
                keys.push(ka);
                i += 1;
            }
            (Some(&(ka, _)), None) => {
                keys.push(ka);
                i += 1;
            }
            (_, Some(&(kb, _))) => {
                keys.push(kb);
                j += 1;
            }
            (None, None) => break,
        }
    }
    Ok((keys, a.len().max(b.len()) as u64))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [a, b, sector] = args.as_slice() else {
        eprintln!("usage: morris_shard_diff DIR_A DIR_B SECTOR (such as m6-6)");
        return ExitCode::from(2);
    };
    let game = Morris::moving_phase(9);
    let plan = match Plan::new(&game) {
        Ok(plan) => plan,
        Err(why) => {
            eprintln!("morris_shard_diff: {why}");
            return ExitCode::from(2);
        }
    };
    let Some(step) = plan.steps.iter().find(|step| step.name == *sector) else {
        eprintln!("morris_shard_diff: no sector '{sector}' in the nine-stone moving phase");
        return ExitCode::from(2);
    };
    let open = |dir: &String| {
        Shards::new(&PathBuf::from(dir), Expect::of(&game))
            .open_step(step)
            .map_err(|e| format!("{dir}: sector {sector}: {e}"))
    };
    let (a, b) = match (open(a), open(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => {
            eprintln!("morris_shard_diff: {why}");
            return ExitCode::from(2);
        }
    };
    let found: Result<Vec<(Vec<u64>, u64)>, String> = runs(step.keys.clone(), RUN)
        .into_par_iter()
        .map(|run| differ(&a, &b, run))
        .collect();
    let found = match found {
        Ok(found) => found,
        Err(why) => {
            eprintln!("morris_shard_diff: {why}");
            return ExitCode::from(2);
        }
    };
    let compared: u64 = found.iter().map(|(_, n)| n).sum();
    let keys: Vec<u64> = found.into_iter().flat_map(|(keys, _)| keys).collect();
    println!(
        "sector {sector}: {compared} cells compared, {} differ",
        keys.len()
    );
    for key in keys.iter().take(SHOWN) {
        println!("  differs at index {}", key - step.keys.start);
    }
    if keys.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
