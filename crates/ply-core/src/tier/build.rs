//! Builds a game's database tier by tier: refuses a memory budget too
//! small before any work, keeps the tiers a killed build finished, and
//! solves the rest children first, writing each as its shard at once;
//! alone, or as one process of a team sharing the directory.

use super::TierError;
use super::cells::Cells;
use super::deal;
use super::peers::{Heartbeat, Team, Watch};
use super::plan::{Plan, Step};
use super::restore;
use super::shard::Shards;
use super::solve::{BYTES_PER_POSITION, ChildCells, solve_slice, solve_tier};
use super::together::{self, Limits};
use crate::db::Expect;
use crate::game::Tiers;
use crate::limits;
use crate::progress::Progress;
use crate::solution::Solution;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// How a tiered build runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The directory the tier shards are written to (and found in).
    pub dir: PathBuf,
    /// The most memory the tiers solved at the same time may use
    /// together, in bytes (a tier needing more alone is refused before
    /// any work); `None` for what the system has free.
    pub memory: Option<u64>,
    /// Stop once this many tiers were solved in this run (the rest are
    /// left for a later run).
    pub stop_after: Option<usize>,
    /// This process's place in a team of processes building the tiers
    /// together in `dir`; `None` for a build alone.
    pub team: Option<Team>,
    /// The most tiers a build alone solves at the same time (each only
    /// once its child tiers are done, and all of them within the memory
    /// budget); `None` for as many as rayon has threads. With 1, each
    /// tier's phases reach the progress reporter as they happen; with
    /// more, the build is one phase advancing by each solved tier's
    /// positions. A team's process solves its tiers one at a time.
    pub at_once: Option<usize>,
    /// In a team, the fewest indices a tier every move leaves
    /// ([`Tiers::leaves_tier`]) has for its indices to be cut between the
    /// processes, each solving a slice; `None` for [`CUT_FROM`].
    pub cut_from: Option<u64>,
    /// Whether such a tier is cut even where it is solved a working cell
    /// per symmetry class ([`super::solve::working_bytes`]). A slice
    /// solves every index of its range, so a cut tier does each class's
    /// work once per position in it, and every process holds the child
    /// tiers' cells: by default such a tier goes whole to one process.
    pub cut_classes: bool,
    /// Whether shards are written as drafts, fast and larger
    /// ([`Shards::drafts`]), for a caller that rewrites them all smaller
    /// once every tier is solved.
    pub drafts: bool,
}

/// The fewest indices of a tier a team cuts between its processes: below
/// it, a slice's files and waits cost more than the time they save.
pub const CUT_FROM: u64 = 1 << 16;

/// What a build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// Canonical tiers in the game.
    pub tiers: usize,
    /// Canonical tiers this process solves: all of them, unless in a team.
    pub owned: usize,
    /// Of those, tiers found finished by an earlier run.
    pub found_done: usize,
    /// Of those, tiers whose shard was taken from the game's counterpart
    /// ([`Tiers::counterpart`]) in this run.
    pub taken: usize,
    /// Of those, tiers solved in this run.
    pub solved: usize,
    /// Slices of tiers cut between a team's processes ([`Options::cut_from`])
    /// this process solved in this run.
    pub slices: usize,
    /// Shards found unsound and discarded, with the reason.
    pub discarded: Vec<String>,
    /// The most memory one tier's solve needed, in bytes.
    pub peak_bytes: u64,
    /// The most tiers this run solved at the same time.
    pub at_once: usize,
    /// The most memory the tiers this run solved at the same time needed
    /// together, in bytes.
    pub at_once_bytes: u64,
}

impl Built {
    /// Whether every tier this process solves is solved.
    pub fn complete(&self) -> bool {
        self.found_done + self.taken + self.solved == self.owned
    }
}

