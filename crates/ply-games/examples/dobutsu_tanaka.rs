//! Counts the Dobutsu Shogi positions reachable from the start under
//! Tanaka's convention (2009: 246,803,167): positions seen from the mover's
//! side, a position and its left-right mirror image counted once, and play
//! stopping only where the mover can catch the Lion. A Lion moved onto the
//! far rank does not stop play; the position after it is the end if the
//! Lion cannot be caught there. ply's own solve stops at safe tries too.
//!
//! `cargo run --release -p ply-games --example dobutsu_tanaka [PARAMS]`
//! (PARAMS as in `dobutsu:PARAMS`, e.g. `GC`; the full game by default):
//! 38 s and 242 MB for the full game on two cores.

use ply_core::solve::byte_retro::count_reached;
use ply_core::{NoProgress, Variant};
use ply_games::Dobutsu;

fn main() {
    let params = std::env::args().nth(1);
    let game = Dobutsu::named(params.as_deref()).unwrap_or_else(|e| {
        eprintln!("dobutsu_tanaka: {e}");
        std::process::exit(2)
    });
    // Play passes through positions the rules decide, which the solved
    // index leaves out: counted over the index that keeps them.
    match count_reached(
        &game.with_every_placement(),
        Dobutsu::can_catch,
        &NoProgress,
    ) {
        Ok([positions, classes]) => {
            println!("positions {positions}");
            println!("mirror_classes {classes}");
        }
        Err(e) => {
            eprintln!("dobutsu_tanaka: {e}");
            std::process::exit(1)
        }
    }
}
