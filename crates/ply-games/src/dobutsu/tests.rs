use super::*;
use ply_core::WinsAtOnce;
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::OnceLock;

/// Whether both Lions stand on the middle file (squares 1, 4, 7, 10).
fn lions_on_middle_file(position: &DobutsuPosition) -> bool {
    (0..12).all(|square| position.board[square] & 7 != LION || square % 3 == 1)
}

/// The size of the full game's index: 28 Lion placements of 11,878,227.
const INDEX_LEN: u64 = 28 * 11_878_227;

fn game() -> &'static Dobutsu {
    static GAME: OnceLock<Dobutsu> = OnceLock::new();
    GAME.get_or_init(Dobutsu::new)
}

fn parse(text: &str) -> DobutsuPosition {
    game().parse_position(text).unwrap()
}

/// Every move from `text`, by name, with the position it leads to.
fn moves(text: &str) -> Vec<(String, String)> {
    let position = parse(text);
    let mut list = Vec::new();
    game().for_each_move(&position, |mv, child| {
        list.push((
            game().format_move(&position, mv),
            game().format_position(&child),
        ))
    });
    list.sort();
    list
}

/// The position the move named `name` from `text` leads to.
fn after(text: &str, name: &str) -> String {
    moves(text)
        .into_iter()
        .find(|(m, _)| m == name)
        .unwrap_or_else(|| panic!("{text} has no move {name}"))
        .1
}

fn names(text: &str) -> Vec<String> {
    moves(text).into_iter().map(|(m, _)| m).collect()
}

#[test]
fn the_start_has_four_moves_and_reads_back() {
    let start = game().start();
    assert_eq!(game().format_position(&start), "gle/.c./.C./ELG/-/S");
    assert_eq!(
        names("gle/.c./.C./ELG/-/S"),
        ["b3b2", "b4a3", "b4c3", "c4c3"]
    );
    assert!(moves("gle/.c./.C./ELG/-/S").contains(&("b3b2".into(), "gle/.C./.../ELG/C/g".into())));
    // Gote's reply names squares on the absolute board.
    assert_eq!(
        names("gle/.C./.../ELG/C/g"),
        ["a1a2", "b1a2", "b1b2", "b1c2", "c1b2"]
    );
}

#[test]
fn positions_read_back_with_either_side_to_move() {
    for text in [
        "gle/.C./.../ELG/C/g",
        "g.e/.l./H../ELG/c/S",
        "..l/.../.../L../GGEEcc/g",
    ] {
        assert_eq!(game().format_position(&parse(text)), text);
    }
}

#[test]
fn bad_positions_are_refused() {
    for text in [
        "gle/.c./.C./ELG/-",
        "gle/.c./.C./ELG/-/G",
        "gle/.c./.C./EGG/-/S",
        "gle/.c./.C./EL./-/S",
        "gle/.c./.C./ELG/C/S",
        "gle/.x./.C./ELG/-/S",
        "gle/.c/.C./ELG/-/S",
    ] {
        assert!(game().parse_position(text).is_err(), "{text}");
    }
}

#[test]
fn a_chick_promotes_when_it_moves_onto_the_far_rank() {
    assert!(
        moves("..l/C../.../L../GGEEc/S")
            .contains(&("a2a1".into(), "H.l/.../.../L../GGEEc/g".into()))
    );
    // Gote's Chick promotes on rank 4.
    assert!(
        moves("..l/.../c../..L/GGEEC/g")
            .contains(&("a3a4".into(), "..l/.../.../h.L/GGEEC/S".into()))
    );
}

#[test]
fn a_chick_dropped_on_the_far_rank_stays_a_chick_and_cannot_move() {
    let dropped = after("..l/.../.../L../GGEECc/S", "C*a1");
    assert_eq!(dropped, "C.l/.../.../L../GGEEc/g");
    // Gote passes with a Lion move; the Chick on a1 has no move.
    let back = "C.l/.../.../L../GGEEc/S";
    assert!(names(back).iter().all(|m| !m.starts_with("a1")));
}

