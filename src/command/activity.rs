//! What HomeClaw did, across every entry point: one record per command or approval, kept for
//! the panel's activity list and plots. Recorded at the front door, so a command from MQTT,
//! Assist or the panel shows up alike.
//!
//! Invariants:
//! - Bounded: the newest [`KEEP`] records in memory; the journal (`.activity.jsonl` beside the
//!   sessions) is rewritten down to them when it grows past twice that, and read back at start,
//!   so a restart keeps the history.
//! - No secret is recorded: every string field passes through [`crate::secret::redact`] with the
//!   configured secrets (the approval PIN among them).
//! - Every record is appended and fsynced by the journal's own thread (group commit,
//!   [`crate::journal::Appender`]): a command's reply never waits for the disk.
//! - A journal that cannot be written is logged once per failure; the records stay in memory.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tracing::warn;

use crate::agent::act::verify::ActionReport;

/// Records kept in memory (and, at most twice as many, in the journal).
pub const KEEP: usize = 1000;

/// Where a command came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    #[default]
    Http,
    Mqtt,
    Assist,
    Openai,
    Cli,
    Panel,
    Notification,
}

/// One command or approval as it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Milliseconds since the Unix epoch when it ended.
    pub at_ms: u64,
    pub source: Source,
    /// `command` or `approval`.
    pub kind: String,
    pub session_id: Option<String>,
    pub text: String,
    /// `done`, `clarification_required`, `approval_required`, `failed`, or an error code.
    pub status: String,
    pub reply: String,
    pub actions: Vec<ActionReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    pub trace: Vec<String>,
    pub latency_ms: u64,
    /// Requests to the model (0 for the fast path and for approvals).
    pub llm_requests: u32,
    pub model: Option<String>,
    /// Guard decisions: breaker hits, loop warnings and blocks, claim retries, repairs,
    /// fallbacks.
    pub guard_events: u32,
}

impl Record {
    /// An answer to an approval (or a refused command): `id` is the approval id, if any.
    /// Approving records `approval`, declining `decline`.
    pub fn answer(source: Source, kind: &str, id: &str, status: String) -> Self {
        Self {
            at_ms: now_ms(),
            source,
            kind: kind.to_owned(),
            session_id: None,
            // What was approved or declined is the reply's to say, in words; the id stays in
            // its own field.
            text: String::new(),
            status,
            reply: String::new(),
            actions: Vec::new(),
            approval_id: (!id.is_empty()).then(|| id.to_owned()),
            trace: Vec::new(),
            latency_ms: 0,
            llm_requests: 0,
            model: None,
            guard_events: 0,
        }
    }
}

impl Record {
    /// A request turned away at the door (no or a wrong token): `what` says which request from
    /// where, `reason` why. Nothing ran, so there is no reply and no action.
    pub fn refused(source: Source, what: String, reason: &str) -> Self {
        Self {
            text: what,
            reply: reason.to_owned(),
            ..Self::answer(source, "refused", "", "unauthorized".to_owned())
        }
    }
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

#[derive(Debug)]
pub struct Activity {
    records: Mutex<VecDeque<Record>>,
    journal: Option<Journal>,
    secrets: Vec<String>,
}

/// The journal's writer (a thread of its own: a command's reply never waits for the disk)
/// and how many lines the file holds.
#[derive(Debug)]
struct Journal {
    writer: crate::journal::Appender,
    lines: Mutex<usize>,
}

impl Activity {
    /// In memory only.
    pub fn new(secrets: Vec<String>) -> Self {
        Self {
            records: Mutex::new(VecDeque::new()),
            journal: None,
            secrets,
        }
    }

    /// Backed by the journal at `path`, whose newest records are read back. Damaged lines
    /// (invalid JSON or UTF-8) are skipped and counted; a torn last line (a crash mid-append)
    /// is cut off, so the next record does not land on its end.
    pub fn open(path: &Path, secrets: Vec<String>) -> Self {
        let mut records = VecDeque::new();
        let mut lines = 0;
        match crate::journal::read::<Record>(path) {
            Ok(read) => {
                let damaged = read.damaged().count();
                if damaged > 0 {
                    warn!(path = %path.display(), damaged, "Skipped damaged activity journal lines");
                }
                lines = read.lines;
                if let Some(torn) = read.torn() {
                    match crate::journal::cut(path, torn.start) {
                        Ok(()) => lines -= 1,
                        Err(e) => {
                            warn!(error = %e, path = %path.display(), "Cannot cut a torn activity line")
                        }
                    }
                }
                let skip = read.items.len().saturating_sub(KEEP);
                records.extend(read.items.into_iter().skip(skip));
            }
            Err(e) => warn!(error = %e, path = %path.display(), "Cannot read the activity journal"),
        }
        let writer = crate::journal::Appender::spawn(
            path.to_owned(),
            |path, e| warn!(error = %e, path = %path.display(), "Cannot write the activity journal"),
        );
        let journal = match writer {
            Ok(writer) => Some(Journal {
                writer,
                lines: Mutex::new(lines),
            }),
            Err(e) => {
                warn!(error = %e, "Cannot start the activity journal's writer; kept in memory");
                None
            }
        };
        Self {
            records: Mutex::new(records),
            journal,
            secrets,
        }
    }

