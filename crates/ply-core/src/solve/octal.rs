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

use super::grundy::MexSet;
use crate::error::SolveError;
use crate::progress::Progress;
use crate::value::Nimber;
use rayon::prelude::*;
use std::fmt;
use std::ops::Range;

/// An octal code that is not valid, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalError(pub String);

impl fmt::Display for OctalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OctalError {}

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

/// The rules of an octal game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalCode {
    text: String,
    /// `digits[i]` is `di`, without trailing zero digits.
    digits: Vec<u8>,
}

impl OctalCode {
    /// Reads a code such as `0.07`, `0.137`, `4.7` or `.77`.
    pub fn parse(text: &str) -> Result<Self, OctalError> {
        let bad = |why: String| OctalError(format!("bad octal code '{text}': {why}"));
        let (before, after) = text
            .split_once('.')
            .ok_or_else(|| bad("expected digits around a point, e.g. 0.07".into()))?;
        let d0 = match before {
            "" | "0" => 0,
            "4" => 4,
            other => {
                return Err(bad(format!(
                    "the digit before the point must be 0 or 4, found '{other}'"
                )));
            }
        };
        let mut digits = vec![d0];
        for (i, ch) in after.chars().enumerate() {
            match ch.to_digit(8) {
                Some(d) => digits.push(d as u8),
                None => {
                    return Err(bad(format!(
                        "'{ch}' (digit {} after the point) is not an octal digit 0-7",
                        i + 1
                    )));
                }
            }
        }
        if after.is_empty() && d0 == 0 {
            return Err(bad("expected digits after the point, e.g. 0.07".into()));
        }
        while digits.len() > 1 && digits.last() == Some(&0) {
            digits.pop();
        }
        Ok(Self {
            text: text.to_string(),
            digits,
        })
    }

    /// The code as it was written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The most tokens one move removes (`k` in the periodicity theorem).
    pub fn max_take(&self) -> usize {
        self.digits.len() - 1
    }

    /// Digit `di` (0 past the last digit).
    pub fn digit(&self, i: usize) -> u8 {
        self.digits.get(i).copied().unwrap_or(0)
    }

    /// Calls `visit` with the nimber of every option of a heap of `n`
    /// tokens, given the values of all smaller heaps: the plain way.
    pub fn for_each_option(&self, n: usize, values: &[u16], mut visit: impl FnMut(u16)) {
        self.for_each_split(n, |[a, b]| visit(values[a] ^ values[b]));
    }

    /// Calls `visit` with the heaps every move from a heap of `n` tokens
    /// leaves (0 for none), each pair once with the smaller first, except
    /// that a pair reached by removing different counts repeats.
    pub fn for_each_split(&self, n: usize, mut visit: impl FnMut([usize; 2])) {
        for (i, &d) in self.digits.iter().enumerate() {
            if i > 0 && d & 1 != 0 && n == i {
                visit([0, 0]);
            }
            if i > 0 && d & 2 != 0 && n > i {
                visit([0, n - i]);
            }
            if d & 4 != 0 && n >= i + 2 {
                let rest = n - i;
                for a in 1..=rest / 2 {
                    visit([a, rest - a]);
                }
            }
        }
    }

    /// Whether a heap of `n` tokens has a move.
    pub fn has_move(&self, n: usize) -> bool {
        self.digits.iter().enumerate().any(|(i, &d)| {
            (i > 0 && d & 1 != 0 && n == i)
                || (i > 0 && d & 2 != 0 && n > i)
                || (d & 4 != 0 && n >= i + 2)
        })
    }
}

impl fmt::Display for OctalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

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

#[derive(Clone, Debug)]
struct Mask {
    bits: u16,
    /// Domain type: rare heaps have value parity equal to that of `n - t`.
    domain: bool,
    /// A splitting removal count; all have its parity under the domain type.
    t: usize,
    /// Bit `v` of word `w` is set when `64w + v` has odd parity under the
    /// mask (values past 65535 repeat, as the mask has 16 bits).
    odd: Vec<u64>,
}

