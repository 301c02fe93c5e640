//! The tier solver against whole-game retrograde analysis, on random
//! tiered graphs with loops inside tiers, ties, draws, mirror tiers,
//! symmetry classes inside tiers and holes in the index; resume after a build stopped part way; a planted
//! half-written shard; a budget too small.

use super::*;
use crate::PositionError;
use crate::game::{Game, Indexed, NamedTiers};
use crate::progress::NoProgress;
use crate::solution::Solution;
use crate::solve::retro;
use crate::team::{Team, TeamError, free_hosts};
use crate::value::{Cell, Outcome, Value};
use std::path::PathBuf;

/// Levels of tiers.
const LEVELS: u32 = 4;
/// Nodes per side of a tier: wide enough that a cell per class pays for
/// its bits, which come in lines of 448 indices.
const WIDTH: u32 = 256;

/// A position: level, side (1 mirrors 0), node.
type Node = (u32, u32, u32);

/// A random tiered graph. Side 1 of a level mirrors side 0: the same moves
/// with every child's side swapped. Moves stay in the level or go down one
/// or two levels; a few nodes are primitive, a few are no position at all.
/// With `FOLD`, nodes `2k` and `2k + 1` of a level are images of each other
/// (the same moves, each child's node with its last bit flipped), and the
/// solver folds each pair onto its even node.
struct Graph<const PARENTS: bool, const FOLD: bool = false> {
    /// Moves of side 0's nodes, by level and node: (level, side, node).
    moves: Vec<Vec<Vec<Node>>>,
    primitive: Vec<Vec<Option<Value>>>,
    holes: Vec<Vec<bool>>,
    /// Parents inside the tier, by level, side and node.
    parents: Vec<Vec<Vec<Vec<Node>>>>,
    /// What [`NamedTiers::leaves_tier`] says of every tier.
    leaves: bool,
    /// Whether the same graph solved the other way (with un-moves, or
    /// without) is [`NamedTiers::counterpart`] of every tier of the odd levels.
    taking: bool,
}

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

impl<const PARENTS: bool, const FOLD: bool> Graph<PARENTS, FOLD> {
    fn new(seed: u64) -> Self {
        Self::with(seed, false)
    }

    /// As [`Graph::new`], without the moves that stay in their level: every
    /// move leaves its tier, and the graph says so.
    fn acyclic(seed: u64) -> Self {
        Self::with(seed, true)
    }

    fn with(seed: u64, acyclic: bool) -> Self {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut rand = |n: u64| next(&mut state) % n;
        let mut moves = Vec::new();
        let mut primitive = Vec::new();
        let mut holes = Vec::new();
        for level in 0..LEVELS {
            let mut hole: Vec<bool> = (0..WIDTH).map(|_| rand(10) == 0).collect();
            let mut prim: Vec<Option<Value>> = (0..WIDTH)
                .map(|_| match rand(12) {
                    0 => Some(Value::Win),
                    1 | 2 => Some(Value::Lose),
                    3 => Some(Value::Tie),
                    _ => None,
                })
                .collect();
            if FOLD {
                for node in (1..WIDTH as usize).step_by(2) {
                    hole[node] = hole[node - 1];
                    prim[node] = prim[node - 1];
                }
            }
            let mut level_moves = Vec::new();
            for _ in 0..WIDTH {
                let mut list = Vec::new();
                for _ in 0..rand(5) {
                    let down = if level == 0 {
                        0
                    } else {
                        rand(u64::from(level.min(2)) + 2).min(u64::from(level.min(2))) as u32
                    };
                    let to_level = level - down;
                    let side = if down == 0 { 0 } else { rand(2) as u32 };
                    let node = loop {
                        let node = rand(u64::from(WIDTH)) as u32;
                        if !holes
                            .get(to_level as usize)
                            .map_or(hole[node as usize], |h: &Vec<bool>| h[node as usize])
                        {
                            break node;
                        }
                    };
                    list.push((to_level, side, node));
                }
                level_moves.push(list);
            }
            if FOLD {
                for node in (1..WIDTH as usize).step_by(2) {
                    level_moves[node] = level_moves[node - 1]
                        .iter()
                        .map(|&(l, s, n)| (l, s, n ^ 1))
                        .collect();
                }
            }
            if acyclic {
                for list in &mut level_moves {
                    list.retain(|&(to_level, _, _)| to_level != level);
                }
            }
            moves.push(level_moves);
            primitive.push(prim);
            holes.push(hole);
        }
        let mut graph = Graph {
            moves,
            primitive,
            holes,
            parents: Vec::new(),
            leaves: acyclic,
            taking: false,
        };
        let mut parents = vec![vec![vec![Vec::new(); WIDTH as usize]; 2]; LEVELS as usize];
        for level in 0..LEVELS {
            for side in 0..2 {
                for node in 0..WIDTH {
                    let from = (level, side, node);
                    if graph.holes[level as usize][node as usize]
                        || graph.primitive(&from).is_some()
                    {
                        continue;
                    }
                    graph.for_each_move(&from, |_, to| {
                        if to.0 == level {
                            parents[level as usize][to.1 as usize][to.2 as usize].push(from);
                        }
                    });
                }
            }
        }
        graph.parents = parents;
        graph
    }
}

impl<const PARENTS: bool, const FOLD: bool> Game for Graph<PARENTS, FOLD> {
    type Position = Node;
    type Move = Node;
    fn name(&self) -> String {
        format!("graph-{PARENTS}")
    }
    fn start(&self) -> Node {
        (LEVELS - 1, 0, 0)
    }
    fn primitive(&self, &(level, _, node): &Node) -> Option<Value> {
        self.primitive[level as usize][node as usize]
    }
    fn for_each_move(&self, &(level, side, node): &Node, mut visit: impl FnMut(Node, Node)) {
        for &(l, s, n) in &self.moves[level as usize][node as usize] {
            // In the level, side stays; below it, side 1 swaps the children's sides.
            let child = (l, s ^ side, n);
            let child = if l == level { (l, side, n) } else { child };
            visit(child, child);
        }
    }
    fn parse_position(&self, _: &str) -> Result<Node, PositionError> {
        Err(PositionError::new("not read"))
    }
    fn format_position(&self, p: &Node) -> String {
        format!("{p:?}")
    }
    fn format_move(&self, _: &Node, m: Node) -> String {
        format!("{m:?}")
    }
}

impl<const PARENTS: bool, const FOLD: bool> Indexed for Graph<PARENTS, FOLD> {
    fn index_len(&self) -> u64 {
        u64::from(LEVELS * 2 * WIDTH)
    }
    fn rank(&self, &(level, side, node): &Node) -> u64 {
        u64::from((level * 2 + side) * WIDTH + node)
    }
    fn unrank(&self, index: u64) -> Option<Node> {
        let index = index as u32;
        let node = index % WIDTH;
        let level = index / WIDTH / 2;
        let side = index / WIDTH % 2;
        (!self.holes[level as usize][node as usize]).then_some((level, side, node))
    }
}

