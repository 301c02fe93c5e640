//! One timely worker's part of a distributed retrograde analysis: the
//! cells and counters of the positions it owns, and the rounds it runs in
//! step with every other worker.
//!
//! Four small dataflows, all with one epoch per round:
//! - `edges` (only without un-moves): every move `(child, parent)` goes to
//!   the child's owner, which keeps its positions' parents;
//! - `updates`: a decided position sends `parent's slot << 1 | child is a
//!   loss` to each parent's owner, which applies it to its counters and
//!   cells;
//! - `counts`: every worker tells every worker how many positions it
//!   decided, so all agree when a sweep is over;
//! - `summaries`: at the end every worker sends its counts to worker 0.
//!
//! Moves and updates travel in batches, one message per receiving worker
//! at a time, their numbers sorted and encoded as varint differences
//! ([`super::batch`]). The round ends when the probes pass its epoch:
//! timely's progress tracking then guarantees that every update of the
//! round has been applied everywhere.

use super::batch::{Batch, Outbox};
use super::partition::Layout;
use super::{DistError, Event, Job, Summary, WorkerOutput, block_range, fingerprint};
use crate::census::Census;
use crate::error::SolveError;
use crate::game::Indexed;
use crate::limits::TooLarge;
use crate::solve::rule::{self, Ply, Sweep};
use crate::team::varints;
use crate::value::{Cell, Remoteness, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;
use timely::communication::Allocator;
use timely::dataflow::operators::{Broadcast, Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// What a worker keeps for one position it owns.
#[derive(Clone, Copy)]
struct Slot {
    cell: Cell,
    /// Children not yet decided (while the cell is unknown).
    counter: u16,
}

/// A slot as the rule decides it: a parent of a position decided in the
/// round.
impl rule::Parent for Slot {
    #[inline]
    fn decide(&mut self, cell: Cell, _: &Ply) -> bool {
        let open = self.cell == Cell::UNKNOWN;
        if open {
            self.cell = cell;
        }
        open
    }

    #[inline]
    fn count_down(&mut self, ply: &Ply) -> bool {
        if self.cell != Cell::UNKNOWN || self.counter == 0 {
            return false;
        }
        self.counter -= 1;
        self.counter == 0 && self.decide(ply.lose, ply)
    }
}

/// What the dataflow operators and the worker's loop share.
struct State {
    /// The cell and undecided-children counter of each slot, side by side
    /// so that an update touches one cache line.
    slots: Vec<Slot>,
    /// Slots decided in the current round.
    next: Vec<u64>,
    /// The epoch whose updates [`State::round`] applies to.
    epoch: u64,
    /// The sweep and round whose updates decide positions: none while
    /// seeding and at the end.
    round: Option<(Sweep, Ply)>,
    /// Updates (slot << 1 | loss) of the next epoch that came before this
    /// worker got there.
    early: Vec<u64>,
    /// The sum over all workers of the counts sent in each epoch.
    counts: BTreeMap<u64, u64>,
    /// Updates applied (from this worker or received).
    received: u64,
    /// Moves received: (slot of the child, index of the parent).
    edges: Vec<(u64, u64)>,
    /// Worker 0 only: every worker's summary.
    summaries: Vec<Summary>,
}

impl State {
    /// Applies the update `slot << 1 | loss` to this worker's slot.
    fn apply(&mut self, update: u64) {
        self.received += 1;
        let Some((sweep, ply)) = self.round else {
            return;
        };
        let slot = (update >> 1) as usize;
        // A round of ties hears only of ties; one of wins and losses is
        // told which of the two the child is.
        let child = match sweep {
            Sweep::WinLose if update & 1 == 1 => Value::Lose,
            Sweep::WinLose => Value::Win,
            Sweep::Tie => Value::Tie,
        };
        if rule::hear(&mut self.slots[slot], child, &ply) {
            self.next.push(slot as u64);
        }
    }

    /// Starts `epoch` in `round`, applying the updates that came early.
    fn begin(&mut self, epoch: u64, round: Option<(Sweep, Ply)>) {
        self.epoch = epoch;
        self.round = round;
        for update in std::mem::take(&mut self.early) {
            self.apply(update);
        }
    }
}

/// Parents of this worker's positions, from a stored graph (CSR over the
/// worker's slots) or from the game's un-moves.
enum ParentsOf<G> {
    Stored {
        offsets: Vec<u64>,
        parents: Vec<u64>,
    },
    Unmoves(fn(&G, u64, &mut Vec<u64>)),
}

/// Runs this worker's part to the end.
pub(super) fn run<G: Indexed>(
    worker: &mut Worker<Allocator>,
    job: &Job<G>,
    events: &Sender<Event>,
    stop: &AtomicBool,
) -> Result<WorkerOutput, DistError> {
    let me = worker.index();
    let peers = worker.peers();
    let game = &job.game;
    let len = game.index_len();
    let layout = Layout::new(job.partition, len, peers);
    let slots = layout.slots(me);
    let state = Rc::new(RefCell::new(State {
        slots: vec![
            Slot {
                cell: Cell::UNKNOWN,
                counter: 0
            };
            slots
        ],
        next: Vec::new(),
        epoch: 0,
        round: None,
        early: Vec::new(),
        counts: BTreeMap::new(),
        received: 0,
        edges: Vec::new(),
        summaries: Vec::new(),
    }));
    let probe = ProbeHandle::new();
    let (edges, updates, counts, summaries) = worker.dataflow::<u64, _, _>(|scope| {
        let (edges, stream) = scope.new_input::<Batch>();
        let shared = state.clone();
        stream
            .exchange(|(to, _)| *to)
            .inspect_batch(move |_, batches| {
                let mut state = shared.borrow_mut();
                for (_, bytes) in batches {
                    let index_of = |slot| layout.index(me, slot as usize);
                    // Timely delivers the batches a peer encoded whole.
                    let _ = varints::decode_pairs(bytes, index_of, |slot, parent| {
                        state.edges.push((slot, parent));
                    });
                }
            })
            .probe_with(&probe);
        let (updates, stream) = scope.new_input::<Batch>();
        let shared = state.clone();
        stream
            .exchange(|(to, _)| *to)
            .inspect_batch(move |&time, batches| {
                let mut state = shared.borrow_mut();
                let now = time == state.epoch;
                for (_, bytes) in batches {
                    let _ = varints::decode(bytes, |update| {
                        if now {
                            state.apply(update);
                        } else {
                            state.early.push(update);
                        }
                    });
                }
            })
            .probe_with(&probe);
        let (counts, stream) = scope.new_input::<u64>();
        let shared = state.clone();
        stream
            .broadcast()
            .inspect_batch(move |&time, batch| {
                *shared.borrow_mut().counts.entry(time).or_default() += batch.iter().sum::<u64>();
            })
            .probe_with(&probe);
        let (summaries, stream) = scope.new_input::<Summary>();
        let shared = state.clone();
        stream
            .exchange(|_| 0)
            .inspect_batch(move |_, batch| {
                shared.borrow_mut().summaries.extend_from_slice(batch);
            })
            .probe_with(&probe);
        (edges, updates, counts, summaries)
    });
    let _ = events.send(Event::Started);

    let mut inputs = Inputs {
        edges,
        updates,
        counts,
        summaries,
        epoch: 0,
    };
    let finish_epoch = |worker: &mut Worker<Allocator>, inputs: &mut Inputs, count: u64| {
        inputs.finish(worker, count, &probe, stop)?;
        Ok::<u64, DistError>(
            state
                .borrow()
                .counts
                .get(&(inputs.epoch - 1))
                .copied()
                .unwrap_or(0),
        )
    };

    // Seeding: primitive positions and counters; moves to the children's
    // owners when parents must be stored.
    let mut losses_and_wins = Vec::new();
    let mut ties = Vec::new();
    let mut stats = Stats::default();
    let threads = job.threads;
    {
        let mut outbox = Outbox::new(peers);
        let encode = |to: usize, pairs: &mut [(u64, u64)]| {
            varints::encode_pairs(pairs, |slot| layout.index(to, slot as usize))
        };
        let mut children = Vec::new();
        let mut done = 0;
        for slot in 0..slots {
            let index = layout.index(me, slot);
            done += 1;
            if done == 1 << 14 {
                let _ = events.send(Event::Advance { phase: 0, done });
                done = 0;
                // Moves sent so far go on their way instead of piling up.
                worker.step();
            }
            let mut st = state.borrow_mut();
            let Some(position) = game.unrank(index) else {
                continue;
            };
            if job
                .fold
                .as_ref()
                .is_some_and(|fold| (fold.key)(game, &position) != index)
            {
                // Solved as its class's representative, elsewhere.
                continue;
            }
            stats.positions += 1;
            let primitive = game.primitive(&position);
            children.clear();
            if primitive.is_none() {
                (job.children)(game, &position, &mut children);
            }
            if let Some(outcome) = rule::seed(primitive, !children.is_empty()) {
                st.slots[slot].cell = Cell::pack(outcome);
                match Sweep::of(outcome.value) {
                    Some(Sweep::WinLose) => losses_and_wins.push(slot as u64),
                    Some(Sweep::Tie) => ties.push(slot as u64),
                    None => {}
                }
                continue;
            }
            st.slots[slot].counter = u16::try_from(children.len()).map_err(|_| {
                DistError::Solve(SolveError::TooLarge(TooLarge::Moves {
                    game: game.name(),
                    moves: children.len() as u64,
                    most: u64::from(u16::MAX),
                }))
            })?;
            stats.moves += children.len() as u64;
            if job.unmoves.is_none() {
                let mut full = false;
                for &child in &children {
                    let owner = layout.owner(child);
                    let edge = (layout.slot(child) as u64, index);
                    if owner == me {
                        st.edges.push(edge);
                    } else {
                        full |= outbox.push(owner, edge);
                    }
                }
                if full {
                    stats.send(&mut outbox, encode, &mut inputs.edges, me, threads);
                }
            }
        }
        stats.send(&mut outbox, encode, &mut inputs.edges, me, threads);
        let _ = events.send(Event::Advance { phase: 0, done });
    }
    let _ = events.send(Event::Seeded(stats.positions));
    finish_epoch(worker, &mut inputs, 0)?;
    let source = match job.unmoves {
        Some(unmoves) => ParentsOf::Unmoves(unmoves),
        None => {
            let incoming = std::mem::take(&mut state.borrow_mut().edges);
            stored_parents(incoming, slots)
        }
    };
    let ends = (losses_and_wins.len() + ties.len()) as u64;
    let _ = events.send(Event::Advance {
        phase: 1,
        done: ends,
    });

    // The two sweeps, one round per remoteness.
    let mut parents = Vec::new();
    let mut outbox = Outbox::new(peers);
    let encode = |_: usize, updates: &mut [u64]| varints::encode(updates);
    for (sweep, seeds) in [(Sweep::WinLose, losses_and_wins), (Sweep::Tie, ties)] {
        let mut frontier = seeds;
        let mut remoteness: Remoteness = 0;
        loop {
            let ply = Ply::after(remoteness).ok_or_else(SolveError::remoteness_overflow)?;
            state.borrow_mut().begin(inputs.epoch, Some((sweep, ply)));
            for (n, &slot) in frontier.iter().enumerate() {
                if n % (1 << 12) == 0 {
                    // Updates sent so far go on their way (and those
                    // received are applied) instead of piling up.
                    worker.step();
                }
                let index = layout.index(me, slot as usize);
                // Updates for this worker's own positions are applied at
                // once (their order within a round does not matter);
                // only the others go through timely.
                let mut st = state.borrow_mut();
                let loss = st.slots[slot as usize]
                    .cell
                    .unpack()
                    .is_some_and(|o| o.value == Value::Lose);
                let mut full = false;
                let mut send = |parent: u64| {
                    let owner = layout.owner(parent);
                    let update = (layout.slot(parent) as u64) << 1 | u64::from(loss);
                    if owner == me {
                        st.apply(update);
                    } else {
                        full |= outbox.push(owner, update);
                    }
                };
                match &source {
                    ParentsOf::Stored { offsets, parents } => {
                        let span = &parents[offsets[slot as usize] as usize..]
                            [..(offsets[slot as usize + 1] - offsets[slot as usize]) as usize];
                        span.iter().for_each(|&parent| send(parent));
                    }
                    ParentsOf::Unmoves(unmoves) => {
                        unmoves(game, index, &mut parents);
                        parents.iter().for_each(|&parent| send(parent));
                    }
                }
                if full {
                    drop(st);
                    stats.send(&mut outbox, encode, &mut inputs.updates, me, threads);
                }
            }
            stats.send(&mut outbox, encode, &mut inputs.updates, me, threads);
            let total = finish_epoch(worker, &mut inputs, frontier.len() as u64)?;
            stats.rounds += 1;
            if stop.load(Ordering::Relaxed) {
                return Err(DistError::stopped());
            }
            let mut st = state.borrow_mut();
            frontier = std::mem::take(&mut st.next);
            let _ = events.send(Event::Advance {
                phase: 1,
                done: frontier.len() as u64,
            });
            if total == 0 {
                break;
            }
            remoteness = ply.remoteness;
        }
    }
    drop(source);

    // Draws, then this worker's counts, gathered at worker 0.
    let summary = {
        let mut st = state.borrow_mut();
        st.begin(inputs.epoch, None);
        let draw = Cell::pack(rule::LEFT);
        let mut census = Census::new();
        let mut print = 0u64;
        let mut images = Vec::new();
        for (slot, Slot { cell, counter }) in st.slots.iter_mut().enumerate() {
            if *cell == Cell::UNKNOWN && *counter > 0 {
                *cell = draw;
            }
            let index = layout.index(me, slot);
            let Some(outcome) = cell.unpack() else {
                continue;
            };
            // A representative stands for every position of its class.
            images.clear();
            match (&job.fold, game.unrank(index)) {
                (Some(fold), Some(position)) => (fold.images)(game, &position, &mut images),
                _ => images.push(index),
            }
            for &image in &images {
                print = print.wrapping_add(fingerprint(image, *cell));
                if job.counted.contains(&image) {
                    census.add(outcome, || index);
                }
            }
        }
        Summary::new(me, census, print, &stats, st.received)
    };
    let cells: Vec<Cell> = std::mem::take(&mut state.borrow_mut().slots)
        .into_iter()
        .map(|s| s.cell)
        .collect();
    // The shard is written before the last epoch, which then tells every
    // worker that every shard is in place.
    if let Some(save) = &job.save {
        let range = block_range(&layout, me);
        if !range.is_empty() {
            let _ = events.send(Event::Saving);
            save.write(me, peers, len, range, &cells)?;
        }
    }
    inputs.summaries.send(summary);
    finish_epoch(worker, &mut inputs, 0)?;
    let st = state.borrow();
    Ok(WorkerOutput {
        worker: me,
        cells,
        summaries: st.summaries.clone(),
    })
}

/// An input of one dataflow, with one epoch per round.
type In<D> = InputHandle<u64, D>;

/// The inputs of a worker's dataflows, which advance together.
struct Inputs {
    edges: In<Batch>,
    updates: In<Batch>,
    counts: In<u64>,
    summaries: In<Summary>,
    /// The current epoch.
    epoch: u64,
}

impl Inputs {
    /// Sends `count` to every worker and ends the current epoch: returns
    /// once every message of it has been applied everywhere.
    fn finish(
        &mut self,
        worker: &mut Worker<Allocator>,
        count: u64,
        probe: &ProbeHandle<u64>,
        stop: &AtomicBool,
    ) -> Result<(), DistError> {
        self.counts.send(count);
        self.epoch += 1;
        self.edges.advance_to(self.epoch);
        self.updates.advance_to(self.epoch);
        self.counts.advance_to(self.epoch);
        self.summaries.advance_to(self.epoch);
        while probe.less_than(&self.epoch) {
            if stop.load(Ordering::Relaxed) {
                return Err(DistError::stopped());
            }
            worker.step_or_park(Some(Duration::from_millis(5)));
        }
        Ok(())
    }
}

/// The parents of each slot, from the moves received (slot of the child,
/// index of the parent), in one array cut by offsets.
fn stored_parents<G>(mut incoming: Vec<(u64, u64)>, slots: usize) -> ParentsOf<G> {
    incoming.sort_unstable();
    let mut offsets = Vec::with_capacity(slots + 1);
    offsets.push(0);
    let mut at = 0;
    for slot in 0..slots as u64 {
        while at < incoming.len() && incoming[at].0 == slot {
            at += 1;
        }
        offsets.push(at as u64);
    }
    let parents = incoming.into_iter().map(|(_, parent)| parent).collect();
    ParentsOf::Stored { offsets, parents }
}

/// What one worker counts as it goes.
#[derive(Clone, Debug, Default)]
pub(super) struct Stats {
    /// Positions with an index that this worker owns.
    pub positions: u64,
    /// Distinct moves from them.
    pub moves: u64,
    /// Rounds run.
    pub rounds: u64,
    /// Moves and updates sent to other workers; those to this worker's
    /// own positions are applied without a message.
    pub messages: u64,
    /// Of those, the ones sent to a worker in another process.
    pub remote_messages: u64,
    /// The batches they travelled in (see [`super::batch`]).
    pub batches: u64,
    /// The payload of the batches sent to another process, in bytes.
    pub remote_bytes: u64,
}

impl Stats {
    /// Sends what `outbox` holds through `input`, from worker `me` with
    /// `threads` workers per process, encoded by `encode`, and counts it.
    fn send<T: Clone>(
        &mut self,
        outbox: &mut Outbox<T>,
        encode: impl Fn(usize, &mut [T]) -> Vec<u8>,
        input: &mut In<Batch>,
        me: usize,
        threads: usize,
    ) {
        outbox.flush(encode, |batch, items| {
            let items = items as u64;
            self.messages += items;
            self.batches += 1;
            if batch.0 as usize / threads != me / threads {
                self.remote_messages += items;
                self.remote_bytes += batch.1.len() as u64;
            }
            input.send(batch);
        });
    }
}
