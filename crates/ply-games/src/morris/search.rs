//! The placing phase answered by search over the moving phase: for
//! [`Morris::moving_phase`], whose tiers hold the moving phase only, a
//! position with stones in hand is solved by alpha-beta search down to the
//! positions where placing is over, whose outcomes the caller looks up (in
//! the moving-phase database).
//!
//! Placing never loops (every move lowers a hand), so the search is a plain
//! negamax over a finite tree, exact in value and remoteness. A score
//! encodes both, relative to the position it belongs to: a win in `r` plies
//! is `WIN - r`, a loss in `r` is `r - WIN`, a draw 0, so a faster win and a
//! slower loss score higher. A parent's score from a child's is minus it,
//! moved one step away from 0 for wins and losses ([`up`]). Scores do not
//! depend on the depth they are met at, so leaves and table entries are
//! exact wherever they are met. The value comes from one search with the
//! window (-1, 1), which only asks win, draw or loss; the remoteness of a
//! win or loss from a bisection with null windows, mostly replaying the
//! table.
//!
//! The transposition table is keyed by the global index of the game
//! ([`ply_core::Indexed::rank`]), which folds the 16 symmetries: an entry
//! keeps the key whole, so a hit is never a stranger. It holds bounds on
//! placing positions and the exact outcomes of the leaves looked up. A key
//! has a bucket of [`WAYS`] entries, one cache line; a key new to a full
//! bucket replaces the entry with the fewest stones in hand, the one whose
//! search cost least. Leaves are met far more often than any other
//! position, and in a table replaced by one entry per slot they push out
//! the placing positions near the root, whose searches cost the most: the
//! empty board did not finish in 97 minutes with 64 MiB that way.
//!
//! A search polls [`Progress::cancelled`] every few thousand positions and
//! stops with [`SearchStop::Cancelled`]; what the table learnt stays exact.
//! [`Searched`] for Morris is this search, over the stored moving phase.

use super::index::Sector;
use super::{Morris, Stones};
use ply_core::{
    Game, Indexed, NamedTiers, Outcome, Progress, Remoteness, SearchStop, Searched, Value,
};
use portable_atomic::AtomicU128;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The score of winning at once.
const WIN: i32 = 1 << 24;

/// Positions visited between two polls of [`Progress::cancelled`].
const POLL_NODES: u64 = 1 << 12;

/// The score of `outcome` (see the module docs).
fn score(outcome: Outcome) -> i32 {
    let r = outcome.remoteness.unwrap_or(0).min(WIN as Remoteness / 2) as i32;
    match outcome.value {
        Value::Win => WIN - r,
        Value::Lose => r - WIN,
        Value::Draw | Value::Tie => 0,
    }
}

/// The outcome a score stands for.
fn outcome(score: i32) -> Outcome {
    match score.signum() {
        1 => Outcome::win((WIN - score) as Remoteness),
        -1 => Outcome::lose((WIN + score) as Remoteness),
        _ => Outcome::DRAW,
    }
}

/// A parent's score from its child's `score`.
fn up(score: i32) -> i32 {
    match score.signum() {
        1 => 1 - score,
        -1 => -1 - score,
        _ => 0,
    }
}

/// The inverse of [`up`]: the child's window bound standing for the
/// parent's `bound`.
fn down(bound: i32) -> i32 {
    match bound.signum() {
        1 => -1 - bound,
        -1 => 1 - bound,
        _ => 0,
    }
}

/// Where a move from `position` goes in the search order, lower first:
/// moves that remove a stone, then those that block a mill the other player
/// threatens, then those that add to the mover's own open lines.
fn order(game: &Morris, position: &Stones, step: super::Step) -> u8 {
    if step.remove != super::NONE {
        return 0;
    }
    let (mover, other, _, _) = position.sides();
    let mut rank = 8u8;
    for mill in game.geometry().mills_through[usize::from(step.to)] {
        let (mine, theirs) = ((mill & mover).count_ones(), (mill & other).count_ones());
        if theirs == 2 {
            rank = rank.saturating_sub(4);
        } else if theirs == 0 && mine == 1 {
            rank = rank.saturating_sub(1);
        }
    }
    rank
}

