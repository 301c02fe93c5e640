//! [`MexSet`]: a set of nimbers for finding a mex (the least nimber not in
//! it), shared by the Grundy solvers and the octal computations.

use crate::value::Nimber;

/// A set of nimbers kept as bits, for finding a mex. Reuse one set across
/// calls: [`MexSet::clear`] zeroes only the words in use, and the set
/// allocates only when it meets a larger nimber than ever before.
#[derive(Clone, Debug, Default)]
pub struct MexSet {
    words: Vec<u64>,
    /// Words at and past this index are all zero.
    used: usize,
}

impl MexSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set that holds nimbers up to `max` without allocating again.
    pub fn with_capacity(max: Nimber) -> Self {
        Self {
            words: vec![0; max as usize / 64 + 1],
            used: 0,
        }
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.words[..self.used].fill(0);
        self.used = 0;
    }

    /// Adds `nimber`; returns whether it was new.
    pub fn insert(&mut self, nimber: Nimber) -> bool {
        let (word, bit) = (nimber as usize / 64, 1u64 << (nimber % 64));
        if word >= self.words.len() {
            self.words.resize((word + 1).next_power_of_two(), 0);
        }
        self.used = self.used.max(word + 1);
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        new
    }

    /// Whether `nimber` is in the set.
    pub fn contains(&self, nimber: Nimber) -> bool {
        let word = nimber as usize / 64;
        word < self.used && self.words[word] >> (nimber % 64) & 1 == 1
    }

    /// The minimum excluded nimber: the least one not in the set.
    pub fn mex(&self) -> Nimber {
        self.least_missing(|_| u64::MAX)
    }

    /// The least nimber not in the set among those `class` selects, given as
    /// the class's bits for each word of 64 nimbers (`class(0)` for 0..64,
    /// `class(1)` for 64..128, ...). The class must not be empty from some
    /// word on, or the search would not end.
    pub fn least_missing(&self, class: impl Fn(usize) -> u64) -> Nimber {
        let mut word = 0;
        loop {
            let present = self.words.get(word).copied().unwrap_or(0);
            let missing = !present & class(word);
            if missing != 0 {
                return (word * 64) as Nimber + missing.trailing_zeros();
            }
            word += 1;
        }
    }
}

/// The mex of `values`, using `set` as scratch space.
#[cfg(test)]
pub fn mex(values: impl IntoIterator<Item = Nimber>, set: &mut MexSet) -> Nimber {
    set.clear();
    for value in values {
        set.insert(value);
    }
    set.mex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mex_set_finds_the_least_missing_nimber_and_clears() {
        let mut set = MexSet::new();
        assert_eq!(mex([0, 1, 2, 4], &mut set), 3);
        assert_eq!(mex([], &mut set), 0);
        assert_eq!(mex([1, 2], &mut set), 0);
        assert_eq!(mex(0..64, &mut set), 64);
        assert_eq!(mex((0..200).filter(|&n| n != 130), &mut set), 130);
        assert!(set.contains(129) && !set.contains(130) && !set.contains(5000));
        set.clear();
        assert!(!set.contains(129));
        assert_eq!(set.mex(), 0);
        // The least missing odd nimber.
        for n in [0, 1, 2, 3, 5] {
            set.insert(n);
        }
        assert_eq!(set.least_missing(|_| 0xAAAA_AAAA_AAAA_AAAA), 7);
    }
}
