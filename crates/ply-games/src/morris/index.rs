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
//! - one sector `lost` for every position whose mover has fewer than three
//!   stones: all lost at once, so all share its one index.
//!
//! Inside a sector of `m` mover stones and `o` other stones a position is
//! `class * C(24 - m, o) + rank(other)`: `class` numbers the symmetry
//! classes of the mover's point set (the least set of each class in colex
//! order names it), and `rank(other)` is the colex rank, among the points
//! the class's set leaves empty, of the image of the other player's points
//! under a symmetry that takes the mover's set to that least set (the least
//! such rank where several symmetries do). An index whose other-player set
//! is not that least one names no position.

use super::{Morris, POINTS, Stones, hands_fit};
use ply_core::{Indexed, Symmetric, Tiers};
use std::sync::OnceLock;

pub(super) use crate::colex::pop;
use crate::colex::{self, Colex};

/// The most stones a side has.
const MOST: usize = 9;

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
fn squeeze(set: u32, taken: u32) -> u32 {
    Colex::get().compress(set, !taken)
}

/// The inverse of [`squeeze`].
#[inline]
fn spread(squeezed: u32, taken: u32) -> u32 {
    Colex::get().expand(squeezed, !taken)
}

/// The sets of `k` points, `k` up to [`MOST`], in colex order: the first
/// C(n, k) of them are the sets among the points below `n`, so the set of
/// colex rank `r` among any `n` points is `sets(k)[r]` (built once).
fn sets(k: usize) -> &'static [u32] {
    static SETS: [OnceLock<Vec<u32>>; MOST + 1] = [const { OnceLock::new() }; MOST + 1];
    SETS[k].get_or_init(|| {
        if k == 0 {
            return vec![0];
        }
        // Sets of one size in increasing order as numbers are in colex order.
        let mut all = Vec::with_capacity(binomial(POINTS, k) as usize);
        let mut set: u32 = (1 << k) - 1;
        while set < 1 << POINTS {
            all.push(set);
            set = colex::next_subset(set);
        }
        all
    })
}

/// Images of point sets under the 16 symmetries, a byte at a time.
struct Images([[[u32; 256]; 3]; 16]);

