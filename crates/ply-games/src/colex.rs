//! Sets of squares as `u32` masks (square `s` is bit `s`, up to 32 squares)
//! and their dense ranks in the combinatorial number system, for games
//! whose index ranks the squares holding each kind of piece.
//!
//! The *colex rank* of a set of `k` squares `s_1 < s_2 < ... < s_k` is
//! `C(s_1, 1) + C(s_2, 2) + ... + C(s_k, k)`: the sets of `k` squares among
//! `0..n` get the ranks `0..C(n, k)`, in increasing order as numbers (so
//! [`next_subset`] steps from one rank to the next), and a set's rank does
//! not depend on `n`. [`Colex`] ranks, unranks, packs and spreads masks by
//! byte tables, or packs and spreads by BMI2's `pext` and `pdep` where
//! they are fast ([`PackingPath`]); its tables are built once per process
//! ([`Colex::get`]). The path is a type parameter of the packing
//! ([`Packing`]): a game chooses it when it is made, and enters its
//! ranking code once per position through `with_packing!`, so the code
//! inside is compiled once per path and packs without a branch.
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
    /// The tables of [`PackingPath::Tables`] (128 KiB).
    tables: ByteTables,
    /// The sets of squares below [`SMALL`], by size then rank.
    small: Vec<u16>,
    /// Where the sets of each size start in `small`.
    small_at: [usize; SMALL as usize + 2],
}

impl Colex {
    /// The tables, built on first use (about 0.6 MB).
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
            tables: ByteTables::new(),
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
    /// bottom in order by the path `P`: bit `i` of the result is `bits`
    /// at the `i`-th square of `mask`.
    #[inline]
    pub fn compress<P: Packing>(&self, bits: u32, mask: u32) -> u32 {
        match P::PATH {
            PackingPath::Pext => pext(bits, mask),
            PackingPath::Tables => self.tables.compress(bits, mask),
        }
    }

    /// The inverse of [`Colex::compress`]: bit `i` of `packed` goes to the
    /// `i`-th set square of `mask`.
    #[inline]
    pub fn expand<P: Packing>(&self, packed: u32, mask: u32) -> u32 {
        match P::PATH {
            PackingPath::Pext => pdep(packed, mask),
            PackingPath::Tables => self.tables.expand(packed, mask),
        }
    }
}

/// A packing path as a type, for code generic over it: compiled once per
/// path, with [`Packing::PATH`] a constant, so [`Colex::compress`] and
/// [`Colex::expand`] take no branch. Such code is entered through
/// `with_packing!`, which branches once on a [`PackingPath`] value.
pub trait Packing {
    /// The path this type stands for.
    const PATH: PackingPath;
}

/// [`PackingPath::Pext`] as a type.
pub enum Pext {}

impl Packing for Pext {
    const PATH: PackingPath = PackingPath::Pext;
}

/// [`PackingPath::Tables`] as a type.
pub enum Tables {}

impl Packing for Tables {
    const PATH: PackingPath = PackingPath::Tables;
}

/// Evaluates `$body` with `$P` naming the [`Packing`] type of the path
/// `$path`: one branch here, then code compiled for that path alone.
/// Ranking code takes it once per position (or per range of positions),
/// never per pack.
macro_rules! with_packing {
    ($path:expr, $P:ident => $body:expr) => {
        match $path {
            $crate::colex::PackingPath::Pext => {
                type $P = $crate::colex::Pext;
                $body
            }
            $crate::colex::PackingPath::Tables => {
                type $P = $crate::colex::Tables;
                $body
            }
        }
    };
}
pub(crate) use with_packing;

