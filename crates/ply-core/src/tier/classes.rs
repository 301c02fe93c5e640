//! Which indices of a tier hold their symmetry class's representative
//! ([`NamedTiers::fold_in_tier`]), and each one's place among them: a bit per
//! index and a running count per 448 indices ([`RankedBits`]). The tier solver keeps a
//! working cell for each representative only, side by side, when the
//! classes are small enough for that to pay ([`Representatives::estimate`]):
//! with 8 symmetries, about 0.39 bytes an index instead of 2.

use crate::game::NamedTiers;
use crate::ranked::{LINE_BITS, RankedBits};
use crate::solve::CHUNK;
use rayon::prelude::*;

/// The representatives among a tier's indices.
pub struct Representatives {
    /// The indices holding a representative, numbered.
    set: RankedBits,
}

impl Representatives {
    /// Bytes the bits and counts take for a tier of `len` indices.
    pub fn bytes(len: u64) -> u64 {
        RankedBits::bytes(len)
    }

    /// Whether a tier of `len` indices, about `representatives` of which
    /// hold a representative, takes less than three quarters of its dense
    /// working cells (2 bytes an index) with a cell per representative:
    /// then the bits pay for themselves.
    fn pays_at(len: u64, representatives: u64) -> bool {
        let dense = 2 * u128::from(len);
        let compact = u128::from(Self::bytes(len)) + 2 * u128::from(representatives);
        4 * compact < 3 * dense
    }

    /// How many representatives `tier` (of `len` indices) holds, judged
    /// from indices spread evenly over it, if that is few enough for a
    /// cell per representative to pay ([`Representatives::pays_at`]).
    pub fn estimate<G: NamedTiers>(game: &G, tier: G::Tier, len: u64) -> Option<u64> {
        if !G::IN_TIER_SYMMETRY {
            return None;
        }
        let representatives = crate::solve::estimate_count(len, |index| {
            game.tier_unrank(tier, index)
                .is_some_and(|p| game.is_representative(&p))
        });
        (len > 0 && Self::pays_at(len, representatives)).then_some(representatives)
    }

    /// Finds every representative among the `len` indices of `tier`, in
    /// parallel.
    pub fn find<G: NamedTiers>(game: &G, tier: G::Tier, len: u64) -> Representatives {
        let mut set = RankedBits::empty(len);
        let lines = set.lines();
        let per_task = CHUNK.div_ceil(LINE_BITS) as usize;
        set.marks(0..lines, per_task).for_each(|mut marks| {
            game.for_each_in_tier(tier, marks.range(), |index, position| {
                if game.is_representative(&position) {
                    marks.set(index);
                }
            });
        });
        set.number();
        Representatives { set }
    }

    /// How many representatives there are: the working cells needed.
    pub fn count(&self) -> u64 {
        self.set.count()
    }

    /// The place among the representatives of the one at `index`, or
    /// `None` if `index` holds none.
    #[inline]
    pub fn slot(&self, index: u64) -> Option<usize> {
        self.set.slot(index)
    }

    /// Calls `visit` with every representative's index in `range`, in
    /// order.
    pub fn for_each_in(&self, range: std::ops::Range<u64>, mut visit: impl FnMut(u64)) {
        self.set.for_each_in(range, |index, _| visit(index));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_per_class_pays_only_for_small_classes() {
        // 8 symmetries: about one index in 8 a representative.
        assert!(Representatives::pays_at(1 << 20, 1 << 17));
        // Every index its own class: the bits would only add.
        assert!(!Representatives::pays_at(1 << 20, 1 << 20));
        // Half the indices: 64/448 + 1 bytes against 2, about 0.57.
        assert!(Representatives::pays_at(1 << 20, 1 << 19));
        assert!(!Representatives::pays_at(1 << 20, 3 << 18));
    }
}