/// Entries in one bucket of the table: 4 of 16 bytes, a cache line.
const WAYS: usize = 4;

/// Bits of an entry's tag that hold the key plus one; the bits above hold
/// the stones in hand.
const KEY_BITS: u32 = 56;

/// One table entry: its tag (0 for an empty entry; else the position's
/// key plus one, and above it the stones left in both hands, which rank
/// what the position's search cost) and bounds on its score. In the table
/// it is one 128-bit word ([`Entry::pack`]), read and written whole, so
/// that searches on several threads never see half of one entry and half
/// of another.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct Entry {
    tag: u64,
    lower: i32,
    upper: i32,
}

impl Entry {
    /// Whether the entry is the position with `key`'s.
    fn holds(&self, key: u64) -> bool {
        self.tag & ((1 << KEY_BITS) - 1) == key + 1
    }

    /// What the entry is worth keeping: empty entries least, then by the
    /// stones left in hand.
    fn worth(&self) -> (bool, u64) {
        (self.tag != 0, self.tag >> KEY_BITS)
    }

    /// The entry as one word: the tag, then the bounds.
    fn pack(self) -> u128 {
        u128::from(self.tag)
            | u128::from(self.lower as u32) << 64
            | u128::from(self.upper as u32) << 96
    }

    /// The inverse of [`Entry::pack`].
    fn unpack(word: u128) -> Entry {
        Entry {
            tag: word as u64,
            lower: (word >> 64) as u32 as i32,
            upper: (word >> 96) as u32 as i32,
        }
    }
}

/// The entries of one slot of the table, on one cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Bucket([AtomicU128; WAYS]);

/// A searcher with its transposition table, shared by the threads that
/// search. Keep one per game and reuse it: what it learnt stays valid for
/// later searches over the same moving-phase database.
pub struct PlacingSearch {
    table: Vec<Bucket>,
    /// Threads that search each position asked.
    threads: usize,
    nodes: AtomicU64,
    leaves: AtomicU64,
}

/// Why one thread's search stopped without a score.
enum Halt<E> {
    /// The whole search stops ([`SearchStop`]).
    Stop(SearchStop<E>),
    /// Another thread found the score first.
    Beaten,
}

/// One thread's part of a search: the table it shares, and its own
/// children and counts.
struct Worker<'a, E> {
    search: &'a PlacingSearch,
    game: &'a Morris,
    leaf: &'a (dyn Fn(&Stones) -> Result<Outcome, E> + Sync),
    progress: &'a dyn Progress,
    /// Set when some thread has the score: the others give up.
    done: &'a AtomicBool,
    /// This thread's number: thread `t` of `n` starts the moves of the
    /// first [`SPLIT_DEPTH`] plies `t / n` of the way along their order,
    /// so that threads begin in different subtrees and meet each other's
    /// results in the table.
    turn: usize,
    /// Children at each depth, reused between nodes: the move's place in
    /// the search order (lower first, see [`order`]), the position it
    /// leads to, and that position's key once ranked (never for a
    /// primitive position).
    children: Vec<Vec<(u8, Stones, Option<u64>)>>,
    nodes: u64,
    leaves: u64,
}

/// Plies from the root over which threads take the moves in different
/// orders ([`Worker::turn`]).
const SPLIT_DEPTH: usize = 2;

impl PlacingSearch {
    /// A searcher whose table has `entries` entries (rounded up to whole
    /// buckets, at least one), on huge pages if it is big (every position
    /// visited probes it at random), searching on `threads` threads (at
    /// least one).
    pub fn new(entries: u64, threads: usize) -> PlacingSearch {
        PlacingSearch {
            table: ply_core::huge_vec(Self::buckets(entries) as usize, |_| Bucket::default()),
            threads: threads.max(1),
            nodes: AtomicU64::new(0),
            leaves: AtomicU64::new(0),
        }
    }

