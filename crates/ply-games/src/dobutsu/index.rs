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
//! Ranking gathers the board into bit sets of squares and packs them in
//! square order (BMI2's `pext` where it is fast, see [`crate::colex::PackingPath`]), then a few table
//! look-ups; unranking is a division per level and a binary search among
//! at most 90 kind words, and a walk over consecutive indices changes only
//! the hands and the bits that flip.

use std::cmp::Ordering;

use super::{CHICK, DobutsuPosition, EMPTY, HAND_PIECES, HEN, LION, THEIRS};
use crate::colex::{Colex, Packing, PackingPath, with_packing};

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
    /// How pieces are packed in square order.
    packing: PackingPath,
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
            packing: PackingPath::in_use(),
        }
    }

    /// The same tables, packing by `path`.
    pub(crate) fn packed_by(self, path: PackingPath) -> Self {
        Self {
            packing: path,
            ..self
        }
    }

    /// How these tables pack.
    pub(crate) fn packing(&self) -> PackingPath {
        self.packing
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
        with_packing!(self.packing, P => self.rank_by::<P>(position))
    }

    /// [`IndexTables::rank`], packing by `P`.
    #[inline]
    fn rank_by<P: Packing>(&self, position: &DobutsuPosition) -> u64 {
        let planes = Planes::of(&position.board);
        let (mine, theirs) = planes.lions();
        if mine == 12 || theirs == 12 {
            return self.len();
        }
        if let Some(placement) = self.placements.number(mine, theirs) {
            return self.rank_placed::<P>(planes, &position.hands, placement);
        }
        let (mine, theirs) = (mirror_square(mine), mirror_square(theirs));
        match self.placements.number(mine, theirs) {
            Some(placement) => self.rank_placed::<P>(planes.mirrored(), &position.hands, placement),
            None => self.len(),
        }
    }

    /// The lesser of the indices of a position and its mirror image (the
    /// same index unless both Lions stand on the middle file);
    /// [`IndexTables::len`] for a position without both Lions.
    #[inline]
    pub fn canonical_rank(&self, position: &DobutsuPosition) -> u64 {
        self.class_of(Planes::of(&position.board), &position.hands)
            .index
    }

    /// The class of the position with board `planes` and `hands`: its
    /// index ([`IndexTables::canonical_rank`]), whether it is its own
    /// mirror image, and whether it is its class's key (its index no
    /// greater than its image's).
    #[inline]
    pub(crate) fn class_of(&self, planes: Planes, hands: &[[u8; 3]; 2]) -> Class {
        with_packing!(self.packing, P => self.class_by::<P>(planes, hands))
    }

    /// [`IndexTables::class_of`], packing by `P`.
    #[inline]
    pub(crate) fn class_by<P: Packing>(&self, planes: Planes, hands: &[[u8; 3]; 2]) -> Class {
        let outside = Class {
            index: self.len(),
            own_image: false,
            key: false,
        };
        let (mine, theirs) = planes.lions();
        if mine == 12 || theirs == 12 {
            return outside;
        }
        // A placement is kept, or its image is, unless the rules decide it
        // (and so its image).
        let order = lions_order(mine, theirs);
        let (kept_mine, kept_theirs) = match order {
            Ordering::Greater => (mirror_square(mine), mirror_square(theirs)),
            _ => (mine, theirs),
        };
        let Some(placement) = self.placements.number(kept_mine, kept_theirs) else {
            return outside;
        };
        let one = |index| Class {
            index,
            own_image: false,
            key: order == Ordering::Less,
        };
        match order {
            Ordering::Less => one(self.rank_placed::<P>(planes, hands, placement)),
            Ordering::Greater => one(self.rank_placed::<P>(planes.mirrored(), hands, placement)),
            // Both Lions on the middle file: the image has them too.
            Ordering::Equal => {
                let index = self.rank_placed::<P>(planes, hands, placement);
                let image = self.rank_placed::<P>(planes.mirrored(), hands, placement);
                Class {
                    index: index.min(image),
                    own_image: index == image,
                    key: index <= image,
                }
            }
        }
    }

    /// The index of the position with board `planes` and `hands`, whose
    /// Lions stand on a placement the index keeps, numbered `placement`:
    /// the kinds, owners and Hens of the occupied squares packed in square
    /// order from the planes, with no pass over the board.
    #[inline]
    fn rank_placed<P: Packing>(&self, planes: Planes, hands: &[[u8; 3]; 2], placement: u64) -> u64 {
        let colex = Colex::get();
        let occupied = planes.occupied;
        let k = occupied.count_ones() as usize;
        let chicks = planes.chicks.count_ones();
        // Kind 0 Giraffe, 1 Elephant, 2 Chick or Hen, two bits a piece.
        let elephants = planes.elephants & occupied;
        let kinds = colex.expand::<P>(colex.compress::<P>(elephants, occupied), 0x5_5555)
            | colex.expand::<P>(colex.compress::<P>(planes.chicks, occupied), 0xA_AAAA);
        let owners = u64::from(colex.compress::<P>(planes.theirs, occupied));
        let promoted = u64::from(colex.compress::<P>(planes.hens, planes.chicks));
        let on_board = [
            (k as u32 - elephants.count_ones() - chicks) as u8,
            elephants.count_ones() as u8,
            chicks as u8,
        ];
        // The occupied squares among the ten the Lions leave.
        let mask = colex.compress::<P>(occupied, 0xFFF & !planes.lions);
        let mut inner = owners << chicks | promoted;
        for ((total, on), held) in self.totals.iter().zip(on_board).zip(hands[0]) {
            inner = inner * (u64::from(total - on) + 1) + u64::from(held);
        }
        placement * self.per_lions()
            + self.level[k]
            + u64::from(self.subset_number[mask as usize]) * self.block[k]
            + self.word_offset[k << 12 | kinds as usize]
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
        let block = self.block_of(index)?;
        let mut position = block.kinds_placed();
        block.fill(&mut position, block.inner_of(index));
        Some(position)
    }

    /// Calls `visit` with each index in `range` (those past the index
    /// left out) and its position, in increasing order: each block of one
    /// kind word is placed once, and within it a step changes the hands,
    /// and the owners and Chicks or Hens whose bits flip, as
    /// [`IndexTables::unrank`] would give them.
    pub fn walk(&self, range: std::ops::Range<u64>, mut visit: impl FnMut(u64, &DobutsuPosition)) {
        let (mut index, end) = (range.start, range.end.min(self.len()));
        while index < end {
            let Some(block) = self.block_of(index) else {
                return;
            };
            let inner = block.inner_of(index);
            let stop = end.min(index - inner + block.len);
            let mut position = block.kinds_placed();
            block.fill(&mut position, inner);
            // The owner and promotion bits above the hands' digits.
            let mut bits = inner / block.hands_len;
            loop {
                visit(index, &position);
                index += 1;
                if index == stop {
                    break;
                }
                if block.next_hands(&mut position) {
                    continue;
                }
                bits += 1;
                let mut flips = bits ^ (bits - 1);
                while flips != 0 {
                    let bit = flips.trailing_zeros() as usize;
                    flips &= flips - 1;
                    if bit < block.chicks {
                        position.board[usize::from(block.chick_squares[bit])] ^= CHICK ^ HEN;
                    } else {
                        position.board[usize::from(block.squares[bit - block.chicks])] ^= THEIRS;
                    }
                }
            }
        }
    }

    /// Calls `visit` with each of `indices` and its position
    /// ([`IndexTables::unrank`]), the block of one kind word found again
    /// only when an index falls outside the last one's.
    pub fn unrank_each(
        &self,
        indices: impl IntoIterator<Item = u64>,
        mut visit: impl FnMut(u64, &DobutsuPosition),
    ) {
        let mut block: Option<Block> = None;
        for index in indices {
            if !block.as_ref().is_some_and(|b| b.holds(index)) {
                block = self.block_of(index);
            }
            let Some(block) = &block else {
                continue;
            };
            let mut position = block.kinds_placed();
            block.fill(&mut position, block.inner_of(index));
            visit(index, &position);
        }
    }

    /// The block of one kind word that `index` falls in, `None` past the
    /// index.
    fn block_of(&self, index: u64) -> Option<Block> {
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
        let start = index - (rest - word.offset);
        let mut block = Block {
            start,
            len: Self::inner_len(k, word.on_board, self.totals),
            hands_len: 1,
            off: [0; 3],
            lions: [my_lion, their_lion],
            kinds: [EMPTY; 10],
            squares: [0; 10],
            k,
            chick_squares: [0; 10],
            chicks: 0,
        };
        for kind in 0..3 {
            block.off[kind] = self.totals[kind] - word.on_board[kind];
            block.hands_len *= u64::from(block.off[kind]) + 1;
        }
        // The occupied squares in order: the `mask`-th of the ten the
        // Lions leave.
        let (mut free, mut i) = (0u32, 0usize);
        for square in 0..12 {
            if square == my_lion || square == their_lion {
                continue;
            }
            if mask >> free & 1 == 1 {
                let kind = HAND_PIECES[usize::from(word.kinds >> (2 * i) & 3)];
                block.kinds[i] = kind;
                block.squares[i] = square as u8;
                if kind == CHICK {
                    block.chick_squares[block.chicks] = square as u8;
                    block.chicks += 1;
                }
                i += 1;
            }
            free += 1;
        }
        Some(block)
    }
}

