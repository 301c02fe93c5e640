//! Connect Four through its build by streams (the one `ply analyze
//! --save` runs; tests/suite/connect4_streams.rs holds it equal to the generic
//! tier solver): every position of 4x4, 5x4 and 5x5 solved tier by tier,
//! the positions per ply (found by the index's own legality check) split
//! into won, drawn and lost for the player to move equal to the counts
//! Böck's BDD solver printed for the same boards (tests/data/connect4),
//! and 2,000 random
//! positions of each board equal to a plain negamax over every move; the
//! alpha-beta search equal to the same negamax on 4x4 and 5x4 positions
//! and on 7x6 positions with at least 30 discs, and equal to the 5x5
//! database (built once, for both checks) on positions of every stage.

use ply_core::db::Expect;
use ply_core::tier::{Plan, Shards};
use ply_core::{Game, NamedTiers, NoProgress, Outcome, Solution, Value};
use ply_games::ConnectFour;
use ply_games::connect4::C4Position;
use ply_games::connect4::search::Searcher;
use ply_games::connect4::streams::Streams;
use std::collections::{BTreeMap, HashMap};

/// The won, drawn and lost counts per ply of `board` in the data file.
fn published(board: &str) -> BTreeMap<u32, [u64; 3]> {
    let text = include_str!("../../../../tests/data/connect4/positions-per-ply.csv");
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields[0] == board {
            let n = |i: usize| fields[i].parse::<u64>().unwrap();
            rows.insert(fields[1].parse().unwrap(), [n(2), n(3), n(4)]);
        }
    }
    assert!(!rows.is_empty(), "no published counts for {board}");
    rows
}

/// Negamax over every move, remembering positions.
fn negamax(game: &ConnectFour, p: &C4Position, memo: &mut HashMap<C4Position, Outcome>) -> Outcome {
    if let Some(&o) = memo.get(p) {
        return o;
    }
    let o = match game.primitive(p) {
        Some(Value::Lose) => Outcome::lose(0),
        Some(_) => Outcome::tie(0),
        None => {
            let mut children = Vec::new();
            game.for_each_move(p, |_, child| children.push(child));
            Outcome::from_children(children.iter().map(|c| negamax(game, c, memo))).unwrap()
        }
    };
    memo.insert(*p, o);
    o
}

/// A small deterministic generator (xorshift) for random play.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// The position random play reaches in `plies` moves, or where play
    /// ends before.
    fn play(&mut self, game: &ConnectFour, plies: u32) -> C4Position {
        let mut p = game.start();
        for _ in 0..plies {
            if game.primitive(&p).is_some() {
                break;
            }
            let mut moves = Vec::new();
            game.for_each_move(&p, |_, child| moves.push(child));
            p = moves[self.below(moves.len() as u64) as usize];
        }
        p
    }
}

