//! Gemini `generateContent`: request rendering and response parsing. Pure.
//!
//! Gemini addresses function responses by name (ids are optional), so tool results carry the
//! tool name. `thoughtSignature`s are opaque and must come back unchanged: a call's signature
//! rides in its `provider_data`, a text part's in the message's `provider_data`.

use serde_json::{Value, json};

use super::message::{Message, ToolCall};
use super::types::{ChatRequest, StopReason, ToolChoice, Usage};
use super::wire::WireReply;

const SIGNATURE: &str = "thoughtSignature";
/// Key in an assistant message's `provider_data` for the signature of its text part.
const TEXT_SIGNATURE: &str = "gemini_text_signature";
/// Prefix of ids we make up for calls that came without one.
const SYNTHETIC_ID: &str = "gemini_call_";

fn push(contents: &mut Vec<Value>, role: &str, parts: Vec<Value>) {
    if parts.is_empty() {
        return;
    }
    if let Some(last) = contents.last_mut()
        && last["role"] == role
        && let Some(existing) = last["parts"].as_array_mut()
    {
        existing.extend(parts);
        return;
    }
    contents.push(json!({"role": role, "parts": parts}));
}

pub fn render(request: &ChatRequest) -> Value {
    let mut system: Vec<String> = request.system_text().into_iter().collect();
    let mut contents = Vec::new();
    for m in &request.messages {
        match m {
            Message::System { content } => system.push(content.clone()),
            Message::User { content } => {
                push(&mut contents, "user", vec![json!({"text": content})])
            }
            Message::Assistant {
                content,
                tool_calls,
                provider_data,
                ..
            } => {
                let mut parts = Vec::new();
                if !content.is_empty() {
                    let mut part = json!({"text": content});
                    if let Some(sig) = provider_data.as_ref().and_then(|d| d.get(TEXT_SIGNATURE)) {
                        part[SIGNATURE] = sig.clone();
                    }
                    parts.push(part);
                }
                for call in tool_calls {
                    let args = if call.arguments.is_object() {
                        call.arguments.clone()
                    } else {
                        json!({})
                    };
                    let mut function_call = json!({"name": call.name, "args": args});
                    if !call.id.starts_with(SYNTHETIC_ID) {
                        function_call["id"] = json!(call.id);
                    }
                    let mut part = json!({"functionCall": function_call});
                    if let Some(sig) = call.provider_data.as_ref().and_then(|d| d.get(SIGNATURE)) {
                        part[SIGNATURE] = sig.clone();
                    }
                    parts.push(part);
                }
                push(&mut contents, "model", parts);
            }
            Message::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => {
                // The response must be an object: JSON results go in as they are.
                let value: Value = serde_json::from_str(content)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({"content": content}));
                let value = if *is_error {
                    json!({"error": value})
                } else {
                    value
                };
                let mut response = json!({"name": name, "response": value});
                if !tool_call_id.starts_with(SYNTHETIC_ID) {
                    response["id"] = json!(tool_call_id);
                }
                push(
                    &mut contents,
                    "user",
                    vec![json!({"functionResponse": response})],
                );
            }
        }
    }
    let mut body = json!({"contents": contents});
    if !system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": system.join("\n\n")}]});
    }
    if !request.tools.is_empty() {
        body["tools"] = json!([{"functionDeclarations": request.tools.iter().map(|t| json!({
            "name": t.name, "description": t.description, "parameters": t.parameters
        })).collect::<Vec<_>>()}]);
        body["toolConfig"] = json!({"functionCallingConfig": match &request.tool_choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Named(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        }});
    }
    let mut generation = serde_json::Map::new();
    if let Some(max) = request.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(t) = request.temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if !generation.is_empty() {
        body["generationConfig"] = Value::Object(generation);
    }
    body
}