impl<const PARENTS: bool, const FOLD: bool> NamedTiers for Graph<PARENTS, FOLD> {
    type Tier = (u32, u32);
    const IN_TIER_PARENTS: bool = PARENTS;
    const IN_TIER_SYMMETRY: bool = FOLD;
    fn fold_in_tier(&self, &(level, side, node): &Node) -> Node {
        (level, side, node & !1)
    }
    fn tiers(&self) -> Vec<(u32, u32)> {
        (0..LEVELS).flat_map(|l| [(l, 0), (l, 1)]).collect()
    }
    fn leaves_tier(&self, _: (u32, u32)) -> bool {
        self.leaves
    }
    fn counterpart(&self, (level, _): (u32, u32)) -> Option<(String, u32)> {
        (self.taking && level % 2 == 1).then(|| (format!("graph-{}", !PARENTS), 1))
    }
    fn tier_name(&self, (level, side): (u32, u32)) -> String {
        format!("l{level}-s{side}")
    }
    fn tier_of(&self, &(level, side, _): &Node) -> (u32, u32) {
        (level, side)
    }
    fn tier_size(&self, _: (u32, u32)) -> u64 {
        u64::from(WIDTH)
    }
    fn tier_rank(&self, _: (u32, u32), &(_, _, node): &Node) -> u64 {
        u64::from(node)
    }
    fn tier_unrank(&self, (level, side): (u32, u32), index: u64) -> Option<Node> {
        self.unrank(u64::from((level * 2 + side) * WIDTH) + index)
    }
    fn child_tiers(&self, (level, _): (u32, u32)) -> Vec<(u32, u32)> {
        (level.saturating_sub(2)..level)
            .flat_map(|l| [(l, 0), (l, 1)])
            .collect()
    }
    fn canonical_tier(&self, (level, _): (u32, u32)) -> (u32, u32) {
        (level, 0)
    }
    fn to_canonical_tier(&self, &(level, _, node): &Node) -> Node {
        (level, 0, node)
    }
    fn for_each_parent_in_tier(&self, &(level, side, node): &Node, mut visit: impl FnMut(Node)) {
        self.parents[level as usize][side as usize][node as usize]
            .iter()
            .copied()
            .for_each(&mut visit);
    }
}

/// A fresh directory for one test's shards, removed when dropped.
struct Dir(tempfile::TempDir);

impl Dir {
    fn new(name: &str) -> Dir {
        Dir(tempfile::Builder::new()
            .prefix(&format!("ply-tier-{name}-"))
            .tempdir()
            .expect("a temporary directory"))
    }
    fn path(&self) -> &std::path::Path {
        self.0.path()
    }
    fn options(&self) -> Options {
        Options {
            dir: self.path().to_path_buf(),
            ..Options::default()
        }
    }
}

/// Builds `game` into `dir` and reads every position's cell back through
/// the plan's keys, in the whole game's index order.
fn cells_of<G: NamedTiers + Indexed>(game: &G, dir: &Dir) -> Vec<Cell> {
    let plan = Plan::new(game).expect("a plan");
    let built = build(game, &plan, &dir.options(), &NoProgress).expect("built");
    assert!(built.complete());
    let db = Shards::new(dir.path(), crate::db::Expect::of(game))
        .open(&plan)
        .expect("the shards read as one database");
    (0..game.index_len())
        .map(|i| match game.unrank(i) {
            Some(p) => db.cell(plan.key(game, &p).expect("a key")).expect("a cell"),
            None => Cell::UNKNOWN,
        })
        .collect()
}

fn check_against_retro<const PARENTS: bool, const FOLD: bool>(seed: u64) {
    let game = Graph::<PARENTS, FOLD>::new(seed);
    let truth = retro::solve(&game, &NoProgress).expect("retro");
    let dir = Dir::new(&format!("retro-{PARENTS}-{FOLD}-{seed}"));
    let cells = cells_of(&game, &dir);
    let mut values = std::collections::BTreeSet::new();
    for (i, cell) in cells.iter().enumerate() {
        assert_eq!(
            *cell,
            truth.cell(i as u64),
            "seed {seed}, index {i}: {:?}",
            game.unrank(i as u64)
        );
        if let Some(o) = cell.unpack() {
            values.insert(o.value.as_str());
        }
    }
    assert!(values.len() >= 3, "seed {seed}: only {values:?}");
}

#[test]
fn tiers_equal_whole_game_retrograde_with_un_moves() {
    for seed in 0..40 {
        check_against_retro::<true, false>(seed);
    }
}

#[test]
fn tiers_equal_whole_game_retrograde_without_un_moves() {
    for seed in 0..40 {
        check_against_retro::<false, false>(seed);
    }
}

#[test]
fn folded_tiers_give_every_position_the_whole_games_cell() {
    for seed in 0..40 {
        check_against_retro::<true, true>(seed);
        check_against_retro::<false, true>(seed);
    }
}

/// One tier of five positions: 0 moves to 1 and 2, 1 to 3, 2 to 4; 3 and 4
/// are lost for the mover. 1 and 2 are images of each other, as are 3 and
/// 4, and fold onto 1 and 3.
struct Mirrored<const PARENTS: bool>;

impl<const PARENTS: bool> Game for Mirrored<PARENTS> {
    type Position = u32;
    type Move = u32;
    fn name(&self) -> String {
        format!("mirrored-{PARENTS}")
    }
    fn start(&self) -> u32 {
        0
    }
    fn primitive(&self, &p: &u32) -> Option<Value> {
        (p >= 3).then_some(Value::Lose)
    }
    fn for_each_move(&self, &p: &u32, mut visit: impl FnMut(u32, u32)) {
        let children: &[u32] = match p {
            0 => &[1, 2],
            1 => &[3],
            2 => &[4],
            _ => &[],
        };
        for &child in children {
            visit(child, child);
        }
    }
    fn parse_position(&self, _: &str) -> Result<u32, PositionError> {
        Err(PositionError::new("not read"))
    }
    fn format_position(&self, p: &u32) -> String {
        p.to_string()
    }
    fn format_move(&self, _: &u32, m: u32) -> String {
        m.to_string()
    }
}

impl<const PARENTS: bool> NamedTiers for Mirrored<PARENTS> {
    type Tier = u8;
    const IN_TIER_PARENTS: bool = PARENTS;
    const IN_TIER_SYMMETRY: bool = true;
    fn fold_in_tier(&self, &p: &u32) -> u32 {
        match p {
            2 => 1,
            4 => 3,
            p => p,
        }
    }
    fn tiers(&self) -> Vec<u8> {
        vec![0]
    }
    fn tier_name(&self, _: u8) -> String {
        "all".into()
    }
    fn tier_of(&self, _: &u32) -> u8 {
        0
    }
    fn tier_size(&self, _: u8) -> u64 {
        5
    }
    fn tier_rank(&self, _: u8, &p: &u32) -> u64 {
        u64::from(p)
    }
    fn tier_unrank(&self, _: u8, index: u64) -> Option<u32> {
        u32::try_from(index).ok().filter(|&p| p < 5)
    }
    fn child_tiers(&self, _: u8) -> Vec<u8> {
        Vec::new()
    }
    fn for_each_parent_in_tier(&self, &p: &u32, mut visit: impl FnMut(u32)) {
        match p {
            1 | 2 => visit(0),
            3 => visit(1),
            4 => visit(2),
            _ => {}
        }
    }
}

