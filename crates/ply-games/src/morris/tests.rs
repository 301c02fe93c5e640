//! Morris's rules on hand-made positions, its moves against a plain move
//! generator on characters written from the spec, its index against a
//! count of symmetry classes by Burnside's lemma, its un-moves against its
//! moves in every sector shape, its quick child ranking and sector
//! stepping against ranking and unranking position by position, and the
//! tier solver against whole-game retrograde analysis on `morris:3` and
//! `morris:4`.

use super::index::Sector;
use super::*;
use ply_core::tier::Plan;
use ply_core::{Indexed, NamedTiers, Parents, Solution, Symmetric};
use std::collections::{BTreeSet, HashSet};

fn parse(game: &Morris, text: &str) -> Stones {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Every move from `text` as (move name, position after).
fn moves(game: &Morris, text: &str) -> BTreeSet<(String, String)> {
    let position = parse(game, text);
    let mut out = BTreeSet::new();
    if game.primitive(&position).is_none() {
        game.for_each_move(&position, |mv, child| {
            out.insert((
                game.format_move(&position, mv),
                game.format_position(&child),
            ));
        });
    }
    out
}

fn names(all: &BTreeSet<(String, String)>) -> BTreeSet<String> {
    all.iter().map(|(m, _)| m.clone()).collect()
}

/// The points in text order, as the spec names them.
const NAMES: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3",
    "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
];

/// Joined points, read off the spec's drawing.
const LINKS: [(&str, &str); 32] = [
    ("a7", "d7"),
    ("d7", "g7"),
    ("b6", "d6"),
    ("d6", "f6"),
    ("c5", "d5"),
    ("d5", "e5"),
    ("a4", "b4"),
    ("b4", "c4"),
    ("e4", "f4"),
    ("f4", "g4"),
    ("c3", "d3"),
    ("d3", "e3"),
    ("b2", "d2"),
    ("d2", "f2"),
    ("a1", "d1"),
    ("d1", "g1"),
    ("a7", "a4"),
    ("a4", "a1"),
    ("b6", "b4"),
    ("b4", "b2"),
    ("c5", "c4"),
    ("c4", "c3"),
    ("d7", "d6"),
    ("d6", "d5"),
    ("d3", "d2"),
    ("d2", "d1"),
    ("e5", "e4"),
    ("e4", "e3"),
    ("f6", "f4"),
    ("f4", "f2"),
    ("g7", "g4"),
    ("g4", "g1"),
];