pub fn parse(body: &Value) -> Result<WireReply, String> {
    let candidate = body
        .get("candidates")
        .and_then(|c| c.get(0))
        .ok_or_else(|| match body.pointer("/promptFeedback/blockReason") {
            Some(reason) => format!("prompt blocked: {reason}"),
            None => "no candidates in the response".to_owned(),
        })?;
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut text = String::new();
    let mut text_signature = None;
    let mut tool_calls = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if let Some(call) = part.get("functionCall") {
            let name = call["name"].as_str().ok_or("functionCall without a name")?;
            tool_calls.push(ToolCall {
                id: call["id"]
                    .as_str()
                    .map_or_else(|| format!("{SYNTHETIC_ID}{i}"), str::to_owned),
                name: name.to_owned(),
                arguments: call.get("args").cloned().unwrap_or_else(|| json!({})),
                provider_data: part.get(SIGNATURE).map(|s| json!({ SIGNATURE: s })),
            });
        } else if let Some(t) = part["text"].as_str() {
            if part["thought"].as_bool() == Some(true) {
                continue;
            }
            text.push_str(t);
            if let Some(sig) = part.get(SIGNATURE) {
                text_signature = Some(sig.clone());
            }
        }
    }
    let stop = match candidate["finishReason"].as_str() {
        _ if !tool_calls.is_empty() => StopReason::ToolCalls,
        Some("STOP") | None => StopReason::EndTurn,
        Some("MAX_TOKENS") => StopReason::MaxTokens,
        Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT") => {
            StopReason::ContentFilter
        }
        Some(other) => StopReason::Other(other.to_owned()),
    };
    let usage = body.get("usageMetadata").map(|u| Usage {
        input_tokens: u["promptTokenCount"].as_u64().unwrap_or(0),
        output_tokens: u["candidatesTokenCount"].as_u64().unwrap_or(0),
    });
    Ok(WireReply {
        text,
        tool_calls,
        stop,
        usage,
        provider_data: text_signature.map(|s| json!({ TEXT_SIGNATURE: s })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn thought_signatures_and_parallel_calls_survive_a_round_trip() {
        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "Let me look.", "thoughtSignature": "text-sig"},
            {"functionCall": {"name": "get_state", "args": {"entity_id": "light.a"}}, "thoughtSignature": "sig-A"},
            {"functionCall": {"id": "fc-2", "name": "get_state", "args": {"entity_id": "light.b"}}}
        ]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 4}});
        let reply = parse(&body).unwrap();
        assert_eq!(reply.stop, StopReason::ToolCalls);
        assert_eq!(reply.tool_calls[0].id, "gemini_call_1");
        assert_eq!(reply.tool_calls[1].id, "fc-2");
        let history = vec![
            Message::user("lights?"),
            Message::Assistant {
                content: reply.text.clone(),
                tool_calls: reply.tool_calls.clone(),
                provider_data: reply.provider_data.clone(),
                aborted: false,
            },
            Message::tool_result(&reply.tool_calls[0], r#"{"state": "on"}"#, false),
            Message::tool_result(&reply.tool_calls[1], "not found", true),
        ];
        let wire = render(&ChatRequest {
            messages: history,
            ..Default::default()
        });
        assert_eq!(
            wire["contents"],
            json!([
                {"role": "user", "parts": [{"text": "lights?"}]},
                {"role": "model", "parts": [
                    {"text": "Let me look.", "thoughtSignature": "text-sig"},
                    {"functionCall": {"name": "get_state", "args": {"entity_id": "light.a"}}, "thoughtSignature": "sig-A"},
                    {"functionCall": {"id": "fc-2", "name": "get_state", "args": {"entity_id": "light.b"}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "get_state", "response": {"state": "on"}}},
                    {"functionResponse": {"id": "fc-2", "name": "get_state", "response": {"error": {"content": "not found"}}}}
                ]}
            ])
        );
        // Parsing the model turn we rendered gives back the same calls and signatures.
        let again = parse(&json!({"candidates": [{"content": wire["contents"][1]}]})).unwrap();
        assert_eq!(again.tool_calls, reply.tool_calls);
        assert_eq!(again.provider_data, reply.provider_data);
    }

    #[test]
    fn tool_choice_maps_to_function_calling_modes() {
        let request = ChatRequest {
            tools: vec![crate::llm::types::ToolDef {
                name: "get_state".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
                ..Default::default()
            }]
            .into(),
            tool_choice: ToolChoice::Named("get_state".into()),
            system: Some("sys".into()),
            max_tokens: Some(64),
            ..Default::default()
        };
        let wire = render(&request);
        assert_eq!(
            wire["toolConfig"],
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_state"]}})
        );
        assert_eq!(wire["systemInstruction"]["parts"][0]["text"], "sys");
        assert_eq!(wire["generationConfig"]["maxOutputTokens"], 64);
    }

    #[test]
    fn blocked_prompts_say_why() {
        let err = parse(&json!({"promptFeedback": {"blockReason": "SAFETY"}})).unwrap_err();
        assert!(err.contains("SAFETY"));
    }
}
