//! Crash-safe JSONL persistence: one file per session, one message per line.
//!
//! Invariants:
//! - A message is validated before it is written (pairing rules); an invalid one is an error,
//!   never a line on disk. Oversized messages are cut to the caps, with a marker.
//! - Writes go through [`crate::journal`]: append + fsync; a rewrite (after compaction) goes to
//!   a temporary file that is fsynced and renamed over the old one, then the directory is
//!   fsynced, so a crash leaves the old or the new file.
//! - A torn last line (crash mid-write) is dropped on load with a warning and cut from the file.
//! - A file that is corrupt elsewhere is moved aside and the session starts fresh with a note;
//!   loading never fails the caller.
//! - Session ids are checked before they touch the file system (no path tricks).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tracing::warn;

use crate::agent::model::truncate::truncate;
use crate::llm::Message;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The id cannot name a file. Not retryable.
    #[error("invalid session id {0:?}: use 1-64 letters, digits, '-' or '_'")]
    InvalidId(String),
    /// The message breaks the history's rules. Not retryable.
    #[error("message not stored: {0}")]
    Invalid(String),
    /// The disk refused (full, read-only, permissions). Retryable once the disk is fixed.
    #[error("cannot write session {id}: {reason}")]
    Io { id: String, reason: String },
}

/// What loading found besides the messages.
#[derive(Debug, Default, PartialEq)]
pub struct Loaded {
    pub messages: Vec<Message>,
    /// Human-readable notes about repairs (torn line dropped, corrupt file set aside).
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Line {
    v: u32,
    #[serde(flatten)]
    message: Message,
}

#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
    /// Cap for one tool result on disk.
    persist_max_chars: usize,
    /// Cap for any other message on disk.
    max_message_chars: usize,
    secrets: Vec<String>,
}

pub fn validate_id(id: &str) -> Result<(), StoreError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(StoreError::InvalidId(id.chars().take(80).collect()))
    }
}

impl SessionStore {
    pub fn new(
        dir: impl Into<PathBuf>,
        persist_max_chars: usize,
        max_message_chars: usize,
    ) -> Self {
        Self {
            dir: dir.into(),
            persist_max_chars,
            max_message_chars,
            secrets: Vec::new(),
        }
    }

