//! Dobutsu Shogi: the one-byte retrograde solver on reduced variants
//! against a plain independent solve (every position of the index and
//! every position reached from the start by legal play, full expansion,
//! values found round by round from the children alone, no counters and
//! no un-moves), and each value following from the children's, after
//! declined catches and tries too.

use ply_core::WinsAtOnce;
use ply_core::solve::byte_retro::{self, ByteTable};
use ply_core::{Game, Indexed, NoProgress, Outcome, Value};
use ply_games::Dobutsu;
use ply_games::dobutsu::{DobutsuPosition, LION};
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;

fn facts() -> HashMap<String, String> {
    include_str!("../data/dobutsu.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (name, value) = line.split_once(' ').expect("name value");
            (name.to_string(), value.trim().to_string())
        })
        .collect()
}

/// Positions as the index sees them (the side flag dropped).
fn key(p: &DobutsuPosition) -> DobutsuPosition {
    DobutsuPosition { sente: true, ..*p }
}

/// The plain solve: every position reached from `seeds` with full
/// expansion (play stops only at primitive positions), and the outcome of
/// each from its children, round by round.
fn plain_solve(
    game: &Dobutsu,
    seeds: impl IntoIterator<Item = DobutsuPosition>,
) -> HashMap<DobutsuPosition, Outcome> {
    let mut ids = HashMap::new();
    let mut list = Vec::new();
    for seed in seeds {
        let seed = key(&seed);
        ids.entry(seed).or_insert_with(|| {
            list.push(seed);
            list.len() - 1
        });
    }
    let mut children: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    while next < list.len() {
        let p = list[next];
        let mut mine = Vec::new();
        if game.primitive(&p).is_none() {
            game.for_each_move(&p, |_, child| {
                let child = key(&child);
                let id = *ids.entry(child).or_insert_with(|| {
                    list.push(child);
                    list.len() - 1
                });
                mine.push(id);
            });
        }
        children.push(mine);
        next += 1;
    }
    let mut outcome: Vec<Option<Outcome>> = list
        .iter()
        .map(|p| game.primitive(p).map(Outcome::terminal))
        .collect();
    for p in &list {
        if game.primitive(p).is_none() {
            let mut any = false;
            game.for_each_move(p, |_, _| any = true);
            assert!(any, "every position has a move in these variants");
        }
    }
    for k in 1.. {
        let decided: Vec<(usize, Outcome)> = (0..list.len())
            .filter(|&i| outcome[i].is_none())
            .filter_map(|i| {
                let kids: Vec<Option<Outcome>> = children[i].iter().map(|&c| outcome[c]).collect();
                if kids.iter().any(|o| *o == Some(Outcome::lose(k - 1))) {
                    return Some((i, Outcome::win(k)));
                }
                let all_wins = kids
                    .iter()
                    .all(|o| o.is_some_and(|o| o.value == Value::Win));
                let longest = kids
                    .iter()
                    .filter_map(|o| o.and_then(|o| o.remoteness))
                    .max();
                (all_wins && longest == Some(k - 1)).then_some((i, Outcome::lose(k)))
            })
            .collect();
        if decided.is_empty() {
            break;
        }
        for (i, o) in decided {
            outcome[i] = Some(o);
        }
    }
    list.into_iter()
        .zip(outcome)
        .map(|(p, o)| (p, o.unwrap_or(Outcome::DRAW)))
        .collect()
}

/// The positions reached by legal play (it stops only where it is over),
/// those whose mover's Lion has been caught left out: play is over there.
/// Walked once for each variant, for every test that asks (the walk of
/// `dobutsu:GC` is the longest part of these tests).
fn reached_by_legal_play(game: &Dobutsu) -> &'static std::collections::HashSet<DobutsuPosition> {
    static CHICKS: OnceLock<std::collections::HashSet<DobutsuPosition>> = OnceLock::new();
    static GIRAFFES: OnceLock<std::collections::HashSet<DobutsuPosition>> = OnceLock::new();
    let cell = match game.name().as_str() {
        "dobutsu:C" => &CHICKS,
        "dobutsu:GC" => &GIRAFFES,
        other => panic!("no walk kept for {other}"),
    };
    cell.get_or_init(|| {
        let mut seen = reached_stopping_at(game, |_| false);
        seen.retain(|p| p.board.contains(&LION));
        seen
    })
}

/// Whether the mover wins at once (and play is not already over).
fn wins_at_once(game: &Dobutsu, p: &DobutsuPosition) -> bool {
    game.primitive(p).is_none() && game.wins_at_once(p)
}