/// Position 0's two children are one class: counted as two, one win would
/// leave its counter at one and 0 a draw instead of a loss.
#[test]
fn two_children_of_one_class_count_once() {
    fn check<const PARENTS: bool>() {
        for layout in [solve::Layout::Dense, solve::Layout::PerClass] {
            let game = Mirrored::<PARENTS>;
            let solved = solve::solve_tier_as(&game, 0, &[], layout, &NoProgress).unwrap();
            let outcomes: Vec<_> = solved.cells(&game, 0).iter().map(|c| c.unpack()).collect();
            assert_eq!(
                outcomes,
                [
                    Some(Outcome::lose(2)),
                    Some(Outcome::win(1)),
                    Some(Outcome::win(1)),
                    Some(Outcome::lose(0)),
                    Some(Outcome::lose(0)),
                ],
                "un-moves: {PARENTS}, {layout:?}"
            );
        }
    }
    check::<true>();
    check::<false>();
}

#[test]
fn the_random_graphs_have_draws_ties_and_loops() {
    let (mut draws, mut ties, mut loops) = (0, 0, 0);
    for seed in 0..40 {
        let game = Graph::<true>::new(seed);
        let truth = retro::solve(&game, &NoProgress).expect("retro");
        for i in 0..game.index_len() {
            match truth.outcome_at(i).map(|o| o.value) {
                Some(Value::Draw) => draws += 1,
                Some(Value::Tie) => ties += 1,
                _ => {}
            }
        }
        loops += game
            .parents
            .iter()
            .flatten()
            .flatten()
            .filter(|p| !p.is_empty())
            .count();
    }
    assert!(
        draws > 50 && ties > 50 && loops > 500,
        "{draws} draws, {ties} ties, {loops} nodes with parents in their tier"
    );
}

#[test]
fn a_build_stopped_after_k_tiers_resumes_to_the_same_cells() {
    let game = Graph::<true>::new(7);
    let whole = Dir::new("resume-whole");
    let expected = cells_of(&game, &whole);
    let plan = Plan::new(&game).unwrap();
    for k in [0, 1, 2, 3] {
        let dir = Dir::new(&format!("resume-{k}"));
        let stopped = Options {
            stop_after: Some(k),
            ..dir.options()
        };
        let first = build(&game, &plan, &stopped, &NoProgress).unwrap();
        assert_eq!(
            (first.found_done, first.solved, first.complete()),
            (0, k, false)
        );
        let second = build(&game, &plan, &dir.options(), &NoProgress).unwrap();
        assert_eq!(second.found_done, k, "a rerun finds the {k} finished tiers");
        assert_eq!(second.solved, plan.steps.len() - k);
        assert_eq!(cells_of(&game, &dir), expected, "stopped after {k} tiers");
    }
}

#[test]
fn a_half_written_shard_is_discarded_and_solved_again() {
    let game = Graph::<true>::new(11);
    let plan = Plan::new(&game).unwrap();
    let dir = Dir::new("half");
    let expected = cells_of(&game, &dir);
    let shards = Shards::new(dir.path(), crate::db::Expect::of(&game));
    let victim = &plan.steps[1];
    let path = shards.path(&victim.name);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let temp = dir.path().join(format!(
        ".{}.1.2.tmp",
        path.file_name().unwrap().to_str().unwrap()
    ));
    std::fs::write(&temp, b"partial").unwrap();
    let rerun = build(&game, &plan, &dir.options(), &NoProgress).unwrap();
    assert_eq!(rerun.discarded.len(), 1, "{:?}", rerun.discarded);
    assert!(rerun.discarded[0].contains(&victim.name));
    assert_eq!((rerun.found_done, rerun.solved), (plan.steps.len() - 1, 1));
    assert!(
        !temp.exists(),
        "a killed writer's temporary file is removed"
    );
    assert_eq!(cells_of(&game, &dir), expected);
}

#[test]
fn a_counterparts_shards_are_taken_unless_unsound_their_left_out_cells_found_again() {
    let expected = cells_of(&Graph::<false>::new(13), &Dir::new("taken-alone"));
    for side in [Value::Win, Value::Lose] {
        let dir = Dir::new(&format!("taken-{side:?}"));
        let other = Graph::<false>::new(13);
        let other_plan = Plan::new(&other).unwrap();
        build(&other, &other_plan, &dir.options(), &NoProgress).unwrap();
        let theirs = shards_of(&other, &dir);
        // One of their shards cut short, one leaving out a side's remoteness.
        let odd: Vec<_> = other_plan
            .steps
            .iter()
            .filter(|s| s.tier.0 % 2 == 1)
            .collect();
        let cut = theirs.path(&odd[0].name);
        let bytes = std::fs::read(&cut).unwrap();
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        crate::db::leave_out::leave_out(&theirs.path(&odd[1].name), side, &NoProgress).unwrap();
        let cells = theirs.load(odd[1]).unwrap();
        let left_out = (0..odd[1].size() as usize)
            .filter(|&i| cells.cell(i).left_out_value() == Some(side))
            .count();
        assert!(left_out > 0, "{}: no {side:?} left out", odd[1].name);
        let game = Graph::<true> {
            taking: true,
            ..Graph::new(13)
        };
        let plan = Plan::new(&game).unwrap();
        let built = build(&game, &plan, &dir.options(), &NoProgress).unwrap();
        assert_eq!(
            built.taken,
            odd.len() - 1,
            "every odd level but the cut one"
        );
        assert_eq!(built.solved, plan.steps.len() - built.taken);
        assert!(built.complete());
        assert_eq!(cells_of(&game, &dir), expected, "{side:?}");
        assert_eq!(shards_of(&game, &dir).left_out(odd[1]).unwrap(), None);
    }
}

#[test]
fn a_budget_too_small_is_refused_before_any_work_naming_the_tier() {
    let game = Graph::<true>::new(3);
    let plan = Plan::new(&game).unwrap();
    let (largest, needed) = plan.largest(&game).unwrap();
    let dir = Dir::new("budget");
    let options = Options {
        memory: Some(needed - 1),
        ..dir.options()
    };
    let error = build(&game, &plan, &options, &NoProgress).unwrap_err();
    let TierError::Budget {
        tier, needed: n, ..
    } = &error
    else {
        panic!("not a budget error: {error}");
    };
    let named = plan
        .steps
        .iter()
        .find(|s| &s.name == tier)
        .expect("a tier of the game");
    assert_eq!(
        (plan.bytes_needed(&game, named), *n),
        (needed, needed),
        "{largest:?}"
    );
    assert!(error.to_string().contains(tier.as_str()));
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing was written"
    );
    let enough = Options {
        memory: Some(needed),
        ..dir.options()
    };
    assert!(
        build(&game, &plan, &enough, &NoProgress)
            .unwrap()
            .complete()
    );
}

