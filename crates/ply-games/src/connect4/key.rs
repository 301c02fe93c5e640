//! The key of a position in the build by streams ([`super::streams`]):
//! a bit a disc, the discs taken column by column from the bottom, set
//! where the disc is `o`'s, and below them a mark (whether the game is
//! over), held in a 32- or 64-bit word.

use super::index::{colex32, colex64};
use super::stored::Item;

/// A key and its mark (the lowest bit) in a word: `u32` for boards of at
/// most [`super::streams::NARROW_CELLS`] cells, `u64` for larger ones.
/// The build works on the word's bits as a `u64`.
pub(super) trait Key: Item + Ord + std::fmt::Debug {
    /// Past every key: where a stream ends.
    const END: Self;

    /// The word holding `bits`.
    fn of(bits: u64) -> Self;

    /// The word's bits.
    fn bits(self) -> u64;

    /// The key's place in its stack: the colex rank of the key (the word
    /// without its mark) among the keys of as many `o` discs.
    fn place(self) -> u64;
}

impl Key for u32 {
    const END: Self = u32::MAX;

    #[inline]
    fn of(bits: u64) -> Self {
        bits as u32
    }

    #[inline]
    fn bits(self) -> u64 {
        u64::from(self)
    }

    #[inline]
    fn place(self) -> u64 {
        colex32(self >> 1)
    }
}

impl Key for u64 {
    const END: Self = u64::MAX;

    #[inline]
    fn of(bits: u64) -> Self {
        bits
    }

    #[inline]
    fn bits(self) -> u64 {
        self
    }

    #[inline]
    fn place(self) -> u64 {
        colex64(self >> 1)
    }
}
