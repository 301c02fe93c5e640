//! Octal game values: ply's computation (sparse space method, or the
//! blocked parallel dense kernel where a game has no sparse space) against
//! the plain O(n²) mex loop, in the same run.
//!
//! 0.007 (Treblecross) has no sparse space, so it measures the dense
//! kernel; 0.127 has one (rare heaps die out; period 4 from heap 46578).
//! The 2^20 runs also check the 0.007 values ply-games ships.
//!
//! When a C compiler (`cc`) is present, the bench also builds
//! `benches/octal_plain.c` (the same plain loop in C, `-O2`) and runs it,
//! so that the ratio against C is measured in the same run; its output is
//! first checked against ply's values.

mod native;

use criterion::{Criterion, criterion_group, criterion_main};
use ply_core::NoProgress;
use ply_core::shipped;
use ply_core::solve::octal::{OctalCode, compute, plain_values};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// The values the C baseline prints for `code` up to `up_to`.
fn run_c_baseline(binary: &PathBuf, code: &str, up_to: usize) -> Vec<u16> {
    let output = Command::new(binary)
        .args([code, &up_to.to_string()])
        .output()
        .expect("the C baseline runs");
    assert!(output.status.success(), "the C baseline failed");
    output
        .stdout
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

fn octal(c: &mut Criterion) {
    let treblecross = OctalCode::parse("0.007").unwrap();
    let sparse = OctalCode::parse("0.127").unwrap();
    assert_eq!(
        compute(&treblecross, 1 << 14, &NoProgress).unwrap().values,
        plain_values(&treblecross, 1 << 14).unwrap()
    );
    let mut group = c.benchmark_group("octal");
    group.sample_size(10);
    group.bench_function("0.007 to 2^17: ply", |b| {
        b.iter(|| compute(black_box(&treblecross), 1 << 17, &NoProgress).unwrap())
    });
    group.bench_function("0.007 to 2^17: plain mex loop", |b| {
        b.iter(|| plain_values(black_box(&treblecross), 1 << 17).unwrap())
    });
    if let Some(binary) = native::build("cc", "octal_plain.c") {
        let ply = compute(&treblecross, 1 << 17, &NoProgress).unwrap().values;
        assert_eq!(run_c_baseline(&binary, "0.007", 1 << 17), ply);
        group.bench_function("0.007 to 2^17: plain C loop (cc -O2)", |b| {
            b.iter(|| run_c_baseline(&binary, "0.007", 1 << 17))
        });
    }
    group.bench_function("0.127 to 2^17: ply", |b| {
        b.iter(|| compute(black_box(&sparse), 1 << 17, &NoProgress).unwrap())
    });
    group.bench_function("0.127 to 2^17: plain mex loop", |b| {
        b.iter(|| plain_values(black_box(&sparse), 1 << 17).unwrap())
    });
    // Each run is also compared with the values ply ships.
    let shipped = shipped(&treblecross).expect("ply ships the values of 0.007");
    group.bench_function("0.007 to 2^20: ply", |b| {
        b.iter_custom(|runs| {
            let mut time = Duration::ZERO;
            for _ in 0..runs {
                let start = Instant::now();
                let values = compute(black_box(&treblecross), 1 << 20, &NoProgress).unwrap();
                time += start.elapsed();
                assert!(values.values == *shipped, "the shipped 0.007 values differ");
            }
            time
        })
    });
    group.finish();
}

criterion_group!(benches, octal);
criterion_main!(benches);
