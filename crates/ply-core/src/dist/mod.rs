//! Retrograde analysis past one machine, on timely-dataflow workers:
//! threads in one process, or processes over TCP.
//!
//! The method is the single-machine one ([`crate::solve::retro`]): counters
//! of undecided children, rounds in order of remoteness (primitive
//! positions, then every parent of a loss wins one ply longer and a parent
//! whose last undecided child won loses one ply longer), ties in a second
//! sweep, draws for whatever is left. Here the index is cut between the
//! workers ([`Partition`]); each worker owns the cells and counters of its
//! part, a decided position sends `(parent, child is a loss)` to each
//! parent's owner through timely's exchange, and timely's progress tracking
//! ends each round (one epoch per round) on every worker at once. The
//! result is the single-machine solver's, position for position.
//!
//! Parents come from the game's un-moves ([`solve_with_parents`]) or, for
//! games without them ([`solve`]), from the moves: in a first epoch every
//! move goes to its child's owner, which keeps its positions' parents.
//!
//! Symmetric games ([`solve_all`] with [`crate::BySymmetry`]) are solved
//! one position per class, as on one machine: a worker seeds only the
//! representatives among its positions, counts and sends by the classes'
//! indices, and counts each class once per position in it, so the census
//! and fingerprint are those of every cell. The other positions' cells
//! are read through their representatives ([`DistSolution::cell`]); a run
//! that saves shards solves every position, since a shard holds every cell
//! of its range.
//!
//! Faults: a process that cannot reach the others within the connection
//! timeout, or that loses a peer (whose sockets close when it dies, or
//! which sends no heartbeat for the peer timeout when it is frozen or cut
//! off), ends with an error naming that peer; nothing waits forever. The
//! processes, their connections and heartbeats are [`crate::team`]'s;
//! what this module knows of timely's insides (its thread names, its
//! panics) is in the `adapter` module alone.
//!
//! Saving ([`Plan::save`]): each worker writes the cells of its block of
//! the index as one database shard, after the last round and before the
//! final exchange of counts, so that process 0 reports success only once
//! every shard of every process is in place.

mod adapter;
mod batch;
mod partition;
mod worker;

pub use partition::{Layout, Partition};

use crate::census::Census;
use crate::db::{self, DbError, Meta};
use crate::error::SolveError;
use crate::game::{Indexed, Parents};
use crate::limits::TooLarge;
use crate::progress::Progress;
use crate::solve::retro::{
    Folding, FromUnmoves, ParentRule, Retrograde, Unfolded, remove_duplicate_indices,
};
use crate::team::{self, Heartbeat, Team, TeamError};
use crate::value::{Cell, Remoteness};
use adapter::Communication;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Why a distributed analysis could not run to the end.
#[derive(Debug)]
pub enum DistError {
    /// The workers, processes or hosts given do not make a cluster.
    Config(String),
    /// The team of processes failed: this process could not reach every
    /// other one in time, could not start its heartbeats, or lost a peer
    /// ([`TeamError::Lost`], naming the process and its host).
    Team(TeamError),
    /// A worker failed (it panicked, or the workers ended without a
    /// result) with no lost peer to blame.
    Failed(String),
    /// A shard could not be written.
    Save(DbError),
    /// The solve itself failed: the game does not fit, a remoteness
    /// overflows a cell, or the analysis was stopped (here, or by a
    /// failing worker).
    Solve(SolveError),
}

impl DistError {
    /// The analysis was stopped.
    pub fn stopped() -> Self {
        Self::Solve(SolveError::Cancelled("the analysis was stopped".into()))
    }
}

impl From<SolveError> for DistError {
    fn from(error: SolveError) -> Self {
        Self::Solve(error)
    }
}

impl std::fmt::Display for DistError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Config(why) => f.write_str(why),
            Self::Team(why) => why.fmt(f),
            Self::Failed(why) => write!(f, "a worker failed: {why}"),
            Self::Save(why) => write!(f, "cannot save the database: {why}"),
            Self::Solve(why) => why.fmt(f),
        }
    }
}

impl std::error::Error for DistError {}

impl From<TeamError> for DistError {
    fn from(error: TeamError) -> Self {
        Self::Team(error)
    }
}

