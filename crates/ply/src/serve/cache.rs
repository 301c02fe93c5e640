//! Answers already given, kept so that a repeated query costs a lookup:
//! the JSON of each solved position, keyed by the game and position asked for.
//!
//! A [`moka`] cache weighed in bytes (key and answer): when a new answer
//! would take it past its budget, the least recently used answers go, so
//! answers in steady use stay.

use axum::body::Bytes;
use moka::policy::EvictionPolicy;
use moka::sync::Cache;

/// What a query asked for: the game as named, and the position (`None` for the start).
pub type Key = (String, Option<String>);

/// A byte-bounded cache of answers.
pub struct AnswerCache {
    /// `None` under a zero budget: nothing is kept.
    answers: Option<Cache<Key, Bytes>>,
}

impl AnswerCache {
    /// A cache holding at most about `budget` bytes; 0 keeps nothing.
    pub fn new(budget: usize) -> Self {
        let answers = (budget > 0).then(|| {
            Cache::builder()
                .max_capacity(budget as u64)
                .weigher(|key: &Key, answer: &Bytes| {
                    u32::try_from(weight(key, answer)).unwrap_or(u32::MAX)
                })
                .eviction_policy(EvictionPolicy::lru())
                .build()
        });
        Self { answers }
    }

    /// The answer kept for `key`, if any.
    pub fn get(&self, key: &Key) -> Option<Bytes> {
        self.answers.as_ref()?.get(key)
    }

    /// Keeps `answer` for `key`.
    pub fn insert(&self, key: Key, answer: Bytes) {
        if let Some(answers) = &self.answers {
            answers.insert(key, answer);
        }
    }

    /// The bytes the kept answers weigh, once pending evictions are done.
    #[cfg(test)]
    fn weight(&self) -> u64 {
        self.answers.as_ref().map_or(0, |answers| {
            answers.run_pending_tasks();
            answers.weighted_size()
        })
    }
}

/// The bytes an answer weighs in the cache: its key and its JSON.
fn weight(key: &Key, answer: &Bytes) -> usize {
    key.0.len() + key.1.as_ref().map_or(0, String::len) + answer.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: usize) -> Key {
        ("g".to_string(), Some(format!("{i:04}")))
    }

    #[test]
    fn keeps_answers_within_the_budget() {
        let cache = AnswerCache::new(200);
        for i in 0..50 {
            cache.insert(key(i), Bytes::from(vec![b'x'; 15]));
            // Each entry weighs 20 bytes: at most 10 fit.
            assert!(cache.weight() <= 200, "{} bytes after {i}", cache.weight());
        }
        let kept = (0..50).filter(|&i| cache.get(&key(i)).is_some()).count();
        assert!((1..=10).contains(&kept), "{kept} kept");
        assert!(cache.get(&key(49)).is_some());
        assert_eq!(cache.get(&key(0)), None);
    }

    #[test]
    fn an_answer_in_use_survives() {
        let cache = AnswerCache::new(200);
        cache.insert(key(0), Bytes::from_static(b"answer-zero-xxx"));
        for i in 1..40 {
            assert!(cache.get(&key(0)).is_some(), "lost at {i}");
            cache.insert(key(i), Bytes::from(vec![b'x'; 15]));
            cache.weight();
        }
    }

    #[test]
    fn a_zero_budget_keeps_nothing() {
        let cache = AnswerCache::new(0);
        cache.insert(key(1), Bytes::from_static(b"a"));
        assert_eq!(cache.get(&key(1)), None);
        assert_eq!(cache.weight(), 0);
    }
}
