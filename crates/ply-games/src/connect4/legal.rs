//! Which boards legal play reaches: discs stacked from the floor, `x`
//! with as many discs as `o` or one more, and an order of play that
//! alternates from `x`, drops each disc on the one below it and makes no
//! four before the last disc.
//!
//! Positions are checked by taking discs back off the tops of the
//! columns, the last mover's first, one search per position; each state
//! is the set of discs still on the board, and a state once found to lead
//! nowhere is not searched again. The search tries first the top disc that
//! forward play could drop the latest (its earliest ply, counted from the
//! discs below it in its column, is the largest): the rule of the earliest
//! deadline first, run backwards. That order finds a way back at once for
//! most boards that have one (89% of 5x5's 20-disc boards without a four
//! with no step back undone), so the search rarely branches.

use super::{C4Position, ConnectFour};
use rustc_hash::FxHashSet;
use std::cell::RefCell;

thread_local! {
    /// One search's memory, kept between calls so that no search
    /// allocates once its set of dead states has grown.
    static SEARCH: RefCell<Search> = RefCell::new(Search::default());
}

/// Whether `position`, with discs stacked and counts that alternate, is
/// reached by legal play; `Err` says why not, for people.
pub fn check(game: &ConnectFour, position: &C4Position) -> Result<(), &'static str> {
    let (mover, last) = (position.mover, position.other());
    match (game.four(mover), game.four(last)) {
        (true, true) => Err("both players have four in a row"),
        (true, false) => {
            Err("the player to move has four in a row, but play ends when the four is made")
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
            Err("play would have gone on after a four was made: no last disc made every four")
        }
        (false, false) => {
            if reachable(game, position) {
                Ok(())
            } else {
                Err("no order of play alternating from x stacks the discs this way")
            }
        }
    }
}

/// Whether legal play reaches `position`, one without four for either
/// player, whose counts alternate and whose discs are stacked.
pub fn reachable(game: &ConnectFour, position: &C4Position) -> bool {
    let (x, _) = position.x_o();
    SEARCH.with(|search| search.borrow_mut().reachable(game, position.mask, x))
}

/// The top disc of every column that has one.
#[inline]
fn tops(game: &ConnectFour, mask: u64) -> u64 {
    ((mask + game.bottom) >> 1) & mask
}

/// The memory of the search back from one board.
#[derive(Default)]
struct Search {
    /// The earliest ply each disc of the board can be played at, by cell.
    earliest: Vec<u8>,
    /// The states found to lead nowhere.
    dead: FxHashSet<u64>,
}

impl Search {
    /// Whether the discs of `mask`, those of `x` among them being x's, can
    /// be played in order.
    fn reachable(&mut self, game: &ConnectFour, mask: u64, x: u64) -> bool {
        // Only the cells of discs are read, each written below first.
        self.earliest.resize(64, 0);
        // The bottom disc at ply 1 (x) or 2 (o); each disc above one ply
        // after the one below it if their colours differ, two if not.
        let stride = game.stride();
        for c in 0..game.width() {
            let (mut ply, mut below_x) = (0u8, None);
            let mut cell = c * stride;
            while mask >> cell & 1 == 1 {
                let is_x = x >> cell & 1 == 1;
                ply = match below_x {
                    None => 2 - u8::from(is_x),
                    Some(below) if below == is_x => ply + 2,
                    Some(_) => ply + 1,
                };
                self.earliest[cell as usize] = ply;
                below_x = Some(is_x);
                cell += 1;
            }
        }
        if !self.dead.is_empty() {
            self.dead.clear();
        }
        self.back(game, mask, x)
    }

    /// Whether the discs of `mask` can be played in order: a top disc of
    /// the last mover's is taken back, the latest first, and the rest
    /// played in order.
    fn back(&mut self, game: &ConnectFour, mask: u64, x: u64) -> bool {
        if mask == 0 {
            return true;
        }
        let last_is_x = mask.count_ones() % 2 == 1;
        let own = if last_is_x { x } else { !x };
        let mut bits = tops(game, mask) & own & mask;
        while bits != 0 {
            // The latest of the tops left (the lowest cell of equals).
            let mut cell = bits.trailing_zeros();
            let mut others = bits & (bits - 1);
            while others != 0 {
                let other = others.trailing_zeros();
                if self.earliest[other as usize] > self.earliest[cell as usize] {
                    cell = other;
                }
                others &= others - 1;
            }
            bits ^= 1 << cell;
            let rest = mask ^ (1 << cell);
            if !self.dead.contains(&rest) && self.back(game, rest, x) {
                return true;
            }
            self.dead.insert(rest);
        }
        false
    }
}