/// Where the workers run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cluster {
    /// This many worker threads in this process alone.
    Threads(usize),
    /// One of several processes, connected over TCP.
    Processes {
        /// Worker threads in each process.
        threads: usize,
        /// The processes, with their hosts, and how long a peer may send
        /// no heartbeat before it is taken as lost (frozen or cut off),
        /// ending the run.
        team: Team,
        /// How long to wait for every process to connect.
        connect_timeout: Duration,
    },
}

/// How long a peer may stay silent before it is taken as lost, unless a
/// cluster says otherwise ([`Cluster::with_peer_timeout`]).
pub const PEER_TIMEOUT: Duration = Duration::from_secs(10);

impl Cluster {
    /// Worker threads in this process.
    pub fn threads(&self) -> usize {
        match self {
            Self::Threads(threads) | Self::Processes { threads, .. } => *threads,
        }
    }

    /// Which process this one is.
    pub fn process(&self) -> usize {
        match self {
            Self::Threads(_) => 0,
            Self::Processes { team, .. } => team.process,
        }
    }

    /// How many processes take part.
    pub fn processes(&self) -> usize {
        match self {
            Self::Threads(_) => 1,
            Self::Processes { team, .. } => team.processes,
        }
    }

    /// The same cluster, whose processes wait `timeout` for each other
    /// to connect.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        if let Self::Processes {
            connect_timeout, ..
        } = &mut self
        {
            *connect_timeout = timeout;
        }
        self
    }

    /// The same cluster, whose processes take a peer that sends no
    /// heartbeat for `timeout` as lost.
    pub fn with_peer_timeout(mut self, timeout: Duration) -> Self {
        if let Self::Processes { team, .. } = &mut self {
            team.peer_timeout = timeout;
        }
        self
    }

    fn check(&self) -> Result<(), DistError> {
        if self.threads() == 0 {
            return Err(DistError::Config("at least one worker is needed".into()));
        }
        if let Self::Processes { team, .. } = self {
            Team::on_hosts(team.hosts.clone(), team.process, team.peer_timeout)?;
        }
        Ok(())
    }

    /// The communication of this process's workers: local channels, or
    /// sockets to every other process, connected here.
    fn connect(&self, tag: u64) -> Result<Communication, DistError> {
        match self {
            Self::Threads(threads) => adapter::threads(*threads).map_err(DistError::Config),
            Self::Processes {
                threads,
                team,
                connect_timeout,
            } => {
                adapter::watch_peers();
                let links = team::connect(team, tag, Instant::now() + *connect_timeout)?;
                let heartbeat = Heartbeat::over(&links, team.peer_timeout)?;
                // The heartbeats last as long as the connections.
                Ok(adapter::over_sockets(
                    links,
                    team.process,
                    *threads,
                    heartbeat,
                )?)
            }
        }
    }

    fn connect_timeout(&self) -> Duration {
        match self {
            Self::Threads(_) => Duration::from_secs(60),
            Self::Processes {
                connect_timeout, ..
            } => *connect_timeout,
        }
    }
}

/// How long a process that has its result waits for the others to end.
const SHUTDOWN: Duration = Duration::from_secs(30);

/// How to run one analysis.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Where the workers run.
    pub cluster: Cluster,
    /// How the index is cut between them.
    pub partition: Partition,
    /// The indices the census counts (cells are kept for every index).
    pub counted: Range<u64>,
    /// Where to write the solved table as shards, one per worker; needs
    /// [`Partition::Blocks`], whose parts are ranges of the index.
    pub save: Option<SaveTo>,
}

/// Where and as what the shards of a distributed analysis are written.
#[derive(Clone, Debug)]
pub struct SaveTo {
    /// The database directory (of this process's machine).
    pub dir: PathBuf,
    /// The game's full name.
    pub game: String,
    /// Its rules version.
    pub rules_version: u32,
}

impl SaveTo {
    /// The file of shard `worker` of `workers`
    /// (`NAME.shard-K-of-N.plydb`, as docs/db-format.md names shards).
    pub fn shard_path(&self, worker: usize, workers: usize) -> PathBuf {
        self.dir.join(format!(
            "{}{worker}-of-{workers}.{}",
            db::Part::Shard.prefix(&self.game),
            db::EXTENSION
        ))
    }

