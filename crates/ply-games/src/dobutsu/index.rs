//! The dense index, Tanaka's with mirror images folded and the Lion
//! placements the rules decide left out: the two Lions, then the set of
//! the other ten squares that hold a piece, the kinds on those squares in
//! order (Giraffe, Elephant, Chick; at most two of each), who owns each,
//! Chick or Hen for each Chick on the board, and how the pieces off the
//! board split between the hands. Tanaka numbers all 132 placements of the
//! Lions (12 x 11 squares): 132 x 11,878,227 = 1,567,925,964 positions for
//! the full game, his published figure. This index keeps a placement only
//! when the rules do not decide its positions: the Lions stand apart (the
//! mover catches a Lion beside theirs) and the other Lion is off the
//! mover's home rank (there it is caught, or play is over: a safe try).
//! A position and its left-right mirror image play alike, so of the 56
//! placements left it keeps the 28 that do not number after their mirror
//! image (the 4 with both Lions on the middle file among them) and ranks a
//! position with any other of them as its mirror image: 28 x 11,878,227 =
//! 332,590,356 indices, one byte each in the solve. (gentb, the public
//! generator, also leaves out the mover's Lion on the far rank, which it
//! scores as a try already won; ply's rules play on from there, so this
//! index keeps it.)
//!
//! Ranking is a few table look-ups and one pass over the board; unranking
//! a division per level and a binary search among at most 90 kind words.

use std::cmp::Ordering;

use super::{CHICK, Dobutsu, DobutsuPosition, EMPTY, HAND_PIECES, HEN, LION, THEIRS};

/// The placements of the two Lions an index keeps (the mover's Lion's
/// square, then the other's), in increasing order of Tanaka's number
/// `mine * 11 + theirs` (`theirs` counted among the eleven squares `mine`
/// leaves), and the number of each among them.
#[derive(Debug)]
pub(crate) struct Placements {
    /// The kept placements; the first `count` entries are used.
    pairs: [(u8, u8); 72],
    /// How many placements are kept.
    count: usize,
    /// `numbers[mine * 12 + theirs]`: the number of a kept placement
    /// ([`u8::MAX`] for the others).
    numbers: [u8; 144],
}

/// The placements that do not number after their mirror image
/// ([`lions_order`] not `Greater`), those the rules decide
/// ([`decided_by_rules`]) too or not.
const fn placements(decided_too: bool) -> Placements {
    let mut kept = Placements {
        pairs: [(0u8, 0u8); 72],
        count: 0,
        numbers: [u8::MAX; 144],
    };
    let mut mine = 0;
    while mine < 12 {
        let mut theirs = 0;
        while theirs < 12 {
            if theirs != mine
                && (decided_too || !decided_by_rules(mine, theirs))
                && !matches!(lions_order(mine, theirs), Ordering::Greater)
            {
                kept.pairs[kept.count] = (mine as u8, theirs as u8);
                kept.numbers[mine as usize * 12 + theirs as usize] = kept.count as u8;
                kept.count += 1;
            }
            theirs += 1;
        }
        mine += 1;
    }
    kept
}

/// The placements the solved index keeps: 28, none the rules decide.
pub(crate) const SOLVED: Placements = placements(false);
/// Every placement up to mirror images: 72, for counting what play reaches
/// (it passes through positions the rules decide).
pub(crate) const EVERY: Placements = placements(true);

impl Placements {
    /// The number of the placement with the mover's Lion on `mine` and the
    /// other on `theirs`, if it is kept.
    pub(crate) fn number(&self, mine: u32, theirs: u32) -> Option<u64> {
        let number = *self.numbers.get((mine * 12 + theirs) as usize)?;
        (number != u8::MAX).then_some(u64::from(number))
    }
}

/// One arrangement of kinds on the occupied squares.
#[derive(Copy, Clone, Debug)]
struct Word {
    /// Kinds (0 Giraffe, 1 Elephant, 2 Chick) of the occupied squares in
    /// order, two bits each, the first square lowest.
    kinds: u16,
    /// How many of each kind stand on the board.
    on_board: [u8; 3],
    /// Positions per occupied set with this word before it, in its set's block.
    offset: u64,
}

/// `PIECE_INFO[piece & 15]` for a Giraffe, Elephant, Chick or Hen of
/// either player: the hand kind (bits 0-1: 0 Giraffe, 1 Elephant, 2 Chick),
/// and bit 2 for a Hen.
const PIECE_INFO: [u8; 16] = {
    let mut table = [0u8; 16];
    let mut piece = 0;
    while piece < 16 {
        table[piece] = match piece & 7 {
            3 => 1,
            4 => 2,
            5 => 2 | 4,
            _ => 0,
        };
        piece += 1;
    }
    table
};