/// The 16 mills as the spec lists them.
const MILLS: [[&str; 3]; 16] = [
    ["a7", "d7", "g7"],
    ["b6", "d6", "f6"],
    ["c5", "d5", "e5"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["c3", "d3", "e3"],
    ["b2", "d2", "f2"],
    ["a1", "d1", "g1"],
    ["a7", "a4", "a1"],
    ["b6", "b4", "b2"],
    ["c5", "c4", "c3"],
    ["d7", "d6", "d5"],
    ["d3", "d2", "d1"],
    ["e5", "e4", "e3"],
    ["f6", "f4", "f2"],
    ["g7", "g4", "g1"],
];

#[test]
fn the_board_has_the_spec_s_lines_mills_and_16_symmetries() {
    let geometry = Geometry::get();
    let at = |name: &str| NAMES.iter().position(|&n| n == name).unwrap();
    for (p, name) in NAMES.iter().enumerate() {
        assert_eq!(point_name(p as u8), *name);
    }
    let mut adjacent = [0u32; 24];
    for (a, b) in LINKS {
        adjacent[at(a)] |= 1 << at(b);
        adjacent[at(b)] |= 1 << at(a);
    }
    assert_eq!(geometry.adjacent, adjacent);
    let mills: BTreeSet<u32> = MILLS
        .iter()
        .map(|m| m.iter().fold(0, |s, n| s | 1 << at(n)))
        .collect();
    assert_eq!(
        geometry.mills.iter().copied().collect::<BTreeSet<_>>(),
        mills
    );
    let perms: HashSet<[u8; 24]> = geometry.perms.iter().copied().collect();
    assert_eq!(perms.len(), 16, "16 distinct symmetries");
    for perm in &geometry.perms {
        let image = |set: u32| points(set).fold(0u32, |s, p| s | 1 << perm[usize::from(p)]);
        for p in 0..24 {
            assert_eq!(image(adjacent[p]), adjacent[usize::from(perm[p])]);
        }
        for &mill in &mills {
            assert!(mills.contains(&image(mill)));
        }
    }
}

#[test]
fn the_start_is_read_and_written_as_the_spec_writes_it() {
    let game = Morris::default();
    let start = ".../.../.../....../.../.../.../9,9/W";
    assert_eq!(game.format_position(&game.start()), start);
    assert_eq!(parse(&game, start), game.start());
    assert_eq!(moves(&game, start).len(), 24);
    assert!(names(&moves(&game, start)).contains("d6"));
}

#[test]
fn a_mill_formed_by_a_jump_removes_a_stone() {
    let game = Morris::default();
    // White: a7 d7 b2 (three stones: jumps); Black: c3 e3 a1 d1 (no mill).
    let text = "WW./.../.../....../B.B/W../BB./0,0/W";
    let all = moves(&game, text);
    let got = names(&all);
    for removal in ["b2-g7xc3", "b2-g7xe3", "b2-g7xa1", "b2-g7xd1"] {
        assert!(got.contains(removal), "{removal} in {got:?}");
    }
    assert!(!got.contains("b2-g7"), "closing a mill removes a stone");
    assert!(got.contains("b2-e4"), "a jump to a point far away");
    // 3 stones to 17 empty points, the one closing move split by its 4 removals.
    assert_eq!(got.len(), 3 * 17 - 1 + 4);
    let after: BTreeSet<&str> = all
        .iter()
        .filter(|(m, _)| m == "b2-g7xa1")
        .map(|(_, p)| p.as_str())
        .collect();
    assert_eq!(
        after,
        BTreeSet::from(["WWW/.../.../....../B.B/.../.B./0,0/B"])
    );
}

#[test]
fn two_mills_at_once_remove_one_stone() {
    let game = Morris::default();
    // White a7 d7 g4 g1, placing g7 closes the top row and the g file.
    // Black b6 c5 e3 b2; four stones each placed, five in hand each.
    let text = "WW./B../B../.....W/..B/B../..W/5,5/W";
    let all = moves(&game, text);
    let closing: Vec<&(String, String)> = all.iter().filter(|(m, _)| m.starts_with("g7")).collect();
    assert_eq!(
        names(&all)
            .into_iter()
            .filter(|m| m.starts_with("g7"))
            .collect::<Vec<_>>(),
        ["g7xb2", "g7xb6", "g7xc5", "g7xe3"]
    );
    for (_, child) in closing {
        let child = parse(&game, child);
        assert_eq!(child.black.count_ones(), 3, "exactly one stone removed");
        assert_eq!(child.hand, [4, 5]);
    }
}

#[test]
fn stones_in_mills_are_removed_only_when_all_are() {
    let game = Morris::default();
    // Black's a1 d1 g1 is a mill and b2 is not in one: only b2 may go.
    let some = "WW./.../.../....../.../B../BBB/5,5/W";
    let got: Vec<String> = names(&moves(&game, some))
        .into_iter()
        .filter(|m| m.starts_with("g7"))
        .collect();
    assert_eq!(got, ["g7xb2"]);
    // Every black stone in a mill: any may go.
    let all = "WW./.../.../....../.../.../BBB/6,6/W";
    let got: Vec<String> = names(&moves(&game, all))
        .into_iter()
        .filter(|m| m.starts_with("g7"))
        .collect();
    assert_eq!(got, ["g7xa1", "g7xd1", "g7xg1"]);
}

#[test]
fn placing_into_a_mill_removes_and_below_three_stones_loses() {
    let game = Morris::new(3);
    // Three stones a side: White a7 d7 (one in hand), Black b6 f6 (one
    // in hand). Placing g7 closes a mill and leaves Black two stones.
    let text = "WW./B.B/.../....../.../.../.../1,1/W";
    let all = moves(&game, text);
    let got = names(&all);
    assert!(got.contains("g7xb6") && got.contains("g7xf6"), "{got:?}");
    let (_, after) = all.iter().find(|(m, _)| m == "g7xb6").unwrap();
    assert_eq!(after, "WWW/..B/.../....../.../.../.../0,1/B");
    assert_eq!(game.primitive(&parse(&game, after)), Some(Value::Lose));
    assert_eq!(game.tier_of(&parse(&game, after)), Sector::Lost);
}

/// White's corners a7 g7 a1 g1, each hemmed in by Black's d7 a4 g4 d1.
const BLOCKED: &str = "WBW/.../.../B....B/.../.../WBW/0,0/W";

#[test]
fn a_player_with_no_move_has_none_listed() {
    let game = Morris::new(4);
    let text = BLOCKED;
    let position = parse(&game, text);
    assert_eq!(game.primitive(&position), None);
    assert!(moves(&game, text).is_empty());
    // With Black to move, Black can move.
    let black = format!("{}B", &text[..text.len() - 1]);
    assert!(!moves(&game, &black).is_empty());
}

#[test]
fn bad_text_is_refused_with_the_reason() {
    let game = Morris::default();
    for (text, why) in [
        (".../.../.../....../.../.../9,9/W", "7 rows"),
        ("..../.../.../....../.../.../.../9,9/W", "row 1"),
        (".../.../.../....../.../.../..X/9,9/W", "'X'"),
        (".../.../.../....../.../.../.../9/W", "hands"),
        (".../.../.../....../.../.../.../9,9/X", "side to move"),
        (".../.../.../....../.../.../.../9,9/B", "hands 9,9"),
        (".../.../.../....../.../.../.../10,10/W", "White has"),
        ("WWW/.../.../....../.../.../.../0,0/W", "fewer than 3"),
    ] {
        let e = game.parse_position(text).expect_err(text);
        assert!(e.message().contains(why), "{text}: {e}");
    }
    assert!(Morris::from_params("10").is_err() && Morris::from_params("2").is_err());
    assert_eq!(Morris::from_params("5").unwrap().name(), "morris:5");
}

/// A plain move generator on the text, from the spec's rules alone.
fn plain_moves(n: u8, text: &str) -> BTreeSet<(String, String)> {
    let parts: Vec<&str> = text.split('/').collect();
    let mut board: Vec<char> = parts[..7].concat().chars().collect();
    let hands: Vec<u8> = parts[7].split(',').map(|h| h.parse().unwrap()).collect();
    let mover = parts[8].chars().next().unwrap();
    let other = if mover == 'W' { 'B' } else { 'W' };
    let (me, them) = if mover == 'W' { (0, 1) } else { (1, 0) };
    let at = |name: &str| NAMES.iter().position(|&n| n == name).unwrap();
    let count = |board: &[char], c: char| board.iter().filter(|&&x| x == c).count() as u8;
    let mut out = BTreeSet::new();
    if count(&board, mover) + hands[me] < 3 {
        return out;
    }
    assert!(hands[me] <= n);
    let in_mill = |board: &[char], p: usize| {
        MILLS
            .iter()
            .any(|m| m.contains(&NAMES[p]) && m.iter().all(|&q| board[at(q)] == board[p]))
    };
    let write = |board: &[char], hands: &[u8]| {
        let mut s = String::new();
        let mut i = 0;
        for len in [3, 3, 3, 6, 3, 3, 3] {
            s.extend(&board[i..i + len]);
            s.push('/');
            i += len;
        }
        format!("{s}{},{}/{other}", hands[0], hands[1])
    };
    let mut finish = |board: &mut Vec<char>, hands: &[u8], name: String, to: usize| {
        let theirs: Vec<usize> = (0..24).filter(|&p| board[p] == other).collect();
        if in_mill(board, to) && !theirs.is_empty() {
            let free: Vec<usize> = theirs
                .iter()
                .copied()
                .filter(|&p| !in_mill(board, p))
                .collect();
            let allowed = if free.is_empty() { theirs } else { free };
            for r in allowed {
                board[r] = '.';
                out.insert((format!("{name}x{}", NAMES[r]), write(board, hands)));
                board[r] = other;
            }
        } else {
            out.insert((name, write(board, hands)));
        }
    };
    let empties: Vec<usize> = (0..24).filter(|&p| board[p] == '.').collect();
    if hands[me] > 0 {
        let mut hands = hands.clone();
        hands[me] -= 1;
        for &to in &empties {
            board[to] = mover;
            finish(&mut board, &hands, NAMES[to].to_string(), to);
            board[to] = '.';
        }
    } else {
        let jumping = count(&board, mover) == 3;
        for from in 0..24 {
            if board[from] != mover {
                continue;
            }
            for &to in &empties {
                let joined = LINKS
                    .iter()
                    .any(|&(a, b)| (at(a), at(b)) == (from, to) || (at(b), at(a)) == (from, to));
                if !jumping && !joined {
                    continue;
                }
                board[from] = '.';
                board[to] = mover;
                finish(
                    &mut board,
                    &hands,
                    format!("{}-{}", NAMES[from], NAMES[to]),
                    to,
                );
                board[to] = '.';
                board[from] = mover;
            }
        }
    }
    let _ = them;
    out
}

/// A small deterministic generator (xorshift).
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random set of `k` points outside `taken`.
fn random_set(rng: &mut Rng, k: u8, taken: u32) -> u32 {
    let mut set = 0u32;
    while set.count_ones() < u32::from(k) {
        let p = rng.below(24) as u32;
        if (taken | set) & 1 << p == 0 {
            set |= 1 << p;
        }
    }
    set
}

/// A random position of `game` in `sector`, either colour to move where
/// the sector allows.
pub(super) fn random_in(game: &Morris, sector: Sector, rng: &mut Rng) -> Option<Stones> {
    let (m, o, mh, oh) = match sector {
        Sector::Lost => return None,
        Sector::Moving { hi, lo } => {
            let (m, o) = if rng.below(2) == 0 {
                (hi, lo)
            } else {
                (lo, hi)
            };
            (m, o, 0, 0)
        }
        Sector::Placing {
            hands: [mh, oh],
            stones: [m, o],
        } => (m, o, mh, oh),
    };
    let mover = random_set(rng, m, 0);
    let other = random_set(rng, o, mover);
    let black = if mh == 0 && oh == 0 {
        rng.below(2) == 1
    } else {
        mh != oh
    };
    let position = Stones::from_sides(mover, other, mh, oh, black);
    assert!(game.illegal(&position).is_none(), "{position:?}");
    Some(position)
}

#[test]
fn moves_equal_a_plain_move_generator_on_random_positions() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for n in [3, 5, 9] {
        let game = Morris::new(n);
        let sectors = game.tiers();
        for _ in 0..3000 {
            let sector = sectors[rng.below(sectors.len() as u64) as usize];
            let Some(position) = random_in(&game, sector, &mut rng) else {
                continue;
            };
            let text = game.format_position(&position);
            assert_eq!(parse(&game, &text), position);
            assert_eq!(moves(&game, &text), plain_moves(n, &text), "{text}");
        }
    }
}

