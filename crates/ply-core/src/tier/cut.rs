//! A tier with moves inside it, cut between the processes of a team: each
//! process holds the working cells of a contiguous run of the tier's
//! indices alone (its part, the keys of its slice: [`Shards::slice_keys`]),
//! and the team runs the layers of [`super::solve`]'s retrograde analysis
//! in lockstep, a round per layer.
//!
//! Each process first looks at every position of its part, reading the
//! child tiers' cells (loaded whole, as for a tier solved alone). Then,
//! in round `r` of a sweep (wins and losses, then ties where any process
//! found one), each process runs layer `r` on its part
//! ([`PartWork::layer`]): its positions decided at `r - 1` tell their
//! parents, and a parent in another process's part is left aside. Those
//! are sorted and sent to each peer as ONE message a round
//! ([`Crew::send_to`]), even when empty: a header of varints (what this
//! process decided at the layer before, the last layer its seeds fire at
//! in each sweep, whether it found a tie) and the parents, each doubled
//! plus one if its child is a win, as sorted varint differences
//! ([`crate::team::varints`]). Each process then takes every peer's
//! message of the round ([`Crew::receive`], the step naming the tier,
//! the sweep and the layer, so that no two messages of a run share one)
//! and has its parents hear them ([`PartWork::hear`]), a bounded batch
//! at a time. Every process so knows what every process decided at the
//! layer before: all stop together after the round that finds a layer
//! past the seeds' longest that decided nothing anywhere, the layer the
//! one-process solve stops at.
//!
//! Under symmetry inside tiers, only representatives of symmetry classes
//! are solved (their children and parents folded, as alone); once the
//! sweeps are done, each position that is not its class's representative
//! takes its representative's cell ([`unfold`]): from its own part, or
//! asked of the representative's process, in waves of [`WAVE`] indices
//! of each part, a request (the representatives' indices, sorted varint
//! differences) and an answer (their cells, two bytes each, in that
//! order) per peer per wave.
//!
//! Each process writes its part as its slice file; the tier's writer
//! fetches the others' as for a tier every move leaves and writes the
//! shard from the slices a block at a time. A lost peer is
//! [`crate::team::TeamError::Lost`], a message that does not read
//! [`crate::team::TeamError::Garbled`], both naming the peer.

use super::TierError;
use super::solve::{ChildCells, PartWork};
use crate::db::codec::{get_varint, put_varint};
use crate::game::NamedTiers;
use crate::progress::Progress;
use crate::solve::rule::Sweep;
use crate::team::{Crew, varints};
use crate::value::{Cell, Remoteness};
use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[cfg(doc)]
use super::shard::Shards;

/// One process's place in a cut tier.
pub(super) struct Cut {
    /// The step of the plan, which names the rounds' messages.
    pub step: usize,
    /// Where each process's part starts, then the tier's size: process
    /// `p`'s part is `bounds[p]..bounds[p + 1]`.
    pub bounds: Vec<u64>,
    /// This process.
    pub process: usize,
}

/// Updates heard at a time: a message is decoded into a batch of this
/// many, heard in parallel, and the batch reused.
const HEAR_AT: usize = 1 << 16;

/// What a round's message says besides its updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    /// Positions the sender decided at the layer before.
    decided: u64,
    /// The last layer a seed of the sender's fires at: wins and losses,
    /// ties.
    last: [Remoteness; 2],
    /// Whether the sender found a tie.
    ties: bool,
}

impl Header {
    fn put(&self, bytes: &mut Vec<u8>) {
        put_varint(self.decided, bytes);
        put_varint(u64::from(self.last[0]), bytes);
        put_varint(u64::from(self.last[1]), bytes);
        put_varint(u64::from(self.ties), bytes);
    }

    /// The header at the start of `bytes` and where it ends, if it reads.
    fn get(bytes: &[u8]) -> Option<(Header, usize)> {
        let mut at = 0;
        let decided = get_varint(bytes, &mut at)?;
        let win_lose = Remoteness::try_from(get_varint(bytes, &mut at)?).ok()?;
        let tie = Remoteness::try_from(get_varint(bytes, &mut at)?).ok()?;
        let ties = match get_varint(bytes, &mut at)? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let header = Header {
            decided,
            last: [win_lose, tie],
            ties,
        };
        Some((header, at))
    }
}

