//! The exact value and remoteness of one position by alpha-beta search,
//! for boards too large to store (7x6), with the field's methods (Pons's
//! solver, its tutorial and Allis's thesis): bitboards; a move that lets
//! the opponent win at once is never searched, and a threat the mover
//! must block is the only move searched; moves ordered by the threats
//! they make, then from the centre out; a transposition table of exact
//! bounds within a memory budget, in buckets that keep the costliest
//! bound; the score found by null-window searches that halve its range;
//! the tree split among the threads where it is large, young brothers
//! waiting (a position's first move is searched alone, the others side
//! by side once it has failed to refute the window).
//!
//! Splitting the tree, and not the list of a position's moves, is what
//! makes a second thread pay on Connect Four: a position's moves share
//! most of their trees, which one thread searching them in turn finds in
//! the table, and two threads searching two of them at once each find
//! alone (docs/connect4.md gives the positions searched both ways).
//!
//! A score says how fast the game ends: a win for the mover ending with
//! `N` discs on the board scores `(cells + 2 - N) / 2` (rounded down), a
//! loss the negation, a tie 0. As the parity of `N` is fixed by who wins,
//! the score gives the remoteness back ([`outcome`]). On 7x6 this is
//! Pons's score.

use super::{C4Position, ConnectFour};
use ply_core::{Game, Outcome, Value};
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The outcome a score means for the mover of a position of `discs` discs
/// on a board of `cells` cells.
pub fn outcome(cells: u32, discs: u32, score: i32) -> Outcome {
    if score == 0 {
        return Outcome::tie(cells - discs);
    }
    // The end's disc count N has the parity of the winner's discs: the
    // mover's (discs + 1) for a win, the other's for a loss.
    let end_parity = if score > 0 {
        (discs + 1) % 2
    } else {
        discs % 2
    };
    let top = (cells + 2) as i32 - 2 * score.abs();
    let end = if top.rem_euclid(2) as u32 == end_parity {
        top
    } else {
        top - 1
    } as u32;
    if score > 0 {
        Outcome::win(end - discs)
    } else {
        Outcome::lose(end - discs)
    }
}

/// The score of an outcome of a position of `discs` discs (the inverse of
/// [`outcome`]; draws do not occur).
pub fn score_of(cells: u32, discs: u32, outcome: Outcome) -> i32 {
    let end = discs + outcome.remoteness.unwrap_or(0);
    let size = ((cells + 2 - end) / 2) as i32;
    match outcome.value {
        Value::Win => size,
        Value::Lose => -size,
        _ => 0,
    }
}

/// A transposition table of bounds on scores, shared by the threads, in
/// buckets of two words (one cache line holds four buckets): each word
/// holds the key's quotient by the number of buckets (odd) above the
/// work the bound cost, the best move found and a byte of bound, so that
/// the key is whole and no entry can be read half-written. The first
/// word of a bucket keeps the costlier of the bounds met there, the
/// second the latest of the others: a search of minutes overwrites most
/// entries many times over, and the bounds that took long to find are
/// the ones worth keeping.
struct Table {
    entries: Vec<AtomicU64>,
    /// The buckets: half the entries.
    buckets: u64,
}

/// An entry's low byte: 0 empty, else `UPPER + score + OFFSET` or
/// `LOWER + score + OFFSET`; the next 4 bits the column (mirrored with the
/// key) that last refuted a null window, plus one (0: none); the next 5
/// the work: the positions searched to find the bound, in binary digits.
const OFFSET: i32 = 64;
const UPPER: u64 = 0;
const LOWER: u64 = 128;
/// Where an entry's work begins.
const WORK: u32 = 12;
/// The bits below an entry's quotient.
const PAYLOAD: u32 = 17;

/// What the table holds of a position.
#[derive(Clone, Copy)]
struct Entry {
    /// A bound, if stored: (whether it is a lower bound, the score).
    bound: Option<(bool, i32)>,
    /// The column to try first, plus one (0: none).
    best: u64,
}

impl Table {
    /// A table of at most `bytes` bytes, of an odd number of buckets, for
    /// keys of `key_bits` bits: at least a few thousand buckets, and as
    /// many as leave the quotient room above the payload.
    fn new(bytes: u64, key_bits: u32) -> Self {
        let least = 1u64 << (key_bits + PAYLOAD).saturating_sub(64).max(12);
        let buckets = (bytes / 16).clamp(least, 1 << 40) | 1;
        Self {
            entries: (0..2 * buckets).map(|_| AtomicU64::new(0)).collect(),
            buckets,
        }
    }

