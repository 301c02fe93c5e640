//! Test support for the games solved tier by tier: the tier solver checked
//! position by position against whole-game retrograde analysis. These
//! panic on failure, as the tests that call them would.

use crate::db::{Database, Expect};
use crate::solve::retro;
use crate::tier::{self, Options, Plan, Shards};
use crate::{Indexed, NamedTiers, NoProgress, Solution};
use std::collections::BTreeSet;

/// What [`tiers_equal_retrograde`] compared.
pub struct Compared<T> {
    /// The game's tier plan.
    pub plan: Plan<T>,
    /// Every tier's shard, read as one database.
    pub db: Database,
    /// The values met among the positions compared (`"win"`, `"lose"`, …).
    pub values: BTreeSet<&'static str>,
    /// How many positions were compared.
    pub compared: u64,
}

/// Solves `game` tier by tier into a fresh directory named after `name`,
/// and returns its plan and every tier's shard read as one database (the
/// directory is removed; the database keeps its files open).
pub fn solve_tiers<G: NamedTiers>(game: &G, name: &str) -> (Plan<G::Tier>, Database) {
    let dir = std::env::temp_dir().join(format!("ply-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let plan = Plan::new(game).expect("a plan");
    let options = Options {
        dir: dir.clone(),
        ..Options::default()
    };
    let built = tier::build(game, &plan, &options, &NoProgress).expect("built");
    assert!(built.complete());
    let db = Shards::new(&dir, Expect::of(game))
        .open(&plan)
        .expect("one database");
    let _ = std::fs::remove_dir_all(&dir);
    (plan, db)
}

/// Solves `game` tier by tier (see [`solve_tiers`]) and asserts that every position of `whole` (the same game under an
/// index of every board, solved by whole-game retrograde analysis) has the
/// same cell in the tier database; the directory is removed after.
pub fn tiers_equal_retrograde<G, W>(game: &G, whole: &W, name: &str) -> Compared<G::Tier>
where
    G: NamedTiers,
    W: Indexed<Position = G::Position>,
{
    let truth = retro::solve(whole, &NoProgress).expect("retro");
    let (plan, db) = solve_tiers(game, name);
    let mut values = BTreeSet::new();
    let mut compared = 0u64;
    for index in 0..whole.index_len() {
        let Some(position) = whole.unrank(index) else {
            continue;
        };
        let key = plan.key(game, &position).unwrap();
        let cell = db.cell(key).unwrap();
        assert_eq!(
            cell,
            truth.cell(index),
            "{}",
            game.format_position(&position)
        );
        values.insert(cell.unpack().unwrap().value.as_str());
        compared += 1;
    }
    Compared {
        plan,
        db,
        values,
        compared,
    }
}