impl Mask {
    fn new(bits: u16, domain: bool, t: usize) -> Self {
        let mut odd = vec![0u64; 1024];
        for v in 0..=u16::MAX {
            if parity(v, bits) == 1 {
                odd[usize::from(v) / 64] |= 1 << (v % 64);
            }
        }
        Self {
            bits,
            domain,
            t,
            odd,
        }
    }

    /// The parity rare heaps of size `n` have.
    fn rare_parity(&self, n: usize) -> u8 {
        if self.domain {
            ((n ^ self.t) & 1) as u8
        } else {
            0
        }
    }

    fn is_rare(&self, n: usize, value: u16) -> bool {
        parity(value, self.bits) == self.rare_parity(n)
    }

    /// The scarce parity of options of heap `n`: that of XORs of a rare and
    /// a common heap whose sizes add up to `n` less a splitting removal
    /// (which has the parity of `t`, so the sum has the parity of `n - t`).
    fn scarce_parity(&self, n: usize) -> u8 {
        1 ^ self.rare_parity(n)
    }

    /// The values in word `word` with parity `parity`.
    fn class_word(&self, parity: u8, word: usize) -> u64 {
        let odd = self.odd[word % 1024];
        if parity == 1 { odd } else { !odd }
    }
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

    /// The dense kernel, first half: for every heap of the block, in
    /// parallel, finds which values the splitting options with both parts
    /// below the block (nearly all of them) give, exactly from 0 up to the
    /// first few values they miss. The pairs with the smaller part up to
    /// `marked_end` are marked one byte store per pair; the others are only
    /// searched for the least values still unmarked ([`search_unmarked`]).
    fn mark_known_pairs(&mut self, heaps: Range<usize>, values: &[u16], reversed: &[u16]) {
        let width = (usize::from(self.max) + 1).next_power_of_two().max(64);
        self.width = width;
        self.seen.clear();
        self.seen.resize(heaps.len() * width, 0);
        self.exact.clear();
        self.exact.resize(heaps.len(), 0);
        let up_to = reversed.len() - 1;
        let start = heaps.start;
        let split = &self.split;
        let marked_end = self.marked_end;
        // The pairs (a, rest - a) of heap n for splitting removal i, with
        // a in low..=high: those whose part rest - a is below the block.
        let known = |n: usize, i: usize| {
            let rest = n.checked_sub(i).filter(|&rest| rest >= 2)?;
            let low = (rest + 1).saturating_sub(start).max(1);
            Some((rest, low, rest / 2)).filter(|&(_, low, high)| low <= high)
        };
        let range = |n: usize, i: usize| {
            known(n, i)
                .map(|(rest, low, high)| (rest, low, high.min(marked_end)))
                .filter(|&(_, low, high)| low <= high)
        };
        // Tiles of GROUP heaps by CHUNK values of a keep both slices and
        // every heap's marks in the first-level cache.
        self.seen
            .par_chunks_mut(width * GROUP)
            .zip(self.exact.par_chunks_mut(GROUP))
            .enumerate()
            .for_each(|(g, (group, exact))| {
                let first = start + g * GROUP;
                let last = first + group.len() / width - 1;
                let end = split
                    .iter()
                    .filter_map(|&i| range(last, i))
                    .map(|r| r.2)
                    .max()
                    .unwrap_or(0);
                for chunk in (1..=end).step_by(CHUNK) {
                    let chunk_end = (chunk + CHUNK - 1).min(end);
                    for (k, seen) in group.chunks_mut(width).enumerate() {
                        for &i in split {
                            if let Some((rest, low, high)) = range(first + k, i) {
                                let (low, high) = (low.max(chunk), high.min(chunk_end));
                                if low <= high {
                                    let right = up_to - rest;
                                    mark(
                                        seen,
                                        &values[low..=high],
                                        &reversed[right + low..=right + high],
                                    );
                                }
                            }
                        }
                    }
                }
                for (k, (seen, exact)) in group.chunks_mut(width).zip(exact).enumerate() {
                    let pairs = split.iter().filter_map(|&i| {
                        let (rest, low, high) = known(first + k, i)?;
                        let low = low.max(marked_end + 1);
                        let right = up_to - rest;
                        (low <= high)
                            .then(|| (&values[low..=high], &reversed[right + low..=right + high]))
                    });
                    *exact = search_unmarked(seen, pairs.collect::<Vec<_>>().as_slice());
                }
            });
    }