/// How [`Colex::compress`] and [`Colex::expand`] pack and spread bits.
///
/// BMI2's `pext` and `pdep` take one instruction and about 3 cycles on
/// Intel since Haswell and on AMD since Zen 3, but run in microcode (tens
/// to hundreds of cycles, by the mask) on AMD Zen 1 and Zen 2 (family
/// 0x17, and Hygon's family 0x18 built on them). There, and where the
/// processor or the build lacks BMI2, byte tables are faster. The path is
/// chosen once per process ([`PackingPath::current`]) and held by each
/// game, which enters its ranking code, generic over [`Packing`], through
/// one branch per position: no branch per pack, no indirect call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackingPath {
    /// BMI2's `pext` and `pdep`.
    Pext,
    /// Byte tables, a byte of the mask at a time.
    Tables,
}

/// The environment variable that forces a packing path: `pext` or `tables`.
pub const PACKING_VARIABLE: &str = "PLY_PACKING";

/// What of the processor decides the packing path (from `cpuid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// The vendor string of `cpuid` leaf 0, e.g. `AuthenticAMD`.
    pub vendor: [u8; 12],
    /// The family of `cpuid` leaf 1: the base family, plus the extended
    /// family where the base is 0xF.
    pub family: u32,
    /// Whether the processor has BMI2.
    pub bmi2: bool,
}

impl Cpu {
    /// This processor, read by `cpuid`.
    #[cfg(target_arch = "x86_64")]
    pub fn detect() -> Cpu {
        use std::arch::x86_64::__cpuid;
        let leaf0 = __cpuid(0);
        let mut vendor = [0u8; 12];
        vendor[..4].copy_from_slice(&leaf0.ebx.to_le_bytes());
        vendor[4..8].copy_from_slice(&leaf0.edx.to_le_bytes());
        vendor[8..].copy_from_slice(&leaf0.ecx.to_le_bytes());
        Cpu {
            vendor,
            family: family_of(__cpuid(1).eax),
            bmi2: std::arch::is_x86_feature_detected!("bmi2"),
        }
    }

    /// Elsewhere than x86-64: no BMI2.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn detect() -> Cpu {
        Cpu {
            vendor: [0; 12],
            family: 0,
            bmi2: false,
        }
    }

    /// Whether `pext` and `pdep` run in microcode here: AMD family 0x17
    /// (Zen 1, Zen+, Zen 2) and Hygon family 0x18 (Dhyana, a Zen 1).
    pub fn slow_pext(&self) -> bool {
        (&self.vendor == b"AuthenticAMD" && self.family == 0x17)
            || (&self.vendor == b"HygonGenuine" && self.family == 0x18)
    }
}

/// The family in `cpuid` leaf 1's `eax`: the base family (bits 8-11), plus
/// the extended family (bits 20-27) where the base is 0xF.
pub fn family_of(eax: u32) -> u32 {
    let base = eax >> 8 & 0xF;
    if base == 0xF {
        base + (eax >> 20 & 0xFF)
    } else {
        base
    }
}

/// Whether this build can run `pext` and `pdep` inline: it targets BMI2
/// (`.cargo/config.toml` asks for x86-64-v3).
pub const BUILD_HAS_BMI2: bool = cfg!(all(target_arch = "x86_64", target_feature = "bmi2"));

impl PackingPath {
    /// The path for `cpu` on this build, unless `forced` (the value of
    /// [`PACKING_VARIABLE`]) names one: `pext` where the build and the
    /// processor have BMI2 and it is not microcoded, else `tables`. Forcing
    /// `pext` on a build without BMI2, or an unknown name, is an error.
    pub fn choose(forced: Option<&str>, cpu: &Cpu) -> Result<PackingPath, String> {
        match forced {
            Some("pext") if BUILD_HAS_BMI2 => Ok(PackingPath::Pext),
            Some("pext") => Err(format!(
                "{PACKING_VARIABLE}=pext: this build has no BMI2 path (it does not target x86-64-v3)"
            )),
            Some("tables") => Ok(PackingPath::Tables),
            Some(other) => Err(format!(
                "{PACKING_VARIABLE}={other:?}: expected 'pext' or 'tables'"
            )),
            None if BUILD_HAS_BMI2 && cpu.bmi2 && !cpu.slow_pext() => Ok(PackingPath::Pext),
            None => Ok(PackingPath::Tables),
        }
    }

