//! Every built-in game through `ply_core::check`, the one conformance
//! routine: text and board against moves, the index, un-moves, symmetries
//! and tiers, each as far as the game implements it, on positions of
//! random play from the start.

use ply_core::check::{Check, Summary, random_play};
use ply_core::{Indexed, NamedTiers, NumberedTiers, Parents, Symmetric, Variant, WinsAtOnce};
use ply_games::colex::PackingPath::{self, Pext, Tables};
use ply_games::{Dobutsu, Euler, LGame, Quixo, TicTacToe, Treblecross, Yehr};

/// Games of random play each check starts from.
const GAMES: usize = 40;

fn passed(result: Result<Summary, ply_core::check::Failures>, checks: u32) -> Summary {
    let summary = result.unwrap_or_else(|failures| panic!("{failures}"));
    assert_eq!(summary.checks, checks);
    assert!(
        summary.positions > GAMES as u64 && summary.moves > 0,
        "{summary:?}"
    );
    summary
}

/// The whole check for an acyclic game with an index, symmetries and
/// tiers.
fn acyclic<G: Indexed + Symmetric + NumberedTiers>(game: &G, seed: u64) {
    let positions = random_play(game, GAMES, seed);
    let check = Check::new(game, positions)
        .text()
        .board()
        .index()
        .symmetries()
        .tier_order();
    passed(check.finish(), 5);
}

/// The checks of a loopy game with an index, un-moves and symmetries.
fn loopy_check<G: Indexed + Symmetric + Parents>(game: &G, seed: u64) -> Check<'_, G> {
    let positions = random_play(game, GAMES, seed);
    Check::new(game, positions)
        .text()
        .board()
        .index()
        .parents()
        .symmetries()
}

/// The whole check for a loopy game with an index, un-moves and
/// symmetries.
fn loopy<G: Indexed + Symmetric + Parents>(game: &G, seed: u64) {
    passed(loopy_check(game, seed).finish(), 5);
}

/// The whole check for a loopy game with an index, un-moves and
/// symmetries, solved tier by tier.
fn loopy_in_tiers<G: Indexed + Symmetric + Parents + NamedTiers>(game: &G, seed: u64) {
    passed(loopy_check(game, seed).tiers().finish(), 6);
}

#[test]
fn euler() {
    for params in ["4x4", "5x5", "3x7x4"] {
        acyclic(&Euler::from_params(params).unwrap(), 1);
    }
}

#[test]
fn tictactoe() {
    for params in ["4x4x4", "3x3x3", "5x5x4", "6x6x4"] {
        acyclic(&TicTacToe::from_params(params).unwrap(), 2);
    }
}

#[test]
fn lgame() {
    let game = LGame::default();
    let positions = random_play(&game, GAMES, 3);
    let check = Check::new(&game, positions)
        .text()
        .board()
        .index()
        .symmetries();
    passed(check.finish(), 4);
}

#[test]
fn yehr() {
    loopy(&Yehr, 4);
}

#[test]
fn dobutsu() {
    for params in [None, Some("GC"), Some("C")] {
        loopy(&Dobutsu::named(params).unwrap(), 5);
    }
}

#[test]
fn treblecross() {
    for params in ["9", "30", "200"] {
        let game = Treblecross::from_params(params).unwrap();
        let positions = random_play(&game, GAMES, 6);
        passed(Check::new(&game, positions).text().board().finish(), 2);
    }
}

#[test]
fn quixo() {
    for params in ["3x3", "4x4", "5x5"] {
        let game = Quixo::from_params(params).unwrap();
        let positions = random_play(&game, GAMES, 7);
        let check = Check::new(&game, positions).text().board().tiers();
        passed(check.finish(), 3);
    }
}

#[test]
fn teeko() {
    for params in [None, Some("advanced"), Some("4x4")] {
        loopy_in_tiers(&ply_games::Teeko::named(params).unwrap(), 8);
    }
}

#[test]
fn morris() {
    for stones in [3, 5, 9] {
        loopy_in_tiers(&ply_games::Morris::new(stones), 9);
    }
}

/// Under `PLY_PACKING`, the games pack by the path it names.
#[test]
fn packing_is_the_forced_path() {
    let path = PackingPath::in_use();
    match std::env::var(ply_games::colex::PACKING_VARIABLE) {
        Ok(forced) => assert_eq!(path.name(), forced),
        Err(_) => assert_eq!(Ok(path), PackingPath::current()),
    }
}