    /// The dense kernel, second half, for heap `n`, the `j`th of its block:
    /// the options with a part inside the block (marked beside the first
    /// half's marks), then the mex, which is exact when it falls where the
    /// first half knows every value; past that, the least values still
    /// unknown are searched for among the unmarked pairs, a few at a time,
    /// until one is missing.
    fn finish_dense(&mut self, j: usize, n: usize, values: &[u16], reversed: &[u16]) -> Nimber {
        let start = n - j;
        let up_to = reversed.len() - 1;
        let width = self.width;
        let seen = &mut self.seen[j * width..(j + 1) * width];
        // While every value is below the width, so is every XOR: marked as
        // in the first half, both parts read forward.
        let below = usize::from(self.max) < width;
        for &i in &self.split {
            if n < i + 2 {
                continue;
            }
            let rest = n - i;
            let high = (rest / 2).min(rest.saturating_sub(start));
            if below && high > 0 {
                let right = up_to - rest;
                mark(seen, &values[1..=high], &reversed[right + 1..=right + high]);
            } else {
                for a in 1..=high {
                    self.found
                        .insert(Nimber::from(values[a] ^ values[rest - a]));
                }
            }
        }
        let seen = &*seen;
        let marked = |word: usize| {
            let bytes = seen.get(word * 64..(word + 1) * 64).unwrap_or(&[]);
            bytes
                .chunks_exact(8)
                .enumerate()
                .fold(0u64, |bits, (k, eight)| {
                    // Eight bytes of 0 or 1 gathered into eight bits.
                    let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
                    bits | (eight.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k)
                })
        };
        let value = self.found.least_missing(|word| !marked(word));
        if (value as usize) < self.exact[j] {
            return value;
        }
        // The unmarked pairs of each splitting removal: a in from..=rest/2.
        let unmarked: Vec<(usize, usize, usize)> = self
            .split
            .iter()
            .filter_map(|&i| {
                let rest = n.checked_sub(i).filter(|&rest| rest >= 2)?;
                let from = (self.marked_end + 1).max(rest.saturating_sub(start) + 1);
                (from <= rest / 2).then_some((rest, from, rest / 2))
            })
            .collect();
        loop {
            let mut targets = [0u16; TARGETS];
            for target in &mut targets {
                let v = self.found.least_missing(|word| !marked(word));
                // Values past 65535 are refused later; any target will do.
                *target = u16::try_from(v).unwrap_or(u16::MAX);
                self.found.insert(v);
            }
            let mut hit = 0u32;
            for &(rest, from, to) in &unmarked {
                let right = up_to - rest;
                hit |= hits(
                    &values[from..=to],
                    &reversed[right + from..=right + to],
                    &targets,
                );
            }
            if hit != (1 << TARGETS) - 1 {
                return Nimber::from(targets[hit.trailing_ones() as usize]);
            }
        }
    }

