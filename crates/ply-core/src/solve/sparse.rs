//! Strong solution of every position reachable from a root, for acyclic
//! games with an index, symmetries and tiers, when the index space is too
//! sparse for a full table (4x4 tic-tac-toe reaches 9.7 million of its 43
//! million indexes; after symmetry, 1.25 million).
//!
//! Forward, tier by tier from the root's, it lists the canonical positions
//! each tier reaches; a bitmap over the index space, one bit per index, tells
//! a new position from one already listed, so the lists stay short (each is
//! sorted and deduplicated before its tier is expanded). Backward, last tier first, it solves each tier in parallel: a
//! position's children lie in higher tiers, already solved, found by binary
//! search in their tier's sorted indexes. Each tier keeps one word per
//! canonical position (its index and its [`Cell`]) and no hash map.

use crate::census::Census;
use crate::db_error::DbError;
use crate::error::SolveError;
use crate::game::{Indexed, NumberedTiers, Symmetric};
use crate::limits::TooLarge;
use crate::progress::Progress;
use crate::solution::{Keys, Solution, add};
use crate::solve::reach::IndexSet;
#[cfg(feature = "db")]
use crate::team::{Exchanged, Member, Team, TeamError};
use crate::value::{Cell, Outcome, Value};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::ops::Range;
#[cfg(feature = "db")]
use std::sync::Mutex;

/// Positions expanded together by one parallel task.
const TASK: usize = 1 << 12;

/// Bits of a table word that hold the cell; the index sits above them.
const CELL_BITS: u32 = 16;

/// The largest index space the solver takes: the reached-bitmap needs one bit
/// per index, and indexes must fit above the cell in a table word.
pub const MAX_INDEX_LEN: u64 = 1 << 40;

/// The outcome of every canonical position reachable from a root.
#[derive(Clone, Debug)]
pub struct SparseTable {
    /// `tiers[t]`: the canonical positions of tier `t`.
    tiers: Vec<TierTable>,
    /// Whether every symmetry maps the root to itself.
    root_symmetric: bool,
}

/// The canonical positions of one tier, one word each: the index above
/// [`CELL_BITS`] and the cell below, sorted by index; and a directory into
/// them, so that a lookup touches two cache lines.
#[derive(Clone, Debug, Default)]
struct TierTable {
    words: Vec<u64>,
    directory: Directory,
}

/// `starts[b]` is the first word whose index, less `base`, shifted right by
/// `shift`, is at least `b`: a bucket holds one or two positions.
#[derive(Clone, Debug, Default)]
struct Directory {
    base: u64,
    shift: u32,
    starts: Vec<u32>,
}

fn index_of(word: u64) -> u64 {
    word >> CELL_BITS
}

fn cell_of(word: u64) -> Cell {
    Cell::from_bits(word as u16)
}

impl Directory {
    fn new(words: &[u64]) -> Self {
        let (Some(&first), Some(&last)) = (words.first(), words.last()) else {
            return Self::default();
        };
        let (first, last) = (index_of(first), index_of(last));
        let span_bits = 64 - (last - first).leading_zeros();
        let bucket_bits = words.len().ilog2();
        let shift = span_bits.saturating_sub(bucket_bits);
        let buckets = ((last - first) >> shift) as usize + 1;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut next = 0usize;
        for bucket in 0..=buckets as u64 {
            while next < words.len() && (index_of(words[next]) - first) >> shift < bucket {
                next += 1;
            }
            starts.push(next as u32);
        }
        Self {
            base: first,
            shift,
            starts,
        }
    }

    fn find(&self, words: &[u64], rank: u64) -> Option<usize> {
        let bucket = (rank.checked_sub(self.base)? >> self.shift) as usize;
        let (&start, &end) = (self.starts.get(bucket)?, self.starts.get(bucket + 1)?);
        let (start, end) = (start as usize, end as usize);
        words[start..end]
            .binary_search_by_key(&rank, |&w| index_of(w))
            .ok()
            .map(|i| start + i)
    }
}

impl TierTable {
    fn new(ranks: Vec<u64>) -> Self {
        let mut words = ranks;
        for word in &mut words {
            *word <<= CELL_BITS;
        }
        let directory = Directory::new(&words);
        Self { words, directory }
    }

    fn cell(&self, rank: u64) -> Option<Cell> {
        let i = self.directory.find(&self.words, rank)?;
        Some(cell_of(self.words[i]))
    }

