//! A solved tier's left-out remoteness found again in memory. A shard may
//! leave out the remoteness of one side ([`crate::db::leave_out()`]); each
//! such cell follows from its children's cells by a search of one ply
//! ([`crate::derive`]). With the tier's own cells in memory, its children
//! inside the tier are read there and the others from `outside`: once per
//! tier, as its shard is taken or read, rather than once per reading tier.

use super::TierError;
use super::cells::Cells;
use crate::derive::Through;
use crate::game::NamedTiers;
use crate::value::{Cell, Outcome, Value};
use rayon::prelude::*;

/// Indices of a tier one task looks at.
const CHUNK: u64 = 1 << 12;
/// Tasks whose finds are kept before they are set in the cells.
const BATCH: usize = 64;

/// A left-out cell of a chunk, its children listed.
struct Listed {
    /// Its index in the tier.
    index: u64,
    /// The side left out.
    value: Value,
    /// Where its children end in the chunk's list.
    end: usize,
}

/// Sets each cell of `cells`, the cells of `tier` of `game`, whose
/// remoteness is left out ([`Cell::left_out`]) to its outcome found from
/// its children: those in `tier` from `cells`, the others (in child tiers)
/// by `outside` with their canonical tier and index. Returns how many it
/// set. Fails with `unfound` of the first key (index in `tier`) whose
/// children contradict its cell, and with the first error of `outside`.
///
/// Each task lists the children of a chunk's left-out cells first, then
/// reads them all: the reads, most of them far apart in memory, do not
/// wait on one another.
pub fn restore<G: NamedTiers>(
    game: &G,
    tier: G::Tier,
    cells: &mut Cells,
    outside: impl Fn(G::Tier, u64) -> Result<Cell, TierError> + Sync,
    unfound: impl Fn(u64) -> TierError + Sync,
) -> Result<u64, TierError> {
    let size = game.tier_size(tier);
    let chunks: Vec<u64> = (0..size).step_by(CHUNK as usize).collect();
    let mut set = 0;
    for batch in chunks.chunks(BATCH) {
        let finds: Vec<Vec<(u64, Cell)>> = batch
            .par_iter()
            .map(|&first| {
                let cells = &*cells;
                let mut finds = Vec::new();
                let mut listed = Vec::new();
                let mut children = Vec::new();
                game.for_each_in_tier(tier, first..size.min(first + CHUNK), |index, position| {
                    let Some(value) = cells.cell(index as usize).left_out_value() else {
                        return;
                    };
                    match game.primitive(&position) {
                        Some(end) => finds.push((
                            index,
                            match end == value {
                                true => Cell::pack(Outcome::terminal(end)),
                                false => Cell::UNKNOWN,
                            },
                        )),
                        None => {
                            game.for_each_folded_child(&position, |child_tier, child| {
                                if child_tier == tier {
                                    cells.prefetch(child as usize);
                                }
                                children.push((child_tier, child));
                            });
                            listed.push(Listed {
                                index,
                                value,
                                end: children.len(),
                            });
                        }
                    }
                });
                let read = children
                    .iter()
                    .map(|&(child_tier, child)| match child_tier == tier {
                        true => Ok(cells.cell(child as usize)),
                        false => outside(child_tier, child),
                    })
                    .collect::<Result<Vec<Cell>, TierError>>()?;
                let mut start = 0;
                for item in &listed {
                    let mut through = Through::new(item.value);
                    for &cell in &read[start..item.end] {
                        through.child(cell);
                    }
                    start = item.end;
                    finds.push((
                        item.index,
                        through.outcome().map_or(Cell::UNKNOWN, Cell::pack),
                    ));
                }
                match finds.iter().find(|(_, cell)| *cell == Cell::UNKNOWN) {
                    Some(&(index, _)) => Err(unfound(index)),
                    None => Ok(finds),
                }
            })
            .collect::<Result<_, TierError>>()?;
        for (index, cell) in finds.into_iter().flatten() {
            cells.set(index as usize, cell);
            set += 1;
        }
    }
    Ok(set)
}

/// `present[bits]` for the cells of a tier of `size` indices: whether some
/// index holds a cell with those bits, as [`super::Shards::write_of`]
/// takes it.
pub fn present(cells: &Cells, size: usize) -> Vec<bool> {
    (0..size)
        .into_par_iter()
        .with_min_len(1 << 16)
        .fold(
            || vec![false; 1 << 16],
            |mut present, index| {
                present[usize::from(cells.cell(index).bits())] = true;
                present
            },
        )
        .reduce(
            || vec![false; 1 << 16],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a |= b);
                a
            },
        )
}
