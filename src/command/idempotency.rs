//! `Idempotency-Key` (HTTP) and `request_id` (MQTT): a retried request gets the first answer
//! without running again — also after a crash or restart, and also when the first request's
//! client went away before the answer (the run goes on and its answer is kept).
//!
//! Invariants: bounded (oldest keys go first) and expiring; a retry that arrives while the
//! first request still runs waits for its answer instead of running twice; the same key with a
//! different body is refused rather than silently answered with another command's result.
//! With a journal, an answer is appended and fsynced *before* it is sent, so an acknowledged
//! command is never run again by a retry that arrives after `kill -9`; a command that was still
//! running when the process died has no answer on disk and may run again (nothing was
//! acknowledged). A torn or damaged journal line is skipped, never fatal.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;
use tracing::warn;

/// A stored answer: the JSON of the typed result (its shape belongs to the command layer).
pub type Answer = Value;

enum State {
    Answered(Answer),
    /// The first request runs; its [`Ticket`] sends the answer here.
    Running(watch::Receiver<Option<Answer>>),
}

struct Entry {
    at: Instant,
    fingerprint: u64,
    /// Which claim made the entry, so a late release never forgets a newer claim's key.
    serial: u64,
    state: State,
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Entry>,
    order: VecDeque<String>,
    serial: u64,
}

/// One answered key on disk.
#[derive(Clone, Serialize, Deserialize)]
struct JournalLine {
    id: String,
    fingerprint: u64,
    /// Seconds since the Unix epoch when the key was first claimed.
    at: u64,
    answer: Answer,
}

/// The file is opened for each append rather than held open: a held write handle would keep a
/// filesystem from being remounted read-only and outlive the file being replaced.
struct Journal {
    path: PathBuf,
    /// Lines appended since the last rewrite; the file is compacted when it grows past the
    /// store's capacity twice over.
    lines: usize,
}

#[derive(Debug, thiserror::Error)]
#[error("idempotency journal {path}: {reason}")]
pub struct JournalError {
    path: String,
    reason: String,
}

impl JournalError {
    fn at(path: &Path, reason: &dyn std::fmt::Display) -> Self {
        Self {
            path: path.display().to_string(),
            reason: reason.to_string(),
        }
    }
}

pub struct IdempotencyStore {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<Entries>,
    journal: Option<Mutex<Journal>>,
}

pub enum Claim {
    /// First time: run, then [`Ticket::complete`].
    Fresh(Ticket),
    /// Seen before: [`Waiter::answer`] gives the first answer, waiting for it if need be.
    Repeat(Waiter),
    /// The key was used with a different request.
    Mismatch,
}

/// The duty to answer a fresh key. Dropped without [`Ticket::complete`] it forgets the key
/// (nothing worth repeating happened), and repeats waiting for it are told so.
pub struct Ticket {
    store: Arc<IdempotencyStore>,
    id: String,
    serial: u64,
    tx: Option<watch::Sender<Option<Answer>>>,
}

impl Ticket {
    /// Records the answer (on disk first, when journalled) and hands it to waiting repeats.
    pub fn complete(mut self, answer: Answer) {
        self.store.complete(&self.id, self.serial, answer.clone());
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Some(answer));
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.tx.is_some() {
            self.store.release(&self.id, self.serial);
        }
    }
}

/// A repeat's view of the first answer.
pub enum Waiter {
    Ready(Answer),
    Waiting(watch::Receiver<Option<Answer>>),
}

impl Waiter {
    /// The first request's answer; `None` when it ended without one (it may be retried).
    pub async fn answer(self) -> Option<Answer> {
        match self {
            Self::Ready(answer) => Some(answer),
            Self::Waiting(mut rx) => rx
                .wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|answer| answer.clone()),
        }
    }
}

