//! The whole game of Morris (placing sectors included) built beside its
//! moving phase's shards: it takes them ([`ply_core::NamedTiers::counterpart`])
//! and solves only the placing sectors, to the cells of a build from an
//! empty directory, whether those shards keep every remoteness or leave
//! out a side's (found again as each is taken).

use ply_core::db::Expect;
use ply_core::db::leave_out;
use ply_core::tier::{Options, Plan, Shards, build};
use ply_core::{Cell, Game, NoProgress, Solution, Value};
use ply_games::Morris;
use std::path::Path;

/// Every key's cell of `game`'s shards in `dir`, in key order.
fn cells(game: &Morris, plan: &Plan<ply_games::morris::index::Sector>, dir: &Path) -> Vec<Cell> {
    let db = Shards::new(dir, Expect::of(game)).open(plan).unwrap();
    let mut cells = vec![Cell::UNKNOWN; plan.index_len as usize];
    db.for_each_cell(0..plan.index_len, &mut |key, cell| {
        cells[key as usize] = cell;
    })
    .unwrap();
    cells
}

#[test]
fn the_whole_game_takes_the_moving_sectors_and_solves_the_placing_ones() {
    let root = std::env::temp_dir().join(format!("ply-morris-whole-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let options = |dir: &Path| Options {
        dir: dir.to_path_buf(),
        ..Options::default()
    };
    let (whole, moving) = (Morris::new(4), Morris::moving_phase(4));
    let plan = Plan::new(&whole).unwrap();
    let alone = root.join("alone");
    let built = build(&whole, &plan, &options(&alone), &NoProgress).unwrap();
    assert_eq!((built.taken, built.solved), (0, plan.steps.len()));
    let solved = cells(&whole, &plan, &alone);
    // The moving phase's shards as built, and leaving out either side's
    // remoteness (found again as each is taken).
    for side in [None, Some(Value::Win), Some(Value::Lose)] {
        let beside = root.join(format!("beside-{side:?}"));
        let moving_plan = Plan::new(&moving).unwrap();
        build(&moving, &moving_plan, &options(&beside), &NoProgress).unwrap();
        if let Some(side) = side {
            let theirs = Shards::new(&beside, Expect::of(&moving));
            for step in &moving_plan.steps {
                leave_out(&theirs.path(&step.name), side, &NoProgress).unwrap();
            }
        }
        let built = build(&whole, &plan, &options(&beside), &NoProgress).unwrap();
        assert_eq!(
            built.taken,
            moving_plan.steps.len(),
            "three moving sectors and lost, {side:?}"
        );
        assert_eq!(built.solved, plan.steps.len() - moving_plan.steps.len());
        assert!(built.complete());
        assert_ne!(whole.name(), moving.name());
        let taken = cells(&whole, &plan, &beside);
        assert!(taken.iter().any(|&c| c != Cell::UNKNOWN));
        assert!(taken == solved, "{side:?}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
