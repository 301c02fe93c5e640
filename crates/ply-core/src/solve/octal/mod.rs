//! Octal games: take-and-break games on heaps of tokens, coded
//! `d0.d1d2d3...`. Digit `di` says what may be left after removing `i`
//! tokens from one heap, as a sum of bits: 1 nothing (the whole heap was
//! `i` tokens), 2 one smaller heap, 4 two nonempty heaps. `d0` is 0 or 4
//! (4: a heap may be split in two without removing anything).
//!
//! [`compute`] finds the Grundy value of every heap up to N by the sparse
//! space method, and proves arithmetic periodicity with the octal
//! periodicity theorem (Guy and Smith): if `k` is the most tokens a move
//! removes and `G(n + p) = G(n)` for every `n` in `n0 <= n < 2*n0 + p + k`,
//! then `G(n + p) = G(n)` for every `n >= n0`. A period is reported only
//! once the values computed prove it this way, never guessed.
//!
//! # The sparse space method
//! Fix a bit mask `m` and call a value *odd* or *even* by the parity of its
//! bits under the mask. Classify each heap as *rare* or *common* so that
//! (range type) rare heaps are those with even values, or (domain type,
//! only when every splitting move removes a count of one parity `t`) those
//! whose value parity equals the parity of `n - t`. Then the XOR of two
//! heaps of one class always has one parity for a given heap size being
//! split, and the XOR of a rare and a common heap always has the other:
//! the *scarce* parity. For many games rare heaps are few, so
//!
//! 1. every option of scarce parity comes from a pair with a rare heap,
//!    found by running over the short list of rare heaps;
//! 2. the candidate is the least scarce-parity value not among those;
//! 3. the abundant-parity values below the candidate are confirmed present
//!    by a sweep over the pairs that stops as soon as all are found, which
//!    is nearly at once when the common values are plentiful. If the sweep
//!    runs out, the least missing value is the answer.
//!
//! Each step is exact whatever the mask, so the mask only decides the
//! speed. It is chosen from the values themselves: at every power of two
//! from 1024 on, the mask (and type) that makes the fewest recent heaps
//! rare, counted for all masks at once with a Walsh-Hadamard transform.
//!
//! # The dense kernel
//! Some games have no sparse space, or only late: 0.007 (Treblecross)
//! keeps a fifth of its heaps rare at 2^16 under the best mask. While rare
//! heaps are not few, every pair is visited, as fast as it can be: the
//! heaps of a block of 256 need each other only for the few pairs with a
//! part inside the block, so all other pairs of all 256 heaps are marked at
//! once, in parallel, in tiles that keep their values in the first-level
//! cache. The pairs whose smaller part is in the first `SHARE` of the
//! range (at most `MARK_CAP` parts) are marked with one byte store per
//! pair into a per-heap table of values seen; the rest are not marked but
//! searched for the least values still unmarked, until a search misses
//! one. With AVX-512 and its bit shuffle (chosen at run time), up to
//! `TABLE_TARGETS` values at once, in one pass: they are a bit table in
//! two registers, and each XOR of 32 pairs is looked up in it with a
//! permute and a bit shuffle, a store only for a value found the first
//! time. Elsewhere four values at a time, with wide compares (AVX-512 or
//! AVX2) that stop as soon as each is found. A byte store per pair is the
//! limit of marking; a lookup handles 32 pairs for a few instructions, and
//! most values below the mex turn up among the marked pairs. Then each
//! heap in turn adds its in-block pairs and takes the mex, searching the
//! unmarked pairs again for values that only it leaves open.
//!
//! # Modules
//! The code itself is [`OctalCode`]; here, the sparse space method
//! is `sparse`, the dense kernel `dense`, its x86 kernels `x86`, the
//! one module of the crate that may use `unsafe`, and what those two share
//! (the bit table of targets and the portable search) `lanes`.

mod dense;
mod lanes;
mod sparse;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use crate::octal_code::{OctalCode, OctalError};

use crate::error::SolveError;
use crate::progress::Progress;
use crate::solve::mex::MexSet;
use crate::value::Nimber;
use sparse::{Mask, sparse_mex};
use std::ops::Range;