/// The symmetry classes of (mover set, other set) pairs of sizes `m` and
/// `o`, by Burnside's lemma: the mean over the symmetries of the pairs each
/// fixes. A pair is fixed when both sets are unions of the symmetry's cycles.
fn classes_by_burnside(m: usize, o: usize) -> u64 {
    let geometry = Geometry::get();
    let mut total = 0u64;
    for perm in &geometry.perms {
        let mut seen = 0u32;
        let mut cycles = Vec::new();
        for start in 0..24 {
            if seen & 1 << start != 0 {
                continue;
            }
            let (mut p, mut len) = (start, 0);
            while seen & 1 << p == 0 {
                seen |= 1 << p;
                p = usize::from(perm[p]);
                len += 1;
            }
            cycles.push(len);
        }
        // ways[a][b]: the cycles so far cover a mover and b other points.
        let mut ways = vec![vec![0u64; o + 1]; m + 1];
        ways[0][0] = 1;
        for &len in &cycles {
            let mut next = ways.clone();
            for a in 0..=m {
                for b in 0..=o {
                    if a >= len {
                        next[a][b] += ways[a - len][b];
                    }
                    if b >= len {
                        next[a][b] += ways[a][b - len];
                    }
                }
            }
            ways = next;
        }
        total += ways[m][o];
    }
    assert_eq!(total % 16, 0);
    total / 16
}

