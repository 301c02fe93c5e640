//! Builds a game's database tier by tier: refuses a memory budget too
//! small before any work, keeps the tiers a killed build finished, and
//! solves the rest children first, writing each as its shard at once;
//! alone, or as one process of a team telling each other over TCP what
//! they finished and fetching from each other the shards they need and do
//! not have ([`crate::team`]), each in its own directory or a shared one.

use super::TierError;
use super::cut::Cut;
use super::deal;
use super::job::{Job, Run};
use super::plan::Plan;
use super::shard::Shards;
use super::solve::BYTES_PER_POSITION;
use super::together::{self, Limits};
use crate::census::Census;
use crate::db::Expect;
use crate::game::NamedTiers;
use crate::limits;
use crate::progress::Progress;
use crate::team::{Crew, Files, Notice, Team, Traffic};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

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
    /// together in `dir`, connected over TCP (the team's hosts); `None`
    /// for a build alone.
    pub team: Option<Team>,
    /// The most tiers a build alone solves at the same time (each only
    /// once its child tiers are done, and all of them within the memory
    /// budget); `None` for as many as rayon has threads. With 1, each
    /// tier's phases reach the progress reporter as they happen; with
    /// more, the build is one phase advancing by each solved tier's
    /// positions. A team's process solves its tiers one at a time.
    pub at_once: Option<usize>,
    /// In a team, the fewest indices a tier has for its indices to be cut
    /// between the processes, each solving a slice: a tier every move
    /// leaves ([`NamedTiers::leaves_tier`]) from its child tiers alone, a
    /// tier with moves inside it (where the game has un-moves) in lockstep
    /// rounds (the `cut` module); `None` for the default, 2^16.
    pub cut_from: Option<u64>,
    /// Whether such a tier is cut even where it is solved a working cell
    /// per symmetry class (`working_bytes`). A slice
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
/// it, a slice's files and messages cost more than the time they save.
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
    /// ([`NamedTiers::counterpart`]) in this run.
    pub taken: usize,
    /// Tiers whose positions a forward pass found in this run, for a
    /// game's own build that finds them first (0 for the tier solver,
    /// which needs none).
    pub forward: usize,
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
    /// The census of each step (by its place in the plan) that this run
    /// counted as it wrote the step's shard, its examples keys of the
    /// plan; a report reads the other steps' from their shards.
    pub counted: BTreeMap<usize, Census<u64>>,
    /// In a team, what each process sent the others over TCP, by process
    /// (see [`Traffic`]): this process's own, and at process 0 every
    /// process's (`None` for one that did not tell it); empty alone.
    pub traffic: Vec<Option<Traffic>>,
}

impl Built {
    /// Whether every tier this process solves is solved.
    pub fn complete(&self) -> bool {
        self.found_done + self.taken + self.solved == self.owned
    }
}