#[test]
fn the_end_tiers_alone_solve_to_the_whole_games_cells() {
    let game = Graph::<true>::new(5);
    let truth = retro::solve(&game, &NoProgress).expect("retro");
    let plan = Plan::new(&game).unwrap();
    // Level l leads to levels l-1 and l-2: its height is l.
    for step in &plan.steps {
        assert_eq!(step.height, step.tier.0, "tier {}", step.name);
    }
    let end = plan.end_tiers(2);
    let levels: Vec<u32> = end.steps.iter().map(|s| s.tier.0).collect();
    assert_eq!(levels, vec![0, 1, 2]);
    let dir = Dir::new("end-tiers");
    let built = build(&game, &end, &dir.options(), &NoProgress).unwrap();
    assert_eq!((built.tiers, built.solved), (3, 3));
    let shards = Shards::new(dir.path(), crate::db::Expect::of(&game));
    let mut checked = 0;
    for i in 0..game.index_len() {
        let Some(position) = game.unrank(i) else {
            continue;
        };
        let key = end.key(&game, &position);
        if position.0 > 2 {
            assert_eq!(key, None, "{position:?} is above the end tiers");
            continue;
        }
        let step = end
            .step(game.canonical_tier(game.tier_of(&position)))
            .unwrap();
        let db = crate::db::Database::open_piece(&shards.path(&step.name)).unwrap();
        assert_eq!(
            db.cell(key.unwrap()).unwrap(),
            truth.cell(i),
            "{position:?}"
        );
        checked += 1;
    }
    assert_eq!(
        checked,
        (0..game.index_len())
            .filter(|&i| game.unrank(i).is_some_and(|p| p.0 <= 2))
            .count()
    );
    assert!(checked > 100);
    // A whole build afterwards finds the end tiers done.
    let whole = build(&game, &plan, &dir.options(), &NoProgress).unwrap();
    assert_eq!(whole.found_done, 3);
}

/// Every tier's cells, read from its shard in `dir`, in plan order.
fn shard_cells<T: Copy + Ord>(plan: &Plan<T>, shards: &Shards) -> Vec<Vec<Cell>> {
    plan.steps
        .iter()
        .map(|step| {
            let db = crate::db::Database::open_piece(&shards.path(&step.name)).expect("a shard");
            step.keys
                .clone()
                .map(|key| db.cell(key).expect("a cell"))
                .collect()
        })
        .collect()
}

fn shards_of<G: Game>(game: &G, dir: &Dir) -> Shards {
    Shards::new(dir.path(), crate::db::Expect::of(game))
}

/// Options for process `process` of `processes` building into `dir`, the
/// team on the loopback addresses [`hosts_of`] gives the directory.
fn teamed(dir: &Dir, processes: usize, process: usize, timeout_ms: u64) -> Options {
    teamed_on(dir, &hosts_of(dir, processes), process, timeout_ms)
}

/// Options for process `process` of the team at `hosts` building into
/// `dir`.
fn teamed_on(dir: &Dir, hosts: &[String], process: usize, timeout_ms: u64) -> Options {
    Options {
        team: Some(
            Team::on_hosts(
                hosts.to_vec(),
                process,
                std::time::Duration::from_millis(timeout_ms),
            )
            .expect("a team"),
        ),
        ..dir.options()
    }
}

/// The loopback addresses of the team of `processes` building into `dir`:
/// free ports, the same each time they are asked for (a rerun's team
/// listens where the first did).
fn hosts_of(dir: &Dir, processes: usize) -> Vec<String> {
    static TEAMS: std::sync::Mutex<Vec<(PathBuf, usize, Vec<String>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut teams = TEAMS.lock().unwrap_or_else(|e| e.into_inner());
    let path = dir.path().to_path_buf();
    if let Some((.., hosts)) = teams.iter().find(|(p, n, _)| *p == path && *n == processes) {
        return hosts.clone();
    }
    let hosts = free_hosts(processes);
    teams.push((path, processes, hosts.clone()));
    hosts
}

/// Runs every options' build on its own thread, standing in for processes.
fn build_together<G: NamedTiers + Sync>(
    game: &G,
    plan: &Plan<G::Tier>,
    runs: &[Options],
) -> Vec<Result<Built, TierError>>
where
    G::Tier: Send + Sync,
{
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .map(|options| scope.spawn(move || build(game, plan, options, &NoProgress)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    })
}

#[test]
fn the_deal_gives_every_tier_one_owner_and_spreads_each_height() {
    let game = Graph::<true>::new(2);
    let plan = Plan::new(&game).unwrap();
    for processes in 1..=4 {
        let owners = deal::deal(&plan, processes);
        assert_eq!(owners, deal::deal(&plan, processes), "the same every time");
        assert!(owners.iter().all(|&p| p < processes));
        let mut seen = vec![false; plan.steps.len()];
        for process in 0..processes {
            let order = deal::order(&plan, &owners, process);
            for pair in order.windows(2) {
                assert!(plan.steps[pair[0]].height <= plan.steps[pair[1]].height);
            }
            for i in order {
                assert!(!seen[i], "step {i} dealt twice");
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&s| s), "every step dealt");
        // One tier per level here: consecutive levels go to different
        // processes, so each waits on the others.
        let used: std::collections::BTreeSet<usize> = owners.iter().copied().collect();
        assert_eq!(used.len(), processes.min(plan.steps.len()), "{owners:?}");
    }
}

#[test]
fn two_and_three_processes_write_the_cells_of_one() {
    for seed in [1, 4, 9] {
        let game = Graph::<true>::new(seed);
        let plan = Plan::new(&game).unwrap();
        let expected = cells_alone(&game, &plan, &format!("team-alone-{seed}"));
        for processes in [2, 3] {
            let dir = Dir::new(&format!("team-{seed}-{processes}"));
            let runs: Vec<Options> = (0..processes)
                .map(|p| teamed(&dir, processes, p, 10_000))
                .collect();
            let built = build_together(&game, &plan, &runs);
            let mut solved = 0;
            for (process, built) in built.into_iter().enumerate() {
                let built = built.unwrap_or_else(|e| panic!("process {process}: {e}"));
                assert!(built.complete(), "process {process}: {built:?}");
                assert!(built.owned >= 1, "process {process} solves some tier");
                solved += built.solved;
            }
            assert_eq!(solved, plan.steps.len(), "each tier solved once");
            assert_eq!(
                shard_cells(&plan, &shards_of(&game, &dir)),
                expected,
                "seed {seed}, {processes} processes"
            );
            let beats: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains("heartbeat"))
                .map(|e| e.file_name())
                .collect();
            assert!(beats.is_empty(), "heartbeats left: {beats:?}");
        }
    }
}

/// Options for process `process` of `processes` building into `dir`,
/// cutting every tier each move leaves between them (those solved a cell
/// per symmetry class too).
fn cutting(dir: &Dir, processes: usize, process: usize, timeout_ms: u64) -> Options {
    Options {
        cut_from: Some(1),
        cut_classes: true,
        drafts: false,
        ..teamed(dir, processes, process, timeout_ms)
    }
}

/// The cells of `game`'s shards built by one process alone, in a
/// directory named `name`.
fn cells_alone<G: NamedTiers>(game: &G, plan: &Plan<G::Tier>, name: &str) -> Vec<Vec<Cell>> {
    let alone = Dir::new(name);
    build(game, plan, &alone.options(), &NoProgress).unwrap();
    shard_cells(plan, &shards_of(game, &alone))
}

/// The files in `dir` whose names contain `part`.
fn files_with(dir: &Dir, part: &str) -> Vec<String> {
    std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(part))
        .collect()
}