    /// The table entries that fit in `bytes`.
    pub fn entries_within(bytes: u64) -> u64 {
        (bytes / std::mem::size_of::<Entry>() as u64).max(1)
    }

    /// The bytes the table of a searcher made with `entries` takes.
    pub fn bytes_for(entries: u64) -> u64 {
        Self::buckets(entries) * std::mem::size_of::<Bucket>() as u64
    }

    /// The buckets of a table of `entries` entries.
    fn buckets(entries: u64) -> u64 {
        entries.div_ceil(WAYS as u64).max(1)
    }

    /// Positions visited by every search so far, on every thread.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    /// Moving-phase positions looked up by every search so far.
    pub fn leaves(&self) -> u64 {
        self.leaves.load(Relaxed)
    }

    /// The exact outcome of `position` for the player to move, looking up
    /// each position with both hands empty through `leaf`.
    pub fn solve<E: Send>(
        &self,
        game: &Morris,
        position: &Stones,
        leaf: &(dyn Fn(&Stones) -> Result<Outcome, E> + Sync),
        progress: &dyn Progress,
    ) -> Result<Outcome, SearchStop<E>> {
        let search = |alpha, beta| self.search(game, position, leaf, progress, alpha, beta);
        let first = search(-1, 1)?;
        if first == 0 {
            return Ok(Outcome::DRAW);
        }
        // The first search bounds the score on one side; bisect the rest.
        let (mut low, mut high) = if first > 0 {
            (first, WIN)
        } else {
            (-WIN, first)
        };
        while low < high {
            let mid = low + (high - low) / 2;
            let found = search(mid, mid + 1)?;
            if found > mid {
                low = low.max(found);
            } else {
                high = high.min(found);
            }
        }
        Ok(outcome(low))
    }

    /// The score of `position` in the window (alpha, beta), fail-soft, from
    /// whichever thread finds it first.
    fn search<E: Send>(
        &self,
        game: &Morris,
        position: &Stones,
        leaf: &(dyn Fn(&Stones) -> Result<Outcome, E> + Sync),
        progress: &dyn Progress,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, SearchStop<E>> {
        let done = AtomicBool::new(false);
        let found: Mutex<Option<Result<i32, SearchStop<E>>>> = Mutex::new(None);
        let run = |turn: usize| {
            let mut worker = Worker {
                search: self,
                game,
                leaf,
                progress,
                done: &done,
                turn,
                children: Vec::new(),
                nodes: 0,
                leaves: 0,
            };
            let result = worker.negamax(position, None, 0, alpha, beta);
            self.nodes.fetch_add(worker.nodes, Relaxed);
            self.leaves.fetch_add(worker.leaves, Relaxed);
            let result = match result {
                Ok(score) => Ok(score),
                Err(Halt::Stop(stop)) => Err(stop),
                Err(Halt::Beaten) => return,
            };
            let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
            if found.is_none() {
                *found = Some(result);
                done.store(true, Relaxed);
            }
        };
        std::thread::scope(|scope| {
            for turn in 1..self.threads {
                scope.spawn(move || run(turn));
            }
            run(0);
        });
        found
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .expect("some thread finishes the search")
    }

    /// The bucket of `key`.
    fn slot(&self, key: u64) -> &Bucket {
        // Fibonacci hashing spreads neighbouring indices apart.
        let slot = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) % self.table.len() as u64;
        &self.table[slot as usize]
    }

    /// The table's entry for the position with `key`, if it has one.
    fn probe(&self, key: u64) -> Option<Entry> {
        self.slot(key)
            .0
            .iter()
            .map(|word| Entry::unpack(word.load(Relaxed)))
            .find(|entry| entry.holds(key))
    }