/// Takes, for each tier of `mine` not `done`, the shard of the game's
/// counterpart ([`Tiers::counterpart`]) in `dir` if it has one, sound and
/// over the tier's keys: written again as this game's shard, the tier is
/// done. A shard leaving out a side's remoteness is not taken here but
/// returned, by step, to be taken in its turn ([`Job::solve`]), once its
/// child tiers are solved and its left-out cells can be found again from
/// theirs. Returns how many it took, and those.
fn adopt<G: Tiers>(
    game: &G,
    plan: &Plan<G::Tier>,
    shards: &Shards,
    (mine, done): (&[usize], &mut [bool]),
    dir: &Path,
    progress: &dyn Progress,
) -> Result<(usize, Vec<Option<Shards>>), TierError> {
    let mut taken = 0;
    let mut later: Vec<Option<Shards>> = plan.steps.iter().map(|_| None).collect();
    for &i in mine {
        let step = &plan.steps[i];
        let Some((name, rules_version)) = game.counterpart(step.tier).filter(|_| !done[i]) else {
            continue;
        };
        let theirs = Shards::new(
            dir,
            Expect {
                game: name.clone(),
                rules_version,
            },
        );
        if !theirs.path(&step.name).exists() {
            continue;
        }
        match theirs.open_sound_keys(step) {
            Ok((db, None)) => {
                shards.adopt(plan, step, &db, progress)?;
                done[i] = true;
                taken += 1;
                progress.note(&format!("tier {}: {name}'s shard taken", step.name));
            }
            Ok((_, Some(side))) => {
                progress.note(&format!(
                    "tier {}: {name}'s shard to be taken once its child tiers are solved, \
                     the remoteness of every {side:?} it leaves out found again from theirs",
                    step.name
                ));
                later[i] = Some(theirs);
            }
            Err(why) => progress.note(&format!(
                "tier {}: {name}'s shard not taken: {why}",
                step.name
            )),
        }
    }
    Ok((taken, later))
}