    /// The first of `key`'s two entries, and its quotient.
    #[inline]
    fn slot(&self, key: u64) -> (usize, u64) {
        (2 * (key % self.buckets) as usize, key / self.buckets)
    }

    /// Asks for `key`'s bucket to be loaded into the cache.
    #[inline]
    fn prefetch(&self, key: u64) {
        ply_core::prefetch(&self.entries[self.slot(key).0]);
    }

    /// What is stored for `key`.
    #[inline]
    fn get(&self, key: u64) -> Entry {
        let (at, quotient) = self.slot(key);
        let mut word = self.entries[at].load(Relaxed);
        if word >> PAYLOAD != quotient || word & 0xff == 0 {
            word = self.entries[at + 1].load(Relaxed);
            if word >> PAYLOAD != quotient || word & 0xff == 0 {
                return Entry {
                    bound: None,
                    best: 0,
                };
            }
        }
        let byte = word & 0xff;
        let bound = if byte >= LOWER {
            Some((true, (byte - LOWER) as i32 - OFFSET))
        } else {
            Some((false, (byte - UPPER) as i32 - OFFSET))
        };
        Entry {
            bound,
            best: word >> 8 & 0xf,
        }
    }

    /// Stores a bound on `key`'s score found by searching `nodes`
    /// positions, and the best move (0: none).
    #[inline]
    fn put(&self, key: u64, lower: bool, score: i32, best: u64, nodes: u64) {
        let (at, quotient) = self.slot(key);
        let byte = (score + OFFSET) as u64 + if lower { LOWER } else { UPPER };
        let work = u64::from((64 - nodes.leading_zeros()).min(31));
        let word = quotient << PAYLOAD | work << WORK | best << 8 | byte;
        let first = self.entries[at].load(Relaxed);
        if first >> PAYLOAD == quotient || work >= first >> WORK & 0x1f {
            self.entries[at].store(word, Relaxed);
            // The bound it displaces, if of another key, is kept second.
            if first >> PAYLOAD != quotient && first & 0xff != 0 {
                self.entries[at + 1].store(first, Relaxed);
            }
        } else {
            self.entries[at + 1].store(word, Relaxed);
        }
    }

    fn clear(&self) {
        for entry in &self.entries {
            entry.store(0, Relaxed);
        }
    }
}

/// Why a search stopped without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// A searcher of one board's positions, keeping its table between
/// positions.
pub struct Searcher {
    table: Table,
    /// The exact scores of the positions searched whole, by the key of
    /// the position or of its mirror image, whichever is smaller: a
    /// position's moves are searched one by one, and the mirror images
    /// among them (all of the empty board's) cost nothing twice.
    solved: std::sync::Mutex<rustc_hash::FxHashMap<u64, i32>>,
    nodes: AtomicU64,
    /// The columns from the centre out.
    order: Vec<u32>,
    /// The threads the trees are split on, kept between searches.
    pool: std::sync::Mutex<Option<Arc<rayon::ThreadPool>>>,
    /// The fewest empty cells of a position whose tree is split.
    split_empty: u32,
}

/// The board's constants, copied into the search.
#[derive(Clone, Copy)]
struct Board {
    stride: u32,
    cells: u32,
    bottom: u64,
    full: u64,
    width: u32,
    /// The most discs on a position whose key is folded with its mirror's.
    fold_up_to: u32,
}

impl Searcher {
    /// A searcher for `game` whose table takes at most `table_bytes`.
    pub fn new(game: &ConnectFour, table_bytes: u64) -> Self {
        let w = game.width() as i32;
        let mut order: Vec<u32> = (0..game.width()).collect();
        order.sort_by_key(|&c| ((2 * c as i32 - (w - 1)).abs(), c));
        Self {
            table: Table::new(table_bytes, game.width() * game.stride()),
            solved: Default::default(),
            nodes: AtomicU64::new(0),
            order,
            pool: Default::default(),
            split_empty: SPLIT_EMPTY,
        }
    }

    /// The same searcher, splitting the trees of positions with at least
    /// `empty` empty cells among its threads (by default [`SPLIT_EMPTY`]):
    /// lower, the threads share smaller trees.
    pub fn split_at(mut self, empty: u32) -> Self {
        self.split_empty = empty;
        self
    }

