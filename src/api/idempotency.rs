//! `Idempotency-Key` (HTTP) and `request_id` (MQTT): a retried request gets the first answer
//! without running again — also after a crash or restart.
//!
//! Invariants: bounded (oldest keys go first) and expiring; a retry that arrives while the
//! first request still runs waits for its answer instead of running twice; the same key with a
//! different body is refused rather than silently answered with another command's result.
//! With a journal, an answer is appended and fsynced *before* it is sent, so an acknowledged
//! command is never run again by a retry that arrives after `kill -9`; a command that was still
//! running when the process died has no answer on disk and may run again (nothing was
//! acknowledged). A torn or damaged journal line is skipped, never fatal.

use std::collections::{HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::OnceCell;
use tracing::warn;

/// A stored answer: HTTP status and JSON body.
pub type Answer = (u16, Value);

struct Entry {
    at: Instant,
    fingerprint: u64,
    answer: Arc<OnceCell<Answer>>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Entry>,
    order: VecDeque<String>,
}

/// One answered key on disk.
#[derive(Clone, Serialize, Deserialize)]
struct JournalLine {
    id: String,
    fingerprint: u64,
    /// Seconds since the Unix epoch when the key was first claimed.
    at: u64,
    status: u16,
    body: Value,
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
    /// First time: run, then [`IdempotencyStore::complete`].
    Fresh(Arc<OnceCell<Answer>>),
    /// Seen before: this answers (possibly after waiting for the first run).
    Repeat(Arc<OnceCell<Answer>>),
    /// The key was used with a different body.
    Mismatch,
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
        let mut skipped = 0usize;
        let lines = match File::open(path) {
            Ok(file) => {
                let mut lines = Vec::new();
                for raw in BufReader::new(file).split(b'\n') {
                    let raw = raw.map_err(|e| err(&e))?;
                    match serde_json::from_slice::<JournalLine>(&raw) {
                        Ok(line) => lines.push(line),
                        Err(_) if raw.iter().all(u8::is_ascii_whitespace) => {}
                        Err(_) => skipped += 1,
                    }
                }
                lines
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(err(&e)),
        };
        if skipped > 0 {
            warn!(path = %path.display(), skipped, "Skipped damaged idempotency journal lines");
        }
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
                let cell = Arc::new(OnceCell::new_with(Some((line.status, line.body))));
                entries.order.retain(|k| *k != line.id);
                entries.order.push_back(line.id.clone());
                entries.map.insert(
                    line.id,
                    Entry {
                        at,
                        fingerprint: line.fingerprint,
                        answer: cell,
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
                let (status, body) = entry.answer.get()?.clone();
                if entry.at.elapsed() >= self.ttl {
                    return None;
                }
                Some(JournalLine {
                    id: id.clone(),
                    fingerprint: entry.fingerprint,
                    at: now.saturating_sub(entry.at.elapsed().as_secs()),
                    status,
                    body,
                })
            })
            .collect()
    }

    /// Writes `lines` to a temporary file, fsyncs and renames it over `path`.
    fn rewrite(path: &Path, lines: &[JournalLine]) -> std::io::Result<()> {
        let tmp = path.with_extension("jsonl.tmp");
        {
            let mut file = File::create(&tmp)?;
            for line in lines {
                serde_json::to_writer(&mut file, line)?;
                file.write_all(b"\n")?;
            }
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent()
            && let Ok(dir) = File::open(dir)
        {
            let _ = dir.sync_all();
        }
        Ok(())
    }

    pub fn claim(&self, scope: &str, key: &str, body: &[u8]) -> Claim {
        let id = id_of(scope, key);
        let print = fingerprint(body);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = entries.map.get(&id)
            && entry.at.elapsed() < self.ttl
        {
            return if entry.fingerprint == print {
                Claim::Repeat(entry.answer.clone())
            } else {
                Claim::Mismatch
            };
        }
        let cell = Arc::new(OnceCell::new());
        entries.map.insert(
            id.clone(),
            Entry {
                at: Instant::now(),
                fingerprint: print,
                answer: cell.clone(),
            },
        );
        entries.order.retain(|k| *k != id);
        entries.order.push_back(id);
        Self::trim(self.capacity, &mut entries);
        Claim::Fresh(cell)
    }

    /// Records the first answer for a fresh claim: on disk first (when journalled), then for
    /// the waiting repeats. A journal that cannot be written is logged and the answer still
    /// given: the command has already run, and refusing to answer would not undo it.
    pub fn complete(&self, scope: &str, key: &str, cell: &OnceCell<Answer>, answer: Answer) {
        if let Some(journal) = &self.journal {
            let id = id_of(scope, key);
            let fingerprint = {
                let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
                entries.map.get(&id).map(|e| (e.fingerprint, e.at))
            };
            if let Some((fingerprint, at)) = fingerprint {
                let line = JournalLine {
                    id,
                    fingerprint,
                    at: unix_now().saturating_sub(at.elapsed().as_secs()),
                    status: answer.0,
                    body: answer.1.clone(),
                };
                if let Err(e) = self.append(journal, &line) {
                    warn!(error = %e, "Cannot record an idempotency key; a retry after a restart may run again");
                }
            }
        }
        let _ = cell.set(answer);
    }

    fn append(&self, journal: &Mutex<Journal>, line: &JournalLine) -> Result<(), JournalError> {
        let mut journal = journal.lock().unwrap_or_else(PoisonError::into_inner);
        let path = journal.path.clone();
        let err = |e: &dyn std::fmt::Display| JournalError::at(&path, e);
        let mut buf = serde_json::to_vec(line).map_err(|e| err(&e))?;
        buf.push(b'\n');
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| err(&e))?;
        file.write_all(&buf).map_err(|e| err(&e))?;
        file.sync_data().map_err(|e| err(&e))?;
        journal.lines += 1;
        if journal.lines > self.capacity.saturating_mul(2) {
            let mut lines = self.snapshot();
            // The new answer is not in the cell yet; keep it.
            lines.retain(|l| l.id != line.id);
            lines.push(line.clone());
            Self::rewrite(&path, &lines).map_err(|e| err(&e))?;
            journal.lines = lines.len();
        }
        Ok(())
    }

    /// Forgets a key whose first request failed before producing an answer worth keeping.
    pub fn release(&self, scope: &str, key: &str) {
        let id = id_of(scope, key);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.map.remove(&id);
        entries.order.retain(|k| *k != id);
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

    fn fresh(store: &IdempotencyStore, key: &str, body: &[u8]) -> Arc<OnceCell<Answer>> {
        match store.claim("/api/command", key, body) {
            Claim::Fresh(cell) => cell,
            _ => panic!("first claim of {key} must be fresh"),
        }
    }

    #[tokio::test]
    async fn a_repeat_gets_the_first_answer() {
        let store = IdempotencyStore::new(Duration::from_secs(60), 10);
        let cell = fresh(&store, "k1", b"body");
        store.complete(
            "/api/command",
            "k1",
            &cell,
            (200, json!({"reply": "first"})),
        );
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

    #[test]
    fn the_fingerprint_is_stable() {
        // Pinned: a journal written by one build must be read by the next.
        assert_eq!(fingerprint(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn answered_keys_survive_a_reopen_and_unanswered_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".idempotency.jsonl");
        let ttl = Duration::from_secs(3600);
        {
            let store = IdempotencyStore::open(&path, ttl, 10).unwrap();
            let done = fresh(&store, "done", b"body");
            store.complete("/api/command", "done", &done, (200, json!({"reply": "ok"})));
            let _running = fresh(&store, "running", b"body");
            // Dropped without a clean shutdown: only what was fsynced counts.
        }
        let store = IdempotencyStore::open(&path, ttl, 10).unwrap();
        match store.claim("/api/command", "done", b"body") {
            Claim::Repeat(cell) => assert_eq!(cell.get().unwrap(), &(200, json!({"reply": "ok"}))),
            _ => panic!("an acknowledged answer must survive"),
        }
        assert!(matches!(
            store.claim("/api/command", "done", b"changed"),
            Claim::Mismatch
        ));
        assert!(matches!(
            store.claim("/api/command", "running", b"body"),
            Claim::Fresh(_)
        ));
    }

    #[test]
    fn a_torn_journal_line_is_skipped_and_the_file_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".idempotency.jsonl");
        let ttl = Duration::from_secs(3600);
        {
            let store = IdempotencyStore::open(&path, ttl, 10).unwrap();
            let cell = fresh(&store, "a", b"x");
            store.complete("/api/command", "a", &cell, (200, json!(1)));
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"id\": \"/api/command\\u0000b\", \"finger");
        std::fs::write(&path, text).unwrap();
        let store = IdempotencyStore::open(&path, ttl, 10).unwrap();
        assert_eq!(store.len(), 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1);
    }

    #[test]
    fn the_journal_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".idempotency.jsonl");
        let store = IdempotencyStore::open(&path, Duration::from_secs(3600), 3).unwrap();
        for i in 0..20 {
            let key = format!("k{i}");
            let cell = fresh(&store, &key, b"x");
            store.complete("/api/command", &key, &cell, (200, json!(i)));
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 7, "{lines} lines for capacity 3");
        let reopened = IdempotencyStore::open(&path, Duration::from_secs(3600), 3).unwrap();
        assert_eq!(reopened.len(), 3);
        assert!(matches!(
            reopened.claim("/api/command", "k19", b"x"),
            Claim::Repeat(_)
        ));
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
