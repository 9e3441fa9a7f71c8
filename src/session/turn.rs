//! What goes into a session and what comes out of it.

use std::sync::Arc;

use super::store::StoreError;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::act::verify::ActionReport;
use crate::agent::{AgentConfig, Home, RunResult, ToolRegistry};
use crate::llm::ChatModel;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    /// The session's queue is full; retry later.
    #[error("session {session_id} is busy: {capacity} commands are already waiting")]
    Busy { session_id: String, capacity: usize },
    /// Not retryable.
    #[error("invalid session id {0:?}: use 1-64 letters, digits, '-' or '_'")]
    InvalidId(String),
    /// The message could not be stored (disk full, read-only, invalid); nothing ran.
    #[error("{0}")]
    Store(String),
    /// Not retryable as is.
    #[error("message too long: {len} characters, at most {max}")]
    TooLong { len: usize, max: usize },
    /// The service is shutting down.
    #[error("HomeClaw is shutting down")]
    Closed,
}

impl From<StoreError> for SessionError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::InvalidId(id) => SessionError::InvalidId(id),
            other => SessionError::Store(other.to_string()),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    pub text: String,
    /// A checked language tag; the reply is written in it.
    pub language: Option<String>,
    /// A known Home Assistant device the person spoke to.
    pub device_id: Option<String>,
    pub dry_run: bool,
    /// Clients share this session without naming their conversation: approving in it needs
    /// a PIN.
    pub shared_session: bool,
}

#[derive(Debug, Clone)]
pub struct TurnOutcome {
    pub session_id: String,
    pub result: RunResult,
    /// Notes about the session itself (a damaged file set aside, a failed write).
    pub warnings: Vec<String>,
}

/// What every worker needs to run the agent.
pub struct AgentDeps {
    pub model: Arc<dyn ChatModel>,
    pub home: Arc<dyn Home>,
    pub tools: ToolRegistry,
    pub cfg: AgentConfig,
    pub approvals: Arc<ApprovalStore>,
    pub secrets: Vec<String>,
}

/// An approved action that ran in its session.
#[derive(Debug, Clone)]
pub struct Approved {
    pub report: ActionReport,
    /// What the person is told, in their language.
    pub reply: String,
    /// Notes about the session itself (a failed write).
    pub warnings: Vec<String>,
}
