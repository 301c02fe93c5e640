//! Strong solve of 4x4 tic-tac-toe beside a plain memoised minimax, and
//! `ply judge uva10111` by search beside answering from the whole table.
//!
//! Run: `cargo bench -p ply --bench tictactoe -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use ply_core::{Game, NoProgress, SparseTable, Value};
use ply_games::TicTacToe;
use ply_games::tictactoe::Marks;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;

/// The ten lines of the 4x4 board, as masks.
const LINES: [u16; 10] = [
    0x000f, 0x00f0, 0x0f00, 0xf000, 0x1111, 0x2222, 0x4444, 0x8888, 0x8421, 0x1248,
];

/// The baseline: plain memoised minimax over a 3^16 byte table, one byte
/// per index (0 unknown; else value in the top two bits, 1 win, 2 lose,
/// 3 tie, and remoteness below), depth first from the empty board,
/// single-threaded, no symmetry.
struct Minimax {
    memo: Vec<u8>,
    powers: [usize; 16],
}

impl Minimax {
    fn solve_all() -> Minimax {
        let mut powers = [1usize; 16];
        for s in 1..16 {
            powers[s] = powers[s - 1] * 3;
        }
        let mut minimax = Minimax {
            memo: vec![0; 3usize.pow(16)],
            powers,
        };
        minimax.solve(0, 0, 0);
        minimax
    }

    fn solve(&mut self, x: u16, o: u16, index: usize) -> u8 {
        if self.memo[index] != 0 {
            return self.memo[index];
        }
        let x_moves = x.count_ones() == o.count_ones();
        let last = if x_moves { o } else { x };
        let byte = if LINES.iter().any(|&line| line & !last == 0) {
            2 << 6
        } else if x | o == 0xffff {
            3 << 6
        } else {
            // (preference, byte): a faster win, then a faster tie, then a slower loss.
            let mut best = (i32::MIN, 0u8);
            for s in 0..16 {
                if (x | o) >> s & 1 == 1 {
                    continue;
                }
                let child = if x_moves {
                    self.solve(x | 1 << s, o, index + self.powers[s])
                } else {
                    self.solve(x, o | 1 << s, index + 2 * self.powers[s])
                };
                let r = child & 63;
                let (preference, value) = match child >> 6 {
                    2 => (3000 - i32::from(r), 1),
                    3 => (2000 - i32::from(r), 3),
                    _ => (i32::from(r), 2),
                };
                if preference > best.0 {
                    best = (preference, value << 6 | (r + 1));
                }
            }
            best.1
        };
        self.memo[index] = byte;
        byte
    }
}

fn strong_solve(c: &mut Criterion) {
    let game = TicTacToe::default();
    // Both sides solve the same thing: every reachable position, a tie at the root.
    let baseline = Minimax::solve_all();
    assert_eq!(baseline.memo[0], 3 << 6 | 16);
    assert_eq!(baseline.memo.iter().filter(|&&b| b != 0).count(), 9_722_011);
    let mut group = c.benchmark_group("tictactoe 4x4 strong solve");
    group.sample_size(10);
    group.bench_function("sparse table (symmetric, rayon)", |b| {
        b.iter(|| SparseTable::build(black_box(&game), &game.start(), &NoProgress).unwrap())
    });
    group.bench_function("baseline memoised minimax, 3^16 bytes", |b| {
        b.iter(Minimax::solve_all)
    });
    group.finish();
}

/// `cases` random judge cases: random play from the empty board to 4 to 12
/// marks, keeping boards where x is to move and nobody has won.
fn judge_cases(game: &TicTacToe, cases: usize) -> Vec<Marks> {
    let mut rng = StdRng::seed_from_u64(10111);
    let mut boards = Vec::with_capacity(cases);
    while boards.len() < cases {
        let marks = 2 * rng.random_range(2..=6u32);
        let mut board = game.start();
        while board.occupied().count_ones() < marks && game.primitive(&board).is_none() {
            let mut children = Vec::new();
            game.for_each_move(&board, |_, child| children.push(child));
            board = children[rng.random_range(0..children.len())];
        }
        if game.primitive(&board).is_none() && board.x_to_move() {
            boards.push(board);
        }
    }
    boards
}

fn judge_input(game: &TicTacToe, boards: &[Marks]) -> Vec<u8> {
    let mut text = String::new();
    for board in boards {
        text.push_str("?\n");
        text.push_str(&game.format_position(board).replace('/', "\n"));
        text.push('\n');
    }
    text.push_str("$\n");
    text.into_bytes()
}

/// The other way to answer: build the whole 4x4 table, then look up every
/// empty square's child until one is a loss for o.
fn answers_from_table(game: &TicTacToe, boards: &[Marks]) -> Vec<Option<u32>> {
    let table = SparseTable::build(game, &game.start(), &NoProgress).unwrap();
    boards
        .iter()
        .map(|board| {
            (0..16).find(|&s| {
                board.occupied() >> s & 1 == 0
                    && table
                        .outcome(game, &board.play(s as usize))
                        .map(|o| o.value)
                        == Some(Value::Lose)
            })
        })
        .collect()
}

fn judge(c: &mut Criterion) {
    let game = TicTacToe::default();
    for cases in [10, 1000] {
        let boards = judge_cases(&game, cases);
        let input = judge_input(&game, &boards);
        let mut group = c.benchmark_group(format!("uva10111 {cases} random cases"));
        group.sample_size(10);
        group.bench_function("ply judge (alpha-beta per case)", |b| {
            b.iter(|| {
                let mut output = Vec::new();
                ply::judge::uva10111::run(&mut input.as_slice(), &mut output).unwrap();
                output
            })
        });
        group.bench_function("whole table, then lookups", |b| {
            b.iter(|| answers_from_table(&game, black_box(&boards)))
        });
        group.finish();
    }
}

criterion_group!(benches, strong_solve, judge);
criterion_main!(benches);