/// `mask` with bit `bit` taken out and the bits above it moved down.
#[inline]
fn remove_bit(mask: u16, bit: u32) -> u16 {
    let below = (1u16 << bit) - 1;
    (mask & below) | ((mask >> 1) & !below)
}

/// The tables that rank and unrank positions of one variant.
#[derive(Clone, Debug)]
pub struct IndexTables {
    totals: [u8; 3],
    /// The Lion placements kept.
    placements: &'static Placements,
    /// `words[k]`: the kind words of length `k`, in order.
    words: Vec<Vec<Word>>,
    /// `word_offset[k << 12 | code]`: the offset of the word of length `k`
    /// with base-4 code `code` in its set's block.
    word_offset: Vec<u64>,
    /// `block[k]`: positions per occupied set of `k` squares.
    block: [u64; 11],
    /// `level[k]`: positions per Lion placement with fewer than `k`
    /// pieces besides the Lions on the board.
    level: [u64; 12],
    /// `subset_number[mask]`: the number of a set of the ten squares among
    /// the sets of the same size, in increasing order of mask.
    subset_number: Vec<u16>,
    /// `subsets[k]`: the sets of `k` of the ten squares, in increasing order.
    subsets: Vec<Vec<u16>>,
}

impl IndexTables {
    /// The tables for a variant with `totals` Giraffes, Elephants and
    /// Chicks, keeping the Lion placements `placements`.
    pub(crate) fn new(totals: [u8; 3], placements: &'static Placements) -> Self {
        let pieces = usize::from(totals.iter().sum::<u8>());
        let mut words = vec![Vec::new(); 11];
        let mut word_offset = vec![u64::MAX; 11 << 12];
        let mut block = [0u64; 11];
        for k in 0..=pieces.min(10) {
            for code in 0u32..(1 << (2 * k)) {
                let mut on_board = [0u8; 3];
                let mut ok = true;
                for i in 0..k {
                    let kind = (code >> (2 * i) & 3) as usize;
                    if kind == 3 {
                        ok = false;
                        break;
                    }
                    on_board[kind] += 1;
                }
                if !ok || (0..3).any(|kind| on_board[kind] > totals[kind]) {
                    continue;
                }
                word_offset[k << 12 | code as usize] = block[k];
                let inner = Self::inner_len(k, on_board, totals);
                words[k].push(Word {
                    kinds: code as u16,
                    on_board,
                    offset: block[k],
                });
                block[k] += inner;
            }
        }
        let mut subsets = vec![Vec::new(); 11];
        let mut subset_number = vec![0u16; 1 << 10];
        for mask in 0u16..1 << 10 {
            let k = mask.count_ones() as usize;
            subset_number[usize::from(mask)] = subsets[k].len() as u16;
            subsets[k].push(mask);
        }
        let mut level = [0u64; 12];
        for k in 0..11 {
            level[k + 1] = level[k] + subsets[k].len() as u64 * block[k];
        }
        Self {
            totals,
            placements,
            words,
            word_offset,
            block,
            level,
            subset_number,
            subsets,
        }
    }

    /// Positions per word: owners, Chick or Hen, and hand splits.
    fn inner_len(k: usize, on_board: [u8; 3], totals: [u8; 3]) -> u64 {
        let mut n = 1u64 << (k + usize::from(on_board[2]));
        for kind in 0..3 {
            n *= u64::from(totals[kind] - on_board[kind]) + 1;
        }
        n
    }

    /// Positions per placement of the two Lions.
    fn per_lions(&self) -> u64 {
        self.level[11]
    }

    /// The size of the index.
    pub fn len(&self) -> u64 {
        self.placements.count as u64 * self.per_lions()
    }

    /// Whether the index is empty (never: the Lions alone make 72).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index of a position (turned to Sente's view or not, the same;
    /// a position whose Lions number after its mirror image's ranks as that
    /// image); [`IndexTables::len`] for a position without both Lions or
    /// with a placement not kept (one the rules decide, [`decided_by_rules`],
    /// in the solved index).
    #[inline]
    pub fn rank(&self, position: &DobutsuPosition) -> u64 {
        let (mine, theirs) = lions(position);
        if mine == 12 || theirs == 12 {
            return self.len();
        }
        if let Some(placement) = self.placements.number(mine, theirs) {
            return self.rank_placed(position, mine, theirs, placement);
        }
        let (mine, theirs) = (mirror_square(mine), mirror_square(theirs));
        match self.placements.number(mine, theirs) {
            Some(placement) => {
                self.rank_placed(&Dobutsu::mirror(position), mine, theirs, placement)
            }
            None => self.len(),
        }
    }

