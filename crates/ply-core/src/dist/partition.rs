//! How the index is cut between workers: which worker owns a position, and
//! where in that worker's tables it lives.

/// A way of sharing the indices `0..len` among workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Partition {
    /// Worker `w` owns one contiguous block of indices.
    Blocks,
    /// Index `i` belongs to worker `i mod workers` (a cheap hash that
    /// spreads every region of the index over all workers).
    #[default]
    Strided,
}

impl Partition {
    /// The partition named `name` (`blocks` or `strided`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "blocks" => Some(Self::Blocks),
            "strided" => Some(Self::Strided),
            _ => None,
        }
    }

    /// Its name, as [`Partition::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Blocks => "blocks",
            Self::Strided => "strided",
        }
    }
}

/// A partition applied to an index of a given size and a number of workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    partition: Partition,
    len: u64,
    workers: u64,
    block: u64,
}

impl Layout {
    /// The layout of `0..len` over `workers` workers (at least one).
    pub fn new(partition: Partition, len: u64, workers: usize) -> Self {
        let workers = workers.max(1) as u64;
        Self {
            partition,
            len,
            workers,
            block: len.div_ceil(workers).max(1),
        }
    }

    /// The worker that owns `index`.
    #[inline]
    pub fn owner(&self, index: u64) -> usize {
        (match self.partition {
            Partition::Blocks => index / self.block,
            Partition::Strided => index % self.workers,
        }) as usize
    }

    /// Where `index` lives in its owner's tables.
    #[inline]
    pub fn slot(&self, index: u64) -> usize {
        (match self.partition {
            Partition::Blocks => index % self.block,
            Partition::Strided => index / self.workers,
        }) as usize
    }

    /// The index in `slot` of `worker`'s tables.
    #[inline]
    pub fn index(&self, worker: usize, slot: usize) -> u64 {
        let (worker, slot) = (worker as u64, slot as u64);
        match self.partition {
            Partition::Blocks => worker * self.block + slot,
            Partition::Strided => slot * self.workers + worker,
        }
    }

    /// How many indices `worker` owns.
    pub fn slots(&self, worker: usize) -> usize {
        let worker = worker as u64;
        (match self.partition {
            Partition::Blocks => self.len.saturating_sub(worker * self.block).min(self.block),
            Partition::Strided => self.len.saturating_sub(worker).div_ceil(self.workers),
        }) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_index_has_one_owner_and_one_slot(len in 0u64..2000, workers in 1usize..9) {
            for partition in [Partition::Blocks, Partition::Strided] {
                let layout = Layout::new(partition, len, workers);
                let mut seen = vec![false; len as usize];
                for worker in 0..workers {
                    for slot in 0..layout.slots(worker) {
                        let index = layout.index(worker, slot);
                        prop_assert!(index < len);
                        prop_assert!(!seen[index as usize]);
                        seen[index as usize] = true;
                        prop_assert_eq!(layout.owner(index), worker);
                        prop_assert_eq!(layout.slot(index), slot);
                    }
                }
                prop_assert!(seen.iter().all(|&s| s));
            }
        }
    }
}