/// The largest heap [`compute`] accepts: it keeps two copies of the values
/// at two bytes each.
pub const MAX_UP_TO: usize = 1 << 30;

/// The first heap where the mask is chosen and periodicity is checked; it
/// is done again at every power of two after it.
const CHECKPOINT: usize = 1024;
/// Heaps the dense kernel computes together.
const BLOCK: usize = 256;
/// Heaps the dense kernel takes together in one tile (and one thread).
const GROUP: usize = 16;
/// Values of the smaller part the dense kernel takes together in one tile.
const CHUNK: usize = 4096;
/// Values the dense kernel checks against the unmarked pairs in one pass.
const TARGETS: usize = 4;
/// The unit of [`SHARE`].
const SHARES: usize = 64;
/// Of the pairs below a dense block, the share (in `SHARES`ths) marked one
/// byte store per pair, up to [`MARK_CAP`]; the rest are only searched for
/// the least values still unmarked. Marking less leaves more values for
/// the search to find, each a mispredicted branch and often another pass.
/// Measured on 0.007 to 2^17 with the AVX-512 table search (one thread,
/// wall seconds, AMD EPYC, 2026-11-24): 4/64 1.19-1.33, 8/64 1.08, 12/64
/// 1.03-1.05, 16/64 0.82-0.97, 20/64 0.84-0.88, 24/64 0.94-0.98, 32/64
/// 1.10-1.13. With the four-value search, 16/64 was best with AVX-512 and
/// 32/64 with AVX2 only (16/64 1.87, 32/64 1.72 user CPU seconds).
const SHARE: usize = 16;
/// The most smaller parts marked per heap: past it the search is cheaper
/// than a store per pair. To 2^20 with 16/64 and the table search (two
/// threads, wall seconds, 2026-11-24): 8192 12.8-14.0, 12288 12.2-12.7,
/// 16384 11.6-12.7, 32768 12.7-13.6, 65536 15.5-17.4.
const MARK_CAP: usize = 1 << 14;
/// Below this heap the plain loop is as fast as the dense kernel.
const DENSE_FROM: usize = 2048;
/// The sparse space method is used while fewer than one heap in this many
/// is rare. Visiting the rare heaps reads values out of order, and the sweep
/// that confirms the abundant values adds more, so it beats the dense kernel
/// (which streams through every pair on every core) only when rare heaps
/// are this few: 0.007 keeps about 22,400 rare heaps from 2^19 on, and up to
/// 2^20 the dense kernel is still far faster for it (with one heap in 16 as
/// the switch, so that the sparse method takes over at 2^19: 141.7 s to
/// 2^20 against 13.1 s, 2026-11-24).
const SPARSE_RATIO: usize = 64;

/// Arithmetic periodicity: `G(n + period) = G(n)` for every `n >= preperiod`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Period {
    /// The least period.
    pub period: usize,
    /// The least heap from which the values repeat.
    pub preperiod: usize,
}

/// The Grundy values of an octal game for heaps `0..=up_to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalValues {
    /// The game.
    pub code: OctalCode,
    /// `values[n]` is the value of a heap of `n` tokens.
    pub values: Vec<u16>,
    /// The period and preperiod, when the periodicity theorem proves them
    /// within these values.
    pub period: Option<Period>,
}

impl OctalValues {
    /// The largest heap computed.
    pub fn up_to(&self) -> usize {
        self.values.len() - 1
    }

    /// The largest value.
    pub fn max(&self) -> Nimber {
        self.values.iter().copied().max().map_or(0, Nimber::from)
    }

    /// The heaps of value 0 (second-player wins), ascending.
    pub fn zeros(&self) -> Vec<usize> {
        (0..self.values.len())
            .filter(|&n| self.values[n] == 0)
            .collect()
    }
}

/// The values for heaps `0..=up_to` by the plain mex loop, O(up_to²) for
/// codes that split heaps: the baseline [`compute`] is checked against.
pub fn plain_values(code: &OctalCode, up_to: usize) -> Result<Vec<u16>, SolveError> {
    let mut values = Vec::with_capacity(up_to + 1);
    values.push(0);
    let mut set = MexSet::new();
    for n in 1..=up_to {
        set.clear();
        code.for_each_option(n, &values, |v| {
            set.insert(Nimber::from(v));
        });
        values.push(narrow(set.mex(), n)?);
    }
    Ok(values)
}