    /// Chooses the mask that makes the fewest of the later half of `values`
    /// rare, and lists the rare heaps under it. Keeps every option visited
    /// (no mask) if the game never splits a heap.
    fn choose_mask(&mut self, values: &[u16]) {
        if self.split.is_empty() {
            return;
        }
        let max = values.iter().copied().max().unwrap_or(0);
        let bits = 16 - max.leading_zeros();
        let size = 1usize << bits;
        let t = self.split[0];
        // hist[h][v]: heaps in the window with value v and (n - t) of parity h.
        let mut hist = [vec![0i64; size], vec![0i64; size]];
        let window = values.len() / 2..values.len();
        for n in window.clone() {
            hist[(n ^ t) & 1][usize::from(values[n])] += 1;
        }
        let totals = [hist[0].iter().sum::<i64>(), hist[1].iter().sum::<i64>()];
        for h in &mut hist {
            walsh_hadamard(h);
        }
        // Rare heaps for mask m: range type, those with even values:
        // (H + W0(m) + W1(m)) / 2; domain type: even values where n - t is
        // even, odd ones where it is odd: (H0 + W0(m) + H1 - W1(m)) / 2.
        let mut best: Option<(i64, u16, bool)> = None;
        let walsh = hist[0].iter().zip(&hist[1]).enumerate().skip(1);
        for (m, (&w0, &w1)) in walsh {
            let range = (totals[0] + totals[1] + w0 + w1) / 2;
            let domain = (totals[0] + w0 + totals[1] - w1) / 2;
            let mut consider = |count: i64, domain: bool| {
                if best.is_none_or(|(c, _, _)| count < c) {
                    best = Some((count, m as u16, domain));
                }
            };
            consider(range, false);
            if self.domain_allowed {
                consider(domain, true);
            }
        }
        let Some((_, bits, domain)) = best else {
            return;
        };
        let mask = Mask::new(bits, domain, t);
        self.rare = (1..values.len())
            .filter(|&n| mask.is_rare(n, values[n]))
            .map(|n| n as u32)
            .collect();
        // With more rare heaps, the dense kernel is faster.
        self.mask = (self.rare.len() * SPARSE_RATIO < values.len()).then_some(mask);
        if self.mask.is_none() {
            self.rare.clear();
        }
    }
}

/// Steps 1 to 3 of the sparse space method for heap `n` (see the module
/// docs); `found` already holds the options that leave at most one heap.
fn sparse_mex(
    n: usize,
    values: &[u16],
    split: &[usize],
    mask: &Mask,
    rare: &[u32],
    found: &mut MexSet,
) -> Nimber {
    let scarce = mask.scarce_parity(n);
    for &i in split {
        if n < i + 2 {
            continue;
        }
        let rest = n - i;
        for &r in rare {
            let r = r as usize;
            if r >= rest {
                break;
            }
            found.insert(Nimber::from(values[r] ^ values[rest - r]));
        }
    }
    let candidate = found.least_missing(|word| mask.class_word(scarce, word));
    let abundant = |v: Nimber| parity(v as u16, mask.bits) != scarce;
    let mut missing = (0..candidate)
        .filter(|&v| abundant(v) && !found.contains(v))
        .count();
    let mut a = 1;
    while missing > 0 {
        let mut any = false;
        for &i in split {
            if n < i + 2 || 2 * a > n - i {
                continue;
            }
            any = true;
            let v = Nimber::from(values[a] ^ values[n - i - a]);
            if v < candidate && found.insert(v) && abundant(v) {
                missing -= 1;
            }
        }
        if !any {
            break;
        }
        a += 1;
    }
    if missing == 0 { candidate } else { found.mex() }
}