/// Builds every tier of `connect4:PARAMS`, then checks the counts per ply
/// against the published ones, `2,000` random positions with at least
/// `least_discs` discs against negamax, and `searched` random positions of
/// any number of discs (the empty board first) against the search.
fn check(params: &str, least_discs: u32, searched: usize) {
    let game = ConnectFour::from_params(params).unwrap();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plan = Plan::new(&game).unwrap();
    let shards = Shards::new(dir.path(), Expect::of(&game));
    let built = Streams::new(&game)
        .unwrap()
        .build(&plan, &shards, &dir.path().join("work"), None, &NoProgress)
        .unwrap();
    assert_eq!(built.solved, game.cells() as usize + 1);
    let db = plan.with_presence(&game, shards.open(&plan).unwrap());
    // The shards hold one of each mirror pair: a position is read
    // through its representative.
    let outcome = |p: &C4Position| {
        db.cell(plan.key(&game, &game.fold_in_tier(p)).unwrap())
            .unwrap()
            .unpack()
            .unwrap()
    };
    // Per ply, won/drawn/lost for the player to move (the view Böck's
    // solver prints: at the last ply of 5x5 the first player may just
    // have won, and those count as lost), over every cell stored, each
    // for itself and its mirror image where that is another position.
    let mut counted = BTreeMap::new();
    for step in &plan.steps {
        let mut row = [0u64; 3];
        db.for_each_cell(step.keys.clone(), &mut |key, cell| {
            let p = game.tier_board(step.tier, key - step.keys.start).unwrap();
            let o = cell.unpack().unwrap();
            let column = match o.value {
                Value::Win => 0,
                Value::Tie => 1,
                _ => 2,
            };
            row[column] += if game.mirror(&p) == p { 1 } else { 2 };
        })
        .unwrap();
        counted.insert(u32::from(step.tier), row);
    }
    assert_eq!(counted, published(params), "{params}");
    // Random play against negamax, from positions with at least
    // `least_discs` discs (fewer would make negamax walk the whole game).
    let mut memo = HashMap::new();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut checked = 0;
    while checked < 2_000 {
        let plies = least_discs + rng.below(u64::from(game.cells() - least_discs + 1)) as u32;
        let p = rng.play(&game, plies);
        if p.discs() < least_discs {
            continue;
        }
        assert_eq!(
            outcome(&p),
            negamax(&game, &p, &mut memo),
            "{params} {}",
            game.format_position(&p)
        );
        checked += 1;
    }
    // The search against the database: every stage of the game, from the
    // empty board (the longest search) to full ones, on one thread and two,
    // one table kept between positions as the command keeps it.
    let searcher = Searcher::new(&game, 1 << 22);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut seen = BTreeMap::new();
    for at in 0..searched {
        let plies = if at == 0 {
            0
        } else {
            rng.below(u64::from(game.cells()) + 1) as u32
        };
        let p = rng.play(&game, plies);
        let got = searcher.solve(&game, &p, 1 + at % 2, &|| false).unwrap();
        assert_eq!(
            got,
            outcome(&p),
            "search against the database, {params} {}",
            game.format_position(&p)
        );
        *seen.entry(format!("{:?}", got.value)).or_insert(0) += 1;
    }
    // The positions searched are won, lost and tied ones alike.
    if searched > 0 {
        assert_eq!(seen.len(), 3, "{params}: values searched {seen:?}");
    }
}

/// The positions of each tier estimated from a sample of its dense index
/// (what the build's disk check counts on) bound the published counts
/// from above, and by no more than a quarter and a few; the fold keeps at
/// least half of them.
#[test]
fn sampled_positions_bound_the_published_counts() {
    for params in ["5x5", "6x5"] {
        let game = ConnectFour::from_params(params).unwrap();
        let streams = Streams::new(&game).unwrap();
        for (ply, row) in published(params) {
            let exact: u64 = row.iter().sum();
            let (estimate, kept) = streams.sampled(ply);
            assert!(
                exact <= estimate,
                "{params} ply {ply}: {estimate} below {exact}"
            );
            assert!(
                estimate <= exact + exact / 4 + 64,
                "{params} ply {ply}: {estimate} far above {exact}"
            );
            assert!(
                kept <= estimate && 2 * kept + 64 >= exact,
                "{params} ply {ply}: kept {kept} of {exact}"
            );
        }
    }
}

#[test]
fn connect4_4x4_every_position() {
    check("4x4", 0, 0);
}

#[test]
fn connect4_5x4_every_position() {
    check("5x4", 0, 0);
}

/// 5x5 solved tier by tier, against the counts and negamax, and the
/// alpha-beta search against its database on 1,000 positions.
#[test]
fn connect4_5x5_every_position() {
    check("5x5", 8, 1_000);
}

