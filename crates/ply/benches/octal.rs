//! Octal game values: ply's computation (sparse space method, or the
//! blocked parallel dense kernel where a game has no sparse space) against
//! the plain O(n²) mex loop, in the same run.
//!
//! 0.007 (Treblecross) has no sparse space, so it measures the dense
//! kernel; 0.127 has one (rare heaps die out; period 4 from heap 46578).
//! The 2^20 runs also check the 0.007 values ply-games ships.

use criterion::{Criterion, criterion_group, criterion_main};
use ply_core::NoProgress;
use ply_core::solve::octal::{OctalCode, compute, plain_values};
use ply_games::treblecross::precomputed_values;
use std::hint::black_box;
use std::time::{Duration, Instant};

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
    group.bench_function("0.127 to 2^17: ply", |b| {
        b.iter(|| compute(black_box(&sparse), 1 << 17, &NoProgress).unwrap())
    });
    group.bench_function("0.127 to 2^17: plain mex loop", |b| {
        b.iter(|| plain_values(black_box(&sparse), 1 << 17).unwrap())
    });
    // Each run is also compared with the values Treblecross ships.
    let shipped = precomputed_values();
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
