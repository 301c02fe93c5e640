//! A solved tier's left-out remoteness found again in memory. A shard may
//! leave out the remoteness of one side ([`crate::db::leave_out`]); each
//! such cell follows from its children's cells by a search of one ply
//! ([`crate::derive`]). With the tier's own cells in memory, its children
//! inside the tier are read there and the others from `outside`: once per
//! tier, as its shard is taken or read, rather than once per reading tier.

use super::TierError;
use super::cells::Cells;
use crate::derive::Through;
use crate::game::Tiers;
use crate::value::{Cell, Outcome};
use rayon::prelude::*;

/// Indices of a tier one task looks at.
const CHUNK: u64 = 1 << 12;
/// Tasks whose finds are kept before they are set in the cells.
const BATCH: usize = 64;

/// Sets each cell of `cells`, the cells of `tier` of `game`, whose
/// remoteness is left out ([`Cell::left_out`]) to its outcome found from
/// its children: those in `tier` from `cells`, the others (in child tiers)
/// by `outside` with their canonical tier and index. Returns how many it
/// set. Fails with `unfound` of the first key (index in `tier`) whose
/// children contradict its cell, and with the first error of `outside`.
pub fn restore<G: Tiers>(
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
                let mut finds = Vec::new();
                let mut failed = None;
                let cells = &*cells;
                game.for_each_in_tier(tier, first..size.min(first + CHUNK), |index, position| {
                    if failed.is_some() {
                        return;
                    }
                    let Some(value) = cells.cell(index as usize).left_out_value() else {
                        return;
                    };
                    let found = match game.primitive(&position) {
                        Some(end) => (end == value).then(|| Outcome::terminal(end)),
                        None => {
                            let mut through = Through::new(value);
                            let mut error = None;
                            game.for_each_folded_child(&position, |child_tier, child| {
                                if error.is_some() {
                                    return;
                                }
                                let cell = match child_tier == tier {
                                    true => Ok(cells.cell(child as usize)),
                                    false => outside(child_tier, child),
                                };
                                match cell {
                                    Ok(cell) => {
                                        through.child(cell);
                                    }
                                    Err(e) => error = Some(e),
                                }
                            });
                            if let Some(e) = error {
                                failed = Some(e);
                                return;
                            }
                            through.outcome()
                        }
                    };
                    match found {
                        Some(outcome) => finds.push((index, Cell::pack(outcome))),
                        None => failed = Some(unfound(index)),
                    }
                });
                failed.map_or(Ok(finds), Err)
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
