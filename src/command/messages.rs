//! What a transport hands the front door and gets back: the command, its outcome (a run's, a
//! decline's, an approval's) and the typed error with its code and whether a retry may help.

use serde::{Deserialize, Serialize};

use crate::agent::act::approval::{ApprovalError, ExecuteError};
use crate::agent::act::verify::ActionReport;
use crate::agent::{RunResult, RunStatus, Stats};
use crate::ha::services::CallError;
use crate::session::manager::SessionError;

use super::activity::Source;

/// A command as every transport hands it over.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CommandRequest {
    pub text: String,
    /// `None` starts a new conversation.
    pub session_id: Option<String>,
    /// The language the person speaks (`en`, `pl`, `de-DE`, …); the reply is written in it.
    pub language: Option<String>,
    /// The Home Assistant device the person spoke to (a voice satellite's `device_id`): a
    /// request that names no room means its room.
    pub device_id: Option<String>,
    /// The Assist satellite entity the person spoke to (`assist_satellite.kitchen`, as Home
    /// Assistant 2026.11's Wyoming conversation sends it): its device, when `device_id` is not
    /// given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub satellite_id: Option<String>,
    /// Plan and validate only: no service is called.
    pub dry_run: bool,
    /// The session is one that clients share because they cannot name their conversation
    /// (Assist over Home Assistant 2025.4's Wyoming client): approving in it needs a PIN. Set
    /// by the transport, never taken from the wire.
    #[serde(skip)]
    pub shared_session: bool,
    /// The entry point, for the activity list; set by the transport.
    #[serde(skip)]
    pub source: Source,
}

/// A retried request with the same key gets the first answer. `scope` keeps one transport's
/// keys apart from another's (an HTTP `Idempotency-Key` and an MQTT `request_id` may collide).
#[derive(Debug, Clone, PartialEq)]
pub struct IdempotencyKey {
    pub scope: &'static str,
    pub key: String,
}

impl IdempotencyKey {
    /// Keys longer than this are refused by the transports as malformed.
    pub const MAX_LEN: usize = 200;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Done,
    /// The reply is a question; the next message in the same session continues.
    ClarificationRequired,
    /// A high-risk action waits for [`Commands::approve`] with the `approval_id`.
    ApprovalRequired,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::ClarificationRequired => "clarification_required",
            Self::ApprovalRequired => "approval_required",
            Self::Failed => "failed",
        }
    }
}

/// What a command did and what the person is told. Serialised as-is by every transport.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandOutcome {
    pub status: Status,
    pub reply: String,
    pub session_id: String,
    /// Service calls Home Assistant accepted, in order, each verified or not.
    pub actions: Vec<ActionReport>,
    pub trace: Vec<String>,
    pub stats: Stats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// Why the command failed (status `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every model failed after something had already run: `actions` says what, `error` why.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub model_unavailable: bool,
    /// Notes about the session itself (a damaged file set aside, a failed write).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl CommandOutcome {
    pub(super) fn from_run(session_id: String, result: RunResult, warnings: Vec<String>) -> Self {
        let (status, error, model_unavailable) = match result.status {
            RunStatus::Done => (Status::Done, None, false),
            RunStatus::ClarificationRequired => (Status::ClarificationRequired, None, false),
            RunStatus::ApprovalRequired => (Status::ApprovalRequired, None, false),
            RunStatus::Failed(reason) => (Status::Failed, Some(reason), false),
            RunStatus::ModelUnavailable(reason) => (Status::Failed, Some(reason), true),
        };
        Self {
            status,
            reply: result.reply,
            session_id,
            actions: result.actions,
            trace: result.trace,
            stats: result.stats,
            approval_id: result.approval.map(|a| a.id),
            error,
            model_unavailable,
            warnings,
        }
    }

    /// An action Home Assistant accepted without the expected state showing up.
    pub fn has_unverified_action(&self) -> bool {
        self.actions.iter().any(|a| !a.verified)
    }
}