    /// Keeps in the table that the score of the position with `key` and
    /// `in_hand` stones in both hands lies in `lower..=upper`: in its
    /// entry if it has one, else in place of the bucket's least worth
    /// keeping ([`Entry::worth`]). Another thread's store to the same
    /// bucket at the same moment may be lost, never mixed with this one:
    /// each entry is written whole.
    fn store(&self, key: u64, in_hand: u8, lower: i32, upper: i32) {
        debug_assert!(key + 1 < 1 << KEY_BITS, "a key of {KEY_BITS} bits");
        let bucket = &self.slot(key).0;
        let entries = bucket
            .each_ref()
            .map(|word| Entry::unpack(word.load(Relaxed)));
        let (way, entry) = match entries.iter().position(|entry| entry.holds(key)) {
            Some(way) => (
                way,
                Entry {
                    lower: entries[way].lower.max(lower),
                    upper: entries[way].upper.min(upper),
                    ..entries[way]
                },
            ),
            None => {
                // The first of the least worth keeping.
                let way = (1..WAYS).fold(0, |least, way| {
                    if entries[way].worth() < entries[least].worth() {
                        way
                    } else {
                        least
                    }
                });
                let tag = (u64::from(in_hand) << KEY_BITS) | (key + 1);
                (way, Entry { tag, lower, upper })
            }
        };
        bucket[way].store(entry.pack(), Relaxed);
    }
}

