//! Quixo's rules on hand-made positions, its moves against a plain move
//! generator on characters, its index and un-moves against its moves, and
//! the tier solver against whole-game retrograde analysis on 3x3.

use super::*;
use ply_core::{Indexed, NamedTiers};
use std::collections::BTreeSet;

fn parse(game: &Quixo, text: &str) -> Cubes {
    game.parse_position(text).expect("a position")
}

/// Every move from `text` as (move name, position after).
fn moves(game: &Quixo, text: &str) -> BTreeSet<(String, String)> {
    let position = parse(game, text);
    let mut out = BTreeSet::new();
    game.for_each_move(&position, |mv, child| {
        out.insert((
            game.format_move(&position, mv),
            game.format_position(&child),
        ));
    });
    out
}

#[test]
fn a_move_that_makes_both_lines_loses() {
    let game = Quixo::new(3);
    let start = "O.X/XO./XO./X";
    assert_eq!(game.primitive(&parse(&game, start)), None);
    let all = moves(&game, start);
    // c1 goes back in at a1: a1 and b1 shift right. X has column a, O column b.
    let after = "XO./XO./XO./O";
    assert!(
        all.contains(&("c1a1".to_string(), after.to_string())),
        "{all:?}"
    );
    assert_eq!(
        game.primitive(&parse(&game, after)),
        Some(Value::Win),
        "O, to move, wins"
    );
    // Only the mover's line: the mover wins, so the player now to move loses.
    assert_eq!(
        game.primitive(&parse(&game, "XO./X../X.O/O")),
        Some(Value::Lose)
    );
    // Only the opponent of the last mover made a line: it stands.
    assert_eq!(
        game.primitive(&parse(&game, "OOO/X../X../O")),
        Some(Value::Win)
    );
}

#[test]
fn a_cube_never_goes_back_where_it_came_from() {
    let game = Quixo::new(4);
    let start = moves(&game, "..../..../..../..../X");
    assert_eq!(start.len(), 32, "12(n-1)-4 moves on an empty 4x4 board");
    let from_a1: Vec<&str> = start
        .iter()
        .map(|(m, _)| m.as_str())
        .filter(|m| m.starts_with("a1"))
        .collect();
    assert_eq!(from_a1, ["a1a4", "a1d1"]);
    assert!(start.iter().all(|(m, _)| m[..2] != m[2..]));
    assert!(start.contains(&("b1b4".to_string(), "..../..../..../.X../O".to_string())));
    assert!(start.contains(&("b1a1".to_string(), "X.../..../..../..../O".to_string())));
    assert_eq!(
        moves(&Quixo::new(5), "...../...../...../...../...../X").len(),
        44
    );
    // The opponent's cubes stay put; interior cubes cannot be taken.
    let blocked = moves(&game, "O.../.X../..../..../X");
    assert!(blocked.iter().all(|(m, _)| !m.starts_with("a1")));
    assert!(blocked.iter().all(|(m, _)| !m.starts_with("b2")));
    assert_eq!(blocked.len(), 30);
}

#[test]
fn bad_text_is_refused_with_the_reason() {
    let game = Quixo::new(4);
    for (text, says) in [
        ("..../..../..../X", "parts"),
        ("..../..../..../.../X", "row 4"),
        ("..../..x./..../..../X", "'x'"),
        ("..../..../..../..../Z", "mover"),
    ] {
        let error = game.parse_position(text).unwrap_err();
        assert!(error.message().contains(says), "{text}: {error}");
    }
    assert!(Quixo::from_params("6x6").is_err());
    assert_eq!(Quixo::from_params("4x4").unwrap().name(), "quixo:4x4");
    assert_eq!(Quixo::default().name(), "quixo");
}

/// A plain move generator on rows of characters.
fn plain_moves(n: usize, text: &str) -> BTreeSet<(String, String)> {
    let (rows, mover) = text.rsplit_once('/').unwrap();
    let grid: Vec<Vec<char>> = rows.split('/').map(|r| r.chars().collect()).collect();
    let me = mover.chars().next().unwrap();
    let other = if me == 'X' { 'O' } else { 'X' };
    let name = |r: usize, c: usize| format!("{}{}", (b'a' + c as u8) as char, r + 1);
    let mut out = BTreeSet::new();
    for r in 0..n {
        for c in 0..n {
            let edge = r == 0 || c == 0 || r == n - 1 || c == n - 1;
            if !edge || grid[r][c] == other {
                continue;
            }
            for (tr, tc) in [(r, 0), (r, n - 1), (0, c), (n - 1, c)] {
                if (tr, tc) == (r, c) {
                    continue;
                }
                let mut g = grid.clone();
                if tr == r {
                    // Along the row, from c toward tc.
                    if tc > c {
                        for k in c..tc {
                            g[r][k] = grid[r][k + 1];
                        }
                    } else {
                        for k in (tc + 1..=c).rev() {
                            g[r][k] = grid[r][k - 1];
                        }
                    }
                } else if tr > r {
                    for k in r..tr {
                        g[k][c] = grid[k + 1][c];
                    }
                } else {
                    for k in (tr + 1..=r).rev() {
                        g[k][c] = grid[k - 1][c];
                    }
                }
                g[tr][tc] = me;
                let rows: Vec<String> = g.iter().map(|row| row.iter().collect()).collect();
                out.insert((
                    format!("{}{}", name(r, c), name(tr, tc)),
                    format!("{}/{other}", rows.join("/")),
                ));
            }
        }
    }
    out
}

