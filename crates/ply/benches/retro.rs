//! Full solves of the L Game and the Yehr Game by retrograde analysis, each
//! beside a baseline over the same index: a plain single-threaded
//! retrograde pass that stores the reverse graph as a Vec per position and
//! solves every position (no symmetry reduction).
//!
//! When a C++ compiler (`c++`) is present, the Yehr group also builds
//! `benches/retro_plain.cpp` (`-O2`): the same plain pass in C++ with the
//! reverse graph stored as offsets and one array of parents (CSR). It knows
//! no rules: the bench writes Yehr's moves (distinct children of every
//! position) to a file, the C++ program reads them, and only its reverse
//! graph and queue are timed (it reports its own time). Its cells are first
//! checked against ply's.

mod native;

use criterion::{Criterion, criterion_group, criterion_main};
use ply_core::solve::retro;
use ply_core::{Cell, Indexed, NoProgress, Outcome, Value};
use ply_games::{LGame, Yehr};
use std::collections::VecDeque;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
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

/// Writes the move graph of `game` in the format `retro_plain.cpp` reads.
fn export_graph<G: Indexed>(game: &G, path: &Path) {
    let n = game.index_len() as usize;
    let mut kinds = vec![5u8; n];
    let mut counts = vec![0u32; n];
    let mut children: Vec<u32> = Vec::new();
    let mut kids = Vec::new();
    for index in 0..n {
        let Some(position) = game.unrank(index as u64) else {
            continue;
        };
        if let Some(value) = game.primitive(&position) {
            kinds[index] = match value {
                Value::Win => 1,
                Value::Lose => 2,
                Value::Tie => 3,
                Value::Draw => 4,
            };
            continue;
        }
        kinds[index] = 0;
        kids.clear();
        game.for_each_move(&position, |_, child| kids.push(game.rank(&child) as u32));
        kids.sort_unstable();
        kids.dedup();
        counts[index] = kids.len() as u32;
        children.extend_from_slice(&kids);
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("graph file"));
    out.write_all(&(n as u64).to_le_bytes()).unwrap();
    out.write_all(&(children.len() as u64).to_le_bytes())
        .unwrap();
    out.write_all(&kinds).unwrap();
    for count in counts {
        out.write_all(&count.to_le_bytes()).unwrap();
    }
    for child in children {
        out.write_all(&child.to_le_bytes()).unwrap();
    }
    out.flush().unwrap();
}

/// Runs the C++ pass on `graph`, returning its own solve time and its
/// cells (value code and remoteness per index).
fn run_cpp_baseline(binary: &Path, graph: &Path, out: &Path) -> (Duration, Vec<u8>, Vec<u16>) {
    let output = Command::new(binary)
        .arg(graph)
        .arg(out)
        .output()
        .expect("the C++ baseline runs");
    assert!(output.status.success(), "the C++ baseline failed");
    let nanos: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("the C++ baseline prints its time");
    let bytes = std::fs::read(out).expect("the C++ baseline's cells");
    let n = bytes.len() / 3;
    let values = bytes[..n].to_vec();
    let remoteness = bytes[n..]
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    (Duration::from_nanos(nanos), values, remoteness)
}

/// The C++ pass and the solver agree on every position.
fn check_cpp_agreement(table: &retro::RetroTable, values: &[u8], remoteness: &[u16]) {
    assert_eq!(values.len() as u64, table.len());
    for (index, (&value, &r)) in values.iter().zip(remoteness).enumerate() {
        let r = u32::from(r);
        let expected = match value {
            1 => Some(Outcome::win(r)),
            2 => Some(Outcome::lose(r)),
            3 => Some(Outcome::tie(r)),
            4 => Some(Outcome::DRAW),
            _ => None,
        };
        assert_eq!(table.outcome_at(index as u64), expected, "index {index}");
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
    if let Some(binary) = native::build("c++", "retro_plain.cpp") {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let (graph, out) = (dir.join("yehr.graph"), dir.join("yehr.cells"));
        export_graph(&Yehr, &graph);
        let table = retro::solve_symmetric_with_parents(&Yehr, &NoProgress).unwrap();
        let (_, values, remoteness) = run_cpp_baseline(&binary, &graph, &out);
        check_cpp_agreement(&table, &values, &remoteness);
        group.bench_function("plain C++ pass (c++ -O2, CSR, solve only)", |b| {
            b.iter_custom(|runs| {
                (0..runs)
                    .map(|_| run_cpp_baseline(&binary, &graph, &out).0)
                    .sum()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lgame, yehr);
criterion_main!(benches);