#[test]
fn a_captured_hen_goes_to_hand_as_a_chick() {
    let child = after("..l/.h./.G./L../GEEc/S", "b3b2");
    assert_eq!(child, "..l/.G./.../L../GEECc/g");
}

#[test]
fn a_try_wins_only_onto_a_square_not_attacked() {
    // The Lion on a2 can step to a1 or b1 on the far rank; the Giraffes on
    // a1 and b1 guard each other: no try wins.
    let guarded = parse("gg./L../..l/.../ECCe/S");
    assert!(!game().wins_at_once(&guarded));
    // With one Giraffe in hand, taking the other on a1 is a safe try.
    let text = "g../L../..l/.../GECCe/S";
    assert!(game().wins_at_once(&parse(text)));
    // After a safe try the other player has lost; after an unsafe one they
    // catch the Lion.
    assert_eq!(
        game().primitive(&parse(&after(text, "a2a1"))),
        Some(Value::Lose)
    );
    let child = parse(&after(text, "a2b1"));
    assert_eq!(game().primitive(&child), None);
    assert!(game().wins_at_once(&child));
}

#[test]
fn catching_the_lion_ends_play() {
    let adjacent = parse("g.e/.C./lL./E.G/c/S");
    assert!(game().wins_at_once(&adjacent));
    let caught = after("g.e/.C./lL./E.G/c/S", "b3a3");
    assert_eq!(
        game().primitive(&parse_unchecked(&caught)),
        Some(Value::Lose)
    );
    // The caught position reads back (the page and `ply solve` list it),
    // but only the player to move may lack a Lion.
    assert_eq!(parse(&caught), parse_unchecked(&caught));
    assert_eq!(game().format_position(&parse(&caught)), caught);
    assert!(game().parse_position("g.e/.C./.L./E.G/c/S").is_err());
    assert!(game().parse_position("g.e/.C./.l./E.G/c/g").is_err());
}

/// Reads a position with a Lion caught through the moves that lead to it,
/// not the parser.
fn parse_unchecked(text: &str) -> DobutsuPosition {
    let mut found = None;
    let adjacent = parse("g.e/.C./lL./E.G/c/S");
    game().for_each_move(&adjacent, |_, child| {
        if game().format_position(&child) == text {
            found = Some(child);
        }
    });
    found.unwrap()
}

/// Tanaka's index without the Lion placements the rules decide and those
/// that number after their mirror images: 28 of his 132 blocks of
/// positions.
#[test]
fn the_index_is_tanakas_without_what_the_rules_decide_mirror_images_folded() {
    assert_eq!(game().index_len(), INDEX_LEN);
    assert_eq!(game().index_len() / 28 * 132, 1_567_925_964);
    let start = game().start();
    assert_eq!(game().unrank(game().rank(&start)), Some(start));
}

/// The moves of a position by the rules read straight from the spec, for
/// every square pair and every drop, without the step tables.
fn brute_force_moves(position: &DobutsuPosition) -> HashSet<(u8, u8)> {
    let mut out = HashSet::new();
    for from in 0..12u8 {
        let piece = position.board[usize::from(from)];
        if piece == EMPTY || piece & THEIRS != 0 {
            continue;
        }
        for to in 0..12u8 {
            let target = position.board[usize::from(to)];
            if target != EMPTY && target & THEIRS == 0 {
                continue;
            }
            let dr = i32::from(to / 3) - i32::from(from / 3);
            let dc = i32::from(to % 3) - i32::from(from % 3);
            let ok = match piece {
                LION => dr.abs() <= 1 && dc.abs() <= 1 && (dr, dc) != (0, 0),
                GIRAFFE => dr.abs() + dc.abs() == 1,
                ELEPHANT => dr.abs() == 1 && dc.abs() == 1,
                CHICK => (dr, dc) == (-1, 0),
                _ => (dr.abs() + dc.abs() == 1) || (dr == -1 && dc.abs() == 1),
            };
            if ok {
                out.insert((from, to));
            }
        }
    }
    for k in 0..3u8 {
        if position.hands[0][usize::from(k)] > 0 {
            for to in 0..12u8 {
                if position.board[usize::from(to)] == EMPTY {
                    out.insert((12 + k, to));
                }
            }
        }
    }
    out
}

