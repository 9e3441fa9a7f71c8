//! OpenAI-compatible Chat Completions (OpenAI, Groq, Ollama, llama.cpp server, vLLM,
//! OpenRouter): request rendering, response parsing and the SSE stream accumulator. Pure.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::message::{Message, ToolCall};
use super::types::{ChatRequest, StopReason, ToolChoice, Usage};
use super::wire::WireReply;

pub fn render(request: &ChatRequest, model: &str, stream: bool) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = request.system_text() {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in &request.messages {
        messages.push(match m {
            Message::System { content } => json!({"role": "system", "content": content}),
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                let mut msg = json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    msg["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function", "function": {
                                "name": c.name,
                                "arguments": match &c.arguments {
                                    Value::String(s) => s.clone(),
                                    other => other.to_string(),
                                }
                            }})
                        })
                        .collect();
                    if content.is_empty() {
                        msg["content"] = Value::Null;
                    }
                }
                msg
            }
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
        });
    }
    let mut body = json!({"model": model, "messages": messages});
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body["tool_choice"] = match &request.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::Required => json!("required"),
            ToolChoice::None => json!("none"),
            ToolChoice::Named(name) => json!({"type": "function", "function": {"name": name}}),
        };
    }
    if let Some(schema) = &request.reply_schema {
        body["response_format"] = json!({"type": "json_schema", "json_schema": {
            "name": "homeclaw_reply", "strict": true, "schema": schema.as_ref()}});
    }
    if let Some(max) = request.max_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

fn stop_reason(reason: Option<&str>, has_calls: bool) -> StopReason {
    match reason {
        Some("stop") | None if has_calls => StopReason::ToolCalls,
        Some("stop") | None => StopReason::EndTurn,
        Some("tool_calls" | "function_call") => StopReason::ToolCalls,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.to_owned()),
    }
}