/// The positions of one kind word on one occupied set with one placement
/// of the Lions: they differ only in who owns each piece, Chick or Hen,
/// and the hands.
struct Block {
    /// The index of the block's first position.
    start: u64,
    /// Positions in the block.
    len: u64,
    /// Ways to split the pieces off the board between the hands.
    hands_len: u64,
    /// Pieces of each hand kind off the board.
    off: [u8; 3],
    /// The squares of the mover's Lion and the other.
    lions: [usize; 2],
    /// The piece (the mover's, a Chick unpromoted) on each occupied square.
    kinds: [u8; 10],
    /// The occupied squares, lowest first.
    squares: [u8; 10],
    /// How many squares are occupied.
    k: usize,
    /// The squares holding a Chick or Hen, lowest first.
    chick_squares: [u8; 10],
    /// How many Chicks and Hens are on the board.
    chicks: usize,
}

impl Block {
    /// Whether `index` falls in the block.
    fn holds(&self, index: u64) -> bool {
        (self.start..self.start + self.len).contains(&index)
    }

    /// The offset of `index` within the block.
    fn inner_of(&self, index: u64) -> u64 {
        index - self.start
    }

    /// The block's first position: the Lions and the mover's unpromoted
    /// pieces on the occupied squares, every piece off the board in the
    /// other's hand.
    fn kinds_placed(&self) -> DobutsuPosition {
        let mut board = [EMPTY; 12];
        board[self.lions[0]] = LION;
        board[self.lions[1]] = LION | THEIRS;
        for (&square, &kind) in self.squares[..self.k].iter().zip(&self.kinds) {
            board[usize::from(square)] = kind;
        }
        DobutsuPosition {
            board,
            hands: [[0; 3], self.off],
            sente: true,
        }
    }