fn children(position: &DobutsuPosition) -> Vec<DobutsuPosition> {
    let mut list = Vec::new();
    game().for_each_move(position, |_, child| list.push(child));
    list
}

fn parents(position: &DobutsuPosition) -> Vec<DobutsuPosition> {
    let mut list = Vec::new();
    game().for_each_parent(position, |parent| list.push(parent));
    list
}

/// Whether walking `range`, and unranking every third of its indices
/// given in a list (in order, then backwards), give what unranking each
/// index gives.
fn walk_matches_unrank(range: std::ops::Range<u64>) -> bool {
    let mut walked = Vec::new();
    game().for_each_unranked(range.clone(), |index, position| {
        walked.push((index, *position))
    });
    let each: Vec<_> = range
        .filter_map(|index| Some((index, game().unrank(index)?)))
        .collect();
    let listed = |indices: Vec<u64>| {
        let mut got = Vec::new();
        game().for_each_unranked_of(indices, |index, position| got.push((index, *position)));
        got
    };
    let thirds: Vec<_> = each.iter().copied().step_by(3).collect();
    let forward = listed(thirds.iter().map(|&(index, _)| index).collect());
    let backward = listed(thirds.iter().rev().map(|&(index, _)| index).collect());
    walked == each && forward == thirds && backward.into_iter().rev().eq(thirds.iter().copied())
}

