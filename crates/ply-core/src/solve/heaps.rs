//! The Grundy values of an octal game's heaps as a sum of components needs
//! them ([`crate::Decompose`]): kept, grown when a larger heap turns up, and
//! seeded from the values ply ships (octal game 0.007 up to 2^20, the
//! heaps of Treblecross), so that the game states which octal game its
//! components are and the engine does the rest.

use super::octal::{self, OctalCode};
use crate::error::SolveError;
use crate::progress::Progress;
use crate::value::Remoteness;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

/// The values of 0.007 for heaps `0..=SHIPPED_HEAP`, little-endian `u16`,
/// written by `ply octal 0.007 --up-to 1048576 --values --json` (see
/// `data/README.md`): computing them takes about a minute of CPU.
static SHIPPED_0_007: &[u8] = include_bytes!("../../data/0.007.u16le");

/// The values ply ships for `code`, if any, decoded once.
pub fn shipped(code: &OctalCode) -> Option<Arc<Vec<u16>>> {
    static VALUES: OnceLock<Arc<Vec<u16>>> = OnceLock::new();
    (code.text() == "0.007").then(|| {
        VALUES
            .get_or_init(|| {
                Arc::new(
                    SHIPPED_0_007
                        .chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]]))
                        .collect(),
                )
            })
            .clone()
    })
}

/// One octal game's heap values: those shipped (or none), grown by
/// computing afresh when a larger heap needs more. A session keeps one and
/// answers many queries from it.
///
/// Growing computes outside the lock readers take, so queries the current
/// values cover never wait; one grower at a time, and a grower waiting for
/// another gives up when its progress is cancelled.
#[derive(Debug)]
pub struct HeapValues {
    code: OctalCode,
    /// The largest heap ever computed (a bound on memory and time).
    most: usize,
    values: RwLock<Arc<Vec<u16>>>,
    growing: Mutex<()>,
}

impl HeapValues {
    /// The values of `code`'s heaps, growing to at most `most`; starts from
    /// the shipped ones, or the empty heap alone.
    pub fn new(code: OctalCode, most: usize) -> Self {
        let values = shipped(&code).unwrap_or_else(|| Arc::new(vec![0]));
        Self {
            code,
            most,
            values: RwLock::new(values),
            growing: Mutex::new(()),
        }
    }

    /// The most bytes the values may take: the largest table, and the
    /// one it replaces while it grows.
    pub fn bytes_bound(&self) -> u64 {
        2 * (self.most as u64 + 1) * std::mem::size_of::<u16>() as u64
    }

    /// The game.
    pub fn code(&self) -> &OctalCode {
        &self.code
    }

