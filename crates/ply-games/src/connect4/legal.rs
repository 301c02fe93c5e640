//! Which boards legal play reaches: discs stacked from the floor, `x`
//! with as many discs as `o` or one more, and an order of play that
//! alternates from `x`, drops each disc on the one below it and makes no
//! four before the last disc. Positions are checked by taking discs back
//! off the tops of the columns, the last mover's first, one search per
//! position (each state is the set of discs still on the board, and a
//! state once found to lead nowhere is not searched again).

use super::{C4Position, ConnectFour};
use std::cell::RefCell;
use std::collections::HashSet;

thread_local! {
    /// The states a search found to lead nowhere, kept between calls so
    /// that no search allocates once the set has grown.
    static DEAD: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
}

/// Whether `position`, with discs stacked and counts that alternate, is
/// reached by legal play; `Err` says why not, for people.
pub fn check(game: &ConnectFour, position: &C4Position) -> Result<(), String> {
    let (mover, last) = (position.mover, position.other());
    match (game.four(mover), game.four(last)) {
        (true, true) => Err("both players have four in a row".into()),
        (true, false) => {
            Err("the player to move has four in a row, but play ends when the four is made".into())
        }
        (false, true) => {
            // The last disc made every four the last mover has.
            let tops = tops(game, position.mask) & last;
            let mut bits = tops;
            while bits != 0 {
                let top = bits & bits.wrapping_neg();
                bits ^= top;
                let before = C4Position {
                    mask: position.mask ^ top,
                    mover: last ^ top,
                };
                if !game.four(before.mover) && reachable(game, &before) {
                    return Ok(());
                }
            }
            Err(
                "play would have gone on after a four was made: no last disc made every four"
                    .into(),
            )
        }
        (false, false) => {
            if reachable(game, position) {
                Ok(())
            } else {
                Err("no order of play alternating from x stacks the discs this way".into())
            }
        }
    }
}

/// Whether legal play reaches `position`, one without four for either
/// player, whose counts alternate and whose discs are stacked.
pub fn reachable(game: &ConnectFour, position: &C4Position) -> bool {
    let (x, _) = position.x_o();
    DEAD.with(|dead| {
        let mut dead = dead.borrow_mut();
        dead.clear();
        back(game, position.mask, x, &mut dead)
    })
}

/// The top disc of every column that has one.
#[inline]
fn tops(game: &ConnectFour, mask: u64) -> u64 {
    ((mask + game.bottom) >> 1) & mask
}

/// Whether the discs of `mask` (those of `x` among them being x's) can be
/// played in order: a top disc of the last mover's is taken back, and the
/// rest played in order.
fn back(game: &ConnectFour, mask: u64, x: u64, dead: &mut HashSet<u64>) -> bool {
    if mask == 0 {
        return true;
    }
    let last_is_x = mask.count_ones() % 2 == 1;
    let own = if last_is_x { x } else { !x };
    let mut bits = tops(game, mask) & own & mask;
    while bits != 0 {
        let top = bits & bits.wrapping_neg();
        bits ^= top;
        let rest = mask ^ top;
        if !dead.contains(&rest) && back(game, rest, x, dead) {
            return true;
        }
        dead.insert(rest);
    }
    false
}