    /// Removes what an earlier run may have left in the directory: shards
    /// of this game cut for another number of workers (which would overlap
    /// the new ones), and temporary files of the shards that `workers`
    /// (this process's) write. Returns the files removed.
    pub fn clean(&self, mine: Range<usize>, workers: usize) -> Result<Vec<PathBuf>, DbError> {
        let prefix = db::Part::Shard.prefix(&self.game);
        let keep = format!("-of-{workers}.{}", db::EXTENSION);
        let temps: Vec<String> = mine
            .map(|w| {
                let shard = self.shard_path(w, workers);
                let file = shard.file_name().map(|n| n.to_string_lossy().into_owned());
                format!(".{}.", file.unwrap_or_default())
            })
            .collect();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(DbError::io(&self.dir, e)),
        };
        let mut removed = Vec::new();
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let stale = file.starts_with(&prefix)
                && file.ends_with(db::EXTENSION)
                && !file.ends_with(&keep);
            let half_written =
                file.ends_with(".tmp") && temps.iter().any(|t| file.starts_with(t.as_str()));
            if stale || half_written {
                match std::fs::remove_file(entry.path()) {
                    Ok(()) => removed.push(entry.path()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(DbError::io(&entry.path(), e)),
                }
            }
        }
        Ok(removed)
    }

    /// Writes the cells of `range` (`cells[i - range.start]` for index
    /// `i`) as shard `worker` of `workers`, of a game with `index_len`
    /// indices. Returns the file's size.
    fn write(
        &self,
        worker: usize,
        workers: usize,
        index_len: u64,
        range: Range<u64>,
        cells: &[Cell],
    ) -> Result<u64, DistError> {
        let path = self.shard_path(worker, workers);
        let meta = Meta {
            game: self.game.clone(),
            rules_version: self.rules_version,
            index_len,
            range: range.clone(),
            level: crate::db::codec::ZSTD_LEVEL,
        };
        let start = range.start;
        db::write_indexed(
            &path,
            &meta,
            |i| cells[(i - start) as usize],
            &crate::progress::NoProgress,
        )
        .map_err(DistError::Save)
    }
}

/// Where shard `worker` of a save lives in the index: its block.
fn block_range(layout: &Layout, worker: usize) -> Range<u64> {
    let slots = layout.slots(worker);
    if slots == 0 {
        return 0..0;
    }
    layout.index(worker, 0)..layout.index(worker, slots - 1) + 1
}

/// Totals over every worker, as process 0 reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DistStats {
    /// Workers in all.
    pub workers: usize,
    /// Positions (indices with a position) owned by each worker.
    pub worker_positions: Vec<u64>,
    /// Updates received by each worker.
    pub worker_updates: Vec<u64>,
    /// Distinct moves.
    pub moves: u64,
    /// Rounds (epochs of decisions), the same on every worker.
    pub rounds: u64,
    /// Messages sent between workers (moves and updates).
    pub messages: u64,
    /// Of those, messages to a worker in another process.
    pub remote_messages: u64,
    /// The batches the messages travelled in, one per receiving worker
    /// at a time (see the `batch` module).
    pub batches: u64,
    /// Their payload in bytes.
    pub remote_bytes: u64,
}

/// What a distributed analysis leaves in this process.
#[derive(Clone, Debug)]
pub struct DistSolution {
    layout: Layout,
    /// Cells of the workers of this process: `(worker, cells by slot)`.
    shards: Vec<(usize, Vec<Cell>)>,
    /// On process 0: the census of the counted positions of every worker.
    pub census: Option<Census<u64>>,
    /// On process 0: the fingerprint of every cell (see [`fingerprint`]).
    pub fingerprint: Option<u64>,
    /// On process 0: totals over every worker.
    pub stats: Option<DistStats>,
    /// Where positions were folded onto classes: the index of the class
    /// representative of an index (`None` where no position has it).
    representative: Option<Representative>,
}

/// The index of the class representative of an index, for a solve that
/// folded symmetric positions.
#[derive(Clone)]
struct Representative(Arc<dyn Fn(u64) -> Option<u64> + Send + Sync>);

impl std::fmt::Debug for Representative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Representative")
    }
}

