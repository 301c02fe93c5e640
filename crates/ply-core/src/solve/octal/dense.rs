//! The dense kernel (see the parent module): every pair of a block of heaps
//! marked in parallel tiles, and the least values still unmarked searched
//! for among the pairs not marked, with the x86 kernels where the
//! processor has them ([`super::x86`]) and portable code elsewhere.

use super::lanes::{TABLE_SPAN, Targets, hits_portable};
use super::*;
use crate::value::Nimber;
use rayon::prelude::*;

/// Sets `seen[left[k] ^ right[k]]` for every `k`. Every value is below
/// `seen.len()`, a power of two from 64 to 65536; the length is made a
/// constant so that the mask spares every bounds check.
pub(super) fn mark(seen: &mut [u8], left: &[u16], right: &[u16]) {
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
pub(super) fn search_unmarked(seen: &mut [u8], pairs: &[(&[u16], &[u16])]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(kernel) = super::x86::table_kernel() {
        return search_by_table(seen, pairs, kernel);
    }
    search_by_fours(seen, pairs)
}

/// [`search_unmarked`] with a table kernel `mark`, which marks in `seen`
/// the values of its targets some pair gives and takes them out.
pub(super) fn search_by_table(
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
pub(super) const TABLE_TARGETS: usize = 48;

/// [`search_unmarked`] without a table kernel: [`TARGETS`] values at a
/// time, with [`hits`], each round from the first pair again.
pub(super) fn search_by_fours(seen: &mut [u8], pairs: &[(&[u16], &[u16])]) -> usize {
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
pub(super) fn hits(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(hit) = super::x86::hits(left, right, targets) {
        return hit;
    }
    hits_portable::<16>(left, right, targets)
}

impl Engine {
    /// The dense kernel, first half: for every heap of the block, in
    /// parallel, finds which values the splitting options with both parts
    /// below the block (nearly all of them) give, exactly from 0 up to the
    /// first few values they miss. The pairs with the smaller part up to
    /// `marked_end` are marked one byte store per pair; the others are only
    /// searched for the least values still unmarked ([`search_unmarked`]).
    pub(super) fn mark_known_pairs(
        &mut self,
        heaps: Range<usize>,
        values: &[u16],
        reversed: &[u16],
    ) {
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
    pub(super) fn finish_dense(
        &mut self,
        j: usize,
        n: usize,
        values: &[u16],
        reversed: &[u16],
    ) -> Nimber {
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
}