/// Solves every tier of `game` that `dir` holds no sound shard of, children
/// first, each written as its shard as soon as it is solved.
///
/// With a [`Team`] in `options`, only the tiers [`deal`] gives this
/// process are solved here; a child tier another process solves is waited
/// for until its shard is in `dir` and sound, while its heartbeat lives.
/// A tier every move leaves with at least [`Options::cut_from`] indices is
/// cut instead: each process solves and writes its slice of the tier's
/// indices, and the process the tier is dealt to waits for the others'
/// slices and writes the tier's shard from them (the shard one process
/// alone writes); a rerun keeps the slices written. Process 0 returns only
/// once every tier's shard is there.
pub fn build<G: Tiers>(
    game: &G,
    plan: &Plan<G::Tier>,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Built, TierError> {
    let (owners, process) = match &options.team {
        Some(team) => (deal::deal(plan, team.processes), team.process),
        None => (vec![0; plan.steps.len()], 0),
    };
    let mine = deal::order(plan, &owners, process);
    let mut peak_bytes = 0;
    for step in mine.iter().map(|&i| &plan.steps[i]) {
        let needed = plan.bytes_needed(step);
        peak_bytes = peak_bytes.max(needed);
        if let Some(budget) = options.memory
            && needed > budget
        {
            return Err(TierError::Budget {
                tier: step.name.clone(),
                needed,
                budget,
            });
        }
    }
    limits::check_memory(&format!("the largest tier of {}", game.name()), peak_bytes)
        .map_err(TierError::TooLarge)?;
    let shards = Shards::new(&options.dir, Expect::of(game));
    let shards = if options.drafts {
        shards.drafts()
    } else {
        shards
    };
    let _heartbeat = match &options.team {
        Some(team) => Some(Heartbeat::start(&options.dir, &game.name(), team)?),
        None => None,
    };
    let mut peers = options
        .team
        .as_ref()
        .map(|team| Watch::new(&options.dir, &game.name(), team));
    shards.remove_leftovers(mine.iter().map(|&i| &plan.steps[i]));
    let mut done = vec![false; plan.steps.len()];
    let mut discarded = Vec::new();
    for &i in &mine {
        match shards.finished(plan, &plan.steps[i]) {
            Ok(finished) => done[i] = finished,
            Err(why) => {
                progress.note(&why);
                discarded.push(why);
            }
        }
    }
    let found_done = done.iter().filter(|&&d| d).count();
    progress.note(&format!("{found_done} of {} tiers found done", mine.len()));
    let (taken, counterparts) = adopt(
        game,
        plan,
        &shards,
        (&mine, &mut done),
        &options.dir,
        progress,
    )?;
    let job = Job {
        game,
        plan,
        shards: &shards,
        counterparts,
        taken: AtomicUsize::new(0),
    };
    let run = match (&mut peers, &options.team) {
        (Some(peers), Some(team)) => {
            let cut = cut_tiers(game, plan, options);
            let sliced = plan.steps.iter().enumerate().filter(|&(i, _)| cut[i]);
            shards.remove_slice_leftovers(sliced.map(|(_, s)| s), process, team.processes);
            for &i in &mine {
                if cut[i] && done[i] {
                    // Written from its slices by a run killed before it
                    // removed them.
                    shards.remove_slices(&plan.steps[i]);
                }
            }
            let turn = Turn {
                owners: &owners,
                cut: &cut,
                process,
                processes: team.processes,
            };
            in_turn(&job, &turn, &mut done, options, peers, progress)?
        }
        _ => {
            let budget = options
                .memory
                .or_else(|| limits::available_memory().map(|available| available - available / 9));
            // Tiers lost after the shards left out remoteness are solved
            // one at a time, in the plan's order: finding a child tier's
            // left-out cells again reads that tier's own child tiers, which
            // may be among those lost.
            let repairing = done.iter().any(|d| !d)
                && mine
                    .iter()
                    .any(|&i| done[i] && matches!(shards.left_out(&plan.steps[i]), Ok(Some(_))));
            let most = match repairing {
                true => 1,
                false => options
                    .at_once
                    .unwrap_or_else(rayon::current_num_threads)
                    .max(1),
            };
            let limits = Limits {
                memory: options.memory,
                budget,
                most,
                stop_after: options.stop_after,
            };
            together::solve(&job, &mine, &mut done, &limits, progress)?
        }
    };
    if let Some(peers) = &mut peers
        && process == 0
        && options.stop_after.is_none()
    {
        for at in 0..plan.steps.len() {
            if !done[at] {
                await_shard(&shards, plan, at, owners[at], peers, progress)?;
            }
        }
    }
    Ok(Built {
        tiers: plan.steps.len(),
        owned: mine.len(),
        found_done,
        taken: taken + job.taken.load(Relaxed),
        solved: run.solved - job.taken.load(Relaxed),
        slices: run.slices,
        discarded,
        peak_bytes,
        at_once: run.at_once,
        at_once_bytes: run.at_once_bytes,
    })
}

/// What the solving part of a build did.
pub(super) struct Run {
    /// Tiers solved.
    pub solved: usize,
    /// Slices of cut tiers solved.
    pub slices: usize,
    /// The most tiers solved at the same time.
    pub at_once: usize,
    /// The most memory the tiers solved at the same time needed together.
    pub at_once_bytes: u64,
}

/// Which tiers a team's process works on, and how.
struct Turn<'a> {
    /// Each step's process (for a cut tier, the one writing its shard).
    owners: &'a [usize],
    /// Whether each step is cut between the processes.
    cut: &'a [bool],
    /// This process.
    process: usize,
    /// The processes of the team.
    processes: usize,
}

/// Which steps of `plan` a team cuts between its processes: tiers every
/// move leaves, of at least [`Options::cut_from`] indices, solved a cell
/// per index (unless [`Options::cut_classes`]).
fn cut_tiers<G: Tiers>(game: &G, plan: &Plan<G::Tier>, options: &Options) -> Vec<bool> {
    let processes = options.team.as_ref().map_or(1, |t| t.processes);
    let from = options.cut_from.unwrap_or(CUT_FROM).max(1);
    plan.steps
        .iter()
        .map(|step| {
            let per_index = step.working >= BYTES_PER_POSITION * step.size();
            processes > 1
                && step.size() >= from
                && game.leaves_tier(step.tier)
                && (per_index || options.cut_classes)
        })
        .collect()
}

