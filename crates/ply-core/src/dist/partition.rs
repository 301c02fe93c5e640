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
    /// Divides an index by the divisor of the partition (the workers or
    /// the block): every update a worker applies needs one such division.
    divide: Divider,
}

/// Division by a constant `d` as a multiplication: `n / d` is the high
/// word of `n * ceil(2^64 / d)` whenever `n * d < 2^64` (the error of the
/// rounded inverse, under `d`, then adds less than `1 / d` to `n / d`);
/// otherwise plain division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Divider {
    d: u64,
    /// `ceil(2^64 / d)`, or 0 where the product may overflow (or `d` is 1).
    inverse: u64,
}

impl Divider {
    /// Division by `d` (at least 1) of numbers below `below`.
    fn new(d: u64, below: u64) -> Self {
        let fits = u128::from(below) * u128::from(d) <= 1 << 64;
        let inverse = if d > 1 && fits {
            ((1u128 << 64).div_ceil(u128::from(d))) as u64
        } else {
            0
        };
        Self { d, inverse }
    }

    #[inline]
    fn div(&self, n: u64) -> u64 {
        if self.inverse == 0 {
            n / self.d
        } else {
            ((u128::from(n) * u128::from(self.inverse)) >> 64) as u64
        }
    }
}

impl Layout {
    /// The layout of `0..len` over `workers` workers (at least one).
    pub fn new(partition: Partition, len: u64, workers: usize) -> Self {
        let workers = workers.max(1) as u64;
        let block = len.div_ceil(workers).max(1);
        let divisor = match partition {
            Partition::Blocks => block,
            Partition::Strided => workers,
        };
        Self {
            partition,
            len,
            workers,
            block,
            divide: Divider::new(divisor, len),
        }
    }

    /// The worker that owns `index`.
    #[inline]
    pub fn owner(&self, index: u64) -> usize {
        let quotient = self.divide.div(index);
        (match self.partition {
            Partition::Blocks => quotient,
            Partition::Strided => index - quotient * self.workers,
        }) as usize
    }

    /// Where `index` lives in its owner's tables.
    #[inline]
    pub fn slot(&self, index: u64) -> usize {
        let quotient = self.divide.div(index);
        (match self.partition {
            Partition::Blocks => index - quotient * self.block,
            Partition::Strided => quotient,
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
        fn division_by_the_inverse_is_exact(d in 1u64..1 << 20, n in any::<u64>()) {
            let below = u64::MAX / d;
            let n = n % below;
            prop_assert_eq!(Divider::new(d, below).div(n), n / d);
            prop_assert_eq!(Divider::new(d, below).div(below - 1), (below - 1) / d);
            prop_assert_eq!(Divider::new(d, u64::MAX).div(n), n / d);
        }

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
