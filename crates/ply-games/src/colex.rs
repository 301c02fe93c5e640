//! Sets of squares as `u32` masks (square `s` is bit `s`, up to 32 squares)
//! and their dense ranks in the combinatorial number system, for games
//! whose index ranks the squares holding each kind of piece.
//!
//! The *colex rank* of a set of `k` squares `s_1 < s_2 < ... < s_k` is
//! `C(s_1, 1) + C(s_2, 2) + ... + C(s_k, k)`: the sets of `k` squares among
//! `0..n` get the ranks `0..C(n, k)`, in increasing order as numbers (so
//! [`next_subset`] steps from one rank to the next), and a set's rank does
//! not depend on `n`. [`Colex`] ranks, unranks, packs and spreads masks by
//! byte tables; its tables are built once per process ([`Colex::get`]).
//!
//! To rank a board of two kinds of pieces, rank the occupied squares, then
//! the squares of one kind *among* the occupied ones ([`Colex::compress`]
//! packs them to the bottom), or among the squares the other kind leaves
//! free (`compress(mask, !taken)`).

/// Set bits of each byte: on plain x86-64 `count_ones` has no
/// instruction and costs a dozen.
pub const POP8: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    table
};

/// Set bits of `mask`: one instruction where the build has `popcnt` (see
/// `.cargo/config.toml`), else by [`POP8`].
#[inline]
pub fn pop(mask: u32) -> u32 {
    #[cfg(target_feature = "popcnt")]
    {
        mask.count_ones()
    }
    #[cfg(not(target_feature = "popcnt"))]
    {
        let [a, b, c, d] = mask
            .to_le_bytes()
            .map(|byte| u32::from(POP8[usize::from(byte)]));
        a + b + c + d
    }
}

/// `BINOMIAL[n][k]` = C(n, k), for n and k up to 32.
pub const BINOMIAL: [[u64; 33]; 33] = {
    let mut c = [[0u64; 33]; 33];
    let mut n = 0;
    while n < 33 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    c
};

/// C(n, k) for n and k up to 32 (0 when k > n).
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// The next larger mask with as many set bits (Gosper's hack): the set of
/// the next colex rank. `v` must be nonzero, and the result overflows past
/// the highest set of its size.
#[inline]
pub fn next_subset(v: u32) -> u32 {
    let t = v | (v - 1);
    (t + 1) | (((!t & (!t).wrapping_neg()) - 1) >> (v.trailing_zeros() + 1))
}

/// The mark of square `square` on a board of two players' masks: `marks[0]`
/// where `first` holds it, `marks[1]` where `second` does, else `marks[2]`.
#[inline]
pub fn mark(first: u32, second: u32, square: u32, marks: [char; 3]) -> char {
    let bit = 1 << square;
    if first & bit != 0 {
        marks[0]
    } else if second & bit != 0 {
        marks[1]
    } else {
        marks[2]
    }
}

/// The squares in `mask`, in increasing order.
#[inline]
pub fn squares_of(mut mask: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let square = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            square
        })
    })
}

/// Sets of the squares below this are unranked by one table.
const SMALL: u32 = 16;

/// Byte tables that rank, unrank, pack and spread masks of up to 32 squares.
pub struct Colex {
    /// `[byte index][bits below it][byte]`: what the byte's set bits add to
    /// the rank.
    rank: Vec<[[u32; 256]; 33]>,
    /// How bits are packed and spread.
    packing: Packing,
    /// The sets of squares below [`SMALL`], by size then rank.
    small: Vec<u16>,
    /// Where the sets of each size start in `small`.
    small_at: [usize; SMALL as usize + 2],
}

