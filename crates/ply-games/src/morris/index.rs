//! Morris's sectors (the tiers of the tier solver) and the dense index
//! inside each, with the 16 board symmetries folded in and the colours
//! swapped so that the index sees the mover as White.
//!
//! A sector is the stones of the mover and of the other player, on the
//! board and in hand ([`Sector`]):
//! - placing sectors, (mover's hand, other's hand, mover's stones, other's
//!   stones): every move lowers the hands, so play never loops there;
//! - moving sectors, the unordered pair of stone counts {hi, lo} (Gasser's
//!   databases 9-9, 9-8, ..., 3-3, 28 of them for nine stones): a move
//!   keeps the sector or, by a removal, leads to a sector with one stone
//!   fewer; play loops inside a sector. Its index holds the positions with
//!   the mover holding `hi` stones, then those with the mover holding `lo`;
//!   both halves are ranked from the points of the player holding `hi`
//!   (below);
//! - one sector `lost` for every position whose mover has fewer than three
//!   stones: all lost at once, so all share its one index.
//!
//! Inside a sector half a position is ranked from a *key* point set of
//! `k` stones and a *free* set of `f` stones: `class * C(24 - k, f) +
//! rank(free)`: `class` numbers the symmetry classes of the key set (the
//! least set of each class in colex order names it), and `rank(free)` is
//! the colex rank, among the points the class's set leaves empty, of the
//! image of the free set under a symmetry that takes the key set to that
//! least set (the least such rank where several symmetries do). An index
//! whose free set is not that least one names no position.
//!
//! The key is the mover's points, except in the second half of a moving
//! sector (the mover holding `lo` stones against `hi`), where it is the
//! other player's ([`keyed_by_other`]). So in every moving sector the key
//! is the side with more stones, and a move inside a sector keeps it: a
//! position's parents in the sector (the player who just moved taking a
//! stone back) share its key where they lie in the second half, and lie in
//! the few classes of its key's neighbours where they lie in the first, so
//! the tier solver's layers write into a few blocks of cells rather than
//! all over the sector; a removal's children likewise.

use super::{ALL, Morris, POINTS, Stones, hands_fit, points};
use ply_core::{Game, Indexed, NamedTiers, Symmetric};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

pub(super) use crate::colex::pop;
use crate::colex::{self, Colex, Packing, with_packing};

/// The most stones a side has.
const MOST: usize = 9;

/// A bound on the parents a moving-phase position has in its sector:
/// three stones, each jumping back from one of at most 21 other points
/// (18 at most are empty, so 54 is the most that occur).
const MOST_PARENTS: usize = 3 * 21;

/// C(n, k).
#[inline]
fn binomial(n: usize, k: usize) -> u64 {
    colex::binomial(n as u32, k as u32)
}

/// The colex rank of a set of points among the sets of its size.
#[inline]
fn colex_rank(set: u32) -> u64 {
    Colex::get().rank(set)
}

/// `set` with the points of `taken` squeezed out: bit `i` of the result is
/// the `i`th point not in `taken` (no point of `set` is in `taken`).
#[inline]
fn squeeze<P: Packing>(set: u32, taken: u32) -> u32 {
    Colex::get().compress::<P>(set, ALL & !taken)
}

/// The inverse of [`squeeze`].
#[inline]
fn spread<P: Packing>(squeezed: u32, taken: u32) -> u32 {
    Colex::get().expand::<P>(squeezed, ALL & !taken)
}

/// The sets of `k` points in colex order (increasing as numbers).
fn sets(k: usize) -> impl Iterator<Item = u32> {
    sets_in(k, 0..binomial(POINTS, k))
}

/// The sets of `k` points with colex ranks in `ranks`, in order.
fn sets_in(k: usize, ranks: Range<u64>) -> impl Iterator<Item = u32> {
    let first = (!ranks.is_empty()).then(|| unrank_set(ranks.start, k, POINTS));
    // The empty set is the only set of no points: it has no successor
    // (and `successors` asks for one before `take` stops it).
    std::iter::successors(first, move |&set| {
        (set != 0).then(|| colex::next_subset(set))
    })
    .take((ranks.end - ranks.start) as usize)
}

/// The set of `k` points of colex rank `rank` among the first `n` points.
#[inline]
fn unrank_set(rank: u64, k: usize, n: usize) -> u32 {
    Colex::get().unrank(rank, k as u32, n as u32)
}

/// Images of point sets under the 16 symmetries: a byte of points at a
/// time, and one point at a time.
struct Images {
    /// `bytes[s][chunk][byte]`: the image under symmetry `s` of the points
    /// `byte` names in byte `chunk` of a set.
    bytes: [[[u32; 256]; 3]; 16],
    /// `points[s][p]`: the image under symmetry `s` of point `p`, as a set.
    points: [[u32; POINTS]; 16],
}

