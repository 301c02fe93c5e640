//! The build of Connect Four by sorted streams of keys against the
//! generic tier solver: the same cells, over every representative of a
//! mirror pair of every tier, on 4x4, 5x4 and 4x5 (the streams' shards
//! hold those only); and a build killed part way (stopped after some
//! tiers) resumed to the same cells.

use ply_core::db::{Database, Expect};
use ply_core::tier::{Options, Plan, Shards, build};
use ply_core::{Census, NamedTiers, NoProgress, Progress, Solution, Value};
use ply_games::ConnectFour;
use ply_games::connect4::streams::Streams;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The position at `key` of `plan`'s key space.
fn position_at(game: &ConnectFour, plan: &Plan<u8>, key: u64) -> ply_games::connect4::C4Position {
    let step = plan.steps.iter().find(|s| s.keys.contains(&key)).unwrap();
    game.tier_board(step.tier, key - step.keys.start).unwrap()
}

/// The key and cell of every representative of a mirror pair (the
/// lesser index of the two, as the positions are told apart here by the
/// game's mirror and index, not by the shards' own test) in the shards in
/// `dir`: the generic build's hold every position, the streams' these.
fn cells(game: &ConnectFour, plan: &Plan<u8>, dir: &std::path::Path) -> Vec<(u64, u16)> {
    let db = plan.with_presence(game, Shards::new(dir, Expect::of(game)).open(plan).unwrap());
    let mut cells = Vec::new();
    db.for_each_cell(0..plan.index_len, &mut |key, cell| {
        let position = position_at(game, plan, key);
        let image = plan.key(game, &game.mirror(&position)).unwrap();
        if key <= image {
            cells.push((key, cell.bits()))
        }
    })
    .unwrap();
    cells
}

/// The census of the positions the cells of `step` in `db` stand for,
/// each cell counted cell by cell for itself and its mirror image where
/// that is another position.
fn census_read(game: &ConnectFour, plan: &Plan<u8>, db: &Database, step: usize) -> Census<u64> {
    let mut census = Census::new();
    db.for_each_cell(plan.steps[step].keys.clone(), &mut |key, cell| {
        let position = position_at(game, plan, key);
        let weight = if game.mirror(&position) == position {
            1
        } else {
            2
        };
        if let Some(outcome) = cell.unpack() {
            census.add_many(outcome, weight, || key);
        }
    })
    .unwrap();
    census
}

/// Checks each census the build counted as it wrote a shard against the
/// census read back from that shard (its cells and the positions it
/// leaves out), and that each longest win's and loss's example holds
/// that outcome in `dir`'s shards where they keep its remoteness.
fn counted_as_stored(
    game: &ConnectFour,
    plan: &Plan<u8>,
    dir: &std::path::Path,
    counted: &BTreeMap<usize, Census<u64>>,
) {
    let shards = Shards::new(dir, Expect::of(game));
    let whole = plan.with_presence(game, shards.open(plan).unwrap());
    for (&at, census) in counted {
        let step = &plan.steps[at];
        let db = plan.with_presence(
            game,
            Database::open_piece(&shards.path(&step.name)).unwrap(),
        );
        let mut stored = census_read(game, plan, &db, at);
        assert_eq!(
            db.census_by(step.keys.clone(), &|_| 1).unwrap(),
            stored,
            "tier {}: the census its header holds",
            step.name
        );
        for left_out in db.headers().filter_map(|h| h.left_out.as_ref()) {
            stored = stored.merge(left_out.census(1));
        }
        let counts = |c: &Census<u64>| {
            (
                (c.positions, c.win, c.lose, c.tie, c.draw),
                c.by_remoteness.clone(),
                c.longest_win.map(|(r, _)| r),
                c.longest_lose.map(|(r, _)| r),
            )
        };
        assert_eq!(counts(census), counts(&stored), "tier {}", step.name);
        for (value, longest) in [
            (Value::Win, census.longest_win),
            (Value::Lose, census.longest_lose),
        ] {
            let Some((r, key)) = longest else { continue };
            assert!(
                step.keys.contains(&key),
                "tier {}: example {key}",
                step.name
            );
            let folded = game.fold_in_tier(&position_at(game, plan, key));
            let outcome = whole
                .cell(plan.key(game, &folded).unwrap())
                .unwrap()
                .unpack();
            if let Some(found) = outcome {
                assert_eq!(
                    (found.value, found.remoteness),
                    (value, Some(r)),
                    "key {key}"
                );
            }
        }
    }
}

