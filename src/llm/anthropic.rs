//! Anthropic Messages API: request rendering and response parsing. Pure.
//!
//! Anthropic wants strictly alternating user/assistant turns with tool results as
//! `tool_result` blocks in a user turn, so consecutive messages of one side are merged.
//! Thinking blocks are opaque and must be sent back unchanged: they ride in the assistant
//! message's `provider_data.anthropic_blocks`.

use serde_json::{Value, json};

use super::message::{Message, ToolCall};
use super::types::{ChatRequest, StopReason, ToolChoice, Usage};
use super::wire::WireReply;

/// Required by the API; used when the request sets no limit.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
pub const API_VERSION: &str = "2023-06-01";
const OPAQUE_KEY: &str = "anthropic_blocks";

fn push(turns: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    if let Some(last) = turns.last_mut()
        && last["role"] == role
        && let Some(content) = last["content"].as_array_mut()
    {
        content.extend(blocks);
        return;
    }
    turns.push(json!({"role": role, "content": blocks}));
}

pub fn render(request: &ChatRequest, model: &str) -> Value {
    let mut system: Vec<String> = request.system_text().into_iter().collect();
    let mut turns: Vec<Value> = Vec::new();
    for m in &request.messages {
        match m {
            Message::System { content } => system.push(content.clone()),
            Message::User { content } => {
                push(
                    &mut turns,
                    "user",
                    vec![json!({"type": "text", "text": content})],
                );
            }
            Message::Assistant {
                content,
                tool_calls,
                provider_data,
                ..
            } => {
                let mut blocks: Vec<Value> = provider_data
                    .as_ref()
                    .and_then(|d| d.get(OPAQUE_KEY))
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for call in tool_calls {
                    let input = if call.arguments.is_object() {
                        call.arguments.clone()
                    } else {
                        json!({})
                    };
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name,
                        "input": input}));
                }
                push(&mut turns, "assistant", blocks);
            }
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": tool_call_id, "content": content});
                if *is_error {
                    block["is_error"] = json!(true);
                }
                push(&mut turns, "user", vec![block]);
            }
        }
    }
    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": turns,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        body["tool_choice"] = match &request.tool_choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Named(name) => json!({"type": "tool", "name": name}),
        };
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    body
}

pub fn parse(body: &Value) -> Result<WireReply, String> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no content in the response")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut opaque = Vec::new();
    for block in content {
        match block["type"].as_str() {
            Some("text") => text.push_str(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: block["id"]
                    .as_str()
                    .ok_or("tool_use without id")?
                    .to_owned(),
                name: block["name"]
                    .as_str()
                    .ok_or("tool_use without name")?
                    .to_owned(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
                provider_data: None,
            }),
            // thinking, redacted_thinking and future block types: keep verbatim.
            _ => opaque.push(block.clone()),
        }
    }
    let stop = match body["stop_reason"].as_str() {
        Some("end_turn" | "stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolCalls,
        Some("max_tokens") => StopReason::MaxTokens,
        Some("refusal") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.to_owned()),
        None if !tool_calls.is_empty() => StopReason::ToolCalls,
        None => StopReason::EndTurn,
    };
    let usage = body.get("usage").map(|u| Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
    });
    Ok(WireReply {
        text,
        tool_calls,
        stop,
        usage,
        provider_data: (!opaque.is_empty()).then(|| json!({ OPAQUE_KEY: opaque })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn tool_results_merge_into_one_user_turn_and_thinking_goes_back_first() {
        let body = json!({"content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_state", "input": {"entity_id": "light.a"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_state", "input": {"entity_id": "light.b"}}
        ], "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}});
        let reply = parse(&body).unwrap();
        assert_eq!(reply.stop, StopReason::ToolCalls);
        let assistant = Message::Assistant {
            content: reply.text.clone(),
            tool_calls: reply.tool_calls.clone(),
            provider_data: reply.provider_data.clone(),
            aborted: false,
        };
        let request = ChatRequest {
            system: Some("sys".into()),
            messages: vec![
                Message::user("lights?"),
                assistant,
                Message::tool_result(&reply.tool_calls[0], "on", false),
                Message::tool_result(&reply.tool_calls[1], "gone", true),
                Message::user("and?"),
            ],
            tool_choice: ToolChoice::Required,
            tools: vec![crate::llm::types::ToolDef {
                name: "get_state".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        };
        let wire = render(&request, "claude-x");
        assert_eq!(wire["system"], "sys");
        assert_eq!(wire["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(wire["tool_choice"], json!({"type": "any"}));
        assert_eq!(
            wire["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "lights?"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_state", "input": {"entity_id": "light.a"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "get_state", "input": {"entity_id": "light.b"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "on"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "gone", "is_error": true},
                    {"type": "text", "text": "and?"}
                ]}
            ])
        );
    }

    #[test]
    fn malformed_bodies_are_errors() {
        assert!(parse(&json!({"type": "error"})).is_err());
        assert!(parse(&json!({"content": [{"type": "tool_use", "name": "x"}]})).is_err());
    }
}
