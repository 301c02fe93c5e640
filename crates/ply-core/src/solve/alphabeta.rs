//! Alpha-beta search for one position of a game too large to tabulate:
//! negamax with a fixed-size transposition table and the game's move order.
//!
//! It finds the exact value and remoteness. A score encodes both: a win
//! that ends the game `n` plies from the root scores `WIN - n`, a loss
//! `-(WIN - n)`, a tie 0, so the faster win and the slower loss score higher,
//! and a parent's score is minus its best child's. The sign comes from one
//! search with the window (-1, 1); the remoteness from a bisection with null
//! windows, each a cheap search that mostly replays the table. Ties take the
//! remoteness [`Searchable::plies_left`] promises.
//!
//! The table holds `P` entries for a prime `P`: a position with key `k`
//! goes to entry `k mod P`, which keeps `k / P` (40 bits) to recognise it.
//! The two numbers give back `k` exactly, so a table hit is never a stranger.
//! Forty bits let 2^23 entries (64 MiB) tell apart keys up to 2^63: the
//! table keeps the size asked for unless the game's keys need more.
//!
//! A search polls [`Progress::cancelled`] every few thousand positions and
//! stops with [`SolveError::Cancelled`]; what it learnt before stopping
//! stays in the table and is exact.
//! Each entry also names the move that was best there, as its place in the
//! game's search order, to be tried first next time: only a hint, since
//! positions sharing a key (symmetric images) may order their moves apart.

use crate::error::SolveError;
use crate::game::Searchable;
use crate::progress::{NoProgress, Progress};
use crate::value::{Outcome, Remoteness, Value};

/// The score of winning at once; wins and losses `n` plies away score
/// `WIN - n` and `n - WIN`.
const WIN: i32 = 1 << 12;

/// The longest play the table's one-byte scores can describe.
pub const MAX_PLIES: Remoteness = 126;

/// One transposition table entry: what is known of one position's score,
/// as bounds relative to the position (so the same at every depth), and the
/// move that was best or refuted the window there.
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    /// The low 32 bits of `key / P + 1`; zero (with `check_high`) for an
    /// empty entry.
    check: u32,
    /// Bits 32..40 of `key / P + 1`.
    check_high: u8,
    lower: u8,
    upper: u8,
    best: u8,
}

/// The least and greatest one-byte scores: a loss now and a win now.
const LEAST: u8 = 0;
const GREATEST: u8 = 2 * MAX_PLIES as u8 + 2;
/// No best move known.
const NO_MOVE: u8 = u8::MAX;
/// The largest `key / P + 1` an entry can keep (40 bits).
const MAX_CHECK: u64 = (1 << 40) - 1;
/// Positions visited between two polls of [`Progress::cancelled`].
const POLL_NODES: u64 = 1 << 12;

/// A score seen from `depth` plies below the root, as a byte relative to the
/// position: a loss in `r` is `r`, a tie is `MAX_PLIES + 1`, a win in `r` is
/// `GREATEST - r`. Order is kept.
fn to_byte(score: i32, depth: u32) -> u8 {
    let depth = depth as i32;
    match score {
        0 => MAX_PLIES as u8 + 1,
        s if s > 0 => GREATEST - (WIN - s - depth) as u8,
        s => (WIN + s - depth) as u8,
    }
}

/// The score a byte from [`to_byte`] stands for, seen from `depth`.
fn from_byte(byte: u8, depth: u32) -> i32 {
    let depth = depth as i32;
    let tie = MAX_PLIES as u8 + 1;
    match byte.cmp(&tie) {
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => WIN - i32::from(GREATEST - byte) - depth,
        std::cmp::Ordering::Less => -(WIN - i32::from(byte) - depth),
    }
}

/// A searcher with its transposition table. Keep one per game and reuse it:
/// everything it has learnt stays valid for later searches.
pub struct AlphaBeta<G: Searchable> {
    table: Vec<Entry>,
    /// The table's size `P`, a prime.
    modulus: u64,
    /// Children of the position at each depth, reused between nodes.
    children: Vec<Vec<(G::Move, G::Position)>>,
    nodes: u64,
    drawn_end: bool,
    /// Set when the progress asked to stop: the search unwinds without
    /// storing anything.
    stopped: bool,
}