    /// The lesser of the indices of a position and its mirror image (the
    /// same index unless both Lions stand on the middle file);
    /// [`IndexTables::len`] for a position without both Lions.
    #[inline]
    pub fn canonical_rank(&self, position: &DobutsuPosition) -> u64 {
        let (mine, theirs) = lions(position);
        if mine == 12 || theirs == 12 {
            return self.len();
        }
        // A placement is kept, or its image is, unless the rules decide it
        // (and so its image).
        let order = lions_order(mine, theirs);
        let (kept_mine, kept_theirs) = match order {
            Ordering::Greater => (mirror_square(mine), mirror_square(theirs)),
            _ => (mine, theirs),
        };
        let Some(placement) = self.placements.number(kept_mine, kept_theirs) else {
            return self.len();
        };
        match order {
            Ordering::Less => self.rank_placed(position, mine, theirs, placement),
            Ordering::Greater => self.rank_placed(
                &Dobutsu::mirror(position),
                kept_mine,
                kept_theirs,
                placement,
            ),
            // Both Lions on the middle file: the image has them too.
            Ordering::Equal => self
                .rank_placed(position, mine, theirs, placement)
                .min(self.rank_placed(&Dobutsu::mirror(position), mine, theirs, placement)),
        }
    }

    /// The index of a position with the mover's Lion on `mine` and the
    /// other on `theirs`, a placement the index keeps, numbered
    /// `placement`. Only the squares with another piece are visited, and
    /// the board is found occupied without a branch per square.
    #[inline]
    fn rank_placed(
        &self,
        position: &DobutsuPosition,
        mine: u32,
        theirs: u32,
        placement: u64,
    ) -> u64 {
        let board = &position.board;
        let mut occupied = 0u16;
        for (square, &piece) in board.iter().enumerate() {
            occupied |= u16::from(piece & 7 > LION) << square;
        }
        let (mut kinds, mut owners, mut promoted) = (0usize, 0u64, 0u64);
        let (mut k, mut chicks) = (0u32, 0u32);
        let mut on_board = [0u8; 3];
        let mut rest = occupied;
        while rest != 0 {
            let square = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let piece = board[square];
            let info = PIECE_INFO[usize::from(piece & 15)];
            let kind = usize::from(info & 3);
            kinds |= kind << (2 * k);
            owners |= u64::from(piece >> 3) << k;
            // Only a Hen has bit 2, and only Chicks and Hens count.
            promoted |= u64::from(info >> 2 & 1) << chicks;
            chicks += u32::from(kind == 2);
            on_board[kind] += 1;
            k += 1;
        }
        // The occupied squares among the ten the Lions leave, the higher
        // Lion's square taken out first.
        let (low, high) = (mine.min(theirs), mine.max(theirs));
        let mask = remove_bit(remove_bit(occupied, high), low);
        let k = k as usize;
        let mut inner = owners << chicks | promoted;
        for ((total, on), held) in self.totals.iter().zip(on_board).zip(position.hands[0]) {
            inner = inner * (u64::from(total - on) + 1) + u64::from(held);
        }
        placement * self.per_lions()
            + self.level[k]
            + u64::from(self.subset_number[usize::from(mask)]) * self.block[k]
            + self.word_offset[k << 12 | kinds]
            + inner
    }

    /// How the Lions' squares of the positions at `index` order against
    /// those of their mirror images: `Less` when the image ranks as the
    /// position (the index keeps no placement that orders `Greater`), and
    /// `Equal` for Lions on the middle file, whose images share their Lions
    /// and have indices of their own.
    #[inline]
    pub fn lions_against_mirror(&self, index: u64) -> Ordering {
        let (my_lion, their_lion) = self.placements.pairs[(index / self.per_lions()) as usize];
        lions_order(u32::from(my_lion), u32::from(their_lion))
    }

    /// [`IndexTables::lions_against_mirror`] for the index of `position`,
    /// read off its board without ranking it; `Equal` for a position
    /// without both Lions (outside the index, as its image is).
    #[inline]
    pub fn position_against_mirror(position: &DobutsuPosition) -> Ordering {
        let (my_lion, their_lion) = lions(position);
        if my_lion == 12 || their_lion == 12 {
            return Ordering::Equal;
        }
        lions_order(my_lion, their_lion)
    }

