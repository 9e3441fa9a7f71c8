//! `Idempotency-Key`: a retried POST gets the first answer without running again.
//!
//! Invariants: bounded (oldest keys go first) and expiring; a retry that arrives while the
//! first request still runs waits for its answer instead of running twice; the same key with a
//! different body is refused rather than silently answered with another command's result.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::OnceCell;

/// A stored answer: HTTP status and JSON body.
pub type Answer = (u16, Value);

struct Entry {
    at: Instant,
    fingerprint: u64,
    answer: Arc<OnceCell<Answer>>,
}

pub struct IdempotencyStore {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<(HashMap<String, Entry>, VecDeque<String>)>,
}

pub enum Claim {
    /// First time: run, then [`IdempotencyStore::complete`].
    Fresh(Arc<OnceCell<Answer>>),
    /// Seen before: this answers (possibly after waiting for the first run).
    Repeat(Arc<OnceCell<Answer>>),
    /// The key was used with a different body.
    Mismatch,
}

pub fn fingerprint(body: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    body.hash(&mut h);
    h.finish()
}

impl IdempotencyStore {
    pub fn new(ttl: Duration, capacity: usize) -> Self {
        Self {
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    pub fn claim(&self, scope: &str, key: &str, body: &[u8]) -> Claim {
        let id = format!("{scope}\u{0}{key}");
        let print = fingerprint(body);
        let mut guard = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let (map, order) = &mut *guard;
        if let Some(entry) = map.get(&id)
            && entry.at.elapsed() < self.ttl
        {
            return if entry.fingerprint == print {
                Claim::Repeat(entry.answer.clone())
            } else {
                Claim::Mismatch
            };
        }
        let cell = Arc::new(OnceCell::new());
        map.insert(
            id.clone(),
            Entry {
                at: Instant::now(),
                fingerprint: print,
                answer: cell.clone(),
            },
        );
        order.retain(|k| *k != id);
        order.push_back(id);
        while order.len() > self.capacity {
            if let Some(old) = order.pop_front() {
                map.remove(&old);
            }
        }
        Claim::Fresh(cell)
    }

    /// Forgets a key whose first request failed before producing an answer worth keeping.
    pub fn release(&self, scope: &str, key: &str) {
        let id = format!("{scope}\u{0}{key}");
        let mut guard = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        guard.0.remove(&id);
        guard.1.retain(|k| *k != id);
    }

    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_repeat_gets_the_first_answer() {
        let store = IdempotencyStore::new(Duration::from_secs(60), 10);
        let Claim::Fresh(cell) = store.claim("/api/command", "k1", b"body") else {
            panic!("first claim must be fresh");
        };
        cell.set((200, json!({"reply": "first"}))).unwrap();
        match store.claim("/api/command", "k1", b"body") {
            Claim::Repeat(cell) => assert_eq!(cell.get().unwrap().1["reply"], "first"),
            _ => panic!("expected a repeat"),
        }
        assert!(matches!(
            store.claim("/api/command", "k1", b"other"),
            Claim::Mismatch
        ));
        assert!(matches!(
            store.claim("/api/approve", "k1", b"body"),
            Claim::Fresh(_)
        ));
    }

    #[test]
    fn the_store_is_bounded_and_expires() {
        let store = IdempotencyStore::new(Duration::from_secs(60), 2);
        for k in ["a", "b", "c"] {
            let _ = store.claim("s", k, b"x");
        }
        assert_eq!(store.len(), 2);
        assert!(
            matches!(store.claim("s", "a", b"x"), Claim::Fresh(_)),
            "oldest evicted"
        );
        let expired = IdempotencyStore::new(Duration::ZERO, 10);
        let _ = expired.claim("s", "a", b"x");
        assert!(matches!(expired.claim("s", "a", b"x"), Claim::Fresh(_)));
    }
}