impl<G: Searchable> AlphaBeta<G> {
    /// A searcher whose table has the least prime number of entries (8
    /// bytes each) at least `entries`, more only if the game's keys need
    /// them to stay exact (keys beyond 2^40 times the entries).
    pub fn new(game: &G, entries: u64) -> Self {
        let modulus = next_prime(Self::entries_for(game, entries));
        Self {
            table: vec![Entry::default(); modulus as usize],
            modulus,
            children: Vec::new(),
            nodes: 0,
            drawn_end: false,
            stopped: false,
        }
    }

    /// The entries a table asked to hold `entries` needs for `game`: at
    /// least enough that every key stays exact.
    fn entries_for(game: &G, entries: u64) -> u64 {
        let needed = game.key_space().div_ceil(MAX_CHECK - 1);
        entries.max(needed).max(2)
    }

    /// The bytes the table of a searcher over `game` asked for `entries`
    /// takes, before making it.
    pub fn bytes_for(game: &G, entries: u64) -> u64 {
        Self::entries_for(game, entries).saturating_mul(std::mem::size_of::<Entry>() as u64)
    }

    /// The bytes this searcher's table takes.
    pub fn table_bytes(&self) -> u64 {
        (self.table.len() * std::mem::size_of::<Entry>()) as u64
    }

    /// Positions visited by every search so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The value of `position` for the player to move, without remoteness:
    /// one search with a narrow window.
    pub fn value(&mut self, game: &G, position: &G::Position) -> Result<Value, SolveError> {
        if let Some(value) = game.primitive(position) {
            return Ok(value);
        }
        let score = self.root_search(game, position, -1, 1, &NoProgress)?;
        Ok(match score.signum() {
            1 => Value::Win,
            -1 => Value::Lose,
            _ => Value::Tie,
        })
    }

    /// The exact value and remoteness of `position` for the player to move.
    pub fn solve(&mut self, game: &G, position: &G::Position) -> Result<Outcome, SolveError> {
        self.solve_within(game, position, &NoProgress)
    }