    /// The position (Sente to move) with the given index.
    pub fn unrank(&self, index: u64) -> Option<DobutsuPosition> {
        if index >= self.len() {
            return None;
        }
        let (my_lion, their_lion) = self.placements.pairs[(index / self.per_lions()) as usize];
        let (my_lion, their_lion) = (usize::from(my_lion), usize::from(their_lion));
        let mut rest = index % self.per_lions();
        let k = self.level.partition_point(|&l| l <= rest) - 1;
        rest -= self.level[k];
        let mask = self.subsets[k][(rest / self.block[k]) as usize];
        rest %= self.block[k];
        let words = &self.words[k];
        let word = words[words.partition_point(|w| w.offset <= rest) - 1];
        rest -= word.offset;
        let mut hands = [[0u8; 3]; 2];
        for kind in (0..3).rev() {
            let off = u64::from(self.totals[kind] - word.on_board[kind]);
            let mine = rest % (off + 1);
            rest /= off + 1;
            hands[0][kind] = mine as u8;
            hands[1][kind] = (off - mine) as u8;
        }
        let chicks = u32::from(word.on_board[2]);
        let mut promoted = rest & ((1 << chicks) - 1);
        let mut owners = rest >> chicks;
        let mut board = [EMPTY; 12];
        board[my_lion] = LION;
        board[their_lion] = LION | THEIRS;
        let (mut free, mut i) = (0u32, 0u32);
        for square in board.iter_mut() {
            if *square != EMPTY {
                continue;
            }
            if mask >> free & 1 == 1 {
                let kind = usize::from(word.kinds >> (2 * i) & 3);
                let mut piece = HAND_PIECES[kind];
                if piece == CHICK {
                    if promoted & 1 == 1 {
                        piece = HEN;
                    }
                    promoted >>= 1;
                }
                if owners & 1 == 1 {
                    piece |= THEIRS;
                }
                owners >>= 1;
                *square = piece;
                i += 1;
            }
            free += 1;
        }
        Some(DobutsuPosition {
            board,
            hands,
            sente: true,
        })
    }
}

/// The squares of the mover's Lion and the other Lion, 12 for a Lion not
/// on the board.
#[inline]
fn lions(position: &DobutsuPosition) -> (u32, u32) {
    (
        find_square(&position.board, LION),
        find_square(&position.board, LION | THEIRS),
    )
}

/// The square a square's mirror image is on.
#[inline]
const fn mirror_square(square: u32) -> u32 {
    square / 3 * 3 + 2 - square % 3
}

/// Whether the rules decide every position with the mover's Lion on
/// `mine` and the other on `theirs`: the Lions stand side by side (the
/// mover catches) or the other Lion stands on the mover's home rank (the
/// mover catches it, or it has made a safe try). The same for a placement
/// and its mirror image.
#[inline]
pub(crate) const fn decided_by_rules(mine: u32, theirs: u32) -> bool {
    let rows = (mine / 3).abs_diff(theirs / 3);
    let cols = (mine % 3).abs_diff(theirs % 3);
    (rows <= 1 && cols <= 1) || theirs >= 9
}

/// How Tanaka's number of the placement of Lions on `my_lion` and
/// `their_lion` orders against the number of their mirror images.
#[inline]
const fn lions_order(my_lion: u32, their_lion: u32) -> Ordering {
    const fn number(mine: u32, theirs: u32) -> u32 {
        mine * 11 + theirs - (theirs > mine) as u32
    }
    let (a, b) = (
        number(my_lion, their_lion),
        number(mirror_square(my_lion), mirror_square(their_lion)),
    );
    if a < b {
        Ordering::Less
    } else if a > b {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// The first square of `board` holding `piece`, or 12: the twelve bytes
/// compared eight and four at a time (a byte is zero after XOR with the
/// piece exactly where the piece stands; the lowest such byte is found
/// exactly by the borrow trick, which may only mark bytes above it).
#[inline]
fn find_square(board: &[u8; 12], piece: u8) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let pattern = ONES * u64::from(piece);
    let (low, high) = board.split_at(8);
    let low = u64::from_le_bytes(low.try_into().expect("eight bytes"));
    let found = zero_bytes(low ^ pattern);
    if found != 0 {
        return found.trailing_zeros() / 8;
    }
    // The four bytes past the board are filled with ones, never `piece`.
    let high =
        u64::from(u32::from_le_bytes(high.try_into().expect("four bytes"))) | 0xffff_ffff_0000_0000;
    let found = zero_bytes(high ^ pattern);
    if found != 0 {
        8 + found.trailing_zeros() / 8
    } else {
        12
    }
}
