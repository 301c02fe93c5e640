//! What a loopy game tells of its immediate wins ([`WinsAtOnce`]), for the
//! solve over a byte per stored key ([`crate::ByteTable`]): the positions
//! where the mover wins with one move, never stored, and how a position's
//! moves and parents count when one position of each class is kept.

use crate::game::{Indexed, Parents, Symmetric};
use crate::value::Value;

/// Positions where the player to move wins with one move: a win in 1,
/// told by the rules and never stored (in Dobutsu Shogi: a catch of the
/// Lion or a safe try). Play goes on from them when the mover declines.
/// The solve keeps one position per class of [`Symmetric`] images.
///
/// The solve counts moves, not distinct children, and takes a decided
/// position's parents from [`Parents::for_each_parent`] as its moves'
/// reverses, so that must visit each parent once for each of its moves to
/// the position (a game whose distinct moves lead to distinct positions
/// and whose un-moves list each parent once has this). The game may have
/// at most two symmetries.
pub trait WinsAtOnce: Indexed + Parents + Symmetric {
    /// Whether the mover has a move that ends play with their win.
    fn wins_at_once(&self, position: &Self::Position) -> bool;

    /// What the moves of `position` (where play goes on) lead to, as the
    /// solve counts them. By default each child is made and asked
    /// [`crate::Game::primitive`] and [`WinsAtOnce::wins_at_once`]; a game
    /// may tell the same from the position alone, faster.
    fn tally_moves(&self, position: &Self::Position) -> MoveTally {
        let mut tally = MoveTally::default();
        self.for_each_move(position, |_, child| {
            tally.moves += 1;
            match self.primitive(&child) {
                Some(Value::Lose) => tally.ends = true,
                Some(_) => tally.other_end = true,
                None if self.wins_at_once(&child) => {}
                None => tally.open += 1,
            }
        });
        tally
    }

    /// What the count asks of a position: whether play is over
    /// ([`crate::Game::primitive`]), else whether the mover wins at once,
    /// else its moves' tally. By default the three asked in turn; a game
    /// that tells them from one look at the board says so here.
    fn count(&self, position: &Self::Position) -> Count {
        match self.primitive(position) {
            Some(value) => Count::Over(value),
            None if self.wins_at_once(position) => Count::WinsAtOnce,
            None => Count::Goes(self.tally_moves(position)),
        }
    }

    /// Calls `visit` with the parents of `position`
    /// ([`Parents::for_each_parent`], once for each move) where the mover
    /// cannot win at once: those the solve stores. By default each parent
    /// is asked [`WinsAtOnce::wins_at_once`]; a game may tell before making
    /// it.
    fn for_each_stored_parent(
        &self,
        position: &Self::Position,
        mut visit: impl FnMut(Self::Position),
    ) {
        self.for_each_parent(position, |parent| {
            if !self.wins_at_once(&parent) {
                visit(parent);
            }
        });
    }

    /// Calls `visit` with the index of the class of each parent of
    /// `position` (whose index is `index`) that the solve stores, once for
    /// each of its moves to `position`, and, if `moves` is asked, how many
    /// moves into the class of `position` the class's key has for that
    /// move (the parent is left out where that is none; 1 for each parent
    /// when `moves` is not asked). By default [`stored_parent_classes`]:
    /// each parent made by [`WinsAtOnce::for_each_stored_parent`], then
    /// ranked; a game may rank its parents without making them.
    fn for_each_stored_parent_class(
        &self,
        index: u64,
        position: &Self::Position,
        moves: bool,
        visit: impl FnMut(u64, u8),
    ) {
        stored_parent_classes(self, index, position, moves, visit);
    }

    /// What such a move is called, for messages.
    fn what_wins_at_once(&self) -> &'static str {
        "a move that wins at once"
    }
}

/// What the count finds of a position ([`WinsAtOnce::count`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Play is over, with this value for the mover.
    Over(Value),
    /// The mover has a move that ends play with their win.
    WinsAtOnce,
    /// Play goes on: what the moves lead to.
    Goes(MoveTally),
}

/// What a position's moves lead to ([`WinsAtOnce::tally_moves`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveTally {
    /// How many moves the position has.
    pub moves: u32,
    /// How many of them lead to a position where play goes on and the next
    /// player cannot win at once: the position's count, each move once.
    pub open: u32,
    /// Whether some move ends play with the mover's win.
    pub ends: bool,
    /// Whether some move ends play otherwise (a tie, or the mover's
    /// loss), which the solve does not support.
    pub other_end: bool,
}

/// [`WinsAtOnce::for_each_stored_parent_class`] from the parents
/// themselves: each made by [`WinsAtOnce::for_each_stored_parent`], ranked
/// by [`Symmetric::canonical_index`] and its images compared. A game that
/// ranks its parents without making them checks itself against this.
pub fn stored_parent_classes<G: WinsAtOnce + ?Sized>(
    game: &G,
    index: u64,
    position: &G::Position,
    moves: bool,
    mut visit: impl FnMut(u64, u8),
) {
    if moves {
        let size = game.class_size(index, position);
        game.for_each_stored_parent(position, |parent| {
            let moves = moves_into_class(game, size, &parent);
            if moves > 0 {
                visit(game.canonical_index(&parent), moves);
            }
        });
    } else {
        game.for_each_stored_parent(position, |parent| {
            visit(game.canonical_index(&parent), 1);
        });
    }
}

/// How many moves into the class of a position of class size
/// `child_size` the key of `parent`'s class has for each move of `parent`
/// to that position (the game has at most two symmetries): one, or two
/// when `parent` is its own image and the child is not; when the child is
/// its own image, one if `parent` is its class's key and none for the
/// other image, which has as many moves to the child.
fn moves_into_class<G: WinsAtOnce + ?Sized>(game: &G, child_size: u64, parent: &G::Position) -> u8 {
    let (mut images, mut fixed) = (0u64, 0u64);
    game.for_each_symmetric(parent, |image| {
        images += 1;
        fixed += u64::from(image == *parent);
    });
    let own_image = images / fixed.max(1) == 1;
    moves_into_class_of(child_size, own_image, || game.canonical(parent) == *parent)
}

/// The moves into a class (as [`stored_parent_classes`] counts them) from what it asks of the parent: whether it is
/// its own image, and (asked only when the child is its own) whether it
/// is its class's key. For games that know both without comparing images.
pub fn moves_into_class_of(child_size: u64, own_image: bool, key: impl FnOnce() -> bool) -> u8 {
    let parent_size = if own_image { 1 } else { 2 };
    if child_size <= 1 {
        u8::from(own_image || key())
    } else {
        (child_size / parent_size) as u8
    }
}