/// The search on positions of every stage of small boards, on one and two
/// threads (splitting the trees of positions with 4 empty cells or more),
/// against negamax.
#[test]
fn search_equals_negamax_on_small_boards() {
    for (params, count) in [("4x4", 300), ("5x4", 300)] {
        let game = ConnectFour::from_params(params).unwrap();
        let searcher = Searcher::new(&game, 1 << 20).split_at(4);
        let mut memo = HashMap::new();
        let mut rng = Rng(u64::from(game.cells()));
        for at in 0..count {
            let plies = rng.below(u64::from(game.cells()) + 1) as u32;
            let p = rng.play(&game, plies);
            let got = searcher.solve(&game, &p, 1 + at % 2, &|| false).unwrap();
            assert_eq!(
                got,
                negamax(&game, &p, &mut memo),
                "{params} {}",
                game.format_position(&p)
            );
            // Its mirror image is answered from the scores kept, with
            // no position searched.
            let mirror = game.mirror(&p);
            let nodes = searcher.nodes();
            let got = searcher.solve(&game, &mirror, 1, &|| false).unwrap();
            assert_eq!(
                got,
                negamax(&game, &mirror, &mut memo),
                "{params} mirrored {}",
                game.format_position(&mirror)
            );
            assert_eq!(searcher.nodes(), nodes, "{params} mirrored {mirror:?}");
        }
    }
}

/// Many positions searched (a position, its mirror image, its moves and
/// their mirror images, as `ply solve` asks for them) on one to three
/// threads splitting the trees of positions with 2 to 6 empty cells or
/// more, in a table small enough that its buckets are overwritten all
/// the time, against negamax.
#[test]
fn positions_searched_side_by_side_equal_negamax() {
    for (params, count) in [("4x4", 150), ("5x4", 150)] {
        let game = ConnectFour::from_params(params).unwrap();
        let mut searcher = Searcher::new(&game, 1 << 16);
        let mut memo = HashMap::new();
        let mut rng = Rng(u64::from(game.cells()) + 7);
        for at in 0..count {
            let plies = rng.below(u64::from(game.cells()) + 1) as u32;
            let p = rng.play(&game, plies);
            let mut positions = vec![p, game.mirror(&p)];
            if game.primitive(&p).is_none() {
                game.for_each_move(&p, |_, child| positions.push(child));
                game.for_each_move(&game.mirror(&p), |_, child| positions.push(child));
            }
            let threads = 1 + at % 3;
            let got = searcher
                .solve_each(&game, &positions, threads, &|| false)
                .unwrap();
            assert_eq!(got.len(), positions.len());
            for (q, got) in positions.iter().zip(got) {
                assert_eq!(
                    got,
                    negamax(&game, q, &mut memo),
                    "{params} {} among the moves of {} on {threads} threads",
                    game.format_position(q),
                    game.format_position(&p)
                );
            }
            if at % 10 == 0 {
                searcher = Searcher::new(&game, 1 << 16).split_at(2 + (at / 10 % 5) as u32);
            }
        }
    }
}

/// The search on 7x6 positions with at least 30 discs against negamax.
#[test]
fn search_equals_negamax_on_7x6_endgames() {
    let game = ConnectFour::default();
    let searcher = Searcher::new(&game, 1 << 22);
    let mut rng = Rng(42);
    let mut checked = 0;
    while checked < 40 {
        let p = rng.play(&game, 30);
        if p.discs() < 30 {
            continue;
        }
        let expect = negamax(&game, &p, &mut HashMap::new());
        let got = searcher.solve(&game, &p, 2, &|| false).unwrap();
        assert_eq!(got, expect, "{}", game.format_position(&p));
        checked += 1;
    }
}

/// A search stopped while its tree is split among the threads says it
/// stopped, and gives no score; the same searcher then finds the right
/// one.
#[test]
fn a_split_search_stopped_gives_no_score() {
    let game = ConnectFour::default();
    let searcher = Searcher::new(&game, 1 << 22).split_at(20);
    // About 1.4 million positions searched alone.
    let p = game.parse_position("2235263663").unwrap();
    for polls in [1, 5, 40] {
        let asked = std::sync::atomic::AtomicU32::new(0);
        let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= polls;
        assert!(
            searcher.solve(&game, &p, 2, &stop).is_err(),
            "stopped after {polls} polls"
        );
    }
    let mut children = Vec::new();
    game.for_each_move(&p, |_, child| children.push(child));
    let alone = Searcher::new(&game, 1 << 22);
    let expect = alone.solve_each(&game, &children, 1, &|| false).unwrap();
    assert_eq!(
        searcher.solve_each(&game, &children, 2, &|| false).unwrap(),
        expect
    );
}