/// A random position of `game` from a seed: any board, either mover.
fn random(game: &Quixo, state: &mut u64) -> Cubes {
    let n = u32::from(game.side()) * u32::from(game.side());
    let mut cubes = Cubes {
        x: 0,
        o: 0,
        o_to_move: false,
    };
    for square in 0..n {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        match (*state >> 33) % 3 {
            1 => cubes.x |= 1 << square,
            2 => cubes.o |= 1 << square,
            _ => {}
        }
    }
    cubes.o_to_move = (*state >> 40) & 1 == 1;
    cubes
}

#[test]
fn moves_equal_a_plain_move_generator_on_random_positions() {
    let mut state = 7;
    for n in [3, 4, 5] {
        let game = Quixo::new(n);
        for _ in 0..300 {
            let text = game.format_position(&random(&game, &mut state));
            assert_eq!(
                moves(&game, &text),
                plain_moves(usize::from(n), &text),
                "{text}"
            );
        }
    }
}

#[test]
fn ranks_are_dense_and_unrank_inverts_them() {
    let game = Quixo::new(3);
    let mut seen = BTreeSet::new();
    for code in 0..3u32.pow(9) * 2 {
        let (mut rest, mut cubes) = (
            code / 2,
            Cubes {
                x: 0,
                o: 0,
                o_to_move: code % 2 == 1,
            },
        );
        for square in 0..9 {
            match rest % 3 {
                1 => cubes.x |= 1 << square,
                2 => cubes.o |= 1 << square,
                _ => {}
            }
            rest /= 3;
        }
        let tier = game.tier_of(&cubes);
        let index = game.tier_rank(tier, &cubes);
        assert!(index < game.tier_size(tier));
        assert_eq!(game.tier_unrank(tier, index), Some(cubes));
        assert!(seen.insert((tier, index)));
    }
    let sizes: u64 = game.tiers().iter().map(|&t| game.tier_size(t)).sum();
    assert_eq!(sizes, seen.len() as u64);
    let mut state = 3;
    for n in [4, 5] {
        let game = Quixo::new(n);
        for _ in 0..2000 {
            let cubes = random(&game, &mut state);
            let tier = game.tier_of(&cubes);
            let index = game.tier_rank(tier, &cubes);
            assert!(index < game.tier_size(tier));
            assert_eq!(game.tier_unrank(tier, index), Some(cubes));
        }
        // Boards with no blank or one (ranked by a shortcut).
        let squares = u32::from(n) * u32::from(n);
        let full = (1u32 << squares) - 1;
        for i in 0..2000u32 {
            let x = random(&game, &mut state).x ^ random(&game, &mut state).o;
            let blank = if i % 2 == 0 { 0 } else { 1 << (i % squares) };
            let cubes = Cubes {
                x: x & full & !blank,
                o: !x & full & !blank,
                o_to_move: i % 4 < 2,
            };
            let tier = game.tier_of(&cubes);
            let index = game.tier_rank(tier, &cubes);
            assert!(index < game.tier_size(tier));
            assert_eq!(game.tier_unrank(tier, index), Some(cubes));
        }
    }
}

#[test]
fn un_moves_are_exactly_the_moves_inside_a_tier_reversed() {
    let mut state = 11;
    for n in [3, 4, 5] {
        let game = Quixo::new(n);
        for _ in 0..300 {
            let parent = random(&game, &mut state);
            let tier = game.tier_of(&parent);
            game.for_each_move(&parent, |_, child| {
                if game.tier_of(&child) == tier {
                    let mut found = false;
                    game.for_each_parent_in_tier(&child, |p| found |= p == parent);
                    assert!(
                        found,
                        "{} not a parent of {}",
                        game.format_position(&parent),
                        game.format_position(&child)
                    );
                }
            });
            game.for_each_parent_in_tier(&parent, |grand| {
                assert_eq!(game.tier_of(&grand), tier);
                let mut found = false;
                game.for_each_move(&grand, |_, c| found |= c == parent);
                assert!(
                    found,
                    "{} has no move to {}",
                    game.format_position(&grand),
                    game.format_position(&parent)
                );
            });
        }
    }
}

