//! The rules in the mover's frame: how pieces step, moves, drops,
//! promotion, and the end of play.

use super::{
    CHICK, DobutsuMove, DobutsuPosition, EMPTY, HAND_PIECES, HEN, LION, THEIRS, hand_kind,
};
use ply_core::Value;
use ply_core::{Count, MoveTally};

/// The far rank of the mover (row 0): where their Chicks promote and their
/// Lion makes a try.
pub(crate) const FAR_RANK: u16 = 0b111;
/// The home rank of the mover (row 3): the other player's far rank.
pub(crate) const HOME_RANK: u16 = 0b111 << 9;

/// Steps (row, column) of a piece kind moving up the board; `forward` is
/// -1 for the mover's pieces and +1 for the other player's.
const fn step_mask(kind: u8, square: usize, forward: i32) -> u16 {
    let lion: [(i32, i32); 8] = [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ];
    let giraffe: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
    let elephant: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
    let chick: [(i32, i32); 1] = [(forward, 0)];
    let hen: [(i32, i32); 6] = [
        (forward, -1),
        (forward, 0),
        (forward, 1),
        (0, -1),
        (0, 1),
        (-forward, 0),
    ];
    let steps: &[(i32, i32)] = match kind {
        LION => &lion,
        super::GIRAFFE => &giraffe,
        super::ELEPHANT => &elephant,
        CHICK => &chick,
        HEN => &hen,
        _ => &[],
    };
    let (row, col) = ((square / 3) as i32, (square % 3) as i32);
    let mut mask = 0u16;
    let mut i = 0;
    while i < steps.len() {
        let (r, c) = (row + steps[i].0, col + steps[i].1);
        if r >= 0 && r < 4 && c >= 0 && c < 3 {
            mask |= 1 << (r * 3 + c);
        }
        i += 1;
    }
    mask
}

const fn step_table(forward: i32) -> [[u16; 12]; 8] {
    let mut table = [[0u16; 12]; 8];
    let mut kind = 1;
    while kind <= HEN as usize {
        let mut square = 0;
        while square < 12 {
            table[kind][square] = step_mask(kind as u8, square, forward);
            square += 1;
        }
        kind += 1;
    }
    table
}

/// `STEPS[piece][square]`: the squares a piece of the mover (`piece` < 8)
/// or of the other player (`piece` = kind + [`THEIRS`]) steps to.
pub(crate) const STEPS: [[[u16; 12]; 8]; 2] = [step_table(-1), step_table(1)];

/// The squares a piece (with its owner bit) on `square` attacks.
#[inline]
pub(crate) fn steps(piece: u8, square: usize) -> u16 {
    STEPS[usize::from(piece >> 3)][usize::from(piece & 7)][square]
}

/// `FROM[piece][square]`: the squares from which `piece` steps to `square`.
pub(crate) const FROM: [[[u16; 12]; 8]; 2] = {
    let mut table = [[[0u16; 12]; 8]; 2];
    let mut side = 0;
    while side < 2 {
        let mut kind = 1;
        while kind < 8 {
            let mut from = 0;
            while from < 12 {
                let mut to = 0;
                while to < 12 {
                    if STEPS[side][kind][from] >> to & 1 == 1 {
                        table[side][kind][to] |= 1 << from;
                    }
                    to += 1;
                }
                from += 1;
            }
            kind += 1;
        }
        side += 1;
    }
    table
};

/// The same position seen by the other player: the board turned round,
/// colours and hands exchanged.
#[inline]
pub(crate) fn turned(position: &DobutsuPosition) -> DobutsuPosition {
    let mut board = [EMPTY; 12];
    for (square, piece) in board.iter_mut().enumerate() {
        let p = position.board[11 - square];
        *piece = if p == EMPTY { EMPTY } else { p ^ THEIRS };
    }
    DobutsuPosition {
        board,
        hands: [position.hands[1], position.hands[0]],
        sente: !position.sente,
    }
}

/// The value for the mover if play is over: their Lion has been caught,
/// or the other Lion stands on their home rank out of their reach.
pub(crate) fn primitive(position: &DobutsuPosition) -> Option<Value> {
    Attacks::glance(&position.board)
        .0
        .over()
        .then_some(Value::Lose)
}

/// Whether play is over or the mover can catch the other Lion or make a
/// safe try: [`primitive`] or [`wins_at_once`], from one look at the board.
pub(crate) fn over_or_wins_at_once(position: &DobutsuPosition) -> bool {
    let (attacks, _) = Attacks::glance(&position.board);
    attacks.over() || attacks.wins_at_once()
}

/// Whether the mover can catch the other Lion.
pub(crate) fn can_catch(position: &DobutsuPosition) -> bool {
    Attacks::glance(&position.board).0.catches()
}