/// Sets `seen[left[k] ^ right[k]]` for every `k`. Every value is below
/// `seen.len()`, a power of two from 64 to 65536; the length is made a
/// constant so that the mask spares every bounds check.
fn mark(seen: &mut [u8], left: &[u16], right: &[u16]) {
    fn with<const W: usize>(seen: &mut [u8], left: &[u16], right: &[u16]) {
        let seen: &mut [u8; W] = seen.try_into().expect("the width is W");
        let len = left.len().min(right.len());
        let (left, right) = (&left[..len], &right[..len]);
        // Four pairs at a time, XORed as one 64-bit word.
        let word = |four: &[u16]| {
            four.iter()
                .rev()
                .fold(0u64, |word, &v| word << 16 | u64::from(v))
        };
        let (left4, right4) = (left.chunks_exact(4), right.chunks_exact(4));
        let (left_rest, right_rest) = (left4.remainder(), right4.remainder());
        for (x, y) in left4.zip(right4) {
            let xor = word(x) ^ word(y);
            for lane in 0..4 {
                seen[(xor >> (16 * lane)) as usize & (W - 1)] = 1;
            }
        }
        for (&x, &y) in left_rest.iter().zip(right_rest) {
            seen[usize::from(x ^ y) & (W - 1)] = 1;
        }
    }
    match seen.len() {
        64 => with::<64>(seen, left, right),
        128 => with::<128>(seen, left, right),
        256 => with::<256>(seen, left, right),
        512 => with::<512>(seen, left, right),
        1024 => with::<1024>(seen, left, right),
        2048 => with::<2048>(seen, left, right),
        4096 => with::<4096>(seen, left, right),
        8192 => with::<8192>(seen, left, right),
        16384 => with::<16384>(seen, left, right),
        32768 => with::<32768>(seen, left, right),
        _ => with::<65536>(seen, left, right),
    }
}

/// Searches the pairs `pairs` (slices of left and right parts) for the
/// least values `seen` does not mark, marking those found, until a search
/// misses one. Returns the bound below which `seen` is then exact for these
/// pairs: every value below it is marked or given by no pair.
///
/// With AVX-512 and its bit shuffle, [`TABLE_TARGETS`] values at a time,
/// all from one block of [`TABLE_SPAN`], in one pass; otherwise four at a
/// time with [`hits`].
fn search_unmarked(seen: &mut [u8], pairs: &[(&[u16], &[u16])]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512bitalg")
        {
            return search_by_table(seen, pairs, |seen, pairs, targets| {
                // SAFETY: the processor has AVX512F, AVX512BW and
                // AVX512BITALG, checked just above.
                unsafe { mark_targets_avx512(seen, pairs, targets) }
            });
        }
    }
    search_by_fours(seen, pairs)
}

/// [`search_unmarked`] with a table kernel `mark`, which marks in `seen`
/// the values of its targets some pair gives and takes them out.
fn search_by_table(
    seen: &mut [u8],
    pairs: &[(&[u16], &[u16])],
    mut mark: impl FnMut(&mut [u8], &[(&[u16], &[u16])], &mut Targets),
) -> usize {
    let mut next = 0;
    while next < seen.len() {
        let mut targets = Targets::new(next / TABLE_SPAN * TABLE_SPAN);
        let end = seen.len().min(targets.base + TABLE_SPAN);
        // Eight marks at a time (nearly every value below the mex is
        // marked); `seen.len()` and `end` are multiples of 64.
        while targets.count < TABLE_TARGETS && next < end {
            let word = next / 8 * 8;
            let marks = u64::from_le_bytes(seen[word..word + 8].try_into().expect("8 marks"));
            let mut unmarked = !marks & 0x0101_0101_0101_0101 & (u64::MAX << (8 * (next % 8)));
            next = word + 8;
            while unmarked != 0 {
                let v = word + unmarked.trailing_zeros() as usize / 8;
                targets.add(v);
                unmarked &= unmarked - 1;
                if targets.count == TABLE_TARGETS {
                    next = v + 1;
                    break;
                }
            }
        }
        if targets.count > 0 {
            mark(seen, pairs, &mut targets);
            if targets.count > 0 {
                // Every value below `next` is now marked or given by no pair.
                return next;
            }
        }
    }
    next
}