/// Builds `game` with every tier cut between 2 and 3 processes (in
/// directories named from `name`): each tier is written once, cut between
/// all of them, into the cells `expected`, and no slice is left.
fn every_tier_cut_gives<G: NamedTiers + Sync>(
    game: &G,
    plan: &Plan<G::Tier>,
    expected: &[Vec<Cell>],
    name: &str,
) {
    for processes in [2, 3] {
        let dir = Dir::new(&format!("{name}-{processes}"));
        let runs: Vec<Options> = (0..processes)
            .map(|p| cutting(&dir, processes, p, 10_000))
            .collect();
        let built = build_together(game, plan, &runs);
        let (mut solved, mut slices) = (0, 0);
        for (process, built) in built.into_iter().enumerate() {
            let built = built.unwrap_or_else(|e| panic!("process {process}: {e}"));
            assert!(built.complete(), "process {process}: {built:?}");
            solved += built.solved;
            slices += built.slices;
        }
        assert_eq!(solved, plan.steps.len(), "each tier written once");
        assert_eq!(
            slices,
            plan.steps.len() * processes,
            "every tier cut between the {processes} processes"
        );
        assert_eq!(
            shard_cells(plan, &shards_of(game, &dir)),
            expected,
            "{name}, {processes} processes"
        );
        let left = files_with(&dir, ".slice-");
        assert!(left.is_empty(), "slices left: {left:?}");
    }
}

fn cut_tiers_write_the_cells_of_one<const FOLD: bool>() {
    for seed in [1, 4, 9] {
        let game = Graph::<false, FOLD>::acyclic(seed);
        let plan = Plan::new(&game).unwrap();
        let alone = Dir::new(&format!("cut-alone-{seed}"));
        build(&game, &plan, &alone.options(), &NoProgress).unwrap();
        let expected = shard_cells(&plan, &shards_of(&game, &alone));
        let truth = retro::solve(&game, &NoProgress).expect("retro");
        let db = shards_of(&game, &alone).open(&plan).unwrap();
        for i in 0..game.index_len() {
            if let Some(p) = game.unrank(i) {
                let key = plan.key(&game, &p).expect("a key");
                assert_eq!(
                    db.cell(key).unwrap(),
                    truth.cell(i),
                    "seed {seed} index {i}"
                );
            }
        }
        every_tier_cut_gives(&game, &plan, &expected, &format!("cut-{seed}"));
        // By default a tier solved a cell per class goes whole to one
        // process: only the others are cut.
        let per_index = plan
            .steps
            .iter()
            .filter(|s| s.working(&game) >= super::solve::BYTES_PER_POSITION * s.size())
            .count();
        assert!(
            !FOLD || per_index < plan.steps.len(),
            "seed {seed}: some tier per class"
        );
        let dir = Dir::new(&format!("cut-{seed}-classes-whole"));
        let runs: Vec<Options> = (0..2)
            .map(|p| Options {
                cut_classes: false,
                drafts: false,
                ..cutting(&dir, 2, p, 10_000)
            })
            .collect();
        let slices: usize = build_together(&game, &plan, &runs)
            .into_iter()
            .map(|built| built.expect("built").slices)
            .sum();
        assert_eq!(
            slices,
            per_index * 2,
            "seed {seed}: the tiers a cell per index cut"
        );
        assert_eq!(
            shard_cells(&plan, &shards_of(&game, &dir)),
            expected,
            "seed {seed}"
        );
    }
}

#[test]
fn tiers_every_move_leaves_are_cut_between_processes_to_the_cells_of_one() {
    cut_tiers_write_the_cells_of_one::<false>();
}

#[test]
fn cut_tiers_folded_by_symmetry_give_the_cells_of_one() {
    cut_tiers_write_the_cells_of_one::<true>();
}

/// Every tier of random graphs with moves inside their tiers (loops,
/// ties, draws), cut between 2 and 3 processes and solved in lockstep
/// rounds, gives the cells of one process.
fn tiers_with_moves_inside_cut_in_rounds_give_the_cells_of_one<const FOLD: bool>(seeds: u64) {
    for seed in 0..seeds {
        let game = Graph::<true, FOLD>::new(seed);
        let plan = Plan::new(&game).unwrap();
        assert!(!plan.steps.iter().any(|s| game.leaves_tier(s.tier)));
        let expected = cells_alone(&game, &plan, &format!("rounds-alone-{FOLD}-{seed}"));
        every_tier_cut_gives(&game, &plan, &expected, &format!("rounds-{FOLD}-{seed}"));
    }
}

#[test]
fn tiers_with_moves_inside_are_cut_in_rounds_to_the_cells_of_one() {
    tiers_with_moves_inside_cut_in_rounds_give_the_cells_of_one::<false>(12);
}

#[test]
fn tiers_with_moves_inside_folded_by_symmetry_are_cut_in_rounds_to_the_cells_of_one() {
    tiers_with_moves_inside_cut_in_rounds_give_the_cells_of_one::<true>(6);
}

