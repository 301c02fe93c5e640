//! `ply analyze GAME --workers N [--processes P --process I --hosts FILE]`:
//! the whole game solved by distributed retrograde analysis
//! ([`ply_core::dist`]), on worker threads or on several processes.

use crate::error::PlyError;
use crate::report::AnalyzeReport;
use crate::session::store::Store;
use ply_core::dist::{self, Cluster, DistError, DistSolution, Partition, Plan, SaveTo};
use ply_core::team::Team;
use ply_core::{Indexed, Progress, Retrograde};
use serde_json::json;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;

/// How long a process waits for every other one to connect.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Worker threads one process may run per core of its machine: more only
/// adds buffers (timely keeps one from every worker to every other).
pub const WORKERS_PER_CORE: usize = 8;

/// The most workers one analysis takes, over all its processes: timely's
/// buffers between workers grow as their count squared (2,048 workers in
/// one process took 11.7 GB).
pub const MAX_WORKERS: usize = 256;

/// The most worker threads this process may run: [`WORKERS_PER_CORE`] per
/// core, within [`MAX_WORKERS`].
pub fn most_workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    (cores * WORKERS_PER_CORE).min(MAX_WORKERS)
}

/// A game that distributed retrograde analysis can solve whole.
pub trait Distributed: Send + Sync {
    /// The game's full name.
    fn name(&self) -> String;
    /// The rules version its databases carry.
    fn rules_version(&self) -> u32;
    /// Solves it under `plan`.
    fn solve(&self, plan: &Plan, progress: &dyn Progress) -> Result<DistSolution, DistError>;
    /// The indices `ply analyze` counts, and what they are.
    fn counted(&self) -> (Range<u64>, &'static str);
    /// The position with index `index`, as text.
    fn format(&self, index: u64) -> String;
}

/// Any game retrograde analysis solves whole ([`Retrograde`]), with parents
/// found as its capabilities allow.
pub struct Whole<G>(pub G);

impl<G: Retrograde + Clone + 'static> Distributed for Whole<G> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn rules_version(&self) -> u32 {
        self.0.rules_version()
    }
    fn solve(&self, plan: &Plan, progress: &dyn Progress) -> Result<DistSolution, DistError> {
        dist::solve_all(&self.0, plan, progress)
    }
    fn counted(&self) -> (Range<u64>, &'static str) {
        self.0.counted()
    }
    fn format(&self, index: u64) -> String {
        format_index(&self.0, index)
    }
}

fn format_index<G: Indexed>(game: &G, index: u64) -> String {
    game.unrank(index)
        .map(|p| game.format_position(&p))
        .unwrap_or_default()
}

/// Where the workers of `ply analyze` run, from its options.
pub fn cluster(
    workers: Option<usize>,
    processes: Option<usize>,
    process: Option<usize>,
    hosts: Option<&Path>,
) -> Result<Cluster, PlyError> {
    let threads = workers.unwrap_or(1);
    if threads == 0 {
        return Err(PlyError::argument("--workers must be at least 1"));
    }
    let most = most_workers();
    if threads > most {
        return Err(PlyError::argument(format!(
            "--workers {threads} is more than this machine runs usefully: at most {most} \
             ({WORKERS_PER_CORE} per core); each worker keeps buffers to every other one"
        )));
    }
    if let Some(processes) = processes
        && processes.saturating_mul(threads) > MAX_WORKERS
    {
        return Err(PlyError::argument(format!(
            "--processes {processes} with --workers {threads} makes {} workers; at most \
             {MAX_WORKERS} take part in one analysis (their buffers grow as workers squared)",
            processes.saturating_mul(threads)
        )));
    }
    match (processes, process, hosts) {
        (None, None, None) => Ok(Cluster::Threads(threads)),
        (Some(processes), Some(process), Some(hosts)) => {
            let hosts = read_hosts(hosts, processes, process)?;
            let team = Team::on_hosts(hosts, process, dist::PEER_TIMEOUT)
                .map_err(|e| PlyError::argument(format!("--hosts: {e}")))?;
            Ok(Cluster::Processes {
                threads,
                team,
                connect_timeout: CONNECT_TIMEOUT,
            })
        }
        _ => Err(PlyError::argument(
            "--processes, --process and --hosts go together",
        )),
    }
}

