//! `ply judge uva10561` on 10,000 rows of 200 squares, against the usual
//! contest solution in the same run: Grundy values of 0.007 up to 202 by
//! the plain loop, then for every empty square of every row, put an X
//! there and rescan the whole row for its intervals (O(n²) per row).

use criterion::{Criterion, criterion_group, criterion_main};
use ply::judge;
use ply_core::solve::octal::{OctalCode, plain_values};
use std::fmt::Write as _;
use std::hint::black_box;

/// 10,000 rows of 200 squares with about one X in twelve, no three in a
/// row, from a fixed linear congruential generator.
fn input() -> String {
    let mut state: u64 = 0x5eed;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let mut text = String::from("10000\n");
    for _ in 0..10_000 {
        let mut row: Vec<u8> = (0..200)
            .map(|_| if next() % 12 == 0 { b'X' } else { b'.' })
            .collect();
        for s in 2..row.len() {
            if row[s - 2..=s] == *b"XXX" {
                row[s] = b'.';
            }
        }
        text.push_str(std::str::from_utf8(&row).unwrap());
        text.push('\n');
    }
    text
}

/// The nim sum of a row's intervals (0.007 values by heap), or `None` if
/// the mover can complete three in a row.
fn nim_sum(row: &[u8], values: &[u16]) -> Option<u16> {
    let n = row.len();
    let x = |i: isize| i >= 0 && (i as usize) < n && row[i as usize] == b'X';
    for i in 0..n as isize {
        if !x(i) && (x(i - 1) && x(i - 2) || x(i - 1) && x(i + 1) || x(i + 1) && x(i + 2)) {
            return None;
        }
    }
    let mut sum = 0;
    let mut run = 0;
    let mut left_end = true;
    // The row's end closes the last run like an X.
    for (s, &square) in row.iter().chain([b'X'].iter()).enumerate() {
        if square == b'X' {
            let ends = usize::from(left_end) + usize::from(s == n);
            // A run of k empty squares is heap k - 2 + 2 per row end.
            let heap = (run + 2 * ends).saturating_sub(2);
            sum ^= values[heap];
            run = 0;
            left_end = false;
        } else {
            run += 1;
        }
    }
    Some(sum)
}

fn baseline(input: &str) -> String {
    let values = plain_values(&OctalCode::parse("0.007").unwrap(), 202).unwrap();
    let mut out = String::new();
    for line in input.lines().skip(1) {
        let row = line.as_bytes();
        let mut winning = Vec::new();
        for s in 0..row.len() {
            if row[s] == b'X' {
                continue;
            }
            let mut next = row.to_vec();
            next[s] = b'X';
            let completes = next.windows(3).any(|w| w == b"XXX");
            // A move wins if it completes three, or leaves a position
            // without an immediate win whose nim sum is 0 (after any other
            // move the opponent can complete three).
            if completes || nim_sum(&next, &values) == Some(0) {
                winning.push((s + 1).to_string());
            }
        }
        if winning.is_empty() {
            out.push_str("LOSING\n\n");
        } else {
            let _ = writeln!(out, "WINNING\n{}", winning.join(" "));
        }
    }
    out
}

fn run_judge(input: &str) -> Vec<u8> {
    let mut output = Vec::new();
    judge::run("uva10561", &mut input.as_bytes(), &mut output).unwrap();
    output
}

fn treblecross(c: &mut Criterion) {
    let input = input();
    assert_eq!(
        String::from_utf8(run_judge(&input)).unwrap(),
        baseline(&input),
        "ply and the baseline disagree"
    );
    let mut group = c.benchmark_group("uva10561 10000 rows of 200");
    group.sample_size(10);
    group.bench_function("ply judge", |b| b.iter(|| run_judge(black_box(&input))));
    group.bench_function("baseline: rescan per square", |b| {
        b.iter(|| baseline(black_box(&input)))
    });
    group.finish();
}

criterion_group!(benches, treblecross);
criterion_main!(benches);