#[test]
fn each_sector_indexes_one_position_per_symmetry_class() {
    let game = Morris::default();
    for (m, o) in [(3u8, 3u8), (4, 3), (3, 4), (5, 2), (0, 3), (6, 5), (9, 3)] {
        // The placing sector of these stone counts: its index is that of
        // the counts alone.
        let sector = Sector::Placing {
            hands: [1, 1],
            stones: [m, o],
        };
        let size = game.tier_size(sector);
        let step = (size / 1_000_000).max(1);
        let mut named = 0u64;
        let mut index = 0;
        while index < size {
            if let Some(position) = game.tier_unrank(sector, index) {
                named += 1;
                assert_eq!(game.tier_rank(sector, &position), index);
                if named.is_multiple_of(64) {
                    let mut ranks = HashSet::new();
                    game.for_each_symmetric(&position, |image| {
                        ranks.insert(game.tier_rank(sector, &image));
                    });
                    assert_eq!(ranks.len(), 1, "images share the index");
                }
            }
            index += step;
        }
        if step == 1 {
            let expect = classes_by_burnside(usize::from(m), usize::from(o));
            assert_eq!(named, expect, "{m} against {o}");
        }
    }
}

#[test]
fn ranks_fold_symmetric_positions_and_the_swapped_colours() {
    let game = Morris::new(9);
    let mut rng = Rng(77);
    let sectors = game.tiers();
    for _ in 0..20_000 {
        let sector = sectors[rng.below(sectors.len() as u64) as usize];
        let Some(position) = random_in(&game, sector, &mut rng) else {
            continue;
        };
        let rank = game.tier_rank(sector, &position);
        assert!(rank < game.tier_size(sector));
        let back = game
            .tier_unrank(sector, rank)
            .expect("a rank names a position");
        assert_eq!(game.tier_of(&back), sector);
        assert_eq!(game.tier_rank(sector, &back), rank);
        let mut seen = false;
        game.for_each_symmetric(&position, |image| {
            assert_eq!(game.tier_rank(sector, &image), rank);
            let (me, them, _, _) = image.sides();
            let (bme, bthem, _, _) = back.sides();
            seen |= (me, them) == (bme, bthem);
        });
        assert!(seen, "the position's index names one of its images");
        let global = game.rank(&position);
        assert_eq!(game.rank(&game.unrank(global).unwrap()), global);
        if let Sector::Moving { .. } = sector {
            let swapped = Stones {
                white: position.black,
                black: position.white,
                hand: [0, 0],
                black_to_move: !position.black_to_move,
            };
            assert_eq!(game.tier_rank(sector, &swapped), rank);
        }
    }
}

