//! Nine Men's Morris's smallest moving sectors, solved by the tier solver,
//! against the published counts (tests/data/morris-counts.txt): wins,
//! losses, draws and the longest win and loss of each ordered pair of stone
//! counts, exactly.

use ply_core::NoProgress;
use ply_core::tier::{Options, Plan, build};
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
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(built.unwrap().solved, SECTORS.len() + 1);
    let (rows, counted) = counted.unwrap();
    assert_eq!(counted, SECTORS);
    let table = parse_table(include_str!("data/morris-counts.txt")).unwrap();
    let mut compared = 0;
    for (source, published) in &table {
        for (pair, ply) in &rows {
            if let Some(row) = published.get(pair) {
                assert_eq!(ply, row, "{source} {}-{}", pair.0, pair.1);
                compared += 1;
            }
        }
    }
    // 3-3, 3-4, 4-3, 4-4, 3-5, 5-3 from eigenraum; 3-3, 3-4, 4-3 from
    // Malom's files.
    assert_eq!(rows.len(), 6, "{:?}", rows.keys());
    assert_eq!(compared, 9);
}

#[test]
fn the_table_lists_every_pair_once_and_refuses_bad_lines() {
    let table = parse_table(include_str!("data/morris-counts.txt")).unwrap();
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
