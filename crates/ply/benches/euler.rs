//! Strong solves of the Game of Euler and `ply judge uva10536`, each beside
//! a straightforward baseline measured in the same run.
//!
//! Run: `cargo bench -p ply --bench euler -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use ply_core::{NoProgress, Table};
use ply_games::Euler;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::io::BufRead;

/// The baseline solver: one byte per position (bit 7 set for a win, the
/// remoteness below), every mask from the full board down (a move only adds
/// squares, so children come first), every move tested against the mask.
/// Single-threaded, no tiers, no symmetry.
fn byte_table(game: &Euler) -> Vec<u8> {
    let full = game.full();
    let moves = game.move_masks();
    let mut table = vec![0u8; (full + 1) as usize];
    table[full as usize] = 0x80;
    for mask in (0..full).rev() {
        let mut fastest_win: Option<u8> = None;
        let mut slowest_loss = 0u8;
        for &mv in moves {
            if mv & mask == 0 {
                let child = table[(mask | mv) as usize];
                let r = child & 0x7f;
                if child & 0x80 == 0 {
                    fastest_win = Some(fastest_win.map_or(r, |w| w.min(r)));
                } else {
                    slowest_loss = slowest_loss.max(r);
                }
            }
        }
        table[mask as usize] = match fastest_win {
            Some(r) => 0x80 | (r + 1),
            None => slowest_loss + 1,
        };
    }
    table
}

fn strong_solve(c: &mut Criterion) {
    for params in ["4x4", "5x5"] {
        let game = Euler::from_params(params).unwrap();
        let mut group = c.benchmark_group(format!("euler:{params} strong solve"));
        group.sample_size(10);
        group.bench_function("table (symmetric, rayon)", |b| {
            b.iter(|| Table::build_symmetric(black_box(&game), &NoProgress).unwrap())
        });
        group.bench_function("table (plain, rayon)", |b| {
            b.iter(|| Table::build(black_box(&game), &NoProgress).unwrap())
        });
        group.bench_function("baseline byte table", |b| {
            b.iter(|| byte_table(black_box(&game)))
        });
        group.finish();
    }
}

/// 100,000 random boards with at least one uncovered square, in the judge format.
fn judge_input(boards: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(10536);
    let mut text = format!("{boards}\n");
    for _ in 0..boards {
        let covered: u16 = rng.random_range(0..0xffff);
        text.push('\n');
        for row in 0..4 {
            for col in 0..4 {
                text.push(if covered >> (row * 4 + col) & 1 == 1 {
                    'X'
                } else {
                    '.'
                });
            }
            text.push('\n');
        }
    }
    text.into_bytes()
}

/// The I/O floor: read the same input line by line and parse every board
/// into its mask, with no checks, lookups or output.
fn read_and_parse(mut input: &[u8]) -> u64 {
    let mut lines = (&mut input).lines();
    let count: usize = lines.next().unwrap().unwrap().trim().parse().unwrap();
    let mut sum = 0u64;
    for _ in 0..count {
        lines.next();
        let mut mask = 0u64;
        for row in 0..4 {
            for (col, ch) in lines.next().unwrap().unwrap().bytes().enumerate() {
                mask |= u64::from(ch == b'X') << (row * 4 + col);
            }
        }
        sum += mask;
    }
    sum
}

fn judge(c: &mut Criterion) {
    let input = judge_input(100_000);
    let mut group = c.benchmark_group("uva10536 100000 boards");
    group.sample_size(20);
    group.bench_function("ply judge", |b| {
        b.iter(|| {
            let mut output = Vec::with_capacity(800_000);
            ply::judge::run("uva10536", &mut black_box(&input[..]), &mut output).unwrap();
            output
        })
    });
    group.bench_function("baseline read and parse", |b| {
        b.iter(|| read_and_parse(black_box(&input)))
    });
    group.finish();
}

criterion_group!(benches, strong_solve, judge);
criterion_main!(benches);
