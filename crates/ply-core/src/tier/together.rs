//! Solving tiers at the same time: a build alone starts every tier whose
//! child tiers are done, in solving order, while the memory the running tiers
//! need together stays within the budget (one always runs), each a job of
//! the caller's rayon pool with rayon inside. The first error wins: the other running
//! tiers are asked to stop, and none is started after it.

use super::TierError;
use super::job::{Job, Run};
use crate::game::NamedTiers;
use crate::progress::Progress;
use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// What bounds the tiers solved at the same time.
pub(super) struct Limits {
    /// The memory budget the build was given: a tier needing more, its
    /// child tiers' cell widths known, fails the build.
    pub memory: Option<u64>,
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
/// The tiers run as jobs of the caller's rayon pool.
pub(super) fn solve<G: NamedTiers>(
    job: &Job<'_, G>,
    mine: &[usize],
    done: &mut [bool],
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Run, TierError> {
    let plan = job.plan;
    let ready = Ready::new(job, mine, done, limits.memory)?;
    let whole = limits.most > 1 && !ready.todo.is_empty();
    if whole {
        let (tiers, positions) = ready
            .todo
            .iter()
            .fold((0, 0), |(n, p), &i| (n + 1, p + plan.steps[i].size()));
        progress.begin(&format!("{tiers} tiers"), positions);
    }
    let stop = AtomicBool::new(false);
    let together = Together {
        job,
        limits,
        progress,
        whole,
        tier_progress: TierProgress {
            inner: progress,
            stop: &stop,
            phases: limits.most == 1,
        },
        state: Mutex::new(State {
            ready,
            done,
            running: 0,
            bytes: 0,
            started: 0,
            first: None,
            run: Run {
                solved: 0,
                slices: 0,
                at_once: 0,
                at_once_bytes: 0,
            },
        }),
    };
    rayon::in_place_scope(|scope| together.start(scope, &mut together.lock()));
    if whole {
        progress.end();
    }
    let state = together
        .state
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match state.first {
        None => Ok(state.run),
        Some(Failure::Error(error)) => Err(error),
        Some(Failure::Panic(panic)) => std::panic::resume_unwind(panic),
    }
}

/// A build's tiers being solved at the same time.
struct Together<'a, G: NamedTiers> {
    job: &'a Job<'a, G>,
    limits: &'a Limits,
    /// The build's progress: one phase over every tier when `whole`.
    progress: &'a dyn Progress,
    whole: bool,
    /// The progress each tier's solve reports to.
    tier_progress: TierProgress<'a>,
    state: Mutex<State<'a>>,
}

/// What is solved, running and waiting.
struct State<'a> {
    ready: Ready,
    /// By step, whether its shard is written.
    done: &'a mut [bool],
    /// Tiers running, and the memory they need together.
    running: usize,
    bytes: u64,
    /// Tiers started in this run.
    started: usize,
    /// Why the build stops, once a tier failed or the build is cancelled.
    first: Option<Failure>,
    run: Run,
}

impl<'a, G: NamedTiers> Together<'a, G> {
    fn lock(&self) -> MutexGuard<'_, State<'a>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts ready tiers, in solving order, while they fit: fewer than
    /// the most running, within the budget (one always may run), until
    /// the build stops.
    fn start<'s>(&'s self, scope: &rayon::Scope<'s>, state: &mut State<'a>) {
        let plan = self.job.plan;
        while state.first.is_none()
            && state.running < self.limits.most
            && self
                .limits
                .stop_after
                .is_none_or(|most| state.started < most)
        {
            let room = match self.limits.budget {
                _ if state.running == 0 => u64::MAX,
                Some(budget) => budget.saturating_sub(state.bytes),
                None => 0,
            };
            let Some((i, needed)) = state.ready.take(room) else {
                return;
            };
            if self.progress.cancelled() {
                state.first = Some(Failure::Error(TierError::Cancelled));
                return;
            }
            state.running += 1;
            state.started += 1;
            state.bytes += needed;
            state.run.at_once = state.run.at_once.max(state.running);
            state.run.at_once_bytes = state.run.at_once_bytes.max(state.bytes);
            scope.spawn(move |scope| {
                let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    self.job.solve(&plan.steps[i], &self.tier_progress)
                }));
                let mut state = self.lock();
                self.finished(&mut state, i, needed, outcome);
                self.start(scope, &mut state);
            });
        }
    }

    /// Tier `i`, which needed `needed` bytes, ended with `outcome`: done,
    /// or the build stops (the first
    /// error or panic wins, and the running tiers are asked to stop).
    fn finished(&self, state: &mut State<'a>, i: usize, needed: u64, outcome: Outcome) {
        let step = &self.job.plan.steps[i];
        state.running -= 1;
        state.bytes -= needed;
        let failure = match outcome {
            Ok(Ok(())) => {
                state.done[i] = true;
                state.run.solved += 1;
                if self.whole {
                    self.progress.advance(step.size());
                }
                match state.ready.finished(self.job, i, self.limits.memory) {
                    Ok(()) => return,
                    Err(error) => Failure::Error(error),
                }
            }
            Ok(Err(error)) => Failure::Error(error),
            Err(panic) => Failure::Panic(panic),
        };
        self.tier_progress.stop.store(true, Ordering::Relaxed);
        // A panic (a bug) is passed on even after an error.
        let panic = matches!(failure, Failure::Panic(_));
        if !matches!(state.first, Some(Failure::Panic(_))) && (panic || state.first.is_none()) {
            state.first = Some(failure);
        }
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
    /// By step, the memory it needs, once it is ready (its child tiers'
    /// cell widths are read from their shards).
    needs: Vec<u64>,
}

impl Ready {
    /// The unfinished tiers of `mine`; fails if a ready one needs more
    /// than `memory`.
    fn new<G: NamedTiers>(
        job: &Job<'_, G>,
        mine: &[usize],
        done: &[bool],
        memory: Option<u64>,
    ) -> Result<Ready, TierError> {
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
        let ready: Vec<usize> = todo.iter().copied().filter(|&i| waiting[i] == 0).collect();
        let mut needs = vec![0; plan.steps.len()];
        for &i in &ready {
            needs[i] = job.bytes_needed(&plan.steps[i], memory)?;
        }
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
            needs,
        })
    }

    /// The first ready tier in solving order needing at most `room`
    /// bytes, taken out of the ready ones, with the bytes it needs.
    fn take(&mut self, room: u64) -> Option<(usize, u64)> {
        let at = self.ready.iter().position(|&i| self.needs[i] <= room)?;
        let i = self.ready.remove(at);
        Some((i, self.needs[i]))
    }

    /// Tier `i` is done: the tiers waiting only for it become ready, in
    /// solving order among the others. Fails if one of them needs more
    /// than `memory`.
    fn finished<G: NamedTiers>(
        &mut self,
        job: &Job<'_, G>,
        i: usize,
        memory: Option<u64>,
    ) -> Result<(), TierError> {
        for parent in std::mem::take(&mut self.parents[i]) {
            self.waiting[parent] -= 1;
            if self.waiting[parent] == 0 {
                self.needs[parent] = job.bytes_needed(&job.plan.steps[parent], memory)?;
                let rank = &self.rank;
                let at = self.ready.partition_point(|&r| rank[r] < rank[parent]);
                self.ready.insert(at, parent);
            }
        }
        Ok(())
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