/// FNV-1a: stable across processes and Rust versions, which a persisted fingerprint needs
/// (std's `DefaultHasher` promises neither). Collisions only matter for telling a reused key
/// apart, not for security.
pub fn fingerprint(body: &[u8]) -> u64 {
    body.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

fn id_of(scope: &str, key: &str) -> String {
    format!("{scope}\u{0}{key}")
}

impl IdempotencyStore {
    /// An in-memory store: a restart forgets every key.
    pub fn new(ttl: Duration, capacity: usize) -> Self {
        Self {
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new(Entries::default()),
            journal: None,
        }
    }

    /// A store that keeps answered keys in `path` (JSONL), loading the live ones first.
    pub fn open(path: &Path, ttl: Duration, capacity: usize) -> Result<Self, JournalError> {
        let err = |e: &dyn std::fmt::Display| JournalError::at(path, e);
        let mut store = Self::new(ttl, capacity);
        let read = crate::journal::read::<JournalLine>(path).map_err(|e| err(&e))?;
        let skipped = read.bad.len();
        if skipped > 0 {
            warn!(path = %path.display(), skipped, "Skipped damaged idempotency journal lines");
        }
        let lines = read.items;
        let now = unix_now();
        {
            let entries = store
                .entries
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner);
            for line in lines {
                let age = Duration::from_secs(now.saturating_sub(line.at));
                if age >= ttl {
                    continue;
                }
                let at = Instant::now().checked_sub(age).unwrap_or_else(Instant::now);
                entries.order.retain(|k| *k != line.id);
                entries.order.push_back(line.id.clone());
                entries.map.insert(
                    line.id,
                    Entry {
                        at,
                        fingerprint: line.fingerprint,
                        serial: 0,
                        state: State::Answered(line.answer),
                    },
                );
            }
            Self::trim(store.capacity, entries);
        }
        Self::rewrite(path, &store.snapshot()).map_err(|e| err(&e))?;
        let lines = store.len();
        store.journal = Some(Mutex::new(Journal {
            path: path.to_owned(),
            lines,
        }));
        Ok(store)
    }

    fn trim(capacity: usize, entries: &mut Entries) {
        while entries.order.len() > capacity {
            if let Some(old) = entries.order.pop_front() {
                entries.map.remove(&old);
            }
        }
    }

    /// The answered, unexpired keys, oldest first.
    fn snapshot(&self) -> Vec<JournalLine> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let now = unix_now();
        entries
            .order
            .iter()
            .filter_map(|id| {
                let entry = entries.map.get(id)?;
                let State::Answered(answer) = &entry.state else {
                    return None;
                };
                if entry.at.elapsed() >= self.ttl {
                    return None;
                }
                Some(JournalLine {
                    id: id.clone(),
                    fingerprint: entry.fingerprint,
                    at: now.saturating_sub(entry.at.elapsed().as_secs()),
                    answer: answer.clone(),
                })
            })
            .collect()
    }

    /// Replaces the journal with `lines` (atomic and durable: see [`crate::journal`]).
    fn rewrite(path: &Path, lines: &[JournalLine]) -> std::io::Result<()> {
        crate::journal::rewrite(path, lines)
    }

    /// Claims `key` in `scope` for a request whose canonical bytes are `request`.
    pub fn claim(self: &Arc<Self>, scope: &str, key: &str, request: &[u8]) -> Claim {
        let id = id_of(scope, key);
        let print = fingerprint(request);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = entries.map.get(&id)
            && entry.at.elapsed() < self.ttl
        {
            if entry.fingerprint != print {
                return Claim::Mismatch;
            }
            return Claim::Repeat(match &entry.state {
                State::Answered(answer) => Waiter::Ready(answer.clone()),
                State::Running(rx) => Waiter::Waiting(rx.clone()),
            });
        }
        let (tx, rx) = watch::channel(None);
        entries.serial += 1;
        let serial = entries.serial;
        entries.map.insert(
            id.clone(),
            Entry {
                at: Instant::now(),
                fingerprint: print,
                serial,
                state: State::Running(rx),
            },
        );
        entries.order.retain(|k| *k != id);
        entries.order.push_back(id.clone());
        Self::trim(self.capacity, &mut entries);
        Claim::Fresh(Ticket {
            store: self.clone(),
            id,
            serial,
            tx: Some(tx),
        })
    }

    /// Records the first answer for a fresh claim: on disk first (when journalled), then in
    /// memory. A journal that cannot be written is logged and the answer still given: the
    /// command has already run, and refusing to answer would not undo it.
    fn complete(&self, id: &str, serial: u64, answer: Answer) {
        let claimed = {
            let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            entries
                .map
                .get(id)
                .filter(|e| e.serial == serial)
                .map(|e| (e.fingerprint, e.at))
        };
        let Some((fingerprint, at)) = claimed else {
            // Evicted or expired meanwhile: nothing to keep.
            return;
        };
        if let Some(journal) = &self.journal {
            let line = JournalLine {
                id: id.to_owned(),
                fingerprint,
                at: unix_now().saturating_sub(at.elapsed().as_secs()),
                answer: answer.clone(),
            };
            if let Err(e) = self.append(journal, &line) {
                warn!(error = %e, "Cannot record an idempotency key; a retry after a restart may run again");
            }
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = entries.map.get_mut(id).filter(|e| e.serial == serial) {
            entry.state = State::Answered(answer);
        }
    }

    fn append(&self, journal: &Mutex<Journal>, line: &JournalLine) -> Result<(), JournalError> {
        let mut journal = journal.lock().unwrap_or_else(PoisonError::into_inner);
        let path = journal.path.clone();
        let err = |e: &dyn std::fmt::Display| JournalError::at(&path, e);
        crate::journal::append(&path, std::slice::from_ref(line)).map_err(|e| err(&e))?;
        journal.lines += 1;
        if journal.lines > self.capacity.saturating_mul(2) {
            let mut lines = self.snapshot();
            // The new answer is not in memory yet; keep it.
            lines.retain(|l| l.id != line.id);
            lines.push(line.clone());
            Self::rewrite(&path, &lines).map_err(|e| err(&e))?;
            journal.lines = lines.len();
        }
        Ok(())
    }

    /// Forgets a key whose first request ended without an answer worth keeping.
    fn release(&self, id: &str, serial: u64) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.map.get(id).is_some_and(|e| e.serial == serial) {
            entries.map.remove(id);
            entries.order.retain(|k| k != id);
        }
    }

    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .map
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

    fn memory(capacity: usize) -> Arc<IdempotencyStore> {
        Arc::new(IdempotencyStore::new(Duration::from_secs(60), capacity))
    }

    fn fresh(store: &Arc<IdempotencyStore>, key: &str, body: &[u8]) -> Ticket {
        match store.claim("command", key, body) {
            Claim::Fresh(ticket) => ticket,
            _ => panic!("first claim of {key} must be fresh"),
        }
    }

    async fn repeat(store: &Arc<IdempotencyStore>, key: &str, body: &[u8]) -> Option<Answer> {
        match store.claim("command", key, body) {
            Claim::Repeat(waiter) => waiter.answer().await,
            _ => panic!("expected a repeat of {key}"),
        }
    }

    #[tokio::test]
    async fn a_repeat_gets_the_first_answer() {
        let store = memory(10);
        fresh(&store, "k1", b"body").complete(json!({"reply": "first"}));
        assert_eq!(
            repeat(&store, "k1", b"body").await.unwrap()["reply"],
            "first"
        );
        assert!(matches!(
            store.claim("command", "k1", b"other"),
            Claim::Mismatch
        ));
        assert!(matches!(
            store.claim("approve", "k1", b"body"),
            Claim::Fresh(_)
        ));
    }

    #[tokio::test]
    async fn a_repeat_during_the_first_run_waits_for_its_answer() {
        let store = memory(10);
        let ticket = fresh(&store, "k", b"body");
        let Claim::Repeat(waiter) = store.claim("command", "k", b"body") else {
            panic!("expected a repeat");
        };
        let waiting = tokio::spawn(waiter.answer());
        ticket.complete(json!({"reply": "once"}));
        assert_eq!(waiting.await.unwrap().unwrap()["reply"], "once");
        assert_eq!(repeat(&store, "k", b"body").await.unwrap()["reply"], "once");
    }

    #[tokio::test]
    async fn a_first_run_that_ends_without_an_answer_frees_the_key_and_tells_the_waiters() {
        let store = memory(10);
        let ticket = fresh(&store, "k", b"body");
        let Claim::Repeat(waiter) = store.claim("command", "k", b"body") else {
            panic!("expected a repeat");
        };
        drop(ticket);
        assert_eq!(waiter.answer().await, None);
        assert!(matches!(
            store.claim("command", "k", b"body"),
            Claim::Fresh(_)
        ));
    }

    #[tokio::test]
    async fn a_late_release_does_not_forget_a_newer_claim() {
        let store = Arc::new(IdempotencyStore::new(Duration::ZERO, 10));
        let old = fresh(&store, "k", b"x");
        // Expired at once: the next claim is fresh and owns the key now.
        let newer = fresh(&store, "k", b"x");
        drop(old);
        newer.complete(json!(2));
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn the_store_is_bounded_and_expires() {
        let store = memory(2);
        let tickets: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|k| fresh(&store, k, b"x"))
            .collect();
        assert_eq!(store.len(), 2);
        assert!(
            matches!(store.claim("command", "a", b"x"), Claim::Fresh(_)),
            "oldest evicted"
        );
        drop(tickets);
        let expired = Arc::new(IdempotencyStore::new(Duration::ZERO, 10));
        let _first = fresh(&expired, "a", b"x");
        assert!(matches!(
            expired.claim("command", "a", b"x"),
            Claim::Fresh(_)
        ));
    }

    #[test]
    fn the_fingerprint_is_stable() {
        // Pinned: a journal written by one build must be read by the next.
        assert_eq!(fingerprint(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[tokio::test]
    async fn answered_keys_survive_a_reopen_and_unanswered_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".idempotency.jsonl");
        let ttl = Duration::from_secs(3600);
        {
            let store = Arc::new(IdempotencyStore::open(&path, ttl, 10).unwrap());
            fresh(&store, "done", b"body").complete(json!({"reply": "ok"}));
            let running = fresh(&store, "running", b"body");
            // The process dies here: only what was fsynced counts.
            std::mem::forget(running);
        }
        let store = Arc::new(IdempotencyStore::open(&path, ttl, 10).unwrap());
        assert_eq!(
            repeat(&store, "done", b"body").await,
            Some(json!({"reply": "ok"}))
        );
        assert!(matches!(
            store.claim("command", "done", b"changed"),
            Claim::Mismatch
        ));
        assert!(matches!(
            store.claim("command", "running", b"body"),
            Claim::Fresh(_)
        ));
    }

    #[test]
    fn a_torn_journal_line_is_skipped_and_the_file_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".idempotency.jsonl");
        let ttl = Duration::from_secs(3600);
        {
            let store = Arc::new(IdempotencyStore::open(&path, ttl, 10).unwrap());
            fresh(&store, "a", b"x").complete(json!(1));
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"id\": \"command\\u0000b\", \"finger");
        std::fs::write(&path, text).unwrap();
        let store = IdempotencyStore::open(&path, ttl, 10).unwrap();
        assert_eq!(store.len(), 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1);
    }

    #[tokio::test]
    async fn the_journal_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".idempotency.jsonl");
        let store = Arc::new(IdempotencyStore::open(&path, Duration::from_secs(3600), 3).unwrap());
        for i in 0..20 {
            fresh(&store, &format!("k{i}"), b"x").complete(json!(i));
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 7, "{lines} lines for capacity 3");
        let reopened =
            Arc::new(IdempotencyStore::open(&path, Duration::from_secs(3600), 3).unwrap());
        assert_eq!(reopened.len(), 3);
        assert_eq!(repeat(&reopened, "k19", b"x").await, Some(json!(19)));
    }

    #[test]
    fn an_unwritable_journal_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join(".idempotency.jsonl");
        let err = IdempotencyStore::open(&path, Duration::from_secs(1), 1)
            .err()
            .unwrap();
        assert!(err.to_string().contains("missing-dir"), "{err}");
    }
}