    /// Values to keep out of session files (replaced by `***`).
    pub fn with_secrets(mut self, secrets: Vec<String>) -> Self {
        self.secrets = secrets;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    fn io(id: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError::Io {
            id: id.to_owned(),
            reason: e.to_string(),
        }
    }

    /// Loads a session; a missing file is an empty session. Repairs the file: a torn last line
    /// is cut off, a damaged file set aside (the warnings say so).
    pub fn load(&self, id: &str) -> Result<Loaded, StoreError> {
        self.read(id, true)
    }

    /// Reads a session without touching the file (for viewers): the repair, and its note to
    /// the conversation, are left to the session's own worker.
    pub fn peek(&self, id: &str) -> Result<Loaded, StoreError> {
        self.read(id, false)
    }

    fn read(&self, id: &str, repair: bool) -> Result<Loaded, StoreError> {
        validate_id(id)?;
        let path = self.path(id);
        let read = crate::journal::read::<Line>(&path).map_err(|e| Self::io(id, e))?;
        // A damaged line in a conversation cannot be skipped: the messages around it (a tool
        // call and its result) belong together. The file is set aside whole.
        if let Some(bad) = read.damaged().next() {
            if !repair {
                return Ok(Loaded {
                    messages: Vec::new(),
                    warnings: vec![format!(
                        "line {} of the conversation is damaged; it will be set aside when the \
                         conversation continues",
                        bad.number
                    )],
                });
            }
            return self.set_aside(id, &path, bad.number);
        }
        let torn = read.torn();
        let mut loaded = Loaded {
            messages: read.items.into_iter().map(|l| l.message).collect(),
            warnings: Vec::new(),
        };
        if let Some(torn) = torn {
            // The process died mid-write: the torn line is cut off.
            loaded
                .warnings
                .push("the last message was cut off by a crash and was dropped".into());
            if repair {
                warn!(session = id, "Dropping a torn last line");
                crate::journal::cut(&path, torn.start).map_err(|e| Self::io(id, e))?;
            }
        }
        Ok(loaded)
    }

    /// Moves a damaged session file aside; the conversation starts fresh with a note saying so.
    fn set_aside(&self, id: &str, path: &Path, line: usize) -> Result<Loaded, StoreError> {
        let aside = self.dir.join(format!(
            "{id}.jsonl.corrupt-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or_default()
        ));
        std::fs::rename(path, &aside).map_err(|e| Self::io(id, e))?;
        warn!(session = id, aside = %aside.display(), "Corrupt session file set aside");
        let note = format!(
            "[HomeClaw] The earlier conversation could not be read (line {line} is damaged) and \
             was set aside as {}; this conversation starts fresh.",
            aside
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        );
        Ok(Loaded {
            messages: Vec::new(),
            warnings: vec![note],
        })
    }

    /// Checks `new` against `existing` and applies the size caps.
    pub fn prepare(
        &self,
        existing: &[Message],
        new: &[Message],
    ) -> Result<Vec<Message>, StoreError> {
        let calls: HashSet<&str> = existing
            .iter()
            .chain(new)
            .filter_map(|m| match m {
                Message::Assistant { tool_calls, .. } => Some(tool_calls),
                _ => None,
            })
            .flatten()
            .map(|c| c.id.as_str())
            .collect();
        let mut seen_results: HashSet<&str> = existing
            .iter()
            .filter_map(|m| match m {
                Message::Tool { tool_call_id, .. } => Some(tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        let mut out = Vec::with_capacity(new.len());
        for m in new {
            let m = match m {
                Message::Tool {
                    tool_call_id,
                    name,
                    content,
                    is_error,
                } => {
                    if !calls.contains(tool_call_id.as_str()) {
                        return Err(StoreError::Invalid(format!(
                            "tool result for unknown call {tool_call_id}"
                        )));
                    }
                    if !seen_results.insert(tool_call_id.as_str()) {
                        return Err(StoreError::Invalid(format!(
                            "second result for call {tool_call_id}"
                        )));
                    }
                    Message::Tool {
                        tool_call_id: tool_call_id.clone(),
                        name: name.clone(),
                        content: truncate(content, self.persist_max_chars),
                        is_error: *is_error,
                    }
                }
                // Commands over the limit are refused before they get here; what is left is
                // HomeClaw's own text (a summary a model wrote too long, a note). Refusing it
                // would leave the session unable to store anything ever again.
                Message::User { content } if content.chars().count() > self.max_message_chars => {
                    Message::user(truncate(content, self.max_message_chars))
                }
                Message::System { content } if content.chars().count() > self.max_message_chars => {
                    Message::system(truncate(content, self.max_message_chars))
                }
                other => other.clone(),
            };
            out.push(m);
        }
        Ok(out)
    }

    /// Appends messages durably (append, flush, fsync). `existing` is what is already stored,
    /// for validation.
    pub fn append(
        &self,
        id: &str,
        existing: &[Message],
        new: &[Message],
    ) -> Result<(), StoreError> {
        validate_id(id)?;
        if new.is_empty() {
            return Ok(());
        }
        let prepared = self.prepare(existing, new)?;
        std::fs::create_dir_all(&self.dir).map_err(|e| Self::io(id, e))?;
        let mut text = String::new();
        for message in prepared {
            text.push_str(&self.encode(id, message)?);
        }
        crate::journal::append_raw(&self.path(id), text.as_bytes()).map_err(|e| Self::io(id, e))
    }

    /// Replaces the whole session atomically (after compaction or a reset).
    pub fn rewrite(&self, id: &str, messages: &[Message]) -> Result<(), StoreError> {
        validate_id(id)?;
        let prepared = self.prepare(&[], messages)?;
        std::fs::create_dir_all(&self.dir).map_err(|e| Self::io(id, e))?;
        let mut text = String::new();
        for message in prepared {
            text.push_str(&self.encode(id, message)?);
        }
        crate::journal::rewrite_raw(&self.path(id), text.as_bytes()).map_err(|e| Self::io(id, e))
    }

    /// One line of a session file. Secrets (a token a user pasted, a key a model repeated) are
    /// replaced before they reach the disk: session files outlive logs and get copied around.
    fn encode(&self, id: &str, message: Message) -> Result<String, StoreError> {
        let line = serde_json::to_string(&Line { v: 1, message }).map_err(|e| Self::io(id, e))?;
        let mut line = crate::secret::redact(&line, &self.secrets);
        line.push('\n');
        Ok(line)
    }

    /// Whether a session file exists.
    pub fn exists(&self, id: &str) -> bool {
        validate_id(id).is_ok() && self.path(id).exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::fs::OpenOptions;
    use std::io::Write;

    fn store(dir: &tempfile::TempDir) -> SessionStore {
        SessionStore::new(dir.path(), 20_000, 100_000)
    }

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "get_state".into(),
            arguments: json!({"entity_id": "light.x"}),
            provider_data: Some(json!({"thoughtSignature": "sig"})),
        }
    }

    fn conversation() -> Vec<Message> {
        vec![
            Message::user("is light x on?"),
            Message::assistant_calls("", vec![call("c1"), call("c2")]),
            Message::tool_result(&call("c1"), "on", false),
            Message::tool_result(&call("c2"), "on", false),
            Message::assistant("Yes."),
        ]
    }

    #[test]
    fn a_session_round_trips_with_its_tool_structure() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let messages = conversation();
        s.append("s1", &[], &messages[..2]).unwrap();
        s.append("s1", &messages[..2], &messages[2..]).unwrap();
        assert_eq!(
            s.load("s1").unwrap(),
            Loaded {
                messages,
                warnings: vec![]
            }
        );
        assert_eq!(s.load("never").unwrap(), Loaded::default());
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let messages = conversation();
        s.append("s1", &[], &messages).unwrap();
        let path = dir.path().join("s1.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"v\":1,\"role\":\"user\",\"cont").unwrap();
        drop(f);
        let loaded = s.load("s1").unwrap();
        assert_eq!(loaded.messages, messages);
        assert_eq!(loaded.warnings.len(), 1);
        // The next append starts on a clean line.
        s.append("s1", &messages, &[Message::user("next")]).unwrap();
        assert_eq!(s.load("s1").unwrap().messages.len(), messages.len() + 1);
    }

    #[test]
    fn a_corrupt_file_is_set_aside_and_the_session_starts_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        std::fs::write(
            dir.path().join("s1.jsonl"),
            "{\"v\":1,\"role\":\"user\",\"content\":\"hi\"}\nGARBAGE\n{\"v\":1,\"role\":\"user\",\"content\":\"x\"}\n",
        )
        .unwrap();
        let loaded = s.load("s1").unwrap();
        assert!(loaded.messages.is_empty());
        assert!(
            loaded.warnings[0].contains("line 2"),
            "{:?}",
            loaded.warnings
        );
        assert!(!dir.path().join("s1.jsonl").exists());
        let aside = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("s1.jsonl.corrupt-")
            });
        assert!(aside);
    }

    #[test]
    fn invalid_messages_and_ids_are_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let orphan = Message::tool_result(&call("ghost"), "x", false);
        assert!(matches!(
            s.append("s1", &[], &[orphan]),
            Err(StoreError::Invalid(_))
        ));
        let twice = vec![
            Message::assistant_calls("", vec![call("c1")]),
            Message::tool_result(&call("c1"), "a", false),
            Message::tool_result(&call("c1"), "b", false),
        ];
        assert!(matches!(
            s.append("s1", &[], &twice),
            Err(StoreError::Invalid(_))
        ));
        assert!(!s.exists("s1"), "nothing was written");
        for bad in ["", "../etc/passwd", "a/b", &"x".repeat(65), "sp ace"] {
            assert!(
                matches!(s.load(bad), Err(StoreError::InvalidId(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_oversized_message_is_cut_not_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let huge = Message::user("x".repeat(100_001));
        s.append("s1", &[], &[huge]).unwrap();
        match &s.load("s1").unwrap().messages[..] {
            [Message::User { content }] => assert!(content.chars().count() <= 100_000),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn big_tool_results_are_capped_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let s = SessionStore::new(dir.path(), 2_000, 100_000);
        let big = "row\n".repeat(10_000);
        s.append(
            "s1",
            &[],
            &[
                Message::assistant_calls("", vec![call("c1")]),
                Message::tool_result(&call("c1"), big, false),
            ],
        )
        .unwrap();
        match &s.load("s1").unwrap().messages[1] {
            Message::Tool { content, .. } => assert!(content.chars().count() <= 2_000),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_rewrite_replaces_the_file_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        s.append("s1", &[], &conversation()).unwrap();
        s.rewrite("s1", &[Message::user("summary")]).unwrap();
        assert_eq!(
            s.load("s1").unwrap().messages,
            vec![Message::user("summary")]
        );
    }
}