/// How many random positions the un-move check looks at (about 5 CPU-s).
const UNMOVE_CHECKS: u64 = 1_000_000;

/// Checks the un-moves of `position` against its moves: every child lists
/// it among its parents (and among the in-sector parents when the child is
/// in its sector), and every parent listed has a move to it.
fn check_un_moves(game: &Morris, sector: Sector, position: &Stones) {
    let text = game.format_position(position);
    game.for_each_move(position, |_, child| {
        let mut found = false;
        game.for_each_parent(&child, |p| found |= p == *position);
        assert!(
            found,
            "{} lacks parent {text}",
            game.format_position(&child)
        );
        if game.tier_of(&child) == sector {
            let mut found = false;
            game.for_each_parent_in_tier(&child, |p| found |= p == *position);
            assert!(
                found,
                "{} lacks in-sector parent {text}",
                game.format_position(&child)
            );
        }
    });
    let check = |parent: Stones, in_sector: bool| {
        let mut found = false;
        game.for_each_move(&parent, |_, c| found |= c == *position);
        assert!(
            found,
            "{} listed as a parent of {text} has no move to it",
            game.format_position(&parent)
        );
        assert!(!in_sector || game.tier_of(&parent) == sector);
    };
    game.for_each_parent(position, |p| check(p, false));
    game.for_each_parent_in_tier(position, |p| check(p, true));
}