/// Values [`search_by_table`] searches for in one pass. Most heaps of
/// 0.007 leave fewer than 32 values below the mex unmarked, and fewer than
/// 64 nearly all; each value found costs a mispredicted branch, so values
/// past the mex are waste. To 2^17, one thread, wall seconds: 24 0.80-0.81,
/// 32 0.79-0.84, 48 0.80-0.83, 64 0.85-0.87; every unmarked value at once
/// (no limit) was 0.59-0.76 s on two threads against 0.43 s.
const TABLE_TARGETS: usize = 48;

/// The values one table covers: 64 words of 16 bits, two 512-bit registers.
const TABLE_SPAN: usize = 1024;

/// Values searched for, as a bit table over `base..base + TABLE_SPAN`:
/// bit `v % 16` of word `(v - base) / 16`.
struct Targets {
    base: usize,
    words: [[u16; 32]; 2],
    count: usize,
}

impl Targets {
    /// No values, over the block from `base`, a multiple of [`TABLE_SPAN`].
    fn new(base: usize) -> Self {
        Self {
            base,
            words: [[0; 32]; 2],
            count: 0,
        }
    }

    /// Adds `v`, which is in the block and not in yet.
    fn add(&mut self, v: usize) {
        let w = (v - self.base) / 16;
        self.words[w / 32][w % 32] |= 1 << (v % 16);
        self.count += 1;
    }

    /// Takes `v` out, if it is in.
    fn remove(&mut self, v: usize) -> bool {
        let Some(w) = v.checked_sub(self.base).map(|d| d / 16).filter(|&w| w < 64) else {
            return false;
        };
        let word = &mut self.words[w / 32][w % 32];
        let bit = 1 << (v % 16);
        let was = *word & bit != 0;
        *word &= !bit;
        self.count -= usize::from(was);
        was
    }
}

/// Marks in `seen` the values of `targets` that some pair gives, taking
/// them out of `targets`; stops once `targets` is empty. 32 lanes of 16
/// bits: lane `x` is in the table's block when `x ^ base` has no bit above
/// the block; its word `(x ^ base) >> 4` comes from a two-register
/// permute, and bit `x & 15` of it from a bit shuffle.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn mark_targets_avx512(seen: &mut [u8], pairs: &[(&[u16], &[u16])], targets: &mut Targets) {
    if seen.len() <= TABLE_SPAN {
        mark_targets_in_block::<true>(seen, pairs, targets);
    } else {
        mark_targets_in_block::<false>(seen, pairs, targets);
    }
}