    /// The values known now (heaps `0..len`).
    pub fn current(&self) -> Arc<Vec<u16>> {
        self.values
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The values of at least heaps `0..=heap`, computed now (reporting to
    /// `progress`, stopping if it is cancelled) if they are not yet known.
    /// Growing at least doubles what is known, so a run of ever longer
    /// queries costs little more than the longest.
    pub fn up_to(&self, heap: usize, progress: &dyn Progress) -> Result<Arc<Vec<u16>>, SolveError> {
        let current = self.current();
        if current.len() > heap {
            return Ok(current);
        }
        if heap > self.most {
            return Err(SolveError::Unsupported(format!(
                "a heap of {heap} tokens of {}: at most {} are computed",
                self.code.text(),
                self.most
            )));
        }
        let _grower = loop {
            match self.growing.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(e)) => break e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    if progress.cancelled() {
                        return Err(SolveError::Cancelled(
                            "the heap values were not computed: stopped".into(),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        };
        let current = self.current();
        if current.len() > heap {
            return Ok(current);
        }
        let target = heap.max(2 * current.len()).min(self.most);
        let values = octal::compute(&self.code, target, progress)?;
        if progress.cancelled() || values.values.len() <= heap {
            return Err(SolveError::Cancelled(
                "the heap values were not computed: stopped".into(),
            ));
        }
        let values = Arc::new(values.values);
        *self.values.write().unwrap_or_else(|e| e.into_inner()) = values.clone();
        Ok(values)
    }
}

/// The most live tokens (see [`SumSearch::live_tokens`]) a sum may hold for
/// [`SumSearch`] to find its remoteness: the search is exact but
/// exponential in them.
pub const SEARCH_LIMIT: usize = 40;

/// The most bytes a [`SumSearch`]'s memo takes, about: past it the memo
/// starts again empty, so a long-lived session stays within its
/// memory bound however many queries it answers.
pub const SEARCH_MEMO_BYTES: usize = 16 << 20;

/// About the bytes one memo entry of `len` heaps takes: the boxed heaps, the
/// map's slot and control byte, and the allocator's header.
fn memo_entry_bytes(len: usize) -> usize {
    len * std::mem::size_of::<usize>() + 48
}

/// Exact remoteness of sums of heaps of one octal game under normal play
/// (who cannot move loses, in 0), by memoised search over multisets of
/// heaps: remoteness does not follow from nimbers. Keep one per game; it
/// learns across queries.
#[derive(Debug)]
pub struct SumSearch {
    code: OctalCode,
    /// The smallest heap with a move.
    smallest_live: usize,
    memo: HashMap<Box<[usize]>, (bool, Remoteness)>,
    /// About the bytes of `memo` (see [`SEARCH_MEMO_BYTES`]).
    memo_bytes: usize,
    /// The most bytes `memo` takes before it starts again empty.
    memo_limit: usize,
}

impl SumSearch {
    /// A search over sums of `code`'s heaps, its memo within
    /// [`SEARCH_MEMO_BYTES`].
    pub fn new(code: OctalCode) -> Self {
        Self::with_memo_limit(code, SEARCH_MEMO_BYTES)
    }

    /// A search over sums of `code`'s heaps whose memo starts again empty
    /// past about `memo_limit` bytes.
    pub fn with_memo_limit(code: OctalCode, memo_limit: usize) -> Self {
        let smallest_live = (1..=code.max_take() + 2)
            .find(|&n| code.has_move(n))
            .unwrap_or(usize::MAX);
        Self {
            code,
            smallest_live,
            memo: HashMap::new(),
            memo_bytes: 0,
            memo_limit,
        }
    }

    /// The tokens of `heaps` beyond what a heap needs to have a move (one
    /// less than the smallest heap with a move), over heaps with a move:
    /// what the search's cost grows with.
    pub fn live_tokens(&self, heaps: impl IntoIterator<Item = usize>) -> usize {
        heaps
            .into_iter()
            .filter(|&h| self.code.has_move(h))
            .map(|h| h + 1 - self.smallest_live.min(h + 1))
            .sum()
    }

    /// Whether the player to move wins the sum of `heaps`, and in how many
    /// plies with perfect play; `None` past [`SEARCH_LIMIT`] live tokens.
    pub fn solve(&mut self, heaps: &[usize]) -> Option<(bool, Remoteness)> {
        if self.live_tokens(heaps.iter().copied()) > SEARCH_LIMIT {
            return None;
        }
        let mut live: Vec<usize> = heaps
            .iter()
            .copied()
            .filter(|&h| self.code.has_move(h))
            .collect();
        live.sort_unstable_by(|a, b| b.cmp(a));
        Some(self.search(&live))
    }

    /// [`SumSearch::solve`] on heaps that all have a move, largest first.
    fn search(&mut self, heaps: &[usize]) -> (bool, Remoteness) {
        if heaps.is_empty() {
            return (false, 0);
        }
        if let Some(&known) = self.memo.get(heaps) {
            return known;
        }
        let mut best_win: Option<Remoteness> = None;
        let mut longest_loss: Remoteness = 0;
        let mut splits = Vec::new();
        for (p, &heap) in heaps.iter().enumerate() {
            if p > 0 && heaps[p - 1] == heap {
                continue;
            }
            splits.clear();
            self.code.for_each_split(heap, |pair| splits.push(pair));
            splits.sort_unstable();
            splits.dedup();
            for &[a, b] in &splits {
                let mut child: Vec<usize> = heaps[..p].to_vec();
                child.extend_from_slice(&heaps[p + 1..]);
                child.extend([a, b].into_iter().filter(|&h| self.code.has_move(h)));
                child.sort_unstable_by(|x, y| y.cmp(x));
                let (child_wins, r) = self.search(&child);
                if child_wins {
                    longest_loss = longest_loss.max(r + 1);
                } else {
                    best_win = Some(best_win.map_or(r + 1, |w| w.min(r + 1)));
                }
            }
        }
        let outcome = match best_win {
            Some(r) => (true, r),
            None => (false, longest_loss),
        };
        let bytes = memo_entry_bytes(heaps.len());
        if self.memo_bytes + bytes > self.memo_limit {
            // Forgetting only costs time: every outcome is computed again.
            self.memo = HashMap::new();
            self.memo_bytes = 0;
        }
        self.memo_bytes += bytes;
        self.memo.insert(heaps.into(), outcome);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest heap whose value ships with ply (for 0.007).
    const SHIPPED_HEAP: usize = 1 << 20;
    use crate::progress::NoProgress;

    #[test]
    fn a_search_whose_memo_starts_again_answers_the_same() {
        let code = OctalCode::parse("0.007").unwrap();
        let mut kept = SumSearch::new(code.clone());
        let mut forgetful = SumSearch::with_memo_limit(code, 300);
        for a in 0..14 {
            for b in 0..=a {
                let heaps = [a, b, 5];
                assert_eq!(kept.solve(&heaps), forgetful.solve(&heaps), "{heaps:?}");
                assert!(forgetful.memo_bytes <= 300, "{}", forgetful.memo_bytes);
            }
        }
        assert!(kept.memo_bytes > 300, "the memo grew past the small limit");
    }

    #[test]
    fn the_shipped_values_are_those_of_0_007() {
        let code = OctalCode::parse("0.007").unwrap();
        let shipped = shipped(&code).unwrap();
        assert_eq!(shipped.len(), SHIPPED_HEAP + 1);
        let computed = octal::compute(&code, 1 << 15, &NoProgress).unwrap();
        assert_eq!(&shipped[..=1 << 15], &computed.values[..]);
        assert!(super::shipped(&OctalCode::parse("0.77").unwrap()).is_none());
    }

    /// Remoteness of a sum of heaps by plain minimax over every move,
    /// remembering each sorted list of heaps (empty ones and all).
    fn plain_remoteness(
        code: &OctalCode,
        heaps: &[usize],
        seen: &mut HashMap<Vec<usize>, (bool, Remoteness)>,
    ) -> (bool, Remoteness) {
        let mut key = heaps.to_vec();
        key.sort_unstable();
        if let Some(&known) = seen.get(&key) {
            return known;
        }
        let mut best_win: Option<Remoteness> = None;
        let mut longest_loss = 0;
        for (p, &heap) in heaps.iter().enumerate() {
            code.for_each_split(heap, |[a, b]| {
                let mut child = heaps.to_vec();
                child[p] = a;
                child.push(b);
                let (wins, r) = plain_remoteness(code, &child, seen);
                if wins {
                    longest_loss = longest_loss.max(r + 1);
                } else {
                    best_win = Some(best_win.map_or(r + 1, |w: Remoteness| w.min(r + 1)));
                }
            });
        }
        let outcome = best_win.map_or((false, longest_loss), |r| (true, r));
        seen.insert(key, outcome);
        outcome
    }

    proptest::proptest! {
        #[test]
        fn the_search_agrees_with_plain_minimax(
            code in proptest::sample::select(vec!["0.007", "0.77", "0.137", "4.7"]),
            heaps in proptest::collection::vec(0usize..9, 0..4),
        ) {
            let code = OctalCode::parse(code).unwrap();
            let mut search = SumSearch::new(code.clone());
            let plain = plain_remoteness(&code, &heaps, &mut HashMap::new());
            proptest::prop_assert_eq!(search.solve(&heaps), Some(plain));
            // The winner is the one nimbers name.
            let values = octal::plain_values(&code, 10).unwrap();
            let sum = heaps.iter().fold(0, |x, &h| x ^ values[h]);
            proptest::prop_assert_eq!(search.solve(&heaps).unwrap().0, sum != 0);
        }
    }

    #[test]
    fn live_tokens_bound_the_search() {
        let search = SumSearch::new(OctalCode::parse("0.007").unwrap());
        // Heaps of 0.007 need 3 tokens to move: a heap of n holds n - 2.
        assert_eq!(search.live_tokens([2, 3, 10]), 1 + 8);
        let mut search = search;
        assert!(search.solve(&[SEARCH_LIMIT + 2]).is_some());
        assert!(search.solve(&[SEARCH_LIMIT + 3]).is_none());
    }

    #[test]
    fn values_grow_on_demand_and_stop_at_the_bound() {
        let code = OctalCode::parse("0.77").unwrap();
        let heaps = HeapValues::new(code.clone(), 300);
        assert_eq!(heaps.current().len(), 1);
        let values = heaps.up_to(40, &NoProgress).unwrap();
        assert_eq!(&values[..=40], &octal::plain_values(&code, 40).unwrap()[..]);
        // Growing doubles what was known, within the bound.
        assert!(heaps.up_to(100, &NoProgress).unwrap().len() > 100);
        assert!(matches!(
            heaps.up_to(301, &NoProgress),
            Err(SolveError::Unsupported(_))
        ));
    }
}
