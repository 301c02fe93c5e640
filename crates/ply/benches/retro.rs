//! Full solves of the L Game and the Yehr Game by retrograde analysis, each
//! beside a baseline over the same index: a plain single-threaded
//! retrograde pass that stores the reverse graph as a Vec per position and
//! solves every position (no symmetry reduction).

use criterion::{Criterion, criterion_group, criterion_main};
use ply_core::solve::retro;
use ply_core::{Cell, Indexed, NoProgress, Outcome, Value};
use ply_games::{LGame, Yehr};
use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Duration;

/// The baseline: reverse graph as a Vec of parents per position, a count
/// of unfinished moves per position, and a FIFO queue (which decides
/// positions in order of remoteness). Returns a cell per index.
fn baseline<G: Indexed>(game: &G) -> Vec<Cell> {
    let n = game.index_len() as usize;
    let mut parents: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut remaining = vec![0u32; n];
    let mut cells = vec![Cell::UNKNOWN; n];
    let mut queue = VecDeque::new();
    for index in 0..n {
        let Some(position) = game.unrank(index as u64) else {
            continue;
        };
        if let Some(value) = game.primitive(&position) {
            cells[index] = Cell::pack(Outcome::terminal(value));
            queue.push_back(index);
            continue;
        }
        let mut count = 0;
        game.for_each_move(&position, |_, child| {
            parents[game.rank(&child) as usize].push(index as u32);
            count += 1;
        });
        remaining[index] = count;
        if count == 0 {
            cells[index] = Cell::pack(Outcome::lose(0));
            queue.push_back(index);
        }
    }
    while let Some(child) = queue.pop_front() {
        let Some(outcome) = cells[child].unpack() else {
            continue;
        };
        let next = outcome.remoteness.unwrap_or(0) + 1;
        for &parent in &parents[child] {
            let parent = parent as usize;
            if cells[parent] != Cell::UNKNOWN {
                continue;
            }
            if outcome.value == Value::Lose {
                cells[parent] = Cell::pack(Outcome::win(next));
                queue.push_back(parent);
            } else {
                remaining[parent] -= 1;
                if remaining[parent] == 0 {
                    cells[parent] = Cell::pack(Outcome::lose(next));
                    queue.push_back(parent);
                }
            }
        }
    }
    for (cell, &left) in cells.iter_mut().zip(&remaining) {
        if *cell == Cell::UNKNOWN && left > 0 {
            *cell = Cell::pack(Outcome::DRAW);
        }
    }
    cells
}

/// The solver and the baseline agree on every position.
fn check_agreement<G: Indexed>(game: &G, table: &retro::RetroTable) {
    let cells = baseline(game);
    for (index, cell) in cells.iter().enumerate() {
        assert_eq!(table.cell(index as u64), *cell, "index {index}");
    }
}

fn lgame(c: &mut Criterion) {
    check_agreement(
        &LGame::new(),
        &retro::solve_symmetric(&LGame::new(), &NoProgress).unwrap(),
    );
    let mut group = c.benchmark_group("lgame");
    group.bench_function("retro (symmetric, CSR)", |b| {
        b.iter(|| {
            let game = LGame::new();
            black_box(retro::solve_symmetric(&game, &NoProgress).unwrap());
        })
    });
    group.bench_function("retro (no symmetry, CSR)", |b| {
        let game = LGame::new();
        b.iter(|| black_box(retro::solve(&game, &NoProgress).unwrap()))
    });
    group.bench_function("baseline (Vec per position)", |b| {
        b.iter(|| {
            let game = LGame::new();
            black_box(baseline(&game));
        })
    });
    group.finish();
}

fn yehr(c: &mut Criterion) {
    check_agreement(
        &Yehr,
        &retro::solve_symmetric_with_parents(&Yehr, &NoProgress).unwrap(),
    );
    let mut group = c.benchmark_group("yehr");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.bench_function("retro (symmetric, un-moves)", |b| {
        b.iter(|| black_box(retro::solve_symmetric_with_parents(&Yehr, &NoProgress).unwrap()))
    });
    group.bench_function("retro (no symmetry, un-moves)", |b| {
        b.iter(|| black_box(retro::solve_with_parents(&Yehr, &NoProgress).unwrap()))
    });
    group.bench_function("baseline (Vec per position)", |b| {
        b.iter(|| black_box(baseline(&Yehr)))
    });
    group.finish();
}

criterion_group!(benches, lgame, yehr);
criterion_main!(benches);