/// The values for heaps `0..=up_to`, with the period once the periodicity
/// theorem proves it (values past that point follow from the period).
/// Uses the sparse space method while a mask makes rare heaps few, and
/// otherwise a dense kernel that runs through all pairs of a block of heaps
/// at once, in parallel. Reports progress in heaps.
pub fn compute(
    code: &OctalCode,
    up_to: usize,
    progress: &dyn Progress,
) -> Result<OctalValues, SolveError> {
    if up_to > MAX_UP_TO {
        return Err(SolveError::Unsupported(format!(
            "heaps up to {up_to} would need {:.1} GiB (4 bytes a heap); at most {MAX_UP_TO} heaps are supported",
            (up_to as f64 + 1.0) * 4.0 / f64::from(1u32 << 30)
        )));
    }
    let out_of_memory = || SolveError::OutOfMemory(2 * 2 * (up_to as u64 + 1));
    let mut values: Vec<u16> = Vec::new();
    values
        .try_reserve_exact(up_to + 1)
        .map_err(|_| out_of_memory())?;
    values.push(0);
    // reversed[up_to - n] is G(n), so G(rest - a) runs forward with a.
    let mut reversed: Vec<u16> = Vec::new();
    reversed
        .try_reserve_exact(up_to + 1)
        .map_err(|_| out_of_memory())?;
    reversed.resize(up_to + 1, 0);
    let mut engine = Engine::new(code);
    let mut period = None;
    progress.begin(&format!("octal {code}"), up_to as u64);
    let mut n = 1;
    while n <= up_to {
        if progress.cancelled() {
            progress.end();
            return Err(SolveError::Cancelled(format!(
                "octal {code} cancelled at heap {n}"
            )));
        }
        if n >= CHECKPOINT && n.is_power_of_two() {
            period = find_period(&values, code.max_take());
            if period.is_some() {
                break;
            }
            engine.choose_mask(&values);
        }
        let checkpoint = (n + 1).next_power_of_two().max(CHECKPOINT);
        let end = (up_to + 1).min(n + BLOCK).min(checkpoint);
        engine.block(n..end, &mut values, &mut reversed)?;
        progress.advance((end - n) as u64);
        n = end;
    }
    if let Some(Period { period: p, .. }) = period {
        progress.advance((up_to + 1 - values.len()) as u64);
        for n in values.len()..=up_to {
            values.push(values[n - p]);
        }
    } else {
        period = find_period(&values, code.max_take());
    }
    progress.end();
    Ok(OctalValues {
        code: code.clone(),
        values,
        period,
    })
}

/// The least period the periodicity theorem proves from `values` (heaps
/// `0..values.len()`) for a game removing at most `max_take` tokens, with
/// the least preperiod.
///
/// For each candidate period `p`, the last heap `m` with
/// `G(m) != G(m + p)` gives the preperiod `n0 = m + 1`; the theorem needs
/// the values up to `2*n0 + 2p + k - 1`. (The theorem's argument needs
/// `n0 >= 1`, so `n0 = 0` is proved from 1 and extended by the checked
/// `G(p) = G(0)`.) A multiple of the least period has the same preperiod
/// and needs more values, so the first `p` that passes is the least period.
pub fn find_period(values: &[u16], max_take: usize) -> Option<Period> {
    let last = values.len().checked_sub(1)?;
    let mut p = 1;
    // The theorem needs 2*n0 + 2p + k - 1 <= last with n0 >= 1.
    while 2 * p + max_take < last {
        let limit = (last + 1 - 2 * p - max_take) / 2;
        let mismatch = (0..=last - p).rev().find(|&m| values[m] != values[m + p]);
        let preperiod = mismatch.map_or(0, |m| m + 1);
        if preperiod.max(1) <= limit {
            return Some(Period {
                period: p,
                preperiod,
            });
        }
        p += 1;
    }
    None
}

fn narrow(value: Nimber, n: usize) -> Result<u16, SolveError> {
    u16::try_from(value).map_err(|_| {
        SolveError::Overflow(format!(
            "the value of heap {n} exceeds 65535; values that large are not supported"
        ))
    })
}