impl Images {
    /// The tables, built once.
    #[inline]
    fn get() -> &'static Images {
        static IMAGES: OnceLock<Box<Images>> = OnceLock::new();
        IMAGES.get_or_init(|| {
            let perms = &super::Geometry::get().perms;
            let mut images = Box::new(Images {
                bytes: [[[0u32; 256]; 3]; 16],
                points: [[0u32; POINTS]; 16],
            });
            for (s, perm) in perms.iter().enumerate() {
                for (p, &image) in perm.iter().enumerate() {
                    images.points[s][p] = 1 << image;
                }
                for chunk in 0..3 {
                    for byte in 0..256 {
                        images.bytes[s][chunk][byte] = (0..8)
                            .filter(|bit| byte >> bit & 1 == 1)
                            .fold(0, |m, bit| m | 1 << perm[chunk * 8 + bit]);
                    }
                }
            }
            images
        })
    }

    /// The image of `set` under symmetry `s`.
    #[inline]
    fn image(&self, s: usize, set: u32) -> u32 {
        let t = &self.bytes[s];
        t[0][(set & 0xFF) as usize] | t[1][(set >> 8 & 0xFF) as usize] | t[2][(set >> 16) as usize]
    }
}

/// Bits of an [`Entries`] entry below the class: the symmetry to the least
/// set (4 bits), then whether the least set has symmetries besides the
/// identity.
const ENTRY_SHIFT: u32 = 5;
/// The bit of an [`Entries`] entry set when the class's least set is fixed
/// by some symmetry besides the identity.
const SYMMETRIC: u32 = 1 << 4;
/// Class lookups of one set size answered without [`Entries`] before
/// they are built: a query ranking a few positions stays quick, and a
/// solve ranking millions soon pays for the table.
const LOOKUPS_BEFORE_ENTRIES: u32 = 1 << 12;

/// The symmetry classes of the sets of `m` points: each class's least set
/// (the class numbers them in increasing order), enough to rank and
/// unrank any position.
struct Classes {
    /// Each class's least set, in increasing order.
    least: Vec<u32>,
    /// The symmetries fixing each class's least set (bit `s` for symmetry `s`).
    fixing: Vec<u16>,
    /// Lookups answered by search in `least` (see [`LOOKUPS_BEFORE_ENTRIES`]).
    lookups: AtomicU32,
}

/// A set's class, a symmetry taking it to its class's least set, and
/// whether that least set has symmetries besides the identity.
#[derive(Copy, Clone)]
struct ClassOf {
    class: usize,
    to_least: usize,
    symmetric: bool,
}

impl Classes {
    /// The classes of sets of `m` points, built once.
    #[inline]
    fn get(m: usize) -> &'static Classes {
        static CLASSES: [OnceLock<Classes>; MOST + 1] = [const { OnceLock::new() }; MOST + 1];
        CLASSES[m].get_or_init(|| Classes::build(m))
    }

    /// Lists each class's least set: a set is the least of its class when
    /// no symmetry takes it lower, which most sets show after an image or
    /// two.
    fn build(m: usize) -> Classes {
        let images = Images::get();
        // In parallel over slices of the sets, for a query's sake: the
        // least sets of 9 points, from 1.3 million sets, are most of the
        // work of one `ply solve morris`.
        const SLICES: u64 = 64;
        let count = binomial(POINTS, m);
        let slices: Vec<Vec<(u32, u16)>> = (0..SLICES)
            .into_par_iter()
            .map(|i| {
                sets_in(m, i * count / SLICES..(i + 1) * count / SLICES)
                    // Sets of one size compare as numbers as they do in
                    // colex order.
                    .filter(|&set| (1..16).all(|s| images.image(s, set) >= set))
                    .map(|set| {
                        let fixing = (0..16)
                            .filter(|&s| images.image(s, set) == set)
                            .fold(0u16, |f, s| f | 1 << s);
                        (set, fixing)
                    })
                    .collect()
            })
            .collect();
        let (least, fixing) = slices.into_iter().flatten().unzip();
        Classes {
            least,
            fixing,
            lookups: AtomicU32::new(0),
        }
    }

    /// The class of the set `set` of `m` points: from [`Entries`] once they
    /// are built, before that by a search of the least sets.
    #[inline]
    fn of(m: usize, set: u32) -> ClassOf {
        if let Some(entries) = Entries::built(m) {
            return entries.of(set);
        }
        let classes = Classes::get(m);
        if classes.lookups.fetch_add(1, Relaxed) >= LOOKUPS_BEFORE_ENTRIES {
            return Entries::get(m).of(set);
        }
        classes.search(set)
    }

    /// The class of `set`, a set of this size, by a search of the least
    /// sets.
    #[inline]
    fn search(&self, set: u32) -> ClassOf {
        let (least, to_least) = least_of(set);
        let class = self.least.partition_point(|&l| l < least);
        ClassOf {
            class,
            to_least,
            symmetric: self.fixing[class] != 1,
        }
    }
}

