//! Un-moves: the positions with a move to a given one. The player who
//! just moved takes back a placing (the stone returns to the hand), a
//! slide or a jump; if that stone stands in a mill it closed, the move
//! removed an opponent stone, which comes back on an empty point where
//! the removal rule allowed it (an un-removal). A parent must itself be a
//! position of the game where play goes on.

use super::{ALL, Morris, NONE, Stones, points};
use ply_core::{Game, Parents};

impl Morris {
    /// Calls `visit` with every parent of `position` (with repeats).
    fn for_each_unmove(&self, position: &Stones, mut visit: impl FnMut(Stones)) {
        let (waiting, last, waiting_hand, last_hand) = position.sides();
        let parent_black = !position.black_to_move;
        let empty = ALL & !(waiting | last);
        let geometry = self.geometry();
        let jumps = super::index::pop(last) == 3;
        let mut emit = |before: u32, to: u8, from: u8, hand: u8| {
            let closed = geometry.mill_through(last, to);
            let mut offer = |restored: u32| {
                let parent = Stones::from_sides(before, restored, hand, waiting_hand, parent_black);
                if self.illegal(&parent).is_none() && self.primitive(&parent).is_none() {
                    visit(parent);
                }
            };
            if !closed || waiting == 0 {
                offer(waiting);
            }
            if closed {
                let free = empty & !(1 << to) & if from == NONE { ALL } else { !(1 << from) };
                for r in points(free) {
                    let restored = waiting | 1 << r;
                    if geometry.removable(restored) & 1 << r != 0 {
                        offer(restored);
                    }
                }
            }
        };
        for to in points(last) {
            let without = last & !(1 << to);
            if last_hand < self.stones() {
                emit(without, to, NONE, last_hand + 1);
            }
            if waiting_hand == 0 && last_hand == 0 {
                let froms = if jumps {
                    empty
                } else {
                    geometry.adjacent[usize::from(to)] & empty
                };
                for from in points(froms) {
                    emit(without | 1 << from, to, from, 0);
                }
            }
        }
    }

    /// The parents of `position` in its moving sector: a slide or a jump
    /// taken back that closed no mill.
    pub fn for_each_unmove_in_sector(&self, position: &Stones, mut visit: impl FnMut(Stones)) {
        let (waiting, last, _, _) = position.sides();
        let parent_black = !position.black_to_move;
        self.for_each_unmoved_set(waiting, last, |before| {
            let parent = Stones::from_sides(before, waiting, 0, 0, parent_black);
            // A slide or jump taken back inside a moving sector keeps
            // every count, so its parent is a position where play goes on
            // whenever `position` is one.
            debug_assert!(self.illegal(&parent).is_none() && self.primitive(&parent).is_none());
            visit(parent);
        });
    }

    /// Calls `visit` with the points before the move of each parent in
    /// its moving sector of a moving-phase position where `waiting` is to
    /// move and `last` just moved: `last` with one stone that stands in no
    /// mill taken back along a slide (a jump, with three stones) to an
    /// empty point. Each set comes once.
    #[inline]
    pub(super) fn for_each_unmoved_set(&self, waiting: u32, last: u32, mut visit: impl FnMut(u32)) {
        let geometry = self.geometry();
        let empty = ALL & !(waiting | last);
        let jumps = super::index::pop(last) == 3;
        for to in points(last) {
            if geometry.mill_through(last, to) {
                continue;
            }
            let without = last & !(1 << to);
            let froms = if jumps {
                empty
            } else {
                geometry.adjacent[usize::from(to)] & empty
            };
            for from in points(froms) {
                visit(without | 1 << from);
            }
        }
    }
}

impl Parents for Morris {
    fn for_each_parent(&self, position: &Stones, visit: impl FnMut(Stones)) {
        self.for_each_unmove(position, visit);
    }
}
