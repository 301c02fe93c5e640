//! Counts the Dobutsu Shogi positions reachable from the start under
//! Tanaka's convention (2009: 246,803,167): positions seen from the mover's
//! side, a position and its left-right mirror image counted once, and play
//! stopping only where the mover can catch the Lion. A Lion moved onto the
//! far rank does not stop play; the position after it is the end if the
//! Lion cannot be caught there. ply's own solve stops at safe tries too.
//!
//! `cargo run --release -p ply-games --example dobutsu_tanaka [PARAMS]
//! [--legal-play]` (PARAMS as in `dobutsu:PARAMS`, e.g. `GC`; the full game
//! by default): 38 s and 242 MB for the full game on two cores. With
//! `--legal-play` it also counts what play reaches when it stops only where
//! it is over (past declined catches and tries), the positions legal play
//! reaches, as `crates/ply-games/tests/data/dobutsu.txt` names them:
//! minutes more, 320 MB.

use ply_core::solve::byte_retro::count_reached;
use ply_core::{NoProgress, Variant};
use ply_games::Dobutsu;
use ply_games::dobutsu::DobutsuPosition;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let legal_play = args.iter().any(|a| a == "--legal-play");
    let params = args.iter().find(|a| !a.starts_with("--"));
    let game = Dobutsu::named(params.map(String::as_str)).unwrap_or_else(|e| {
        eprintln!("dobutsu_tanaka: {e}");
        std::process::exit(2)
    });
    // Play passes through positions the rules decide, which the solved
    // index leaves out: counted over the index that keeps them.
    let every = game.with_every_placement();
    let count = |stops: fn(&DobutsuPosition) -> bool| {
        count_reached(&every, stops, &NoProgress).unwrap_or_else(|e| {
            eprintln!("dobutsu_tanaka: {e}");
            std::process::exit(1)
        })
    };
    let [positions, classes, _] = count(Dobutsu::can_catch);
    println!("positions {positions}");
    println!("mirror_classes {classes}");
    if legal_play {
        let [positions, classes, at_once] = count(|_| false);
        println!("reached_legal_play {positions}");
        println!("reached_legal_play_mirror_classes {classes}");
        println!("wins_at_once_legal_play {at_once}");
    }
}
