//! Un-moves: every position with a move to a given one. The last move was
//! made by the player not to move (in the mover's frame, "they" step down
//! the board); it is taken back, with an un-capture (a piece of the mover
//! put back from their hand, a Chick in hand possibly back as a Hen), an
//! un-promotion (a Hen on the mover's home rank may have been a Chick), or
//! an un-drop (a Giraffe, Elephant or Chick back to their hand).

use super::index::{Class, IndexTables, Planes};
use super::rules::{Attacks, FROM, HOME_RANK, primitive, steps, turned};
use super::{CHICK, DobutsuPosition, EMPTY, GIRAFFE, HAND_PIECES, HEN, LION, THEIRS};
use crate::colex::{Packing, with_packing};

/// Calls `visit` with every position, seen by its own mover, that has a
/// legal move to `position`, once for each such move (distinct moves lead
/// to distinct positions, so once). Parents where play was already over
/// are left out.
pub(crate) fn for_each_parent(position: &DobutsuPosition, visit: impl FnMut(DobutsuPosition)) {
    parents::<false>(position, visit);
}

/// [`for_each_parent`] without the parents whose mover wins at once (a
/// catch or a safe try), told from the attacks before any parent is made.
pub(crate) fn for_each_stored_parent(
    position: &DobutsuPosition,
    visit: impl FnMut(DobutsuPosition),
) {
    parents::<true>(position, visit);
}

/// The class ([`IndexTables::class_of`]) of each parent that
/// [`for_each_stored_parent`] visits, in the same order. Each is ranked
/// from the position's planes turned round once, with the squares and hand
/// its un-move changes changed, and not made as a board; only where play
/// may have been over in a parent (the mover's Lion on their far rank) is
/// each parent made and asked.
pub(crate) fn for_each_stored_parent_class(
    tables: &IndexTables,
    position: &DobutsuPosition,
    visit: impl FnMut(Class),
) {
    with_packing!(tables.packing(), P => stored_parent_classes::<P>(tables, position, visit));
}

/// [`for_each_stored_parent_class`], packing by `P`.
#[inline]
fn stored_parent_classes<P: Packing>(
    tables: &IndexTables,
    position: &DobutsuPosition,
    mut visit: impl FnMut(Class),
) {
    if ended(position) {
        parents::<true>(position, |parent| {
            visit(tables.class_by::<P>(Planes::of(&parent.board), &parent.hands));
        });
        return;
    }
    let planes = Planes::of(&position.board).turned();
    let hands = [position.hands[1], position.hands[0]];
    edits::<true>(position, |edit| {
        let (planes, hands) = edit.parent_planes(planes, hands);
        visit(tables.class_by::<P>(planes, &hands));
    });
}

/// Whether play may have been over in a parent of `position`: only with
/// the mover's Lion caught, or on their far rank (the parent's mover's
/// home rank) out of the parent's mover's reach; without a Lion there, no
/// parent needs the rules asked.
fn ended(position: &DobutsuPosition) -> bool {
    !position.board.contains(&LION) || position.board[..3].contains(&LION)
}

/// The parents of `position` ([`edits`]) made, turned round for their own
/// mover, and those where play was over left out.
fn parents<const STORED: bool>(position: &DobutsuPosition, mut visit: impl FnMut(DobutsuPosition)) {
    let ended = ended(position);
    edits::<STORED>(position, |edit| {
        let parent = edit.parent(position);
        if !ended || primitive(&parent).is_none() {
            visit(parent);
        }
    });
}

/// One parent of a position, as the change that takes the position back
/// to it, in the position's frame: `put` (`EMPTY`, or a piece of the mover
/// un-captured, or the mover's Lion caught) on `to` in place of the piece
/// there, the piece `was` back on `from` (none for an un-drop), and their
/// hand's count of one kind changed by `held`.
#[derive(Copy, Clone)]
struct Edit {
    to: usize,
    put: u8,
    from: Option<(usize, u8)>,
    held: Option<(usize, i8)>,
}

impl Edit {
    /// The parent of `position`, seen by its own mover.
    #[inline]
    fn parent(self, position: &DobutsuPosition) -> DobutsuPosition {
        let mut parent = *position;
        parent.board[self.to] = self.put;
        if let Some((from, was)) = self.from {
            parent.board[from] = was;
        }
        if let Some((kind, by)) = self.held {
            parent.hands[1][kind] = parent.hands[1][kind].wrapping_add_signed(by);
        }
        turned(&parent)
    }

