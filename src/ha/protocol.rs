//! Home Assistant websocket wire format: pure parsing and message building, no IO.
//!
//! Invariants:
//! - Readers are tolerant: unknown fields are ignored, unknown message types are kept as
//!   [`Incoming::Other`], unknown error codes map to [`HaErrorCode::Unknown`].
//! - A frame may be one message or, once `coalesce_messages` is negotiated, a JSON array of them.
//! - Every string from Home Assistant is data; nothing here interprets it.

use serde::Deserialize;
use serde_json::value::RawValue;
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
pub const TYPE_FLOOR_REGISTRY_LIST: &str = "config/floor_registry/list";
pub const TYPE_EXPOSED_ENTITIES_LIST: &str = "homeassistant/expose_entity/list";
pub const TYPE_ENTITY_REGISTRY_GET: &str = "config/entity_registry/get";
pub const TYPE_ENTITY_REGISTRY_GET_ENTRIES: &str = "config/entity_registry/get_entries";
pub const EVENT_STATE_CHANGED: &str = "state_changed";
/// Fired once every integration has been set up: the registry is complete from then on.
pub const EVENT_HOMEASSISTANT_STARTED: &str = "homeassistant_started";
pub const EVENT_ENTITY_REGISTRY_UPDATED: &str = "entity_registry_updated";
pub const EVENT_DEVICE_REGISTRY_UPDATED: &str = "device_registry_updated";
pub const EVENT_AREA_REGISTRY_UPDATED: &str = "area_registry_updated";
pub const EVENT_FLOOR_REGISTRY_UPDATED: &str = "floor_registry_updated";
pub const EVENT_SERVICE_REGISTERED: &str = "service_registered";
pub const EVENT_SERVICE_REMOVED: &str = "service_removed";
/// The core configuration changed (name, time zone, units): `get_config` is read again.
pub const EVENT_CORE_CONFIG_UPDATED: &str = "core_config_updated";
/// Fired by the Home Assistant companion app when a notification's button is pressed.
pub const EVENT_NOTIFICATION_ACTION: &str = "mobile_app_notification_action";
/// Every event the live registry follows: states, Home Assistant's start, and the registries
/// and services a person changes in the UI while HomeClaw runs (an entity moved to another
/// area or exposed to Assist, a renamed area, an integration that adds services, the home's
/// time zone).
pub const REGISTRY_EVENTS: [&str; 9] = [
    EVENT_STATE_CHANGED,
    EVENT_HOMEASSISTANT_STARTED,
    EVENT_ENTITY_REGISTRY_UPDATED,
    EVENT_DEVICE_REGISTRY_UPDATED,
    EVENT_AREA_REGISTRY_UPDATED,
    EVENT_FLOOR_REGISTRY_UPDATED,
    EVENT_SERVICE_REGISTERED,
    EVENT_SERVICE_REMOVED,
    EVENT_CORE_CONFIG_UPDATED,
];

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

/// A result payload kept as raw JSON text, so that a large reply (get_states of a big home) is
/// decoded once, straight into its typed form, without an intermediate `Value` tree.
pub type RawJson = Box<RawValue>;

#[derive(Debug, Clone)]
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
        outcome: Result<RawJson, HaApiError>,
    },
    Event {
        id: u64,
        event: HaEvent,
    },
    /// An event of a command that answers with a stream of its own events rather than bus
    /// events (`assist_pipeline/run`: `run-start`, `intent-end`, …), as Home Assistant sent it.
    Streamed {
        id: u64,
        event: Value,
    },
    Pong {
        id: u64,
    },
    /// Well-formed JSON we do not act on; carries its `type` for logging.
    Other(String),
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

/// The fields any message may have; everything optional, unknown fields ignored.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    event: Option<Value>,
    #[serde(default)]
    ha_version: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// Parses one text frame into its messages (one, or several when coalesced).
pub fn parse_frame(text: &str) -> Result<Vec<Incoming>, ProtocolError> {
    let not_json = |e: serde_json::Error| ProtocolError::NotJson(e.to_string());
    if text.trim_start().starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(text).map_err(not_json)?;
        items
            .into_iter()
            .map(|raw| parse_message(raw.get()))
            .collect()
    } else {
        Ok(vec![parse_message(text)?])
    }
}