/// Walks across the ends of every Lion placement's indices and of the
/// index agree with unranking.
#[test]
fn walking_across_placements_unranks_each_index() {
    let per_lions = INDEX_LEN / 28;
    for placement in 1..=28 {
        let end = placement * per_lions;
        assert!(
            walk_matches_unrank(end - 300..end + 300),
            "placement {placement}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Walking a run of indices gives what unranking each gives, across
    /// the ends of blocks of one kind word (at most 4,096 positions) and
    /// of occupied sets.
    #[test]
    fn walking_a_run_unranks_each_index(start in 0..INDEX_LEN, len in 0u64..10_000) {
        prop_assert!(walk_matches_unrank(start..start + len));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn unrank_inverts_rank(index in 0..INDEX_LEN) {
        let position = game().unrank(index).unwrap();
        prop_assert_eq!(game().rank(&position), index);
        // The same view with Gote to move has the same index.
        let gote = DobutsuPosition { sente: false, ..position };
        prop_assert_eq!(game().rank(&gote), index);
        let turned = rules::turned(&position);
        prop_assert_eq!(rules::turned(&turned), position);
        // Text reads back.
        for p in [position, gote, turned] {
            let text = game().format_position(&p);
            prop_assert_eq!(game().parse_position(&text).unwrap(), p);
        }
        // The mirror image ranks as the position, or (both Lions on the
        // middle file) is a position of the index too.
        let mirror = Dobutsu::mirror(&position);
        let image = game().rank(&mirror);
        prop_assert!(image < game().index_len());
        prop_assert_eq!(image == index, !lions_on_middle_file(&position) || mirror == position);
        prop_assert_eq!(Dobutsu::mirror(&mirror), position);
    }

    /// The shortcut by the Lions' squares agrees with ranking both images,
    /// on random indexes and on indexes with both Lions on the middle file.
    #[test]
    fn the_canonical_index_is_the_lesser_of_the_two_images(
        index in 0..INDEX_LEN,
        middle in 0..11_878_227u64,
        lions in proptest::sample::select(vec![(1u64, 7u64), (7, 1), (10, 1), (10, 4)]),
    ) {
        // Lions on b1..b4 (squares 1, 4, 7, 10): placement number as the index numbers it.
        let (mine, theirs) = lions;
        let placement = index::SOLVED.number(mine as u32, theirs as u32).unwrap();
        for index in [index, placement * 11_878_227 + middle] {
            let position = game().unrank(index).unwrap();
            let image = game().rank(&Dobutsu::mirror(&position));
            prop_assert_eq!(game().canonical_index(&position), index.min(image));
            // The image (whose Lions the index may not keep) has the same key.
            prop_assert_eq!(game().canonical_index(&Dobutsu::mirror(&position)), index.min(image));
            // The class size by the Lions' squares agrees with counting
            // the distinct images.
            let key = index.min(image);
            let kept = game().unrank(key).unwrap();
            let size = 1 + u64::from(Dobutsu::mirror(&kept) != kept);
            prop_assert_eq!(game().class_size(key, &kept), size);
        }
    }

    #[test]
    fn moves_match_the_brute_force_rules(index in 0..INDEX_LEN) {
        let position = game().unrank(index).unwrap();
        let mut generated = HashSet::new();
        let mut children = HashSet::new();
        game().for_each_move(&position, |mv, child| {
            generated.insert((mv.from, mv.to));
            children.insert(child);
        });
        prop_assert_eq!(&generated, &brute_force_moves(&position));
        // Every move leads to a different position.
        prop_assert_eq!(children.len(), generated.len());
    }

    #[test]
    fn unmoves_agree_with_moves(index in 0..INDEX_LEN) {
        let position = game().unrank(index).unwrap();
        if game().primitive(&position).is_none() {
            for child in children(&position) {
                prop_assert!(parents(&child).contains(&position), "{} -> {}", game().format_position(&position), game().format_position(&child));
            }
        }
        let list = parents(&position);
        let distinct: HashSet<_> = list.iter().collect();
        prop_assert_eq!(distinct.len(), list.len());
        for parent in list {
            prop_assert!(game().primitive(&parent).is_none());
            prop_assert!(children(&parent).contains(&position), "{} <- {}", game().format_position(&position), game().format_position(&parent));
        }
    }
}

/// A small random sequence (splitmix64), seeded, for the big sweeps.
fn random_indices(seed: u64, n: usize) -> impl Iterator<Item = u64> {
    let mut state = seed;
    (0..n).map(move |_| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % game().index_len()
    })
}

/// The end of play read straight from the spec: the mover's Lion caught,
/// or the other Lion on the mover's home rank where no move takes it.
fn brute_force_primitive(position: &DobutsuPosition) -> Option<Value> {
    if !position.board.contains(&LION) {
        return Some(Value::Lose);
    }
    let lion = (9..12u8).find(|&s| position.board[usize::from(s)] == LION | THEIRS)?;
    let takes = brute_force_moves(position)
        .iter()
        .any(|&(from, to)| from < 12 && to == lion);
    (!takes).then_some(Value::Lose)
}

/// Un-moves against moves on a million random indices: every child of a
/// position lists it among its parents, every parent has it among its
/// children, parents are distinct and never ended; the end of play agrees
/// with the spec's reading.
#[test]
fn unmoves_agree_with_moves_on_a_million_positions() {
    let mut checked = 0;
    for index in random_indices(12, 1_000_000) {
        let position = game().unrank(index).unwrap();
        assert_eq!(
            game().primitive(&position),
            brute_force_primitive(&position)
        );
        if game().primitive(&position).is_none() {
            for child in children(&position) {
                assert!(
                    parents(&child).contains(&position),
                    "{} -> {}",
                    game().format_position(&position),
                    game().format_position(&child)
                );
            }
        }
        let list = parents(&position);
        for (i, parent) in list.iter().enumerate() {
            assert!(!list[..i].contains(parent));
            assert!(game().primitive(parent).is_none());
            assert!(
                children(parent).contains(&position),
                "{} <- {}",
                game().format_position(&position),
                game().format_position(parent)
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 1_000_000);
}

/// The positions the index leaves out are decided by the rules: on random
/// positions, the other Lion moved beside the mover's or onto the mover's
/// home rank ranks out of the index, and play is over there or the mover
/// wins at once.
#[test]
fn the_placements_left_out_are_decided_by_the_rules() {
    let mut checked = 0;
    for index in random_indices(56, 20_000) {
        let position = game().unrank(index).unwrap();
        let (s, _) = rules::Attacks::glance(&position.board);
        let (mine, theirs) = (s.my_lion, s.their_lion);
        assert!(mine < 12 && theirs < 12, "both Lions stand in the index");
        let beside = rules::steps(LION, mine);
        for square in 0..12 {
            let empty = position.board[square] == EMPTY || square == theirs;
            if !empty || square == mine || (beside >> square & 1 == 0 && square < 9) {
                continue;
            }
            let mut moved = position;
            moved.board[theirs] = EMPTY;
            moved.board[square] = LION | THEIRS;
            assert_eq!(game().rank(&moved), game().index_len());
            assert_eq!(game().canonical_index(&moved), game().index_len());
            let decided = game().primitive(&moved).is_some() || game().wins_at_once(&moved);
            assert!(decided, "{}", game().format_position(&moved));
            checked += 1;
        }
    }
    assert!(checked > 20_000, "{checked}");
}

/// Moves against the brute-force generator, rank against unrank, and
/// the key of a class and its size told from its index against the key
/// ranked and the distinct images, on a million random indices.
#[test]
fn moves_and_ranks_agree_on_a_million_positions() {
    for index in random_indices(34, 1_000_000) {
        let position = game().unrank(index).unwrap();
        assert_eq!(game().rank(&position), index);
        let key = game().canonical_index(&position) == index;
        assert_eq!(game().is_key(index, &position), key);
        // The class counted from its images, as the default does.
        let mut images = HashSet::new();
        game().for_each_symmetric(&position, |image| {
            images.insert(image);
        });
        assert_eq!(
            game().key_size(index, &position),
            key.then_some(images.len() as u64)
        );
        let mirror = Dobutsu::mirror(&position);
        let back = game().unrank(game().rank(&mirror)).unwrap();
        if lions_on_middle_file(&position) {
            assert_eq!(back, mirror);
        } else {
            assert_eq!(back, position);
        }
        let mut generated = HashSet::new();
        game().for_each_move(&position, |mv, _| {
            generated.insert((mv.from, mv.to));
        });
        assert_eq!(generated, brute_force_moves(&position));
    }
}

/// Issue 23's examples, refused when play stopped where the mover could
/// catch the Lion or make a safe try: each is legal, play is not over, and
/// it follows a move that declined a catch or a try (a parent where the
/// mover wins at once), which legal play may make.
#[test]
fn the_issue_examples_follow_a_declined_catch_or_try() {
    for text in [
        ".gc/g.e/l.e/.cL/-/S",
        "..l/.e./gLG/Eh./c/S",
        "g.e/..l/.EG/..L/Cc/g",
    ] {
        let position = parse(text);
        assert_eq!(game().primitive(&position), None, "{text}");
        let declined = parents(&position)
            .into_iter()
            .filter(|parent| game().wins_at_once(parent))
            .count();
        assert!(declined > 0, "{text}: no parent wins at once");
    }
}

/// The tally the byte solver counts, made the plain way: each move played
/// and its child asked the rules.
fn tally_by_children(position: &DobutsuPosition) -> MoveTally {
    let mut tally = MoveTally::default();
    for child in children(position) {
        tally.moves += 1;
        match game().primitive(&child) {
            Some(Value::Lose) => tally.ends = true,
            Some(_) => tally.other_end = true,
            None if game().wins_at_once(&child) => {}
            None => tally.open += 1,
        }
    }
    tally
}

/// The moves tallied from the position alone ([`rules::tally_moves`])
/// against the tally made by playing them, moves against un-moves once
/// each (the solve counts moves, so a parent met twice would be counted
/// down twice), and the parents the solve stores, told before they are
/// made, against the parents asked whether they win at once, on a million
/// random indices.
#[test]
fn moves_tally_as_their_children_do_on_a_million_positions() {
    let (mut open, mut ends, mut stored, mut left_out) = (0u64, 0u64, 0usize, 0usize);
    let mut counted = [0u64; 3];
    for index in random_indices(78, 1_000_000) {
        let position = game().unrank(index).unwrap();
        let mut kept = Vec::new();
        game().for_each_stored_parent(&position, |parent| kept.push(parent));
        let all = parents(&position);
        let plain: Vec<_> = all
            .iter()
            .copied()
            .filter(|parent| !game().wins_at_once(parent))
            .collect();
        assert_eq!(kept, plain, "{}", game().format_position(&position));
        stored += kept.len();
        left_out += all.len() - kept.len();
        // The count's one look agrees with the rules asked in turn, on the
        // position and (for one in ten) its children, where play may be
        // over.
        let mut looked = vec![position];
        if index % 10 == 0 {
            looked.extend(children(&position));
        }
        for position in looked {
            let asked = match game().primitive(&position) {
                Some(value) => Count::Over(value),
                None if game().wins_at_once(&position) => Count::WinsAtOnce,
                None => Count::Goes(tally_by_children(&position)),
            };
            assert_eq!(
                game().count(&position),
                asked,
                "{}",
                game().format_position(&position)
            );
            counted[match asked {
                Count::Over(_) => 0,
                Count::WinsAtOnce => 1,
                Count::Goes(_) => 2,
            }] += 1;
        }
        if game().primitive(&position).is_some() {
            continue;
        }
        let tally = game().tally_moves(&position);
        assert_eq!(
            tally,
            tally_by_children(&position),
            "{}",
            game().format_position(&position)
        );
        open += u64::from(tally.open);
        ends += u64::from(tally.ends);
        let list = children(&position);
        for (i, child) in list.iter().enumerate() {
            assert!(!list[..i].contains(child));
        }
    }
    // Both kinds of move are met, and most positions have open moves;
    // parents are both kept and left out.
    assert!(open > 1_000_000 && ends > 10_000, "{open} {ends}");
    // Each kind of count is met.
    assert!(counted.iter().all(|&n| n > 1_000), "{counted:?}");
    assert!(
        stored > 1_000_000 && left_out > 1_000_000,
        "{stored} {left_out}"
    );
}

/// The parents' classes ranked from the position's planes, without boards
/// made, against each parent made, ranked and its images compared
/// ([`ply_core::stored_parent_classes`]), in the same
/// order, with and without the moves into the class, on 300,000 random
/// indices: among them positions where a parent's play may have been over
/// (the mover's Lion on their far rank), children that are their own
/// image, and parents that are.
#[test]
fn parents_ranked_from_planes_are_the_parents_made_and_ranked() {
    use ply_core::stored_parent_classes;
    let (mut parents, mut ended, mut own_children, mut doubled) = (0u64, 0u64, 0u64, 0u64);
    for index in random_indices(79, 300_000) {
        let position = game().unrank(index).unwrap();
        ended += u64::from(position.board[..3].contains(&LION));
        own_children += u64::from(game().class_size(index, &position) == 1);
        for moves in [false, true] {
            let (mut planes, mut made) = (Vec::new(), Vec::new());
            game().for_each_stored_parent_class(index, &position, moves, |parent, moves| {
                planes.push((parent, moves))
            });
            stored_parent_classes(game(), index, &position, moves, |parent, moves| {
                made.push((parent, moves))
            });
            assert_eq!(
                planes,
                made,
                "{} moves {moves}",
                game().format_position(&position)
            );
            parents += planes.len() as u64;
            doubled += planes.iter().filter(|&&(_, moves)| moves == 2).count() as u64;
        }
    }
    assert!(
        parents > 1_000_000 && ended > 1_000 && own_children > 20 && doubled > 100,
        "{parents} parents, {ended} ended, {own_children} own images, {doubled} doubled"
    );
}