/// The least image of `set` under the 16 symmetries, and the first
/// symmetry giving it.
#[inline]
fn least_of(set: u32) -> (u32, usize) {
    let images = Images::get();
    let (mut best, mut best_s) = (set, 0);
    for s in 1..16 {
        let image = images.image(s, set);
        if image < best {
            (best, best_s) = (image, s);
        }
    }
    (best, best_s)
}

/// Every set's class in one word per set, for the solver's ranking of
/// millions of positions (one memory access each).
struct Entries {
    /// For each set, by its colex rank: its class above [`ENTRY_SHIFT`],
    /// the [`SYMMETRIC`] bit of the class, and in the low 4 bits the
    /// symmetry [`least_of`] gives.
    entry: Vec<u32>,
}

impl Entries {
    fn cell(m: usize) -> &'static OnceLock<Entries> {
        static ENTRIES: [OnceLock<Entries>; MOST + 1] = [const { OnceLock::new() }; MOST + 1];
        &ENTRIES[m]
    }

    /// The entries of sets of `m` points, built once.
    fn get(m: usize) -> &'static Entries {
        Entries::cell(m).get_or_init(|| Entries::build(m))
    }

    /// The entries of sets of `m` points, if built.
    #[inline]
    fn built(m: usize) -> Option<&'static Entries> {
        Entries::cell(m).get()
    }

    fn build(m: usize) -> Entries {
        let classes = Classes::get(m);
        let mut entry = vec![0u32; binomial(POINTS, m) as usize];
        // A class's least set comes before the rest of its class.
        let mut next = 0;
        for (rank, set) in sets(m).enumerate() {
            let (best, best_s) = least_of(set);
            let class = if best == set {
                let symmetric = if classes.fixing[next] == 1 {
                    0
                } else {
                    SYMMETRIC
                };
                next += 1;
                (next as u32 - 1) << ENTRY_SHIFT | symmetric
            } else {
                entry[colex_rank(best) as usize] & !15
            };
            entry[rank] = class | best_s as u32;
        }
        Entries { entry }
    }

    #[inline]
    fn of(&self, set: u32) -> ClassOf {
        self.at(colex_rank(set) as usize)
    }

    /// The class of the set of colex rank `rank`.
    #[inline]
    fn at(&self, rank: usize) -> ClassOf {
        let entry = self.entry[rank];
        ClassOf {
            class: (entry >> ENTRY_SHIFT) as usize,
            to_least: (entry & 15) as usize,
            symmetric: entry & SYMMETRIC != 0,
        }
    }
}

/// A sector: a tier of the tier solver (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sector {
    /// The mover has fewer than three stones: lost.
    Lost,
    /// Both hands empty; the stone counts, the larger first.
    Moving {
        /// The larger stone count.
        hi: u8,
        /// The smaller stone count.
        lo: u8,
    },
    /// Stones in hand.
    Placing {
        /// The mover's stones in hand and the other player's.
        hands: [u8; 2],
        /// The mover's stones on the board and the other player's.
        stones: [u8; 2],
    },
}

/// Whether a position of `sector` with `m` stones of the mover's against
/// `o` of the other's is ranked from the other player's points (its key,
/// see the module docs): in a moving sector's second half.
#[inline]
fn keyed_by_other(sector: Sector, m: u8, o: u8) -> bool {
    matches!(sector, Sector::Moving { .. }) && m < o
}

/// Positions in a sector half keyed by `m` stones against `o` free ones.
fn half_len(m: u8, o: u8) -> u64 {
    let m = usize::from(m);
    CLASS_COUNTS[m] * binomial(POINTS - m, usize::from(o))
}

/// The symmetry classes of the sets of `m` points, by `m` (Burnside's
/// lemma over the 16 symmetries; a test counts them again from
/// [`Classes`]): the sizes of every sector are known without building the
/// classes of every set size, which a one-position query need not do.
const CLASS_COUNTS: [u64; MOST + 1] = [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880];

/// What ranking a sector half's positions with one mover point set needs:
/// the set's class, a symmetry taking it to its class's least set, the
/// symmetries fixing the least set, and the points the least set leaves
/// empty.
#[derive(Copy, Clone)]
struct Mover {
    /// The first index of the class: class * C(24 - m, o).
    base: u64,
    to_least: usize,
    fixing: u16,
    images: &'static Images,
    /// The points the least set leaves empty.
    free: u32,
}

impl Mover {
    /// The ranking context of the mover's points `mover` against `o` stones.
    #[inline]
    fn new(mover: u32, o: usize) -> Mover {
        let m = pop(mover) as usize;
        Mover::of_class(mover, m, Classes::of(m, mover), o)
    }

