//! Teeko: each rule on hand-made positions, random positions against a
//! plain move generator written from the rules, the index tier by tier,
//! and un-moves against moves.

use ply_core::{Game, Indexed, NamedTiers, Parents, Symmetric, Value};
use ply_games::Teeko;
use ply_games::teeko::{TeekoMove, TeekoPosition};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The patterns from the rules, by geometry: four in a line in each of
/// four directions, the 2x2 squares, and for the advanced game the corners
/// of the upright 3x3, 4x4 and 5x5 squares. Each a sorted list of squares.
fn plain_patterns(advanced: bool) -> BTreeSet<Vec<usize>> {
    let mut patterns = BTreeSet::new();
    let on = |r: i32, c: i32| (0..5).contains(&r) && (0..5).contains(&c);
    for r in 0..5i32 {
        for c in 0..5i32 {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let line: Vec<(i32, i32)> = (0..4).map(|k| (r + k * dr, c + k * dc)).collect();
                if line.iter().all(|&(r, c)| on(r, c)) {
                    let mut squares: Vec<usize> =
                        line.iter().map(|&(r, c)| (r * 5 + c) as usize).collect();
                    squares.sort_unstable();
                    patterns.insert(squares);
                }
            }
            let spans: &[i32] = if advanced { &[1, 2, 3, 4] } else { &[1] };
            for &d in spans {
                if on(r + d, c + d) {
                    let mut squares: Vec<usize> = [(r, c), (r, c + d), (r + d, c), (r + d, c + d)]
                        .iter()
                        .map(|&(r, c)| (r * 5 + c) as usize)
                        .collect();
                    squares.sort_unstable();
                    patterns.insert(squares);
                }
            }
        }
    }
    patterns
}

/// A board as the rules see it: 25 squares of `.`, `X` or `O`, and the
/// side to move.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Plain {
    squares: Vec<u8>,
    mover: u8,
}

impl Plain {
    fn parse(text: &str) -> Self {
        let (board, mover) = text.rsplit_once('/').unwrap();
        Self {
            squares: board.bytes().filter(|&b| b != b'/').collect(),
            mover: mover.as_bytes()[0],
        }
    }

    fn text(&self) -> String {
        let rows: Vec<String> = self
            .squares
            .chunks(5)
            .map(|r| String::from_utf8(r.to_vec()).unwrap())
            .collect();
        format!("{}/{}", rows.join("/"), char::from(self.mover))
    }

    fn count(&self, piece: u8) -> usize {
        self.squares.iter().filter(|&&s| s == piece).count()
    }

    fn has_pattern(&self, piece: u8, advanced: bool) -> bool {
        plain_patterns(advanced)
            .iter()
            .any(|p| p.iter().all(|&s| self.squares[s] == piece))
    }

    fn ended(&self, advanced: bool) -> bool {
        self.has_pattern(b'X', advanced) || self.has_pattern(b'O', advanced)
    }

    /// The positions the mover's moves lead to, by the rules.
    fn children(&self) -> BTreeSet<String> {
        let other = if self.mover == b'X' { b'O' } else { b'X' };
        let mut out = BTreeSet::new();
        let on_board = self.count(b'X') + self.count(b'O');
        for from in 0..25 {
            if on_board < 8 {
                if self.squares[from] == b'.' {
                    let mut child = self.clone();
                    child.squares[from] = self.mover;
                    child.mover = other;
                    out.insert(child.text());
                }
                continue;
            }
            if self.squares[from] != self.mover {
                continue;
            }
            let (r, c) = ((from / 5) as i32, (from % 5) as i32);
            for dr in -1..=1 {
                for dc in -1..=1 {
                    let (nr, nc) = (r + dr, c + dc);
                    if (dr, dc) == (0, 0) || !(0..5).contains(&nr) || !(0..5).contains(&nc) {
                        continue;
                    }
                    let to = (nr * 5 + nc) as usize;
                    if self.squares[to] == b'.' {
                        let mut child = self.clone();
                        child.squares[to] = self.mover;
                        child.squares[from] = b'.';
                        child.mover = other;
                        out.insert(child.text());
                    }
                }
            }
        }
        out
    }
}