/// The generic tier solver's build of `game`, in a temporary directory.
fn generic_build(game: &ConnectFour, plan: &Plan<u8>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        dir: dir.path().to_path_buf(),
        ..Options::default()
    };
    assert!(build(game, plan, &options, &NoProgress).unwrap().complete());
    dir
}

/// Both builds of `connect4:PARAMS`, compared: the streams' with keys of
/// 64 bits where `wide`, of the width the board takes otherwise.
fn same(params: &str, wide: bool) {
    let game = ConnectFour::from_params(params).unwrap();
    let plan = Plan::new(&game).unwrap();
    let generic = generic_build(&game, &plan);
    let streamed = tempfile::tempdir().unwrap();
    let shards = Shards::new(streamed.path(), Expect::of(&game));
    let work = streamed.path().join("work");
    let streams = Streams::new(&game).unwrap();
    let streams = if wide { streams.wide() } else { streams };
    let report = streams
        .build(&plan, &shards, &work, None, &NoProgress)
        .unwrap();
    assert_eq!(report.solved, game.cells() as usize + 1, "{params}");
    assert!(!work.exists(), "{params}: the work files are removed");
    let (a, b) = (
        cells(&game, &plan, generic.path()),
        cells(&game, &plan, streamed.path()),
    );
    assert_eq!(a.len(), b.len(), "{params}: positions");
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert_eq!(differ, 0, "{params}: {differ} cells differ");
    assert_eq!(report.counted.len(), plan.steps.len(), "{params}");
    counted_as_stored(&game, &plan, streamed.path(), &report.counted);
}

#[test]
fn streams_equal_the_generic_build_on_4x4() {
    same("4x4", false);
}

#[test]
fn streams_equal_the_generic_build_on_5x4() {
    same("5x4", false);
}

#[test]
fn streams_equal_the_generic_build_on_4x5() {
    same("4x5", false);
}

/// The keys of 64 bits that boards of more than 31 cells take give the
/// same cells as the generic build, on boards that 32 bits serve.
#[test]
fn wide_keys_equal_the_generic_build_on_4x4_and_5x4() {
    same("4x4", true);
    same("5x4", true);
}

/// A reporter that asks the build to stop once it has advanced `after`
/// steps.
struct StopAfter {
    after: u64,
    done: AtomicU64,
}

/// Runs `streams`' build of `plan` into `shards` (work files in `work`)
/// until it has advanced `after` steps, and checks that it stopped there,
/// cancelled.
fn build_until(streams: &Streams, (plan, shards, work): (&Plan<u8>, &Shards, &Path), after: u64) {
    let stop = StopAfter {
        after,
        done: AtomicU64::new(0),
    };
    let stopped = streams.build(plan, shards, work, None, &stop);
    assert!(
        matches!(stopped, Err(ply_core::tier::TierError::Cancelled)),
        "stopped after {after}: {stopped:?}"
    );
}

impl Progress for StopAfter {
    fn begin(&self, _phase: &str, _total: u64) {}
    fn advance(&self, done: u64) {
        self.done.fetch_add(done, Relaxed);
    }
    fn end(&self) {}
    fn cancelled(&self) -> bool {
        self.done.load(Relaxed) >= self.after
    }
}

