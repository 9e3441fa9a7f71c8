//! OpenAI-compatible front: `POST /v1/chat/completions` and `GET /v1/models`, so any client
//! that lets you set a base URL (including Home Assistant's OpenAI-compatible conversation
//! integrations) can use HomeClaw as if it were a model.
//!
//! The last user message is the command; the reply is the agent's final answer. The session is
//! the `user` field when given, else derived from the conversation's first user message, so a
//! client that resends the whole conversation stays in one session.
//!
//! Streaming streams the run as it happens: the stream opens at once with the assistant role,
//! keep-alive comments follow while the command runs (a run on a small local model takes
//! seconds; proxies and clients must not give up), and the reply arrives in chunks once the run
//! has finished and its actions are verified. The model's own words are never streamed as they
//! are sampled: they may claim what did not happen, and HomeClaw only says what it verified.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ApiError, ApiState, read_json};
use crate::command::activity::Source;
use crate::command::{CommandOutcome, CommandRequest, Commands};

/// How often a keep-alive comment is sent while a streamed command runs.
const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(5);

pub const MODEL_ID: &str = "homeclaw";

#[derive(Debug, Deserialize)]
struct ChatBody {
    #[serde(default)]
    messages: Vec<ChatMessage>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    user: Option<String>,
    /// OpenAI's free-form request metadata (strings); HomeClaw reads `device_id` and
    /// `satellite_id` there: the device the person spoke to, as on the HTTP API.
    #[serde(default)]
    metadata: std::collections::HashMap<String, Value>,
}

#[derive(Debug, Deserialize)]
struct ChatMessage {
    role: String,
    #[serde(default)]
    content: Value,
}

/// Text of a message whose content is a string or a list of `{"type": "text"}` parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn session_for(body: &ChatBody) -> String {
    if let Some(user) = &body.user {
        let clean: String = user
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .take(50)
            .collect();
        if !clean.is_empty() {
            return format!("oa-{clean}");
        }
    }
    let mut h = DefaultHasher::new();
    if let Some(first) = body.messages.iter().find(|m| m.role == "user") {
        text_of(&first.content).hash(&mut h);
    }
    format!("oa-{:016x}", h.finish())
}

fn metadata_str(body: &ChatBody, key: &str) -> Option<String> {
    body.metadata
        .get(key)
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

pub async fn models() -> Response {
    axum::Json(json!({
        "object": "list",
        "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "homeclaw"}]
    }))
    .into_response()
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

pub async fn chat_completions(State(state): State<Arc<ApiState>>, body: Body) -> Response {
    let parsed: ChatBody = match read_json(&state, body).await {
        Ok((b, _)) => b,
        Err(e) => return e.into_response(),
    };
    let Some(last) = parsed.messages.iter().rev().find(|m| m.role == "user") else {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_fields",
            "messages must contain a user message",
        )
        .into_response();
    };
    let text = text_of(&last.content);
    if text.trim().is_empty() {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_fields",
            "the user message is empty",
        )
        .into_response();
    }
    let session_id = session_for(&parsed);
    let request = CommandRequest {
        text,
        session_id: Some(session_id),
        language: None,
        device_id: metadata_str(&parsed, "device_id"),
        satellite_id: metadata_str(&parsed, "satellite_id"),
        dry_run: false,
        // Without `user`, conversations are told apart by their first message only.
        shared_session: parsed.user.is_none(),
        source: Source::Openai,
    };
    let id = format!("chatcmpl-{:016x}", fastrand::u64(..));
    let created = now();
    if !parsed.stream {
        let outcome = match state.commands.submit(request, None).await.result {
            Ok(outcome) => outcome,
            Err(e) => return ApiError::from(e).into_response(),
        };
        return axum::Json(json!({
            "id": id,
            "object": "chat.completion",
            "created": created,
            "model": MODEL_ID,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": outcome.reply},
                "finish_reason": "stop"}],
            "usage": usage(&outcome),
            "homeclaw": homeclaw_fields(&outcome),
        }))
        .into_response();
    }
    streamed(state.commands.clone(), request, id, created)
}

/// The answer as server-sent events, OpenAI's chunks: the role first, a comment while the run
/// goes on, the reply in pieces, then usage and `[DONE]`.
fn streamed(
    commands: Arc<Commands>,
    request: CommandRequest,
    id: String,
    created: u64,
) -> Response {
    let chunk = move |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": created,
            "model": MODEL_ID, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let sse = |event: &Value| format!("data: {event}\n\n");
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(16);
    tokio::spawn(async move {
        // A client that went away ends the stream, not the run: the session still records it.
        let opening = chunk(json!({"role": "assistant", "content": ""}), Value::Null);
        let _ = tx.send(sse(&opening)).await;
        let run = commands.submit(request, None);
        tokio::pin!(run);
        let mut keep_alive =
            tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        let answer = loop {
            tokio::select! {
                answer = &mut run => break answer,
                _ = keep_alive.tick() => {
                    let _ = tx.send(": running\n\n".to_owned()).await;
                }
            }
        };
        match answer.result {
            Ok(outcome) => {
                for piece in pieces(&outcome.reply) {
                    let _ = tx
                        .send(sse(&chunk(json!({"content": piece}), Value::Null)))
                        .await;
                }
                let mut last = chunk(json!({}), json!("stop"));
                last["usage"] = usage(&outcome);
                last["homeclaw"] = homeclaw_fields(&outcome);
                let _ = tx.send(sse(&last)).await;
            }
            Err(e) => {
                // The stream is open (status 200): the error travels as an event, as OpenAI's do.
                let error = json!({"error": {"code": e.code(), "message": e.message}});
                let _ = tx.send(sse(&error)).await;
            }
        }
        let _ = tx.send("data: [DONE]\n\n".to_owned()).await;
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|text| (Ok::<_, std::convert::Infallible>(text), rx))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

fn usage(outcome: &CommandOutcome) -> Value {
    let stats = &outcome.stats;
    json!({
        "prompt_tokens": stats.input_tokens,
        "completion_tokens": stats.output_tokens,
        "total_tokens": stats.input_tokens + stats.output_tokens,
    })
}

/// What HomeClaw adds to a completion: what really happened.
fn homeclaw_fields(outcome: &CommandOutcome) -> Value {
    json!({"status": outcome.status, "session_id": outcome.session_id,
        "actions": outcome.actions, "approval_id": outcome.approval_id})
}

/// The reply in word-sized pieces, so clients render it progressively.
fn pieces(reply: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut piece = String::new();
    for word in reply.split_inclusive(' ') {
        piece.push_str(word);
        if piece.len() >= 24 {
            out.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        out.push(piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(messages: Value, user: Option<&str>) -> ChatBody {
        ChatBody {
            messages: serde_json::from_value(messages).unwrap(),
            stream: false,
            user: user.map(str::to_owned),
            metadata: Default::default(),
        }
    }

    #[test]
    fn sessions_follow_the_user_field_or_the_first_message() {
        let a = body(json!([{"role": "user", "content": "hi"}]), None);
        let b = body(
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"},
                   {"role": "user", "content": "more"}]),
            None,
        );
        assert_eq!(session_for(&a), session_for(&b));
        assert_eq!(session_for(&body(json!([]), Some("../ev il"))), "oa-evil");
    }

    #[test]
    fn content_parts_are_joined() {
        assert_eq!(
            text_of(
                &json!([{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}])
            ),
            "a\nb"
        );
    }
}