    /// The table's entries that fit in `bytes`.
    pub fn table_bytes(&self) -> u64 {
        self.table.entries.len() as u64 * 8
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    /// Forgets every stored bound and score.
    pub fn clear(&self) {
        self.table.clear();
        self.solved_scores().clear();
    }

    /// The scores of the positions searched whole, even if a thread that
    /// held them panicked (each entry is written whole).
    fn solved_scores(&self) -> std::sync::MutexGuard<'_, rustc_hash::FxHashMap<u64, i32>> {
        self.solved
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The outcome of `position` (legal, of `game`), searched on `threads`
    /// threads; `stop` is polled and ends the search when it says so.
    pub fn solve(
        &self,
        game: &ConnectFour,
        position: &C4Position,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Outcome, Stopped> {
        let outcomes = self.solve_each(game, std::slice::from_ref(position), threads, stop)?;
        Ok(outcomes[0])
    }

    /// The outcomes of `positions` (legal, of `game`), one after the
    /// other (a mirror image of another is searched once), each on
    /// `threads` threads splitting its tree. `stop` is polled and ends
    /// the search when it says so.
    pub fn solve_each(
        &self,
        game: &ConnectFour,
        positions: &[C4Position],
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Outcome>, Stopped> {
        let cells = game.cells();
        // Each position's answer, or the job (a distinct key) that finds it.
        let mut answers: Vec<Result<Outcome, usize>> = Vec::with_capacity(positions.len());
        let mut jobs: Vec<(C4Position, u64)> = Vec::new();
        {
            let solved = self.solved_scores();
            for position in positions {
                if let Some(value) = game.primitive(position) {
                    answers.push(Ok(match value {
                        Value::Lose => Outcome::lose(0),
                        _ => Outcome::tie(0),
                    }));
                    continue;
                }
                let key = folded_key(game, position);
                if let Some(&score) = solved.get(&key) {
                    answers.push(Ok(outcome(cells, position.discs(), score)));
                } else if let Some(job) = jobs.iter().position(|&(_, k)| k == key) {
                    answers.push(Err(job));
                } else {
                    answers.push(Err(jobs.len()));
                    jobs.push((*position, key));
                }
            }
        }
        let scores = self.run_jobs(game, &jobs, threads.max(1), stop)?;
        let mut solved = self.solved_scores();
        if solved.len() + jobs.len() > SOLVED_KEPT {
            solved.clear();
        }
        for (&(_, key), &score) in jobs.iter().zip(&scores) {
            solved.insert(key, score);
        }
        Ok(answers
            .into_iter()
            .zip(positions)
            .map(|(answer, position)| {
                answer.unwrap_or_else(|job| outcome(cells, position.discs(), scores[job]))
            })
            .collect())
    }

    /// The exact scores of the `jobs`' positions (none over, each its own
    /// key), one after the other, each searched on `threads` threads.
    fn run_jobs(
        &self,
        game: &ConnectFour,
        jobs: &[(C4Position, u64)],
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<i32>, Stopped> {
        let pool = if threads > 1 {
            self.pool(threads)
        } else {
            None
        };
        let mut scores = Vec::with_capacity(jobs.len());
        for (position, _) in jobs {
            let mut worker = Worker {
                board: Board::of(game, position),
                table: &self.table,
                nodes: 0,
                order: &self.order,
                split_empty: if pool.is_some() {
                    self.split_empty as i32
                } else {
                    i32::MAX / 2
                },
                stop,
            };
            let found = match &pool {
                Some(pool) => pool.install(|| worker.solve(position)),
                None => worker.solve(position),
            };
            self.nodes.fetch_add(worker.nodes, Relaxed);
            scores.push(found.ok_or(Stopped)?);
        }
        Ok(scores)
    }

    /// The pool of `threads` threads the searches split their trees on,
    /// kept between searches; `None` if no thread can be started (the
    /// search then runs on the caller's thread alone).
    fn pool(&self, threads: usize) -> Option<Arc<rayon::ThreadPool>> {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool
            .as_ref()
            .is_none_or(|p| p.current_num_threads() != threads)
        {
            *pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("ply:search-{i}"))
                .build()
                .ok()
                .map(Arc::new);
        }
        pool.clone()
    }
}

/// The null window a lone search tries to narrow `min..=max` (min <
/// max): the middle, or half the bound on the side of 0 if that is
/// nearer 0 (scores near 0, long games, are the common ones).
fn halve(min: i32, max: i32) -> i32 {
    let med = min + (max - min) / 2;
    if med <= 0 && min / 2 < med {
        min / 2
    } else if med >= 0 && max / 2 > med {
        max / 2
    } else {
        med
    }
}

/// The key of `position` or of its mirror image, whichever is smaller:
/// the key the scores of whole searches are kept by.
fn folded_key(game: &ConnectFour, position: &C4Position) -> u64 {
    let key = position.mover + position.mask + game.bottom;
    key.min(mirror_key(key, game.stride(), game.width()))
}

/// The key of the mirror image of the position whose key is `key`, on a
/// board of `width` columns of `stride` bits: the columns reversed (a
/// key holds each column in its own bits: the mover's discs below a bit
/// above the column's discs).
#[inline]
fn mirror_key(key: u64, stride: u32, width: u32) -> u64 {
    let column = (1u64 << stride) - 1;
    (0..width).fold(0, |mirror, c| {
        mirror | ((key >> (c * stride)) & column) << ((width - 1 - c) * stride)
    })
}

impl Board {
    /// The constants of `game`'s board, for the search of `position`.
    fn of(game: &ConnectFour, position: &C4Position) -> Self {
        Board {
            stride: game.stride(),
            cells: game.cells(),
            bottom: game.bottom,
            full: game.board,
            width: game.width(),
            fold_up_to: if game.mirror(position) == *position {
                MIRROR_DISCS
            } else {
                0
            },
        }
    }
}

/// A move as the search orders it: its promise (the threats it makes),
/// its column, the position it leads to and that position's table key.
type Move = (u32, u32, C4Position, u64);

/// One thread's search.
struct Worker<'a> {
    board: Board,
    table: &'a Table,
    nodes: u64,
    /// The columns from the centre out.
    order: &'a [u32],
    /// The fewest empty cells of a position whose tree is split among
    /// the pool's threads (past the cells: never).
    split_empty: i32,
    stop: &'a (dyn Fn() -> bool + Sync),
}

/// The empty cells below which the table is not probed for the children
/// (their probes cost more than the cutoffs they find).
const ETC_EMPTY: i32 = 12;

/// The most discs on a position whose key is folded with its mirror
/// image's, in the search of a position that is its own mirror image:
/// deeper, the mirror of a position searched is seldom met, and folding
/// costs more than it saves. Below other positions, mirror images meet
/// too seldom to fold any.
const MIRROR_DISCS: u32 = 12;

/// The most scores of whole searches kept; past it they are forgotten.
const SOLVED_KEPT: usize = 1 << 16;

/// Nodes between polls of the stop flag.
const POLL: u64 = 1 << 12;

/// The fewest empty cells of a position whose moves past the first are
/// searched side by side, by default: on 7x6, positions of at most 16
/// discs. Splitting deeper costs more than it gains (2026-12-06, nine
/// positions' moves on two threads: 22 empty cells 10.98 s, 26 10.14 s,
/// 30 10.37 s; one thread 15.38 s).
pub const SPLIT_EMPTY: u32 = 26;

impl Worker<'_> {
    /// The cells where `discs` would complete four.
    #[inline]
    fn wins(&self, discs: u64, mask: u64) -> u64 {
        let s = self.board.stride;
        // Vertical: three below.
        let mut r = (discs << 1) & (discs << 2) & (discs << 3);
        for d in [s, s - 1, s + 1] {
            let p = (discs << d) & (discs << (2 * d));
            r |= p & (discs << (3 * d));
            r |= p & (discs >> d);
            let p = (discs >> d) & (discs >> (2 * d));
            r |= p & (discs << d);
            r |= p & (discs >> (3 * d));
        }
        r & (self.board.full ^ mask)
    }

    #[inline]
    fn possible(&self, mask: u64) -> u64 {
        (mask + self.board.bottom) & self.board.full
    }

    /// The moves that do not let the opponent win at once: a forced
    /// block if there is one threat, none if two.
    #[inline]
    fn non_losing(&self, p: &C4Position) -> u64 {
        let mut possible = self.possible(p.mask);
        let threats = self.wins(p.other(), p.mask);
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    #[inline]
    fn can_win_next(&self, p: &C4Position) -> bool {
        self.wins(p.mover, p.mask) & self.possible(p.mask) != 0
    }

    /// The position's key, the same for its mirror image: the smaller
    /// of the two images' `mover + mask + bottom` (a bit above each
    /// column's discs, the mover's discs below it); and whether it is
    /// the mirror's.
    #[inline]
    fn key(&self, p: &C4Position) -> (u64, bool) {
        let key = p.mover + p.mask + self.board.bottom;
        if p.discs() > self.board.fold_up_to {
            return (key, false);
        }
        let mirror = mirror_key(key, self.board.stride, self.board.width);
        if mirror < key {
            (mirror, true)
        } else {
            (key, false)
        }
    }

    /// The exact score of `p`, found by null windows that halve its
    /// range, or `None` if stopped.
    fn solve(&mut self, p: &C4Position) -> Option<i32> {
        let n = p.discs() as i32;
        let cells = self.board.cells as i32;
        let (mut min, mut max) = if self.can_win_next(p) {
            ((cells + 1 - n) / 2, (cells + 1 - n) / 2)
        } else {
            (-(cells - n) / 2, (cells + 1 - n) / 2)
        };
        while min < max {
            let med = halve(min, max);
            let r = self.negamax(p, med, med + 1)?;
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Some(min)
    }

    /// The score of `p` (whose mover cannot win at once) if within
    /// `alpha..beta`, else a bound on the side it falls.
    fn negamax(&mut self, p: &C4Position, mut alpha: i32, mut beta: i32) -> Option<i32> {
        let nodes = self.nodes;
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL) && (self.stop)() {
            return None;
        }
        let n = p.discs() as i32;
        let cells = self.board.cells as i32;
        let next = self.non_losing(p);
        if next == 0 {
            return Some(-(cells - n) / 2);
        }
        if n >= cells - 2 {
            return Some(0);
        }
        let min = -(cells - 2 - n) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return Some(alpha);
            }
        }
        let mut max = (cells - 1 - n) / 2;
        let (key, mirrored) = self.key(p);
        let entry = self.table.get(key);
        if let Some((lower, bound)) = entry.bound {
            if lower {
                if alpha < bound {
                    alpha = bound;
                    if alpha >= beta {
                        return Some(alpha);
                    }
                }
            } else if bound < max {
                max = bound;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return Some(beta);
            }
        }
        let w = self.board.width;
        // The column (as this position sees it) of the table's best move.
        let first = match entry.best {
            0 => u32::MAX,
            b if mirrored => w - b as u32,
            b => b as u32 - 1,
        };
        // The table's move first, then by the threats they make, then
        // column order; at most 9 moves.
        let mut moves: [Move; 9] = [(0, 0, C4Position { mask: 0, mover: 0 }, 0); 9];
        let mut len = 0;
        for i in 0..w as usize {
            let c = self.order[i];
            let cell = next & self.column(c);
            if cell == 0 {
                continue;
            }
            // The child's entry is read soon, by the probes below or by
            // the child itself: ask for all of them at once.
            let child = C4Position {
                mask: p.mask | cell,
                mover: p.other(),
            };
            let key = self.key(&child).0;
            self.table.prefetch(key);
            let threats = if c == first {
                u32::MAX
            } else {
                self.wins(p.mover | cell, p.mask).count_ones()
            };
            let mut j = len;
            while j > 0 && moves[j - 1].0 < threats {
                moves[j] = moves[j - 1];
                j -= 1;
            }
            moves[j] = (threats, c, child, key);
            len += 1;
        }
        // A child the table bounds at or below -beta refutes the window
        // before any is searched (enhanced transposition cutoff).
        for &(_, _, _, key) in &moves[..len * usize::from(n + ETC_EMPTY <= cells)] {
            if let Some((false, bound)) = self.table.get(key).bound
                && -bound >= beta
            {
                return Some(-bound);
            }
        }
        // Young brothers wait: where the tree is split, the first move
        // alone, then the others side by side.
        let alone = if len > 1 && n + self.split_empty <= cells {
            1
        } else {
            len
        };
        for (i, &(_, c, child, _)) in moves[..len].iter().enumerate() {
            let cut = if i < alone {
                let score = -self.negamax(&child, -beta, -alpha)?;
                (score >= beta).then_some((score, c)).ok_or(score)
            } else {
                match self.brothers(&moves[i..len], alpha, beta)? {
                    Some(cut) => Ok(cut),
                    None => break,
                }
            };
            match cut {
                Ok((score, c)) => {
                    let stored = if mirrored { w - c } else { c + 1 };
                    self.table
                        .put(key, true, score, stored as u64, self.nodes - nodes);
                    return Some(score);
                }
                Err(score) if score > alpha => alpha = score,
                Err(_) => {}
            }
        }
        self.table
            .put(key, false, alpha, entry.best, self.nodes - nodes);
        Some(alpha)
    }

