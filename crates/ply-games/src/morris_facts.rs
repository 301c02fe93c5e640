//! Nine Men's Morris's moving phase counted the way published tables count
//! it: positions by value for each ordered pair of stone counts (the
//! mover's, the other player's), with the longest win and loss, read from
//! solved tier shards; and such a table read from text, to compare.

use crate::Morris;
use crate::morris::index::Sector;
use ply_core::Solution;
use ply_core::tier::{Plan, Shards};
use ply_core::{NamedTiers, Value};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;
use std::path::Path;

/// An ordered pair of stone counts: the mover's, then the other player's.
pub type Pair = (u8, u8);

/// The positions of one ordered pair, by value.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Positions the mover wins.
    pub wins: u64,
    /// Positions the mover loses.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// The longest win in plies (0 with no win).
    pub max_win: u32,
    /// The longest loss in plies (0 with no loss).
    pub max_loss: u32,
}

/// A published table: its rows by source name, then by pair.
pub type Table = BTreeMap<String, BTreeMap<Pair, Row>>;

/// Reads a table: one row a line, `SOURCE W-B WINS LOSSES DRAWS MAX-WIN
/// MAX-LOSS`, `#` starting a comment.
pub fn parse_table(text: &str) -> Result<Table, String> {
    let mut table = Table::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}: {line}", n + 1);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [source, pair, numbers @ ..] = fields.as_slice() else {
            return Err(bad("too few fields"));
        };
        let pair = pair
            .split_once('-')
            .and_then(|(w, b)| Some((w.parse().ok()?, b.parse().ok()?)))
            .ok_or_else(|| bad("the pair is not W-B"))?;
        let numbers: Vec<u64> = numbers
            .iter()
            .map(|f| f.parse().map_err(|_| bad("not a count")))
            .collect::<Result<_, _>>()?;
        let [wins, losses, draws, max_win, max_loss] = numbers[..] else {
            return Err(bad("not five numbers after the pair"));
        };
        let depth = |d: u64| u32::try_from(d).map_err(|_| bad("depth too large"));
        let row = Row {
            wins,
            losses,
            draws,
            max_win: depth(max_win)?,
            max_loss: depth(max_loss)?,
        };
        if table
            .entry(source.to_string())
            .or_default()
            .insert(pair, row)
            .is_some()
        {
            return Err(bad("the pair is listed twice for this source"));
        }
    }
    Ok(table)
}

/// What [`count_shards`] found.
#[derive(Clone, Debug, Default)]
pub struct Counted {
    /// The counts, by ordered pair.
    pub rows: BTreeMap<Pair, Row>,
    /// The names of the sectors counted, in plan order.
    pub sectors: Vec<String>,
    /// The longest wins (or losses) known only as a bound. A shard leaving
    /// out a side's remoteness keeps its longest and one position having it
    /// in its header: that position's pair has its longest exactly, and
    /// every other pair of the shard holds the shard's longest as the most
    /// it can be.
    pub bounded: HashSet<(Pair, Value)>,
}

impl Counted {
    /// Whether `published`, a source's row of `pair`, agrees with what was
    /// counted: every count equal, each longest equal where known exactly
    /// and at most the bound where not.
    pub fn agrees(&self, pair: Pair, published: &Row) -> bool {
        let Some(ply) = self.rows.get(&pair) else {
            return false;
        };
        let longest = |value: Value, ply: u32, published: u32| {
            if self.bounded.contains(&(pair, value)) {
                published <= ply
            } else {
                published == ply
            }
        };
        (ply.wins, ply.losses, ply.draws) == (published.wins, published.losses, published.draws)
            && longest(Value::Win, ply.max_win, published.max_win)
            && longest(Value::Lose, ply.max_loss, published.max_loss)
    }
}

/// Keys counted by one task of [`count_shards`].
const RUN: u64 = 1 << 24;

/// What one run of a shard's keys holds: its rows, and the pairs having a
/// cell whose remoteness the shard leaves out.
#[derive(Default)]
struct Run {
    rows: BTreeMap<Pair, Row>,
    left_out_pairs: BTreeSet<Pair>,
}

impl Run {
    /// Adds `other`'s counts to these.
    fn add(&mut self, other: Run) {
        add_rows(&mut self.rows, other.rows);
        self.left_out_pairs.extend(other.left_out_pairs);
    }
}

/// Adds the rows `from` to the rows `into`, pair by pair.
fn add_rows(into: &mut BTreeMap<Pair, Row>, from: BTreeMap<Pair, Row>) {
    for (pair, row) in from {
        into.entry(pair).or_default().add(&row);
    }
}

