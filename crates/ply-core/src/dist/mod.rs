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
//! Faults: a process that cannot reach the others within the connection
//! timeout, or that loses a peer (whose sockets close when it dies), ends
//! with an error; nothing waits forever.

mod partition;
mod worker;

pub use partition::{Layout, Partition};

use crate::census::Census;
use crate::game::{Indexed, Parents};
use crate::progress::Progress;
use crate::value::{Cell, Remoteness};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Why a distributed analysis could not run to the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DistError {
    /// The workers, processes or hosts given do not make a cluster.
    Config(String),
    /// This process could not reach every other one in time.
    Connect(String),
    /// A worker failed, most often because a peer process died.
    Failed(String),
    /// The game does not fit the tables.
    TooLarge(String),
    /// Some remoteness does not fit a table cell.
    RemotenessOverflow,
    /// The analysis was cancelled, here or by a failing worker.
    Stopped,
}

impl std::fmt::Display for DistError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Config(why) | Self::TooLarge(why) => f.write_str(why),
            Self::Connect(why) => write!(f, "cannot connect the processes: {why}"),
            Self::Failed(why) => write!(f, "a worker failed: {why}"),
            Self::RemotenessOverflow => write!(
                f,
                "a remoteness exceeds {}, the most a table cell holds",
                Cell::MAX_REMOTENESS
            ),
            Self::Stopped => f.write_str("the analysis was stopped"),
        }
    }
}

impl std::error::Error for DistError {}

/// Where the workers run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cluster {
    /// This many worker threads in this process alone.
    Threads(usize),
    /// One of several processes, connected over TCP.
    Processes {
        /// Worker threads in each process.
        threads: usize,
        /// Which process this one is, from 0.
        process: usize,
        /// `host:port` of every process, in order.
        hosts: Vec<String>,
        /// How long to wait for every process to connect.
        connect_timeout: Duration,
    },
}

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
            Self::Processes { process, .. } => *process,
        }
    }

    /// How many processes take part.
    pub fn processes(&self) -> usize {
        match self {
            Self::Threads(_) => 1,
            Self::Processes { hosts, .. } => hosts.len(),
        }
    }

    fn check(&self) -> Result<(), DistError> {
        if self.threads() == 0 {
            return Err(DistError::Config("at least one worker is needed".into()));
        }
        if let Self::Processes { process, hosts, .. } = self {
            if hosts.is_empty() {
                return Err(DistError::Config("the hosts list is empty".into()));
            }
            if *process >= hosts.len() {
                return Err(DistError::Config(format!(
                    "process {process} is not among the {} processes (0..{})",
                    hosts.len(),
                    hosts.len()
                )));
            }
        }
        Ok(())
    }

    fn timely_config(&self) -> timely::Config {
        match self {
            Self::Threads(threads) => timely::Config::process(*threads),
            Self::Processes {
                threads,
                process,
                hosts,
                ..
            } => timely::Config {
                communication: timely::CommunicationConfig::Cluster {
                    threads: *threads,
                    process: *process,
                    addresses: hosts.clone(),
                    report: false,
                    zerocopy: false,
                    log_fn: Arc::new(|_| None),
                },
                worker: timely::WorkerConfig::default(),
            },
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

/// How to run one analysis.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Where the workers run.
    pub cluster: Cluster,
    /// How the index is cut between them.
    pub partition: Partition,
    /// The indices the census counts (cells are kept for every index).
    pub counted: Range<u64>,
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
}

impl DistSolution {
    /// The cell of `index`, if a worker of this process owns it
    /// ([`Cell::UNKNOWN`] where no position has that index).
    pub fn cell(&self, index: u64) -> Option<Cell> {
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
    run(game, None, plan, progress)
}

/// Solves every position of `game`, finding parents by un-moves.
pub fn solve_with_parents<G: Indexed + Parents + Clone + 'static>(
    game: &G,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    run(game, Some(unmoves::<G>), plan, progress)
}

/// The distinct parents of the position with index `child`, in `out`.
fn unmoves<G: Indexed + Parents>(game: &G, child: u64, out: &mut Vec<u64>) {
    out.clear();
    if let Some(position) = game.unrank(child) {
        game.for_each_parent(&position, |parent| out.push(game.rank(&parent)));
    }
    out.sort_unstable();
    out.dedup();
}

/// What every worker needs.
struct Job<G> {
    game: G,
    unmoves: Option<fn(&G, u64, &mut Vec<u64>)>,
    partition: Partition,
    counted: Range<u64>,
    /// Workers per process.
    threads: usize,
}

/// What workers tell the thread that started them.
enum Event {
    /// The worker is connected and running.
    Started,
    /// The worker has set up its positions: this many.
    Seeded(u64),
    /// Work done in a phase (0: counting moves, 1: deciding).
    Advance { phase: u8, done: u64 },
    /// The worker finished.
    Done(Box<WorkerOutput>),
    /// The worker failed.
    Failed(DistError),
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
        stats.remote_bytes += s.remote_bytes;
    }
    (census, print, stats)
}

fn run<G: Indexed + Clone + 'static>(
    game: &G,
    unmoves: Option<fn(&G, u64, &mut Vec<u64>)>,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<DistSolution, DistError> {
    plan.cluster.check()?;
    let len = game.index_len();
    if len >= 1 << 63 {
        return Err(DistError::TooLarge(format!(
            "{} has {len} positions; distributed analysis handles fewer than 2^63",
            game.name()
        )));
    }
    let threads = plan.cluster.threads();
    let workers = threads * plan.cluster.processes();
    let layout = Layout::new(plan.partition, len, workers);
    let job = Arc::new(Job {
        game: game.clone(),
        unmoves,
        partition: plan.partition,
        counted: plan.counted.clone(),
        threads,
    });
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, events) = mpsc::channel();
    let config = plan.cluster.timely_config();
    {
        let stop = stop.clone();
        let sender = sender.clone();
        // The workers run on their own threads; this thread only listens,
        // so that a setup that never connects or a failing worker can be
        // reported without waiting for the others.
        std::thread::spawn(move || {
            let failures = sender.clone();
            let started = timely::execute(config, move |worker| {
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
                Ok(guards) => drop(guards.join()),
                Err(why) => {
                    let _ = failures.send(Event::Failed(DistError::Connect(why)));
                }
            }
        });
    }
    drop(sender);
    listen(&events, layout, threads, &plan.cluster, &stop, progress)
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
    let mut outputs = Vec::new();
    while outputs.len() < threads {
        if progress.cancelled() {
            return fail(DistError::Stopped);
        }
        let event = match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                if started < threads && Instant::now() > deadline {
                    return fail(DistError::Connect(format!(
                        "not every process of {} joined within {} s (check the hosts \
                         file and that every process was started)",
                        cluster.processes(),
                        cluster.connect_timeout().as_secs()
                    )));
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
            Event::Done(output) => outputs.push(*output),
            Event::Failed(error) => return fail(error),
        }
    }
    progress.end();
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
    })
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a worker panicked".into())
}