/// Solves this team process's unfinished tiers one at a time, children
/// first, first waiting for any child tier another process solves: the
/// tiers dealt to it, and its slice of every cut tier (writing the shard
/// of those dealt to it once every slice is there).
fn in_turn<G: Tiers>(
    job: &Job<'_, G>,
    turn: &Turn<'_>,
    done: &mut [bool],
    options: &Options,
    peers: &mut Watch,
    progress: &dyn Progress,
) -> Result<Run, TierError> {
    let mut run = Run {
        solved: 0,
        slices: 0,
        at_once: 0,
        at_once_bytes: 0,
    };
    let mut work: Vec<usize> = (0..job.plan.steps.len())
        .filter(|&i| turn.owners[i] == turn.process || turn.cut[i])
        .collect();
    work.sort_by_key(|&i| (job.plan.steps[i].height, i));
    for i in work {
        let step = &job.plan.steps[i];
        let owned = turn.owners[i] == turn.process;
        if done[i] {
            continue;
        }
        if options.stop_after.is_some_and(|most| run.solved >= most) {
            break;
        }
        if progress.cancelled() {
            return Err(TierError::Cancelled);
        }
        let slice = (turn.process, turn.processes);
        // A slice of a tier another process writes: nothing to do once
        // this process's slice is there (checked first: the writer removes
        // the slices only after the shard is written) or the shard is.
        if turn.cut[i]
            && !owned
            && (job
                .shards
                .slice_sound(job.plan, step, slice.0, slice.1)
                .is_ok()
                || job.shards.sound(job.plan, step).is_ok())
        {
            continue;
        }
        for &tier in &step.children {
            let at = job.position_of(tier)?;
            if !done[at] {
                await_shard(job.shards, job.plan, at, turn.owners[at], peers, progress)?;
                done[at] = true;
            }
        }
        let needed = job.bytes_needed(step, options.memory)?;
        if turn.cut[i] {
            if job.solve_slice(step, slice, progress)? {
                run.slices += 1;
            }
            if !owned {
                continue;
            }
            for other in (0..turn.processes).filter(|&p| p != turn.process) {
                let path = job.shards.slice_path(&step.name, other, turn.processes);
                let what = format!("slice {other} of tier {}", step.name);
                await_file(&path, &what, other, peers, progress, || {
                    job.shards
                        .slice_sound(job.plan, step, other, turn.processes)
                })?;
            }
            let cells = job.shards.load_slices(step, turn.processes)?;
            job.shards.write(job.plan, step, &cells, progress)?;
            job.shards.remove_slices(step);
        } else {
            job.solve(step, progress)?;
        }
        done[i] = true;
        run.solved += 1;
        run.at_once = 1;
        run.at_once_bytes = run.at_once_bytes.max(needed);
    }
    Ok(run)
}

/// What solving a tier reads and writes: the game, its plan and the
/// directory of its shards.
pub(super) struct Job<'a, G: Tiers> {
    /// The game.
    pub game: &'a G,
    /// Its plan.
    pub plan: &'a Plan<G::Tier>,
    /// Its shards.
    pub shards: &'a Shards,
    /// By step, the counterpart's shards whose left-out cells are found
    /// again and taken rather than solve the tier ([`adopt`]).
    pub counterparts: Vec<Option<Shards>>,
    /// How many of those were taken.
    pub taken: AtomicUsize,
}