    /// Sets the owners, promotions and hands of `position`, placed by
    /// [`Block::kinds_placed`], to those of the block's position `inner`.
    fn fill(&self, position: &mut DobutsuPosition, mut inner: u64) {
        for kind in (0..3).rev() {
            let off = u64::from(self.off[kind]);
            let mine = inner % (off + 1);
            inner /= off + 1;
            position.hands[0][kind] = mine as u8;
            position.hands[1][kind] = (off - mine) as u8;
        }
        let chicks = self.chicks;
        let (promoted, owners) = (inner & ((1 << chicks) - 1), inner >> chicks);
        for (j, &square) in self.chick_squares[..chicks].iter().enumerate() {
            if promoted >> j & 1 == 1 {
                position.board[usize::from(square)] = HEN;
            }
        }
        for (i, &square) in self.squares[..self.k].iter().enumerate() {
            if owners >> i & 1 == 1 {
                position.board[usize::from(square)] |= THEIRS;
            }
        }
    }

    /// Steps the hands of `position` to the next split (the Chicks the
    /// lowest digit); false when they wrap to the first, the mover
    /// holding none.
    fn next_hands(&self, position: &mut DobutsuPosition) -> bool {
        for kind in (0..3).rev() {
            if position.hands[0][kind] < self.off[kind] {
                position.hands[0][kind] += 1;
                position.hands[1][kind] -= 1;
                return true;
            }
            position.hands[0][kind] = 0;
            position.hands[1][kind] = self.off[kind];
        }
        false
    }
}

/// The squares of the mover's Lion and the other Lion, 12 for a Lion not
/// on the board.
#[inline]
fn lions(position: &DobutsuPosition) -> (u32, u32) {
    Planes::of(&position.board).lions()
}