impl DistSolution {
    /// The cell of `index`, if a worker of this process owns it (or, where
    /// symmetric positions were folded, the representative of its class)
    /// ([`Cell::UNKNOWN`] where no position has that index).
    pub fn cell(&self, index: u64) -> Option<Cell> {
        let index = match &self.representative {
            Some(Representative(of)) => match of(index) {
                Some(representative) => representative,
                None => return Some(Cell::UNKNOWN),
            },
            None => index,
        };
        let owner = self.layout.owner(index);
        let (_, cells) = self.shards.iter().find(|(worker, _)| *worker == owner)?;
        cells.get(self.layout.slot(index)).copied()
    }

    /// How the index was cut between the workers.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The cells of each worker of this process, by slot of the layout.
    pub fn shards(&self) -> &[(usize, Vec<Cell>)] {
        &self.shards
    }
}

/// One cell's share of a table's fingerprint: the fingerprint of a table is
/// the wrapping sum of this over its known cells, so parts of a table held
/// anywhere add up to the whole one's, and two tables with equal
/// fingerprints hold the same cells but with a chance of 2^-64.
pub fn fingerprint(index: u64, cell: Cell) -> u64 {
    let mut x = index
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(cell.bits()) << 1 | 1);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Solves every position of `game`, gathering parents from the moves.
pub fn solve<G: Indexed + Clone + 'static>(
    game: &G,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    run(game, None, children::<G, Unfolded>, None, plan, progress)
}

/// Solves every position of `game`, finding parents by un-moves.
pub fn solve_with_parents<G: Indexed + Parents + Clone + 'static>(
    game: &G,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    run(
        game,
        Some(unmoves::<G, FromUnmoves, Unfolded>),
        children::<G, Unfolded>,
        None,
        plan,
        progress,
    )
}

/// Solves every position of `game`, finding parents as its capabilities
/// allow (see [`Retrograde::Parents`]) and solving one position per
/// symmetry class where the game folds them ([`Retrograde::Folding`]),
/// unless the plan saves shards.
pub fn solve_all<G: Retrograde + Clone + 'static>(
    game: &G,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    let stored = G::Parents::STORED;
    if G::Folding::REDUCED && plan.save.is_none() {
        let unmoves = unmoves::<G, G::Parents, G::Folding> as fn(&G, u64, &mut Vec<u64>);
        let fold = Fold {
            key: fold_key::<G, G::Folding>,
            images: fold_images::<G, G::Folding>,
        };
        let children = children::<G, G::Folding>;
        run(
            game,
            (!stored).then_some(unmoves),
            children,
            Some(fold),
            plan,
            progress,
        )
    } else {
        let unmoves = unmoves::<G, G::Parents, Unfolded> as fn(&G, u64, &mut Vec<u64>);
        let children = children::<G, Unfolded>;
        run(
            game,
            (!stored).then_some(unmoves),
            children,
            None,
            plan,
            progress,
        )
    }
}

/// The distinct parents of the position with index `child` by the rule
/// `P`, in `out`, as the indices of their slots under `K`.
fn unmoves<G: Indexed, P: ParentRule<G>, K: Folding<G>>(game: &G, child: u64, out: &mut Vec<u64>) {
    out.clear();
    if let Some(position) = game.unrank(child) {
        let keys = K::default();
        P::default().for_each_parent(game, &position, |parent| out.push(keys.key(game, &parent)));
    }
    remove_duplicate_indices(out);
}

/// The distinct indices of the slots under `K` of the children of
/// `position`, in `out`.
fn children<G: Indexed, K: Folding<G>>(game: &G, position: &G::Position, out: &mut Vec<u64>) {
    out.clear();
    let keys = K::default();
    game.for_each_move(position, |_, child| out.push(keys.key(game, &child)));
    remove_duplicate_indices(out);
}

/// The index of the slot of `position` under `K`.
fn fold_key<G: Indexed, K: Folding<G>>(game: &G, position: &G::Position) -> u64 {
    K::default().key(game, position)
}

/// The distinct indices of the positions sharing the slot of `position`
/// under `K`, in `out`.
fn fold_images<G: Indexed, K: Folding<G>>(game: &G, position: &G::Position, out: &mut Vec<u64>) {
    out.clear();
    K::default().for_each_image(game, position, |image| out.push(image));
    remove_duplicate_indices(out);
}

