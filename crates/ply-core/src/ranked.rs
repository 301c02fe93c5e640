//! A set of indices with each member's place among them: a bit per index,
//! laid out so that finding a member's place reads one cache line. Solvers
//! keep a cell for each member only, side by side, and find an index's
//! cell through its place ([`RankedBits::slot`]): the tier solver for the
//! representatives of symmetry classes, the one-byte solver for the keys
//! it stores.
//!
//! Each 64-byte line holds the count of members before it and the bits of
//! the next [`LINE_BITS`] indices: 1.14 bits an index, where a separate
//! count per word would take 1.5 and a second cache miss.

use rayon::prelude::*;
use std::ops::Range;

/// Indices per line: seven words of bits beside the count.
pub const LINE_BITS: u64 = 7 * 64;

/// One cache line: the members before it and the bits of its indices.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line {
    before: u64,
    words: [u64; 7],
}

/// A set of indices below a length, each member numbered by its place.
pub struct RankedBits {
    lines: Vec<Line>,
    len: u64,
    count: u64,
}

/// The bits of the indices of some whole lines, for one task to set.
pub struct Marks<'a> {
    start: u64,
    end: u64,
    lines: &'a mut [Line],
}

impl Marks<'_> {
    /// The indices these marks cover.
    pub fn range(&self) -> Range<u64> {
        self.start..self.end
    }

    /// Puts `index` (in [`Marks::range`]) in the set.
    #[inline]
    pub fn set(&mut self, index: u64) {
        debug_assert!(self.range().contains(&index));
        let at = index - self.start;
        let bit = at % LINE_BITS;
        self.lines[(at / LINE_BITS) as usize].words[(bit / 64) as usize] |= 1 << (bit % 64);
    }
}

impl RankedBits {
    /// Bytes the set takes over `len` indices.
    pub fn bytes(len: u64) -> u64 {
        len.div_ceil(LINE_BITS) * size_of::<Line>() as u64
    }

    /// The empty set over `len` indices, to be filled through
    /// [`RankedBits::marks`] and numbered by [`RankedBits::number`].
    pub fn empty(len: u64) -> RankedBits {
        RankedBits {
            lines: crate::huge::vec(len.div_ceil(LINE_BITS) as usize, |_| Line::default()),
            len,
            count: 0,
        }
    }

    /// How many lines the set has.
    pub fn lines(&self) -> usize {
        self.lines.len()
    }

    /// The marks of `lines`, `per_task` lines a task, in order, for tasks
    /// to fill in parallel.
    pub fn marks(
        &mut self,
        lines: Range<usize>,
        per_task: usize,
    ) -> impl IndexedParallelIterator<Item = Marks<'_>> {
        let len = self.len;
        let first = lines.start;
        self.lines[lines]
            .par_chunks_mut(per_task.max(1))
            .enumerate()
            .map(move |(task, lines)| {
                let start = (first + task * per_task.max(1)) as u64 * LINE_BITS;
                let end = len.min(start + lines.len() as u64 * LINE_BITS);
                Marks { start, end, lines }
            })
    }

    /// Numbers the members once every mark is set.
    pub fn number(&mut self) {
        let mut count = 0u64;
        for line in &mut self.lines {
            line.before = count;
            count += line
                .words
                .iter()
                .map(|w| u64::from(w.count_ones()))
                .sum::<u64>();
        }
        self.count = count;
    }

    /// The indices the set ranges over.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// How many members there are.
    #[cfg(any(test, feature = "db"))]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// How many members lie below `index`.
    #[inline]
    pub fn rank(&self, index: u64) -> u64 {
        let Some(line) = self.lines.get((index / LINE_BITS) as usize) else {
            return self.count;
        };
        let bit = index % LINE_BITS;
        let word = (bit / 64) as usize;
        let below = line.words[..word]
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum::<u64>();
        line.before + below + u64::from((line.words[word] & ((1 << (bit % 64)) - 1)).count_ones())
    }

    /// The place among the members of `index`, or `None` if it is not one.
    #[inline]
    pub fn slot(&self, index: u64) -> Option<usize> {
        let line = self.lines.get((index / LINE_BITS) as usize)?;
        let bit = index % LINE_BITS;
        let word = line.words[(bit / 64) as usize];
        (word >> (bit % 64) & 1 == 1).then(|| self.rank(index) as usize)
    }

    /// Calls `visit` with every member in `range` and its place, in order.
    pub fn for_each_in(&self, range: Range<u64>, mut visit: impl FnMut(u64, usize)) {
        let end = range.end.min(self.len);
        if range.start >= end {
            return;
        }
        let mut slot = self.rank(range.start) as usize;
        let mut index = range.start;
        while index < end {
            let line = &self.lines[(index / LINE_BITS) as usize];
            let base = index / 64 * 64;
            let mut word =
                line.words[((index % LINE_BITS) / 64) as usize] & (!0u64 << (index % 64));
            while word != 0 {
                let found = base + u64::from(word.trailing_zeros());
                if found >= end {
                    return;
                }
                visit(found, slot);
                slot += 1;
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

    fn set_of(len: u64, members: &[u64], per_task: usize) -> RankedBits {
        let mut set = RankedBits::empty(len);
        let lines = set.lines();
        set.marks(0..lines, per_task).for_each(|mut marks| {
            let range = marks.range();
            for &m in members.iter().filter(|&&m| range.contains(&m)) {
                marks.set(m);
            }
        });
        set.number();
        set
    }

    proptest! {
        /// Places number the members in order, ranks count the members
        /// below, and the walk over a range visits exactly its members.
        #[test]
        fn places_count_the_members_before(
            len in 0u64..3000,
            picks in prop::collection::btree_set(0u64..3000, 0..400),
            per_task in 1usize..4,
            a in 0u64..3100,
            b in 0u64..3100,
        ) {
            let members: Vec<u64> = picks.into_iter().filter(|&m| m < len).collect();
            let set = set_of(len, &members, per_task);
            prop_assert_eq!(set.count(), members.len() as u64);
            let mut next = 0;
            for index in 0..len + 5 {
                prop_assert_eq!(set.rank(index), next as u64);
                if members.binary_search(&index).is_ok() {
                    prop_assert_eq!(set.slot(index), Some(next));
                    next += 1;
                } else {
                    prop_assert_eq!(set.slot(index), None);
                }
            }
            let range = a.min(b)..a.max(b);
            let mut walked = Vec::new();
            set.for_each_in(range.clone(), |i, slot| walked.push((i, slot)));
            let expected: Vec<(u64, usize)> = members
                .iter()
                .enumerate()
                .filter(|(_, m)| range.contains(m))
                .map(|(slot, &m)| (m, slot))
                .collect();
            prop_assert_eq!(walked, expected);
        }
    }

    #[test]
    fn a_line_is_one_cache_line_of_448_indices() {
        assert_eq!(size_of::<Line>(), 64);
        assert_eq!(RankedBits::bytes(448), 64);
        assert_eq!(RankedBits::bytes(449), 128);
    }
}