/// [`mark_targets_avx512`]; `WHOLE`: every value is in the table's block,
/// so no lane needs the test.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn mark_targets_in_block<const WHOLE: bool>(
    seen: &mut [u8],
    pairs: &[(&[u16], &[u16])],
    targets: &mut Targets,
) {
    use std::arch::x86_64::{
        __m512i, _mm512_andnot_si512, _mm512_bitshuffle_epi64_mask, _mm512_loadu_si512,
        _mm512_maskz_permutex2var_epi16, _mm512_maskz_set1_epi16, _mm512_permutex2var_epi16,
        _mm512_set_epi16, _mm512_set1_epi16, _mm512_srli_epi16, _mm512_storeu_si512,
        _mm512_ternarylogic_epi32, _mm512_testn_epi16_mask,
    };
    const LANES: usize = 32;
    let load = |targets: &Targets| -> [__m512i; 2] {
        // SAFETY: each row is 32 words, one 512-bit unaligned load.
        targets
            .words
            .map(|row| unsafe { _mm512_loadu_si512(row.as_ptr().cast()) })
    };
    let base = _mm512_set1_epi16(targets.base as i16);
    let above = _mm512_set1_epi16(!(TABLE_SPAN as i16 - 1));
    let fifteen = _mm512_set1_epi16(15);
    // Lane m's word sits at bit 16 * (m % 4) of its 64-bit group.
    #[rustfmt::skip]
    let offset = _mm512_set_epi16(
        48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0,
        48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0,
    );
    // Only the low byte of each lane indexes a bit.
    const LOW_BYTES: u64 = 0x5555_5555_5555_5555;
    let mut found = |v: u16, targets: &mut Targets| {
        let was = targets.remove(usize::from(v));
        if was {
            seen[usize::from(v)] = 1;
        }
        was
    };
    for &(left, right) in pairs {
        let len = left.len().min(right.len());
        // Pairs up to the first 64-byte boundary of `left` one at a time, so
        // that its loads never straddle two cache lines.
        let skip = left.as_ptr().align_offset(64).min(len);
        for (&x, &y) in left[..skip].iter().zip(&right[..skip]) {
            found(x ^ y, targets);
        }
        let (left, right) = (&left[skip..len], &right[skip..len]);
        let (l32, r32) = (left.chunks_exact(LANES), right.chunks_exact(LANES));
        for (&x, &y) in l32.remainder().iter().zip(r32.remainder()) {
            found(x ^ y, targets);
        }
        let [mut low, mut high] = load(targets);
        for (l, r) in l32.zip(r32) {
            if targets.count == 0 {
                return;
            }
            // SAFETY: both chunks are 32 words, one unaligned load each.
            let (l, r) = unsafe {
                (
                    _mm512_loadu_si512(l.as_ptr().cast()),
                    _mm512_loadu_si512(r.as_ptr().cast()),
                )
            };
            // l ^ r ^ base
            let y = _mm512_ternarylogic_epi32::<0x96>(l, r, base);
            let word = if WHOLE {
                _mm512_permutex2var_epi16(low, _mm512_srli_epi16::<4>(y), high)
            } else {
                let inside = _mm512_testn_epi16_mask(y, above);
                _mm512_maskz_permutex2var_epi16(inside, low, _mm512_srli_epi16::<4>(y), high)
            };
            // (y & 15) | offset
            let index = _mm512_ternarylogic_epi32::<0xEA>(y, fifteen, offset);
            let mut hit = _mm512_bitshuffle_epi64_mask(word, index) & LOW_BYTES;
            if hit != 0 {
                let mut xs = [0u16; LANES];
                // SAFETY: `xs` is 32 words, one unaligned store.
                unsafe { _mm512_storeu_si512(xs.as_mut_ptr().cast(), y) };
                while hit != 0 {
                    let d = xs[hit.trailing_zeros() as usize / 2];
                    if found(d ^ targets.base as u16, targets) {
                        let w = usize::from(d >> 4);
                        let bit = _mm512_maskz_set1_epi16(1 << (w % 32), 1 << (d % 16));
                        if w < 32 {
                            low = _mm512_andnot_si512(bit, low);
                        } else {
                            high = _mm512_andnot_si512(bit, high);
                        }
                    }
                    hit &= hit - 1;
                }
            }
        }
    }
}

/// [`search_unmarked`] without a table kernel: [`TARGETS`] values at a
/// time, with [`hits`], each round from the first pair again.
fn search_by_fours(seen: &mut [u8], pairs: &[(&[u16], &[u16])]) -> usize {
    let all = (1u32 << TARGETS) - 1;
    let mut next = 0;
    loop {
        let mut targets = [0u16; TARGETS];
        let mut count = 0;
        while count < TARGETS && next < seen.len() {
            if seen[next] == 0 {
                targets[count] = next as u16;
                count += 1;
            }
            next += 1;
        }
        if count == 0 {
            return next;
        }
        // Repeat the last target to fill the rest.
        for t in count..TARGETS {
            targets[t] = targets[count - 1];
        }
        let mut hit = 0;
        for &(left, right) in pairs {
            hit |= hits(left, right, &targets);
            if hit == all {
                break;
            }
        }
        for (t, &target) in targets[..count].iter().enumerate() {
            if hit >> t & 1 == 1 {
                seen[usize::from(target)] = 1;
            }
        }
        if hit != all {
            return next;
        }
    }
}