    /// This process's path: [`PackingPath::choose`] from `PLY_PACKING` and
    /// this processor, decided on first use. An unusable `PLY_PACKING` is
    /// an error here (the command line reports it at start); the tables
    /// then serve.
    pub fn current() -> Result<PackingPath, String> {
        static CHOSEN: std::sync::OnceLock<Result<PackingPath, String>> =
            std::sync::OnceLock::new();
        CHOSEN
            .get_or_init(|| {
                let forced = std::env::var(PACKING_VARIABLE).ok();
                PackingPath::choose(forced.as_deref(), &Cpu::detect())
            })
            .clone()
    }

    /// The path games pack by unless told otherwise: [`PackingPath::current`],
    /// or the tables if `PLY_PACKING` is unusable.
    pub fn in_use() -> PackingPath {
        PackingPath::current().unwrap_or(PackingPath::Tables)
    }

    /// The name `PLY_PACKING` takes: `pext` or `tables`.
    pub fn name(self) -> &'static str {
        match self {
            PackingPath::Pext => "pext",
            PackingPath::Tables => "tables",
        }
    }
}

/// Packing and spreading a byte at a time through tables.
struct ByteTables {
    /// [`compress_slow`] of a byte of bits (low 8 bits of the index) by a
    /// byte of mask (high 8 bits).
    packed: Vec<u8>,
    /// [`expand_slow`] of a byte of packed bits (low 8) onto a byte of mask
    /// (high 8).
    spread: Vec<u8>,
}

impl ByteTables {
    fn new() -> Self {
        ByteTables {
            packed: (0..1usize << 16)
                .map(|i| compress_slow((i & 0xff) as u32, (i >> 8) as u32) as u8)
                .collect(),
            spread: (0..1usize << 16)
                .map(|i| expand_slow((i & 0xff) as u32, (i >> 8) as u32) as u8)
                .collect(),
        }
    }

    #[inline]
    fn compress(&self, mut bits: u32, mut mask: u32) -> u32 {
        let mut out = 0;
        let mut shift = 0;
        while mask != 0 {
            let m = mask as u8;
            out |= u32::from(self.packed[usize::from(m) << 8 | usize::from(bits as u8)]) << shift;
            shift += u32::from(POP8[usize::from(m)]);
            mask >>= 8;
            bits >>= 8;
        }
        out
    }

    #[inline]
    fn expand(&self, mut packed: u32, mask: u32) -> u32 {
        let mut out = 0;
        for (chunk, m) in mask.to_le_bytes().into_iter().enumerate() {
            if m != 0 {
                let take = packed & 0xff;
                out |= u32::from(self.spread[usize::from(m) << 8 | take as usize]) << (8 * chunk);
                packed >>= POP8[usize::from(m)];
            }
        }
        out
    }
}

/// `pext`, where the build has BMI2; elsewhere square by square (the
/// path chosen is then always [`PackingPath::Tables`]).
#[inline]
fn pext(bits: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        ply_core::gather(bits, mask)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        compress_slow(bits, mask)
    }
}

/// `pdep`, as [`pext`].
#[inline]
fn pdep(packed: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        ply_core::scatter(packed, mask)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        expand_slow(packed, mask)
    }
}

/// The colex rank of `mask`, square by square (the tables' reference).
fn rank_slow(mask: u32) -> u64 {
    squares_of(mask)
        .enumerate()
        .map(|(i, s)| binomial(u32::from(s), i as u32 + 1))
        .sum()
}

/// [`Colex::compress`], square by square.
fn compress_slow(bits: u32, mask: u32) -> u32 {
    squares_of(mask)
        .enumerate()
        .fold(0, |out, (i, s)| out | (bits >> s & 1) << i)
}