/// Whether the mover can catch the other Lion or make a safe try.
pub(crate) fn wins_at_once(position: &DobutsuPosition) -> bool {
    Attacks::glance(&position.board).0.wins_at_once()
}

/// The mover's drops on a board whose occupied squares are `occupied`:
/// the hand kind, the piece dropped and the square, kinds in hand order.
#[inline]
fn drops(position: &DobutsuPosition, occupied: u16) -> impl Iterator<Item = (usize, u8, usize)> {
    let empty = !occupied & 0xfff;
    let hand = position.hands[0];
    HAND_PIECES
        .into_iter()
        .enumerate()
        .filter(move |&(k, _)| hand[k] > 0)
        .flat_map(move |(k, piece)| Squares(empty).map(move |to| (k, piece, to)))
}

/// The squares of a set of squares, lowest first.
#[derive(Clone, Copy)]
struct Squares(u16);

impl Iterator for Squares {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let square = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            square
        })
    }
}

/// Calls `visit` with every move and the position it leads to, seen by the
/// next player.
pub(crate) fn for_each_move(
    position: &DobutsuPosition,
    mut visit: impl FnMut(DobutsuMove, DobutsuPosition),
) {
    let (s, _) = Attacks::glance(&position.board);
    for from in 0..12 {
        let piece = position.board[from];
        if piece == EMPTY || piece & THEIRS != 0 {
            continue;
        }
        let mut targets = steps(piece, from) & !s.mine;
        while targets != 0 {
            let to = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let mut child = *position;
            let captured = child.board[to];
            child.board[from] = EMPTY;
            child.board[to] = if piece == CHICK && FAR_RANK >> to & 1 == 1 {
                HEN
            } else {
                piece
            };
            if captured != EMPTY && captured & 7 != LION {
                child.hands[0][hand_kind(captured)] += 1;
            }
            visit(
                DobutsuMove {
                    from: from as u8,
                    to: to as u8,
                },
                turned(&child),
            );
        }
    }
    for (k, piece, to) in drops(position, s.mine | s.theirs) {
        let mut child = *position;
        child.board[to] = piece;
        child.hands[0][k] -= 1;
        visit(
            DobutsuMove {
                from: 12 + k as u8,
                to: to as u8,
            },
            turned(&child),
        );
    }
}

/// Who stands where and attacks what, with each side's attacks but those
/// of the piece on a given square: what a move or an un-move changes.
pub(crate) struct Attacks {
    /// Squares of the mover's pieces.
    pub mine: u16,
    /// Squares of the other player's pieces.
    pub theirs: u16,
    /// The mover's Lion's square, 12 if it is not on the board.
    pub my_lion: usize,
    /// The other Lion's square, 12 if it is not on the board.
    pub their_lion: usize,
    /// Squares the mover's pieces attack.
    pub my_attacks: u16,
    /// Squares the other player's pieces attack.
    pub their_attacks: u16,
    /// `my_without[s]`: the squares the mover's pieces but the one on `s`
    /// attack.
    pub my_without: [u16; 12],
    /// `their_without[s]`: the same for the other player's pieces.
    pub their_without: [u16; 12],
}

impl Attacks {
    /// The attacks on a board.
    #[inline]
    pub(crate) fn of(board: &[u8; 12]) -> Self {
        let (glance, each) = Self::glance(board);
        glance.without(&each)
    }

    /// Who stands where and each side's attacks, and each square's
    /// piece's attacks: the board at a glance, with the attacks but one
    /// piece's not yet found (left empty until [`Attacks::without`]).
    #[inline]
    pub(crate) fn glance(board: &[u8; 12]) -> (Self, [u16; 12]) {
        let (mut mine, mut theirs) = (0u16, 0u16);
        let (mut my_lion, mut their_lion) = (12usize, 12usize);
        let (mut my_attacks, mut their_attacks) = (0u16, 0u16);
        let mut each = [0u16; 12];
        for (square, &piece) in board.iter().enumerate() {
            if piece == EMPTY {
                continue;
            }
            each[square] = steps(piece, square);
            if piece & THEIRS == 0 {
                mine |= 1 << square;
                my_attacks |= each[square];
                if piece == LION {
                    my_lion = square;
                }
            } else {
                theirs |= 1 << square;
                their_attacks |= each[square];
                if piece == LION | THEIRS {
                    their_lion = square;
                }
            }
        }
        let glance = Self {
            mine,
            theirs,
            my_lion,
            their_lion,
            my_attacks,
            their_attacks,
            my_without: [0; 12],
            their_without: [0; 12],
        };
        (glance, each)
    }

    /// Whether the mover attacks the other Lion.
    #[inline]
    fn catches(&self) -> bool {
        self.their_lion < 12 && self.my_attacks >> self.their_lion & 1 == 1
    }