impl Row {
    /// Adds `other`'s counts to these, keeping the longer of each longest.
    fn add(&mut self, other: &Row) {
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
        self.max_win = self.max_win.max(other.max_win);
        self.max_loss = self.max_loss.max(other.max_loss);
    }
}

/// Counts the cells of keys `run` of the shard `db` of the sector `name`,
/// whose first key is `start`; `pair_at` tells a sector index's pair.
fn count_run(
    db: &ply_core::db::Database,
    name: &str,
    run: Range<u64>,
    start: u64,
    pair_at: &(dyn Fn(u64) -> Option<Pair> + Sync),
) -> Result<Run, String> {
    let mut part = Run::default();
    let mut failure = None;
    db.for_each_cell(run, &mut |key, cell| {
        let index = key - start;
        if failure.is_some() {
            return;
        }
        let Some(pair) = pair_at(index) else {
            return;
        };
        let row = part.rows.entry(pair).or_default();
        let (value, remoteness) = match (cell.unpack(), cell.left_out_value()) {
            (Some(outcome), _) => (outcome.value, outcome.remoteness.unwrap_or(0)),
            (None, Some(value)) => {
                part.left_out_pairs.insert(pair);
                (value, 0)
            }
            (None, None) => {
                failure = Some(format!("{name}: position {index} has no value"));
                return;
            }
        };
        match value {
            Value::Win => {
                row.wins += 1;
                row.max_win = row.max_win.max(remoteness);
            }
            Value::Lose => {
                row.losses += 1;
                row.max_loss = row.max_loss.max(remoteness);
            }
            Value::Draw => row.draws += 1,
            Value::Tie => failure = Some(format!("{name}: position {index} is a tie")),
        }
    })
    .map_err(|e| e.to_string())?;
    failure.map_or(Ok(part), Err)
}

/// `keys` cut into runs of `run` keys (the last one shorter), in order:
/// the pieces a shard's cells are streamed in, one per task.
pub fn runs(keys: Range<u64>, run: u64) -> Vec<Range<u64>> {
    keys.clone()
        .step_by(run as usize)
        .map(|first| first..keys.end.min(first + run))
        .collect()
}

/// Counts, by ordered pair, every position of the moving sectors of
/// `game` whose shard is in `dir` (read only, never changed), one shard
/// at a time, its cells streamed by runs of keys in parallel. Shards leaving out a side's remoteness
/// are counted too: that side's longest is exact for the pair holding the
/// shard's longest and a bound for the others ([`Counted::bounded`]).
pub fn count_shards(game: &Morris, dir: &Path) -> Result<Counted, String> {
    let plan = Plan::new(game).map_err(|e| e.to_string())?;
    let shards = Shards::new(dir, ply_core::db::Expect::of(game));
    let mut counted = Counted::default();
    for step in &plan.steps {
        if !matches!(step.tier, Sector::Moving { .. }) || !shards.path(&step.name).exists() {
            continue;
        }
        let db = shards.open_step(step).map_err(|e| e.to_string())?;
        let left_out = db.headers().find_map(|h| h.left_out.clone());
        let start = step.keys.start;
        let pair_at = |index: u64| {
            game.tier_unrank(step.tier, index).map(|position| {
                let (mover, other, _, _) = position.sides();
                (mover.count_ones() as u8, other.count_ones() as u8)
            })
        };
        // The shard's keys in runs counted in parallel, then added up.
        let part = runs(step.keys.clone(), RUN)
            .into_par_iter()
            .map(|run| count_run(&db, &step.name, run, start, &pair_at))
            .try_reduce(Run::default, |mut a, b| {
                a.add(b);
                Ok(a)
            })?;
        add_rows(&mut counted.rows, part.rows);
        if let Some(left_out) = left_out {
            let longest = left_out
                .by_remoteness
                .iter()
                .rposition(|&n| n > 0)
                .unwrap_or(0) as u32;
            let longest_pair = left_out
                .longest_key
                .checked_sub(start)
                .and_then(pair_at)
                .ok_or_else(|| format!("{}: its longest names no position", step.name))?;
            // The pairs of this shard having a cell whose remoteness it
            // leaves out.
            for pair in part.left_out_pairs {
                let row = counted.rows.entry(pair).or_default();
                let max = match left_out.value {
                    Value::Win => &mut row.max_win,
                    _ => &mut row.max_loss,
                };
                *max = (*max).max(longest);
                if pair != longest_pair {
                    counted.bounded.insert((pair, left_out.value));
                }
            }
        }
        counted.sectors.push(step.name.clone());
    }
    Ok(counted)
}