    /// As [`AlphaBeta::solve`], stopping with [`SolveError::Cancelled`]
    /// soon after `progress` says [`Progress::cancelled`].
    pub fn solve_within(
        &mut self,
        game: &G,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, SolveError> {
        if let Some(value) = game.primitive(position) {
            return Ok(Outcome::terminal(value));
        }
        let plies = game.plies_left(position);
        let first = self.root_search(game, position, -1, 1, progress)?;
        if first == 0 {
            return Ok(Outcome::tie(plies));
        }
        // The first search bounds the score on one side; bisect the rest.
        let (mut low, mut high) = if first > 0 {
            (first, WIN - 1)
        } else {
            (-WIN, first)
        };
        while low < high {
            let mid = low + (high - low) / 2;
            let score = self.root_search(game, position, mid, mid + 1, progress)?;
            if score > mid {
                low = low.max(score);
            } else {
                high = high.min(score);
            }
        }
        Ok(if low > 0 {
            Outcome::win((WIN - low) as Remoteness)
        } else {
            Outcome::lose((WIN + low) as Remoteness)
        })
    }

    fn root_search(
        &mut self,
        game: &G,
        position: &G::Position,
        alpha: i32,
        beta: i32,
        progress: &dyn Progress,
    ) -> Result<i32, SolveError> {
        let plies = game.plies_left(position);
        if plies > MAX_PLIES {
            return Err(SolveError::Unsupported(format!(
                "play may last {plies} plies; alpha-beta search handles at most {MAX_PLIES}"
            )));
        }
        self.drawn_end = false;
        self.stopped = progress.cancelled();
        let score = self.negamax(game, position, 0, alpha, beta, progress);
        if self.stopped {
            return Err(SolveError::Cancelled(format!(
                "the search was stopped after {} positions",
                self.nodes
            )));
        }
        if self.drawn_end {
            return Err(SolveError::Unsupported(
                "alpha-beta search cannot score a drawn end".into(),
            ));
        }
        Ok(score)
    }

    /// The score of `position`, `depth` plies below the root, if it lies
    /// strictly inside (alpha, beta); otherwise a bound on the far side of
    /// the window (fail-soft).
    fn negamax(
        &mut self,
        game: &G,
        position: &G::Position,
        depth: u32,
        mut alpha: i32,
        mut beta: i32,
        progress: &dyn Progress,
    ) -> i32 {
        if self.stopped {
            return 0;
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_NODES) && progress.cancelled() {
            self.stopped = true;
            return 0;
        }
        match game.primitive(position) {
            Some(Value::Win) => return WIN - depth as i32,
            Some(Value::Lose) => return -(WIN - depth as i32),
            Some(Value::Tie) => return 0,
            Some(Value::Draw) => {
                self.drawn_end = true;
                return 0;
            }
            None => {}
        }
        // No score beats a win on the next ply.
        let most = WIN - (depth as i32 + 1);
        if beta > most {
            beta = most;
            if alpha >= beta {
                return beta;
            }
        }
        let key = game.key(position);
        let slot = (key % self.modulus) as usize;
        let check = key / self.modulus + 1;
        let (check, check_high) = (check as u32, (check >> 32) as u8);
        let known = self.table[slot];
        let mut first_move = NO_MOVE;
        if known.check == check && known.check_high == check_high {
            let (lower, upper) = (from_byte(known.lower, depth), from_byte(known.upper, depth));
            if lower >= beta || lower == upper {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            first_move = known.best;
        }
        let (alpha_searched, beta_searched) = (alpha, beta);

        let mut children = self.take_children(depth);
        game.for_each_search_move(position, |mv, child| children.push((mv, child)));
        let first = usize::from(first_move).min(children.len());
        let order = (first..children.len().min(first + 1))
            .chain((0..children.len()).filter(|&i| i != first));
        let mut best = -(WIN - depth as i32);
        let mut best_move = NO_MOVE;
        for i in order {
            let score = -self.negamax(game, &children[i].1, depth + 1, -beta, -alpha, progress);
            if score > best {
                best = score;
                best_move = i.min(usize::from(NO_MOVE) - 1) as u8;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.children[depth as usize] = children;
        if self.stopped {
            // The children's scores are not known: keep nothing.
            return 0;
        }

        let byte = to_byte(best, depth);
        let (lower, upper) = if best <= alpha_searched {
            (LEAST, byte)
        } else if best >= beta_searched {
            (byte, GREATEST)
        } else {
            (byte, byte)
        };
        let entry = &mut self.table[slot];
        if entry.check == check && entry.check_high == check_high {
            entry.lower = entry.lower.max(lower);
            entry.upper = entry.upper.min(upper);
        } else {
            *entry = Entry {
                check,
                check_high,
                lower,
                upper,
                best: NO_MOVE,
            };
        }
        entry.best = best_move;
        best
    }

    /// The children buffer for `depth`, empty, taken out so that deeper
    /// nodes can use theirs.
    fn take_children(&mut self, depth: u32) -> Vec<(G::Move, G::Position)> {
        let depth = depth as usize;
        if self.children.len() <= depth {
            self.children.resize_with(depth + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.children[depth]);
        children.clear();
        children
    }
}

/// The least prime at least `n`.
fn next_prime(n: u64) -> u64 {
    let is_prime = |m: u64| {
        m >= 2
            && (2..)
                .take_while(|d| d * d <= m)
                .all(|d| !m.is_multiple_of(d))
    };
    (n..).find(|&m| is_prime(m)).unwrap_or(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_bytes_keep_order_and_round_trip() {
        for depth in [0u32, 3, 9] {
            let d = depth as i32;
            let relative: Vec<i32> = (0..=MAX_PLIES as i32)
                .map(|r| -(WIN - d - r))
                .chain([0])
                .chain((0..=MAX_PLIES as i32).rev().map(|r| WIN - d - r))
                .collect();
            let bytes: Vec<u8> = relative.iter().map(|&s| to_byte(s, depth)).collect();
            assert!(
                bytes.windows(2).all(|w| w[0] < w[1]),
                "order at depth {depth}"
            );
            assert_eq!(bytes.first(), Some(&LEAST));
            assert_eq!(bytes.last(), Some(&GREATEST));
            for (&s, &b) in relative.iter().zip(&bytes) {
                assert_eq!(from_byte(b, depth), s);
            }
        }
    }

    #[test]
    fn an_entry_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 8);
    }

    #[test]
    fn primes() {
        assert_eq!(next_prime(8), 11);
        assert_eq!(next_prime(13), 13);
        assert_eq!(next_prime((1 << 23) + 1), (1 << 23) + 9);
    }
}
