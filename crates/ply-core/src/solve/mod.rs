//! Solvers. Each is chosen from the capabilities a game offers.

pub(crate) mod alphabeta;
pub mod byte_retro;
pub(crate) mod choose;
pub(crate) mod grundy;
pub(crate) mod heaps;
pub(crate) mod mex;
// The x86 kernels of the dense search (`octal::x86`) are the crate's only
// unsafe code; that module alone allows it.
pub mod octal;
pub(crate) mod reach;
pub mod retro;
pub(crate) mod rule;
// The four retrograde solvers held to one reference of the rule.
#[cfg(all(test, feature = "dist"))]
mod rule_tests;
pub(crate) mod search;
pub(crate) mod sparse;
pub(crate) mod table;
#[cfg(feature = "db")]
pub(crate) mod table_team;

use rayon::prelude::*;
use std::ops::Range;

/// Indices handed to one parallel task at a time: large enough that task
/// overhead vanishes, small enough that two threads share a tier evenly.
pub(crate) const CHUNK: u64 = 1 << 14;

/// Splits `0..len` into ranges of [`CHUNK`] indices, in parallel.
pub(crate) fn chunks(len: u64) -> impl ParallelIterator<Item = Range<u64>> {
    chunks_numbered(len).map(|(_, range)| range)
}

/// Indices [`estimate_count`] looks at, at most.
const SAMPLE: u64 = 4096;

/// About how many indices of `0..len` satisfy `keep`, judged from at most
/// [`SAMPLE`] of them spread evenly over the range: how the solvers size a
/// table of the indices they keep before finding them.
pub(crate) fn estimate_count(len: u64, keep: impl Fn(u64) -> bool) -> u64 {
    if len == 0 {
        return 0;
    }
    let step = len.div_ceil(SAMPLE).max(1);
    let (sampled, kept) = (0..len)
        .step_by(step as usize)
        .fold((0u64, 0u64), |(sampled, kept), index| {
            (sampled + 1, kept + u64::from(keep(index)))
        });
    (u128::from(len) * u128::from(kept) / u128::from(sampled)) as u64
}

/// [`chunks`], each with its number from 0.
pub(crate) fn chunks_numbered(len: u64) -> impl ParallelIterator<Item = (u64, Range<u64>)> {
    (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(move |c| (c, c * CHUNK..len.min((c + 1) * CHUNK)))
}