/// Everything `pext` and `tables` rank in tiers, one game packed by each,
/// compared on the positions of random play: the rank, the children, the parents' indices and a walk from the position.
fn ranks_alike<G: NamedTiers>(pext: &G, tables: &G, seed: u64) {
    let mut compared = 0;
    for position in random_play(pext, GAMES, seed) {
        if pext.primitive(&position).is_some() {
            continue;
        }
        let tier = pext.tier_of(&position);
        let (tier, position) = if pext.canonical_tier(tier) == tier {
            (tier, position)
        } else {
            (pext.canonical_tier(tier), pext.to_canonical_tier(&position))
        };
        let in_tier = pext.tier_rank(tier, &position);
        assert_eq!(tables.tier_rank(tier, &position), in_tier, "{position:?}");
        assert_eq!(
            tables.tier_unrank(tier, in_tier),
            pext.tier_unrank(tier, in_tier)
        );
        let children = |game: &G| {
            let mut children = Vec::new();
            game.for_each_child(&position, |tier, index| children.push((tier, index)));
            let mut outside = Vec::new();
            let left = game.for_each_child_outside(&position, |tier, index| {
                outside.push((tier, index));
            });
            (children, outside, left)
        };
        assert_eq!(children(tables), children(pext), "{position:?}");
        let parents = |game: &G| {
            let mut parents = Vec::new();
            let distinct = game.for_each_parent_index_in_tier(tier, &position, |index| {
                parents.push(index);
            });
            (parents, distinct)
        };
        if G::IN_TIER_PARENTS {
            assert_eq!(parents(tables), parents(pext), "{position:?}");
        }
        let walk = |game: &G| {
            let mut walked = Vec::new();
            let end = (in_tier + 200).min(game.tier_size(tier));
            game.for_each_in_tier(tier, in_tier..end, |index, position| {
                walked.push((index, position));
            });
            walked
        };
        let walked = walk(pext);
        assert!(!walked.is_empty() && walked[0].0 == in_tier);
        assert_eq!(walk(tables), walked, "{position:?}");
        compared += 1;
    }
    assert!(compared > GAMES, "{compared}");
}

/// The global index of one game packed by each path, on the positions of
/// random play.
fn index_alike<G: Indexed>(pext: &G, tables: &G, seed: u64) {
    for position in random_play(pext, GAMES, seed) {
        let index = pext.rank(&position);
        assert_eq!(tables.rank(&position), index, "{position:?}");
        assert_eq!(tables.unrank(index), pext.unrank(index), "{index}");
    }
}

/// The games that rank point sets give the same indices through both
/// packing paths, in one process: each game made twice, one packed by
/// each path (issue 59).
#[test]
fn both_packing_paths_rank_alike() {
    for stones in [3, 5, 9] {
        let game = ply_games::Morris::new(stones);
        let (pext, tables) = (game.clone().packed_by(Pext), game.packed_by(Tables));
        index_alike(&pext, &tables, 11);
        ranks_alike(&pext, &tables, 11);
    }
    for params in ["3x3", "4x4", "5x5"] {
        let game = Quixo::from_params(params).unwrap();
        ranks_alike(&game.clone().packed_by(Pext), &game.packed_by(Tables), 12);
    }
    for params in [None, Some("advanced"), Some("4x4")] {
        let game = ply_games::Teeko::named(params).unwrap();
        let (pext, tables) = (game.clone().packed_by(Pext), game.packed_by(Tables));
        index_alike(&pext, &tables, 13);
        ranks_alike(&pext, &tables, 13);
    }
    for params in [None, Some("GC")] {
        let game = Dobutsu::named(params).unwrap();
        let (pext, tables) = (game.clone().packed_by(Pext), game.packed_by(Tables));
        let mut compared = 0;
        for position in random_play(&pext, GAMES, 14) {
            let index = pext.rank(&position);
            assert_eq!(tables.rank(&position), index, "{position:?}");
            assert_eq!(
                tables.canonical_index(&position),
                pext.canonical_index(&position)
            );
            assert_eq!(tables.unrank(index), pext.unrank(index));
            let classes = |game: &Dobutsu| {
                let mut classes = Vec::new();
                game.for_each_stored_parent_class(index, &position, true, |class, moves| {
                    classes.push((class, moves));
                });
                classes
            };
            assert_eq!(classes(&tables), classes(&pext), "{position:?}");
            compared += 1;
        }
        assert!(compared > GAMES, "{compared}");
    }
}

/// The games that rank point sets with `pext` or byte tables (issue 59)
/// pass the same checks on both paths: this test binary runs their tests
/// (only them: `--exact`) again in a child process for each path, forced
/// by `PLY_PACKING`.
#[test]
fn the_ranking_games_pass_on_both_packing_paths() {
    use ply_games::colex::{BUILD_HAS_BMI2, PACKING_VARIABLE};
    if std::env::var_os(PACKING_VARIABLE).is_some() {
        return; // the child itself
    }
    // Named as the test binary names them: by this module's path in it.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let tests = [
        "packing_is_the_forced_path",
        "dobutsu",
        "quixo",
        "teeko",
        "morris",
    ]
    .map(|test| format!("{module}::{test}"));
    let paths: &[&str] = if BUILD_HAS_BMI2 {
        &["pext", "tables"]
    } else {
        &["tables"]
    };
    for path in paths {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "--test-threads", "2"])
            .args(&tests)
            .env(PACKING_VARIABLE, path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{PACKING_VARIABLE}={path}:\n{stdout}");
        let passed = format!("{} passed; 0 failed", tests.len());
        assert!(
            stdout.contains(&passed),
            "{PACKING_VARIABLE}={path}: not {passed}:\n{stdout}"
        );
    }
}