/// The parity of the bits of `value` under `mask`.
fn parity(value: u16, mask: u16) -> u8 {
    ((value & mask).count_ones() & 1) as u8
}

/// The state of the computation between heaps.
struct Engine {
    /// Removals after which one heap may remain (`di` has bit 2).
    take_some: Vec<usize>,
    /// Removals that may take a whole heap (`di` has bit 1).
    take_all: Vec<usize>,
    /// Removals after which two heaps may remain (`di` has bit 4).
    split: Vec<usize>,
    /// Whether every splitting removal has one parity, so the domain type
    /// may be used.
    domain_allowed: bool,
    /// The sparse space mask, while it makes rare heaps few.
    mask: Option<Mask>,
    /// Rare heaps under the mask, ascending.
    rare: Vec<u32>,
    /// The largest value so far.
    max: u16,
    found: MexSet,
    /// One byte per value for each heap of a dense block: 1 where some pair
    /// of known heaps gives that value.
    seen: Vec<u8>,
    /// Bytes per heap in `seen`: a power of two above every value.
    width: usize,
    /// For each heap of a dense block: `seen` is exact for the values
    /// below this (the others may be unmarked yet given by some pair).
    exact: Vec<usize>,
    /// The dense kernel marks the pairs whose smaller part is at most this.
    marked_end: usize,
}

impl Engine {
    fn new(code: &OctalCode) -> Self {
        let digits = (0..=code.max_take()).map(|i| (i, code.digit(i)));
        let with = |bit: u8| -> Vec<usize> {
            digits
                .clone()
                .filter(|&(i, d)| d & bit != 0 && (i > 0 || bit == 4))
                .map(|(i, _)| i)
                .collect()
        };
        let split = with(4);
        let domain_allowed = split.windows(2).all(|w| (w[0] ^ w[1]) & 1 == 0);
        Self {
            take_some: with(2),
            take_all: with(1),
            split,
            domain_allowed,
            mask: None,
            rare: Vec::new(),
            max: 0,
            found: MexSet::with_capacity(1 << 12),
            seen: Vec::new(),
            width: 0,
            exact: Vec::new(),
            marked_end: 0,
        }
    }

    /// Computes heaps `heaps` (which follow the heaps in `values`), adding
    /// them to `values` and `reversed`.
    fn block(
        &mut self,
        heaps: Range<usize>,
        values: &mut Vec<u16>,
        reversed: &mut [u16],
    ) -> Result<(), SolveError> {
        let up_to = reversed.len() - 1;
        if self.mask.is_none() && heaps.start >= DENSE_FROM && !self.split.is_empty() {
            self.marked_end = (heaps.start / 2 * SHARE / SHARES).clamp(1, MARK_CAP);
            self.mark_known_pairs(heaps.clone(), values, reversed);
        }
        let dense = !self.seen.is_empty();
        for (j, n) in heaps.enumerate() {
            self.found.clear();
            self.insert_single_heap_options(n, values);
            let value = if dense {
                self.finish_dense(j, n, values, reversed)
            } else if self.mask.is_some() && self.split.iter().any(|&i| n >= i + 2) {
                let mask = self.mask.as_ref().expect("checked above");
                sparse_mex(n, values, &self.split, mask, &self.rare, &mut self.found)
            } else {
                self.insert_all_pairs(n, values);
                self.found.mex()
            };
            let value = narrow(value, n)?;
            values.push(value);
            reversed[up_to - n] = value;
            self.max = self.max.max(value);
            if let Some(mask) = &self.mask
                && mask.is_rare(n, value)
            {
                self.rare.push(n as u32);
            }
        }
        self.seen.clear();
        Ok(())
    }

    /// The options that leave at most one heap.
    fn insert_single_heap_options(&mut self, n: usize, values: &[u16]) {
        for &i in &self.take_all {
            if n == i {
                self.found.insert(0);
            }
        }
        for &i in &self.take_some {
            if n > i {
                self.found.insert(Nimber::from(values[n - i]));
            }
        }
    }

