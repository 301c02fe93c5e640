//! Nine Men's Morris's smallest moving sectors, solved by the tier solver,
//! against the published counts (tests/data/morris-counts.txt): wins,
//! losses, draws and the longest win and loss of each ordered pair of stone
//! counts, exactly.

use ply_core::db::leave_out;
use ply_core::tier::{Options, Plan, build};
use ply_core::{NoProgress, Value};
use ply_games::Morris;
use ply_games::morris_facts::{count_shards, parse_table};

/// The sectors solved here, children first: every ordered pair they hold
/// has a published row.
const SECTORS: [&str; 4] = ["m3-3", "m4-3", "m4-4", "m5-3"];

#[test]
fn the_smallest_sectors_count_as_published() {
    let game = Morris::moving_phase(9);
    let plan = Plan::new(&game).unwrap();
    // `lost` and the sectors above come first in the plan.
    let solved: Vec<&str> = plan.steps[..=SECTORS.len()]
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(solved[1..], SECTORS, "the plan's first tiers: {solved:?}");
    let dir = std::env::temp_dir().join(format!("ply-morris-facts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = Options {
        dir: dir.clone(),
        stop_after: Some(SECTORS.len() + 1),
        ..Options::default()
    };
    let built = build(&game, &plan, &options, &NoProgress);
    let counted = count_shards(&game, &dir);
    // The same shards leaving out the wins' remoteness, then the losses'.
    let left_out = [Value::Win, Value::Lose].map(|value| {
        let copy = dir.with_extension(format!("{value:?}"));
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let to = copy.join(path.file_name().unwrap());
            std::fs::copy(&path, &to).unwrap();
            leave_out(&to, value, &NoProgress).unwrap();
        }
        let counted = count_shards(&game, &copy);
        let _ = std::fs::remove_dir_all(&copy);
        (value, counted.unwrap())
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(built.unwrap().solved, SECTORS.len() + 1);
    let counted = counted.unwrap();
    assert_eq!(counted.sectors, SECTORS);
    assert!(counted.bounded.is_empty(), "{:?}", counted.bounded);
    let table = parse_table(include_str!("../data/morris-counts.txt")).unwrap();
    let mut compared = 0;
    for (source, published) in &table {
        for (pair, ply) in &counted.rows {
            if let Some(row) = published.get(pair) {
                assert_eq!(ply, row, "{source} {}-{}", pair.0, pair.1);
                assert!(counted.agrees(*pair, row));
                compared += 1;
            }
        }
    }
    // 3-3, 3-4, 4-3, 4-4, 3-5, 5-3 from eigenraum; 3-3, 3-4, 4-3 from
    // Malom's files.
    assert_eq!(counted.rows.len(), 6, "{:?}", counted.rows.keys());
    assert_eq!(compared, 9);
    // Leaving out a side keeps every count and the other side's longest;
    // that side's longest is exact for one pair a shard and at least what
    // was counted whole for the others, which still agree with the table.
    for (value, thin) in &left_out {
        assert_eq!(thin.sectors, SECTORS);
        for (pair, whole) in &counted.rows {
            let row = thin.rows[pair];
            assert_eq!(
                (row.wins, row.losses, row.draws),
                (whole.wins, whole.losses, whole.draws)
            );
            let (kept, thin_max, whole_max) = match value {
                Value::Win => ((row.max_loss, whole.max_loss), row.max_win, whole.max_win),
                _ => ((row.max_win, whole.max_win), row.max_loss, whole.max_loss),
            };
            assert_eq!(kept.0, kept.1, "{value:?} {pair:?}");
            if thin.bounded.contains(&(*pair, *value)) {
                assert!(thin_max >= whole_max, "{value:?} {pair:?}");
            } else {
                assert_eq!(thin_max, whole_max, "{value:?} {pair:?}");
            }
            for published in table.values().filter_map(|rows| rows.get(pair)) {
                assert!(thin.agrees(*pair, published), "{value:?} {pair:?}");
            }
        }
        // One pair a shard is exact: fewer bounds than pairs.
        assert!(thin.bounded.len() < thin.rows.len(), "{:?}", thin.bounded);
    }
}

#[test]
fn the_table_lists_every_pair_once_and_refuses_bad_lines() {
    let table = parse_table(include_str!("../data/morris-counts.txt")).unwrap();
    assert_eq!(table["eigenraum"].len(), 49);
    assert_eq!(table["malom"].len(), 3);
    assert!(
        parse_table("x 3-3 1 2 3 4")
            .unwrap_err()
            .contains("five numbers")
    );
    assert!(parse_table("x 33 1 2 3 4 5").unwrap_err().contains("W-B"));
    assert!(
        parse_table("x 3-3 1 2 3 4 5\nx 3-3 1 2 3 4 5")
            .unwrap_err()
            .contains("twice")
    );
}