    /// Searches `moves` side by side on the pool's threads, each
    /// with the window `alpha..beta` (a null window, so no move's score
    /// narrows it for the others): the first to reach `beta` stops the
    /// rest. The score and column of that move, `Some(None)` if every
    /// move fails low, `None` if stopped.
    fn brothers(&mut self, moves: &[Move], alpha: i32, beta: i32) -> Option<Option<(i32, u32)>> {
        // The cutoff's score and column, packed, or 0.
        let cut = AtomicU64::new(0);
        let halted = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let (board, table, order, split_empty) =
            (self.board, self.table, self.order, self.split_empty);
        let parent = self.stop;
        let stop = || cut.load(Relaxed) != 0 || parent();
        moves.par_iter().for_each(|&(_, c, child, _)| {
            // A task polls the stop flag as it begins: many end before
            // their first poll.
            if cut.load(Relaxed) != 0 {
                return;
            }
            if parent() {
                halted.store(true, Relaxed);
                return;
            }
            let mut worker = Worker {
                board,
                table,
                nodes: 0,
                order,
                split_empty,
                stop: &stop,
            };
            match worker.negamax(&child, -beta, -alpha) {
                Some(score) if -score >= beta => {
                    let packed = ((-score + OFFSET) as u64) << 8 | u64::from(c + 1);
                    let _ = cut.compare_exchange(0, packed, Relaxed, Relaxed);
                }
                Some(_) => {}
                None => {
                    if cut.load(Relaxed) == 0 {
                        halted.store(true, Relaxed);
                    }
                }
            }
            nodes.fetch_add(worker.nodes, Relaxed);
        });
        self.nodes += nodes.into_inner();
        match cut.into_inner() {
            0 if halted.into_inner() => None,
            0 => Some(None),
            packed => Some(Some((
                (packed >> 8) as i32 - OFFSET,
                (packed & 0xff) as u32 - 1,
            ))),
        }
    }