fn parse_message(text: &str) -> Result<Incoming, ProtocolError> {
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            ProtocolError::NotAnObject
        } else {
            ProtocolError::NotJson(e.to_string())
        }
    })?;
    let id = envelope.id.as_ref().and_then(Value::as_u64);
    Ok(match (envelope.kind.as_str(), id) {
        (TYPE_AUTH_REQUIRED, _) => Incoming::AuthRequired {
            ha_version: envelope.ha_version,
        },
        (TYPE_AUTH_OK, _) => Incoming::AuthOk {
            ha_version: envelope.ha_version,
        },
        (TYPE_AUTH_INVALID, _) => Incoming::AuthInvalid {
            message: envelope.message.unwrap_or_else(|| "invalid token".into()),
        },
        (TYPE_RESULT, Some(id)) => {
            let outcome = if envelope.success.unwrap_or(false) {
                Ok(envelope.result.map_or_else(null_json, RawValue::to_owned))
            } else {
                let error = envelope.error.unwrap_or(Value::Null);
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
        (TYPE_EVENT, Some(id)) => match envelope.event {
            Some(event) if event.get("event_type").is_some() => {
                match serde_json::from_value(event) {
                    Ok(event) => Incoming::Event { id, event },
                    Err(_) => Incoming::Other(envelope.kind),
                }
            }
            Some(event @ Value::Object(_)) => Incoming::Streamed { id, event },
            _ => Incoming::Other(envelope.kind),
        },
        (TYPE_PONG, Some(id)) => Incoming::Pong { id },
        _ => Incoming::Other(envelope.kind),
    })
}

fn null_json() -> RawJson {
    // "null" is valid JSON; from_string cannot fail on it, but stay total anyway.
    RawValue::from_string("null".to_owned()).unwrap_or_else(|_| Box::<RawValue>::default())
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
        assert!(
            matches!(&got[..], [Incoming::AuthRequired { ha_version: Some(v) }] if v == "2025.4.4")
        );
        let got =
            parse_frame(r#"{"type":"auth_invalid","message":"Invalid access token or password"}"#)
                .unwrap();
        assert!(matches!(&got[..], [Incoming::AuthInvalid { message }]
            if message == "Invalid access token or password"));
    }

    #[test]
    fn failed_results_keep_code_and_message() {
        let frame = r#"{"id":19,"type":"result","success":false,"error":{"code":"not_found",
            "message":"Service light.does_not_exist not found.","translation_key":"x"}}"#;
        let got = parse_frame(frame).unwrap();
        match &got[..] {
            [
                Incoming::Result {
                    id: 19,
                    outcome: Err(e),
                },
            ] => assert_eq!(
                e,
                &HaApiError {
                    code: HaErrorCode::NotFound,
                    message: "Service light.does_not_exist not found.".into()
                }
            ),
            other => panic!("unexpected {other:?}"),
        }
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
        match &got[1] {
            Incoming::Result {
                id: 8,
                outcome: Ok(raw),
            } => assert_eq!(raw.get(), r#"{"context":{}}"#),
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(got[2], Incoming::Pong { id: 9 }));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(matches!(
            parse_frame("nope"),
            Err(ProtocolError::NotJson(_))
        ));
        assert!(matches!(parse_frame("42"), Err(ProtocolError::NotAnObject)));
        assert!(matches!(
            parse_frame("[1]"),
            Err(ProtocolError::NotAnObject)
        ));
        assert!(matches!(
            parse_frame("[{\"type\": "),
            Err(ProtocolError::NotJson(_))
        ));
        // A success without a result reads as null.
        match &parse_frame(r#"{"id":1,"type":"result","success":true}"#).unwrap()[0] {
            Incoming::Result {
                outcome: Ok(raw), ..
            } => assert_eq!(raw.get(), "null"),
            other => panic!("unexpected {other:?}"),
        }
        // A pipeline run's own events come as they are, for the run that asked.
        match &parse_frame(
            r#"{"id":9,"type":"event","event":{"type":"intent-end","data":{"intent_output":{}}}}"#,
        )
        .unwrap()[0]
        {
            Incoming::Streamed { id: 9, event } => assert_eq!(event["type"], "intent-end"),
            other => panic!("unexpected {other:?}"),
        }
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
