//! Text fallback for models without native tool calling (`native_tools: false`).
//!
//! Invariants:
//! - Calls are parsed only from a reply that is *wholly* JSON calls — one object, several
//!   objects one after another, or an array of them, bare or in one fenced ```json block — each
//!   of the form `{"tool"|"name"|"function": str, "arguments"|"args"|"parameters": {...}}`.
//!   JSON inside prose is never a call: models quote example calls when they explain themselves.
//! - Every parsed name is checked against the caller's whitelist; an unknown name comes back as
//!   a rejection for the loop to report, never as a call.
//! - For such models the tools are described in the system prompt and tool traffic in history is
//!   rendered as plain text, because their servers may reject `tools` or the `tool` role.

use serde_json::{Map, Value};

use super::message::{Message, ToolCall};
use super::types::{ChatRequest, RejectedCall, ToolDef};

const NAME_KEYS: [&str; 3] = ["tool", "name", "function"];
const ARG_KEYS: [&str; 3] = ["arguments", "args", "parameters"];

#[derive(Debug, Clone, PartialEq)]
pub enum TextCall {
    /// The reply is prose (or JSON that is not a call).
    NotACall,
    Call {
        name: String,
        arguments: Value,
    },
    Rejected(RejectedCall),
}

/// The body of a reply that is wholly one fenced block, or the reply itself.
fn unfence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return t;
    };
    // Only a json (or untagged) fence, and only one fence.
    let (tag, body) = body.split_once('\n').unwrap_or(("", body));
    if !(tag.trim().is_empty() || tag.trim().eq_ignore_ascii_case("json")) || body.contains("```") {
        return t;
    }
    body.trim()
}

fn string_field<'a>(map: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
}

/// Parses a model's whole reply as one tool call, against the tool whitelist.
pub fn parse_text_call(reply: &str, whitelist: &[&str]) -> TextCall {
    match parse_text_calls(reply, whitelist).as_slice() {
        [one] => one.clone(),
        _ => TextCall::NotACall,
    }
}

/// Parses a model's whole reply as its tool calls (several for "turn on the kitchen light and
/// turn off the hall light"): all of it must be calls, or it is one `NotACall`.
pub fn parse_text_calls(reply: &str, whitelist: &[&str]) -> Vec<TextCall> {
    let body = unfence(reply);
    let values: Vec<Value> = if body.starts_with('[') {
        match serde_json::from_str::<Value>(body) {
            Ok(Value::Array(items)) if !items.is_empty() => items,
            _ => return vec![TextCall::NotACall],
        }
    } else if body.starts_with('{') {
        let stream: Result<Vec<Value>, _> = serde_json::Deserializer::from_str(body)
            .into_iter::<Value>()
            .collect();
        match stream {
            Ok(values) if !values.is_empty() => values,
            _ => return vec![TextCall::NotACall],
        }
    } else {
        return vec![TextCall::NotACall];
    };
    let calls: Vec<TextCall> = values
        .into_iter()
        .map(|v| object_call(v, whitelist))
        .collect();
    if calls.iter().any(|c| matches!(c, TextCall::NotACall)) {
        return vec![TextCall::NotACall];
    }
    calls
}

/// One JSON value as a call.
fn object_call(value: Value, whitelist: &[&str]) -> TextCall {
    let Value::Object(map) = value else {
        return TextCall::NotACall;
    };
    // OpenAI-style nesting: {"function": {"name": ..., "arguments": ...}}.
    let map = match map.get("function") {
        Some(Value::Object(inner)) => inner.clone(),
        _ => map,
    };
    let Some(name) = string_field(&map, &NAME_KEYS) else {
        return TextCall::NotACall;
    };
    let arguments = ARG_KEYS.iter().find_map(|k| map.get(*k));
    let arguments = match arguments {
        Some(Value::Object(args)) => Value::Object(args.clone()),
        // Some models send the arguments as a JSON string.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => return TextCall::NotACall,
        },
        _ => return TextCall::NotACall,
    };
    let name = name.trim();
    if !whitelist.contains(&name) {
        return TextCall::Rejected(RejectedCall {
            name: name.to_owned(),
            reason: format!(
                "unknown tool {name:?}; available tools: {}",
                whitelist.join(", ")
            ),
        });
    }
    TextCall::Call {
        name: name.to_owned(),
        arguments,
    }
}

