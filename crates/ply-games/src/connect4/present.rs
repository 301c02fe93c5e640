//! Which indices of a tier the shards of the build by streams hold
//! ([`ply_core::Keys::Present`]): the boards legal play reaches, one of
//! each mirror pair, the one with the lesser index (the class's
//! representative, [`ply_core::NamedTiers::fold_in_tier`]). A stack whose
//! mirror image has a lesser rank holds none; a palindromic stack holds
//! the boards no greater than their mirror images.

use super::{ConnectFour, legal};
use ply_core::db::Presence;

/// The test of which indices of tier `discs` a shard holds.
pub struct Present {
    game: ConnectFour,
    discs: u32,
    /// The colourings of a stack: a tier's index is stack-major.
    colours: u64,
}

impl Present {
    /// The test for tier `discs` of `game`.
    pub fn new(game: &ConnectFour, discs: u32) -> Self {
        Self {
            game: game.clone(),
            discs,
            colours: super::index::binomial(discs, discs / 2),
        }
    }
}

impl Presence for Present {
    /// 2 for a board held for itself and its mirror image, 1 for a board
    /// that is its own mirror image, 0 for an index not held. The stack
    /// is tested first (cheap), the legality search last.
    fn stands_for(&self, index: u64) -> u64 {
        let game = &self.game;
        let rank = index / self.colours;
        let Some(heights) = game.index.heights(self.discs, rank) else {
            return 0;
        };
        let width = game.width() as usize;
        let mut reversed = [0; 9];
        for (c, h) in reversed[..width].iter_mut().enumerate() {
            *h = heights[width - 1 - c];
        }
        let mirror = game.index.stack_rank(self.discs, &reversed);
        if mirror < rank {
            return 0;
        }
        let Some(board) = game.index.board(self.discs, index) else {
            return 0;
        };
        if legal::check(game, &board).is_err() {
            return 0;
        }
        if mirror > rank {
            return 2;
        }
        match game.index.rank(game, &game.mirror(&board)).cmp(&index) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Greater => 2,
        }
    }
}