/// Which of `targets` some `left[k] ^ right[k]` equals: bit `t` for
/// `targets[t]`. Stops early once every target is found. Uses the widest
/// vectors the processor has, chosen at run time: 512-bit with AVX-512
/// (AVX512BW, for 16-bit lanes), else 256-bit with AVX2.
fn hits(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the processor has AVX512F and AVX512BW, checked here.
            return unsafe { hits_avx512(left, right, targets) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { hits_avx2(left, right, targets) };
        }
    }
    hits_portable::<16>(left, right, targets)
}

/// [`hits`] compiled for AVX-512: 32 lanes of 16 bits, one register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn hits_avx512(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    hits_portable::<32>(left, right, targets)
}

/// [`hits`] compiled for AVX2: 16 lanes of 16 bits, one register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn hits_avx2(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    hits_portable::<16>(left, right, targets)
}

/// [`hits`] for any processor: in each of `LANES` lanes, the least
/// `left ^ right ^ target` for each target, which is 0 where one is found.
#[inline(always)]
fn hits_portable<const LANES: usize>(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    const SPAN: usize = 1024;
    let all = (1u32 << TARGETS) - 1;
    let mut hit = 0u32;
    let len = left.len().min(right.len());
    for (left, right) in left[..len].chunks(SPAN).zip(right[..len].chunks(SPAN)) {
        let mut least = [[u16::MAX; LANES]; TARGETS];
        let (l16, r16) = (left.chunks_exact(LANES), right.chunks_exact(LANES));
        for (&x, &y) in l16.remainder().iter().zip(r16.remainder()) {
            for (t, &target) in targets.iter().enumerate() {
                least[t][0] = least[t][0].min(x ^ y ^ target);
            }
        }
        for (l, r) in l16.zip(r16) {
            let l: &[u16; LANES] = l.try_into().expect("LANES values");
            let r: &[u16; LANES] = r.try_into().expect("LANES values");
            let mut xor = [0u16; LANES];
            for lane in 0..LANES {
                xor[lane] = l[lane] ^ r[lane];
            }
            for (t, &target) in targets.iter().enumerate() {
                for lane in 0..LANES {
                    least[t][lane] = least[t][lane].min(xor[lane] ^ target);
                }
            }
        }
        for (t, lanes) in least.iter().enumerate() {
            if lanes.contains(&0) {
                hit |= 1 << t;
            }
        }
        if hit == all {
            break;
        }
    }
    hit
}

/// The Walsh-Hadamard transform in place: `h[m]` becomes the sum over `v`
/// of `h[v]` times -1 to the parity of `v & m`.
fn walsh_hadamard(h: &mut [i64]) {
    let mut len = 1;
    while len < h.len() {
        for block in h.chunks_mut(2 * len) {
            let (low, high) = block.split_at_mut(len);
            for (x, y) in low.iter_mut().zip(high.iter_mut()) {
                (*x, *y) = (*x + *y, *x - *y);
            }
        }
        len *= 2;
    }
}

#[cfg(test)]
mod tests {
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
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2.
                    prop_assert_eq!(unsafe { hits_avx2(&left, &right, &targets) }, plain);
                }
                if std::arch::is_x86_feature_detected!("avx512bw") {
                    // SAFETY: the processor has AVX-512 (F and BW).
                    prop_assert_eq!(unsafe { hits_avx512(&left, &right, &targets) }, plain);
                }
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
            {
                if std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512bitalg")
                {
                    let mut wide = before.clone();
                    let bound = search_by_table(&mut wide, &pairs, |seen, pairs, targets| {
                        // SAFETY: the processor has AVX512F, AVX512BW and AVX512BITALG.
                        unsafe { mark_targets_avx512(seen, pairs, targets) }
                    });
                    prop_assert_eq!(bound, plain_bound);
                    prop_assert_eq!(wide, plain);
                }
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
