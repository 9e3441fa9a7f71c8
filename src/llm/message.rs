//! The one message model: history, persistence and every provider's wire format use it.
//!
//! Invariants:
//! - There is no second, flattened copy of a conversation; wire formats are renderings of this.
//! - Provider-opaque data (Gemini `thoughtSignature`, Anthropic thinking blocks) rides along in
//!   `provider_data` and is sent back unchanged on the next turn.
//! - A tool result names the call it answers (`tool_call_id`) and the tool (`name`), because
//!   some formats (Gemini) address results by name.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Normally a JSON object; a provider's unparsable argument string is kept as a string so
    /// that validation can tell the model what was wrong.
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_data: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(default)]
        content: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_data: Option<Value>,
        /// The run stopped before this turn's calls all ran; transcript repair must not invent
        /// results for it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        aborted: bool,
    },
    Tool {
        tool_call_id: String,
        name: String,
        content: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::Assistant {
            content: content.into(),
            tool_calls: Vec::new(),
            provider_data: None,
            aborted: false,
        }
    }

    pub fn assistant_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self::Assistant {
            content: content.into(),
            tool_calls,
            provider_data: None,
            aborted: false,
        }
    }

    pub fn tool_result(call: &ToolCall, content: impl Into<String>, is_error: bool) -> Self {
        Self::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: content.into(),
            is_error,
        }
    }

    pub fn role(&self) -> &'static str {
        match self {
            Self::System { .. } => "system",
            Self::User { .. } => "user",
            Self::Assistant { .. } => "assistant",
            Self::Tool { .. } => "tool",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_round_trip_through_json_with_opaque_data() {
        let call = ToolCall {
            id: "c1".into(),
            name: "get_state".into(),
            arguments: json!({"entity_id": "light.kitchen"}),
            provider_data: Some(json!({"thoughtSignature": "sig=="})),
        };
        let history = vec![
            Message::system("rules"),
            Message::user("is the kitchen light on?"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![call.clone()],
                provider_data: Some(json!({"anthropic_blocks": [{"type": "thinking"}]})),
                aborted: true,
            },
            Message::tool_result(&call, r#"{"state":"on"}"#, false),
            Message::assistant("It is on."),
        ];
        let text = serde_json::to_string(&history).unwrap();
        let back: Vec<Message> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, history);
        assert!(text.contains(r#""role":"tool""#));
    }
}
