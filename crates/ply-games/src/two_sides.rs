//! The position of a game of two sides' pieces on a board of at most 32
//! squares, where either side may move (Quixo's cubes, Teeko's pieces):
//! each side's squares as a mask ([`crate::colex`]), and who moves.

/// Each side's squares (bit `s` for square `s`) and who moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TwoSides {
    /// X's squares (the first player's).
    pub x: u32,
    /// O's squares.
    pub o: u32,
    /// Whether O moves (X moves first).
    pub o_to_move: bool,
}

impl TwoSides {
    /// The squares of both sides.
    #[inline]
    pub fn occupied(&self) -> u32 {
        self.x | self.o
    }

    /// The squares of the player to move and of the other player.
    #[inline]
    pub fn sides(&self) -> (u32, u32) {
        if self.o_to_move {
            (self.o, self.x)
        } else {
            (self.x, self.o)
        }
    }

    /// The position with the given mover's and other player's squares,
    /// the mover being O if `o_to_move`.
    #[inline]
    pub fn from_sides(mover: u32, other: u32, o_to_move: bool) -> Self {
        if o_to_move {
            Self {
                x: other,
                o: mover,
                o_to_move,
            }
        } else {
            Self {
                x: mover,
                o: other,
                o_to_move,
            }
        }
    }

    /// The position with the sides' squares and the mover exchanged.
    #[inline]
    pub fn swapped(&self) -> Self {
        Self {
            x: self.o,
            o: self.x,
            o_to_move: !self.o_to_move,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TwoSides;

    #[test]
    fn sides_and_from_sides_are_inverse_and_swapping_exchanges_the_colours() {
        for o_to_move in [false, true] {
            let position = TwoSides {
                x: 0b0011,
                o: 0b1100,
                o_to_move,
            };
            let (mover, other) = position.sides();
            assert_eq!(mover, if o_to_move { 0b1100 } else { 0b0011 });
            assert_eq!(TwoSides::from_sides(mover, other, o_to_move), position);
            // The colours change hands and so does the move: the mover
            // keeps its squares, now under the other colour.
            let swapped = position.swapped();
            assert_eq!((swapped.x, swapped.o), (0b1100, 0b0011));
            assert_eq!(swapped.o_to_move, !o_to_move);
            assert_eq!(swapped.sides(), (mover, other));
            assert_eq!(swapped.occupied(), 0b1111);
            assert_eq!(swapped.swapped(), position);
        }
    }
}