fn children(game: &Teeko, position: &TeekoPosition) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    game.for_each_move(position, |_, child| {
        out.insert(game.format_position(&child));
    });
    out
}

fn moves(game: &Teeko, text: &str) -> Vec<String> {
    let position = game.parse_position(text).unwrap();
    let mut out = Vec::new();
    game.for_each_move(&position, |mv, _| out.push(game.format_move(&position, mv)));
    out
}

fn value(game: &Teeko, text: &str) -> Option<Value> {
    game.primitive(&game.parse_position(text).unwrap())
}

#[test]
fn the_pattern_lists_are_the_rules_geometry() {
    for advanced in [false, true] {
        let game = Teeko::new(advanced);
        let listed: BTreeSet<Vec<usize>> = game
            .patterns()
            .iter()
            .map(|&m| (0..25).filter(|s| m >> s & 1 == 1).collect())
            .collect();
        let plain = plain_patterns(advanced);
        assert_eq!(listed, plain);
        assert_eq!(listed.len(), if advanced { 58 } else { 44 });
    }
}

#[test]
fn each_kind_of_pattern_ends_play() {
    let standard = Teeko::new(false);
    let advanced = Teeko::new(true);
    // X has just made the pattern; O is to move and has lost.
    let patterns = [
        ("XXXX./OOO../...../...../O..../O", "row"),
        (".OOO./..X../..X../..X../..XO./O", "column"),
        ("X..OO/.X.../..X../...XO/....O/O", "diagonal down-right"),
        ("O...X/O..X./..X../.X.../....O/O", "diagonal down-left"),
        ("O..../O..../..XX./..XXO/....O/O", "2x2 square"),
    ];
    for (text, kind) in patterns {
        assert_eq!(value(&standard, text), Some(Value::Lose), "{kind}");
        assert_eq!(value(&advanced, text), Some(Value::Lose), "{kind}");
    }
    // The corners of larger squares win only in the advanced game.
    let corners = [
        ("X.X../.O.../X.X../O..../O.O../O", "3x3 corners"),
        ("X..X./.O.../..O../X..X./O.O../O", "4x4 corners"),
        ("X...X/.O.../..O../...O./X..OX/O", "5x5 corners"),
    ];
    for (text, kind) in corners {
        assert_eq!(value(&standard, text), None, "{kind}");
        assert_eq!(value(&advanced, text), Some(Value::Lose), "{kind}");
    }
    // Three in a row and a bent line are no pattern.
    assert_eq!(value(&standard, "XXX../X..../...../OOO../O..../O"), None);
    assert_eq!(value(&standard, "XXX../...X./...../OOO../O..../O"), None);
}

#[test]
fn a_surrounded_piece_cannot_move_and_the_others_can() {
    let game = Teeko::default();
    // X on a1 is hemmed in by b1, a2, b2; X's other pieces can step.
    let text = "XO..O/OO.../..X../...../X...X/X";
    let listed = moves(&game, text);
    assert!(listed.iter().all(|m| !m.starts_with("a1")), "{listed:?}");
    assert!(listed.contains(&"c3d4".to_string()), "{listed:?}");
    // 7 from c3 (b2 is taken), 3 from a5, 3 from e5.
    assert_eq!(listed.len(), 13, "{listed:?}");
}

#[test]
fn drops_come_first_then_steps() {
    let game = Teeko::default();
    let start = game.start();
    assert_eq!(
        game.format_position(&start),
        "...../...../...../...../...../X"
    );
    assert_eq!(moves(&game, "...../...../...../...../...../X").len(), 25);
    // O drops its fourth piece: the move phase begins with X to move.
    let before = game
        .parse_position("XO.../XO.../..X../...../X.O../O")
        .unwrap();
    assert_eq!(game.tier_of(&before), 7);
    let mut after = None;
    game.for_each_move(&before, |mv, child| {
        if mv == TeekoMove::Drop(24) {
            after = Some(child);
        }
    });
    let after = after.unwrap();
    assert_eq!(
        game.format_position(&after),
        "XO.../XO.../..X../...../X.O.O/X"
    );
    assert_eq!(game.tier_of(&after), 8);
    let steps = moves(&game, &game.format_position(&after));
    assert!(steps.iter().all(|m| m.len() == 4), "{steps:?}");
    assert!(steps.contains(&"c3d3".to_string()), "{steps:?}");
    // In the move phase both sides may be to move.
    assert!(
        game.parse_position("XO.../XO.../..X../...../X.O.O/O")
            .is_ok()
    );
}