/// A fresh id for a call parsed from text (providers give native calls their own ids).
pub fn text_call_id() -> String {
    format!("call_txt_{:016x}", fastrand::u64(..))
}

/// Turns a parsed text call into a [`ToolCall`].
pub fn to_tool_call(name: String, arguments: Value) -> ToolCall {
    ToolCall {
        id: text_call_id(),
        name,
        arguments,
        provider_data: None,
    }
}

fn tool_catalogue(tools: &[ToolDef], structured: bool) -> String {
    let mut out = String::from(
        "You can use tools. To call one, reply with ONLY a JSON object and nothing else:\n\
         {\"name\": \"<tool name>\", \"arguments\": {<arguments>}}\n\
         After a call you get its result in the next message. ",
    );
    out.push_str(if structured {
        "When you need no tool, reply with ONLY {\"answer\": \"<your answer to the user>\"}.\nTools:\n"
    } else {
        "Answer in plain text when you need no tool.\nTools:\n"
    });
    for tool in tools {
        out.push_str(&format!(
            "- {}: {} Arguments schema: {}\n",
            tool.name, tool.description, tool.parameters
        ));
    }
    out
}

/// Rewrites a request for a model without native tools: tools go into the system prompt,
/// assistant calls become their JSON text, tool results become user messages. `structured`:
/// the server constrains the reply to `reply_schema`, so a final answer is JSON too.
pub fn render_for_text_model(request: &ChatRequest, structured: bool) -> ChatRequest {
    let mut system = request.system.clone().unwrap_or_default();
    if !request.tools.is_empty() && request.tool_choice != super::types::ToolChoice::None {
        if !system.is_empty() {
            system.push_str("\n\n");
        }
        system.push_str(&tool_catalogue(&request.tools, structured));
    }
    // What changes from request to request comes after the catalogue, which stays the same:
    // first the command's context, then this round's tool choice.
    if let Some(context) = &request.context {
        system.push_str(context);
    }
    if !request.tools.is_empty() {
        match &request.tool_choice {
            super::types::ToolChoice::Required => {
                system.push_str("\nYou must call a tool now.\n");
            }
            super::types::ToolChoice::Named(name) => {
                system.push_str(&format!("\nYou must call the tool {name} now.\n"));
            }
            _ => {}
        }
    }
    let messages = request
        .messages
        .iter()
        .map(|m| match m {
            Message::Assistant {
                content,
                tool_calls,
                ..
            } if !tool_calls.is_empty() => {
                let calls: Vec<String> = tool_calls
                    .iter()
                    .map(|c| {
                        serde_json::json!({"name": c.name, "arguments": c.arguments}).to_string()
                    })
                    .collect();
                let mut text = content.clone();
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&calls.join("\n"));
                Message::assistant(text)
            }
            Message::Tool {
                name,
                content,
                is_error,
                ..
            } => Message::user(format!(
                "Result of tool {name}{}:\n{content}",
                if *is_error { " (error)" } else { "" }
            )),
            other => other.clone(),
        })
        .collect();
    ChatRequest {
        system: (!system.is_empty()).then_some(system),
        messages,
        tools: Vec::new().into(),
        tool_choice: super::types::ToolChoice::Auto,
        max_tokens: request.max_tokens,
        temperature: request.temperature,
        reply_schema: request.reply_schema.clone().filter(|_| structured),
        context: None,
    }
}

