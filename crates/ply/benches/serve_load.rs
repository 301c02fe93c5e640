//! Load on `GET /api/solve` over loopback: 16 clients at once, each on its own
//! kept-alive connection, asking for positions met in real games of Euler.
//! Reports requests per second and latency percentiles for the server as it
//! ships (answers kept in its cache) and, as the baseline, the same server
//! with no cache, which solves every request afresh.
//!
//! Bounded in requests and in time; loopback only. Run with
//! `cargo bench -p ply --bench serve_load` (`-- --quick` for a short run).

#[path = "../tests/common/mod.rs"]
mod common;

use common::http::{Client, solve_path};
use ply::play::choose;
use ply::registry;
use ply::serve::DEFAULT_CACHE_BYTES;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const CLIENTS: usize = 16;

/// Every position of `games` Euler games between a random and a perfect player.
fn positions(games: u64) -> Vec<String> {
    let session = registry::open("euler").expect("euler is built in");
    let mut out = Vec::new();
    for seed in 0..games {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut report = session.solve(None).expect("the start solves");
        loop {
            out.push(report.position.clone());
            let next = if out.len() % 2 == 0 {
                choose::choose(&report, &mut rng)
            } else {
                report.moves.choose(&mut rng)
            };
            let Some(next) = next else { break };
            report = session.solve(Some(&next.position)).expect("a move solves");
        }
    }
    out
}

struct Load {
    requests: usize,
    seconds: f64,
    latencies: Vec<Duration>,
}

impl Load {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.seconds
    }

    fn percentile(&self, p: f64) -> Duration {
        let i = ((self.latencies.len() as f64 * p).ceil() as usize).clamp(1, self.latencies.len());
        self.latencies[i - 1]
    }
}

/// `CLIENTS` clients ask for `positions` round-robin until `limit` requests
/// in all or `time` has passed.
fn load(addr: SocketAddr, positions: &[String], limit: usize, time: Duration) -> Load {
    let started = Instant::now();
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let paths: Vec<String> = positions
                .iter()
                .map(|p| solve_path("euler", Some(p)))
                .collect();
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).expect("the server listens");
                let mut latencies = Vec::new();
                let mut i = c * 7;
                while latencies.len() < limit / CLIENTS && started.elapsed() < time {
                    let asked = Instant::now();
                    let answer = client.get(&paths[i % paths.len()]).expect("an answer");
                    latencies.push(asked.elapsed());
                    assert_eq!(answer.status, 200, "{}", answer.body);
                    i += 1;
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a client thread"))
        .collect();
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort();
    Load {
        requests: latencies.len(),
        seconds,
        latencies,
    }
}

fn report(name: &str, load: &Load) {
    println!(
        "{name:<34} {:>7} requests in {:>5.2} s  {:>8.0} req/s  p50 {:>8.2} ms  p99 {:>8.2} ms  max {:>8.2} ms",
        load.requests,
        load.seconds,
        load.per_second(),
        load.percentile(0.50).as_secs_f64() * 1e3,
        load.percentile(0.99).as_secs_f64() * 1e3,
        load.percentile(1.0).as_secs_f64() * 1e3,
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (limit, time) = if quick {
        (4_000, Duration::from_secs(3))
    } else {
        (100_000, Duration::from_secs(10))
    };
    let positions = positions(if quick { 5 } else { 20 });
    println!(
        "GET /api/solve, euler, {} positions from real games, {CLIENTS} clients at once",
        positions.len()
    );

    let cached = common::server::start(2, DEFAULT_CACHE_BYTES);
    // One pass to fill the cache, as a server in use would have.
    let mut client = Client::connect(cached).expect("the server listens");
    for position in &positions {
        client
            .get(&solve_path("euler", Some(position)))
            .expect("an answer");
    }
    report(
        "ply serve (answers cached)",
        &load(cached, &positions, limit, time),
    );

    let fresh = common::server::start(2, 0);
    let baseline = load(fresh, &positions, limit, time);
    report("baseline: no cache, solve each", &baseline);

    let start = vec![positions[0].clone()];
    report(
        "ply serve, start position only",
        &load(cached, &start, limit, time),
    );
    report(
        "baseline, start position only",
        &load(fresh, &start, limit / 10, time),
    );
}