#[test]
fn bad_text_is_refused_with_a_reason() {
    let game = Teeko::default();
    for bad in [
        "...../...../...../...../.....",
        "...../...../...../...../...../Z",
        "...../...../...../...../....../X",
        "...../...../..Q../...../...../X",
        "...../...../..X../...../...../X",
        "XXXXX/...../...../OOOO./O..../O",
        // X to move with its pattern already made.
        "XXXX./OOO../...../...../O..../X",
    ] {
        assert!(game.parse_position(bad).is_err(), "{bad}");
    }
}

#[test]
fn tier_sizes_add_up_to_gamesmanones_count() {
    let game = Teeko::default();
    let sizes: Vec<u64> = game.tiers().iter().map(|&t| game.tier_size(t)).collect();
    assert_eq!(sizes.iter().sum::<u64>(), 172_401_726);
    assert_eq!(game.index_len(), 172_401_726);
    assert_eq!(sizes[0], 1);
    assert_eq!(sizes[1], 25);
    assert_eq!(sizes[2], 25 * 24);
}

/// Every index of the small tiers, and a stride through the large ones,
/// round trips; each position is in its tier and reads back from its text.
#[test]
fn ranks_round_trip_in_every_tier() {
    let game = Teeko::new(true);
    for tier in game.tiers() {
        let size = game.tier_size(tier);
        let step = (size / 400_000).max(1);
        let mut legal = 0u64;
        for index in (0..size).step_by(step as usize) {
            let Some(position) = game.tier_unrank(tier, index) else {
                // Only a mover with a pattern already made is no position.
                assert_eq!(tier, 8);
                continue;
            };
            legal += 1;
            assert_eq!(game.tier_of(&position), tier);
            assert_eq!(game.tier_rank(tier, &position), index);
            let text = game.format_position(&position);
            assert_eq!(game.parse_position(&text), Ok(position), "{text}");
            assert_eq!(game.unrank(game.rank(&position)), Some(position));
        }
        assert!(legal > 0);
    }
    assert_eq!(game.tier_unrank(8, game.tier_size(8)), None);
    assert_eq!(game.unrank(game.index_len()), None);
}