/// [`Colex::expand`], square by square.
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
        // Both packing paths, whatever this process chose, and the one
        // `with_packing!` enters for each path value.
        agrees_with_square_by_square::<Pext>();
        agrees_with_square_by_square::<Tables>();
        for path in [PackingPath::Pext, PackingPath::Tables] {
            assert_eq!(with_packing!(path, P => P::PATH), path);
        }
    }

    fn agrees_with_square_by_square<P: Packing>() {
        let colex = Colex::get();
        for mask in random_masks() {
            let k = mask.count_ones();
            assert_eq!(colex.rank(mask), rank_slow(mask), "{mask:b}");
            assert_eq!(pop(mask), k);
            assert_eq!(colex.unrank(rank_slow(mask), k, 32), mask, "{mask:b}");
            let bits = mask.rotate_left(7) ^ 0x5555_5555;
            let packed = colex.compress::<P>(bits, mask);
            assert_eq!(packed, compress_slow(bits, mask));
            assert_eq!(colex.expand::<P>(packed, mask), bits & mask);
            assert_eq!(colex.expand::<P>(packed, mask), expand_slow(packed, mask));
        }
    }

    /// A processor as `cpuid` would describe it.
    fn cpu(vendor: &[u8; 12], leaf1_eax: u32, bmi2: bool) -> Cpu {
        Cpu {
            vendor: *vendor,
            family: family_of(leaf1_eax),
            bmi2,
        }
    }

    #[test]
    fn amd_family_0x17_and_processors_without_bmi2_get_the_tables() {
        // Leaf 1's eax of real processors: EPYC 7601 (Zen 1), EPYC 7B12
        // (Zen 2), EPYC 9B14 (Zen 4), Xeon Platinum 8481C (Sapphire Rapids),
        // Hygon C86 (Dhyana).
        let zen1 = cpu(b"AuthenticAMD", 0x0080_0F12, true);
        let zen2 = cpu(b"AuthenticAMD", 0x0083_0F10, true);
        let zen4 = cpu(b"AuthenticAMD", 0x00A1_0F11, true);
        let xeon = cpu(b"GenuineIntel", 0x0008_06F8, true);
        let hygon = cpu(b"HygonGenuine", 0x0090_0F01, true);
        assert_eq!([zen1.family, zen2.family, zen4.family], [0x17, 0x17, 0x19]);
        assert_eq!([xeon.family, hygon.family], [6, 0x18]);
        for slow in [zen1, zen2, hygon] {
            assert!(slow.slow_pext(), "{slow:?}");
            assert_eq!(PackingPath::choose(None, &slow), Ok(PackingPath::Tables));
        }
        let fast = if BUILD_HAS_BMI2 {
            PackingPath::Pext
        } else {
            PackingPath::Tables
        };
        for quick in [zen4, xeon] {
            assert!(!quick.slow_pext(), "{quick:?}");
            assert_eq!(PackingPath::choose(None, &quick), Ok(fast));
        }
        let old = cpu(b"GenuineIntel", 0x0001_06A5, false);
        assert_eq!(PackingPath::choose(None, &old), Ok(PackingPath::Tables));
    }

    #[test]
    fn ply_packing_forces_a_path_or_is_refused() {
        let zen2 = cpu(b"AuthenticAMD", 0x0083_0F10, true);
        assert_eq!(
            PackingPath::choose(Some("tables"), &zen2),
            Ok(PackingPath::Tables)
        );
        let forced = PackingPath::choose(Some("pext"), &zen2);
        if BUILD_HAS_BMI2 {
            assert_eq!(forced, Ok(PackingPath::Pext));
        } else {
            assert!(forced.unwrap_err().contains("no BMI2"));
        }
        let error = PackingPath::choose(Some("fast"), &zen2).unwrap_err();
        assert!(
            error.contains("PLY_PACKING") && error.contains("'pext' or 'tables'"),
            "{error}"
        );
    }

    #[test]
    fn the_process_packs_by_the_path_it_chose() {
        let forced = std::env::var(PACKING_VARIABLE).ok();
        let chosen = PackingPath::choose(forced.as_deref(), &Cpu::detect());
        assert_eq!(PackingPath::current(), chosen);
        assert_eq!(PackingPath::in_use(), chosen.unwrap_or(PackingPath::Tables));
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
