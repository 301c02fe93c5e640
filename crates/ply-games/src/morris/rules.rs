//! The moves of Morris (Gasser's rules): placing while the mover has
//! stones in hand, then sliding to a neighbouring empty point, or jumping
//! to any empty point with exactly three stones on the board and none in
//! hand. A move that closes a mill of the mover's (one through the point
//! reached, so one that was not there before) removes one opponent stone,
//! as part of the move: a stone in no mill, or any stone if all of the
//! opponent's are in mills. Two mills closed at once still remove one.

use super::{ALL, Morris, NONE, Step, Stones, points};

impl Morris {
    /// Calls `visit` with every legal move from `position` (not primitive)
    /// and the position it leads to.
    #[inline]
    pub fn for_each_step(&self, position: &Stones, mut visit: impl FnMut(Step, Stones)) {
        let (mover, other, mover_hand, other_hand) = position.sides();
        let empty = ALL & !(mover | other);
        let next = !position.black_to_move;
        let geometry = self.geometry();
        let removable = geometry.removable(other);
        let mut land = |from: u8, to: u8, moved: u32, hand: u8| {
            if other != 0 && geometry.mill_through(moved, to) {
                for remove in points(removable) {
                    visit(
                        Step { from, to, remove },
                        Stones::from_sides(other & !(1 << remove), moved, other_hand, hand, next),
                    );
                }
            } else {
                visit(
                    Step {
                        from,
                        to,
                        remove: NONE,
                    },
                    Stones::from_sides(other, moved, other_hand, hand, next),
                );
            }
        };
        if mover_hand > 0 {
            for to in points(empty) {
                land(NONE, to, mover | 1 << to, mover_hand - 1);
            }
        } else if super::index::pop(mover) == 3 {
            for from in points(mover) {
                for to in points(empty) {
                    land(from, to, mover & !(1 << from) | 1 << to, 0);
                }
            }
        } else {
            for from in points(mover) {
                for to in points(geometry.adjacent[usize::from(from)] & empty) {
                    land(from, to, mover & !(1 << from) | 1 << to, 0);
                }
            }
        }
    }
}
