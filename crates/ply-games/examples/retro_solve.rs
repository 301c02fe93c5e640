//! The single-machine retrograde solver on one game, timed: the baseline
//! of the distributed runs in BENCHMARKS.md ("Distributed retrograde
//! analysis"). `cargo run --release -p ply-games --example retro_solve -- GAME`
//! with GAME one of lgame, yehr, euler:RxC, tictactoe:RxCxK.

use ply_core::solve::retro;
use ply_core::{Indexed, NoProgress, Variant};
use ply_games::{Euler, LGame, TicTacToe, Yehr};
use std::time::Instant;

fn main() {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "yehr".into());
    let (name, params) = spec.split_once(':').unwrap_or((spec.as_str(), ""));
    let start = Instant::now();
    let (table, len) = match name {
        "lgame" => (
            retro::solve(&LGame::new(), &NoProgress),
            LGame::new().index_len(),
        ),
        "yehr" => (
            retro::solve_with_parents(&Yehr, &NoProgress),
            Yehr.index_len(),
        ),
        "euler" | "tictactoe" => {
            let params = (!params.is_empty()).then_some(params);
            let result = if name == "euler" {
                Euler::named(params).map(|g| (retro::solve(&g, &NoProgress), g.index_len()))
            } else {
                TicTacToe::named(params).map(|g| (retro::solve(&g, &NoProgress), g.index_len()))
            };
            match result {
                Ok(solved) => solved,
                Err(e) => {
                    eprintln!("{spec}: {e}");
                    std::process::exit(2);
                }
            }
        }
        _ => {
            eprintln!("unknown game {spec}: lgame, yehr, euler:RxC or tictactoe:RxCxK");
            std::process::exit(2);
        }
    };
    match table {
        Ok(table) => println!(
            "{spec}: {} positions solved in {:.2} s",
            table.census(0..len).positions,
            start.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("{spec}: {e}");
            std::process::exit(2);
        }
    }
}