/// The positions reached when play stops at primitive positions and where
/// `stops` says.
fn reached_stopping_at(
    game: &Dobutsu,
    stops: impl Fn(&DobutsuPosition) -> bool,
) -> std::collections::HashSet<DobutsuPosition> {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![key(&game.start())];
    seen.insert(stack[0]);
    while let Some(p) = stack.pop() {
        if game.primitive(&p).is_some() || stops(&p) {
            continue;
        }
        game.for_each_move(&p, |_, child| {
            if seen.insert(key(&child)) {
                stack.push(key(&child));
            }
        });
    }
    seen
}

/// How many classes `positions` fall into, a class being a position and
/// its mirror image, named by the smaller board of the two.
fn mirror_classes<'a>(positions: impl Iterator<Item = &'a DobutsuPosition>) -> u64 {
    positions
        .map(|p| {
            p.board
                .min(Dobutsu::mirror(p).board)
                .to_vec()
                .into_iter()
                .chain(p.hands.concat())
                .collect::<Vec<u8>>()
        })
        .collect::<std::collections::HashSet<_>>()
        .len() as u64
}

/// Checks that every position legal play reaches is answered (by the
/// rules where play is over or the mover wins at once, else stored), that
/// the table answers more (legal positions play does not reach), and that
/// its counts agree with one another.
fn check_coverage(game: &Dobutsu, table: &ByteTable) {
    let seen = reached_by_legal_play(game);
    let mut reached_stored = 0;
    for p in seen {
        if game.primitive(p).is_none() && !game.wins_at_once(p) {
            assert!(
                table.outcome(game, p).is_some(),
                "{}",
                game.format_position(p)
            );
            reached_stored += 1;
        }
    }
    assert!(table.stored_positions() > reached_stored);
    assert_eq!(
        table.positions(),
        table.stored_positions() + table.wins_at_once()
    );
    let [stored, at_once] = table.classes().expect("a mirror");
    assert_eq!(stored, table.stored());
    assert!(stored < table.stored_positions() && at_once < table.wins_at_once());
}

/// Every position of the index, and its mirror image.
fn index_positions(game: &Dobutsu) -> impl Iterator<Item = DobutsuPosition> + '_ {
    (0..game.index_len())
        .filter_map(|i| game.unrank(i))
        .flat_map(|p| [p, Dobutsu::mirror(&p)])
}

fn variant(params: &str) -> &'static (Dobutsu, ByteTable) {
    static CHICKS: OnceLock<(Dobutsu, ByteTable)> = OnceLock::new();
    static GIRAFFES: OnceLock<(Dobutsu, ByteTable)> = OnceLock::new();
    let cell = match params {
        "C" => &CHICKS,
        _ => &GIRAFFES,
    };
    cell.get_or_init(|| {
        let game = Dobutsu::from_params(params).unwrap();
        let table = byte_retro::solve(&game, &NoProgress).unwrap();
        (game, table)
    })
}

fn check_against_plain_solve(params: &str) {
    let (game, table) = variant(params);
    let plain = plain_solve(
        game,
        index_positions(game).chain(std::iter::once(game.start())),
    );
    check_coverage(game, table);
    let (mut compared, mut draws, mut in_index, mut at_once) = (0, 0, 0, 0);
    for (p, outcome) in &plain {
        // Wins at once are not stored: the rules tell them.
        if wins_at_once(game, p) {
            assert_eq!(*outcome, Outcome::win(1), "{}", game.format_position(p));
        }
        if game.rank(p) < game.index_len() {
            in_index += 1;
            at_once += u64::from(wins_at_once(game, p));
        }
        if let Some(fast) = table.outcome(game, p) {
            assert_eq!(fast, *outcome, "{}", game.format_position(p));
            compared += 1;
            draws += usize::from(fast == Outcome::DRAW);
        }
    }
    // Every position of the index is answered: stored, or a win at once.
    assert_eq!(compared, table.stored_positions());
    assert_eq!(at_once, table.wins_at_once());
    assert_eq!(in_index, table.positions());
    // Repetition: some positions are draws, and they have the same value
    // in the plain solve.
    assert!(draws > 0);
    // Only the stored keys have a byte: with the index's bits, the table
    // is smaller than a byte per index.
    assert!(
        table.bytes() < game.index_len() * 3 / 4,
        "{} bytes for {} indices, {} stored",
        table.bytes(),
        game.index_len(),
        table.stored()
    );
}

#[test]
fn lions_and_chicks_match_a_plain_solve() {
    check_against_plain_solve("C");
}

/// The plain solve of `dobutsu:GC` takes minutes, too long for every run;
/// its values are checked against their children below instead.
#[test]
fn lions_giraffes_and_chicks_answer_what_a_plain_walk_reaches() {
    let (game, table) = variant("GC");
    check_coverage(game, table);
}

