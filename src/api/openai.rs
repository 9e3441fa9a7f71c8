//! OpenAI-compatible front: `POST /v1/chat/completions` and `GET /v1/models`, so any client
//! that lets you set a base URL (including Home Assistant's OpenAI-compatible conversation
//! integrations) can use HomeClaw as if it were a model.
//!
//! The last user message is the command; the reply is the agent's final answer. The session is
//! the `user` field when given, else derived from the conversation's first user message, so a
//! client that resends the whole conversation stays in one session. Streaming sends the final
//! answer as chat-completion chunks once the run has finished (tool rounds are not streamed:
//! they are not the answer).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ApiError, ApiState, read_json, run_command};
use crate::session::manager::CommandRequest;

pub const MODEL_ID: &str = "homeclaw";

#[derive(Debug, Deserialize)]
struct ChatBody {
    #[serde(default)]
    messages: Vec<ChatMessage>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    user: Option<String>,
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
        dry_run: false,
    };
    let (_, outcome) = match run_command(&state, &session_id, request).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let reply = outcome["reply"].as_str().unwrap_or_default().to_owned();
    let stats = &outcome["stats"];
    let id = format!("chatcmpl-{:016x}", fastrand::u64(..));
    let created = now();
    let usage = json!({
        "prompt_tokens": stats["input_tokens"],
        "completion_tokens": stats["output_tokens"],
        "total_tokens": stats["input_tokens"].as_u64().unwrap_or(0) + stats["output_tokens"].as_u64().unwrap_or(0),
    });
    if !parsed.stream {
        return axum::Json(json!({
            "id": id,
            "object": "chat.completion",
            "created": created,
            "model": MODEL_ID,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                "finish_reason": "stop"}],
            "usage": usage,
            "homeclaw": {"status": outcome["status"], "session_id": session_id,
                "actions": outcome["actions"], "approval_id": outcome.get("approval_id")},
        }))
        .into_response();
    }
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": created,
            "model": MODEL_ID, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    // Word-sized pieces, so clients render progressively.
    let mut piece = String::new();
    for word in reply.split_inclusive(' ') {
        piece.push_str(word);
        if piece.len() >= 24 {
            events.push(chunk(
                json!({"content": std::mem::take(&mut piece)}),
                Value::Null,
            ));
        }
    }
    if !piece.is_empty() {
        events.push(chunk(json!({"content": piece}), Value::Null));
    }
    events.push(chunk(json!({}), json!("stop")));
    let mut text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    text.push_str("data: [DONE]\n\n");
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from(text))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(messages: Value, user: Option<&str>) -> ChatBody {
        ChatBody {
            messages: serde_json::from_value(messages).unwrap(),
            stream: false,
            user: user.map(str::to_owned),
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