impl<G: Tiers> Job<'_, G> {
    /// Where child tier `tier` is in the plan's steps.
    pub fn position_of(&self, tier: G::Tier) -> Result<usize, TierError> {
        self.plan.position_of(tier).ok_or_else(|| {
            TierError::Game(format!("tier {} is not planned", self.game.tier_name(tier)))
        })
    }

    /// The memory solving `step` needs, its child tiers' cell widths read
    /// from their shards (all finished); fails if that is over `memory`.
    pub fn bytes_needed(
        &self,
        step: &Step<G::Tier>,
        memory: Option<u64>,
    ) -> Result<u64, TierError> {
        // The child tiers' cells take two bytes each where a tier holds
        // more than 256 distinct cells: known from their shards.
        let mut widths = BTreeMap::new();
        for &tier in &step.children {
            if let Some(child) = self.plan.step(tier) {
                widths.insert(tier, Cells::width(&self.shards.dictionary(child)?));
            }
        }
        let needed = self
            .plan
            .bytes_needed_with(step, |child| widths[&child.tier]);
        match memory {
            Some(budget) if needed > budget => Err(TierError::Budget {
                tier: step.name.clone(),
                needed,
                budget,
            }),
            _ => Ok(needed),
        }
    }

    /// The cells of `step`'s child tiers, read from their shards (all
    /// finished).
    fn children(&self, step: &Step<G::Tier>) -> Result<Vec<ChildCells<G::Tier>>, TierError> {
        let mut children = Vec::with_capacity(step.children.len());
        for &tier in &step.children {
            let at = self.position_of(tier)?;
            let child = &self.plan.steps[at];
            let cells = match self.shards.left_out(child)? {
                None => self.shards.load(child)?,
                Some(_) => self.restored(child)?,
            };
            children.push(ChildCells { tier, cells });
        }
        Ok(children)
    }

    /// The cells of the solved tier `step`, whose shard leaves out one
    /// side's remoteness (the whole game was solved, then a tier above it
    /// was lost): each left-out cell found again from its children's
    /// cells ([`restore`]), those in its child tiers read from their
    /// shards. Slow, a look-up on disk per such child, but only for
    /// repairing a build.
    fn restored(&self, step: &Step<G::Tier>) -> Result<Cells, TierError> {
        let dbs = step
            .children
            .iter()
            .filter_map(|&t| self.plan.step(t))
            .map(|s| Ok((s.tier, (s.keys.start, self.shards.open_step(s)?))))
            .collect::<Result<BTreeMap<_, _>, TierError>>()?;
        let mut cells = self.shards.load(step)?;
        restore::restore(
            self.game,
            step.tier,
            &mut cells,
            |tier, index| match dbs.get(&tier) {
                Some((start, db)) => Ok(db.cell(start + index)?),
                None => Err(self.not_a_child(step, tier)),
            },
            |index| self.unfound(self.shards, step, index),
        )?;
        Ok(cells)
    }

    /// The error of a move from `step` into `tier`, not one of its child
    /// tiers.
    fn not_a_child(&self, step: &Step<G::Tier>, tier: G::Tier) -> TierError {
        TierError::Game(format!(
            "tier {}: a move leads to tier {}, which is not a child tier",
            step.name,
            self.game.tier_name(tier)
        ))
    }

    /// The error of the cell at `index` of `step` in `shards`, whose
    /// left-out remoteness its children contradict.
    fn unfound(&self, shards: &Shards, step: &Step<G::Tier>, index: u64) -> TierError {
        TierError::Db(crate::db::DbError::corrupt(
            &shards.path(&step.name),
            format!(
                "the remoteness it leaves out at key {} is not found from its children",
                step.keys.start + index
            ),
        ))
    }

    /// Takes `theirs`' shard of `step`, which leaves out a side's
    /// remoteness: its cells read, each left-out one found again from its
    /// children ([`restore`]), in `step` and in its child tiers (all
    /// solved), and written as this game's shard.
    fn take(
        &self,
        step: &Step<G::Tier>,
        theirs: &Shards,
        progress: &dyn Progress,
    ) -> Result<(), TierError> {
        let started = Instant::now();
        let children = self.children(step)?;
        let mut cells = theirs.load(step)?;
        let loaded = started.elapsed();
        let found = restore::restore(
            self.game,
            step.tier,
            &mut cells,
            |tier, index| match children.iter().find(|c| c.tier == tier) {
                Some(child) => Ok(child.cells.cell(index as usize)),
                None => Err(self.not_a_child(step, tier)),
            },
            |index| self.unfound(theirs, step, index),
        )?;
        drop(children);
        let restoring = started.elapsed() - loaded;
        let size = step.size() as usize;
        let start = step.keys.start;
        let bytes = self.shards.write_of(
            self.plan,
            step,
            &restore::present(&cells, size),
            |key| cells.cell((key - start) as usize),
            progress,
        )?;
        self.taken.fetch_add(1, Relaxed);
        progress.note(&format!(
            "tier {}: {}'s shard taken: read with its child tiers in {:.1} s, \
             {found} left-out cells found again in {:.1} s, shard of {bytes} bytes written in {:.1} s",
            step.name,
            theirs.game(),
            loaded.as_secs_f64(),
            restoring.as_secs_f64(),
            (started.elapsed() - loaded - restoring).as_secs_f64()
        ));
        Ok(())
    }

    /// Solves slice `slice` of `slices` of `step`, a tier every move
    /// leaves, from its child tiers, and writes it as the slice's file;
    /// nothing if that file is there and sound (an unsound one is
    /// replaced). Whether it solved the slice.
    fn solve_slice(
        &self,
        step: &Step<G::Tier>,
        (slice, slices): (usize, usize),
        progress: &dyn Progress,
    ) -> Result<bool, TierError> {
        if self
            .shards
            .slice_sound(self.plan, step, slice, slices)
            .is_ok()
        {
            return Ok(false);
        }
        let children = self.children(step)?;
        let keys = Shards::slice_keys(step, slice, slices);
        let indices = keys.start - step.keys.start..keys.end - step.keys.start;
        let cells = solve_slice(self.game, step.tier, &children, indices, progress)?;
        drop(children);
        self.shards
            .write_slice(self.plan, step, (slice, slices), &cells, progress)?;
        Ok(true)
    }

    /// Solves `step`, its child tiers read from their shards (all
    /// finished), and writes it as its shard; or, where [`adopt`] left
    /// the counterpart's shard of it to be taken in its turn, takes that
    /// ([`Job::take`]).
    pub fn solve(&self, step: &Step<G::Tier>, progress: &dyn Progress) -> Result<(), TierError> {
        if let Some(theirs) = &self.counterparts[self.position_of(step.tier)?] {
            return self.take(step, theirs, progress);
        }
        let started = Instant::now();
        let children = self.children(step)?;
        let loaded = started.elapsed();
        let solved = solve_tier(self.game, step.tier, &children, progress)?;
        drop(children);
        let writing = Instant::now();
        let start = step.keys.start;
        let bytes = self.shards.write_of(
            self.plan,
            step,
            &solved.present(),
            |key| solved.cell(self.game, step.tier, key - start),
            progress,
        )?;
        if solved.broken() {
            let _ = std::fs::remove_file(self.shards.path(&step.name));
            return Err(TierError::Game(format!(
                "tier {}: a position's symmetry class has no representative in the tier",
                step.name
            )));
        }
        if started.elapsed() >= NOTE_AFTER {
            progress.note(&format!(
                "tier {}: child tiers read in {:.1} s, shard of {bytes} bytes written in {:.1} s",
                step.name,
                loaded.as_secs_f64(),
                writing.elapsed().as_secs_f64()
            ));
        }
        Ok(())
    }
}