impl Images {
    fn get() -> &'static Images {
        static IMAGES: OnceLock<Box<Images>> = OnceLock::new();
        IMAGES.get_or_init(|| {
            let perms = &super::Geometry::get().perms;
            let mut images = Box::new(Images([[[0u32; 256]; 3]; 16]));
            for (s, perm) in perms.iter().enumerate() {
                for chunk in 0..3 {
                    for byte in 0..256 {
                        images.0[s][chunk][byte] = (0..8)
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
        let t = &self.0[s];
        t[0][(set & 0xFF) as usize] | t[1][(set >> 8 & 0xFF) as usize] | t[2][(set >> 16) as usize]
    }
}

/// The symmetry classes of the sets of `m` points.
struct Classes {
    /// The class of each set, by its colex rank.
    class_of: Vec<u32>,
    /// A symmetry taking each set (by colex rank) to its class's least set.
    to_least: Vec<u8>,
    /// Each class's least set.
    least: Vec<u32>,
    /// The symmetries fixing each class's least set (bit `s` for symmetry `s`).
    fixing: Vec<u16>,
}

impl Classes {
    /// The classes of sets of `m` points, built once.
    fn get(m: usize) -> &'static Classes {
        static CLASSES: [OnceLock<Classes>; MOST + 1] = [const { OnceLock::new() }; MOST + 1];
        CLASSES[m].get_or_init(|| Classes::build(m))
    }

    fn build(m: usize) -> Classes {
        let images = Images::get();
        let count = binomial(POINTS, m) as usize;
        let mut class_of = vec![0u32; count];
        let mut to_least = vec![0u8; count];
        let (mut least, mut fixing) = (Vec::new(), Vec::new());
        // Sets of one size in increasing order as numbers are in colex
        // order; a class's least set comes before the rest of its class.
        let mut set: u32 = (1 << m) - 1;
        for rank in 0..count {
            let (mut best, mut best_s) = (rank as u64, 0u8);
            for s in 1..16 {
                let r = colex_rank(images.image(s, set));
                if r < best {
                    (best, best_s) = (r, s as u8);
                }
            }
            if best == rank as u64 {
                let fixed = (0..16)
                    .filter(|&s| images.image(s, set) == set)
                    .fold(0u16, |f, s| f | 1 << s);
                class_of[rank] = least.len() as u32;
                least.push(set);
                fixing.push(fixed);
            } else {
                class_of[rank] = class_of[best as usize];
            }
            to_least[rank] = best_s;
            if m == 0 {
                break;
            }
            let low = set & set.wrapping_neg();
            let carried = set + low;
            set = carried | (((set ^ carried) >> 2) / low);
        }
        Classes {
            class_of,
            to_least,
            least,
            fixing,
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

/// Positions in a sector half with `m` mover and `o` other stones.
fn half_len(m: u8, o: u8) -> u64 {
    let m = usize::from(m);
    Classes::get(m).least.len() as u64 * binomial(POINTS - m, usize::from(o))
}

/// What ranking a sector half's positions with one mover point set needs:
/// the set's class, its class's least set, a symmetry taking it there,
/// and the symmetries fixing the least set.
#[derive(Copy, Clone)]
struct Mover {
    /// The first index of the class: class * C(24 - m, o).
    base: u64,
    least: u32,
    to_least: usize,
    fixing: u16,
}

impl Mover {
    /// The ranking context of the mover's points `mover` against `o` stones.
    #[inline]
    fn new(mover: u32, o: usize) -> Mover {
        let m = pop(mover) as usize;
        let classes = Classes::get(m);
        let r = colex_rank(mover) as usize;
        let class = classes.class_of[r] as usize;
        Mover {
            base: class as u64 * binomial(POINTS - m, o),
            least: classes.least[class],
            to_least: usize::from(classes.to_least[r]),
            fixing: classes.fixing[class],
        }
    }

    /// The rank inside the half of the other player's points `other`.
    #[inline]
    fn rank(&self, other: u32) -> u64 {
        let images = Images::get();
        let image = images.image(self.to_least, other);
        let mut best = colex_rank(squeeze(image, self.least));
        if self.fixing != 1 {
            for t in 1..16 {
                if self.fixing >> t & 1 == 1 {
                    best = best.min(colex_rank(squeeze(images.image(t, image), self.least)));
                }
            }
        }
        self.base + best
    }
}

/// The rank inside a sector half of the mover's `mover` and the other's
/// `other` points.
#[inline]
fn rank_half(mover: u32, other: u32) -> u64 {
    Mover::new(mover, pop(other) as usize).rank(other)
}

/// The mover's and other's points of index `index` in the half with `m`
/// mover and `o` other stones, if it names a position.
#[inline]
fn unrank_half(m: u8, o: u8, index: u64) -> Option<(u32, u32)> {
    let (m, o) = (usize::from(m), usize::from(o));
    let classes = Classes::get(m);
    let per = binomial(POINTS - m, o);
    let class = usize::try_from(index / per).ok()?;
    let least = *classes.least.get(class)?;
    let rank = index % per;
    let other = spread(*sets(o).get(usize::try_from(rank).ok()?)?, least);
    let fixing = classes.fixing[class];
    if fixing != 1 {
        let images = Images::get();
        for t in 1..16 {
            if fixing >> t & 1 == 1 && colex_rank(squeeze(images.image(t, other), least)) < rank {
                return None;
            }
        }
    }
    Some((least, other))
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

impl Tiers for Morris {
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
            Sector::Moving { hi, lo } => half_len(hi, lo) + half_len(lo, hi),
            Sector::Placing { stones: [m, o], .. } => half_len(m, o),
        }
    }

    #[inline]
    fn tier_rank(&self, tier: Sector, position: &Stones) -> u64 {
        let (mover, other, _, _) = position.sides();
        match tier {
            Sector::Lost => 0,
            Sector::Moving { hi, lo } if pop(mover) as u8 != hi => {
                half_len(hi, lo) + rank_half(mover, other)
            }
            _ => rank_half(mover, other),
        }
    }

    fn tier_unrank(&self, tier: Sector, index: u64) -> Option<Stones> {
        if index >= self.tier_size(tier) {
            return None;
        }
        match tier {
            Sector::Lost => Some(LOST),
            Sector::Moving { hi, lo } => {
                let first = half_len(hi, lo);
                let (m, o, index) = if index < first {
                    (hi, lo, index)
                } else {
                    (lo, hi, index - first)
                };
                let (mover, other) = unrank_half(m, o, index)?;
                Some(Stones::from_sides(mover, other, 0, 0, false))
            }
            Sector::Placing {
                hands: [mh, oh],
                stones: [m, o],
            } => {
                let (mover, other) = unrank_half(m, o, index)?;
                let black_to_move = mh != oh;
                let position = Stones::from_sides(mover, other, mh, oh, black_to_move);
                debug_assert!(hands_fit(position.hand, black_to_move));
                Some(position)
            }
        }
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

    /// A move that removes nothing leaves the next mover's points as they
    /// were (the other player's now): their class is looked up once for
    /// all such moves.
    #[inline]
    fn for_each_child(&self, position: &Stones, mut visit: impl FnMut(Sector, u64)) {
        let (mover, other, mh, oh) = position.sides();
        let (m, o) = (pop(mover) as u8, pop(other) as u8);
        let m_after = m + u8::from(mh > 0);
        let quiet = Morris::sector(o, m_after, oh, mh.saturating_sub(1));
        let context = Mover::new(other, usize::from(m_after));
        let offset = match quiet {
            Sector::Moving { hi, lo } if o != hi => half_len(hi, lo),
            _ => 0,
        };
        self.for_each_step(position, |step, child| {
            if quiet == Sector::Lost {
                visit(quiet, 0);
            } else if step.remove == super::NONE {
                let (_, moved, _, _) = child.sides();
                visit(quiet, offset + context.rank(moved));
            } else {
                let tier = self.tier_of(&child);
                visit(tier, self.tier_rank(tier, &child));
            }
        });
    }

    fn for_each_parent_in_tier(&self, position: &Stones, visit: impl FnMut(Stones)) {
        if let Sector::Moving { .. } = self.tier_of(position) {
            self.for_each_unmove_in_sector(position, visit);
        }
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
