//! The dense index of a tier (the positions with `n` discs): a position is
//! its column heights, ranked among the ways `n` discs stand in the
//! columns, then the colex rank of the cells `o` holds among the `n` discs
//! taken column by column from the bottom (`o` holds `n / 2` of them). So
//! a tier spans (ways to stack `n` discs) x C(n, n / 2) indices; an index
//! whose board legal play does not reach (a four made too early, or no
//! alternating order) names no position. docs/connect4.md gives the
//! indices this spends per legal position.

use super::{C4Position, ConnectFour};
use ply_core::NamedTiers;

/// Binomial coefficients up to C(64, k).
static BINOMIAL: [[u64; 65]; 65] = {
    let mut table = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] =
                table[n - 1][k - 1].saturating_add(if k < n { table[n - 1][k] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    table
};

/// C(n, k), 0 where k > n.
#[inline]
pub(super) fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// The counting tables of the tiers of one board.
#[derive(Clone, Debug)]
pub struct TierIndex {
    width: u32,
    height: u32,
    /// `stacks[w][n]`: the ways `n` discs stand in `w` columns of the
    /// board's height.
    stacks: Vec<Vec<u64>>,
}

impl TierIndex {
    /// The tables of a board of `width` columns and `height` rows.
    pub fn new(width: u32, height: u32) -> Self {
        let cells = (width * height) as usize;
        let mut stacks = vec![vec![0u64; cells + 1]; width as usize + 1];
        stacks[0][0] = 1;
        for w in 1..=width as usize {
            for n in 0..=cells {
                stacks[w][n] = (0..=(height as usize).min(n))
                    .map(|h| stacks[w - 1][n - h])
                    .sum();
            }
        }
        Self {
            width,
            height,
            stacks,
        }
    }

    /// The indices of tier `n`.
    pub fn len(&self, n: u32) -> u64 {
        self.stacks[self.width as usize][n as usize] * binomial(n, n / 2)
    }

    /// The index of `position` (of `n` discs) in its tier.
    pub fn rank(&self, game: &ConnectFour, position: &C4Position) -> u64 {
        let n = position.discs();
        let stride = self.height + 1;
        let (_, o) = position.x_o();
        let (mut heights, mut packed, mut at) = ([0u32; 9], 0u64, 0u32);
        for c in 0..self.width {
            let column = game.column_mask(c);
            let h = (position.mask & column).count_ones();
            heights[c as usize] = h;
            packed |= ((o & column) >> (c * stride)) << at;
            at += h;
        }
        self.stack_rank(n, &heights) * binomial(n, n / 2) + colex(packed)
    }

    /// The ways `n` discs stand in the board's columns: the stacks of
    /// tier `n`, ranked in the lexicographic order of their heights.
    pub(super) fn stacks(&self, n: u32) -> u64 {
        self.stacks[self.width as usize][n as usize]
    }

    /// The rank of the column heights `heights` (of `n` discs) among the
    /// stacks of tier `n`.
    pub(super) fn stack_rank(&self, n: u32, heights: &[u32; 9]) -> u64 {
        let (mut stack, mut left) = (0, n);
        for c in 0..self.width {
            let rest = &self.stacks[(self.width - 1 - c) as usize];
            let h = heights[c as usize];
            for lower in 0..h {
                stack += rest[(left - lower) as usize];
            }
            left -= h;
        }
        stack
    }

    /// The column heights of stack `stack` of tier `n` (`None` past the
    /// tier's stacks).
    pub(super) fn heights(&self, n: u32, mut stack: u64) -> Option<[u32; 9]> {
        let mut heights = [0u32; 9];
        let mut left = n;
        for c in 0..self.width {
            let rest = &self.stacks[(self.width - 1 - c) as usize];
            let mut h = 0;
            loop {
                if h > self.height.min(left) {
                    return None;
                }
                let ways = rest[(left - h) as usize];
                if stack < ways {
                    break;
                }
                stack -= ways;
                h += 1;
            }
            heights[c as usize] = h;
            left -= h;
        }
        (left == 0).then_some(heights)
    }

    /// The set of `k` of the squares `0..n` with colex rank `colex`.
    fn subset(mut colex: u64, k: u32, n: u32) -> u64 {
        let mut packed = 0u64;
        let mut square = n;
        for j in (1..=k).rev() {
            square -= 1;
            while binomial(square, j) > colex {
                square -= 1;
            }
            colex -= binomial(square, j);
            packed |= 1 << square;
        }
        packed
    }

    /// The board of the column heights `heights` whose discs, taken column
    /// by column from the bottom, are `o`'s where `packed` has a bit.
    fn spread(&self, n: u32, heights: &[u32; 9], packed: u64) -> C4Position {
        let stride = self.height + 1;
        let (mut mask, mut o, mut at) = (0u64, 0u64, 0u32);
        for (c, &h) in heights.iter().enumerate().take(self.width as usize) {
            let column = (1u64 << h) - 1;
            mask |= column << (c as u32 * stride);
            o |= ((packed >> at) & column) << (c as u32 * stride);
            at += h;
        }
        let x = mask ^ o;
        let mover = if n.is_multiple_of(2) { x } else { o };
        C4Position { mask, mover }
    }

    /// The board with index `index` in tier `n`, legal or not (`None` past
    /// the tier's end).
    pub fn board(&self, n: u32, index: u64) -> Option<C4Position> {
        let colours = binomial(n, n / 2);
        let heights = self.heights(n, index / colours)?;
        Some(self.spread(n, &heights, Self::subset(index % colours, n / 2, n)))
    }

    /// Calls `visit` with every index of `range` (within tier `n`) and its
    /// board, legal or not, in increasing order: the heights are found
    /// once a stack, and each colouring steps to the next set of as many
    /// `o` discs (so no index is ranked afresh).
    pub fn for_each_board(
        &self,
        n: u32,
        range: std::ops::Range<u64>,
        mut visit: impl FnMut(u64, C4Position),
    ) {
        let colours = binomial(n, n / 2);
        let mut index = range.start;
        while index < range.end {
            let (stack, first) = (index / colours, index % colours);
            let Some(heights) = self.heights(n, stack) else {
                return;
            };
            let last = colours.min(first + (range.end - index));
            let mut packed = Self::subset(first, n / 2, n);
            for _ in first..last {
                visit(index, self.spread(n, &heights, packed));
                index += 1;
                packed = next_subset(packed);
            }
        }
    }
}

/// The colex rank of the set of squares `packed` among the sets of as
/// many squares: its place among them in increasing order as numbers.
#[inline]
pub(super) fn colex(packed: u64) -> u64 {
    let (mut rank, mut bits, mut j) = (0, packed, 0);
    while bits != 0 {
        j += 1;
        rank += binomial(bits.trailing_zeros(), j);
        bits &= bits - 1;
    }
    rank
}

/// `COLEX_BYTES[m][p][b]`: what byte `m` of a set of at most 32 squares,
/// holding `b`, adds to its colex rank when `p` squares lie below it (the
/// sum of C(8m + t, p + i) over the byte's set bits `t`, the `i`-th from
/// 1 up). Ranks of sets of at most 32 squares fit 32 bits.
static COLEX_BYTES: [[[u32; 256]; 25]; 4] = {
    let mut table = [[[0u32; 256]; 25]; 4];
    let mut m = 0;
    while m < 4 {
        let mut p = 0;
        while p <= 8 * m && p < 25 {
            let mut b = 0;
            while b < 256 {
                let (mut sum, mut i, mut t) = (0u64, 0, 0);
                while t < 8 {
                    if b >> t & 1 == 1 {
                        i += 1;
                        sum += BINOMIAL[8 * m + t][p + i];
                    }
                    t += 1;
                }
                table[m][p][b] = sum as u32;
                b += 1;
            }
            p += 1;
        }
        m += 1;
    }
    table
};

/// [`colex`] of a set of at most 32 squares, a byte at a time.
#[inline]
pub(super) fn colex32(packed: u32) -> u64 {
    let (mut rank, mut below) = (0u64, 0usize);
    for (m, byte) in packed.to_le_bytes().into_iter().enumerate() {
        rank += u64::from(COLEX_BYTES[m][below][usize::from(byte)]);
        below += byte.count_ones() as usize;
    }
    rank
}

/// `COLEX_WIDE[m][p][b]`: as [`COLEX_BYTES`], for the eight bytes of a
/// set of at most 64 squares of which at most 28 are held, in 64 bits
/// (made at first use: 466 KiB).
static COLEX_WIDE: std::sync::LazyLock<Box<[[[u64; 256]; 29]; 8]>> =
    std::sync::LazyLock::new(|| {
        let mut table = Box::new([[[0u64; 256]; 29]; 8]);
        for (m, by_below) in table.iter_mut().enumerate() {
            for (p, by_byte) in by_below.iter_mut().enumerate() {
                for (b, sum) in by_byte.iter_mut().enumerate() {
                    let mut i = 0;
                    for t in (0..8).filter(|t| b >> t & 1 == 1) {
                        i += 1;
                        *sum += BINOMIAL[8 * m + t][p + i];
                    }
                }
            }
        }
        table
    });

/// [`colex`] of a set of at most 64 squares of which at most 28 are
/// held, a byte at a time.
#[inline]
pub(super) fn colex64(packed: u64) -> u64 {
    let table = &**COLEX_WIDE;
    let (mut rank, mut below) = (0u64, 0usize);
    for (m, byte) in packed.to_le_bytes().into_iter().enumerate() {
        if byte != 0 {
            rank += table[m][below][usize::from(byte)];
            below += byte.count_ones() as usize;
        }
    }
    rank
}

/// The next larger number with as many bits as `v` (Gosper's hack): the
/// next set of as many squares in colex order. Any value once `v` holds the
/// last set; 0 stays 0.
#[inline]
fn next_subset(v: u64) -> u64 {
    if v == 0 {
        return 0;
    }
    let smallest = v & v.wrapping_neg();
    let ripple = v.wrapping_add(smallest);
    ripple | (((v ^ ripple) >> 2) / smallest)
}

/// The tiers are the discs on the board, 0 to W x H; a move leads to the
/// next tier. A position and its mirror image share a class.
impl NamedTiers for ConnectFour {
    type Tier = u8;
    /// The mirror image keeps a position in its tier: one of each pair is
    /// solved.
    const IN_TIER_SYMMETRY: bool = true;

    fn tiers(&self) -> Vec<u8> {
        (0..=self.cells() as u8).collect()
    }

    /// Every move adds a disc.
    fn leaves_tier(&self, _tier: u8) -> bool {
        true
    }

    fn tier_name(&self, tier: u8) -> String {
        format!("discs-{tier:02}")
    }

    #[inline]
    fn tier_of(&self, position: &C4Position) -> u8 {
        position.discs() as u8
    }

    fn tier_size(&self, tier: u8) -> u64 {
        self.index.len(u32::from(tier))
    }

    #[inline]
    fn tier_rank(&self, _tier: u8, position: &C4Position) -> u64 {
        self.index.rank(self, position)
    }

    fn tier_unrank(&self, tier: u8, index: u64) -> Option<C4Position> {
        let position = self.index.board(u32::from(tier), index)?;
        super::legal::check(self, &position).ok()?;
        Some(position)
    }

    /// The board alone: its legality is a search.
    fn tier_board(&self, tier: u8, index: u64) -> Option<C4Position> {
        self.index.board(u32::from(tier), index)
    }

    /// Steps through the boards of `range` without ranking each afresh,
    /// keeping those legal play reaches.
    fn for_each_in_tier(
        &self,
        tier: u8,
        range: std::ops::Range<u64>,
        mut visit: impl FnMut(u64, C4Position),
    ) {
        self.index
            .for_each_board(u32::from(tier), range, |index, position| {
                if super::legal::check(self, &position).is_ok() {
                    visit(index, position);
                }
            });
    }

    fn child_tiers(&self, tier: u8) -> Vec<u8> {
        if u32::from(tier) < self.cells() {
            vec![tier + 1]
        } else {
            Vec::new()
        }
    }

    /// Of the position and its mirror image, the one of lesser index: the
    /// one the shards of present keys hold ([`super::present`]).
    #[inline]
    fn fold_in_tier(&self, position: &C4Position) -> C4Position {
        let mirror = self.mirror(position);
        if self.index.rank(self, &mirror) < self.index.rank(self, position) {
            mirror
        } else {
            *position
        }
    }

    #[inline]
    fn is_representative(&self, position: &C4Position) -> bool {
        self.index.rank(self, position) <= self.index.rank(self, &self.mirror(position))
    }

    /// The streams' shards hold the boards legal play reaches, one of
    /// each mirror pair.
    fn tier_presence(&self, tier: u8) -> Option<std::sync::Arc<dyn ply_core::db::Presence>> {
        Some(std::sync::Arc::new(super::present::Present::new(
            self,
            u32::from(tier),
        )))
    }
}
