//! Nine Men's Morris's moving phase counted the way published tables count
//! it: positions by value for each ordered pair of stone counts (the
//! mover's, the other player's), with the longest win and loss, read from
//! solved tier shards; and such a table read from text, to compare.

use crate::Morris;
use crate::morris::index::Sector;
use ply_core::tier::{Plan, Shards};
use ply_core::{Tiers, Value};
use std::collections::BTreeMap;
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

/// Counts, by ordered pair, every position of the moving sectors of
/// `game` whose shard is in `dir` (read only, never changed); returns the
/// counts and the names of the sectors counted.
pub fn count_shards(
    game: &Morris,
    dir: &Path,
) -> Result<(BTreeMap<Pair, Row>, Vec<String>), String> {
    let plan = Plan::new(game).map_err(|e| e.to_string())?;
    let shards = Shards::new(dir, ply_core::db::Expect::of(game));
    let mut rows = BTreeMap::<Pair, Row>::new();
    let mut counted = Vec::new();
    for step in &plan.steps {
        if !matches!(step.tier, Sector::Moving { .. }) || !shards.path(&step.name).exists() {
            continue;
        }
        let cells = shards.load(step).map_err(|e| e.to_string())?;
        for index in 0..step.size() {
            let Some(position) = game.tier_unrank(step.tier, index) else {
                continue;
            };
            let outcome = cells
                .outcome(index as usize)
                .ok_or_else(|| format!("{}: position {index} has no value", step.name))?;
            let (mover, other, _, _) = position.sides();
            let row = rows
                .entry((mover.count_ones() as u8, other.count_ones() as u8))
                .or_default();
            let remoteness = outcome.remoteness.unwrap_or(0);
            match outcome.value {
                Value::Win => {
                    row.wins += 1;
                    row.max_win = row.max_win.max(remoteness);
                }
                Value::Lose => {
                    row.losses += 1;
                    row.max_loss = row.max_loss.max(remoteness);
                }
                Value::Draw => row.draws += 1,
                Value::Tie => return Err(format!("{}: position {index} is a tie", step.name)),
            }
        }
        counted.push(step.name.clone());
    }
    Ok((rows, counted))
}