/// A random board of `tier`, as text: a shuffle of the squares gives X's
/// then O's pieces.
fn board_in_tier() -> impl Strategy<Value = String> {
    (
        0usize..=8,
        Just((0u8..25).collect::<Vec<u8>>()).prop_shuffle(),
        any::<bool>(),
    )
        .prop_map(|(tier, squares, o_moves)| {
            let (xs, os) = if tier < 8 {
                (tier.div_ceil(2), tier / 2)
            } else {
                (4, 4)
            };
            let mut board = [b'.'; 25];
            for &s in &squares[..xs] {
                board[usize::from(s)] = b'X';
            }
            for &s in &squares[xs..xs + os] {
                board[usize::from(s)] = b'O';
            }
            let mover = if tier < 8 {
                if xs == os { b'X' } else { b'O' }
            } else if o_moves {
                b'O'
            } else {
                b'X'
            };
            Plain {
                squares: board.to_vec(),
                mover,
            }
            .text()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Moves, ends of play, index and symmetries against the rules.
    #[test]
    fn random_positions_follow_the_rules(text in board_in_tier(), advanced in any::<bool>()) {
        let game = Teeko::new(advanced);
        let plain = Plain::parse(&text);
        let mover_made_pattern = plain.has_pattern(plain.mover, advanced);
        let parsed = game.parse_position(&text);
        prop_assert_eq!(parsed.is_err(), mover_made_pattern, "{}", text);
        let Ok(position) = parsed else { return Ok(()) };
        prop_assert_eq!(game.format_position(&position), text.clone());
        let ended = plain.ended(advanced);
        prop_assert_eq!(game.primitive(&position), ended.then_some(Value::Lose));
        if !ended {
            prop_assert_eq!(children(&game, &position), plain.children());
            // The tier solver's view of the moves: each child's tier and index.
            let mut by_moves = Vec::new();
            game.for_each_move(&position, |_, child| {
                let tier = game.tier_of(&child);
                by_moves.push((tier, game.tier_rank(tier, &child)));
            });
            let mut direct = Vec::new();
            game.for_each_child(&position, |tier, index| direct.push((tier, index)));
            prop_assert_eq!(direct, by_moves);
        }
        let tier = game.tier_of(&position);
        let index = game.tier_rank(tier, &position);
        prop_assert!(index < game.tier_size(tier));
        prop_assert_eq!(game.tier_unrank(tier, index), Some(position));
        // Images keep the counts and the end of play, and share one
        // canonical form.
        let canonical = game.canonical(&position);
        game.for_each_symmetric(&position, |image| {
            assert_eq!(game.canonical(&image), canonical);
            assert_eq!(game.primitive(&image), game.primitive(&position));
            assert_eq!(children(&game, &image).len(), children(&game, &position).len());
        });
    }

    /// Un-moves against moves: every parent has a move to the position,
    /// and every move's position lists its parent.
    #[test]
    fn parents_are_the_moves_reversed(text in board_in_tier(), advanced in any::<bool>()) {
        let game = Teeko::new(advanced);
        let Ok(position) = game.parse_position(&text) else { return Ok(()) };
        let me = game.format_position(&position);
        let mut parents = Vec::new();
        game.for_each_parent(&position, |p| parents.push(p));
        for parent in &parents {
            prop_assert!(game.parse_position(&game.format_position(parent)).is_ok());
            prop_assert_eq!(game.primitive(parent), None);
            prop_assert!(children(&game, parent).contains(&me));
        }
        let mut in_tier = Vec::new();
        game.for_each_parent_in_tier(&position, |p| in_tier.push(p));
        let same_tier: Vec<_> = parents
            .iter()
            .filter(|p| game.tier_of(p) == game.tier_of(&position))
            .copied()
            .collect();
        prop_assert_eq!(in_tier, same_tier);
        if game.primitive(&position).is_none() {
            game.for_each_move(&position, |_, child| {
                // The opponent's pieces are as they were: no pattern.
                let legal = game.parse_position(&game.format_position(&child));
                assert_eq!(legal, Ok(child));
                {
                    let mut found = false;
                    game.for_each_parent(&child, |p| found |= p == position);
                    assert!(found, "{} is no parent of {}", me, game.format_position(&child));
                    let tier = game.tier_of(&child);
                    assert!(tier == game.tier_of(&position)
                        || game.child_tiers(game.tier_of(&position)).contains(&tier));
                }
            });
        }
    }
}

#[test]
fn the_page_drops_with_one_click_and_steps_with_two() {
    let game = Teeko::default();
    let start = game.board(&game.start());
    assert_eq!((start.rows, start.cols), (5, 5));
    assert_eq!(start.moves.len(), 25);
    let c3 = start.moves.iter().find(|m| m.name == "c3").unwrap();
    assert_eq!(c3.clicks, [["c3"]]);
    let position = game
        .parse_position("XO..O/OO.../..X../...../X...X/X")
        .unwrap();
    let board = game.board(&position);
    assert_eq!(board.mover, Some(0));
    assert_eq!(board.cells[0].pieces[0].side, Some(0));
    assert_eq!(board.cells[1].pieces[0].side, Some(1));
    assert_eq!(board.moves.len(), 13);
    let step = board.moves.iter().find(|m| m.name == "c3d4").unwrap();
    assert_eq!(step.clicks, [["c3"], ["d4"]]);
    assert!(board.moves.iter().all(|m| m.clicks.len() == 2));
    // Play has ended: nothing to click.
    let ended = game
        .parse_position("XXXX./OOO../...../...../O..../O")
        .unwrap();
    assert!(game.board(&ended).moves.is_empty());
}
