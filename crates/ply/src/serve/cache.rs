//! Answers already given, kept so that a repeated query costs a lookup:
//! the JSON of each solved position, keyed by the game and position asked for.
//!
//! Memory is bounded by two generations: new answers go into the young one;
//! when it holds half the budget it becomes the old one and the previous old
//! one is dropped. An answer found in the old generation moves back to the
//! young one, so answers in steady use stay.

use axum::body::Bytes;
use std::collections::HashMap;
use std::sync::Mutex;

/// What a query asked for: the game as named, and the position (`None` for the start).
pub type Key = (String, Option<String>);

/// A byte-bounded cache of answers.
pub struct AnswerCache {
    /// The most bytes (keys and answers) both generations hold together.
    budget: usize,
    generations: Mutex<Generations>,
}

#[derive(Default)]
struct Generations {
    young: HashMap<Key, Bytes>,
    young_bytes: usize,
    old: HashMap<Key, Bytes>,
}

impl AnswerCache {
    /// A cache holding at most about `budget` bytes; 0 keeps nothing.
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            generations: Mutex::new(Generations::default()),
        }
    }

    /// The answer kept for `key`, if any.
    pub fn get(&self, key: &Key) -> Option<Bytes> {
        let mut generations = self.lock();
        if let Some(answer) = generations.young.get(key) {
            return Some(answer.clone());
        }
        let answer = generations.old.remove(key)?;
        self.keep(&mut generations, key.clone(), answer.clone());
        Some(answer)
    }

    /// Keeps `answer` for `key`.
    pub fn insert(&self, key: Key, answer: Bytes) {
        let mut generations = self.lock();
        self.keep(&mut generations, key, answer);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations> {
        // The maps stay consistent even if a holder panicked: take them as they are.
        self.generations
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn keep(&self, generations: &mut Generations, key: Key, answer: Bytes) {
        let size = key.0.len() + key.1.as_ref().map_or(0, String::len) + answer.len();
        if size > self.budget / 2 {
            return;
        }
        if generations.young_bytes + size > self.budget / 2 {
            generations.old = std::mem::take(&mut generations.young);
            generations.young_bytes = 0;
        }
        generations.young_bytes += size;
        generations.young.insert(key, answer);
    }
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
        }
        // Each entry is 20 bytes: a generation holds 5, so at most 10 stay.
        let kept = (0..50).filter(|&i| cache.get(&key(i)).is_some()).count();
        assert!(kept <= 10, "{kept} kept");
        assert!(cache.get(&key(49)).is_some());
        assert_eq!(cache.get(&key(0)), None);
    }

    #[test]
    fn an_answer_in_use_survives_rotation() {
        let cache = AnswerCache::new(200);
        cache.insert(key(0), Bytes::from_static(b"answer-zero-xxx"));
        for i in 1..40 {
            assert!(cache.get(&key(0)).is_some(), "lost at {i}");
            cache.insert(key(i), Bytes::from(vec![b'x'; 15]));
        }
    }

    #[test]
    fn a_zero_budget_keeps_nothing() {
        let cache = AnswerCache::new(0);
        cache.insert(key(1), Bytes::from_static(b"a"));
        assert_eq!(cache.get(&key(1)), None);
    }
}