/// Stopped in the forward pass and twice in the backward pass (which
/// writes each tier's shard as it goes), the build resumes from its key
/// files and shards to the cells of a build run through at once, making
/// no keys again, even with the codes of the lowest tier solved lost.
#[test]
fn a_stopped_build_resumes_to_the_same_cells() {
    let game = ConnectFour::from_params("5x4").unwrap();
    let plan = Plan::new(&game).unwrap();
    let streams = Streams::new(&game).unwrap();
    let whole = tempfile::tempdir().unwrap();
    let shards = Shards::new(whole.path(), Expect::of(&game));
    streams
        .build(
            &plan,
            &shards,
            &whole.path().join("work"),
            None,
            &NoProgress,
        )
        .unwrap();
    let parts = tempfile::tempdir().unwrap();
    let shards = Shards::new(parts.path(), Expect::of(&game));
    let work = parts.path().join("work");
    // 21 tiers: stopped after 10 of the forward pass; then after the
    // forward pass (21 tiers, 10 of them there) and 8 tiers of the
    // backward one (20 down to 13); then after the forward pass up to tier
    // 13 (14 tiers, all there) and 5 more tiers (12 down to 8).
    for after in [10, 29, 19] {
        build_until(&streams, (&plan, &shards, &work), after);
    }
    // Tier 8's codes, which tier 7 reads, lost: they are read back from
    // its shard, which holds only one of each mirror pair.
    let codes = work.join("discs-08.codes");
    assert!(
        codes.exists(),
        "tier 8's codes are kept until tier 7 is solved"
    );
    std::fs::remove_file(&codes).unwrap();
    let resumed = streams
        .build(&plan, &shards, &work, None, &NoProgress)
        .unwrap();
    assert_eq!(resumed.found_done, 13, "{resumed:?}");
    assert_eq!(resumed.solved, 8, "{resumed:?}");
    assert_eq!(resumed.forward, 0, "{resumed:?}");
    assert_eq!(resumed.counted.len(), 8, "only the tiers written now");
    counted_as_stored(&game, &plan, parts.path(), &resumed.counted);
    assert_eq!(
        cells(&game, &plan, whole.path()),
        cells(&game, &plan, parts.path())
    );
}

/// Leaving out a side's remoteness as each shard is written gives the
/// cells the generic build's shards have once rewritten leaving out the
/// same side, and every shard leaves out that one side.
#[test]
fn shards_written_leaving_out_equal_those_rewritten() {
    let game = ConnectFour::from_params("5x4").unwrap();
    let plan = Plan::new(&game).unwrap();
    let streamed = tempfile::tempdir().unwrap();
    let shards = Shards::new(streamed.path(), Expect::of(&game));
    let streams = Streams::new(&game).unwrap().leaving_out();
    let work = streamed.path().join("work");
    // Stopped after the forward pass (21 tiers) and 3 tiers of the
    // backward one (20 down to 18), above the largest tier: their shards
    // are written keeping every remoteness, since the largest tier picks
    // the side, and only the codes the next tier reads (18's) are kept.
    build_until(&streams, (&plan, &shards, &work), 24);
    for step in &plan.steps {
        let written = shards.path(&step.name).exists();
        assert_eq!(written, step.tier >= 18, "{}", step.name);
        if written {
            assert_eq!(shards.left_out(step).unwrap(), None, "{}", step.name);
        }
    }
    let codes: Vec<String> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".codes"))
        .collect();
    assert_eq!(codes, ["discs-18.codes"]);
    let report = streams
        .build(&plan, &shards, &work, None, &NoProgress)
        .unwrap();
    assert_eq!((report.forward, report.solved), (0, 18), "{report:?}");
    let sides: Vec<_> = plan
        .steps
        .iter()
        .map(|step| shards.left_out(step).unwrap())
        .collect();
    let side = sides[0].expect("a side left out");
    assert!(sides.iter().all(|&s| s == Some(side)), "{sides:?}");
    counted_as_stored(&game, &plan, streamed.path(), &report.counted);
    let generic = generic_build(&game, &plan);
    let theirs = Shards::new(generic.path(), Expect::of(&game));
    for step in &plan.steps {
        ply_core::db::leave_out(&theirs.path(&step.name), side, &NoProgress).unwrap();
    }
    let (a, b) = (
        cells(&game, &plan, generic.path()),
        cells(&game, &plan, streamed.path()),
    );
    assert_eq!(a.len(), b.len());
    assert!(a == b, "the cells differ");
    // A build killed while it rewrote those tiers finishes the rewrite
    // when run again: tier 20's shard put back keeping every remoteness
    // (as a build that leaves out nothing writes it) is rewritten.
    let whole = tempfile::tempdir().unwrap();
    let kept_all = Shards::new(whole.path(), Expect::of(&game));
    Streams::new(&game)
        .unwrap()
        .build(
            &plan,
            &kept_all,
            &whole.path().join("work"),
            None,
            &NoProgress,
        )
        .unwrap();
    let top = plan.step(20).unwrap();
    assert_eq!(kept_all.left_out(top).unwrap(), None);
    std::fs::copy(kept_all.path(&top.name), shards.path(&top.name)).unwrap();
    assert_eq!(shards.left_out(top).unwrap(), None);
    let again = streams
        .build(&plan, &shards, &work, None, &NoProgress)
        .unwrap();
    assert_eq!((again.found_done, again.solved), (21, 0), "{again:?}");
    assert_eq!(shards.left_out(top).unwrap(), Some(side));
    assert!(
        cells(&game, &plan, streamed.path()) == a,
        "the cells differ once rewritten"
    );
}