#[test]
fn a_peer_lost_before_the_rounds_of_a_cut_tier_is_named_and_a_rerun_gives_the_cells_of_one() {
    let game = Graph::<true>::new(5);
    let plan = Plan::new(&game).unwrap();
    let expected = cells_alone(&game, &plan, "rounds-stop-alone");
    let dir = Dir::new("rounds-stop");
    // Process 1 stops before its first tier, as if killed: process 0
    // waits for its updates of the first round.
    let stopped = Options {
        stop_after: Some(0),
        ..cutting(&dir, 2, 1, 3_000)
    };
    let built = build_together(&game, &plan, &[cutting(&dir, 2, 0, 3_000), stopped]);
    let error = built[0].as_ref().unwrap_err();
    assert!(
        matches!(error, TierError::Team(TeamError::Lost { process: 1, .. })),
        "{error}"
    );
    assert!(error.to_string().contains("updates of layer 1"), "{error}");
    let runs = [cutting(&dir, 2, 0, 5_000), cutting(&dir, 2, 1, 5_000)];
    let done: Vec<Built> = build_together(&game, &plan, &runs)
        .into_iter()
        .map(|b| b.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(done.iter().all(Built::complete));
    assert_eq!(shard_cells(&plan, &shards_of(&game, &dir)), expected);
    assert!(files_with(&dir, ".slice-").is_empty());
}

#[test]
fn a_move_inside_a_tier_said_to_have_none_fails_naming_it() {
    let mut game = Graph::<false>::new(3);
    game.leaves = true;
    let plan = Plan::new(&game).unwrap();
    let dir = Dir::new("cut-liar");
    let runs: Vec<Options> = (0..2).map(|p| cutting(&dir, 2, p, 2_000)).collect();
    let built = build_together(&game, &plan, &runs);
    let failed: Vec<String> = built
        .iter()
        .filter_map(|b| match b {
            Err(TierError::Game(why)) => Some(why.clone()),
            _ => None,
        })
        .collect();
    assert!(
        failed
            .iter()
            .any(|why| why.contains("stays inside the tier") && why.contains("index")),
        "{built:?}"
    );
}

#[test]
fn a_peer_lost_mid_cut_tier_is_named_and_a_rerun_keeps_the_slices_written() {
    let game = Graph::<false>::acyclic(5);
    let plan = Plan::new(&game).unwrap();
    let expected = cells_alone(&game, &plan, "cut-stop-alone");
    let dir = Dir::new("cut-stop");
    // Process 1 stops before its first slice, as if killed: process 0
    // writes its slice of the first tier, then needs process 1's.
    let stopped = Options {
        stop_after: Some(0),
        ..cutting(&dir, 2, 1, 3_000)
    };
    let built = build_together(&game, &plan, &[cutting(&dir, 2, 0, 3_000), stopped]);
    let error = built[0].as_ref().unwrap_err();
    assert!(
        matches!(error, TierError::Team(TeamError::Lost { process: 1, .. })),
        "{error}"
    );
    assert_eq!(built[1].as_ref().unwrap().slices, 0);
    let slices = files_with(&dir, ".slice-0-of-2.");
    assert_eq!(slices.len(), 1, "process 0's first slice: {slices:?}");
    let runs = [cutting(&dir, 2, 0, 5_000), cutting(&dir, 2, 1, 5_000)];
    let rerun = build_together(&game, &plan, &runs);
    let done: Vec<Built> = rerun
        .into_iter()
        .map(|b| b.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(done.iter().all(Built::complete));
    assert_eq!(done[0].slices, plan.steps.len() - 1, "its first slice kept");
    assert_eq!(done[1].slices, plan.steps.len());
    assert_eq!(shard_cells(&plan, &shards_of(&game, &dir)), expected);
    assert!(files_with(&dir, ".slice-").is_empty());
}

#[test]
fn a_missing_peer_is_named_when_the_team_connects() {
    let game = Graph::<true>::new(6);
    let plan = Plan::new(&game).unwrap();
    let dir = Dir::new("team-missing");
    let mut options = teamed(&dir, 2, 0, 300);
    options.team = options
        .team
        .map(|team| team.with_connect_timeout(std::time::Duration::from_millis(300)));
    let error = build(&game, &plan, &options, &NoProgress).unwrap_err();
    let TierError::Team(TeamError::Connect(why)) = &error else {
        panic!("not a failed connection: {error}");
    };
    assert!(why.contains("process 1 (127.0.0.1:"), "{why}");
    assert!(why.contains("did not connect"), "{why}");
}

#[test]
fn a_peer_stopping_mid_build_is_named_and_a_rerun_resumes_to_the_same_cells() {
    let game = Graph::<true>::new(8);
    let plan = Plan::new(&game).unwrap();
    let owners = deal::deal(&plan, 2);
    let expected = cells_alone(&game, &plan, "team-stop-alone");
    let dir = Dir::new("team-stop");
    // Process 1 stops after its first tier, as if killed: process 0 needs
    // its second.
    let stopped = Options {
        stop_after: Some(1),
        ..teamed(&dir, 2, 1, 3_000)
    };
    let runs = [teamed(&dir, 2, 0, 3_000), stopped];
    let built = build_together(&game, &plan, &runs);
    assert!(
        owners.iter().filter(|&&p| p == 1).count() >= 2,
        "process 1 has a tier left: {owners:?}"
    );
    let error = built[0].as_ref().unwrap_err();
    assert!(
        matches!(error, TierError::Team(TeamError::Lost { process: 1, .. })),
        "{error}"
    );
    let first = built[1].as_ref().unwrap();
    assert_eq!((first.solved, first.complete()), (1, false));
    let before = (0..plan.steps.len())
        .filter(|&i| shards_of(&game, &dir).path(&plan.steps[i].name).exists())
        .count();
    assert!(before >= 2 && before < plan.steps.len(), "{before} tiers");
    let runs = [teamed(&dir, 2, 0, 5_000), teamed(&dir, 2, 1, 5_000)];
    let rerun = build_together(&game, &plan, &runs);
    let mut found = 0;
    for (process, built) in rerun.into_iter().enumerate() {
        let built = built.unwrap_or_else(|e| panic!("process {process}: {e}"));
        assert!(built.complete());
        let owned = owners.iter().filter(|&&p| p == process).count();
        assert_eq!(built.owned, owned);
        found += built.found_done;
    }
    assert_eq!(found, before, "the rerun keeps every finished tier");
    assert_eq!(shard_cells(&plan, &shards_of(&game, &dir)), expected);
}

#[test]
fn a_process_removes_only_the_leftovers_of_its_own_tiers() {
    let game = Graph::<true>::new(12);
    let plan = Plan::new(&game).unwrap();
    let owners = deal::deal(&plan, 2);
    let dir = Dir::new("team-leftovers");
    std::fs::create_dir_all(dir.path()).unwrap();
    let shards = shards_of(&game, &dir);
    let planted: Vec<PathBuf> = plan
        .steps
        .iter()
        .map(|step| {
            let path = shards.path(&step.name);
            let temp = crate::db::temporary::path_for(&path);
            std::fs::write(&temp, b"partial").unwrap();
            temp
        })
        .collect();
    // Process 1 of the team builds elsewhere: only process 0 is here.
    let hosts = free_hosts(2);
    let elsewhere = Dir::new("team-leftovers-elsewhere");
    let runs = [
        Options {
            stop_after: Some(0),
            ..teamed_on(&dir, &hosts, 0, 5_000)
        },
        Options {
            stop_after: Some(0),
            ..teamed_on(&elsewhere, &hosts, 1, 5_000)
        },
    ];
    for built in build_together(&game, &plan, &runs) {
        built.expect("built");
    }
    for (i, temp) in planted.iter().enumerate() {
        assert_eq!(
            temp.exists(),
            owners[i] != 0,
            "{}: tier dealt to process {}",
            temp.display(),
            owners[i]
        );
    }
}

/// Branches of a [`Forest`].
const BRANCHES: u32 = 3;

/// A position of a [`Forest`]: its branch and its node there.
type Tree = (u32, Node);

/// Three random tiered graphs side by side, none leading into another: a
/// game whose tiers of one branch never depend on another branch's, so
/// that up to three tiers are ready at once.
/// With `lie`, that branch's top tier lists only the level below as its
/// child tiers, though some of its moves go two levels down: a broken
/// promise its solve finds, last of its branch.
struct Forest {
    branches: Vec<Graph<true>>,
    lie: Option<u32>,
}

impl Forest {
    fn new(seed: u64) -> Forest {
        Forest {
            branches: (0..u64::from(BRANCHES))
                .map(|b| Graph::new(seed * 10 + b))
                .collect(),
            lie: None,
        }
    }
    fn branch(&self, b: u32) -> &Graph<true> {
        &self.branches[b as usize]
    }
}

impl Game for Forest {
    type Position = Tree;
    type Move = Tree;
    fn name(&self) -> String {
        "forest".into()
    }
    fn start(&self) -> Tree {
        (0, self.branch(0).start())
    }
    fn primitive(&self, (b, p): &Tree) -> Option<Value> {
        self.branch(*b).primitive(p)
    }
    fn for_each_move(&self, &(b, p): &Tree, mut visit: impl FnMut(Tree, Tree)) {
        self.branch(b)
            .for_each_move(&p, |_, child| visit((b, child), (b, child)));
    }
    fn parse_position(&self, _: &str) -> Result<Tree, PositionError> {
        Err(PositionError::new("not read"))
    }
    fn format_position(&self, p: &Tree) -> String {
        format!("{p:?}")
    }
    fn format_move(&self, _: &Tree, m: Tree) -> String {
        format!("{m:?}")
    }
}

impl Indexed for Forest {
    fn index_len(&self) -> u64 {
        u64::from(BRANCHES) * self.branch(0).index_len()
    }
    fn rank(&self, (b, p): &Tree) -> u64 {
        u64::from(*b) * self.branch(0).index_len() + self.branch(*b).rank(p)
    }
    fn unrank(&self, index: u64) -> Option<Tree> {
        let len = self.branch(0).index_len();
        let b = u32::try_from(index / len).ok()?;
        Some((b, self.branch(b).unrank(index % len)?))
    }
}

impl NamedTiers for Forest {
    type Tier = (u32, (u32, u32));
    const IN_TIER_PARENTS: bool = true;
    fn tiers(&self) -> Vec<Self::Tier> {
        (0..BRANCHES)
            .flat_map(|b| self.branch(b).tiers().into_iter().map(move |t| (b, t)))
            .collect()
    }
    fn tier_name(&self, (b, t): Self::Tier) -> String {
        format!("b{b}-{}", self.branch(b).tier_name(t))
    }
    fn tier_of(&self, (b, p): &Tree) -> Self::Tier {
        (*b, self.branch(*b).tier_of(p))
    }
    fn tier_size(&self, (b, t): Self::Tier) -> u64 {
        self.branch(b).tier_size(t)
    }
    fn tier_rank(&self, (b, t): Self::Tier, (_, p): &Tree) -> u64 {
        self.branch(b).tier_rank(t, p)
    }
    fn tier_unrank(&self, (b, t): Self::Tier, index: u64) -> Option<Tree> {
        Some((b, self.branch(b).tier_unrank(t, index)?))
    }
    fn child_tiers(&self, (b, t): Self::Tier) -> Vec<Self::Tier> {
        self.branch(b)
            .child_tiers(t)
            .into_iter()
            .filter(|c| !(self.lie == Some(b) && t.0 == LEVELS - 1 && c.0 < t.0 - 1))
            .map(|c| (b, c))
            .collect()
    }
    fn canonical_tier(&self, (b, t): Self::Tier) -> Self::Tier {
        (b, self.branch(b).canonical_tier(t))
    }
    fn to_canonical_tier(&self, (b, p): &Tree) -> Tree {
        (*b, self.branch(*b).to_canonical_tier(p))
    }
    fn for_each_parent_in_tier(&self, (b, p): &Tree, mut visit: impl FnMut(Tree)) {
        self.branch(*b)
            .for_each_parent_in_tier(p, |parent| visit((*b, parent)));
    }
}

/// Builds `game` into a fresh directory with `options`' limits, checking
/// it completes; returns every tier's cells, from its shard, in plan order.
fn built_shards<G: NamedTiers>(
    game: &G,
    plan: &Plan<G::Tier>,
    name: &str,
    options: Options,
) -> (Built, Vec<Vec<Cell>>) {
    let dir = Dir::new(name);
    let options = Options {
        dir: dir.path().to_path_buf(),
        ..options
    };
    let built = build(game, plan, &options, &NoProgress).expect("built");
    assert!(built.complete(), "{name}: {built:?}");
    (built, shard_cells(plan, &shards_of(game, &dir)))
}

#[test]
fn tiers_solved_at_once_give_the_cells_of_tiers_solved_in_turn_and_of_the_whole_game() {
    for seed in 0..12 {
        let game = Forest::new(seed);
        let plan = Plan::new(&game).unwrap();
        let in_turn = Options {
            at_once: Some(1),
            ..Options::default()
        };
        let (one, expected) = built_shards(&game, &plan, "turn", in_turn);
        assert_eq!(one.at_once, 1, "seed {seed}");
        let together = Options {
            at_once: Some(3),
            memory: Some(u64::MAX),
            ..Options::default()
        };
        let (three, cells) = built_shards(&game, &plan, "together", together);
        assert_eq!(
            three.at_once, 3,
            "seed {seed}: three branches' tiers at once"
        );
        assert_eq!(cells, expected, "seed {seed}: the shards, cell for cell");
        let truth = retro::solve(&game, &NoProgress).expect("retro");
        let dir = Dir::new("together-keys");
        let whole = Options {
            at_once: Some(3),
            ..dir.options()
        };
        build(&game, &plan, &whole, &NoProgress).expect("built");
        let db = shards_of(&game, &dir).open(&plan).expect("one database");
        for i in 0..game.index_len() {
            let cell = match game.unrank(i) {
                Some(p) => db
                    .cell(plan.key(&game, &p).expect("a key"))
                    .expect("a cell"),
                None => Cell::UNKNOWN,
            };
            assert_eq!(cell, truth.cell(i), "seed {seed}, index {i}");
        }
    }
}

#[test]
fn tiers_solved_at_once_stay_within_the_budget() {
    let game = Forest::new(4);
    let plan = Plan::new(&game).unwrap();
    let (_, largest) = plan.largest(&game).unwrap();
    // The branches' first tiers, ready together at the start.
    let leaves: Vec<u64> = plan
        .steps
        .iter()
        .filter(|s| s.children.is_empty())
        .map(|s| plan.bytes_needed(&game, s))
        .collect();
    assert_eq!(leaves.len(), BRANCHES as usize);
    let two = leaves[0] + leaves[1];
    let budget = largest.max(two);
    assert!(
        budget < leaves.iter().sum::<u64>(),
        "a budget of {budget} bytes for two leaves and the largest tier ({largest}) must not fit three leaves {leaves:?}"
    );
    let options = Options {
        at_once: Some(3),
        memory: Some(budget),
        ..Options::default()
    };
    let (built, cells) = built_shards(&game, &plan, "budget-two", options);
    assert_eq!(built.at_once, 2, "two leaves fit the budget, three do not");
    assert!(
        built.at_once_bytes <= budget,
        "{} bytes at once over the budget of {budget}",
        built.at_once_bytes
    );
    let in_turn = Options {
        at_once: Some(1),
        ..Options::default()
    };
    assert_eq!(cells, built_shards(&game, &plan, "budget-one", in_turn).1);
}

#[test]
fn a_tier_failing_among_others_fails_the_build_and_leaves_only_sound_shards() {
    let mut game = Forest::new(2);
    game.lie = Some(1);
    let plan = Plan::new(&game).unwrap();
    let dir = Dir::new("failing");
    let options = Options {
        at_once: Some(3),
        memory: Some(u64::MAX),
        ..dir.options()
    };
    let error = build(&game, &plan, &options, &NoProgress).unwrap_err();
    assert!(
        matches!(&error, TierError::Game(why) if why.contains("b1-l3")),
        "not the broken tier's error: {error}"
    );
    let shards = shards_of(&game, &dir);
    let mut written = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(!name.ends_with(".tmp"), "a temporary file is left: {name}");
        let step = plan
            .steps
            .iter()
            .find(|s| shards.path(&s.name).ends_with(&name))
            .unwrap_or_else(|| panic!("{name} is no tier's shard"));
        assert_ne!(step.name, "b1-l3-s0", "the failed tier has no shard");
        shards.sound(&plan, step).unwrap();
        written += 1;
    }
    assert!(written < plan.steps.len(), "{written} shards");
    game.lie = None;
    let plan = Plan::new(&game).unwrap();
    let rerun = build(&game, &plan, &dir.options(), &NoProgress).unwrap();
    assert_eq!(rerun.found_done, written);
    let in_turn = Options {
        at_once: Some(1),
        ..Options::default()
    };
    let expected = built_shards(&game, &plan, "failing-turn", in_turn).1;
    assert_eq!(shard_cells(&plan, &shards), expected);
}

/// Every shard of a solved game rewritten to leave out one side's
/// remoteness still gives every position its cell, found again from its
/// children by [`crate::derive::complete`]; a tier lost afterwards is
/// solved again from such shards as its child tiers.
#[test]
fn shards_leaving_out_a_side_answer_every_position_through_its_children() {
    for seed in 0..12 {
        for value in [Value::Win, Value::Lose] {
            let game = Graph::<true, true>::new(seed);
            let truth = retro::solve(&game, &NoProgress).expect("retro");
            let dir = Dir::new(&format!("left-out-{seed}-{value:?}"));
            let plan = Plan::new(&game).expect("a plan");
            build(&game, &plan, &dir.options(), &NoProgress).expect("built");
            let shards = shards_of(&game, &dir);
            for step in &plan.steps {
                crate::db::leave_out::leave_out(&shards.path(&step.name), value, &NoProgress)
                    .expect("rewritten");
            }
            let db = shards.open(&plan).expect("the shards read as one database");
            let stored = |p: &Node| db.cell(plan.key(&game, p).expect("a key"));
            let mut left_out = 0;
            for i in 0..game.index_len() {
                let Some(position) = game.unrank(i) else {
                    continue;
                };
                let cell = stored(&position).unwrap();
                left_out += usize::from(cell.left_out_value().is_some());
                let found = crate::derive::complete(&game, &position, cell, stored).unwrap();
                assert_eq!(
                    found,
                    truth.cell(i).unpack(),
                    "seed {seed}, {value:?}, {position:?}"
                );
            }
            assert!(left_out > 50, "seed {seed}: {left_out} cells left out");
            // A tier lost afterwards is solved again from child tiers that
            // leave out remoteness, each of their cells found again first.
            drop(db);
            let step = plan
                .steps
                .iter()
                .rev()
                .find(|s| !s.children.is_empty())
                .expect("a tier with child tiers");
            std::fs::remove_file(shards.path(&step.name)).unwrap();
            let again = build(&game, &plan, &dir.options(), &NoProgress).expect("rebuilt");
            assert_eq!(again.solved, 1);
            let rebuilt = crate::db::Database::open_piece(&shards.path(&step.name)).unwrap();
            let mut checked = 0;
            for i in 0..game.index_len() {
                let Some(position) = game.unrank(i) else {
                    continue;
                };
                let key = plan.key(&game, &position).expect("a key");
                if step.keys.contains(&key) && truth.cell(i) != Cell::UNKNOWN {
                    assert_eq!(rebuilt.cell(key).unwrap(), truth.cell(i), "{position:?}");
                    checked += 1;
                }
            }
            assert!(
                checked > 20,
                "seed {seed}: {checked} cells of the rebuilt tier"
            );
        }
    }
}

/// Options for process `process` of a team at `hosts`, each process in
/// its own directory `dir` (nothing shared), cutting every tier between
/// the processes where `cut`.
fn apart(dir: &Dir, hosts: &[String], process: usize, cut: bool) -> Options {
    let options = teamed_on(dir, hosts, process, 10_000);
    match cut {
        true => Options {
            cut_from: Some(1),
            cut_classes: true,
            drafts: false,
            ..options
        },
        false => options,
    }
}

/// The modification time of every file in `dir`, by name.
fn times(dir: &Dir) -> std::collections::BTreeMap<String, std::time::SystemTime> {
    std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().modified().unwrap())
        })
        .collect()
}