/// Tanaka's convention (play stops only at catches, mirror images once)
/// counted by the solver's reach and by a plain walk.
#[test]
fn reached_positions_stopping_at_catches_match_a_plain_walk() {
    for params in ["C", "GC"] {
        let game = Dobutsu::from_params(params).unwrap();
        let seen = reached_stopping_at(&game, Dobutsu::can_catch);
        let classes = mirror_classes(seen.iter());
        // Play passes through positions the rules decide: counted over the
        // index that keeps them.
        let every = game.with_every_placement();
        let counted = byte_retro::count_reached(&every, Dobutsu::can_catch, &NoProgress).unwrap();
        // A catch is a win at once: the positions stopped at are among them.
        let at_once = seen.iter().filter(|p| wins_at_once(&game, p)).count();
        let counted_seen = [seen.len(), classes as usize, at_once];
        assert_eq!(
            counted.map(|n| n as usize),
            counted_seen,
            "dobutsu:{params}"
        );
        // Tries do not stop play here: more is reached than when they do;
        // declined catches reach more still.
        let shortcut = reached_stopping_at(&game, |p| game.wins_at_once(p));
        assert!(seen.len() > shortcut.len(), "dobutsu:{params}");
        assert!(
            reached_by_legal_play(&game).len() > seen.len(),
            "dobutsu:{params}"
        );
    }
}

/// The index is Tanaka's without the Lion placements the rules decide,
/// mirror images folded: 28 of his 132 Lion placements, each a block of
/// the same size.
#[test]
fn the_index_size_is_tanakas_without_what_the_rules_decide() {
    let facts = facts();
    let len = Dobutsu::new().index_len();
    assert_eq!(len % 28, 0);
    assert_eq!((len / 28 * 132).to_string(), facts["index_size"]);
}

/// The outcome of `p` by the table, or by the rules where play is over
/// or the mover wins at once (never stored).
fn answer(game: &Dobutsu, table: &ByteTable, p: &DobutsuPosition) -> Option<Outcome> {
    if let Some(value) = game.primitive(p) {
        return Some(Outcome::terminal(value));
    }
    if game.wins_at_once(p) {
        return Some(Outcome::win(1));
    }
    table.outcome(game, p)
}

/// Every position one move past a declined catch or try (a move from a
/// position where the mover wins at once that does not end play) is
/// answered, and its value follows from its children's answers.
#[test]
fn positions_past_a_declined_catch_or_try_are_answered_from_their_children() {
    // `dobutsu:GC` takes minutes this way; its values are checked against
    // their children on random indices (below), past declined catches too.
    for params in ["C"] {
        let (game, table) = variant(params);
        let mut past = std::collections::HashSet::new();
        for &p in reached_by_legal_play(game) {
            if wins_at_once(game, &p) {
                game.for_each_move(&p, |_, child| {
                    if game.primitive(&child).is_none() {
                        past.insert(key(&child));
                    }
                });
            }
        }
        assert!(
            past.len() > 100,
            "dobutsu:{params}: {} positions",
            past.len()
        );
        let mut stored = 0;
        for p in &past {
            let outcome = answer(game, table, p)
                .unwrap_or_else(|| panic!("dobutsu:{params}: {}", game.format_position(p)));
            stored += usize::from(table.outcome(game, p).is_some());
            let mut kids = Vec::new();
            game.for_each_move(p, |_, child| {
                kids.push(answer(game, table, &child).expect("children are answered"))
            });
            let from_kids = Outcome::from_children(kids).unwrap_or(Outcome::lose(0));
            assert_eq!(from_kids, outcome, "{}", game.format_position(p));
        }
        // The table holds some of them, and some of those play that
        // stopped at catches and tries never reached.
        let shortcut = reached_stopping_at(game, |p| game.wins_at_once(p));
        let new = past
            .iter()
            .filter(|p| table.outcome(game, p).is_some() && !shortcut.contains(p))
            .count();
        assert!(stored > 0 && new > 0, "dobutsu:{params}: {stored}, {new}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn each_value_follows_from_the_children(index in 0..Dobutsu::from_params("GC").unwrap().index_len()) {
        let (game, table) = variant("GC");
        let Some(outcome) = table.outcome_at(index) else { return Ok(()); };
        let p = game.unrank(index).unwrap();
        if let Some(value) = game.primitive(&p) {
            // After a safe try: play is over.
            prop_assert_eq!(outcome, Outcome::terminal(value));
            return Ok(());
        }
        prop_assert!(!game.wins_at_once(&p), "wins at once are not stored");
        // A child where play is over is answered by the rules first, even
        // where its mover could otherwise win at once.
        let mut kids = Vec::new();
        game.for_each_move(&p, |_, child| {
            kids.push(answer(game, table, &child).expect("children are reached"))
        });
        prop_assert_eq!(Outcome::from_children(kids).unwrap_or(Outcome::lose(0)), outcome);
    }
}