impl<E> Worker<'_, E> {
    /// The score of `position`, `depth` plies below the root, if it lies
    /// strictly inside (alpha, beta); otherwise a bound on the far side of
    /// the window (fail-soft).
    fn negamax(
        &mut self,
        position: &Stones,
        key: Option<u64>,
        depth: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<i32, Halt<E>> {
        let (game, table) = (self.game, self.search);
        self.nodes += 1;
        if self.done.load(Relaxed) {
            return Err(Halt::Beaten);
        }
        if self.nodes.is_multiple_of(POLL_NODES) {
            if self.progress.cancelled() {
                return Err(Halt::Stop(SearchStop::Cancelled));
            }
            if self.turn == 0 {
                self.progress.advance(self.nodes);
            }
        }
        let key = match key {
            Some(key) => key,
            None => {
                if let Some(value) = game.primitive(position) {
                    return Ok(score(Outcome::terminal(value)));
                }
                game.rank(position)
            }
        };
        if let Some(known) = table.probe(key) {
            if known.lower >= beta || known.lower == known.upper {
                return Ok(known.lower);
            }
            if known.upper <= alpha {
                return Ok(known.upper);
            }
            alpha = alpha.max(known.lower);
            beta = beta.min(known.upper);
        }
        if position.hand == [0, 0] {
            self.leaves += 1;
            let found = score((self.leaf)(position).map_err(|e| Halt::Stop(SearchStop::Leaf(e)))?);
            table.store(key, 0, found, found);
            return Ok(found);
        }
        let in_hand = position.hand[0] + position.hand[1];
        let (alpha_searched, beta_searched) = (alpha, beta);
        if self.children.len() <= depth {
            self.children.resize_with(depth + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.children[depth]);
        children.clear();
        game.for_each_step(position, |step, child| {
            children.push((order(game, position, step), child, None));
        });
        children.sort_by_key(|&(rank, _, _)| rank);
        if depth < SPLIT_DEPTH {
            let start = children.len() * self.turn / table.threads;
            children.rotate_left(start);
        }
        // A child the table already bounds low enough ends the search here,
        // before any child is searched (an enhanced transposition cutoff).
        // Each child's key is kept for its own search.
        for (_, child, child_key) in &mut children {
            if game.primitive(child).is_some() {
                continue;
            }
            let ranked = game.rank(child);
            *child_key = Some(ranked);
            if let Some(known) = table.probe(ranked)
                && up(known.upper) >= beta
            {
                let found = up(known.upper);
                self.children[depth] = children;
                table.store(key, in_hand, found, WIN);
                return Ok(found);
            }
        }
        let mut best = i32::MIN;
        let mut result = Ok(());
        for &(_, child, child_key) in &children {
            let found = match self.negamax(&child, child_key, depth + 1, down(beta), down(alpha)) {
                Ok(found) => up(found),
                Err(halt) => {
                    result = Err(halt);
                    break;
                }
            };
            if found > best {
                best = found;
                if found > alpha {
                    alpha = found;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.children[depth] = children;
        result?;
        let (lower, upper) = if best <= alpha_searched {
            (-WIN, best)
        } else if best >= beta_searched {
            (best, WIN)
        } else {
            (best, best)
        };
        table.store(key, in_hand, lower, upper);
        Ok(best)
    }
}

/// The moving-phase game ([`Morris::moving_only`]) answers placing
/// positions by [`PlacingSearch`] over its stored tiers, or reads them
/// from the whole game's database where it is stored.
impl Searched for Morris {
    type Searcher = PlacingSearch;

    fn searched_only(&self, position: &Stones) -> bool {
        self.moving_only() && matches!(self.tier_of(position), Sector::Placing { .. })
    }

    fn search_reads_stored(&self) -> bool {
        true
    }

    fn storing_all(&self) -> Option<Morris> {
        self.moving_only()
            .then(|| Morris::new(self.stones()).packed_by(self.packing))
    }

    fn searcher(&self, bytes: u64, threads: usize) -> PlacingSearch {
        PlacingSearch::new(PlacingSearch::entries_within(bytes), threads)
    }

    fn search<E: Send>(
        &self,
        searcher: &mut PlacingSearch,
        position: &Stones,
        stored: &(dyn Fn(&Stones) -> Result<Outcome, E> + Sync),
        progress: &dyn Progress,
    ) -> Result<Outcome, SearchStop<E>> {
        searcher.solve(self, position, stored, progress)
    }

    fn searched_nodes(&self, searcher: &PlacingSearch) -> u64 {
        searcher.nodes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::Sector;
    use super::super::tests::{Rng, random_in};
    use super::*;
    use ply_core::check::solve_tiers;
    use ply_core::{NamedTiers, NoProgress, Solution};
    use std::convert::Infallible;

    /// Solves `morris:stones` whole and in the moving-phase mode, then
    /// checks that the search over the moving phase, with a table of
    /// `entries` on `threads` threads, gives the whole game's outcome on
    /// the start, its moves, and `samples` random placing positions with
    /// each of their moves.
    fn search_equals_the_whole_game(stones: u8, entries: u64, threads: usize, samples: usize) {
        let whole = Morris::new(stones);
        let moving = Morris::moving_phase(stones);
        // Each test its own directories: tests run at once.
        let name = format!("morris-{stones}-{entries}-{threads}");
        let (truth_plan, truth) = solve_tiers(&whole, &format!("{name}-truth"));
        let (plan, stored) = solve_tiers(&moving, &format!("{name}-stored"));
        let expect = |p: &Stones| {
            let key = truth_plan.key(&whole, p).expect("in the whole game");
            truth.cell(key).unwrap().unpack().expect("solved")
        };
        let leaf = |p: &Stones| -> Result<Outcome, Infallible> {
            let key = plan.key(&moving, p).expect("in the moving phase");
            Ok(stored.cell(key).unwrap().unpack().expect("solved"))
        };
        let search = PlacingSearch::new(entries, threads);
        let check = |p: &Stones| {
            let found = search.solve(&moving, p, &leaf, &NoProgress).unwrap();
            assert_eq!(found, expect(p), "{}", moving.format_position(p));
            found
        };
        let placing: Vec<Sector> = whole
            .tiers()
            .into_iter()
            .filter(|t| matches!(t, Sector::Placing { .. }))
            .collect();
        let mut rng = Rng(2026);
        let mut positions = vec![moving.start()];
        while positions.len() <= samples {
            let sector = placing[rng.below(placing.len() as u64) as usize];
            positions.extend(random_in(&whole, sector, &mut rng));
        }
        let mut values = std::collections::BTreeSet::new();
        for position in &positions {
            values.insert(check(position).value.as_str());
            if moving.primitive(position).is_none() {
                moving.for_each_move(position, |_, child| {
                    if child.hand != [0, 0] {
                        check(&child);
                    }
                });
            }
        }
        assert_eq!(values.len(), 3, "wins, losses and draws met: {values:?}");
        assert!(search.leaves() > 0);
    }

    #[test]
    fn the_search_equals_the_whole_game_on_morris_4() {
        search_equals_the_whole_game(4, 1 << 16, 1, 3000);
    }

    #[test]
    fn a_table_of_a_few_buckets_still_gives_the_whole_game_s_outcomes() {
        // Entries are replaced at almost every store: what the table keeps
        // must stay exact whatever it gives up.
        search_equals_the_whole_game(4, 4 * WAYS as u64, 1, 300);
    }

    #[test]
    fn the_search_equals_the_whole_game_on_morris_3() {
        search_equals_the_whole_game(3, 1 << 16, 1, 1000);
    }

    #[test]
    fn threads_sharing_the_table_give_the_whole_game_s_outcomes() {
        // Three threads on a small table: they race for its buckets, and
        // each search is won by whichever thread finishes first.
        search_equals_the_whole_game(4, 1 << 10, 3, 150);
    }

    #[test]
    fn an_entry_packs_into_one_word_and_back() {
        for entry in [
            Entry::default(),
            Entry {
                tag: (18 << KEY_BITS) | 12_345_678_901,
                lower: -WIN,
                upper: WIN,
            },
            Entry {
                tag: 1,
                lower: -7,
                upper: -7,
            },
        ] {
            assert_eq!(Entry::unpack(entry.pack()), entry);
        }
    }

    #[test]
    fn a_full_bucket_gives_up_its_entry_with_fewest_stones_in_hand() {
        // One bucket: every key shares it.
        let search = PlacingSearch::new(1, 1);
        assert_eq!(search.table.len(), 1);
        for (key, in_hand) in [(10, 5), (11, 0), (12, 3), (13, 1)] {
            search.store(key, in_hand, -WIN, WIN);
        }
        search.store(14, 0, 7, 7);
        let held = |search: &PlacingSearch| {
            (10..16)
                .filter(|&key| search.probe(key).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(held(&search), [10, 12, 13, 14]);
        search.store(15, 2, 0, 0);
        assert_eq!(held(&search), [10, 12, 13, 15]);
        // A key already held narrows its bounds in place.
        search.store(10, 5, -3, WIN);
        search.store(10, 5, -WIN, 9);
        let entry = search.probe(10).unwrap();
        assert_eq!((entry.lower, entry.upper), (-3, 9));
        assert_eq!(held(&search), [10, 12, 13, 15]);
    }

    #[test]
    fn a_child_s_score_gives_the_parent_s_and_windows_map_back() {
        for (child, parent) in [
            (Outcome::lose(0), Outcome::win(1)),
            (Outcome::lose(7), Outcome::win(8)),
            (Outcome::win(1), Outcome::lose(2)),
            (Outcome::DRAW, Outcome::DRAW),
        ] {
            assert_eq!(outcome(up(score(child))), parent);
            assert_eq!(outcome(score(child)), child);
        }
        for bound in [-WIN, -5 - WIN / 2, -1, 0, 1, 9, WIN - 3, WIN] {
            assert_eq!(up(down(bound)), bound);
        }
        // A faster win and a slower loss score higher.
        assert!(score(Outcome::win(3)) > score(Outcome::win(5)));
        assert!(score(Outcome::lose(5)) > score(Outcome::lose(3)));
        assert!(score(Outcome::lose(100)) < score(Outcome::DRAW));
    }
}