    /// Sets the cell of each position `(rank, cell)` read from a team's
    /// part; fails if the tier lacks one.
    #[cfg(feature = "db")]
    fn set_all(&mut self, cells: Vec<(u64, Cell)>) -> Result<(), TeamError> {
        for (rank, cell) in cells {
            let i = self.directory.find(&self.words, rank).ok_or_else(|| {
                TeamError::Work(SolveError::Unsupported(format!(
                    "a team's part holds index {rank}, which this tier did not reach"
                )))
            })?;
            self.words[i] = rank << CELL_BITS | u64::from(cell.bits());
        }
        Ok(())
    }
}

impl SparseTable {
    /// Lists and solves every position reachable from `root`.
    pub fn build<G>(
        game: &G,
        root: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Self, SolveError>
    where
        G: Indexed + Symmetric + NumberedTiers,
    {
        Self::build_sharing(game, root, &mut Alone, progress)
    }

    /// [`SparseTable::build`] as process `team.process` of a team
    /// connected over TCP at the team's hosts: each process lists every
    /// tier, then solves every `P`-th task of each tier's positions and
    /// sends the cells to the others, reading theirs, as a table team does
    /// (see `table_team`). Every process returns the whole table.
    #[cfg(feature = "db")]
    pub fn build_team<G>(
        game: &G,
        root: &G::Position,
        team: &Team,
        progress: &dyn Progress,
    ) -> Result<(Self, Exchanged), TeamError>
    where
        G: Indexed + Symmetric + NumberedTiers,
    {
        let mut member = Member::join(game, team, progress)?;
        let table = Self::build_sharing(game, root, &mut member, progress)?;
        let exchanged = member.finish(table.tiers.len());
        Ok((table, exchanged))
    }

    /// Lists and solves every position reachable from `root`, alone or
    /// in a team (`share`).
    fn build_sharing<G, S: Share>(
        game: &G,
        root: &G::Position,
        share: &mut S,
        progress: &dyn Progress,
    ) -> Result<Self, S::Error>
    where
        G: Indexed + Symmetric + NumberedTiers,
    {
        let mut root_symmetric = true;
        game.for_each_symmetric(root, |image| root_symmetric &= image == *root);
        let mut tiers = enumerate(game, root, progress)?;
        solve_tiers(game, &mut tiers, share, progress)?;
        Ok(Self {
            tiers,
            root_symmetric,
        })
    }

    /// Bytes a build takes at its peak: the reached-bitmap, plus, for each
    /// canonical position, a table word, its share of the directory, and its
    /// place in the list of its tier while the tier is enumerated.
    pub fn peak_bytes(index_len: u64, classes: u64) -> u64 {
        index_len / 8 + classes * (8 + 4 + 8)
    }

    /// The outcome of `position` for the player to move, or `None` if
    /// neither it nor any of its images is reachable from the root.
    pub fn outcome<G>(&self, game: &G, position: &G::Position) -> Option<Outcome>
    where
        G: Indexed + Symmetric + NumberedTiers,
    {
        let rank = game.rank(&game.canonical(position));
        self.tiers.get(game.tier(position))?.cell(rank)?.unpack()
    }

    /// The cell of the canonical position with index `rank`, whatever its
    /// tier ([`Cell::UNKNOWN`] if it was not reached).
    pub fn cell(&self, rank: u64) -> Cell {
        self.tiers
            .iter()
            .find_map(|tier| tier.cell(rank))
            .unwrap_or(Cell::UNKNOWN)
    }

    /// Every canonical position's index and cell, by increasing index.
    pub fn entries(&self) -> Vec<(u64, Cell)> {
        let mut entries: Vec<(u64, Cell)> = self
            .tiers
            .iter()
            .flat_map(|tier| tier.words.iter().map(|&w| (index_of(w), cell_of(w))))
            .collect();
        entries.par_sort_unstable_by_key(|&(rank, _)| rank);
        entries
    }

    /// Whether every symmetry maps the root to itself (see [`SparseTable::census`]).
    pub fn root_symmetric(&self) -> bool {
        self.root_symmetric
    }

    /// The number of canonical positions (symmetry classes) in the table.
    pub fn classes(&self) -> u64 {
        self.tiers.iter().map(|t| t.words.len() as u64).sum()
    }

    /// The census of every reachable position, each class counted once per
    /// distinct image, so that it equals the census of a search without
    /// symmetry. Examples are canonical positions.
    ///
    /// `None` if the root is not symmetric: only when every symmetry fixes
    /// the root (and maps moves to moves, as board symmetries do) are the
    /// reachable positions whole classes, so that counting images counts them.
    pub fn census<G>(&self, game: &G) -> Option<Census<G::Position>>
    where
        G: Indexed + Symmetric + NumberedTiers,
    {
        if !self.root_symmetric {
            return None;
        }
        let census = self
            .tiers
            .par_iter()
            .flat_map(|tier| tier.words.par_iter())
            .fold(Census::new, |mut census, &word| {
                let rank = index_of(word);
                if let (Some(position), Some(outcome)) = (game.unrank(rank), cell_of(word).unpack())
                {
                    for _ in 0..game.class_size(rank, &position) {
                        census.add(outcome, || position.clone());
                    }
                }
                census
            })
            .reduce(Census::new, Census::merge);
        Some(census)
    }
}

/// The canonical positions of each tier reachable from `root`, by index.
fn enumerate<G>(
    game: &G,
    root: &G::Position,
    progress: &dyn Progress,
) -> Result<Vec<TierTable>, SolveError>
where
    G: Indexed + Symmetric + NumberedTiers,
{
    let index_len = game.index_len();
    if index_len > MAX_INDEX_LEN {
        return Err(SolveError::TooLarge(TooLarge::Positions {
            game: game.name(),
            positions: index_len,
            most: MAX_INDEX_LEN,
        }));
    }
    let reached = IndexSet::new(index_len);
    let tier_count = game.tier_count();
    let mut pending: Vec<Vec<u64>> = vec![Vec::new(); tier_count];
    let root = game.canonical(root);
    let root_rank = game.rank(&root);
    if let Some(slot) = pending.get_mut(game.tier(&root)) {
        reached.insert(root_rank);
        slot.push(root_rank);
    }
    let mut tiers = Vec::with_capacity(tier_count);
    progress.begin("enumerating", tier_count as u64);
    for tier in 0..tier_count {
        let mut ranks = std::mem::take(&mut pending[tier]);
        ranks.par_sort_unstable();
        // Two threads may list one position at the same moment.
        ranks.dedup();
        let found: Vec<Vec<(usize, Vec<u64>)>> = ranks
            .par_chunks(TASK)
            .map(|task| {
                if progress.cancelled() {
                    return Err(SolveError::Cancelled("the table build was stopped".into()));
                }
                expand(game, task, &reached)
            })
            .collect::<Result<_, _>>()?;
        for (child_tier, children) in found.into_iter().flatten() {
            match pending.get_mut(child_tier) {
                Some(slot) if child_tier > tier => slot.extend(children),
                _ => return Err(missing_from_tier(children.first().copied().unwrap_or(0))),
            }
        }
        tiers.push(TierTable::new(ranks));
        progress.advance(1);
    }
    progress.end();
    Ok(tiers)
}

/// The canonical children of the positions `ranks` not reached before, by tier.
fn expand<G>(
    game: &G,
    ranks: &[u64],
    reached: &IndexSet,
) -> Result<Vec<(usize, Vec<u64>)>, SolveError>
where
    G: Indexed + Symmetric + NumberedTiers,
{
    let mut by_tier: Vec<(usize, Vec<u64>)> = Vec::new();
    for &rank in ranks {
        let position = game.unrank(rank).ok_or_else(|| unrankable(rank))?;
        if game.primitive(&position).is_some() {
            continue;
        }
        game.for_each_canonical_move(&position, |_, child, rank| {
            if reached.contains(rank) {
                return;
            }
            reached.insert(rank);
            let tier = game.tier(&child);
            match by_tier.iter_mut().find(|(t, _)| *t == tier) {
                Some((_, list)) => list.push(rank),
                None => by_tier.push((tier, vec![rank])),
            }
        });
    }
    Ok(by_tier)
}

/// How a sparse table's build takes part in a team: alone ([`Alone`]), or
/// as a member sharing each tier's cells with the others.
trait Share: Sync {
    /// What stops the build.
    type Error: From<SolveError>;