#[test]
fn a_team_with_a_directory_each_fetches_the_shards_it_needs_to_the_cells_of_one() {
    for (seed, cut) in [(1, false), (4, false), (1, true), (9, true)] {
        let game = Graph::<false>::acyclic(seed);
        let plan = Plan::new(&game).unwrap();
        let expected = cells_alone(&game, &plan, &format!("apart-alone-{seed}"));
        for processes in [2, 3] {
            let dirs: Vec<Dir> = (0..processes)
                .map(|p| Dir::new(&format!("apart-{seed}-{cut}-{processes}-{p}")))
                .collect();
            let hosts = free_hosts(processes);
            let runs: Vec<Options> = (0..processes)
                .map(|p| apart(&dirs[p], &hosts, p, cut))
                .collect();
            let built = build_together(&game, &plan, &runs);
            let (mut solved, mut slices) = (0, 0);
            for (process, built) in built.into_iter().enumerate() {
                let built = built.unwrap_or_else(|e| panic!("process {process}: {e}"));
                assert!(built.complete(), "process {process}: {built:?}");
                solved += built.solved;
                slices += built.slices;
            }
            assert_eq!(solved, plan.steps.len(), "each tier solved once");
            if cut {
                assert_eq!(slices, plan.steps.len() * processes, "every tier cut");
            }
            // Process 0 holds every shard; each process the shards it
            // wrote or fetched, sound, and no slice or temporary file.
            let what = format!("seed {seed}, cut {cut}, {processes} processes");
            assert_eq!(
                shard_cells(&plan, &shards_of(&game, &dirs[0])),
                expected,
                "{what}"
            );
            for (process, dir) in dirs.iter().enumerate() {
                let shards = shards_of(&game, dir);
                let mut held = 0;
                for (i, step) in plan.steps.iter().enumerate() {
                    if shards.path(&step.name).exists() {
                        shards.sound(&plan, step).expect("sound");
                        let db = crate::db::Database::open_piece(&shards.path(&step.name))
                            .expect("a shard");
                        let cells: Vec<Cell> = step
                            .keys
                            .clone()
                            .map(|k| db.cell(k).expect("a cell"))
                            .collect();
                        assert_eq!(cells, expected[i], "{what}: process {process}, step {i}");
                        held += 1;
                    }
                }
                assert!(held >= 1, "{what}: process {process} holds shards");
                let others: Vec<String> = times(dir)
                    .into_keys()
                    .filter(|n| n.contains(".slice-") || n.ends_with(".tmp"))
                    .collect();
                assert!(
                    others.is_empty(),
                    "{what}: process {process} left {others:?}"
                );
            }
            // A rerun finds every tier done and fetches nothing: no file
            // in any directory is written again.
            let before: Vec<_> = dirs.iter().map(times).collect();
            let hosts = free_hosts(processes);
            let runs: Vec<Options> = (0..processes)
                .map(|p| apart(&dirs[p], &hosts, p, cut))
                .collect();
            for built in build_together(&game, &plan, &runs) {
                let built = built.unwrap_or_else(|e| panic!("rerun: {e}"));
                assert_eq!(built.solved + built.slices, 0, "{what}: {built:?}");
            }
            let after: Vec<_> = dirs.iter().map(times).collect();
            assert_eq!(before, after, "{what}: the rerun wrote nothing");
        }
    }
}
