//! MQTT command payloads and replies: pure parsing and building.
//!
//! A payload is plain text (the command) or a JSON object
//! `{"text", "session_id"?, "request_id"?, "reply_to"?, "language"?, "device_id"?,
//! "satellite_id"?}`. Anything else gets an
//! error reply that says what was wrong: invalid UTF-8, empty, oversized, or text that looks
//! like JSON but is not.

use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqttCommand {
    pub text: String,
    pub session_id: Option<String>,
    pub request_id: Option<String>,
    pub reply_to: Option<String>,
    pub language: Option<String>,
    pub device_id: Option<String>,
    /// The Assist satellite entity the person spoke to; its device when `device_id` is absent.
    pub satellite_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct PayloadError {
    pub code: &'static str,
    pub message: String,
    /// What could be read of the request id, so the error reply can be matched.
    pub request_id: Option<String>,
    pub reply_to: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonCommand {
    text: String,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    request_id: Option<String>,
    #[serde(default)]
    reply_to: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    device_id: Option<String>,
    #[serde(default)]
    satellite_id: Option<String>,
}

fn error(code: &'static str, message: impl Into<String>) -> PayloadError {
    PayloadError {
        code,
        message: message.into(),
        request_id: None,
        reply_to: None,
    }
}

/// A reply topic we are willing to publish to: no wildcards, not empty, not too long.
pub fn valid_topic(topic: &str) -> bool {
    !topic.is_empty()
        && topic.len() <= 256
        && !topic.contains(['+', '#', '\0'])
        && !topic.starts_with('$')
}

pub fn parse(payload: &[u8], max_bytes: usize) -> Result<MqttCommand, PayloadError> {
    if payload.len() > max_bytes {
        return Err(error(
            "too_large",
            format!(
                "payload of {} bytes is over the {max_bytes}-byte limit",
                payload.len()
            ),
        ));
    }
    let text = std::str::from_utf8(payload)
        .map_err(|e| error("invalid_utf8", format!("payload is not UTF-8: {e}")))?;
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(error("empty", "payload is empty"));
    }
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Ok(MqttCommand {
            text: trimmed.to_owned(),
            ..Default::default()
        });
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|e| {
        error(
            "invalid_json",
            format!("payload looks like JSON but is not: {e}"),
        )
    })?;
    let request_id = value
        .get("request_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let reply_to = value
        .get("reply_to")
        .and_then(Value::as_str)
        .filter(|t| valid_topic(t))
        .map(str::to_owned);
    let parsed: JsonCommand = serde_json::from_value(value).map_err(|e| PayloadError {
        code: "invalid_fields",
        message: format!("payload fields: {e}"),
        request_id: request_id.clone(),
        reply_to: reply_to.clone(),
    })?;
    if parsed.text.trim().is_empty() {
        return Err(PayloadError {
            code: "empty",
            message: "text is empty".into(),
            request_id,
            reply_to,
        });
    }
    if let Some(topic) = &parsed.reply_to
        && !valid_topic(topic)
    {
        return Err(PayloadError {
            code: "invalid_fields",
            message: format!("reply_to {topic:?} is not a topic we can publish to"),
            request_id,
            reply_to: None,
        });
    }
    Ok(MqttCommand {
        text: parsed.text.trim().to_owned(),
        session_id: parsed.session_id,
        request_id: parsed.request_id,
        reply_to: parsed.reply_to,
        language: parsed.language,
        device_id: parsed.device_id,
        satellite_id: parsed.satellite_id,
    })
}

pub fn error_reply(e: &PayloadError) -> Value {
    let mut body = json!({"status": "failed", "error": {"code": e.code, "message": e.message}});
    if let Some(id) = &e.request_id {
        body["request_id"] = json!(id);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_and_json_commands_parse() {
        assert_eq!(
            parse(b"  turn on the light ", 100).unwrap(),
            MqttCommand {
                text: "turn on the light".into(),
                ..Default::default()
            }
        );
        let got = parse(
            br#"{"text": "lights off", "session_id": "s1", "request_id": "r1", "reply_to": "my/replies", "language": "en", "device_id": "sat1", "satellite_id": "assist_satellite.kitchen"}"#,
            1000,
        )
        .unwrap();
        assert_eq!(got.device_id.as_deref(), Some("sat1"));
        assert_eq!(
            got.satellite_id.as_deref(),
            Some("assist_satellite.kitchen")
        );
        assert_eq!(got.session_id.as_deref(), Some("s1"));
        assert_eq!(got.request_id.as_deref(), Some("r1"));
        assert_eq!(got.reply_to.as_deref(), Some("my/replies"));
    }

    #[test]
    fn bad_payloads_say_what_is_wrong() {
        let cases: [(&[u8], &str); 7] = [
            (b"\xff\xfe", "invalid_utf8"),
            (b"   ", "empty"),
            (b"{\"text\": ", "invalid_json"),
            (b"{\"txt\": \"x\"}", "invalid_fields"),
            (b"{\"text\": 5}", "invalid_fields"),
            (b"{\"text\": \"\"}", "empty"),
            (
                b"{\"text\": \"x\", \"reply_to\": \"a/#\"}",
                "invalid_fields",
            ),
        ];
        for (payload, code) in cases {
            assert_eq!(parse(payload, 100).unwrap_err().code, code, "{payload:?}");
        }
        assert_eq!(parse(&[b'a'; 101], 100).unwrap_err().code, "too_large");
    }

    #[test]
    fn errors_keep_the_request_id_for_matching() {
        let e = parse(br#"{"request_id": "r9", "text": 1}"#, 100).unwrap_err();
        let reply = error_reply(&e);
        assert_eq!(reply["request_id"], "r9");
        assert_eq!(reply["error"]["code"], "invalid_fields");
    }

    #[test]
    fn reply_topics_are_checked() {
        assert!(valid_topic("homeclaw/reply/x"));
        for bad in ["", "a/+/b", "a/#", "$SYS/x"] {
            assert!(!valid_topic(bad), "{bad}");
        }
    }
}