    /// [`Mover::new`] of the `m` points `mover`, whose class is `of`.
    #[inline]
    fn of_class(mover: u32, m: usize, of: ClassOf, o: usize) -> Mover {
        let images = Images::get();
        let ClassOf {
            class,
            to_least,
            symmetric,
        } = of;
        // The symmetry takes the set to the least one of its class.
        let least = images.image(to_least, mover);
        Mover {
            base: class as u64 * binomial(POINTS - m, o),
            to_least,
            fixing: if symmetric {
                Classes::get(m).fixing[class]
            } else {
                1
            },
            images,
            free: ALL & !least,
        }
    }

    /// The image of `set` under the symmetry taking the mover's points to
    /// their class's least set.
    #[inline]
    fn image(&self, set: u32) -> u32 {
        self.images.image(self.to_least, set)
    }

    /// The rank inside the half of the other player's points `other`.
    #[inline]
    fn rank<P: Packing>(&self, other: u32) -> u64 {
        self.rank_image::<P>(self.image(other))
    }

    /// [`Mover::image`] of the one point `point`.
    #[inline]
    fn point_image(&self, point: u8) -> u32 {
        self.images.points[self.to_least][usize::from(point)]
    }

    /// [`Mover::rank`] of the other player's points whose [`Mover::image`]
    /// is `image`: the colex rank of those points squeezed to the places
    /// the least set leaves empty, the least such rank over the symmetries
    /// fixing the least set.
    #[inline]
    fn rank_image<P: Packing>(&self, image: u32) -> u64 {
        let colex = Colex::get();
        let rank = |set: u32| colex.rank(colex.compress::<P>(set, self.free));
        let mut best = rank(image);
        // The symmetries besides the identity, a bit each.
        let mut others = self.fixing & !1;
        while others != 0 {
            let t = others.trailing_zeros() as usize;
            others &= others - 1;
            best = best.min(rank(self.images.image(t, image)));
        }
        self.base + best
    }
}

/// The rank inside a sector half of the key set `key` and the free set
/// `free` (the mover's and other's points, or in a moving sector's second
/// half the other's and the mover's).
#[inline]
fn rank_half<P: Packing>(key: u32, free: u32) -> u64 {
    Mover::new(key, pop(free) as usize).rank::<P>(free)
}

/// The rank in `sector` (not `lost`) of the position where the mover holds
/// `mover` and the other player `other`.
#[inline]
fn rank_in<P: Packing>(sector: Sector, mover: u32, other: u32) -> u64 {
    let (m, o) = (pop(mover) as u8, pop(other) as u8);
    half_start(sector, m)
        + if keyed_by_other(sector, m, o) {
            rank_half::<P>(other, mover)
        } else {
            rank_half::<P>(mover, other)
        }
}

/// The key set and the free set (see [`rank_half`]) of index `index` in
/// the half keyed by `k` stones against `f` free ones, if it names a
/// position.
#[inline]
fn unrank_half<P: Packing>(k: u8, f: u8, index: u64) -> Option<(u32, u32)> {
    let (k, f) = (usize::from(k), usize::from(f));
    let classes = Classes::get(k);
    let per = binomial(POINTS - k, f);
    let class = usize::try_from(index / per).ok()?;
    let least = *classes.least.get(class)?;
    let rank = index % per;
    let free = spread::<P>(unrank_set(rank, f, POINTS - k), least);
    least_image::<P>(least, classes.fixing[class], free, rank).then_some((least, free))
}

/// Whether no symmetry of `fixing` (those fixing the key set `least`)
/// takes the free set `free`, of rank `rank` among the points `least`
/// leaves empty, to a set of lower rank: whether the index of that rank
/// names a position.
#[inline]
fn least_image<P: Packing>(least: u32, fixing: u16, free: u32, rank: u64) -> bool {
    if fixing == 1 {
        return true;
    }
    let images = Images::get();
    (1..16).all(|t| {
        fixing >> t & 1 == 0 || colex_rank(squeeze::<P>(images.image(t, free), least)) >= rank
    })
}

/// Calls `visit` with every index in `range` of the half keyed by `k`
/// stones against `f` free ones that names a position, in increasing
/// order, with the key set and the free set: [`unrank_half`] of each
/// index, stepping from one free set to the next.
fn for_each_in_half<P: Packing>(
    k: u8,
    f: u8,
    range: Range<u64>,
    mut visit: impl FnMut(u64, u32, u32),
) {
    let (k, f) = (usize::from(k), usize::from(f));
    let classes = Classes::get(k);
    let per = binomial(POINTS - k, f);
    let end = range.end.min(classes.least.len() as u64 * per);
    if range.start >= end {
        return;
    }
    let first: u32 = (1 << f) - 1;
    let mut class = (range.start / per) as usize;
    let mut rank = range.start % per;
    let mut squeezed = unrank_set(rank, f, POINTS - k);
    for index in range.start..end {
        let least = classes.least[class];
        let free = spread::<P>(squeezed, least);
        if least_image::<P>(least, classes.fixing[class], free, rank) {
            visit(index, least, free);
        }
        rank += 1;
        if rank == per {
            (class, rank, squeezed) = (class + 1, 0, first);
        } else {
            squeezed = colex::next_subset(squeezed);
        }
    }
}