    /// Every splitting option, the plain way.
    fn insert_all_pairs(&mut self, n: usize, values: &[u16]) {
        for &i in &self.split {
            if n >= i + 2 {
                let rest = n - i;
                for a in 1..=rest / 2 {
                    self.found
                        .insert(Nimber::from(values[a] ^ values[rest - a]));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::dense::*;
    use super::lanes::*;
    use super::sparse::*;
    use super::*;
    use crate::progress::NoProgress;
    use proptest::prelude::*;

    #[test]
    fn codes_are_validated() {
        for good in [
            "0.07", "0.77", "0.137", "0.007", "4.7", ".77", "4.", "0.070",
        ] {
            assert!(OctalCode::parse(good).is_ok(), "{good}");
        }
        assert_eq!(OctalCode::parse("0.070").unwrap().max_take(), 2);
        for (bad, why) in [
            (
                "0.08",
                "'8' (digit 2 after the point) is not an octal digit",
            ),
            ("1.07", "before the point must be 0 or 4"),
            ("007", "expected digits around a point"),
            ("0.", "expected digits after the point"),
            ("0.7x", "'x' (digit 2"),
            ("", "expected digits around a point"),
        ] {
            let err = OctalCode::parse(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn walsh_hadamard_counts_parities() {
        let mut h = vec![3, 0, 1, 2];
        walsh_hadamard(&mut h);
        // m = 1: +3 (v=0) -0 (v=1) +1 (v=2) -2 (v=3)
        assert_eq!(h, vec![6, 2, 0, 4]);
    }

    #[test]
    fn the_theorem_needs_enough_values() {
        // Period 2 from the start: 2*1 + 2*2 + 1 - 1 = 6 values past 0.
        let values = [0, 1, 0, 1, 0, 1, 0];
        assert_eq!(
            find_period(&values, 1),
            Some(Period {
                period: 2,
                preperiod: 0
            })
        );
        assert_eq!(find_period(&values[..6], 1), None);
        // An exception at 3 moves the preperiod to 4.
        let values = [0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1];
        assert_eq!(
            find_period(&values, 1),
            Some(Period {
                period: 2,
                preperiod: 4
            })
        );
    }

    /// Cancelled before the first heap: a progress that always says stop.
    struct Stop;
    impl Progress for Stop {
        fn begin(&self, _: &str, _: u64) {}
        fn advance(&self, _: u64) {}
        fn end(&self) {}
        fn cancelled(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_cancelled_computation_stops_with_an_error() {
        let code = OctalCode::parse("0.007").unwrap();
        let err = compute(&code, 1 << 20, &Stop).unwrap_err();
        assert!(err.to_string().contains("cancelled"), "{err}");
    }

    #[test]
    fn the_dense_kernel_agrees_with_the_plain_loop_on_treblecross() {
        // 0.007 has no sparse space, so every block from DENSE_FROM on
        // marks a share of its pairs and searches the rest.
        let code = OctalCode::parse("0.007").unwrap();
        let fast = compute(&code, 12_000, &NoProgress).unwrap();
        assert_eq!(fast.values, plain_values(&code, 12_000).unwrap());
    }

    /// [`hits`] the plain way.
    fn plain_hits(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
        let mut hit = 0;
        for (&x, &y) in left.iter().zip(right) {
            for (t, &target) in targets.iter().enumerate() {
                if x ^ y == target {
                    hit |= 1 << t;
                }
            }
        }
        hit
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn every_hits_path_agrees_with_the_plain_one(
            pairs in proptest::collection::vec((0u16..64, 0u16..64), 0..3000),
            targets in proptest::array::uniform4(0u16..70),
        ) {
            let (left, right): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            let plain = plain_hits(&left, &right, &targets);
            prop_assert_eq!(hits(&left, &right, &targets), plain);
            prop_assert_eq!(hits_portable::<16>(&left, &right, &targets), plain);
            prop_assert_eq!(hits_portable::<32>(&left, &right, &targets), plain);
            #[cfg(target_arch = "x86_64")]
            for (kernel, hit) in super::x86::each_hits_kernel(&left, &right, &targets) {
                prop_assert_eq!(hit, plain, "{}", kernel);
            }
        }
    }

    /// A table kernel the plain way, one pair at a time.
    fn mark_targets_plain(seen: &mut [u8], pairs: &[(&[u16], &[u16])], targets: &mut Targets) {
        for &(left, right) in pairs {
            for (&x, &y) in left.iter().zip(right) {
                let v = usize::from(x ^ y);
                if targets.remove(v) {
                    seen[v] = 1;
                }
            }
        }
    }

    /// Checks what [`search_unmarked`] promises: it marks only values some
    /// pair gives, `seen` is exact below the bound, and the bound passes the
    /// least value neither marked nor given (or is the width).
    fn check_search(
        before: &[u8],
        after: &[u8],
        pairs: &[(&[u16], &[u16])],
        bound: usize,
    ) -> Result<(), TestCaseError> {
        let mut given = vec![false; before.len()];
        for &(left, right) in pairs {
            for (&x, &y) in left.iter().zip(right) {
                given[usize::from(x ^ y)] = true;
            }
        }
        let known: Vec<bool> = before
            .iter()
            .zip(&given)
            .map(|(&b, &g)| b == 1 || g)
            .collect();
        for v in 0..before.len() {
            prop_assert!(
                after[v] == 0 || known[v],
                "value {} marked but never given",
                v
            );
            if v < bound {
                prop_assert_eq!(
                    after[v] == 1,
                    known[v],
                    "value {} below the bound {}",
                    v,
                    bound
                );
            }
        }
        let least_missing = known.iter().position(|&k| !k).unwrap_or(before.len());
        prop_assert!(
            bound > least_missing || bound == before.len(),
            "bound {} not past the least missing value {}",
            bound,
            least_missing
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn every_search_path_keeps_its_promise(
            width_bits in 6u32..=11,
            pool in proptest::collection::vec(any::<u16>(), 1..6000),
            slices in proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0usize..2500), 1..4),
            marks in proptest::collection::vec(any::<bool>(), 2048),
        ) {
            let width = 1usize << width_bits;
            let pool: Vec<u16> = pool.iter().map(|&v| v % width as u16).collect();
            let pairs: Vec<(&[u16], &[u16])> = slices
                .iter()
                .map(|(l, r, len)| {
                    let (l, r) = (l.index(pool.len()), r.index(pool.len()));
                    let len = (*len).min(pool.len() - l).min(pool.len() - r);
                    (&pool[l..l + len], &pool[r..r + len])
                })
                .collect();
            let before: Vec<u8> = marks[..width].iter().map(|&m| u8::from(m)).collect();
            let mut after = before.clone();
            let bound = search_unmarked(&mut after, &pairs);
            check_search(&before, &after, &pairs, bound)?;
            let mut after = before.clone();
            let bound = search_by_fours(&mut after, &pairs);
            check_search(&before, &after, &pairs, bound)?;
            let mut plain = before.clone();
            let plain_bound = search_by_table(&mut plain, &pairs, mark_targets_plain);
            check_search(&before, &plain, &pairs, plain_bound)?;
            #[cfg(target_arch = "x86_64")]
            if let Some(kernel) = super::x86::table_kernel() {
                let mut wide = before.clone();
                let bound = search_by_table(&mut wide, &pairs, kernel);
                prop_assert_eq!(bound, plain_bound);
                prop_assert_eq!(wide, plain);
            }
        }
    }

    fn any_code() -> impl Strategy<Value = String> {
        (
            prop_oneof![Just("0"), Just("4")],
            proptest::collection::vec(0u8..8, 1..5),
        )
            .prop_map(|(d0, digits)| {
                let digits: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
                format!("{d0}.{digits}")
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]
        #[test]
        fn sparse_space_agrees_with_the_plain_loop(code in any_code()) {
            let code = OctalCode::parse(&code).unwrap();
            let plain = plain_values(&code, 3000);
            let fast = compute(&code, 3000, &NoProgress);
            match (plain, fast) {
                (Ok(plain), Ok(fast)) => {
                    prop_assert_eq!(&fast.values, &plain);
                    prop_assert_eq!(fast.period, find_period(&plain, code.max_take()));
                }
                (plain, fast) => prop_assert_eq!(plain.is_err(), fast.is_err()),
            }
        }
    }
}
