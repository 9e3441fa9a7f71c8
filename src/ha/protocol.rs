//! Home Assistant websocket wire format: pure parsing and message building, no IO.
//!
//! Invariants:
//! - Readers are tolerant: unknown fields are ignored, unknown message types are kept as
//!   [`Incoming::Other`], unknown error codes map to [`HaErrorCode::Unknown`].
//! - A frame may be one message or, once `coalesce_messages` is negotiated, a JSON array of them.
//! - Every string from Home Assistant is data; nothing here interprets it.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::secret::Secret;

pub const TYPE_AUTH_REQUIRED: &str = "auth_required";
pub const TYPE_AUTH: &str = "auth";
pub const TYPE_AUTH_OK: &str = "auth_ok";
pub const TYPE_AUTH_INVALID: &str = "auth_invalid";
pub const TYPE_RESULT: &str = "result";
pub const TYPE_EVENT: &str = "event";
pub const TYPE_PING: &str = "ping";
pub const TYPE_PONG: &str = "pong";
pub const TYPE_SUPPORTED_FEATURES: &str = "supported_features";
pub const TYPE_SUBSCRIBE_EVENTS: &str = "subscribe_events";
pub const TYPE_GET_STATES: &str = "get_states";
pub const TYPE_GET_SERVICES: &str = "get_services";
pub const TYPE_GET_CONFIG: &str = "get_config";
pub const TYPE_CALL_SERVICE: &str = "call_service";
pub const TYPE_ENTITY_REGISTRY_LIST: &str = "config/entity_registry/list";
pub const TYPE_DEVICE_REGISTRY_LIST: &str = "config/device_registry/list";
pub const TYPE_AREA_REGISTRY_LIST: &str = "config/area_registry/list";
pub const TYPE_EXPOSED_ENTITIES_LIST: &str = "homeassistant/expose_entity/list";
pub const EVENT_STATE_CHANGED: &str = "state_changed";

/// Error codes Home Assistant puts in failed results; the string is kept for unknown ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HaErrorCode {
    NotFound,
    InvalidFormat,
    HomeAssistantError,
    ServiceValidationError,
    Unauthorized,
    UnknownCommand,
    IdReuse,
    UnknownError,
    TimeOut,
    NotAllowed,
    Unknown(String),
}

impl HaErrorCode {
    pub fn parse(code: &str) -> Self {
        match code {
            "not_found" => Self::NotFound,
            "invalid_format" => Self::InvalidFormat,
            "home_assistant_error" => Self::HomeAssistantError,
            "service_validation_error" => Self::ServiceValidationError,
            "unauthorized" => Self::Unauthorized,
            "unknown_command" => Self::UnknownCommand,
            "id_reuse" => Self::IdReuse,
            "unknown_error" => Self::UnknownError,
            "timeout" => Self::TimeOut,
            "not_allowed" => Self::NotAllowed,
            other => Self::Unknown(other.to_owned()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::NotFound => "not_found",
            Self::InvalidFormat => "invalid_format",
            Self::HomeAssistantError => "home_assistant_error",
            Self::ServiceValidationError => "service_validation_error",
            Self::Unauthorized => "unauthorized",
            Self::UnknownCommand => "unknown_command",
            Self::IdReuse => "id_reuse",
            Self::UnknownError => "unknown_error",
            Self::TimeOut => "timeout",
            Self::NotAllowed => "not_allowed",
            Self::Unknown(s) => s,
        }
    }
}

/// A failed result, with Home Assistant's own code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaApiError {
    pub code: HaErrorCode,
    pub message: String,
}

