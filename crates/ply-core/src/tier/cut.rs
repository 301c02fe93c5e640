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
//! Each process writes its part as its slice file; the tier's writer
//! fetches the others' as for a tier every move leaves, and, under
//! symmetry inside tiers, copies into each position that is not its
//! class's representative the representative's cell ([`unfold`]) before
//! it writes the shard. A lost peer is [`crate::team::TeamError::Lost`],
//! a message that does not read [`crate::team::TeamError::Garbled`],
//! both naming the peer.

use super::TierError;
use super::solve::{ChildCells, PartWork};
use crate::db::codec::{get_varint, put_varint};
use crate::game::NamedTiers;
use crate::progress::Progress;
use crate::solve::chunks;
use crate::solve::rule::Sweep;
use crate::team::{Crew, varints};
use crate::value::{Cell, Remoteness};
use rayon::prelude::*;
use std::ops::Range;

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

/// Solves this process's part of `tier` (a canonical tier) of `game`,
/// in lockstep with the other processes of `crew` (see the module docs),
/// reading the child tiers' cells from `children`: returns the part's
/// cells, those [`super::solve::solve_tier`] gives the same indices (but
/// unknown where a position is solved by its class's representative).
/// What its rounds sent is noted for people.
pub(super) fn solve_part<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    children: &[ChildCells<G::Tier>],
    cut: &Cut,
    crew: &mut Crew,
    progress: &dyn Progress,
) -> Result<Vec<Cell>, TierError> {
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
    let (mut away, mut heard, mut bytes) = (Vec::new(), Vec::with_capacity(HEAR_AT), Vec::new());
    let (mut rounds, mut updates_sent, mut bytes_sent) = (0u64, 0u64, 0u64);
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
            let mut decided = part.layer(remoteness, sweep, &mut away, progress)?;
            away.par_sort_unstable();
            for peer in (0..processes).filter(|&p| p != me) {
                let at = |bound: u64| away.partition_point(|&item| item >> 1 < bound);
                let (from, to) = (at(cut.bounds[peer]), at(cut.bounds[peer + 1]));
                let updates = &mut away[from..to];
                bytes.clear();
                own.put(&mut bytes);
                bytes.extend_from_slice(&varints::encode(updates));
                crew.send_to(peer, step, &bytes);
                updates_sent += updates.len() as u64;
                bytes_sent += bytes.len() as u64;
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
                let read = varints::decode(&message[start..], |item| {
                    heard.push(item);
                    if heard.len() >= HEAR_AT {
                        hear(&mut heard);
                    }
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
        updates_sent,
        bytes_sent
    ));
    Ok(part.into_cells())
}

/// Indices of a tier [`unfold`] looks at together: what it copies waits
/// in lists of at most this many.
const WAVE: u64 = 1 << 20;

/// Gives each position of `tier` of `game` that is not its symmetry
/// class's representative, and whose cell in `cells` (a cell per index of
/// the tier) is unknown, its representative's cell: the cells the parts
/// of a cut tier leave unknown. Fails naming a position whose
/// representative has no cell.
pub(super) fn unfold<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    cells: &mut [Cell],
) -> Result<(), TierError> {
    let len = cells.len() as u64;
    for start in (0..len).step_by(WAVE as usize) {
        let wave: Range<u64> = start..(start + WAVE).min(len);
        let cells_now = &*cells;
        let copies: Vec<Result<Vec<(u64, Cell)>, String>> = chunks(wave.end - wave.start)
            .map(|chunk| {
                let mut copies = Vec::new();
                let mut problem = None;
                let indices = wave.start + chunk.start..wave.start + chunk.end;
                game.for_each_in_tier(tier, indices, |index, position| {
                    if cells_now[index as usize] != Cell::UNKNOWN
                        || problem.is_some()
                        || game.is_representative(&position)
                    {
                        return;
                    }
                    let representative = game.tier_rank(tier, &game.fold_in_tier(&position));
                    match cells_now.get(representative as usize) {
                        Some(&cell) if cell != Cell::UNKNOWN => copies.push((index, cell)),
                        _ => {
                            problem = Some(format!(
                                "tier {} index {index}: its symmetry class's representative \
                                 (index {representative}) has no cell",
                                game.tier_name(tier)
                            ));
                        }
                    }
                });
                problem.map_or(Ok(copies), Err)
            })
            .collect();
        for copies in copies {
            for (index, cell) in copies.map_err(TierError::Game)? {
                cells[index as usize] = cell;
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