impl Colex {
    /// The tables, built on first use (about 0.5 MB).
    pub fn get() -> &'static Colex {
        static TABLES: std::sync::OnceLock<Colex> = std::sync::OnceLock::new();
        TABLES.get_or_init(Colex::build)
    }

    fn build() -> Colex {
        let mut rank = vec![[[0u32; 256]; 33]; 4];
        for (chunk, table) in rank.iter_mut().enumerate() {
            for (before, row) in table.iter_mut().enumerate() {
                for (byte, sum) in row.iter_mut().enumerate() {
                    let mut j = before as u32;
                    for bit in 0..8 {
                        if byte & 1 << bit != 0 {
                            j += 1;
                            if j <= 32 {
                                // Ranks are below C(32, 16) < 2^30.
                                *sum += binomial((chunk * 8 + bit) as u32, j) as u32;
                            }
                        }
                    }
                }
            }
        }
        let mut small_at = [0usize; SMALL as usize + 2];
        for k in 0..=SMALL as usize {
            small_at[k + 1] = small_at[k] + binomial(SMALL, k as u32) as usize;
        }
        let mut small = vec![0u16; small_at[SMALL as usize + 1]];
        for mask in 0..1u32 << SMALL {
            let k = mask.count_ones() as usize;
            small[small_at[k] + rank_slow(mask) as usize] = mask as u16;
        }
        Colex {
            rank,
            packing: Packing::new(),
            small,
            small_at,
        }
    }

    /// The colex rank of `mask` among the sets of its size.
    #[inline]
    pub fn rank(&self, mask: u32) -> u64 {
        // The bits below each byte are counted first, so that the four
        // table loads do not wait on one another.
        let [b0, b1, b2, b3] = mask.to_le_bytes().map(usize::from);
        let below = |bytes: u32| pop(mask & ((1u64 << (8 * bytes)) - 1) as u32) as usize;
        let sum = self.rank[0][0][b0]
            + self.rank[1][below(1)][b1]
            + self.rank[2][below(2)][b2]
            + self.rank[3][below(3)][b3];
        u64::from(sum)
    }

    /// The set of `k` squares among `0..n` with colex rank `rank` (below
    /// C(n, k)): the top squares one by one, the rest from a table once all
    /// lie below 16.
    #[inline]
    pub fn unrank(&self, mut rank: u64, k: u32, n: u32) -> u32 {
        let mut mask = 0;
        let mut square = n;
        for j in (1..=k).rev() {
            if square <= SMALL {
                return mask | u32::from(self.small[self.small_at[j as usize] + rank as usize]);
            }
            square -= 1;
            while binomial(square, j) > rank {
                square -= 1;
            }
            rank -= binomial(square, j);
            mask |= 1 << square;
        }
        mask
    }

    /// The bits of `bits` at the set squares of `mask`, packed to the
    /// bottom in order: bit `i` of the result is `bits` at the `i`-th
    /// square of `mask`.
    #[inline]
    pub fn compress(&self, bits: u32, mask: u32) -> u32 {
        self.packing.compress(bits, mask)
    }

    /// The inverse of [`Colex::compress`]: bit `i` of `packed` goes to the
    /// `i`-th set square of `mask`.
    #[inline]
    pub fn expand(&self, packed: u32, mask: u32) -> u32 {
        self.packing.expand(packed, mask)
    }
}

/// Packing and spreading by BMI2's `pext` and `pdep`, where the build has
/// them (`.cargo/config.toml`): no tables.
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
mod packing {
    /// Nothing to hold: the instructions do the work.
    pub struct Packing;

    impl Packing {
        pub fn new() -> Self {
            Packing
        }

        #[inline]
        pub fn compress(&self, bits: u32, mask: u32) -> u32 {
            ply_core::bits::gather(bits, mask)
        }

        #[inline]
        pub fn expand(&self, packed: u32, mask: u32) -> u32 {
            ply_core::bits::scatter(packed, mask)
        }
    }
}

/// Packing and spreading a byte at a time through tables, where the build
/// lacks BMI2.
#[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
mod packing {
    use super::{POP8, compress_slow, expand_slow};

    /// The tables.
    pub struct Packing {
        /// [`compress_slow`] of a byte of bits (low 8 bits of the index)
        /// by a byte of mask (high 8 bits).
        packed: Vec<u8>,
        /// [`expand_slow`] of a byte of packed bits (low 8) onto a byte of
        /// mask (high 8).
        spread: Vec<u8>,
    }

    impl Packing {
        pub fn new() -> Self {
            Packing {
                packed: (0..1usize << 16)
                    .map(|i| compress_slow((i & 0xff) as u32, (i >> 8) as u32) as u8)
                    .collect(),
                spread: (0..1usize << 16)
                    .map(|i| expand_slow((i & 0xff) as u32, (i >> 8) as u32) as u8)
                    .collect(),
            }
        }