    /// The parent's planes and hands, seen by its own mover, from the
    /// position's `planes` and `hands` turned round ([`Planes::turned`]):
    /// square `s` there is `11 - s`, each piece's owner bit is flipped,
    /// and their hand is the first.
    #[inline]
    fn parent_planes(self, planes: Planes, hands: [[u8; 3]; 2]) -> (Planes, [[u8; 3]; 2]) {
        let (mut planes, mut hands) = (planes, hands);
        planes.clear(11 - self.to);
        if self.put != EMPTY {
            planes.put(11 - self.to, self.put ^ THEIRS);
        }
        if let Some((from, was)) = self.from {
            planes.put(11 - from, was ^ THEIRS);
        }
        if let Some((kind, by)) = self.held {
            hands[0][kind] = hands[0][kind].wrapping_add_signed(by);
        }
        (planes, hands)
    }
}

/// The un-moves to `position`, those whose parent's mover wins at once
/// left out if `STORED`. In the mover's frame a parent's mover is the
/// other player: it wins at once if its pieces attack the mover's Lion, or
/// if its Lion steps onto the mover's home rank to a square none of its
/// pieces holds and none of the mover's attacks.
fn edits<const STORED: bool>(position: &DobutsuPosition, mut emit: impl FnMut(Edit)) {
    let lion_caught = !position.board.contains(&LION);
    let attacks = STORED.then(|| Attacks::of(&position.board));
    // Whether the parent's mover wins at once, from the parent's attacks
    // and pieces: theirs (attacks, squares, Lion's square) and the mover's
    // (attacks, Lion's square).
    let wins = |(their_attacks, theirs, their_lion): (u16, u16, usize),
                (my_attacks, my_lion): (u16, usize)| {
        their_attacks >> my_lion & 1 == 1
            || (their_lion < 12 && steps(LION, their_lion) & HOME_RANK & !theirs & !my_attacks != 0)
    };
    for (to, &piece) in position.board.iter().enumerate() {
        if piece & THEIRS == 0 {
            continue;
        }
        let kind = piece & 7;
        // Their attacks and squares without the piece on `to`.
        let (their_rest, theirs_rest) = match &attacks {
            Some(a) => (a.their_without[to], a.theirs & !(1 << to)),
            None => (0, 0),
        };
        // Un-drop.
        if (GIRAFFE..=CHICK).contains(&kind) && !lion_caught {
            let stored = attacks.as_ref().is_none_or(|a| {
                !wins(
                    (their_rest, theirs_rest, a.their_lion),
                    (a.my_attacks, a.my_lion),
                )
            });
            if stored {
                emit(Edit {
                    to,
                    put: EMPTY,
                    from: None,
                    held: Some((super::hand_kind(kind), 1)),
                });
            }
        }
        // Un-move, from each kind the piece may have been before.
        let on_home = HOME_RANK >> to & 1 == 1;
        let before: &[u8] = match kind {
            HEN if on_home => &[HEN, CHICK],
            CHICK if on_home => &[],
            _ => std::slice::from_ref(&position.board[to]),
        };
        for &was in before {
            let was = was | THEIRS;
            let mut froms = FROM[1][usize::from(was & 7)][to];
            while froms != 0 {
                let from = froms.trailing_zeros() as usize;
                froms &= froms - 1;
                if position.board[from] != EMPTY {
                    continue;
                }
                // Theirs in the parent: the piece back on `from`.
                let theirs_before = attacks.as_ref().map(|a| {
                    let lion = if kind == LION { from } else { a.their_lion };
                    (their_rest | steps(was, from), theirs_rest | 1 << from, lion)
                });
                let parent = Edit {
                    to,
                    put: EMPTY,
                    from: Some((from, was)),
                    held: None,
                };
                if lion_caught {
                    // The move that caught the mover's Lion.
                    let stored = match (&attacks, theirs_before) {
                        (Some(a), Some(t)) => !wins(t, (a.my_attacks | steps(LION, to), to)),
                        _ => true,
                    };
                    if stored {
                        emit(Edit {
                            put: LION,
                            ..parent
                        });
                    }
                    continue;
                }
                if match (&attacks, theirs_before) {
                    (Some(a), Some(t)) => !wins(t, (a.my_attacks, a.my_lion)),
                    _ => true,
                } {
                    emit(parent);
                }
                // Un-capture: a piece of the mover back from their hand.
                for (k, &kind) in HAND_PIECES.iter().enumerate() {
                    if position.hands[1][k] == 0 {
                        continue;
                    }
                    let back: &[u8] = if kind == CHICK {
                        &[CHICK, HEN]
                    } else {
                        &[kind]
                    };
                    for &piece in back {
                        let stored = match (&attacks, theirs_before) {
                            (Some(a), Some(t)) => {
                                !wins(t, (a.my_attacks | steps(piece, to), a.my_lion))
                            }
                            _ => true,
                        };
                        if stored {
                            emit(Edit {
                                put: piece,
                                held: Some((k, -1)),
                                ..parent
                            });
                        }
                    }
                }
            }
        }
    }
}