/// A position's class under the mirror image, as
/// [`IndexTables::class_of`] finds it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Class {
    /// The index of the class's key ([`IndexTables::len`] outside the
    /// index).
    pub(crate) index: u64,
    /// Whether the position is its own mirror image.
    pub(crate) own_image: bool,
    /// Whether the position is its class's key (never outside the index,
    /// where it has no class).
    pub(crate) key: bool,
}

/// A board as bit sets of its twelve squares (bit `s` for square `s`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Planes {
    /// Squares holding a piece other than a Lion.
    occupied: u32,
    /// Squares holding an Elephant.
    elephants: u32,
    /// Squares holding a Chick or Hen.
    chicks: u32,
    /// Squares holding a Hen.
    hens: u32,
    /// Squares holding a piece of the player not to move.
    theirs: u32,
    /// Squares holding a Lion.
    lions: u32,
}

impl Planes {
    /// The planes of `board`, from each bit of the piece codes (Lion 001,
    /// Giraffe 010, Elephant 011, Chick 100, Hen 101, and 1000 for the
    /// other player's) gathered a byte at a time.
    #[inline]
    pub(crate) fn of(board: &[u8; 12]) -> Self {
        let b = board;
        let low = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let high = u64::from(u32::from_le_bytes([b[8], b[9], b[10], b[11]]));
        // Bit `b` of each byte of `x`, byte `i`'s at bit `i`: the bits
        // masked to the bottom of each byte, then summed into the top byte
        // by one multiplication (each lands at a distinct bit, no carries).
        let bit = |x: u64, b: u32| {
            (((x >> b) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
        };
        let plane = |b| bit(low, b) | bit(high, b) << 8;
        let [b0, b1, b2, b3] = [plane(0), plane(1), plane(2), plane(3)];
        Planes {
            occupied: b1 | b2,
            elephants: b0 & b1,
            chicks: b2,
            hens: b2 & b0,
            theirs: b3,
            lions: b0 & !b1 & !b2,
        }
    }

    /// The planes of the board turned round for the other player to move
    /// ([`super::rules::turned`]): square `s` to `11 - s`, and each piece
    /// to the other owner.
    #[inline]
    pub(crate) fn turned(self) -> Self {
        let turn = |x: u32| x.reverse_bits() >> 20;
        Planes {
            occupied: turn(self.occupied),
            elephants: turn(self.elephants),
            chicks: turn(self.chicks),
            hens: turn(self.hens),
            theirs: turn((self.occupied | self.lions) & !self.theirs),
            lions: turn(self.lions),
        }
    }

    /// Empties `square`.
    #[inline]
    pub(crate) fn clear(&mut self, square: usize) {
        let keep = !(1 << square);
        self.occupied &= keep;
        self.elephants &= keep;
        self.chicks &= keep;
        self.hens &= keep;
        self.theirs &= keep;
        self.lions &= keep;
    }

    /// Puts `piece` (a piece code, with its owner bit) on the empty
    /// `square`.
    #[inline]
    pub(crate) fn put(&mut self, square: usize, piece: u8) {
        let bit = 1 << square;
        let kind = piece & 7;
        let on = |yes: bool| bit & 0u32.wrapping_sub(u32::from(yes));
        self.lions |= on(kind == LION);
        self.occupied |= on(kind != LION);
        self.elephants |= on(kind == super::ELEPHANT);
        self.chicks |= on(kind >= CHICK);
        self.hens |= on(kind == HEN);
        self.theirs |= on(piece & THEIRS != 0);
    }

    /// The planes of the board's mirror image: each rank's outer squares
    /// swapped.
    #[inline]
    fn mirrored(self) -> Self {
        let flip = |x: u32| (x & 0o2222) | (x & 0o1111) << 2 | (x & 0o4444) >> 2;
        Planes {
            occupied: flip(self.occupied),
            elephants: flip(self.elephants),
            chicks: flip(self.chicks),
            hens: flip(self.hens),
            theirs: flip(self.theirs),
            lions: flip(self.lions),
        }
    }

    /// The squares of the mover's Lion and the other's, 12 for one not on
    /// the board (the first if a player has two).
    #[inline]
    fn lions(&self) -> (u32, u32) {
        let square = |set: u32| set.trailing_zeros().min(12);
        (
            square(self.lions & !self.theirs),
            square(self.lions & self.theirs),
        )
    }
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