        #[inline]
        pub fn compress(&self, mut bits: u32, mut mask: u32) -> u32 {
            let mut out = 0;
            let mut shift = 0;
            while mask != 0 {
                let m = mask as u8;
                out |=
                    u32::from(self.packed[usize::from(m) << 8 | usize::from(bits as u8)]) << shift;
                shift += u32::from(POP8[usize::from(m)]);
                mask >>= 8;
                bits >>= 8;
            }
            out
        }

        #[inline]
        pub fn expand(&self, mut packed: u32, mask: u32) -> u32 {
            let mut out = 0;
            for (chunk, m) in mask.to_le_bytes().into_iter().enumerate() {
                if m != 0 {
                    let take = packed & 0xff;
                    out |=
                        u32::from(self.spread[usize::from(m) << 8 | take as usize]) << (8 * chunk);
                    packed >>= POP8[usize::from(m)];
                }
            }
            out
        }
    }
}

use packing::Packing;

/// The colex rank of `mask`, square by square (the tables' reference).
fn rank_slow(mask: u32) -> u64 {
    squares_of(mask)
        .enumerate()
        .map(|(i, s)| binomial(u32::from(s), i as u32 + 1))
        .sum()
}

/// [`Colex::compress`], square by square.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), cfg(test))]
fn compress_slow(bits: u32, mask: u32) -> u32 {
    squares_of(mask)
        .enumerate()
        .fold(0, |out, (i, s)| out | (bits >> s & 1) << i)
}

/// [`Colex::expand`], square by square.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), cfg(test))]
fn expand_slow(packed: u32, mask: u32) -> u32 {
    squares_of(mask)
        .enumerate()
        .fold(0, |out, (i, s)| out | (packed >> i & 1) << s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_masks() -> impl Iterator<Item = u32> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        (0..20_000).map(move |i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Sparse, dense and middling masks alike.
            match i % 3 {
                0 => state as u32 & (state >> 32) as u32,
                1 => state as u32 | (state >> 32) as u32,
                _ => state as u32,
            }
        })
    }

    #[test]
    fn the_sets_of_one_size_rank_in_increasing_order_from_zero() {
        for n in [5u32, 9, 16, 20] {
            for k in 0..=n.min(6) {
                let sets: Vec<u32> = (0..1u32 << n).filter(|m| m.count_ones() == k).collect();
                assert_eq!(sets.len() as u64, binomial(n, k));
                let colex = Colex::get();
                for (r, &set) in sets.iter().enumerate() {
                    assert_eq!(colex.rank(set), r as u64, "n {n} k {k} set {set:b}");
                    assert_eq!(colex.unrank(r as u64, k, n), set);
                    if r + 1 < sets.len() {
                        assert_eq!(next_subset(set), sets[r + 1]);
                    }
                }
            }
        }
    }

    #[test]
    fn rank_unrank_and_packing_agree_with_square_by_square_on_32_bits() {
        let colex = Colex::get();
        for mask in random_masks() {
            let k = mask.count_ones();
            assert_eq!(colex.rank(mask), rank_slow(mask), "{mask:b}");
            assert_eq!(pop(mask), k);
            assert_eq!(colex.unrank(rank_slow(mask), k, 32), mask, "{mask:b}");
            let bits = mask.rotate_left(7) ^ 0x5555_5555;
            let packed = colex.compress(bits, mask);
            assert_eq!(packed, compress_slow(bits, mask));
            assert_eq!(colex.expand(packed, mask), bits & mask);
            assert_eq!(colex.expand(packed, mask), expand_slow(packed, mask));
        }
    }

    #[test]
    fn binomials_are_pascals_triangle() {
        for n in 1..33u32 {
            for k in 1..=n {
                assert_eq!(binomial(n, k), binomial(n - 1, k - 1) + binomial(n - 1, k));
            }
            assert_eq!(binomial(n, n), 1);
        }
        assert_eq!(binomial(25, 12), 5_200_300);
        assert_eq!(binomial(32, 16), 601_080_390);
    }
}