/// Where a sector's half with `m` mover stones starts in its index.
#[inline]
fn half_start(sector: Sector, m: u8) -> u64 {
    match sector {
        Sector::Moving { hi, lo } if m != hi => half_len(hi, lo),
        _ => 0,
    }
}

/// The one position standing for the `lost` sector: Black to move with no
/// stones, against White's three.
const LOST: Stones = Stones {
    white: 0b111,
    black: 0,
    hand: [0, 0],
    black_to_move: true,
};

impl Morris {
    /// The stones in hand that may go with a mover's turn while placing:
    /// (mover's, other's).
    fn placing_hands(&self) -> impl Iterator<Item = [u8; 2]> {
        (1..=self.stones()).flat_map(|h| [[h, h], [h, h - 1]])
    }

    /// The sector of a position with the mover's `m` stones and `mh` in
    /// hand against the other's `o` and `oh`.
    fn sector(m: u8, o: u8, mh: u8, oh: u8) -> Sector {
        if m + mh < 3 {
            Sector::Lost
        } else if mh == 0 && oh == 0 {
            Sector::Moving {
                hi: m.max(o),
                lo: m.min(o),
            }
        } else {
            Sector::Placing {
                hands: [mh, oh],
                stones: [m, o],
            }
        }
    }

    /// Every sector of the whole game, placing ones included.
    fn sectors(&self) -> Vec<Sector> {
        let n = self.stones();
        let mut sectors = vec![Sector::Lost];
        for hi in 3..=n {
            for lo in 3..=hi {
                sectors.push(Sector::Moving { hi, lo });
            }
        }
        for [mh, oh] in self.placing_hands() {
            for m in 0..=n - mh {
                for o in 0..=n - oh {
                    if m + mh >= 3 && o + oh >= 3 {
                        sectors.push(Sector::Placing {
                            hands: [mh, oh],
                            stones: [m, o],
                        });
                    }
                }
            }
        }
        sectors
    }

    /// Every sector of the whole game with its first global index, in
    /// order, and the end (the global index covers the placing phase even
    /// when the tiers are the moving phase only).
    fn layout(&self) -> &[(Sector, u64)] {
        self.layout.get_or_init(|| {
            let mut tiers = self.sectors();
            tiers.sort_unstable();
            let mut next = 0;
            let mut layout = Vec::with_capacity(tiers.len() + 1);
            for tier in tiers {
                layout.push((tier, next));
                next += self.tier_size(tier);
            }
            layout.push((Sector::Lost, next));
            layout
        })
    }
}

impl NamedTiers for Morris {
    type Tier = Sector;
    const IN_TIER_PARENTS: bool = true;

    /// Every sector, or with [`Morris::moving_phase`] the moving sectors
    /// and `lost` only.
    fn tiers(&self) -> Vec<Sector> {
        let mut tiers = self.sectors();
        if self.moving_only() {
            tiers.retain(|s| !matches!(s, Sector::Placing { .. }));
        }
        tiers
    }

    /// `lost`, `m9-8` (moving: the larger count first), `p5-4-3-2`
    /// (placing: the mover's and other's hands, then stones).
    fn tier_name(&self, tier: Sector) -> String {
        match tier {
            Sector::Lost => "lost".into(),
            Sector::Moving { hi, lo } => format!("m{hi}-{lo}"),
            Sector::Placing {
                hands: [mh, oh],
                stones: [m, o],
            } => format!("p{mh}-{oh}-{m}-{o}"),
        }
    }

    #[inline]
    fn tier_of(&self, position: &Stones) -> Sector {
        let (mover, other, mh, oh) = position.sides();
        Morris::sector(pop(mover) as u8, pop(other) as u8, mh, oh)
    }

    fn tier_size(&self, tier: Sector) -> u64 {
        match tier {
            Sector::Lost => 1,
            Sector::Moving { hi, lo } if hi == lo => half_len(hi, lo),
            // The second half is keyed by the other player's `hi` stones.
            Sector::Moving { hi, lo } => 2 * half_len(hi, lo),
            Sector::Placing { stones: [m, o], .. } => half_len(m, o),
        }
    }

    #[inline]
    fn tier_rank(&self, tier: Sector, position: &Stones) -> u64 {
        let (mover, other, _, _) = position.sides();
        match tier {
            Sector::Lost => 0,
            _ => with_packing!(self.packing, P => rank_in::<P>(tier, mover, other)),
        }
    }

