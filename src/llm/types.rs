//! Provider-neutral request, response and error types.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::message::{Message, ToolCall};

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    /// One line restating the required parameters, for models with `short_descriptions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_description: Option<String>,
    /// Always sent, even to models with a `max_tools` limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub core: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    #[default]
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call tools.
    None,
    /// The model must call this tool.
    Named(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    pub system: Option<String>,
    pub messages: Vec<Message>,
    /// Shared: every request of a run offers the same tools (built once per run).
    pub tools: std::sync::Arc<[ToolDef]>,
    pub tool_choice: ToolChoice,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    /// The JSON Schema of every reply the model may give (a call of one of `tools`, or a final
    /// answer), for text models whose server can constrain its output; others ignore it.
    pub reply_schema: Option<std::sync::Arc<Value>>,
    /// What belongs to this command only (the speaker's device, the command's candidates, the
    /// reply language). Renderers put it after everything that stays the same from request to
    /// request (rules, home summary, tool catalogue), so a server's prompt cache (llama.cpp
    /// `cache_prompt`) serves that fixed part instead of evaluating it again.
    pub context: Option<String>,
}

impl ChatRequest {
    /// The system text for a provider with native tools: the fixed part, then the context.
    pub fn system_text(&self) -> Option<String> {
        match (&self.system, &self.context) {
            (Some(s), Some(c)) => Some(format!("{s}{c}")),
            (Some(s), None) => Some(s.clone()),
            (None, Some(c)) => Some(c.trim_start().to_owned()),
            (None, None) => None,
        }
    }

    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    ToolCalls,
    MaxTokens,
    ContentFilter,
    Other(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A tool call the text fallback found but refused, for the loop to report to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedCall {
    pub name: String,
    pub reason: String,
}

/// How many attempts one model took, and how the last one ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelAttempts {
    pub model: String,
    pub attempts: u32,
    /// `None` when the model answered.
    pub error: Option<String>,
    /// The HTTP status of the last failure, when it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub rejected: Vec<RejectedCall>,
    pub stop: StopReason,
    pub usage: Option<Usage>,
    /// Opaque per-message data to keep in history (see [`super::message::Message::Assistant`]).
    pub provider_data: Option<Value>,
    /// The configured name of the model that answered.
    pub model: String,
    /// Every model tried, in order, with its attempt count.
    pub attempts: Vec<ModelAttempts>,
}

impl ChatResponse {
    /// The assistant message to append to history.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
            provider_data: self.provider_data.clone(),
            aborted: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// No TCP/TLS connection, or it broke while reading. Retryable.
    #[error("cannot reach {model}: {reason}")]
    Connect { model: String, reason: String },
    /// Connect, request or stream-idle timeout. Retryable.
    #[error("{model} timed out: {what}")]
    Timeout { model: String, what: String },
    /// The provider answered with an HTTP error. 408, 429 and 5xx are retryable.
    #[error("{model} answered HTTP {status}: {body}")]
    Http {
        model: String,
        status: u16,
        body: String,
        retry_after: Option<Duration>,
    },
    /// A 2xx body we cannot read (invalid JSON, missing fields). Retryable: proxies and
    /// overloaded servers produce these transiently.
    #[error("{model} sent a response we cannot read: {reason}")]
    InvalidResponse { model: String, reason: String },
    /// The stream ended before the reply was complete. Retryable.
    #[error("{model} stream ended early: {reason}")]
    StreamCut { model: String, reason: String },
    /// Every model failed; the attempts say how.
    #[error("every model failed: {}", summary(.attempts))]
    Exhausted { attempts: Vec<ModelAttempts> },
    /// A request we cannot build (configuration). Not retryable.
    #[error("{0}")]
    Config(String),
}

fn summary(attempts: &[ModelAttempts]) -> String {
    attempts
        .iter()
        .map(|a| {
            format!(
                "{} ({} attempt{}: {})",
                a.model,
                a.attempts,
                if a.attempts == 1 { "" } else { "s" },
                a.error.as_deref().unwrap_or("ok")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl LlmError {
    /// Every model refused the request itself as malformed (HTTP 400): the history, not the
    /// provider, is the problem.
    pub fn is_request_rejected(&self) -> bool {
        match self {
            Self::Exhausted { attempts } => {
                !attempts.is_empty() && attempts.iter().all(|a| a.http_status == Some(400))
            }
            Self::Http { status, .. } => *status == 400,
            _ => false,
        }
    }

    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Connect { .. }
            | Self::Timeout { .. }
            | Self::InvalidResponse { .. }
            | Self::StreamCut { .. } => true,
            Self::Http { status, .. } => *status == 408 || *status == 429 || *status >= 500,
            Self::Exhausted { .. } | Self::Config(_) => false,
        }
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryability_follows_the_status_classes() {
        let http = |status| LlmError::Http {
            model: "m".into(),
            status,
            body: String::new(),
            retry_after: None,
        };
        for status in [408, 429, 500, 502, 503, 529] {
            assert!(http(status).is_retryable(), "{status}");
        }
        for status in [400, 401, 403, 404, 422] {
            assert!(!http(status).is_retryable(), "{status}");
        }
        assert!(
            LlmError::StreamCut {
                model: "m".into(),
                reason: "eof".into()
            }
            .is_retryable()
        );
        assert!(!LlmError::Config("x".into()).is_retryable());
    }

    #[test]
    fn exhausted_errors_summarise_every_model() {
        let err = LlmError::Exhausted {
            attempts: vec![
                ModelAttempts {
                    model: "a".into(),
                    attempts: 8,
                    error: Some("HTTP 503".into()),
                    http_status: Some(503),
                },
                ModelAttempts {
                    model: "b".into(),
                    attempts: 1,
                    error: Some("HTTP 401".into()),
                    http_status: Some(401),
                },
            ],
        };
        assert_eq!(
            err.to_string(),
            "every model failed: a (8 attempts: HTTP 503); b (1 attempt: HTTP 401)"
        );
    }
}
