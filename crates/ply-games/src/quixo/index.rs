//! Quixo's tiers and the dense index inside each: tier (x, o) holds every
//! board with x X cubes and o O cubes, with either side to move. Inside a
//! tier a board is ranked by the set of squares holding cubes (among the
//! n² squares) and the set of those showing X (among the cubes), each in
//! the combinatorial number system, then the mover:
//! `((rank(cubes) * C(x + o, x) + rank(X among cubes)) * 2 + mover`.
//! Tier (x, o) mirrors (o, x) by swapping the colours and the mover; the
//! tier with at least as many X cubes as O cubes is the one solved.

use super::{Cubes, Quixo};
use ply_core::Tiers;

/// Binomial coefficients C(n, k) for n, k up to 32.
#[derive(Clone)]
pub(super) struct Binomials([[u64; 33]; 33]);

impl Binomials {
    pub(super) fn new() -> Binomials {
        let mut c = [[0u64; 33]; 33];
        for n in 0..33 {
            c[n][0] = 1;
            for k in 1..=n {
                c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
            }
        }
        Binomials(c)
    }

    #[inline]
    fn get(&self, n: u32, k: u32) -> u64 {
        self.0[n as usize][k as usize]
    }
}

/// Ranks sets of squares by bytes: for byte `b` of a mask with `before` set
/// bits below it, the sum of C(square, rank + 1) over its set bits.
#[derive(Clone)]
pub(super) struct Ranker {
    binomials: Binomials,
    /// `[byte index][bits before][byte]`.
    bytes: Vec<[[u32; 256]; 26]>,
    /// [`compress`] of a byte of bits (low 8 bits of the index) by a byte
    /// of mask (high 8 bits).
    packed: Vec<u8>,
}

impl Ranker {
    pub(super) fn new() -> Ranker {
        let binomials = Binomials::new();
        let mut bytes = vec![[[0u32; 256]; 26]; 4];
        for (chunk, table) in bytes.iter_mut().enumerate() {
            for (before, row) in table.iter_mut().enumerate() {
                for (byte, sum) in row.iter_mut().enumerate() {
                    let mut j = before as u32;
                    for bit in 0..8 {
                        if byte & 1 << bit != 0 {
                            let square = (chunk * 8 + bit) as u32;
                            j += 1;
                            if square < 32 && j <= 32 {
                                *sum += binomials.get(square, j) as u32;
                            }
                        }
                    }
                }
            }
        }
        let packed = (0..1usize << 16)
            .map(|i| compress((i & 0xff) as u32, (i >> 8) as u32) as u8)
            .collect();
        Ranker {
            binomials,
            bytes,
            packed,
        }
    }

    /// The rank of `mask` among the sets of its size (colex order).
    #[inline]
    fn rank(&self, mut mask: u32) -> u64 {
        let mut sum = 0u32;
        let mut before = 0usize;
        let mut chunk = 0;
        while mask != 0 {
            let byte = mask as u8;
            sum += self.bytes[chunk][before][usize::from(byte)];
            before += byte.count_ones() as usize;
            mask >>= 8;
            chunk += 1;
        }
        u64::from(sum)
    }

    /// The bits of `bits` at the set squares of `mask`, packed to the
    /// bottom, a byte at a time.
    #[inline]
    fn compress(&self, bits: u32, mut mask: u32) -> u32 {
        let mut bits = bits;
        let mut out = 0;
        let mut shift = 0;
        while mask != 0 {
            let m = mask as u8;
            out |= u32::from(self.packed[usize::from(m) << 8 | usize::from(bits as u8)]) << shift;
            shift += m.count_ones();
            mask >>= 8;
            bits >>= 8;
        }
        out
    }

    /// The set of `k` squares among `0..n` with rank `rank`.
    fn unrank(&self, mut rank: u64, k: u32, n: u32) -> u32 {
        let mut mask = 0;
        let mut square = n;
        for j in (1..=k).rev() {
            square -= 1;
            while self.binomials.get(square, j) > rank {
                square -= 1;
            }
            rank -= self.binomials.get(square, j);
            mask |= 1 << square;
        }
        mask
    }
}