    fn tier_unrank(&self, tier: Sector, index: u64) -> Option<Stones> {
        if index >= self.tier_size(tier) {
            return None;
        }
        match tier {
            Sector::Lost => Some(LOST),
            Sector::Moving { hi, lo } => {
                // Both halves are keyed by the `hi` stones: the mover's in
                // the first, the other player's in the second.
                let first = half_len(hi, lo);
                let (key, free) =
                    with_packing!(self.packing, P => unrank_half::<P>(hi, lo, index % first))?;
                let (mover, other) = if index < first {
                    (key, free)
                } else {
                    (free, key)
                };
                Some(Stones::from_sides(mover, other, 0, 0, false))
            }
            Sector::Placing {
                hands: [mh, oh],
                stones: [m, o],
            } => {
                let (mover, other) =
                    with_packing!(self.packing, P => unrank_half::<P>(m, o, index))?;
                let black_to_move = mh != oh;
                let position = Stones::from_sides(mover, other, mh, oh, black_to_move);
                debug_assert!(hands_fit(position.hand, black_to_move));
                Some(position)
            }
        }
    }

    fn for_each_in_tier(&self, tier: Sector, range: Range<u64>, visit: impl FnMut(u64, Stones)) {
        with_packing!(self.packing, P => self.for_each_in_tier_by::<P>(tier, range, visit));
    }

    /// The moving phase's game ([`Morris::moving_phase`]) for a moving
    /// sector or `lost` of the whole game: the same index and cells, so a
    /// whole game solved beside its moving phase's database takes those
    /// sectors from it.
    fn counterpart(&self, tier: Sector) -> Option<(String, u32)> {
        if self.moving_only() || matches!(tier, Sector::Placing { .. }) {
            return None;
        }
        let moving = Morris::moving_phase(self.stones());
        Some((moving.name(), moving.rules_version()))
    }

    fn child_tiers(&self, tier: Sector) -> Vec<Sector> {
        let mut children = Vec::new();
        match tier {
            Sector::Lost => {}
            Sector::Moving { hi, lo } => {
                // A removal by the mover with `m` against `o`: the other
                // moves next with `o - 1` against `m`.
                for (m, o) in [(hi, lo), (lo, hi)] {
                    children.push(Morris::sector(o - 1, m, 0, 0));
                }
            }
            Sector::Placing {
                hands: [mh, oh],
                stones: [m, o],
            } => {
                for removed in 0..=u8::from(o > 0) {
                    children.push(Morris::sector(o - removed, m + 1, oh, mh - 1));
                }
            }
        }
        children.sort_unstable();
        children.dedup();
        children.retain(|&c| c != tier);
        children
    }

    /// Without building the children: see [`Morris::children`].
    #[inline]
    fn for_each_child(&self, position: &Stones, visit: impl FnMut(Sector, u64)) {
        with_packing!(self.packing, P => self.children::<P>(position, false, visit));
    }

    /// Leaves out the slides and jumps that keep the moving sector when
    /// no symmetry but the identity fixes the other player's points: see
    /// [`Morris::children`].
    #[inline]
    fn for_each_child_outside(
        &self,
        position: &Stones,
        visit: impl FnMut(Sector, u64),
    ) -> Option<usize> {
        with_packing!(self.packing, P => self.children::<P>(position, true, visit))
    }

    fn for_each_parent_in_tier(&self, position: &Stones, visit: impl FnMut(Stones)) {
        if let Sector::Moving { .. } = self.tier_of(position) {
            self.for_each_unmove_in_sector(position, visit);
        }
    }

    /// Ranks each parent from its points before the move, without
    /// building it: the other player's points, `waiting`, are the same in
    /// every parent.
    ///
    /// Where the parents lie in a moving sector's second half (they are
    /// keyed by `waiting`, the more stones), one ranking context serves
    /// them all, and their cells lie in one block of the sector.
    ///
    /// The parents' indices are distinct where no symmetry but the
    /// identity fixes `waiting`: the sets before the move are distinct,
    /// and two parents share an index only if a symmetry takes one's set
    /// to the other's while fixing `waiting`.
    #[inline]
    fn for_each_parent_index_in_tier(
        &self,
        tier: Sector,
        position: &Stones,
        visit: impl FnMut(u64),
    ) -> bool {
        with_packing!(self.packing, P => self.parent_indices::<P>(tier, position, visit))
    }
}

