//! Solving tiers at the same time: a build alone starts every tier whose
//! child tiers are done, in solving order, while the memory the running tiers
//! need together stays within the budget (one always runs), each on its
//! own thread with rayon inside. The first error wins: the other running
//! tiers are asked to stop, and none is started after it.

use super::TierError;
use super::build::{Job, Run};
use crate::game::Tiers;
use crate::progress::Progress;
use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// What bounds the tiers solved at the same time.
pub(super) struct Limits {
    /// The memory the running tiers may need together, in bytes; `None`
    /// if unknown, and then one tier runs at a time.
    pub budget: Option<u64>,
    /// The most tiers running at once (at least 1).
    pub most: usize,
    /// The most tiers started in this run.
    pub stop_after: Option<usize>,
}

/// Solves the unfinished tiers of `mine` (every tier of `plan`, its
/// children among them), marking each in `done` as its shard is written.
pub(super) fn solve<G: Tiers>(
    job: &Job<'_, G>,
    mine: &[usize],
    done: &mut [bool],
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Run, TierError> {
    let plan = job.plan;
    let mut ready = Ready::new(job, mine, done)?;
    let whole = limits.most > 1 && !ready.todo.is_empty();
    if whole {
        let (tiers, positions) = ready
            .todo
            .iter()
            .fold((0, 0), |(n, p), &i| (n + 1, p + plan.steps[i].size()));
        progress.begin(&format!("{tiers} tiers"), positions);
    }
    let stop = AtomicBool::new(false);
    let tier_progress = TierProgress {
        inner: progress,
        stop: &stop,
        phases: limits.most == 1,
    };
    let mut run = Run {
        solved: 0,
        at_once: 0,
        at_once_bytes: 0,
    };
    let mut first: Option<Failure> = None;
    std::thread::scope(|scope| {
        let (sender, finished) = mpsc::channel::<(usize, Outcome)>();
        let (mut running, mut bytes, mut started) = (0usize, 0u64, 0usize);
        loop {
            while first.is_none()
                && running < limits.most
                && limits.stop_after.is_none_or(|most| started < most)
            {
                let room = match limits.budget {
                    Some(budget) if running > 0 => budget.saturating_sub(bytes),
                    _ if running > 0 => 0,
                    _ => u64::MAX,
                };
                let Some(i) = ready.take(|i| plan.bytes_needed(&plan.steps[i]) <= room) else {
                    break;
                };
                if progress.cancelled() {
                    first = Some(Failure::Error(TierError::Cancelled));
                    break;
                }
                running += 1;
                started += 1;
                bytes += plan.bytes_needed(&plan.steps[i]);
                run.at_once = run.at_once.max(running);
                run.at_once_bytes = run.at_once_bytes.max(bytes);
                let (sender, tier_progress) = (sender.clone(), &tier_progress);
                scope.spawn(move || {
                    let step = &plan.steps[i];
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        job.solve(step, tier_progress)
                    }));
                    // The receiver lives until every started tier reported.
                    let _ = sender.send((i, outcome));
                });
            }
            if running == 0 {
                break;
            }
            let Ok((i, outcome)) = finished.recv() else {
                break;
            };
            running -= 1;
            bytes -= plan.bytes_needed(&plan.steps[i]);
            match outcome {
                Ok(Ok(())) => {
                    done[i] = true;
                    run.solved += 1;
                    ready.finished(i);
                    if whole {
                        progress.advance(plan.steps[i].size());
                    }
                }
                Ok(Err(error)) => {
                    stop.store(true, Ordering::Relaxed);
                    first.get_or_insert(Failure::Error(error));
                }
                Err(panic) => {
                    stop.store(true, Ordering::Relaxed);
                    if !matches!(first, Some(Failure::Panic(_))) {
                        first = Some(Failure::Panic(panic));
                    }
                }
            }
        }
    });
    if whole {
        progress.end();
    }
    match first {
        None => Ok(run),
        Some(Failure::Error(error)) => Err(error),
        Some(Failure::Panic(panic)) => std::panic::resume_unwind(panic),
    }
}

/// How a tier's solve ended: its result, or the panic that ended it.
type Outcome = std::thread::Result<Result<(), TierError>>;

/// Why a build stops: the first error, or a panic (a broken promise of
/// the game), passed on once every running tier has stopped.
enum Failure {
    Error(TierError),
    Panic(Box<dyn Any + Send>),
}

/// The unfinished tiers, and which of them have every child tier done.
struct Ready {
    /// The unfinished tiers, as positions in the plan's steps, in the order
    /// they are to be solved (children first).
    todo: Vec<usize>,
    /// Of those, the tiers whose children are all done and not yet started.
    ready: Vec<usize>,
    /// By step, its child tiers not yet done.
    waiting: Vec<usize>,
    /// By step, the unfinished tiers it is a child tier of.
    parents: Vec<Vec<usize>>,
    /// By step, its place in `todo`.
    rank: Vec<usize>,
}

impl Ready {
    fn new<G: Tiers>(job: &Job<'_, G>, mine: &[usize], done: &[bool]) -> Result<Ready, TierError> {
        let plan = job.plan;
        let todo: Vec<usize> = mine.iter().copied().filter(|&i| !done[i]).collect();
        let mut waiting = vec![0; plan.steps.len()];
        let mut parents = vec![Vec::new(); plan.steps.len()];
        for &i in &todo {
            for &tier in &plan.steps[i].children {
                let at = job.position_of(tier)?;
                if !done[at] {
                    waiting[i] += 1;
                    parents[at].push(i);
                }
            }
        }
        let ready = todo.iter().copied().filter(|&i| waiting[i] == 0).collect();
        let mut rank = vec![usize::MAX; plan.steps.len()];
        for (place, &i) in todo.iter().enumerate() {
            rank[i] = place;
        }
        Ok(Ready {
            todo,
            ready,
            waiting,
            parents,
            rank,
        })
    }

    /// The first ready tier in solving order that `fits`, taken out of the
    /// ready ones.
    fn take(&mut self, fits: impl Fn(usize) -> bool) -> Option<usize> {
        let at = self.ready.iter().position(|&i| fits(i))?;
        Some(self.ready.remove(at))
    }

    /// Tier `i` is done: the tiers waiting only for it become ready, in
    /// solving order among the others.
    fn finished(&mut self, i: usize) {
        for parent in std::mem::take(&mut self.parents[i]) {
            self.waiting[parent] -= 1;
            if self.waiting[parent] == 0 {
                let rank = &self.rank;
                let at = self.ready.partition_point(|&r| rank[r] < rank[parent]);
                self.ready.insert(at, parent);
            }
        }
    }
}

/// The progress a tier's solve reports to: notes pass on; its phases pass
/// on only when tiers are solved one at a time; it is cancelled when the
/// build is, or once another tier failed.
struct TierProgress<'a> {
    inner: &'a dyn Progress,
    stop: &'a AtomicBool,
    phases: bool,
}

impl Progress for TierProgress<'_> {
    fn begin(&self, phase: &str, total: u64) {
        if self.phases {
            self.inner.begin(phase, total);
        }
    }

    fn advance(&self, done: u64) {
        if self.phases {
            self.inner.advance(done);
        }
    }

    fn end(&self) {
        if self.phases {
            self.inner.end();
        }
    }

    fn note(&self, line: &str) {
        self.inner.note(line);
    }

    fn cancelled(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.inner.cancelled()
    }
}
