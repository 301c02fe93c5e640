//! Un-moves: every position with a move to a given one. The last move was
//! made by the player not to move (in the mover's frame, "they" step down
//! the board); it is taken back, with an un-capture (a piece of the mover
//! put back from their hand, a Chick in hand possibly back as a Hen), an
//! un-promotion (a Hen on the mover's home rank may have been a Chick), or
//! an un-drop (a Giraffe, Elephant or Chick back to their hand).

use super::rules::{FROM, HOME_RANK, primitive, turned};
use super::{CHICK, DobutsuPosition, EMPTY, GIRAFFE, HAND_PIECES, HEN, LION, THEIRS};

/// Calls `visit` with every position, seen by its own mover, that has a
/// legal move to `position`. Parents where play was already over are left
/// out.
pub(crate) fn for_each_parent(position: &DobutsuPosition, mut visit: impl FnMut(DobutsuPosition)) {
    let lion_caught = !position.board.contains(&LION);
    // Play was over in a parent only with the mover's Lion on their far
    // rank (the parent's mover's home rank) out of the parent's mover's
    // reach; without a Lion there, no parent needs the rules asked.
    let ended = lion_caught || position.board[..3].contains(&LION);
    let mut emit = |parent: DobutsuPosition| {
        let parent = turned(&parent);
        if !ended || primitive(&parent).is_none() {
            visit(parent);
        }
    };
    for (to, &piece) in position.board.iter().enumerate() {
        if piece & THEIRS == 0 {
            continue;
        }
        let kind = piece & 7;
        // Un-drop.
        if (GIRAFFE..=CHICK).contains(&kind) && !lion_caught {
            let mut parent = *position;
            parent.board[to] = EMPTY;
            parent.hands[1][super::hand_kind(kind)] += 1;
            emit(parent);
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
                let mut parent = *position;
                parent.board[from] = was;
                parent.board[to] = EMPTY;
                if lion_caught {
                    // The move that caught the mover's Lion.
                    parent.board[to] = LION;
                    emit(parent);
                    continue;
                }
                emit(parent);
                // Un-capture: a piece of the mover back from their hand.
                for (k, &kind) in HAND_PIECES.iter().enumerate() {
                    if position.hands[1][k] == 0 {
                        continue;
                    }
                    let mut taken = parent;
                    taken.hands[1][k] -= 1;
                    taken.board[to] = kind;
                    emit(taken);
                    if kind == CHICK {
                        taken.board[to] = HEN;
                        emit(taken);
                    }
                }
            }
        }
    }
}