impl Morris {
    /// [`NamedTiers::for_each_parent_index_in_tier`], packing by `P`.
    #[inline]
    fn parent_indices<P: Packing>(
        &self,
        tier: Sector,
        position: &Stones,
        mut visit: impl FnMut(u64),
    ) -> bool {
        let Sector::Moving { .. } = tier else {
            return true;
        };
        let (waiting, last, _, _) = position.sides();
        let m = pop(last) as usize;
        let start = half_start(tier, m as u8);
        let o = pop(waiting) as usize;
        if keyed_by_other(tier, m as u8, o as u8) {
            let context = Mover::new(waiting, m);
            self.for_each_unmoved_set(waiting, last, |before| {
                visit(start + context.rank::<P>(before));
            });
            return context.fixing == 1;
        }
        let distinct = !Classes::of(o, waiting).symmetric;
        let Some(entries) = Entries::built(m) else {
            self.for_each_unmoved_set(waiting, last, |before| {
                visit(start + Mover::new(before, o).rank::<P>(waiting));
            });
            return distinct;
        };
        // The sets are listed first, with their colex ranks, and their
        // classes' entries fetched together, then ranked: the entries'
        // cache misses overlap.
        let mut befores = [(0u32, 0usize); MOST_PARENTS];
        let mut count = 0;
        self.for_each_unmoved_set(waiting, last, |before| {
            let rank = colex_rank(before) as usize;
            ply_core::prefetch(&entries.entry[rank]);
            befores[count] = (before, rank);
            count += 1;
        });
        for &(before, rank) in &befores[..count] {
            visit(start + Mover::of_class(before, m, entries.at(rank), o).rank::<P>(waiting));
        }
        distinct
    }

    /// [`NamedTiers::for_each_in_tier`], packing by `P`.
    fn for_each_in_tier_by<P: Packing>(
        &self,
        tier: Sector,
        range: Range<u64>,
        mut visit: impl FnMut(u64, Stones),
    ) {
        match tier {
            Sector::Lost => {
                if range.contains(&0) {
                    visit(0, LOST);
                }
            }
            Sector::Moving { hi, lo } => {
                let first = half_len(hi, lo);
                let mut moving = |index: u64, mover: u32, other: u32| {
                    visit(index, Stones::from_sides(mover, other, 0, 0, false));
                };
                for_each_in_half::<P>(hi, lo, range.start..range.end.min(first), &mut moving);
                if hi != lo {
                    // The second half, keyed by the other player's points.
                    let rest = range.start.saturating_sub(first)..range.end.saturating_sub(first);
                    for_each_in_half::<P>(hi, lo, rest, |index, key, free| {
                        moving(first + index, free, key);
                    });
                }
            }
            Sector::Placing {
                hands: [mh, oh],
                stones: [m, o],
            } => {
                let black_to_move = mh != oh;
                for_each_in_half::<P>(m, o, range, |index, mover, other| {
                    visit(
                        index,
                        Stones::from_sides(mover, other, mh, oh, black_to_move),
                    );
                });
            }
        }
    }