/// Takes, for each tier of `mine` not `done`, the shard of the game's
/// counterpart ([`NamedTiers::counterpart`]) in `dir` if it has one, sound and
/// over the tier's keys: written again as this game's shard, the tier is
/// done. A shard leaving out a side's remoteness is not taken here but
/// returned, by step, to be taken in its turn ([`Job::solve`]), once its
/// child tiers are solved and its left-out cells can be found again from
/// theirs. Returns how many it took, and those.
fn adopt<G: NamedTiers>(
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
/// With a [`Team`] in `options`, only the tiers the deal gives this
/// process are solved here, the processes connected over TCP (the team's
/// hosts, within its connect timeout); a child tier another process
/// solves is waited for until that process tells it wrote the tier's
/// shard, then fetched from it into `dir` unless `dir` holds it sound
/// already (a directory shared, or a rerun), and a process that ends,
/// dies or goes silent first (no heartbeat for the team's peer timeout)
/// is named.
/// A tier with at least [`Options::cut_from`] indices is cut instead:
/// each process solves and writes its slice of the tier's indices (a tier
/// every move leaves from its child tiers alone; one with moves inside it
/// in lockstep rounds with the others, exchanging updates over TCP), and
/// the process the tier is dealt to waits for the others' slices
/// (fetching those it does not have) and writes the tier's shard from
/// them, a block at a time (the shard one process alone writes); a rerun
/// keeps the slices of a tier every move leaves, and solves a tier with
/// moves inside it again unless its shard is written. Process 0 returns only once every tier's shard is in
/// its `dir`.
pub fn build<G: NamedTiers>(
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
        let needed = plan.bytes_needed(game, step);
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
    let mut crew = match &options.team {
        Some(team) => Some(Crew::join_serving(
            team,
            crate::team::tag(&game.name(), team.processes),
            Some(files(plan, &shards, team)),
        )?),
        None => None,
    };
    shards.remove_leftovers(mine.iter().map(|&i| &plan.steps[i]));
    if options.team.is_some() {
        shards.remove_fetch_leftovers(process);
    }
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
    let run = match (&mut crew, &options.team) {
        (Some(crew), Some(team)) => {
            // The tiers this process finished before, for the others.
            for &i in &mine {
                if done[i] {
                    crew.tell(Notice::Tier(i as u64));
                }
            }
            crew.tell(Notice::Found);
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
            in_turn(&job, &turn, &mut done, options, crew, progress)?
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
    let mut traffic = Vec::new();
    if let Some(mut crew) = crew {
        if process == 0 && options.stop_after.is_none() {
            for at in 0..plan.steps.len() {
                if !done[at] {
                    bring(&job, at, owners[at], &mut crew, progress)?;
                }
            }
        }
        crew.finish();
        traffic = crew.traffic();
        if let Some(team) = &options.team {
            // This process's slices of cut tiers whose shard is written
            // are of no more use (in a shared directory, the writer
            // removed them already).
            let cut = cut_tiers(game, plan, options);
            for (i, step) in plan.steps.iter().enumerate() {
                if cut[i] && owners[i] != process && crew.heard(owners[i], Notice::Tier(i as u64)) {
                    shards.remove_slice(step, process, team.processes);
                }
            }
        }
    }
    Ok(Built {
        tiers: plan.steps.len(),
        owned: mine.len(),
        found_done,
        taken: taken + job.taken.load(Relaxed),
        forward: 0,
        solved: run.solved - job.taken.load(Relaxed),
        slices: run.slices,
        discarded,
        peak_bytes,
        at_once: run.at_once,
        at_once_bytes: run.at_once_bytes,
        counted: BTreeMap::new(),
        traffic,
    })
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

/// Which steps of `plan` a team cuts between its processes: tiers of at
/// least [`Options::cut_from`] indices, solved a cell per index (unless
/// [`Options::cut_classes`]), that every move leaves or, where the game
/// has un-moves ([`NamedTiers::IN_TIER_PARENTS`]), with moves inside
/// them (solved in rounds: the `cut` module).
fn cut_tiers<G: NamedTiers>(game: &G, plan: &Plan<G::Tier>, options: &Options) -> Vec<bool> {
    let processes = options.team.as_ref().map_or(1, |t| t.processes);
    let from = options.cut_from.unwrap_or(CUT_FROM).max(1);
    plan.steps
        .iter()
        .map(|step| {
            let per_index = step.working(game) >= BYTES_PER_POSITION * step.size();
            processes > 1
                && step.size() >= from
                && (game.leaves_tier(step.tier) || G::IN_TIER_PARENTS)
                && (per_index || options.cut_classes)
        })
        .collect()
}

/// Solves this team process's unfinished tiers one at a time, children
/// first, first waiting for any child tier another process solves: the
/// tiers dealt to it, and its slice of every cut tier (writing the shard
/// of those dealt to it once every slice is there).
fn in_turn<G: NamedTiers>(
    job: &Job<'_, G>,
    turn: &Turn<'_>,
    done: &mut [bool],
    options: &Options,
    crew: &mut Crew,
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
        // A cut tier with moves inside it is solved in rounds, by every
        // process together: each takes part unless the tier's shard is
        // written.
        let rounds = turn.cut[i] && !job.game.leaves_tier(step.tier);
        // A slice of a tier another process writes: nothing to do once
        // this process's slice is there (checked first: the writer removes
        // the slices only after the shard is written) or the shard is.
        if turn.cut[i]
            && !owned
            && !rounds
            && (job
                .shards
                .slice_sound(job.plan, step, slice.0, slice.1)
                .is_ok()
                || job.shards.sound(job.plan, step).is_ok())
        {
            crew.tell(Notice::Slice(i as u64));
            continue;
        }
        // Nor once its writer has the shard (told when it started): this
        // process removed its slice then, and need not hold the shard.
        if turn.cut[i] && !owned {
            let owner = turn.owners[i];
            wait(
                crew,
                owner,
                Notice::Found,
                "the tiers it found written",
                progress,
            )?;
            if crew.heard(owner, Notice::Tier(i as u64)) {
                continue;
            }
        }
        for &tier in &step.children {
            let at = job.position_of(tier)?;
            if !done[at] {
                bring(job, at, turn.owners[at], crew, progress)?;
                done[at] = true;
            }
        }
        let needed = job.bytes_needed(step, options.memory)?;
        if rounds {
            let size = step.size();
            let bounds = (0..turn.processes)
                .map(|p| Shards::slice_keys(step, p, turn.processes).start - step.keys.start)
                .chain([size])
                .collect();
            let cut = Cut {
                step: i,
                bounds,
                process: turn.process,
            };
            job.solve_cut(step, &cut, crew, progress)?;
            run.slices += 1;
        } else if turn.cut[i] && job.solve_slice(step, slice, progress)? {
            run.slices += 1;
        }
        if turn.cut[i] {
            if !owned {
                crew.tell(Notice::Slice(i as u64));
                continue;
            }
            for other in (0..turn.processes).filter(|&p| p != turn.process) {
                let what = format!("its slice of tier {}", step.name);
                wait(crew, other, Notice::Slice(i as u64), &what, progress)?;
                let slice = (other, turn.processes);
                if job
                    .shards
                    .slice_sound(job.plan, step, other, turn.processes)
                    .is_err()
                {
                    let dest = job.shards.slice_path(&step.name, other, turn.processes);
                    let check =
                        |path: &Path| job.shards.slice_sound_at(job.plan, step, slice, path);
                    let file = (other, slice_file(i));
                    progress.note(&format!("fetching {what} from process {other}"));
                    crew.fetch(file, &dest, &check, &what, &|| progress.cancelled())?;
                }
            }
            job.shards
                .write_from_slices(job.plan, step, turn.processes, progress)?;
            job.shards.remove_slices(step);
        } else {
            job.solve(step, progress)?;
        }
        crew.tell(Notice::Tier(i as u64));
        done[i] = true;
        run.solved += 1;
        run.at_once = 1;
        run.at_once_bytes = run.at_once_bytes.max(needed);
    }
    Ok(run)
}

/// The number a peer fetches the shard of step `i` by ([`files`]).
fn shard_file(i: usize) -> u64 {
    2 * i as u64
}

/// The number a peer fetches this process's slice of step `i` by
/// ([`files`]).
fn slice_file(i: usize) -> u64 {
    2 * i as u64 + 1
}

/// The files of this process a peer may fetch ([`Crew::fetch`]): by
/// [`shard_file`], the shard of step `i` of `plan`; by [`slice_file`],
/// this process's slice of step `i`, if cut.
fn files<T>(plan: &Plan<T>, shards: &Shards, team: &Team) -> Files {
    let mut paths = vec![PathBuf::new(); 2 * plan.steps.len()];
    for (i, step) in plan.steps.iter().enumerate() {
        paths[shard_file(i) as usize] = shards.path(&step.name);
        paths[slice_file(i) as usize] = shards.slice_path(&step.name, team.process, team.processes);
    }
    Arc::new(move |what| paths.get(usize::try_from(what).ok()?).cloned())
}

/// Waits until process `owner` tells it wrote the shard of step `at`,
/// then fetches the shard from it unless this process's directory holds
/// it sound already; fails naming `owner` if it ends, dies or goes
/// silent first, or sends a shard that is not sound.
fn bring<G: NamedTiers>(
    job: &Job<'_, G>,
    at: usize,
    owner: usize,
    crew: &mut Crew,
    progress: &dyn Progress,
) -> Result<(), TierError> {
    let step = &job.plan.steps[at];
    let what = format!("tier {}", step.name);
    wait(crew, owner, Notice::Tier(at as u64), &what, progress)?;
    if job.shards.sound(job.plan, step).is_ok() {
        return Ok(());
    }
    let check = |path: &Path| job.shards.sound_at(job.plan, step, path);
    let what = format!("the shard of {what}");
    progress.note(&format!("fetching {what} from process {owner}"));
    crew.fetch(
        (owner, shard_file(at)),
        &job.shards.path(&step.name),
        &check,
        &what,
        &|| progress.cancelled(),
    )?;
    Ok(())
}

/// Waits until process `from` tells `notice` (`what`, noted for people
/// if it has not yet); fails naming `from` if it ends, dies or goes
/// silent first.
fn wait(
    crew: &mut Crew,
    from: usize,
    notice: Notice,
    what: &str,
    progress: &dyn Progress,
) -> Result<(), TierError> {
    if !crew.heard(from, notice) {
        progress.note(&format!("waiting for {what} from process {from}"));
    }
    crew.wait_for(from, notice, what, &|| progress.cancelled())?;
    Ok(())
}