/// The place of `sweep` in [`Header::last`].
fn sweep_at(sweep: Sweep) -> usize {
    match sweep {
        Sweep::WinLose => 0,
        Sweep::Tie => 1,
    }
}

/// The step of the message of the round of layer `remoteness` of `sweep`
/// of the plan's step `step`: the top bit set (no other message of a
/// tier team has it), then the step, the sweep and the layer.
fn message_step(step: usize, sweep: Sweep, remoteness: Remoteness) -> u64 {
    1 << 63 | (step as u64) << 24 | (sweep_at(sweep) as u64) << 23 | u64::from(remoteness)
}

/// The step of the messages of wave `wave` of [`unfold`] of the plan's
/// step `step`: requests, or with `answer`, answers (the top two bits
/// set, then the step, which of the two, and the wave).
fn unfold_step(step: usize, answer: bool, wave: u64) -> u64 {
    3 << 62 | (step as u64) << 24 | u64::from(answer) << 23 | wave
}

/// Solves this process's part of `tier` (a canonical tier) of `game`,
/// in lockstep with the other processes of `crew` (see the module docs),
/// reading the child tiers' cells from `children`: returns the part,
/// whose cells are those [`super::solve::solve_tier`] gives the same
/// indices. What its rounds sent is noted for people.
pub(super) fn solve_part<'a, G: NamedTiers>(
    game: &'a G,
    tier: G::Tier,
    children: &'a [ChildCells<G::Tier>],
    cut: &Cut,
    crew: &mut Crew,
    progress: &dyn Progress,
) -> Result<PartWork<'a, G>, TierError> {
    let me = cut.process;
    let processes = cut.bounds.len() - 1;
    let part = PartWork::new(
        game,
        tier,
        children,
        cut.bounds[me]..cut.bounds[me + 1],
        progress,
    )?;
    let name = game.tier_name(tier);
    let mut own = Header {
        decided: 0,
        last: [part.last(Sweep::WinLose), part.last(Sweep::Tie)],
        ties: part.ties(),
    };
    let mut ties = own.ties;
    let mut heard = Vec::with_capacity(HEAR_AT);
    let (mut rounds, mut bytes_sent) = (0u64, 0u64);
    // By peer, the runs of its updates of the round.
    let outgoing: Vec<Mutex<Vec<u8>>> = (0..processes).map(|_| Mutex::default()).collect();
    let updates_sent = AtomicU64::new(0);
    let away = |items: &mut Vec<u64>| {
        items.sort_unstable();
        for peer in (0..processes).filter(|&p| p != me) {
            let at = |bound: u64| items.partition_point(|&item| item >> 1 < bound);
            let (from, to) = (at(cut.bounds[peer]), at(cut.bounds[peer + 1]));
            if from == to {
                continue;
            }
            let run = varints::encode(&mut items[from..to]);
            let mut out = outgoing[peer].lock().unwrap_or_else(|e| e.into_inner());
            put_varint(run.len() as u64, &mut out);
            out.extend_from_slice(&run);
            updates_sent.fetch_add((to - from) as u64, Relaxed);
        }
        items.clear();
    };
    for sweep in [Sweep::WinLose, Sweep::Tie] {
        if sweep == Sweep::Tie && !ties {
            break;
        }
        part.begin_sweep();
        let mut last = own.last[sweep_at(sweep)];
        own.decided = 0;
        let mut remoteness: Remoteness = 1;
        loop {
            let step = message_step(cut.step, sweep, remoteness);
            for out in &outgoing {
                let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                out.clear();
                own.put(&mut out);
            }
            let mut decided = part.layer(remoteness, sweep, &away, progress)?;
            for peer in (0..processes).filter(|&p| p != me) {
                let mut out = outgoing[peer].lock().unwrap_or_else(|e| e.into_inner());
                let out = std::mem::take(&mut *out);
                crew.send_to(peer, step, &out);
                bytes_sent += out.len() as u64;
            }
            rounds += 1;
            let mut everyone = own.decided;
            for peer in (0..processes).filter(|&p| p != me) {
                let what = format!("its updates of layer {remoteness} of tier {name}");
                let message = crew.receive(peer, step, &what, &|| progress.cancelled())?;
                let garbled =
                    |why: String| TierError::Team(crew.garbled(peer, format!("{why}, in {what}")));
                let Some((theirs, start)) = Header::get(&message) else {
                    return Err(garbled("a header that does not read".into()));
                };
                everyone += theirs.decided;
                last = last.max(theirs.last[sweep_at(sweep)]);
                ties |= theirs.ties;
                let mut stray = None;
                let mut hear = |heard: &mut Vec<u64>| {
                    match part.hear(heard, remoteness, sweep) {
                        Ok(count) => decided += count,
                        Err(item) => stray = stray.or(Some(item)),
                    }
                    heard.clear();
                };
                let read = runs(&message[start..], |run| {
                    varints::decode(run, |item| {
                        heard.push(item);
                        if heard.len() >= HEAR_AT {
                            hear(&mut heard);
                        }
                    })
                });
                hear(&mut heard);
                read.map_err(&garbled)?;
                if let Some(item) = stray {
                    let why = format!(
                        "an update for index {} (a {}), not of this process's part",
                        item >> 1,
                        if item & 1 == 1 { "win" } else { "loss or tie" }
                    );
                    return Err(garbled(why));
                }
                part.check(progress)?;
            }
            // The layer before decided nothing anywhere, past every seed:
            // nor did this one, as it had nothing to spread.
            if remoteness > 1 && everyone == 0 && remoteness - 1 > last {
                break;
            }
            own.decided = decided;
            if remoteness >= Cell::MAX_REMOTENESS {
                return Err(TierError::RemotenessOverflow);
            }
            remoteness += 1;
        }
    }
    progress.note(&format!(
        "tier {name}, indices {}..{}: {} rounds, {} updates sent in {} bytes",
        cut.bounds[me],
        cut.bounds[me + 1],
        rounds,
        updates_sent.into_inner(),
        bytes_sent
    ));
    if G::IN_TIER_SYMMETRY {
        unfold(&part, cut, crew, progress)?;
    }
    Ok(part)
}