    /// Calls `visit` with the sector and index of every child of
    /// `position`, without building the children: a move that removes
    /// nothing leaves the next mover's points as they were (the other
    /// player's now), so their class is looked up once for all such moves
    /// and each child is ranked from the image of the mover's points with
    /// one or two points changed; each stone that may be removed gets its
    /// context once. Where the child lies in a moving sector's second half
    /// (keyed by the points the mover has after the move), each move gets
    /// its context once instead, for all its removals.
    ///
    /// With `count_quiet`, in a moving sector whose other player's points
    /// no symmetry but the identity fixes, the moves that remove nothing
    /// (they stay in the sector) are counted instead of visited, and the
    /// count returned. Those children are distinct classes: each is the
    /// other player's points against the mover's with one stone moved, and
    /// two such moves give different point sets, which no symmetry fixing
    /// the other player's points (the identity alone) maps onto each other.
    #[inline]
    fn children<P: Packing>(
        &self,
        position: &Stones,
        count_quiet: bool,
        mut visit: impl FnMut(Sector, u64),
    ) -> Option<usize> {
        let (mover, other, mh, oh) = position.sides();
        let geometry = self.geometry();
        let (m, o) = (pop(mover) as u8, pop(other) as u8);
        let (m_after, mh_after) = (m + u8::from(mh > 0), mh.saturating_sub(1));
        let empty = ALL & !(mover | other);
        let removable = geometry.removable(other);
        // Nothing removed: the next mover holds `other` against `m_after`.
        let quiet = Morris::sector(o, m_after, oh, mh_after);
        let context = Mover::new(other, usize::from(m_after));
        let (offset, image) = (half_start(quiet, o), context.image(mover));
        let quiet_by_moved = keyed_by_other(quiet, o, m_after);
        let count_quiet = count_quiet && mh == 0 && oh == 0 && context.fixing == 1;
        let mut quiet_moves = 0;
        // A removal: the next mover holds `other` less one stone.
        let capture = Morris::sector(o.saturating_sub(1), m_after, oh, mh_after);
        let capture_offset = half_start(capture, o.saturating_sub(1));
        let capture_by_moved = keyed_by_other(capture, o.saturating_sub(1), m_after);
        // Made at the first mill a move closes: most positions close none,
        // and the array (a kilobyte) would be written for each.
        let mut contexts: Option<[Option<Mover>; POINTS]> = None;
        // Whether the mover's points `moved`, a stone just put on `to`,
        // close a mill that removes a stone.
        let removes = |moved: u32, to: u8| other != 0 && geometry.mill_through(moved, to);
        // The stone reaching `to` from `from` ([`super::NONE`] for a stone
        // placed from the hand).
        let mut land = |from: u8, to: u8| {
            let from_set = if from == super::NONE { 0 } else { 1 << from };
            let moved = mover & !from_set | 1 << to;
            if removes(moved, to) {
                if capture_by_moved {
                    let context = Mover::new(moved, usize::from(o - 1));
                    for remove in points(removable) {
                        visit(
                            capture,
                            capture_offset + context.rank::<P>(other & !(1 << remove)),
                        );
                    }
                    return;
                }
                for remove in points(removable) {
                    if capture == Sector::Lost {
                        visit(capture, 0);
                        continue;
                    }
                    let context = contexts.get_or_insert([None; POINTS])[usize::from(remove)]
                        .get_or_insert_with(|| {
                            Mover::new(other & !(1 << remove), usize::from(m_after))
                        });
                    visit(capture, capture_offset + context.rank::<P>(moved));
                }
            } else if quiet == Sector::Lost {
                visit(quiet, 0);
            } else if quiet_by_moved {
                visit(
                    quiet,
                    offset + Mover::new(moved, usize::from(o)).rank::<P>(other),
                );
            } else {
                let from_image = if from == super::NONE {
                    0
                } else {
                    context.point_image(from)
                };
                let changed = from_image ^ context.point_image(to);
                visit(quiet, offset + context.rank_image::<P>(image ^ changed));
            }
        };
        if mh > 0 {
            for to in points(empty) {
                land(super::NONE, to);
            }
        } else {
            let jumps = m == 3;
            // Counted here, a quiet move costs no call of `land`: most
            // moves close no mill.
            for from in points(mover) {
                let to_points = if jumps {
                    empty
                } else {
                    geometry.adjacent[usize::from(from)] & empty
                };
                for to in points(to_points) {
                    if count_quiet && !removes(mover & !(1 << from) | 1 << to, to) {
                        quiet_moves += 1;
                    } else {
                        land(from, to);
                    }
                }
            }
        }
        count_quiet.then_some(quiet_moves)
    }
}

/// The global index: the sectors one after another in their order.
impl Indexed for Morris {
    fn index_len(&self) -> u64 {
        self.layout().last().map_or(0, |&(_, end)| end)
    }

    fn rank(&self, position: &Stones) -> u64 {
        let tier = self.tier_of(position);
        let layout = self.layout();
        let at = layout[..layout.len() - 1].partition_point(|&(t, _)| t < tier);
        layout[at].1 + self.tier_rank(tier, position)
    }

    fn unrank(&self, index: u64) -> Option<Stones> {
        let layout = self.layout();
        let at = layout[1..].partition_point(|&(_, start)| start <= index);
        let &(tier, start) = layout.get(at).filter(|_| at + 1 < layout.len())?;
        self.tier_unrank(tier, index - start)
    }
}

/// The 16 symmetries of the board; a position's canonical form is the one
/// its index names (White to move in the moving phase).
impl Symmetric for Morris {
    fn for_each_symmetric(&self, position: &Stones, mut visit: impl FnMut(Stones)) {
        let images = Images::get();
        for s in 0..16 {
            visit(Stones {
                white: images.image(s, position.white),
                black: images.image(s, position.black),
                ..*position
            });
        }
    }

    fn canonical(&self, position: &Stones) -> Stones {
        self.unrank(self.rank(position)).unwrap_or(*position)
    }

    fn canonical_index(&self, position: &Stones) -> u64 {
        self.rank(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_class_counts_are_those_of_the_built_classes() {
        for (m, &count) in CLASS_COUNTS.iter().enumerate() {
            assert_eq!(Classes::get(m).least.len() as u64, count, "{m} points");
        }
    }

    #[test]
    fn the_entries_agree_with_the_search_on_every_set() {
        for m in 0..=MOST {
            let (classes, entries) = (Classes::get(m), Entries::get(m));
            for set in sets(m) {
                let (table, search) = (entries.of(set), classes.search(set));
                assert_eq!(table.class, search.class, "{set:#x}");
                assert_eq!(table.to_least, search.to_least, "{set:#x}");
                assert_eq!(table.symmetric, search.symmetric, "{set:#x}");
                assert_eq!(
                    Images::get().image(search.to_least, set),
                    classes.least[search.class],
                    "{set:#x}"
                );
            }
        }
    }
}