/// The answer of a constrained reply that is `{"answer": "..."}` and nothing else.
pub fn structured_answer(reply: &str) -> Option<String> {
    match serde_json::from_str::<Value>(unfence(reply)).ok()? {
        Value::Object(map) if map.len() == 1 => map.get("answer")?.as_str().map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_whole_calls_are_several_calls_and_prose_around_them_is_none() {
        let tools = ["call_service", "get_state"];
        let two = "{\"name\": \"call_service\", \"arguments\": {\"service\": \"turn_on\"}}\n\
                   {\"name\": \"call_service\", \"arguments\": {\"service\": \"turn_off\"}}";
        assert_eq!(parse_text_calls(two, &tools).len(), 2);
        let array = "```json\n[{\"name\": \"get_state\", \"arguments\": {}}, \
                     {\"name\": \"get_state\", \"arguments\": {}}]\n```";
        let parsed = parse_text_calls(array, &tools);
        assert_eq!(parsed.len(), 2);
        assert!(parsed.iter().all(|c| matches!(c, TextCall::Call { .. })));
        let with_prose = "Sure: {\"name\": \"get_state\", \"arguments\": {}}";
        assert_eq!(
            parse_text_calls(with_prose, &tools),
            vec![TextCall::NotACall]
        );
        let one_not_a_call = "{\"name\": \"get_state\", \"arguments\": {}} {\"note\": 1}";
        assert_eq!(
            parse_text_calls(one_not_a_call, &tools),
            vec![TextCall::NotACall]
        );
        // A single call is still one call for the single-call parser; two are not.
        assert!(matches!(parse_text_call(two, &tools), TextCall::NotACall));
    }
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const TOOLS: [&str; 2] = ["get_state", "call_service"];

    #[test]
    fn a_whole_json_object_is_a_call() {
        let got = parse_text_call(
            r#" {"name": "get_state", "arguments": {"entity_id": "light.kitchen"}} "#,
            &TOOLS,
        );
        assert_eq!(
            got,
            TextCall::Call {
                name: "get_state".into(),
                arguments: json!({"entity_id": "light.kitchen"})
            }
        );
    }

    #[test]
    fn every_key_spelling_and_a_fenced_block_are_accepted() {
        for text in [
            r#"{"tool": "get_state", "args": {"entity_id": "x"}}"#,
            r#"{"function": "get_state", "parameters": {"entity_id": "x"}}"#,
            r#"{"function": {"name": "get_state", "arguments": "{\"entity_id\": \"x\"}"}}"#,
            "```json\n{\"name\": \"get_state\", \"arguments\": {\"entity_id\": \"x\"}}\n```",
            "```\n{\"name\": \"get_state\", \"arguments\": {\"entity_id\": \"x\"}}\n```",
        ] {
            assert_eq!(
                parse_text_call(text, &TOOLS),
                TextCall::Call {
                    name: "get_state".into(),
                    arguments: json!({"entity_id": "x"})
                },
                "{text}"
            );
        }
    }

    #[test]
    fn json_inside_prose_is_never_a_call() {
        for text in [
            r#"To check, I would call {"name": "get_state", "arguments": {"entity_id": "x"}}."#,
            "Here is an example:\n```json\n{\"name\": \"get_state\", \"arguments\": {}}\n```\nDone.",
            "```python\n{\"name\": \"get_state\", \"arguments\": {}}\n```",
            "```json\n{\"name\": \"a\", \"arguments\": {}}\n```\n```json\n{\"name\": \"b\", \"arguments\": {}}\n```",
            r#"{"name": "get_state"}"#,
            r#"{"name": "get_state", "arguments": [1]}"#,
            r#"{"state": "on"}"#,
            "The light is on.",
            "",
        ] {
            assert_eq!(parse_text_call(text, &TOOLS), TextCall::NotACall, "{text}");
        }
    }

    #[test]
    fn unknown_tools_are_rejected_not_executed() {
        let got = parse_text_call(r#"{"name": "unlock_everything", "arguments": {}}"#, &TOOLS);
        match got {
            TextCall::Rejected(r) => {
                assert_eq!(r.name, "unlock_everything");
                assert!(r.reason.contains("get_state, call_service"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn text_models_get_tools_in_the_prompt_and_history_as_text() {
        let call = ToolCall {
            id: "c1".into(),
            name: "get_state".into(),
            arguments: json!({"entity_id": "light.a"}),
            provider_data: None,
        };
        let request = ChatRequest {
            system: Some("Be brief.".into()),
            messages: vec![
                Message::user("is light a on?"),
                Message::assistant_calls("", vec![call.clone()]),
                Message::tool_result(&call, "on", false),
            ],
            tools: vec![ToolDef {
                name: "get_state".into(),
                description: "Read one entity.".into(),
                parameters: json!({"type": "object"}),
                ..Default::default()
            }]
            .into(),
            tool_choice: super::super::types::ToolChoice::Required,
            ..Default::default()
        };
        let rendered = render_for_text_model(&request, false);
        let system = rendered.system.unwrap();
        assert!(system.starts_with("Be brief.\n\nYou can use tools."));
        assert!(system.contains("- get_state: Read one entity."));
        assert!(system.contains("You must call a tool now."));
        assert!(rendered.tools.is_empty());
        assert_eq!(
            rendered.messages,
            vec![
                Message::user("is light a on?"),
                Message::assistant(r#"{"name":"get_state","arguments":{"entity_id":"light.a"}}"#),
                Message::user("Result of tool get_state:\non"),
            ]
        );
    }
}
