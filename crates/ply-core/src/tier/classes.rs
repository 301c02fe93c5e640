//! Which indices of a tier hold their symmetry class's representative
//! ([`Tiers::fold_in_tier`]), and each one's place among them: a bit per
//! index and a running count per 64 indices. The tier solver keeps a
//! working cell for each representative only, side by side, when the
//! classes are small enough for that to pay ([`Representatives::estimate`]):
//! with 8 symmetries, about 0.44 bytes an index instead of 2.

use crate::game::Tiers;
use crate::solve::CHUNK;
use rayon::prelude::*;

/// Indices the sample of [`Representatives::estimate`] looks at, at most.
const SAMPLE: u64 = 4096;

/// The representatives among a tier's indices.
pub struct Representatives {
    /// A bit per index, set where the index holds a representative.
    bits: Vec<u64>,
    /// The representatives before each word of `bits`.
    before: Vec<u32>,
    /// How many there are.
    count: u64,
}

impl Representatives {
    /// Bytes the bits and counts take for a tier of `len` indices.
    pub fn bytes(len: u64) -> u64 {
        len.div_ceil(64) * 12
    }

    /// Whether a tier of `len` indices, of which about `representatives`
    /// in `sampled` hold a representative, takes less than three quarters
    /// of its dense working cells (2 bytes an index) with a cell per
    /// representative: then the bits pay for themselves.
    fn pays_at(len: u64, representatives: u64, sampled: u64) -> bool {
        let dense = 2 * u128::from(len);
        let compact = u128::from(Self::bytes(len))
            + 2 * u128::from(len) * u128::from(representatives) / u128::from(sampled.max(1));
        4 * compact < 3 * dense
    }

    /// How many representatives `tier` (of `len` indices) holds, judged
    /// from indices spread evenly over it, if that is few enough for a
    /// cell per representative to pay ([`Representatives::pays_at`]).
    pub fn estimate<G: Tiers>(game: &G, tier: G::Tier, len: u64) -> Option<u64> {
        if !G::IN_TIER_SYMMETRY || len == 0 || len > u64::from(u32::MAX) {
            return None;
        }
        let step = len.div_ceil(SAMPLE).max(1);
        let (sampled, representatives) =
            (0..len)
                .step_by(step as usize)
                .fold((0u64, 0u64), |(sampled, found), index| {
                    let kept = game
                        .tier_unrank(tier, index)
                        .is_some_and(|p| game.is_representative(&p));
                    (sampled + 1, found + u64::from(kept))
                });
        Self::pays_at(len, representatives, sampled)
            .then(|| (u128::from(len) * u128::from(representatives) / u128::from(sampled)) as u64)
    }

    /// Finds every representative among the `len` indices of `tier`, in
    /// parallel.
    pub fn find<G: Tiers>(game: &G, tier: G::Tier, len: u64) -> Representatives {
        let words = len.div_ceil(64) as usize;
        let mut bits = crate::huge::vec(words, |_| 0u64);
        let per_task = (CHUNK / 64) as usize;
        bits.par_chunks_mut(per_task)
            .enumerate()
            .for_each(|(task, chunk)| {
                let start = task as u64 * CHUNK;
                let end = len.min(start + CHUNK);
                game.for_each_in_tier(tier, start..end, |index, position| {
                    if game.is_representative(&position) {
                        let at = index - start;
                        chunk[(at / 64) as usize] |= 1 << (at % 64);
                    }
                });
            });
        Self::from_bits(bits)
    }

    /// The representatives whose bits are set in `bits`, numbered.
    fn from_bits(bits: Vec<u64>) -> Representatives {
        let mut before = Vec::with_capacity(bits.len());
        let mut count = 0u64;
        for word in &bits {
            before.push(count as u32);
            count += u64::from(word.count_ones());
        }
        Representatives {
            bits,
            before,
            count,
        }
    }

    /// How many representatives there are: the working cells needed.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The place among the representatives of the one at `index`, or
    /// `None` if `index` holds none.
    #[inline]
    pub fn slot(&self, index: u64) -> Option<usize> {
        let at = (index / 64) as usize;
        let word = *self.bits.get(at)?;
        let bit = 1u64 << (index % 64);
        (word & bit != 0)
            .then(|| self.before[at] as usize + (word & (bit - 1)).count_ones() as usize)
    }

    /// Calls `visit` with every representative's index in `range`, in
    /// order.
    pub fn for_each_in(&self, range: std::ops::Range<u64>, mut visit: impl FnMut(u64)) {
        let mut index = range.start;
        while index < range.end {
            let at = (index / 64) as usize;
            let Some(&word) = self.bits.get(at) else {
                return;
            };
            let mut word = word & (!0u64 << (index % 64));
            let base = at as u64 * 64;
            while word != 0 {
                let found = base + u64::from(word.trailing_zeros());
                if found >= range.end {
                    return;
                }
                visit(found);
                word &= word - 1;
            }
            index = base + 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Slots number the set bits in order, and the walk over a range
        /// visits exactly the set bits in it.
        #[test]
        fn slots_count_the_set_bits_before(bits in prop::collection::vec(any::<u64>(), 0..6), a in 0u64..400, b in 0u64..400) {
            let reps = Representatives::from_bits(bits.clone());
            let len = bits.len() as u64 * 64;
            let set = |i: u64| bits[(i / 64) as usize] >> (i % 64) & 1 == 1;
            let mut next = 0;
            for index in 0..len {
                if set(index) {
                    prop_assert_eq!(reps.slot(index), Some(next));
                    next += 1;
                } else {
                    prop_assert_eq!(reps.slot(index), None);
                }
            }
            prop_assert_eq!(reps.count(), next as u64);
            prop_assert_eq!(reps.slot(len), None);
            let range = a.min(b)..a.max(b);
            let mut walked = Vec::new();
            reps.for_each_in(range.clone(), |i| walked.push(i));
            let expected: Vec<u64> = range.filter(|&i| i < len && set(i)).collect();
            prop_assert_eq!(walked, expected);
        }
    }

    #[test]
    fn a_cell_per_class_pays_only_for_small_classes() {
        // 8 symmetries: about one index in 8 a representative.
        assert!(Representatives::pays_at(1 << 20, 512, 4096));
        // Every index its own class: the bits would only add.
        assert!(!Representatives::pays_at(1 << 20, 4096, 4096));
        // Half the indices: 12/64 + 1 bytes against 2, about 0.59.
        assert!(Representatives::pays_at(1 << 20, 2048, 4096));
        assert!(!Representatives::pays_at(1 << 20, 3000, 4096));
    }
}