/// The `host:port` lines of the hosts file at `path` (blank lines left
/// out), checked against `--processes` and `--process`.
pub fn read_hosts(path: &Path, processes: usize, process: usize) -> Result<Vec<String>, PlyError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        PlyError::argument(format!("cannot read hosts file {}: {e}", path.display()))
    })?;
    let hosts: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    if hosts.len() != processes {
        return Err(PlyError::argument(format!(
            "--processes {processes} but the hosts file lists {} hosts",
            hosts.len()
        )));
    }
    if process >= processes {
        return Err(PlyError::argument(format!(
            "--process {process} must be below --processes {processes}"
        )));
    }
    Ok(hosts)
}

/// Solves `game` on `cluster`, with `save` writing this process's shards
/// of the database into that store; process 0 returns the report, the
/// others `None`.
pub fn analyze(
    game: &dyn Distributed,
    cluster: Cluster,
    save: Option<&Store>,
    progress: &dyn Progress,
) -> Result<Option<AnalyzeReport>, PlyError> {
    let (counted, what) = game.counted();
    let processes = cluster.processes();
    let threads = cluster.threads();
    let workers = processes * threads;
    let save = match save {
        Some(store) => {
            store.create()?;
            let to = SaveTo {
                dir: store.dir.clone(),
                game: game.name(),
                rules_version: game.rules_version(),
            };
            // Shards cut for another number of workers, and temporary files
            // a killed run left, would spoil the new set.
            let mine = cluster.process() * threads..(cluster.process() + 1) * threads;
            to.clean(mine, workers)?;
            Some(to)
        }
        None => None,
    };
    let plan = Plan {
        cluster,
        // Shards are ranges of the index; strided parts balance better.
        partition: if save.is_some() {
            Partition::Blocks
        } else {
            Partition::default()
        },
        counted,
        save: save.clone(),
    };
    let solution = game.solve(&plan, progress).map_err(|e| match e {
        DistError::Solve(e) => PlyError::solve(game.name(), e),
        e => PlyError::argument(format!("{}: {e}", game.name())),
    })?;
    let (Some(census), Some(print), Some(stats)) =
        (solution.census, solution.fingerprint, solution.stats)
    else {
        return Ok(None);
    };
    let census = census.map_examples(|index| game.format(index));
    let mut report = AnalyzeReport::from_census(game.name(), census);
    let most = stats.worker_positions.iter().max().copied().unwrap_or(0);
    let total: u64 = stats.worker_positions.iter().sum();
    report.extra.extend([
        ("counted".into(), json!(what)),
        ("processes".into(), json!(processes)),
        ("workers".into(), json!(workers)),
        ("partition".into(), json!(plan.partition.name())),
        ("moves".into(), json!(stats.moves)),
        ("rounds".into(), json!(stats.rounds)),
        ("messages".into(), json!(stats.messages)),
        ("remote_messages".into(), json!(stats.remote_messages)),
        ("batches".into(), json!(stats.batches)),
        (
            "batches_per_round".into(),
            json!(hundredths(
                stats.batches as f64 / stats.rounds.max(1) as f64
            )),
        ),
        ("bytes_exchanged".into(), json!(stats.remote_bytes)),
        (
            "bytes_per_position".into(),
            json!(hundredths(stats.remote_bytes as f64 / total.max(1) as f64)),
        ),
        (
            "largest_part".into(),
            json!(most as f64 * stats.workers as f64 / total.max(1) as f64),
        ),
        ("cells_fingerprint".into(), json!(format!("{print:016x}"))),
    ]);
    if let Some(to) = save {
        let pattern = to.shard_path(0, workers);
        let pattern = pattern.to_string_lossy().replacen(
            &format!("shard-0-of-{workers}"),
            &format!("shard-*-of-{workers}"),
            1,
        );
        report.extra.insert("saved".into(), json!(pattern));
        report.extra.insert("saved_shards".into(), json!(workers));
    }
    Ok(Some(report))
}

/// `x` rounded to two decimals, for a report.
fn hundredths(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