fn usage(value: &Value) -> Option<Usage> {
    let u = value.get("usage").filter(|u| u.is_object())?;
    Some(Usage {
        input_tokens: u["prompt_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["completion_tokens"].as_u64().unwrap_or(0),
    })
}

/// Arguments arrive as a JSON string; unparsable ones are kept as the string.
fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

pub fn parse(body: &Value) -> Result<WireReply, String> {
    let choice = body
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("no choices in the response")?;
    let message = choice.get("message").ok_or("choice without a message")?;
    let text = message["content"].as_str().unwrap_or_default().to_owned();
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, call) in calls.iter().enumerate() {
            let function = &call["function"];
            let name = function["name"]
                .as_str()
                .ok_or("tool call without a function name")?;
            tool_calls.push(ToolCall {
                id: call["id"]
                    .as_str()
                    .map_or_else(|| format!("call_{i}"), str::to_owned),
                name: name.to_owned(),
                arguments: match &function["arguments"] {
                    Value::String(s) => parse_arguments(s),
                    Value::Null => json!({}),
                    other => other.clone(),
                },
                provider_data: None,
            });
        }
    }
    let stop = stop_reason(choice["finish_reason"].as_str(), !tool_calls.is_empty());
    Ok(WireReply {
        text,
        tool_calls,
        stop,
        usage: usage(body),
        provider_data: None,
    })
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Accumulates streamed chunks into a whole reply: text deltas pass through, tool-call
/// fragments (keyed by `index`) are joined.
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    text: String,
    calls: BTreeMap<u64, PartialCall>,
    finish: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl StreamAccumulator {
    /// Feeds one SSE `data` payload.
    pub fn feed(&mut self, data: &str) -> Result<(), String> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| format!("bad stream chunk: {e}"))?;
        if let Some(u) = usage(&chunk) {
            self.usage = Some(u);
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(());
        };
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish = Some(reason.to_owned());
        }
        let delta = &choice["delta"];
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (pos, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().unwrap_or(pos as u64);
                let partial = self.calls.entry(index).or_default();
                if let Some(id) = call["id"].as_str() {
                    partial.id = id.to_owned();
                }
                if let Some(name) = call["function"]["name"].as_str() {
                    partial.name.push_str(name);
                }
                if let Some(args) = call["function"]["arguments"].as_str() {
                    partial.arguments.push_str(args);
                }
            }
        }
        if let Some(text) = delta["content"].as_str() {
            self.text.push_str(text);
        }
        Ok(())
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The whole reply. A stream that ended without `[DONE]` or a finish reason, or with a
    /// tool call whose arguments are not complete JSON, was cut.
    pub fn finish(self) -> Result<WireReply, String> {
        if !self.done && self.finish.is_none() {
            return Err("stream ended without [DONE] or a finish reason".into());
        }
        let mut tool_calls = Vec::new();
        for (index, call) in self.calls {
            if call.name.is_empty() {
                return Err(format!("streamed tool call {index} has no name"));
            }
            if !call.arguments.trim().is_empty()
                && serde_json::from_str::<Value>(&call.arguments).is_err()
            {
                return Err(format!(
                    "streamed tool call {} has incomplete arguments",
                    call.name
                ));
            }
            tool_calls.push(ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{index}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: parse_arguments(&call.arguments),
                provider_data: None,
            });
        }
        let stop = stop_reason(self.finish.as_deref(), !tool_calls.is_empty());
        Ok(WireReply {
            text: self.text,
            tool_calls,
            stop,
            usage: self.usage,
            provider_data: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::ToolDef;
    use pretty_assertions::assert_eq;

    fn call(id: &str, name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args,
            provider_data: None,
        }
    }

    #[test]
    fn history_renders_calls_and_results_in_order() {
        let c1 = call("a", "get_state", json!({"entity_id": "light.x"}));
        let c2 = call("b", "get_state", json!({"entity_id": "light.y"}));
        let request = ChatRequest {
            system: Some("sys".into()),
            messages: vec![
                Message::user("hi"),
                Message::assistant_calls("", vec![c1.clone(), c2.clone()]),
                Message::tool_result(&c1, "on", false),
                Message::tool_result(&c2, "off", false),
            ],
            tools: vec![ToolDef {
                name: "get_state".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
                ..Default::default()
            }]
            .into(),
            tool_choice: ToolChoice::Named("get_state".into()),
            max_tokens: Some(100),
            temperature: Some(0.0),
            reply_schema: None,
            context: None,
        };
        let body = render(&request, "gpt-x", false);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "get_state", "arguments": "{\"entity_id\":\"light.x\"}"}},
                    {"id": "b", "type": "function", "function": {"name": "get_state", "arguments": "{\"entity_id\":\"light.y\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "a", "content": "on"},
                {"role": "tool", "tool_call_id": "b", "content": "off"}
            ])
        );
        assert_eq!(
            body["tool_choice"],
            json!({"type": "function", "function": {"name": "get_state"}})
        );
        assert_eq!(body["max_tokens"], 100);
        assert!(body.get("stream").is_none());
    }

    #[test]
    fn parallel_calls_parse_with_ids_and_usage() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [
              {"id": "call_1", "type": "function", "function": {"name": "get_state", "arguments": "{\"entity_id\": \"light.x\"}"}},
              {"id": "call_2", "type": "function", "function": {"name": "get_state", "arguments": "not json"}}
            ]}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30}});
        let reply = parse(&body).unwrap();
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(
            reply.tool_calls[0].arguments,
            json!({"entity_id": "light.x"})
        );
        assert_eq!(reply.tool_calls[1].arguments, json!("not json"));
        assert_eq!(reply.stop, StopReason::ToolCalls);
        assert_eq!(
            reply.usage,
            Some(Usage {
                input_tokens: 120,
                output_tokens: 30
            })
        );
        assert!(parse(&json!({"error": "x"})).is_err());
    }

    #[test]
    fn stream_chunks_accumulate_into_whole_calls() {
        let chunks = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Checking"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":" now."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"get_state","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"entity_id\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c1","function":{"name":"list_areas","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"light.x\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#,
            "[DONE]",
        ];
        let mut acc = StreamAccumulator::default();
        for chunk in chunks {
            acc.feed(chunk).unwrap();
        }
        let reply = acc.finish().unwrap();
        assert_eq!(reply.text, "Checking now.");
        assert_eq!(
            reply.tool_calls,
            vec![
                call("c0", "get_state", json!({"entity_id": "light.x"})),
                call("c1", "list_areas", json!({}))
            ]
        );
        assert_eq!(reply.usage.unwrap().output_tokens, 7);
    }

    #[test]
    fn a_stream_cut_mid_tool_call_is_an_error() {
        let mut acc = StreamAccumulator::default();
        acc.feed(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"get_state","arguments":"{\"entity"}}]}}]}"#)
            .unwrap();
        assert!(acc.finish().unwrap_err().contains("without [DONE]"));

        let mut acc = StreamAccumulator::default();
        acc.feed(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"get_state","arguments":"{\"entity"}}]},"finish_reason":"tool_calls"}]}"#)
            .unwrap();
        assert!(acc.finish().unwrap_err().contains("incomplete arguments"));
    }
}