/// A tier's solve taking at least this long notes where its time went.
const NOTE_AFTER: Duration = Duration::from_secs(1);

/// How often a process waiting for another's shard looks for it.
const POLL: Duration = Duration::from_millis(50);

/// Waits until the shard of step `at`, which process `owner` solves, is
/// in the directory and sound; fails if `owner` is lost first.
fn await_shard<T>(
    shards: &Shards,
    plan: &Plan<T>,
    at: usize,
    owner: usize,
    peers: &mut Watch,
    progress: &dyn Progress,
) -> Result<(), TierError> {
    let step = &plan.steps[at];
    let what = format!("tier {}", step.name);
    await_file(
        &shards.path(&step.name),
        &what,
        owner,
        peers,
        progress,
        || shards.sound(plan, step),
    )
}

/// Waits until the file at `path` (`what`, which process `owner` writes)
/// is there and `sound` says so; fails if `owner` is lost first.
fn await_file(
    path: &std::path::Path,
    what: &str,
    owner: usize,
    peers: &mut Watch,
    progress: &dyn Progress,
    sound: impl Fn() -> Result<(), String>,
) -> Result<(), TierError> {
    // The file last found unsound (left by an earlier run, to be replaced
    // by its owner): looked at again only once it changes.
    let mut unsound = None;
    let mut noted = false;
    loop {
        if let Ok(meta) = std::fs::metadata(path) {
            let stamp = (meta.len(), meta.modified().ok());
            if unsound != Some(stamp) {
                match sound() {
                    Ok(()) => return Ok(()),
                    Err(_) => unsound = Some(stamp),
                }
            }
        }
        if progress.cancelled() {
            return Err(TierError::Cancelled);
        }
        peers.alive(owner)?;
        if !noted {
            progress.note(&format!("waiting for {what} from process {owner}"));
            noted = true;
        }
        std::thread::sleep(POLL);
    }
}