#[test]
fn un_moves_are_exactly_the_moves_reversed_in_every_sector() {
    use rayon::prelude::*;
    // Every sector (each shape: moving, placing with any hands, and the
    // lost sector, which has no position to draw) of 3, 4, 6 and 9 stones,
    // the same number of random positions in each.
    let games: Vec<Morris> = [3, 4, 6, 9].into_iter().map(Morris::new).collect();
    let sectors: Vec<(usize, Sector)> = games
        .iter()
        .enumerate()
        .flat_map(|(g, game)| game.tiers().into_iter().map(move |s| (g, s)))
        .collect();
    let per_sector = UNMOVE_CHECKS.div_ceil(sectors.len() as u64);
    let checked: u64 = sectors
        .par_iter()
        .enumerate()
        .map(|(i, &(g, sector))| {
            let game = &games[g];
            let mut rng = Rng(12345 + 0x9E37_79B9 * i as u64);
            let mut checked = 0;
            for _ in 0..per_sector {
                if let Some(position) = random_in(game, sector, &mut rng) {
                    check_un_moves(game, sector, &position);
                    checked += 1;
                }
            }
            checked
        })
        .sum();
    let lost_sectors = games.len() as u64;
    assert_eq!(checked, per_sector * (sectors.len() as u64 - lost_sectors));
}

/// Solves `morris:stones` tier by tier and compares every index of
/// whole-game retrograde analysis with the tier database; returns the
/// game, its plan and the database.
fn tiers_equal_retrograde(stones: u8) -> (Morris, Plan<Sector>, ply_core::db::Database) {
    let game = Morris::new(stones);
    let found = ply_core::check::tiers_equal_retrograde(&game, &game, &format!("morris-{stones}"));
    assert!(found.compared > 1000);
    assert!(
        found.values.contains("win") && found.values.contains("lose"),
        "{:?}",
        found.values
    );
    (game, found.plan, found.db)
}

#[test]
fn tiers_equal_whole_game_retrograde_analysis_on_morris_3() {
    tiers_equal_retrograde(3);
}

#[test]
fn tiers_equal_whole_game_retrograde_analysis_on_morris_4() {
    let (game, plan, db) = tiers_equal_retrograde(4);
    // White, to move with every stone hemmed in, has lost.
    let blocked = parse(&game, BLOCKED);
    let cell = db.cell(plan.key(&game, &blocked).unwrap()).unwrap();
    assert_eq!(cell.unpack(), Some(ply_core::Outcome::lose(0)));
}

#[test]
fn names_and_parameters_choose_the_whole_game_or_the_moving_phase() {
    for (params, name, moving) in [
        ("9", "morris", true),
        ("9,moving", "morris", true),
        ("9,whole", "morris:9,whole", false),
        ("4", "morris:4", false),
        ("4,whole", "morris:4", false),
        ("4,moving", "morris:4,moving", true),
    ] {
        let game = Morris::from_params(params).unwrap();
        assert_eq!((game.name().as_str(), game.moving_only()), (name, moving));
        let again = name.strip_prefix("morris:").unwrap_or("9");
        assert_eq!(Morris::from_params(again).unwrap().name(), name);
    }
    for bad in ["4,", "4,placing", "10", "4,moving,whole"] {
        assert!(
            matches!(Morris::from_params(bad), Err(PositionError::Parameters(_))),
            "{bad}"
        );
    }
    assert_eq!(Morris::default().name(), "morris");
    assert_ne!(
        Morris::default().rules_version(),
        Morris::new(9).rules_version()
    );
}

