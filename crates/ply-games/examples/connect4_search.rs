//! The cost of Connect Four's alpha-beta search, position by position:
//! reads move sequences (one a line) on stdin and prints each position's
//! outcome, the positions searched and the seconds, as `ply solve` would
//! find its value (not its moves' values).
//!
//! `cargo run --release -p ply-games --example connect4_search -- W H TABLE_MIB THREADS [moves]`
//!
//! With `moves`, each position's moves are searched instead, side by side
//! on the threads, and its outcome found from theirs, as `ply solve`
//! reports them.

use ply_core::{Game, Outcome};
use ply_games::connect4::{ConnectFour, search::Searcher};
use std::io::BufRead;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| -> u64 {
        args.get(i)
            .map(|a| {
                a.parse()
                    .unwrap_or_else(|_| panic!("argument {}: a number, not {a:?}", i + 1))
            })
            .unwrap_or(default)
    };
    let (width, height) = (number(0, 7) as u32, number(1, 6) as u32);
    let table = number(2, 64) << 20;
    let threads = number(3, 1) as usize;
    let moves = args.get(4).is_some_and(|a| a == "moves");
    let game = ConnectFour::new(width, height).expect("a board that fits 64 bits");
    let searcher = Searcher::new(&game, table);
    let (mut total, mut nodes) = (0.0, 0);
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let seq = line.split_whitespace().next().unwrap_or("");
        let position = game
            .parse_position(seq)
            .unwrap_or_else(|e| panic!("{seq:?}: {e}"));
        let before = searcher.nodes();
        let start = Instant::now();
        let outcomes = if moves && game.primitive(&position).is_none() {
            // As `ply solve` does: the moves side by side, the position's
            // own outcome the best of theirs.
            let mut children = Vec::new();
            game.for_each_move(&position, |_, child| children.push(child));
            let found = searcher
                .solve_each(&game, &children, threads, &|| false)
                .expect("never stopped");
            let own = Outcome::from_children(found.iter().copied()).expect("a move");
            std::iter::once(own).chain(found).collect()
        } else {
            vec![
                searcher
                    .solve(&game, &position, threads, &|| false)
                    .expect("never stopped"),
            ]
        };
        let outcomes: Vec<String> = outcomes
            .iter()
            .map(|o| format!("{:?}{:?}", o.value, o.remoteness))
            .collect();
        let seconds = start.elapsed().as_secs_f64();
        total += seconds;
        nodes += searcher.nodes() - before;
        println!(
            "{seq} {} nodes {} {seconds:.3} s",
            outcomes.join(" "),
            searcher.nodes() - before
        );
    }
    println!("total {total:.3} s, {nodes} nodes");
}