/// How a solve that folds symmetric positions finds their classes.
struct Fold<G: Indexed> {
    /// The index of the representative of a position's class.
    key: fn(&G, &G::Position) -> u64,
    /// The distinct indices of the positions of a representative's class.
    images: fn(&G, &G::Position, &mut Vec<u64>),
}

/// What every worker needs.
struct Job<G: Indexed> {
    game: G,
    unmoves: Option<fn(&G, u64, &mut Vec<u64>)>,
    /// The distinct slots of a position's children (see [`children`]).
    children: fn(&G, &G::Position, &mut Vec<u64>),
    /// Where symmetric positions share one slot: how.
    fold: Option<Fold<G>>,
    partition: Partition,
    counted: Range<u64>,
    /// Workers per process.
    threads: usize,
    /// Where to write the shards, if anywhere.
    save: Option<SaveTo>,
}

/// What workers tell the thread that started them.
enum Event {
    /// The worker is connected and running.
    Started,
    /// The worker has set up its positions: this many.
    Seeded(u64),
    /// Work done in a phase (0: counting moves, 1: deciding).
    Advance { phase: u8, done: u64 },
    /// The worker is writing its shard.
    Saving,
    /// The worker finished.
    Done(Box<WorkerOutput>),
    /// The worker failed.
    Failed(DistError),
    /// Every worker of this process has ended and the connections are closed.
    Finished,
}

/// One worker's result.
struct WorkerOutput {
    worker: usize,
    cells: Vec<Cell>,
    /// Worker 0 only: every worker's summary.
    summaries: Vec<Summary>,
}

/// One worker's counts, sent to worker 0 at the end.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Summary {
    worker: usize,
    positions: u64,
    win: u64,
    lose: u64,
    tie: u64,
    draw: u64,
    by_remoteness: Vec<[u64; 3]>,
    longest_win: Option<(Remoteness, u64)>,
    longest_lose: Option<(Remoteness, u64)>,
    fingerprint: u64,
    owned: u64,
    moves: u64,
    rounds: u64,
    messages: u64,
    remote_messages: u64,
    batches: u64,
    remote_bytes: u64,
    received: u64,
}

impl Summary {
    fn new(
        worker: usize,
        census: Census<u64>,
        fingerprint: u64,
        stats: &worker::Stats,
        received: u64,
    ) -> Self {
        Self {
            worker,
            positions: census.positions,
            win: census.win,
            lose: census.lose,
            tie: census.tie,
            draw: census.draw,
            by_remoteness: census.by_remoteness,
            longest_win: census.longest_win,
            longest_lose: census.longest_lose,
            fingerprint,
            owned: stats.positions,
            moves: stats.moves,
            rounds: stats.rounds,
            messages: stats.messages,
            remote_messages: stats.remote_messages,
            batches: stats.batches,
            remote_bytes: stats.remote_bytes,
            received,
        }
    }

    fn census(&self) -> Census<u64> {
        Census {
            positions: self.positions,
            win: self.win,
            lose: self.lose,
            tie: self.tie,
            draw: self.draw,
            by_remoteness: self.by_remoteness.clone(),
            longest_win: self.longest_win,
            longest_lose: self.longest_lose,
        }
    }
}

/// Merges every worker's summary into the census, fingerprint and totals.
fn merge(mut summaries: Vec<Summary>) -> (Census<u64>, u64, DistStats) {
    summaries.sort_by_key(|s| s.worker);
    let mut census = Census::new();
    let mut print = 0u64;
    let mut stats = DistStats {
        workers: summaries.len(),
        ..DistStats::default()
    };
    for s in &summaries {
        census = census.merge(s.census());
        print = print.wrapping_add(s.fingerprint);
        stats.worker_positions.push(s.owned);
        stats.worker_updates.push(s.received);
        stats.moves += s.moves;
        stats.rounds = stats.rounds.max(s.rounds);
        stats.messages += s.messages;
        stats.remote_messages += s.remote_messages;
        stats.batches += s.batches;
        stats.remote_bytes += s.remote_bytes;
    }
    (census, print, stats)
}