/// An event as delivered to subscribers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct HaEvent {
    pub event_type: String,
    #[serde(default)]
    pub data: Value,
    #[serde(default)]
    pub time_fired: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    AuthRequired {
        ha_version: Option<String>,
    },
    AuthOk {
        ha_version: Option<String>,
    },
    AuthInvalid {
        message: String,
    },
    Result {
        id: u64,
        outcome: Result<Value, HaApiError>,
    },
    Event {
        id: u64,
        event: HaEvent,
    },
    Pong {
        id: u64,
    },
    /// Well-formed JSON we do not act on (kept for logging).
    Other(Value),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The frame is not JSON. Not retryable for that frame.
    #[error("frame is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object or array of objects.
    #[error("frame is not a message object")]
    NotAnObject,
}

/// Parses one text frame into its messages (one, or several when coalesced).
pub fn parse_frame(text: &str) -> Result<Vec<Incoming>, ProtocolError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| ProtocolError::NotJson(e.to_string()))?;
    match value {
        Value::Array(items) => items.into_iter().map(parse_message).collect(),
        other => Ok(vec![parse_message(other)?]),
    }
}

fn str_field(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn parse_message(value: Value) -> Result<Incoming, ProtocolError> {
    let Value::Object(mut map) = value else {
        return Err(ProtocolError::NotAnObject);
    };
    let kind = str_field(&map, "type").unwrap_or_default();
    let id = map.get("id").and_then(Value::as_u64);
    Ok(match (kind.as_str(), id) {
        (TYPE_AUTH_REQUIRED, _) => Incoming::AuthRequired {
            ha_version: str_field(&map, "ha_version"),
        },
        (TYPE_AUTH_OK, _) => Incoming::AuthOk {
            ha_version: str_field(&map, "ha_version"),
        },
        (TYPE_AUTH_INVALID, _) => Incoming::AuthInvalid {
            message: str_field(&map, "message").unwrap_or_else(|| "invalid token".into()),
        },
        (TYPE_RESULT, Some(id)) => {
            let success = map.get("success").and_then(Value::as_bool).unwrap_or(false);
            let outcome = if success {
                Ok(map.remove("result").unwrap_or(Value::Null))
            } else {
                let error = map.remove("error").unwrap_or(Value::Null);
                Err(HaApiError {
                    code: HaErrorCode::parse(
                        error
                            .get("code")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown"),
                    ),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_owned(),
                })
            };
            Incoming::Result { id, outcome }
        }
        (TYPE_EVENT, Some(id)) => match map.remove("event").map(serde_json::from_value) {
            Some(Ok(event)) => Incoming::Event { id, event },
            _ => Incoming::Other(Value::Object(map)),
        },
        (TYPE_PONG, Some(id)) => Incoming::Pong { id },
        _ => Incoming::Other(Value::Object(map)),
    })
}

pub fn auth_message(token: &Secret) -> String {
    json!({"type": TYPE_AUTH, "access_token": token.expose()}).to_string()
}

/// A command without its id; the connection assigns ids so they strictly increase.
#[derive(Debug, Clone, PartialEq)]
pub struct Command(pub Map<String, Value>);

impl Command {
    pub fn new(kind: &str) -> Self {
        let mut map = Map::new();
        map.insert("type".into(), Value::String(kind.to_owned()));
        Self(map)
    }

    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.0.insert(key.to_owned(), value);
        self
    }

    pub fn kind(&self) -> &str {
        self.0
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The frame text with the id set.
    pub fn to_frame(&self, id: u64) -> String {
        let mut map = self.0.clone();
        map.insert("id".into(), Value::from(id));
        Value::Object(map).to_string()
    }

    pub fn supported_features() -> Self {
        Self::new(TYPE_SUPPORTED_FEATURES).with("features", json!({"coalesce_messages": 1}))
    }

    pub fn subscribe_events(event_type: Option<&str>) -> Self {
        let cmd = Self::new(TYPE_SUBSCRIBE_EVENTS);
        match event_type {
            Some(t) => cmd.with("event_type", Value::String(t.to_owned())),
            None => cmd,
        }
    }

    pub fn call_service(
        domain: &str,
        service: &str,
        target: Option<Value>,
        service_data: Option<Value>,
        return_response: bool,
    ) -> Self {
        let mut cmd = Self::new(TYPE_CALL_SERVICE)
            .with("domain", Value::String(domain.to_owned()))
            .with("service", Value::String(service.to_owned()));
        if let Some(target) = target {
            cmd = cmd.with("target", target);
        }
        if let Some(data) = service_data {
            cmd = cmd.with("service_data", data);
        }
        if return_response {
            cmd = cmd.with("return_response", Value::Bool(true));
        }
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_the_recorded_auth_messages() {
        let got = parse_frame(r#"{"type": "auth_required", "ha_version": "2025.4.4"}"#).unwrap();
        assert_eq!(
            got,
            vec![Incoming::AuthRequired {
                ha_version: Some("2025.4.4".into())
            }]
        );
        let got =
            parse_frame(r#"{"type":"auth_invalid","message":"Invalid access token or password"}"#)
                .unwrap();
        assert_eq!(
            got,
            vec![Incoming::AuthInvalid {
                message: "Invalid access token or password".into()
            }]
        );
    }

    #[test]
    fn failed_results_keep_code_and_message() {
        let frame = r#"{"id":19,"type":"result","success":false,"error":{"code":"not_found",
            "message":"Service light.does_not_exist not found.","translation_key":"x"}}"#;
        let got = parse_frame(frame).unwrap();
        assert_eq!(
            got,
            vec![Incoming::Result {
                id: 19,
                outcome: Err(HaApiError {
                    code: HaErrorCode::NotFound,
                    message: "Service light.does_not_exist not found.".into()
                })
            }]
        );
        let odd = r#"{"id":3,"type":"result","success":false,"error":{"code":"brand_new"}}"#;
        match &parse_frame(odd).unwrap()[0] {
            Incoming::Result {
                outcome: Err(e), ..
            } => {
                assert_eq!(e.code, HaErrorCode::Unknown("brand_new".into()));
                assert_eq!(e.code.as_str(), "brand_new");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn coalesced_frames_yield_every_message_in_order() {
        let frame = r#"[{"id":7,"type":"event","event":{"event_type":"state_changed",
            "data":{"entity_id":"light.bed_light"},"time_fired":"t"}},
            {"id":8,"type":"result","success":true,"result":{"context":{}}},
            {"id":9,"type":"pong"}]"#;
        let got = parse_frame(frame).unwrap();
        assert_eq!(got.len(), 3);
        assert!(
            matches!(&got[0], Incoming::Event { id: 7, event } if event.event_type == "state_changed")
        );
        assert!(matches!(
            &got[1],
            Incoming::Result {
                id: 8,
                outcome: Ok(_)
            }
        ));
        assert_eq!(got[2], Incoming::Pong { id: 9 });
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(matches!(
            parse_frame("nope"),
            Err(ProtocolError::NotJson(_))
        ));
        assert_eq!(parse_frame("42"), Err(ProtocolError::NotAnObject));
        assert_eq!(parse_frame("[1]"), Err(ProtocolError::NotAnObject));
        // A result without an id or an unknown type is kept, not dropped silently.
        assert!(matches!(
            &parse_frame(r#"{"type":"result","success":true}"#).unwrap()[0],
            Incoming::Other(_)
        ));
    }

    #[test]
    fn commands_carry_the_assigned_id_and_omit_empty_parts() {
        let cmd = Command::call_service(
            "light",
            "turn_on",
            Some(json!({"entity_id": ["light.kitchen"]})),
            None,
            false,
        );
        let frame: Value = serde_json::from_str(&cmd.to_frame(42)).unwrap();
        assert_eq!(
            frame,
            json!({"id": 42, "type": "call_service", "domain": "light", "service": "turn_on",
                   "target": {"entity_id": ["light.kitchen"]}})
        );
    }

    #[test]
    fn auth_message_carries_the_token() {
        let frame: Value = serde_json::from_str(&auth_message(&Secret::new("t0k"))).unwrap();
        assert_eq!(frame, json!({"type": "auth", "access_token": "t0k"}));
    }
}