    pub fn record(&self, record: Record) {
        // Every field, not only the texts: an approval id, a session id or a service field
        // is whatever the caller sent, and may be a pasted token.
        let record = match serde_json::to_value(&record) {
            Ok(mut value) => {
                crate::secret::redact_json(&mut value, &self.secrets);
                serde_json::from_value(value).unwrap_or(record)
            }
            Err(_) => record,
        };
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records.push_back(record.clone());
        if records.len() > KEEP {
            records.pop_front();
        }
        let Some(journal) = &self.journal else {
            return;
        };
        let mut lines = journal.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let encoded = if *lines >= 2 * KEEP {
            let all: Vec<&Record> = records.iter().collect();
            crate::journal::lines(&all).map(|text| (true, text, all.len()))
        } else {
            crate::journal::lines(&[&record]).map(|text| (false, text, *lines + 1))
        };
        match encoded {
            Ok((true, text, n)) => {
                journal.writer.rewrite(text);
                *lines = n;
            }
            Ok((false, text, n)) => {
                journal.writer.append(text);
                *lines = n;
            }
            Err(e) => warn!(error = %e, "Cannot encode an activity record"),
        }
    }

    /// Waits until every record so far is on the disk (at shutdown, and for tests).
    pub fn flush(&self) {
        if let Some(journal) = &self.journal {
            journal.writer.flush();
        }
    }

    /// The newest records first, at most `limit`, that `keep` accepts.
    pub fn recent(&self, limit: usize, keep: impl Fn(&Record) -> bool) -> Vec<Record> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records
            .iter()
            .rev()
            .filter(|r| keep(r))
            .take(limit)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(text: &str) -> Record {
        Record {
            at_ms: now_ms(),
            source: Source::Panel,
            kind: "command".into(),
            session_id: None,
            text: text.into(),
            status: "done".into(),
            reply: String::new(),
            actions: Vec::new(),
            approval_id: None,
            trace: vec![format!("said {text}")],
            latency_ms: 1,
            llm_requests: 0,
            model: None,
            guard_events: 0,
        }
    }

    #[test]
    fn records_survive_a_restart_and_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".activity.jsonl");
        let activity = Activity::open(&path, Vec::new());
        activity.record(record("one"));
        activity.flush();
        // A damaged line in the middle (invalid UTF-8) does not hide the records after it.
        crate::journal::append_raw(&path, b"{\"at_ms\": \xff}\n").unwrap();
        activity.record(record("two"));
        activity.flush();
        crate::journal::append_raw(&path, b"{\"at_ms\": 1, \"sour").unwrap();
        let again = Activity::open(&path, Vec::new());
        // The torn line was cut: the next record is a line of its own.
        again.record(record("three"));
        again.flush();
        let texts = |a: &Activity| -> Vec<String> {
            a.recent(10, |_| true).into_iter().map(|r| r.text).collect()
        };
        assert_eq!(texts(&again), vec!["three", "two", "one"]);
        let third = Activity::open(&path, Vec::new());
        assert_eq!(texts(&third), vec!["three", "two", "one"]);
    }

    #[test]
    fn the_journal_stays_bounded_and_secrets_never_enter_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".activity.jsonl");
        let activity = Activity::open(&path, vec!["4711".into()]);
        for i in 0..(2 * KEEP + 5) {
            activity.record(record(&format!("yes 4711 #{i}")));
        }
        activity.flush();
        let journal = std::fs::read_to_string(&path).unwrap();
        assert!(journal.lines().count() <= 2 * KEEP);
        // The secret is in no field (a timestamp may hold the same digits by chance: the
        // fields are compared, not the raw line).
        for line in journal.lines() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            for (key, value) in record.as_object().unwrap() {
                if let Some(text) = value.as_str() {
                    assert!(!text.contains("4711"), "{key}: {text}");
                }
            }
        }
        assert_eq!(activity.recent(usize::MAX, |_| true).len(), KEEP);
        let newest = &activity.recent(1, |_| true)[0];
        assert_eq!(newest.text, format!("yes *** #{}", 2 * KEEP + 4));
        assert_eq!(newest.trace[0], format!("said yes *** #{}", 2 * KEEP + 4));
    }

    #[test]
    fn ids_a_caller_sent_are_redacted_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".activity.jsonl");
        let activity = Activity::open(&path, vec!["hunter2-token".into()]);
        let mut pasted = record("approve");
        pasted.approval_id = Some("hunter2-token".into());
        pasted.session_id = Some("sk-proj-ABCDEFGH12345678".into());
        activity.record(pasted);
        activity.flush();
        let journal = std::fs::read_to_string(&path).unwrap();
        assert!(!journal.contains("hunter2"), "{journal}");
        assert!(!journal.contains("ABCDEFGH"), "{journal}");
        let newest = &activity.recent(1, |_| true)[0];
        assert_eq!(newest.approval_id.as_deref(), Some("***"));
        assert_eq!(newest.text, "approve");
    }
}