fn run<G: Indexed + Clone + 'static>(
    game: &G,
    unmoves: Option<fn(&G, u64, &mut Vec<u64>)>,
    children: fn(&G, &G::Position, &mut Vec<u64>),
    fold: Option<Fold<G>>,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    plan.cluster.check()?;
    let len = game.index_len();
    if len >= 1 << 63 {
        return Err(DistError::Solve(SolveError::TooLarge(
            TooLarge::Positions {
                game: game.name(),
                positions: len,
                most: (1 << 63) - 1,
            },
        )));
    }
    let threads = plan.cluster.threads();
    let workers = threads * plan.cluster.processes();
    if plan.save.is_some() && plan.partition != Partition::Blocks {
        return Err(DistError::Config(
            "saving needs the blocks partition (shards are ranges of the index)".into(),
        ));
    }
    let layout = Layout::new(plan.partition, len, workers);
    let representative = fold.as_ref().map(|fold| {
        let (game, key) = (game.clone(), fold.key);
        Representative(Arc::new(move |index| {
            game.unrank(index).map(|position| key(&game, &position))
        }))
    });
    let job = Arc::new(Job {
        game: game.clone(),
        unmoves,
        children,
        fold,
        partition: plan.partition,
        counted: plan.counted.clone(),
        threads,
        save: plan.save.clone(),
    });
    // Every process must run the same analysis: the handshake compares this.
    let tag = team::tag_of(&format!(
        "{} {len} {workers} {} {} {}",
        game.name(),
        plan.partition.name(),
        plan.save.is_some(),
        job.fold.is_some()
    ));
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, events) = mpsc::channel();
    {
        let stop = stop.clone();
        let sender = sender.clone();
        let cluster = plan.cluster.clone();
        // The workers run on their own threads; this thread only listens,
        // so that a setup that never connects or a failing worker can be
        // reported without waiting for the others.
        std::thread::spawn(move || {
            let failures = sender.clone();
            let (builders, others) = match cluster.connect(tag) {
                Ok(communication) => communication,
                Err(error) => {
                    let _ = failures.send(Event::Failed(error));
                    return;
                }
            };
            let config = timely::WorkerConfig::default();
            let started = timely::execute::execute_from(builders, others, config, move |worker| {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    worker::run(worker, &job, &sender, &stop)
                }));
                let event = match result {
                    Ok(Ok(output)) => Event::Done(Box::new(output)),
                    Ok(Err(error)) => Event::Failed(error),
                    Err(panic) => Event::Failed(DistError::Failed(panic_message(&*panic))),
                };
                if matches!(event, Event::Failed(_)) {
                    stop.store(true, Ordering::Relaxed);
                }
                let _ = sender.send(event);
            });
            match started {
                Ok(guards) => {
                    // Joins the workers, which end once every process's
                    // have, then closes the connections cleanly (this
                    // panics if a network thread failed: the result is in
                    // hand by then, or its failure reported).
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        drop(guards.join())
                    }));
                    let _ = failures.send(Event::Finished);
                }
                Err(why) => {
                    let _ = failures.send(Event::Failed(DistError::Failed(why)));
                }
            }
        });
    }
    drop(sender);
    let mut solution = listen(&events, layout, threads, &plan.cluster, &stop, progress)?;
    solution.representative = representative;
    Ok(solution)
}

