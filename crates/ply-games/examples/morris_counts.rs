//! Nine Men's Morris's moving-phase counts from a database against the
//! published table: for each ordered pair of stone counts whose sectors are
//! in DIR, ply's wins, losses, draws and longest win and loss against every
//! source's row (tests/data/morris-counts.txt). Exits 1 on any difference.
//! Where a shard leaves out a side's remoteness, that side's longest is
//! exact for one pair and a bound (`<=`) for the others.
//!
//! `cargo run --release -p ply-games --example morris_counts -- DIR`

use ply_core::Value;
use ply_games::Morris;
use ply_games::morris_facts::{Counted, Row, count_shards, parse_table};
use std::path::PathBuf;
use std::process::ExitCode;

/// A row's numbers; a longest known only as a bound is marked `<=`.
fn show(row: &Row, bounded: impl Fn(Value) -> bool) -> String {
    let longest = |value: Value, n: u32| {
        if bounded(value) {
            format!("<={n}")
        } else {
            n.to_string()
        }
    };
    format!(
        "{:>11} {:>11} {:>11} {:>5} {:>5}",
        row.wins,
        row.losses,
        row.draws,
        longest(Value::Win, row.max_win),
        longest(Value::Lose, row.max_loss)
    )
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: morris_counts DIR (a directory of morris tier shards)");
        return ExitCode::from(2);
    };
    let table = match parse_table(include_str!("../tests/data/morris-counts.txt")) {
        Ok(table) => table,
        Err(why) => {
            eprintln!("morris-counts.txt: {why}");
            return ExitCode::from(2);
        }
    };
    let counted: Counted = match count_shards(&Morris::moving_phase(9), &dir) {
        Ok(found) => found,
        Err(why) => {
            eprintln!("{}: {why}", dir.display());
            return ExitCode::from(2);
        }
    };
    println!("sectors counted: {}", counted.sectors.join(" "));
    println!(
        "{:<10} {:>4} {:>11} {:>11} {:>11} {:>5} {:>5}",
        "source", "w-b", "wins", "losses", "draws", "maxW", "maxL"
    );
    let (mut compared, mut differ) = (0, 0);
    for (&(w, b), ply) in &counted.rows {
        let bounded = |value| counted.bounded.contains(&((w, b), value));
        println!(
            "{:<10} {:>4} {}",
            "ply",
            format!("{w}-{b}"),
            show(ply, bounded)
        );
        for (source, published) in &table {
            let Some(row) = published.get(&(w, b)) else {
                continue;
            };
            compared += 1;
            let mark = if counted.agrees((w, b), row) {
                "same"
            } else {
                differ += 1;
                "DIFFERS"
            };
            println!(
                "{source:<10} {:>4} {} {mark}",
                format!("{w}-{b}"),
                show(row, |_| false)
            );
        }
    }
    println!(
        "{} pairs counted, {compared} rows compared, {differ} differ; {} longest known as a bound \
         (shards leaving out a side's remoteness)",
        counted.rows.len(),
        counted.bounded.len()
    );
    if differ > 0 || counted.rows.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
