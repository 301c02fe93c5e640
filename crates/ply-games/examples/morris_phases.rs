//! Where the time of a Morris tier solve goes: builds `morris:N` sector by
//! sector into DIR (resuming from finished sectors) and prints, for each
//! sector solved, its size and the wall seconds of reading its child
//! sectors, of the first pass (reaching every position and counting its
//! children), of the remoteness rounds, and of writing its shard.
//!
//! `cargo run --release -p ply-games --example morris_phases -- N DIR`

use ply_core::Progress;
use ply_core::tier::{Options, Plan, build};
use ply_games::Morris;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

/// Seconds spent in each phase, by the progress events the tier solver
/// sends: `begin("tier ..")` starts the first pass, its `end` the rounds,
/// `begin("writing")` the write, its `end` the reading of the next
/// sector's children.
struct Phases {
    state: Mutex<State>,
}

struct State {
    /// The phase now running and since when.
    phase: &'static str,
    since: Instant,
    /// The sector now solved and its size.
    sector: String,
    size: u64,
    /// Seconds so far: read, first pass, rounds, write.
    seconds: [f64; 4],
    /// The same over every sector.
    total: [f64; 4],
    positions: u64,
}

const NAMES: [&str; 4] = ["read", "first pass", "rounds", "write"];

impl State {
    /// Closes the running phase and starts `next`.
    fn switch(&mut self, next: &'static str) {
        let now = Instant::now();
        let spent = now.duration_since(self.since).as_secs_f64();
        if let Some(i) = NAMES.iter().position(|&n| n == self.phase) {
            self.seconds[i] += spent;
            self.total[i] += spent;
        }
        self.phase = next;
        self.since = now;
    }

    /// Prints the sector just finished.
    fn report(&mut self) {
        let s = self.seconds;
        println!(
            "{:>12} {:>12} positions  read {:>7.2}s  first pass {:>7.2}s  rounds {:>7.2}s  write {:>7.2}s",
            self.sector, self.size, s[0], s[1], s[2], s[3]
        );
        self.seconds = [0.0; 4];
    }
}

impl Progress for Phases {
    fn begin(&self, phase: &str, total: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(name) = phase.strip_prefix("tier ") {
            state.switch("first pass");
            state.sector = name.to_string();
            state.size = total;
            state.positions += total;
        } else if phase == "writing" {
            state.switch("write");
        }
    }
    fn advance(&self, _done: u64) {}
    fn end(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match state.phase {
            "first pass" => state.switch("rounds"),
            "write" => {
                state.switch("read");
                state.report();
            }
            _ => {}
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: morris_phases N DIR");
        std::process::exit(2);
    }
    let game = Morris::from_params(&args[0]).unwrap_or_else(|e| {
        eprintln!("morris_phases: {e}");
        std::process::exit(2)
    });
    let plan = Plan::new(&game).unwrap_or_else(|e| {
        eprintln!("morris_phases: {e}");
        std::process::exit(1)
    });
    let phases = Phases {
        state: Mutex::new(State {
            phase: "read",
            since: Instant::now(),
            sector: String::new(),
            size: 0,
            seconds: [0.0; 4],
            total: [0.0; 4],
            positions: 0,
        }),
    };
    let start = Instant::now();
    let options = Options {
        dir: PathBuf::from(&args[1]),
        // One sector at a time, so that each phase's time is its own.
        at_once: Some(1),
        ..Options::default()
    };
    let built = build(&game, &plan, &options, &phases).unwrap_or_else(|e| {
        eprintln!("morris_phases: {e}");
        std::process::exit(1)
    });
    let wall = start.elapsed().as_secs_f64();
    let state = phases.state.lock().unwrap_or_else(|e| e.into_inner());
    let t = state.total;
    println!(
        "{} sectors solved ({} found done), {} indices in {wall:.1}s ({:.0} per second): \
         read {:.1}s, first pass {:.1}s, rounds {:.1}s, write {:.1}s",
        built.solved,
        built.found_done,
        state.positions,
        state.positions as f64 / wall,
        t[0],
        t[1],
        t[2],
        t[3]
    );
}