/// Follows the workers of this process to the end, reporting progress.
fn listen(
    events: &mpsc::Receiver<Event>,
    layout: Layout,
    threads: usize,
    cluster: &Cluster,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    let fail = |error: DistError| {
        stop.store(true, Ordering::Relaxed);
        progress.end();
        Err(error)
    };
    let local_slots: u64 = (0..threads)
        .map(|t| layout.slots(cluster.process() * threads + t) as u64)
        .sum();
    progress.begin("connecting", 0);
    let deadline = Instant::now() + cluster.connect_timeout();
    let mut started = 0;
    let mut seeded = (0, 0u64);
    let mut early = 0;
    let mut saving = 0;
    let mut outputs = Vec::new();
    while outputs.len() < threads {
        if progress.cancelled() {
            return fail(DistError::stopped());
        }
        let event = match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                // A peer gone silent shuts its sockets, which fails the
                // workers here; this ends the run even if they never see it.
                if let Some(lost) = team::lost() {
                    return fail(DistError::Team(lost));
                }
                // A backstop: connecting gives up by itself at the deadline.
                if started < threads && Instant::now() > deadline + Duration::from_secs(5) {
                    return fail(DistError::Team(TeamError::Connect(format!(
                        "not every process of {} joined within {} s (check the hosts \
                         file and that every process was started)",
                        cluster.processes(),
                        cluster.connect_timeout().as_secs()
                    ))));
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => {
                return fail(DistError::Failed(
                    "the workers ended without a result".into(),
                ));
            }
        };
        match event {
            Event::Started => {
                started += 1;
                if started == threads {
                    progress.end();
                    progress.begin("counting moves", local_slots);
                }
            }
            Event::Seeded(positions) => {
                seeded = (seeded.0 + 1, seeded.1 + positions);
                if seeded.0 == threads {
                    progress.end();
                    progress.begin("retrograde", seeded.1);
                    progress.advance(early);
                }
            }
            Event::Advance { phase: 0, done } => progress.advance(done),
            Event::Advance { done, .. } => {
                if seeded.0 == threads {
                    progress.advance(done);
                } else {
                    early += done;
                }
            }
            Event::Saving => {
                saving += 1;
                if saving == 1 {
                    progress.end();
                    progress.begin("writing shards", 0);
                }
            }
            Event::Done(output) => outputs.push(*output),
            Event::Finished => {}
            Event::Failed(error) => return fail(blame(error, team::lost())),
        }
    }
    progress.end();
    // Stay until this process's side of the computation has shut down: a
    // process leaving early would look lost to the others, which may not
    // have seen the last round end yet.
    let until = Instant::now() + SHUTDOWN;
    while let Ok(event) = events.recv_timeout(until.saturating_duration_since(Instant::now())) {
        if matches!(event, Event::Finished) {
            break;
        }
    }
    outputs.sort_by_key(|o| o.worker);
    let summaries: Vec<Summary> = outputs
        .iter_mut()
        .flat_map(|o| std::mem::take(&mut o.summaries))
        .collect();
    let (census, fingerprint, stats) = if summaries.is_empty() {
        (None, None, None)
    } else {
        let (census, print, stats) = merge(summaries);
        (Some(census), Some(print), Some(stats))
    };
    Ok(DistSolution {
        layout,
        shards: outputs.into_iter().map(|o| (o.worker, o.cells)).collect(),
        census,
        fingerprint,
        stats,
        representative: None,
    })
}

/// What a failed worker's `error` is to the command: a lost peer
/// (`lost`, if the team knows of one) makes the workers here fail or stop
/// too, so their failure is that loss; any other error stays itself.
fn blame(error: DistError, lost: Option<TeamError>) -> DistError {
    match (error, lost) {
        (DistError::Failed(_) | DistError::Solve(SolveError::Cancelled(_)), Some(lost)) => {
            DistError::Team(lost)
        }
        (error, _) => error,
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a worker panicked".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost() -> TeamError {
        TeamError::Lost {
            process: 2,
            host: Some("c:3".into()),
            why: "no heartbeat for 3 s".into(),
        }
    }

    #[test]
    fn a_worker_failing_after_a_lost_peer_reports_the_peer() {
        for error in [
            DistError::Failed("reading data".into()),
            DistError::stopped(),
        ] {
            let blamed = blame(error, Some(lost()));
            let DistError::Team(TeamError::Lost { process, host, .. }) = &blamed else {
                panic!("not the lost peer: {blamed}");
            };
            assert_eq!((*process, host.as_deref()), (2, Some("c:3")));
            assert_eq!(
                blamed.to_string(),
                "lost process 2 (c:3): no heartbeat for 3 s"
            );
        }
        // Without a loss, or for an error of its own, a worker's error stays.
        let alone = blame(DistError::Failed("a worker panicked".into()), None);
        assert!(matches!(alone, DistError::Failed(_)), "{alone}");
        let own = blame(
            DistError::Save(DbError::io(
                std::path::Path::new("/x/g.plydb"),
                std::io::Error::other("full"),
            )),
            Some(lost()),
        );
        assert!(matches!(own, DistError::Save(_)), "{own}");
    }
}