    #[inline]
    fn column(&self, c: u32) -> u64 {
        let s = self.board.stride;
        ((1u64 << (s - 1)) - 1) << (c * s)
    }
}

/// A searcher and the threads it searches on.
pub struct Search {
    searcher: Searcher,
    threads: usize,
}

/// Any position, alone: the search reads no stored tier.
impl ply_core::Searched for ConnectFour {
    type Searcher = Search;

    fn searcher(&self, bytes: u64, threads: usize) -> Search {
        Search {
            searcher: Searcher::new(self, bytes),
            threads,
        }
    }

    fn search<E: Send>(
        &self,
        search: &mut Search,
        position: &C4Position,
        _stored: &(dyn Fn(&C4Position) -> Result<Outcome, E> + Sync),
        progress: &dyn ply_core::Progress,
    ) -> Result<Outcome, ply_core::SearchStop<E>> {
        search
            .searcher
            .solve(self, position, search.threads, &|| progress.cancelled())
            .map_err(|Stopped| ply_core::SearchStop::Cancelled)
    }

    /// The positions at once, on the searcher's threads: a position's
    /// moves are searched side by side ([`Searcher::solve_each`]).
    fn search_each<E: Send>(
        &self,
        search: &mut Search,
        positions: &[C4Position],
        _stored: &(dyn Fn(&C4Position) -> Result<Outcome, E> + Sync),
        progress: &dyn ply_core::Progress,
    ) -> Result<Vec<Outcome>, ply_core::SearchStop<E>> {
        search
            .searcher
            .solve_each(self, positions, search.threads, &|| progress.cancelled())
            .map_err(|Stopped| ply_core::SearchStop::Cancelled)
    }

    fn searched_nodes(&self, search: &Search) -> u64 {
        search.searcher.nodes()
    }
}