#[test]
fn the_moving_phase_lists_the_moving_sectors_and_lost_only() {
    let whole = Morris::new(9);
    let moving = Morris::default();
    let tiers = moving.tiers();
    assert_eq!(tiers.len(), 28 + 1);
    assert!(tiers.contains(&Sector::Lost));
    let whole_tiers = whole.tiers();
    for &tier in &tiers {
        assert!(!matches!(tier, Sector::Placing { .. }));
        assert!(whole_tiers.contains(&tier));
        for child in moving.child_tiers(tier) {
            assert!(tiers.contains(&child), "{tier:?} leads to {child:?}");
        }
    }
    let plan = Plan::new(&moving).unwrap();
    assert_eq!(plan.key(&moving, &moving.start()), None);
    // The global index still covers the whole game.
    assert_eq!(moving.index_len(), whole.index_len());
}

#[test]
fn the_moving_phase_alone_solves_as_in_the_whole_game() {
    let whole = Morris::new(4);
    let moving = Morris::moving_phase(4);
    let (truth_plan, truth) = ply_core::check::solve_tiers(&whole, "morris-4-whole");
    let (plan, db) = ply_core::check::solve_tiers(&moving, "morris-4-moving");
    let mut values = BTreeSet::new();
    for tier in moving.tiers() {
        for index in 0..moving.tier_size(tier) {
            let Some(position) = moving.tier_unrank(tier, index) else {
                continue;
            };
            let key = plan.key(&moving, &position).unwrap();
            let expect = truth_plan.key(&whole, &position).unwrap();
            let cell = db.cell(key).unwrap();
            assert_eq!(
                cell,
                truth.cell(expect).unwrap(),
                "{}",
                moving.format_position(&position)
            );
            values.insert(cell.unpack().unwrap().value.as_str());
        }
    }
    assert_eq!(
        values.len(),
        3,
        "wins, losses and draws compared: {values:?}"
    );
}

/// Calls `visit` with 20,000 random positions where play goes on for each
/// of 3, 4, 6 and 9 stones, from random sectors.
fn for_random_positions_in_play(seed: u64, mut visit: impl FnMut(&Morris, &Stones)) {
    let mut rng = Rng(seed);
    for n in [3, 4, 6, 9] {
        let game = Morris::new(n);
        let sectors = game.tiers();
        for _ in 0..20_000 {
            let sector = sectors[rng.below(sectors.len() as u64) as usize];
            let Some(position) = random_in(&game, sector, &mut rng) else {
                continue;
            };
            if game.primitive(&position).is_none() {
                visit(&game, &position);
            }
        }
    }
}

#[test]
fn children_are_listed_as_ranking_each_move_s_position_would() {
    for_random_positions_in_play(0xC0FF_EE11, |game, position| {
        let mut expect = Vec::new();
        game.for_each_move(position, |_, child| {
            let tier = game.tier_of(&child);
            expect.push((tier, game.tier_rank(tier, &child)));
        });
        let mut listed = Vec::new();
        game.for_each_child(position, |tier, index| listed.push((tier, index)));
        assert_eq!(listed, expect, "{}", game.format_position(position));
    });
}

#[test]
fn parents_are_ranked_as_ranking_each_parent_would() {
    let (mut ranked, mut said_distinct, mut repeated) = (0, 0, 0);
    for_random_positions_in_play(0x9A2E_4715, |game, position| {
        let tier = game.tier_of(position);
        let mut expect = Vec::new();
        game.for_each_parent_in_tier(position, |parent| {
            expect.push(game.tier_rank(tier, &parent));
        });
        let mut listed = Vec::new();
        let distinct =
            game.for_each_parent_index_in_tier(tier, position, |index| listed.push(index));
        assert_eq!(listed, expect, "{}", game.format_position(position));
        ranked += listed.len();
        let mut once = listed.clone();
        once.sort_unstable();
        once.dedup();
        if distinct {
            said_distinct += 1;
            assert_eq!(
                once.len(),
                listed.len(),
                "{}",
                game.format_position(position)
            );
        } else if once.len() < listed.len() {
            repeated += 1;
        }
    });
    // Moving sectors, where parents are, are drawn often enough.
    assert!(ranked > 10_000, "{ranked}");
    // Most positions' parents are said to be distinct, and where they are
    // not said to be, repeats do occur.
    assert!(said_distinct > 100, "{said_distinct}");
    assert!(repeated > 0, "{repeated}");
}