/// The bits of `bits` at the set squares of `mask`, packed to the bottom
/// (square by square; [`Ranker::compress`] uses tables of it).
fn compress(bits: u32, mut mask: u32) -> u32 {
    let mut out = 0;
    let mut i = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        out |= u32::from(bits & low != 0) << i;
        i += 1;
        mask ^= low;
    }
    out
}

/// The inverse of [`compress`]: the packed bits spread onto `mask`'s squares.
#[inline]
fn expand(packed: u32, mut mask: u32) -> u32 {
    let mut out = 0;
    let mut i = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if packed >> i & 1 != 0 {
            out |= low;
        }
        i += 1;
        mask ^= low;
    }
    out
}

/// A tier: the number of X cubes and of O cubes.
pub type Tier = (u8, u8);

impl Quixo {
    /// The number of boards with the given counts (one mover).
    fn boards(&self, (x, o): Tier) -> u64 {
        let b = &self.ranker.binomials;
        let k = u32::from(x) + u32::from(o);
        b.get(self.squares(), k) * b.get(k, u32::from(x))
    }

    /// The index of `position` in tier `(x, o)` (its own counts).
    #[inline]
    fn rank_in(&self, (x, _): Tier, position: &Cubes) -> u64 {
        let cubes = position.x | position.o;
        let k = cubes.count_ones();
        let ranker = &self.ranker;
        let board = ranker.rank(cubes) * ranker.binomials.get(k, u32::from(x))
            + ranker.rank(ranker.compress(position.x, cubes));
        board * 2 + u64::from(position.o_to_move)
    }

    /// The tier, canonical or not, of `position`.
    #[inline]
    fn counts(position: &Cubes) -> Tier {
        (position.x.count_ones() as u8, position.o.count_ones() as u8)
    }

    /// `position` with the colours and the mover swapped.
    #[inline]
    fn swapped(position: &Cubes) -> Cubes {
        Cubes {
            x: position.o,
            o: position.x,
            o_to_move: !position.o_to_move,
        }
    }
}

impl Tiers for Quixo {
    type Tier = Tier;
    const IN_TIER_PARENTS: bool = true;

    fn tiers(&self) -> Vec<Tier> {
        let n = self.squares() as u8;
        (0..=n)
            .flat_map(|x| (0..=n - x).map(move |o| (x, o)))
            .collect()
    }

    fn tier_name(&self, (x, o): Tier) -> String {
        format!("x{x}-o{o}")
    }

    fn tier_of(&self, position: &Cubes) -> Tier {
        Self::counts(position)
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        2 * self.boards(tier)
    }

    fn tier_rank(&self, tier: Tier, position: &Cubes) -> u64 {
        self.rank_in(tier, position)
    }

    fn tier_unrank(&self, (x, o): Tier, index: u64) -> Option<Cubes> {
        if index >= self.tier_size((x, o)) {
            return None;
        }
        let ranker = &self.ranker;
        let k = u32::from(x) + u32::from(o);
        let (board, o_to_move) = (index / 2, index % 2 == 1);
        let among = ranker.binomials.get(k, u32::from(x));
        let cubes = ranker.unrank(board / among, k, self.squares());
        let xs = expand(ranker.unrank(board % among, u32::from(x), k), cubes);
        Some(Cubes {
            x: xs,
            o: cubes & !xs,
            o_to_move,
        })
    }

    fn child_tiers(&self, (x, o): Tier) -> Vec<Tier> {
        if u32::from(x) + u32::from(o) < self.squares() {
            vec![(x + 1, o), (x, o + 1)]
        } else {
            Vec::new()
        }
    }

    fn canonical_tier(&self, (x, o): Tier) -> Tier {
        (x.max(o), x.min(o))
    }

    fn to_canonical_tier(&self, position: &Cubes) -> Cubes {
        Self::swapped(position)
    }

    fn for_each_parent_in_tier(&self, position: &Cubes, visit: impl FnMut(Cubes)) {
        self.for_each_unslide(position, visit);
    }

    #[inline]
    fn for_each_child(&self, position: &Cubes, mut visit: impl FnMut(Tier, u64)) {
        self.for_each_slide(position, |_, child| {
            let (x, o) = Self::counts(&child);
            if x >= o {
                visit((x, o), self.rank_in((x, o), &child));
            } else {
                visit((o, x), self.rank_in((o, x), &Self::swapped(&child)));
            }
        });
    }
}