    /// Whether play is over ([`primitive`]): the mover's Lion caught, or
    /// the other Lion on the mover's home rank out of the mover's reach.
    #[inline]
    fn over(&self) -> bool {
        self.my_lion == 12 || (HOME_RANK >> self.their_lion & 1 == 1 && !self.catches())
    }

    /// Whether the mover can catch the other Lion or make a safe try.
    #[inline]
    fn wins_at_once(&self) -> bool {
        self.my_lion < 12
            && (self.catches()
                || steps(LION, self.my_lion) & FAR_RANK & !self.mine & !self.their_attacks != 0)
    }

    /// These attacks with each side's attacks but the piece's on each
    /// square, from each square's piece's attacks `each`: the union of the
    /// attacks of the side's pieces before it and after it, in square
    /// order.
    #[inline]
    fn without(self, each: &[u16; 12]) -> Self {
        let without = |side: u16| {
            let mut others = [0u16; 12];
            let mut before = 0u16;
            for square in 0..12 {
                others[square] = before;
                if side >> square & 1 == 1 {
                    before |= each[square];
                }
            }
            let mut after = 0u16;
            for square in (0..12).rev() {
                others[square] |= after;
                if side >> square & 1 == 1 {
                    after |= each[square];
                }
            }
            others
        };
        Self {
            my_without: without(self.mine),
            their_without: without(self.theirs),
            ..self
        }
    }
}

/// What the count asks of a position, from one look at the board: play is
/// over ([`primitive`]: the mover's Lion caught, or the other Lion on the
/// mover's home rank out of the mover's reach), or the mover wins at once
/// ([`wins_at_once`]), or else the tally of its moves ([`tally_moves`]),
/// the attacks but one piece's found only then.
pub(crate) fn count(position: &DobutsuPosition) -> Count {
    let (a, each) = Attacks::glance(&position.board);
    if a.over() {
        Count::Over(Value::Lose)
    } else if a.wins_at_once() {
        Count::WinsAtOnce
    } else {
        Count::Goes(tally_with(position, &a.without(&each)))
    }
}

/// What the moves of a position where play goes on lead to, told from the
/// position alone: a move ends play if it catches the other Lion or
/// leaves the mover's Lion on the far rank where no piece of the other
/// player attacks it, and lets the other player win at once if it leaves
/// the mover's Lion attacked or the other Lion a step onto the mover's
/// home rank that no piece of the mover's attacks and none of theirs
/// holds. The attacks after a move are the pieces' attacks but the moved
/// (or captured) piece's, and the moved piece's from its new square.
pub(crate) fn tally_moves(position: &DobutsuPosition) -> MoveTally {
    tally_with(position, &Attacks::of(&position.board))
}

/// [`tally_moves`] with the board's attacks `a` found.
fn tally_with(position: &DobutsuPosition, a: &Attacks) -> MoveTally {
    let board = &position.board;
    let their_lion_steps = if a.their_lion < 12 {
        steps(LION, a.their_lion) & HOME_RANK
    } else {
        0
    };
    let mut tally = MoveTally::default();
    // After a move: the mover's Lion's square, the other player's attacks
    // and pieces, and the mover's attacks.
    let after =
        |tally: &mut MoveTally, lion: usize, their_attacks: u16, theirs: u16, my_attacks: u16| {
            tally.moves += 1;
            if FAR_RANK >> lion & 1 == 1 && their_attacks >> lion & 1 == 0 {
                tally.ends = true;
            } else if their_attacks >> lion & 1 == 0
                && their_lion_steps & !theirs & !my_attacks == 0
            {
                tally.open += 1;
            }
        };
    for from in Squares(a.mine) {
        let piece = board[from];
        for to in Squares(steps(piece, from) & !a.mine) {
            if to == a.their_lion {
                tally.moves += 1;
                tally.ends = true;
                continue;
            }
            let now = if piece == CHICK && FAR_RANK >> to & 1 == 1 {
                HEN
            } else {
                piece
            };
            let lion = if piece == LION { to } else { a.my_lion };
            let (their_attacks, theirs) = if a.theirs >> to & 1 == 1 {
                (a.their_without[to], a.theirs & !(1 << to))
            } else {
                (a.their_attacks, a.theirs)
            };
            after(
                &mut tally,
                lion,
                their_attacks,
                theirs,
                a.my_without[from] | steps(now, to),
            );
        }
    }
    for (_, piece, to) in drops(position, a.mine | a.theirs) {
        after(
            &mut tally,
            a.my_lion,
            a.their_attacks,
            a.theirs,
            a.my_attacks | steps(piece, to),
        );
    }
    tally
}