#[test]
fn children_left_out_are_the_distinct_children_inside_the_sector() {
    let (mut left_out, mut listed_all) = (0, 0);
    for_random_positions_in_play(0x5EC7_0125, |game, position| {
        let own = game.tier_of(position);
        let (mut all, mut outside, mut inside) = (Vec::new(), Vec::new(), Vec::new());
        game.for_each_move(position, |_, child| {
            let tier = game.tier_of(&child);
            let index = game.tier_rank(tier, &child);
            all.push((tier, index));
            if tier == own {
                inside.push(index);
            } else {
                outside.push((tier, index));
            }
        });
        inside.sort_unstable();
        inside.dedup();
        let mut listed = Vec::new();
        let counted =
            game.for_each_child_outside(position, |tier, index| listed.push((tier, index)));
        let text = game.format_position(position);
        match counted {
            Some(count) => {
                left_out += 1;
                assert_eq!(listed, outside, "{text}");
                assert_eq!(count, inside.len(), "{text}");
            }
            None => {
                listed_all += 1;
                assert_eq!(listed, all, "{text}");
            }
        }
    });
    // Both ways are taken: most positions have no symmetry, some do.
    assert!(
        left_out > 1_000 && listed_all > 1_000,
        "{left_out} {listed_all}"
    );
}

#[test]
fn stepping_through_a_sector_unranks_every_index() {
    let mut rng = Rng(4242);
    for n in [4, 9] {
        let game = Morris::new(n);
        for sector in game.tiers() {
            let size = game.tier_size(sector);
            // A moving sector's second half (the mover with `lo` stones)
            // starts where a placing sector of `hi` against `lo` would end.
            let seam = match sector {
                Sector::Moving { hi, lo } if hi != lo => game.tier_size(Sector::Placing {
                    hands: [1, 1],
                    stones: [hi, lo],
                }),
                _ => size,
            };
            // The whole of a small sector; else runs from random starts,
            // across class boundaries, the halves' seam and the end.
            let runs: Vec<std::ops::Range<u64>> = if size <= 50_000 {
                vec![
                    0..size,
                    size / 3..size / 3 + 1,
                    seam - 1..seam + 1,
                    size..size,
                ]
            } else {
                (0..4)
                    .map(|_| rng.below(size))
                    .chain([seam.saturating_sub(1500), size.saturating_sub(3000)])
                    .map(|start| start..(start + 3000).min(size))
                    .collect()
            };
            for range in runs {
                let mut expect = Vec::new();
                for index in range.clone() {
                    if let Some(position) = game.tier_unrank(sector, index) {
                        expect.push((index, position));
                    }
                }
                let mut stepped = Vec::new();
                game.for_each_in_tier(sector, range.clone(), |index, position| {
                    stepped.push((index, position));
                });
                assert_eq!(stepped, expect, "{} {range:?}", game.tier_name(sector));
            }
        }
    }
}

#[test]
fn the_page_board_draws_the_spec_s_32_lines() {
    let game = Morris::default();
    let board = game.board(&game.start());
    let drawn: BTreeSet<(String, String)> = board
        .lines
        .iter()
        .map(|[a, b]| (a.clone().min(b.clone()), a.clone().max(b.clone())))
        .collect();
    let spec: BTreeSet<(String, String)> = LINKS
        .iter()
        .map(|&(a, b)| (a.min(b).to_string(), a.max(b).to_string()))
        .collect();
    assert_eq!(drawn, spec);
    // Every line joins two cells of the board.
    let ids: BTreeSet<&str> = board.cells.iter().map(|c| c.id.as_str()).collect();
    assert!(
        board
            .lines
            .iter()
            .flatten()
            .all(|id| ids.contains(id.as_str()))
    );
}