/// Calls `visit` with each run of `bytes`, runs of updates as a round's
/// message carries them (each its length in bytes, a varint, then that
/// many bytes), while it succeeds; fails where a run does not read.
fn runs(bytes: &[u8], mut visit: impl FnMut(&[u8]) -> Result<(), String>) -> Result<(), String> {
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let len = get_varint(bytes, &mut at)
            .and_then(|len| usize::try_from(len).ok())
            .filter(|&len| len <= bytes.len() - at)
            .ok_or_else(|| format!("a run at byte {start} that does not read"))?;
        visit(&bytes[at..at + len])?;
        at += len;
    }
    Ok(())
}

/// Indices of a part [`unfold`] looks at together: the positions waiting
/// for their representatives' cells from other processes are at most
/// this many.
const WAVE: u64 = 1 << 18;

/// Gives each position of this process's part that is not its symmetry
/// class's representative the representative's cell, asking the other
/// processes of `crew` for those in their parts and answering theirs, in
/// waves of [`WAVE`] indices of each part (see the module docs).
fn unfold<G: NamedTiers>(
    part: &PartWork<'_, G>,
    cut: &Cut,
    crew: &mut Crew,
    progress: &dyn Progress,
) -> Result<(), TierError> {
    let me = cut.process;
    let processes = cut.bounds.len() - 1;
    let longest = (0..processes)
        .map(|p| cut.bounds[p + 1] - cut.bounds[p])
        .max()
        .unwrap_or(0);
    let (start, end) = (cut.bounds[me], cut.bounds[me + 1]);
    let mut representatives = Vec::new();
    for wave in 0..longest.div_ceil(WAVE) {
        let from = (start + wave * WAVE).min(end);
        let mut asked = part.folded(from..(from + WAVE).min(end), progress)?;
        asked.par_sort_unstable();
        let of = |peer: usize| {
            let at = |bound: u64| asked.partition_point(|&(rep, _)| rep < bound);
            at(cut.bounds[peer])..at(cut.bounds[peer + 1])
        };
        for peer in (0..processes).filter(|&p| p != me) {
            representatives.clear();
            representatives.extend(asked[of(peer)].iter().map(|&(rep, _)| rep));
            representatives.dedup();
            let request = varints::encode(&mut representatives);
            crew.send_to(peer, unfold_step(cut.step, false, wave), &request);
        }
        for peer in (0..processes).filter(|&p| p != me) {
            let what = format!("the representatives it asks for, wave {wave}");
            let step = unfold_step(cut.step, false, wave);
            let request = crew.receive(peer, step, &what, &|| progress.cancelled())?;
            let mut answer = Vec::new();
            let mut stray = None;
            let read = varints::decode(&request, |rep| match part.representative_cell(rep) {
                Some(bits) => answer.extend_from_slice(&bits.to_le_bytes()),
                None => stray = stray.or(Some(rep)),
            });
            let garbled =
                |why: String| TierError::Team(crew.garbled(peer, format!("{why}, in {what}")));
            read.map_err(&garbled)?;
            if let Some(rep) = stray {
                return Err(garbled(format!(
                    "index {rep}, no representative of this process's part"
                )));
            }
            crew.send_to(peer, unfold_step(cut.step, true, wave), &answer);
        }
        for peer in (0..processes).filter(|&p| p != me) {
            let what = format!("the cells of the representatives asked of it, wave {wave}");
            let step = unfold_step(cut.step, true, wave);
            let answer = crew.receive(peer, step, &what, &|| progress.cancelled())?;
            let asks = &asked[of(peer)];
            let distinct = asks.chunk_by(|a, b| a.0 == b.0).count();
            if answer.len() != 2 * distinct {
                let why = format!(
                    "{} bytes for the cells of {distinct} representatives, in {what}",
                    answer.len()
                );
                return Err(TierError::Team(crew.garbled(peer, why)));
            }
            let mut cells = answer
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]));
            let mut before = None;
            let mut bits = 0;
            for &(rep, index) in asks {
                if before != Some(rep) {
                    before = Some(rep);
                    bits = cells.next().unwrap_or(bits);
                }
                part.set_folded(index, bits);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_reads_back_and_a_short_one_does_not() {
        let header = Header {
            decided: 300,
            last: [7, 200],
            ties: true,
        };
        let mut bytes = Vec::new();
        header.put(&mut bytes);
        bytes.push(5);
        assert_eq!(Header::get(&bytes), Some((header, bytes.len() - 1)));
        assert_eq!(Header::get(&bytes[..2]), None);
        let ties = bytes.len() - 2;
        bytes[ties] = 2;
        assert_eq!(Header::get(&bytes), None, "ties is 0 or 1");
    }

    #[test]
    fn runs_read_back_and_a_run_cut_short_is_refused() {
        let mut bytes = Vec::new();
        for run in [vec![3u64, 9, 40], vec![1, 2], vec![500]] {
            let coded = varints::encode(&mut run.clone());
            put_varint(coded.len() as u64, &mut bytes);
            bytes.extend_from_slice(&coded);
        }
        let mut back = Vec::new();
        runs(&bytes, |run| varints::decode(run, |n| back.push(n))).unwrap();
        assert_eq!(back, [3, 9, 40, 1, 2, 500]);
        for cut in 1..bytes.len() {
            let read = runs(&bytes[..cut], |run| varints::decode(run, |_| ()));
            // Cut at the end of a run, what is there reads.
            if ![4, 7].contains(&cut) {
                assert!(read.is_err(), "cut at {cut}");
            }
        }
    }

    #[test]
    fn message_steps_differ_by_step_sweep_and_layer() {
        let mut steps = std::collections::HashSet::new();
        for step in 0..5 {
            for sweep in [Sweep::WinLose, Sweep::Tie] {
                for remoteness in [1, 2, Cell::MAX_REMOTENESS] {
                    assert!(steps.insert(message_step(step, sweep, remoteness)));
                }
            }
        }
    }
}
