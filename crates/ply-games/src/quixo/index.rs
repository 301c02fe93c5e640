//! Quixo's tiers and the dense index inside each: tier (x, o) holds every
//! board with x X cubes and o O cubes, with either side to move. Inside a
//! tier a board is ranked by the set of squares holding cubes (among the
//! n² squares) and the set of those showing X (among the cubes), each in
//! the combinatorial number system, then the mover:
//! `((rank(cubes) * C(x + o, x) + rank(X among cubes)) * 2 + mover`.
//! Tier (x, o) mirrors (o, x) by swapping the colours and the mover; the
//! tier with at least as many X cubes as O cubes is the one solved.
//! Inside a tier the 8 symmetries of the square board map boards onto
//! boards of equal value: the solver solves one board per class, the one
//! whose (X, O) masks are least.

use super::{Cubes, Quixo};
use crate::colex::{Packing, binomial, next_subset, pop, with_packing};
use ply_core::NamedTiers;

/// A tier: the number of X cubes and of O cubes.
pub type Tier = (u8, u8);

impl Quixo {
    /// The number of boards with the given counts (one mover).
    fn boards(&self, (x, o): Tier) -> u64 {
        let k = u32::from(x) + u32::from(o);
        binomial(self.squares(), k) * binomial(k, u32::from(x))
    }

    /// The index of `position` in tier `(x, o)` (its own counts). Boards
    /// with at most one blank cube (the end tiers) take a shortcut: the
    /// cubes of a full board have rank 0 and the X cubes among them are
    /// the X mask itself; with one blank on square `b`, the cubes have
    /// colex rank `n² - 1 - b` and the X cubes above `b` shift down one.
    #[inline(always)]
    fn rank_in(&self, tier: Tier, position: &Cubes) -> u64 {
        with_packing!(self.packing, P => self.rank_by::<P>(tier, position))
    }

    /// [`Quixo::rank_in`], packing by `P`.
    #[inline(always)]
    fn rank_by<P: Packing>(&self, (x, o): Tier, position: &Cubes) -> u64 {
        let cubes = position.x | position.o;
        let squares = self.squares();
        let k = u32::from(x) + u32::from(o);
        let colex = self.colex;
        let (cubes_rank, among) = if k == squares {
            (0, position.x)
        } else if k + 1 == squares {
            let blank = (!cubes).trailing_zeros();
            let below = (1u32 << blank) - 1;
            (
                u64::from(squares - 1 - blank),
                (position.x & below) | (position.x >> 1 & !below),
            )
        } else {
            (colex.rank(cubes), colex.compress::<P>(position.x, cubes))
        };
        let board = cubes_rank * binomial(k, u32::from(x)) + colex.rank(among);
        board * 2 + u64::from(position.o_to_move)
    }

    /// Calls `visit` with the canonical tier of every child of `position`
    /// and the child there (mapped by swapping colours and mover when its
    /// own tier is not canonical).
    #[inline(always)]
    fn for_each_canonical_child(&self, position: &Cubes, mut visit: impl FnMut(Tier, Cubes)) {
        let (x0, o0) = Self::counts(position);
        let cubes = position.x | position.o;
        self.for_each_slide(position, |slide, child| {
            // Taking a blank cube adds one of the mover's.
            let blank = u8::from(cubes & 1 << slide.from == 0);
            let (x, o) = if position.o_to_move {
                (x0, o0 + blank)
            } else {
                (x0 + blank, o0)
            };
            if x >= o {
                visit((x, o), child);
            } else {
                visit((o, x), child.swapped());
            }
        });
    }

    /// [`NamedTiers::for_each_in_tier`], packing by `P`: stepping from one
    /// board to the next in index order.
    fn for_each_in_tier_by<P: Packing>(
        &self,
        (x, o): Tier,
        range: std::ops::Range<u64>,
        mut visit: impl FnMut(u64, Cubes),
    ) {
        let end = range.end.min(self.tier_size((x, o)));
        let Some(mut position) = self.tier_unrank((x, o), range.start) else {
            return;
        };
        let colex = self.colex;
        let k = u32::from(x) + u32::from(o);
        let last_x = if x == 0 {
            0
        } else {
            ((1u32 << x) - 1) << (k - u32::from(x))
        };
        let mut cubes = position.x | position.o;
        let mut xs = colex.compress::<P>(position.x, cubes);
        for index in range.start..end {
            visit(index, position);
            // The next index: the mover, then X among the cubes, then the cubes.
            if !position.o_to_move {
                position.o_to_move = true;
                continue;
            }
            if xs != last_x {
                xs = next_subset(xs);
            } else {
                if cubes != 0 {
                    cubes = next_subset(cubes);
                }
                xs = (1u32 << x) - 1;
            }
            let x_mask = colex.expand::<P>(xs, cubes);
            position = Cubes {
                x: x_mask,
                o: cubes & !x_mask,
                o_to_move: false,
            };
        }
    }