/// A declined action: nothing ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeclineOutcome {
    pub status: Status,
    pub reply: String,
    pub approval_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// What an approved action did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalOutcome {
    pub status: Status,
    pub reply: String,
    pub approval_id: String,
    /// The session that asked for the action; its history now records that it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub actions: Vec<ActionReport>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Why a command or an approval was not carried out. `kind` is the stable code transports
/// map to their own status (HTTP) or pass on (`{"code", "message"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    #[serde(rename = "code")]
    pub kind: ErrorKind,
    pub message: String,
    /// What the run did before it failed (the recogniser's reading, the stages it went
    /// through): kept for the activity list, where a person reads why nothing happened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    InvalidFields,
    HaUnavailable,
    Busy,
    InvalidSessionId,
    TooLong,
    Storage,
    ShuttingDown,
    /// No model answered and nothing ran.
    LlmUnavailable,
    IdempotencyKeyReused,
    /// A repeat arrived for a request that ended without an answer; it may be retried.
    InProgress,
    UnknownApproval,
    AlreadyUsed,
    Expired,
    Denied,
    HaError,
    InvalidCall,
}

impl ErrorKind {
    /// Nothing ran (or it is safe to run again): such an answer is not kept for the key.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            Self::HaUnavailable
                | Self::Busy
                | Self::Storage
                | Self::ShuttingDown
                | Self::LlmUnavailable
                | Self::InProgress
                | Self::HaError
        )
    }
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            trace: Vec::new(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::InvalidFields => "invalid_fields",
            ErrorKind::HaUnavailable => "ha_unavailable",
            ErrorKind::Busy => "busy",
            ErrorKind::InvalidSessionId => "invalid_session_id",
            ErrorKind::TooLong => "too_long",
            ErrorKind::Storage => "storage",
            ErrorKind::ShuttingDown => "shutting_down",
            ErrorKind::LlmUnavailable => "llm_unavailable",
            ErrorKind::IdempotencyKeyReused => "idempotency_key_reused",
            ErrorKind::InProgress => "in_progress",
            ErrorKind::UnknownApproval => "unknown_approval",
            ErrorKind::AlreadyUsed => "already_used",
            ErrorKind::Expired => "expired",
            ErrorKind::Denied => "denied",
            ErrorKind::HaError => "ha_error",
            ErrorKind::InvalidCall => "invalid_call",
        }
    }
}

impl From<SessionError> for CommandError {
    fn from(e: SessionError) -> Self {
        let kind = match &e {
            SessionError::Busy { .. } => ErrorKind::Busy,
            SessionError::InvalidId(_) => ErrorKind::InvalidSessionId,
            SessionError::TooLong { .. } => ErrorKind::TooLong,
            SessionError::Store(_) => ErrorKind::Storage,
            SessionError::Closed => ErrorKind::ShuttingDown,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<ApprovalError> for CommandError {
    fn from(e: ApprovalError) -> Self {
        ExecuteError::Approval(e).into()
    }
}

impl From<ExecuteError> for CommandError {
    fn from(e: ExecuteError) -> Self {
        let kind = match &e {
            ExecuteError::Approval(ApprovalError::Unknown(_)) => ErrorKind::UnknownApproval,
            ExecuteError::Approval(ApprovalError::AlreadyUsed(_)) => ErrorKind::AlreadyUsed,
            ExecuteError::Approval(ApprovalError::Expired(_)) => ErrorKind::Expired,
            ExecuteError::Approval(ApprovalError::Denied(_)) => ErrorKind::Denied,
            // The action could not be held: nothing ran, and a retry may succeed.
            ExecuteError::Approval(ApprovalError::NoRandomness(_)) => ErrorKind::Storage,
            ExecuteError::Call(CallError::Ha(_)) => ErrorKind::HaError,
            ExecuteError::Call(_) => ErrorKind::InvalidCall,
        };
        Self::new(kind, e.to_string())
    }
}

/// The guard decisions of a run, as one number for the activity plots.
pub(super) fn guard_events(stats: &Stats) -> u32 {
    stats.breaker_hits
        + stats.loop_warnings
        + stats.loop_blocks
        + stats.hallucination_retries
        + stats.repaired_messages
        + stats.fallbacks_used
}
