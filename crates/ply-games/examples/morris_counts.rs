//! Nine Men's Morris's moving-phase counts from a database against the
//! published table: for each ordered pair of stone counts whose sectors are
//! in DIR, ply's wins, losses, draws and longest win and loss against every
//! source's row (tests/data/morris-counts.txt). Exits 1 on any difference.
//!
//! `cargo run --release -p ply-games --example morris_counts -- DIR`

use ply_games::Morris;
use ply_games::morris_facts::{Row, count_shards, parse_table};
use std::path::PathBuf;
use std::process::ExitCode;

fn show(row: &Row) -> String {
    format!(
        "{:>11} {:>11} {:>11} {:>4} {:>4}",
        row.wins, row.losses, row.draws, row.max_win, row.max_loss
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
    let (rows, counted) = match count_shards(&Morris::moving_phase(9), &dir) {
        Ok(found) => found,
        Err(why) => {
            eprintln!("{}: {why}", dir.display());
            return ExitCode::from(2);
        }
    };
    println!("sectors counted: {}", counted.join(" "));
    println!(
        "{:<10} {:>4} {:>11} {:>11} {:>11} {:>4} {:>4}",
        "source", "w-b", "wins", "losses", "draws", "maxW", "maxL"
    );
    let (mut compared, mut differ) = (0, 0);
    for (&(w, b), ply) in &rows {
        println!("{:<10} {:>4} {}", "ply", format!("{w}-{b}"), show(ply));
        for (source, published) in &table {
            let Some(row) = published.get(&(w, b)) else {
                continue;
            };
            compared += 1;
            let mark = if row == ply {
                "same"
            } else {
                differ += 1;
                "DIFFERS"
            };
            println!(
                "{source:<10} {:>4} {} {mark}",
                format!("{w}-{b}"),
                show(row)
            );
        }
    }
    println!(
        "{} pairs counted, {compared} rows compared, {differ} differ",
        rows.len()
    );
    if differ > 0 || rows.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