    /// The tier, canonical or not, of `position`.
    #[inline]
    fn counts(position: &Cubes) -> Tier {
        (pop(position.x) as u8, pop(position.o) as u8)
    }
}

impl NamedTiers for Quixo {
    type Tier = Tier;
    const IN_TIER_PARENTS: bool = true;
    const IN_TIER_SYMMETRY: bool = true;

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

    #[inline(always)]
    fn tier_rank(&self, tier: Tier, position: &Cubes) -> u64 {
        self.rank_in(tier, position)
    }

    #[inline]
    fn tier_unrank(&self, (x, o): Tier, index: u64) -> Option<Cubes> {
        if index >= self.tier_size((x, o)) {
            return None;
        }
        let colex = self.colex;
        let k = u32::from(x) + u32::from(o);
        let (board, o_to_move) = (index / 2, index % 2 == 1);
        let among = binomial(k, u32::from(x));
        let cubes = colex.unrank(board / among, k, self.squares());
        let squeezed = colex.unrank(board % among, u32::from(x), k);
        let xs = with_packing!(self.packing, P => colex.expand::<P>(squeezed, cubes));
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
        position.swapped()
    }

    fn for_each_in_tier(
        &self,
        tier: Tier,
        range: std::ops::Range<u64>,
        visit: impl FnMut(u64, Cubes),
    ) {
        with_packing!(self.packing, P => self.for_each_in_tier_by::<P>(tier, range, visit));
    }

    fn for_each_parent_in_tier(&self, position: &Cubes, visit: impl FnMut(Cubes)) {
        self.for_each_unslide(position, visit);
    }

    /// As by default, each parent folded and ranked, with the packing
    /// path chosen once for all of them.
    fn for_each_parent_index_in_tier(
        &self,
        tier: Tier,
        position: &Cubes,
        mut visit: impl FnMut(u64),
    ) -> bool {
        with_packing!(self.packing, P => self.for_each_unslide(position, |parent| {
            visit(self.rank_by::<P>(tier, &self.fold_in_tier(&parent)));
        }));
        false
    }

    #[inline]
    fn for_each_child(&self, position: &Cubes, mut visit: impl FnMut(Tier, u64)) {
        with_packing!(self.packing, P => self.for_each_canonical_child(position, |tier, child| {
            visit(tier, self.rank_by::<P>(tier, &child));
        }));
    }

    /// The image under the board's symmetries with the least X mask, then
    /// the least O mask; the mover stays.
    #[inline]
    fn fold_in_tier(&self, position: &Cubes) -> Cubes {
        let (mut x, mut o) = (position.x, position.o);
        for symmetry in 1..self.images.len() {
            let image_x = self.images.image(symmetry, position.x);
            if image_x > x {
                continue;
            }
            let image_o = self.images.image(symmetry, position.o);
            if image_x < x || image_o < o {
                (x, o) = (image_x, image_o);
            }
        }
        Cubes {
            x,
            o,
            o_to_move: position.o_to_move,
        }
    }

    #[inline]
    fn is_representative(&self, position: &Cubes) -> bool {
        (1..self.images.len()).all(|symmetry| {
            let image_x = self.images.image(symmetry, position.x);
            image_x > position.x
                || image_x == position.x && self.images.image(symmetry, position.o) >= position.o
        })
    }

    #[inline]
    fn for_each_folded_child(&self, position: &Cubes, mut visit: impl FnMut(Tier, u64)) {
        let own = self.canonical_tier(Self::counts(position));
        with_packing!(self.packing, P => self.for_each_canonical_child(position, |tier, child| {
            if tier == own {
                visit(tier, self.rank_by::<P>(tier, &self.fold_in_tier(&child)));
            } else {
                visit(tier, self.rank_by::<P>(tier, &child));
            }
        }));
    }
}
