//! Probes of a solved database on disk (euler:5x5, 33.5 M positions)
//! beside the same probes of the solved table in memory, the cost of
//! opening it, and its size beside zstd of the plain 2-byte table.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ply::session::table::TableSession;
use ply_core::db::{self, Database, Expect, Meta};
use ply_core::{Game, NoProgress, Solution};
use ply_games::Euler;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::hint::black_box;
use std::time::Duration;

/// Random keys below `len`, the same every run.
fn keys(len: u64, n: usize) -> Vec<u64> {
    let mut rng = StdRng::seed_from_u64(8);
    (0..n).map(|_| rng.random_range(0..len)).collect()
}

fn probes(c: &mut Criterion) {
    let game = Euler::from_params("5x5").expect("5x5 is a valid board");
    let session = TableSession::new(game.clone()).expect("euler:5x5 fits in memory");
    let table = session.built(&NoProgress).expect("euler:5x5 solves");
    let dir = std::env::temp_dir().join(format!("ply-db-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(db::file_name(&game.name()));
    let meta = Meta::whole(&game, table.index_len());
    let bytes = db::save(&path, &meta, table, &NoProgress).expect("the database saves");
    let expect = Expect::of(&game);

    // Sizes: the file, and zstd (same level as the blocks) of the plain
    // table of 2-byte cells.
    let plain: Vec<u8> = (0..table.index_len())
        .flat_map(|i| table.cell(i).bits().to_le_bytes())
        .collect();
    let zstd_plain = zstd::bulk::compress(&plain, db::ZSTD_LEVEL)
        .expect("zstd compresses")
        .len();
    // The same in blocks of as many cells as the database's, for random access.
    let zstd_blocks: usize = plain
        .chunks(2 * db::INDEX_BLOCK as usize)
        .map(|block| {
            zstd::bulk::compress(block, db::ZSTD_LEVEL)
                .expect("zstd compresses")
                .len()
        })
        .sum();
    let n = table.index_len() as f64;
    eprintln!(
        "euler:5x5 {} positions: database {bytes} bytes = {:.3} bytes/position; \
         plain table {} bytes = 2 bytes/position, zstd -{} of it {zstd_plain} bytes = {:.3} bytes/position \
         (in blocks of {} cells: {zstd_blocks} bytes = {:.3} bytes/position)",
        table.index_len(),
        bytes as f64 / n,
        plain.len(),
        db::ZSTD_LEVEL,
        zstd_plain as f64 / n,
        db::INDEX_BLOCK,
        zstd_blocks as f64 / n,
    );

    let keys = keys(table.index_len(), 10_000);
    let mut group = c.benchmark_group("db");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(3));
    group.bench_function(
        "probe 10,000 random keys: table in memory (baseline)",
        |b| {
            b.iter(|| {
                keys.iter()
                    .map(|&k| table.cell(black_box(k)).bits() as u64)
                    .sum::<u64>()
            })
        },
    );
    let warm = Database::open(&path, &expect).expect("the database opens");
    for block in (0..warm.index_len()).step_by(1 << 16) {
        warm.cell(block).expect("every block decodes");
    }
    group.bench_function("probe 10,000 random keys: database, warm", |b| {
        b.iter(|| {
            keys.iter()
                .map(|&k| warm.cell(black_box(k)).expect("sound").bits() as u64)
                .sum::<u64>()
        })
    });
    group.bench_function("open (header, index and every block checksum)", |b| {
        b.iter(|| Database::open(&path, &expect).expect("the database opens"))
    });
    group.bench_function("probe 1,000 random keys: database just opened, cold", |b| {
        b.iter_batched(
            || Database::open(&path, &expect).expect("the database opens"),
            |cold| {
                keys[..1_000]
                    .iter()
                    .map(|&k| cold.cell(k).expect("sound").bits() as u64)
                    .sum::<u64>()
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, probes);
criterion_main!(benches);