    /// Whether this process solves task number `task` of every tier.
    fn deals(&self, task: u64) -> bool;

    /// Called once this process's tasks of `tier` are solved.
    fn share(&mut self, tier: usize, table: &mut TierTable) -> Result<(), Self::Error>;
}

/// A build alone: every task, nothing shared.
struct Alone;

impl Share for Alone {
    type Error = SolveError;

    fn deals(&self, _: u64) -> bool {
        true
    }

    fn share(&mut self, _: usize, _: &mut TierTable) -> Result<(), SolveError> {
        Ok(())
    }
}

#[cfg(feature = "db")]
impl Share for Member<'_> {
    type Error = TeamError;

    fn deals(&self, task: u64) -> bool {
        Member::deals(self, task)
    }

    fn share(&mut self, tier: usize, table: &mut TierTable) -> Result<(), TeamError> {
        let mine: Vec<(u64, Cell)> = table
            .words
            .chunks(TASK)
            .enumerate()
            .filter(|&(task, _)| Member::deals(self, task as u64))
            .flat_map(|(_, words)| words.iter().map(|&w| (index_of(w), cell_of(w))))
            .collect();
        let read = Mutex::new(Vec::new());
        Member::share(self, tier, &mine, &|rank, cell| {
            read.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((rank, cell));
            true
        })?;
        table.set_all(read.into_inner().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Fills every tier's cells, last tier first; in a team, this process's
/// tasks of each tier only, then the others' from `share`.
fn solve_tiers<G, S: Share>(
    game: &G,
    tiers: &mut [TierTable],
    share: &mut S,
    progress: &dyn Progress,
) -> Result<(), S::Error>
where
    G: Indexed + Symmetric + NumberedTiers,
{
    let total = tiers.iter().map(|t| t.words.len() as u64).sum();
    progress.begin("solving", total);
    for tier in (0..tiers.len()).rev() {
        let (lower, solved) = tiers.split_at_mut(tier + 1);
        let this = &mut lower[tier];
        let above = tier + 1;
        let dealt: &S = share;
        this.words
            .par_chunks_mut(TASK)
            .enumerate()
            .filter(|&(task, _)| dealt.deals(task as u64))
            .try_for_each(|(_, task)| {
                if progress.cancelled() {
                    return Err(SolveError::Cancelled("the table build was stopped".into()));
                }
                for word in task {
                    let cell = solve_one(game, index_of(*word), solved, above)?;
                    *word |= u64::from(cell.bits());
                }
                Ok(())
            })?;
        share.share(tier, this)?;
        progress.advance(this.words.len() as u64);
    }
    progress.end();
    Ok(())
}

/// The cell of the position `rank`, whose children are in `solved`
/// (`solved[0]` is tier `above`).
fn solve_one<G>(game: &G, rank: u64, solved: &[TierTable], above: usize) -> Result<Cell, SolveError>
where
    G: Indexed + Symmetric + NumberedTiers,
{
    let position = game.unrank(rank).ok_or_else(|| unrankable(rank))?;
    if let Some(value) = game.primitive(&position) {
        return Ok(Cell::pack(Outcome::terminal(value)));
    }
    let fastest_win = Outcome::win(1);
    let mut best: Option<Outcome> = None;
    let mut missing = None;
    game.for_each_canonical_move(&position, |_, child, rank| {
        if best == Some(fastest_win) || missing.is_some() {
            return;
        }
        let found = game
            .tier(&child)
            .checked_sub(above)
            .and_then(|t| solved.get(t))
            .and_then(|t| t.cell(rank))
            .and_then(Cell::unpack);
        let Some(outcome) = found else {
            missing = Some(rank);
            return;
        };
        let candidate = outcome.through_move();
        if best.is_none_or(|b| candidate.preference(b) == Ordering::Greater) {
            best = Some(candidate);
        }
    });
    if let Some(rank) = missing {
        return Err(missing_from_tier(rank));
    }
    Ok(Cell::pack(best.unwrap_or(Outcome::terminal(Value::Lose))))
}

/// A position reached in play whose index the game cannot unrank.
fn unrankable(rank: u64) -> SolveError {
    SolveError::Unsupported(format!(
        "index {rank} is reachable but the game cannot unrank it"
    ))
}

/// A position reached by a move but missing from its tier: a move that
/// does not go up a tier, or a canonical form that differs between images.
fn missing_from_tier(rank: u64) -> SolveError {
    SolveError::Unsupported(format!(
        "index {rank} was reached by a move but is missing from its tier"
    ))
}

/// A [`SparseTable`] with the size of its game's index, as a [`Solution`]
/// over canonical keys.
pub struct Canonical {
    table: SparseTable,
    index_len: u64,
}

impl Canonical {
    /// Wraps `table`, built for a game whose index has `index_len` entries.
    pub fn new(table: SparseTable, index_len: u64) -> Self {
        Self { table, index_len }
    }

    /// The table.
    pub fn table(&self) -> &SparseTable {
        &self.table
    }
}

impl Solution for Canonical {
    fn keys(&self) -> Keys {
        Keys::Canonical
    }
    fn index_len(&self) -> u64 {
        self.index_len
    }
    fn cell(&self, key: u64) -> Result<Cell, DbError> {
        Ok(self.table.cell(key))
    }
    fn for_each_cell(
        &self,
        range: Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), DbError> {
        for (key, cell) in self.table.entries() {
            if range.contains(&key) {
                visit(key, cell);
            }
        }
        Ok(())
    }
    fn census_by(
        &self,
        range: Range<u64>,
        weight: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<Census<u64>, DbError> {
        Ok(self
            .table
            .entries()
            .par_iter()
            .filter(|(key, _)| range.contains(key))
            .fold(Census::new, |mut census, &(key, cell)| {
                add(&mut census, key, cell, weight(key));
                census
            })
            .reduce(Census::new, Census::merge))
    }
}