/// A memory budget too small for a tier's batch is refused, naming the
/// tier, before that tier's keys are made; the tiers made before it stay
/// and a build with room resumes from them.
#[test]
fn a_budget_too_small_is_refused_before_the_tier() {
    let game = ConnectFour::from_params("4x4").unwrap();
    let plan = Plan::new(&game).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shards = Shards::new(dir.path(), Expect::of(&game));
    let work = dir.path().join("work");
    let streams = Streams::new(&game).unwrap();
    // A batch reads up to 2^24 keys: 160 MiB at most, past any 4x4 stack.
    let refused = streams.build(&plan, &shards, &work, Some(100 << 20), &NoProgress);
    match refused {
        Err(ply_core::tier::TierError::Budget {
            tier,
            needed,
            budget,
        }) => {
            assert_eq!(tier, "discs-01");
            assert!(needed > budget, "{needed} {budget}");
        }
        other => panic!("not refused: {other:?}"),
    }
    assert!(plan.steps.iter().all(|s| !shards.path(&s.name).exists()));
    let resumed = streams
        .build(&plan, &shards, &work, Some(1 << 30), &NoProgress)
        .unwrap();
    assert_eq!(resumed.forward, 16, "{resumed:?}");
    assert_eq!(resumed.solved, 17, "{resumed:?}");
}

/// The estimate of each tier's key file that the disk check adds up
/// (from a sample of each tier's keys, looking back from each for the
/// key before it) is at least the file the forward pass writes, and not
/// far above it, on 5x5.
#[test]
fn key_files_are_within_their_estimates() {
    let game = ConnectFour::from_params("5x5").unwrap();
    let plan = Plan::new(&game).unwrap();
    let streams = Streams::new(&game).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shards = Shards::new(dir.path(), Expect::of(&game));
    let work = dir.path().join("work");
    // Stopped once the forward pass has made every tier's keys.
    build_until(
        &streams,
        (&plan, &shards, &work),
        u64::from(game.cells()) + 1,
    );
    let (mut made, mut estimated) = (0, 0);
    for discs in 0..=game.cells() {
        let file = std::fs::metadata(work.join(format!("discs-{discs:02}.keys")))
            .unwrap()
            .len();
        let estimate = streams.keys_estimate(discs);
        assert!(
            file <= estimate,
            "tier {discs}: {file} bytes of keys, estimated {estimate}"
        );
        made += file;
        estimated += estimate;
    }
    assert!(
        estimated <= made + made / 4,
        "{estimated} bytes estimated for {made} made"
    );
}