ply_core::wrapper_game! {
    /// Quixo over one index of every board, for whole-game retrograde analysis.
    struct Whole(Quixo);
}

impl Indexed for Whole {
    fn index_len(&self) -> u64 {
        3u64.pow(u32::from(self.0.side()).pow(2)) * 2
    }
    fn rank(&self, p: &Cubes) -> u64 {
        let squares = u32::from(self.0.side()).pow(2);
        let board = (0..squares).rev().fold(0u64, |acc, s| {
            acc * 3 + u64::from(p.x >> s & 1) + 2 * u64::from(p.o >> s & 1)
        });
        board * 2 + u64::from(p.o_to_move)
    }
    fn unrank(&self, index: u64) -> Option<Cubes> {
        let mut cubes = Cubes {
            x: 0,
            o: 0,
            o_to_move: index % 2 == 1,
        };
        let mut rest = index / 2;
        for square in 0..u32::from(self.0.side()).pow(2) {
            match rest % 3 {
                1 => cubes.x |= 1 << square,
                2 => cubes.o |= 1 << square,
                _ => {}
            }
            rest /= 3;
        }
        Some(cubes)
    }
}

#[test]
fn tiers_equal_whole_game_retrograde_analysis_on_3x3() {
    let game = Quixo::new(3);
    let whole = Whole(Quixo::new(3));
    let found = ply_core::check::tiers_equal_retrograde(&game, &whole, "quixo-3x3");
    assert_eq!(found.compared, whole.index_len(), "every board compared");
    assert!(
        found.plan.steps.len() < game.tiers().len(),
        "mirror tiers are solved once"
    );
    assert!(
        found.values.len() >= 2,
        "wins and losses: {:?}",
        found.values
    );
}

#[test]
fn stepping_through_a_tier_equals_unranking_each_index() {
    for n in [3, 4, 5] {
        let game = Quixo::new(n);
        for tier in game.tiers() {
            let size = game.tier_size(tier);
            let start = size / 3;
            let range = start..size.min(start + 500);
            let mut expected = range
                .clone()
                .filter_map(|i| Some((i, game.tier_unrank(tier, i)?)));
            game.for_each_in_tier(tier, range.clone(), |index, position| {
                assert_eq!(Some((index, position)), expected.next(), "tier {tier:?}");
            });
            assert_eq!(expected.next(), None, "tier {tier:?}: every index visited");
        }
    }
}

/// The image of `position` under a permutation of squares, square by square.
fn mapped(position: &Cubes, map: &[usize]) -> Cubes {
    let image = |mask: u32| {
        (0..map.len())
            .filter(|&s| mask >> s & 1 == 1)
            .fold(0, |m, s| m | 1 << map[s])
    };
    Cubes {
        x: image(position.x),
        o: image(position.o),
        o_to_move: position.o_to_move,
    }
}

#[test]
fn folding_maps_a_class_to_one_board_and_moves_onto_moves() {
    let mut state = 11;
    for n in [3, 4, 5] {
        let game = Quixo::new(n);
        let maps = crate::board::Shape { rows: n, cols: n }.symmetries();
        assert_eq!(maps.len(), 8);
        let folded_children = |p: &Cubes| {
            let mut children = Vec::new();
            if game.primitive(p).is_none() {
                game.for_each_folded_child(p, |tier, index| {
                    // Children in other tiers come unfolded: fold them here.
                    let child = game.tier_unrank(tier, index).expect("a child");
                    children.push((tier, game.tier_rank(tier, &game.fold_in_tier(&child))));
                });
            }
            children.sort_unstable();
            children
        };
        for _ in 0..200 {
            let position = random(&game, &mut state);
            let representative = game.fold_in_tier(&position);
            assert_eq!(game.fold_in_tier(&representative), representative);
            assert_eq!(game.tier_of(&representative), game.tier_of(&position));
            let mut images = 0;
            for map in &maps {
                let image = mapped(&position, map);
                images += usize::from(image == representative);
                let text = game.format_position(&image);
                assert_eq!(game.fold_in_tier(&image), representative, "{text}");
                assert_eq!(
                    game.is_representative(&image),
                    image == representative,
                    "{text}"
                );
                assert_eq!(game.primitive(&image), game.primitive(&position), "{text}");
                assert_eq!(
                    folded_children(&image),
                    folded_children(&position),
                    "{text}"
                );
            }
            assert!(images >= 1, "the representative is an image");
        }
    }
}
