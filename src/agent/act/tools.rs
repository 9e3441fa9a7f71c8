//! The one tool registry: each tool's definition drives the schema sent to the model, the
//! validation of its arguments and its dispatch, so prompt and executor cannot drift apart.
//!
//! Invariants:
//! - The whitelist is exactly [`ToolKind::ALL`]; domains, services and entity ids come from the
//!   live Home Assistant registry at validation time.
//! - Arguments are relaxed where models are sloppy ("50" for a number, one id for a list,
//!   stray whitespace and case) and strict otherwise; a failure is a message for the model
//!   that says exactly what was wrong, never a panic.
//! - Every string from Home Assistant is returned as JSON data, never spliced into prose.

use serde_json::{Map, Value, json};

use super::normalize::resolve_entity;
use crate::agent::home::{Home, with_registry};
use crate::ha::HaError;
use crate::ha::registry::Registry;
use crate::ha::services::{CallError, CheckedCall, ServiceCall};
use crate::llm::{ToolCall, ToolDef};

pub const SEARCH_DEFAULT_LIMIT: usize = 8;
pub const SEARCH_MAX_LIMIT: usize = 25;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    GetState,
    CallService,
    SearchEntities,
    ListAreas,
}

impl ToolKind {
    pub const ALL: [ToolKind; 4] = [
        ToolKind::SearchEntities,
        ToolKind::GetState,
        ToolKind::CallService,
        ToolKind::ListAreas,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::GetState => "get_state",
            Self::CallService => "call_service",
            Self::SearchEntities => "search_entities",
            Self::ListAreas => "list_areas",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name.trim())
    }

    /// Read-only tools (polling them repeatedly with no change is "no progress").
    pub fn is_read_only(self) -> bool {
        !matches!(self, Self::CallService)
    }

    fn description(self) -> &'static str {
        match self {
            Self::GetState => {
                "Read the current state and attributes of one entity. Use it to answer questions \
                 about the home and to check the result of an action."
            }
            Self::CallService => {
                "Perform an action in the home by calling a Home Assistant service, e.g. domain \
                 light, service turn_on, entity_id light.kitchen. Target entities by entity_id \
                 (one or a list) or a whole area by area_id. Extra service fields go in data."
            }
            Self::SearchEntities => {
                "Find entities by name, room or kind. Returns ranked candidates with entity_id, \
                 name, area and state. Use it first whenever you do not know the exact entity_id."
            }
            Self::ListAreas => {
                "List the areas (rooms) of the home with how many entities each has, and the \
                 floor each is on."
            }
        }
    }

    /// One line for weak models (and the post-compaction refresh), restating the required
    /// parameters.
    pub fn purpose(self) -> &'static str {
        self.short_description()
    }

    fn short_description(self) -> &'static str {
        match self {
            Self::GetState => "Read one entity. Required: entity_id.",
            Self::CallService => {
                "Act on the home. Required: domain, service, and entity_id or area_id."
            }
            Self::SearchEntities => "Find entities by name. Required: query.",
            Self::ListAreas => "List rooms. No arguments.",
        }
    }

    pub(crate) fn parameters(self, registry: &Registry) -> Value {
        match self {
            Self::GetState => json!({
                "type": "object",
                "properties": {"entity_id": {"type": "string", "description": "e.g. light.kitchen"}},
                "required": ["entity_id"]
            }),
            Self::CallService => {
                let domains: Vec<&String> = registry
                    .domains()
                    .keys()
                    .filter(|d| registry.services().contains_key(*d))
                    .collect();
                json!({
                    "type": "object",
                    "properties": {
                        "domain": {"type": "string", "enum": domains},
                        "service": {"type": "string", "description": "e.g. turn_on, turn_off, toggle, set_temperature"},
                        "entity_id": {"type": ["string", "array"], "items": {"type": "string"}},
                        "area_id": {"type": ["string", "array"], "items": {"type": "string"}},
                        "data": {"type": "object", "description": "service fields, e.g. {\"brightness_pct\": 50}"}
                    },
                    "required": ["domain", "service"]
                })
            }
            Self::SearchEntities => json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "words from the name, e.g. kitchen light"},
                    "domain": {"type": "string", "description": "optional, e.g. light"},
                    "area": {"type": "string", "description": "optional area name or id"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX_LIMIT}
                },
                "required": ["query"]
            }),
            Self::ListAreas => json!({"type": "object", "properties": {}}),
        }
    }
}

/// A call whose arguments passed validation.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidCall {
    GetState {
        entity_id: String,
    },
    CallService(CheckedCall),
    SearchEntities {
        query: String,
        domain: Option<String>,
        area: Option<String>,
        limit: usize,
    },
    ListAreas,
}

/// What dispatch produced: the text for the model, and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// For call_service: the call that was performed (for verification and the action list).
    pub performed: Option<CheckedCall>,
}

impl ToolOutput {
    fn ok(value: Value) -> Self {
        Self {
            content: value.to_string(),
            is_error: false,
            performed: None,
        }
    }

    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: json!({"error": message.into()}).to_string(),
            is_error: true,
            performed: None,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ToolRegistry;

fn args_object(call: &ToolCall) -> Result<&Map<String, Value>, String> {
    match &call.arguments {
        Value::Object(map) => Ok(map),
        Value::String(raw) => Err(format!(
            "arguments must be a JSON object; got text that is not valid JSON: {}",
            raw.chars().take(200).collect::<String>()
        )),
        other => Err(format!("arguments must be a JSON object, got {other}")),
    }
}

fn string_arg(args: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(format!("{key} must be a string, got {other}")),
    }
}

fn required_string(args: &Map<String, Value>, key: &str) -> Result<String, String> {
    string_arg(args, key)?.ok_or_else(|| format!("missing required argument {key}"))
}

/// One string or a list of strings; a comma-separated string counts as a list.
fn string_list(args: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(s
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect()),
        Some(Value::Array(items)) => items
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| {
                v.as_str()
                    .map(|s| s.trim().to_owned())
                    .ok_or_else(|| format!("{key} must contain strings, got {v}"))
            })
            .collect(),
        Some(other) => Err(format!(
            "{key} must be a string or a list of strings, got {other}"
        )),
    }
}

fn integer_arg(args: &Map<String, Value>, key: &str) -> Result<Option<i64>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            .map(Some)
            .ok_or_else(|| format!("{key} must be a whole number, got {n}")),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| format!("{key} must be a whole number, got {s:?}")),
        Some(other) => Err(format!("{key} must be a whole number, got {other}")),
    }
}

fn reject_unknown(args: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!(
            "unknown argument {k:?}; allowed: {}",
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

impl ToolRegistry {
    pub fn names(&self) -> Vec<&'static str> {
        ToolKind::ALL.iter().map(|k| k.name()).collect()
    }

    /// Tool definitions for the model, long and short descriptions both; the provider layer
    /// picks per model (tool selection for weak models).
    pub fn definitions(&self, registry: &Registry) -> Vec<ToolDef> {
        ToolKind::ALL
            .iter()
            .map(|&k| ToolDef {
                name: k.name().to_owned(),
                description: k.description().to_owned(),
                parameters: k.parameters(registry),
                short_description: Some(k.short_description().to_owned()),
                core: k != ToolKind::ListAreas,
            })
            .collect()
    }

    pub fn validate(&self, call: &ToolCall, registry: &Registry) -> Result<ValidCall, String> {
        let kind = ToolKind::from_name(&call.name).ok_or_else(|| {
            format!(
                "unknown tool {:?}; available tools: {}",
                call.name,
                self.names().join(", ")
            )
        })?;
        let args = args_object(call)?;
        match kind {
            ToolKind::GetState => {
                reject_unknown(args, &["entity_id"])?;
                let raw = required_string(args, "entity_id")?;
                let id = resolve_entity(&raw, registry);
                match registry.get(&id) {
                    Some(e) => Ok(ValidCall::GetState {
                        entity_id: e.entity_id.clone(),
                    }),
                    None => Err(unknown_entity(&id, registry)),
                }
            }
            ToolKind::CallService => {
                reject_unknown(args, &["domain", "service", "entity_id", "area_id", "data"])?;
                let mut service = required_string(args, "service")?;
                // The domain may ride in the service ("light.turn_on").
                let mut domain = match string_arg(args, "domain")? {
                    Some(d) => d,
                    None if service.contains('.') => String::new(),
                    None => return Err("missing required argument domain".into()),
                };
                // "light.turn_on" in service, or domain given as "light.turn_on".
                if let Some((d, s)) = service.clone().split_once('.') {
                    domain = d.to_owned();
                    service = s.to_owned();
                } else if let Some((d, s)) = domain.clone().split_once('.') {
                    domain = d.to_owned();
                    service = s.to_owned();
                }
                let entity_ids: Vec<String> = string_list(args, "entity_id")?
                    .iter()
                    .map(|e| resolve_entity(e, registry))
                    .collect();
                let areas = string_list(args, "area_id")?;
                let data = match args.get("data") {
                    None | Some(Value::Null) => None,
                    Some(Value::Object(d)) if d.is_empty() => None,
                    Some(Value::Object(d)) => {
                        if d.contains_key("entity_id") || d.contains_key("area_id") {
                            return Err(
                                "put entity_id and area_id at the top level, not in data".into()
                            );
                        }
                        Some(Value::Object(d.clone()))
                    }
                    Some(other) => return Err(format!("data must be an object, got {other}")),
                };
                let call = ServiceCall {
                    domain,
                    service,
                    entity_ids,
                    areas,
                    data,
                };
                call.check_service(registry).map_err(|e| e.to_string())?;
                if call.entity_ids.is_empty() && call.areas.is_empty() {
                    return Err("say what to act on: entity_id (one or a list) or area_id".into());
                }
                let checked = call.check(registry).map_err(|e| e.to_string())?;
                Ok(ValidCall::CallService(checked))
            }
            ToolKind::SearchEntities => {
                reject_unknown(args, &["query", "domain", "area", "limit"])?;
                let query = string_arg(args, "query")?.unwrap_or_default();
                let domain = string_arg(args, "domain")?.map(|d| d.to_lowercase());
                let area = string_arg(args, "area")?;
                if query.is_empty() && domain.is_none() && area.is_none() {
                    return Err("missing required argument query".into());
                }
                if let Some(a) = &area
                    && registry.resolve_area(a).is_none()
                {
                    let known: Vec<&str> = registry.areas().map(|a| a.name.as_str()).collect();
                    return Err(format!("unknown area {a:?}; areas: {}", known.join(", ")));
                }
                let limit = integer_arg(args, "limit")?.map_or(SEARCH_DEFAULT_LIMIT, |l| {
                    l.clamp(1, SEARCH_MAX_LIMIT as i64) as usize
                });
                Ok(ValidCall::SearchEntities {
                    query,
                    domain,
                    area,
                    limit,
                })
            }
            ToolKind::ListAreas => Ok(ValidCall::ListAreas),
        }
    }

    /// Runs a validated call.
    pub async fn dispatch(&self, call: &ValidCall, home: &dyn Home) -> ToolOutput {
        match call {
            ValidCall::GetState { entity_id } => with_registry(home, |r| match r.get(entity_id) {
                Some(e) => {
                    let area = e
                        .area_id
                        .as_deref()
                        .and_then(|a| r.area(a))
                        .map(|a| a.name.clone());
                    ToolOutput::ok(json!({
                        "entity_id": e.entity_id,
                        "name": e.name,
                        "state": e.state,
                        "area": area,
                        "attributes": e.attributes,
                        "last_changed": e.last_changed,
                    }))
                }
                None => ToolOutput::error(format!("{entity_id} disappeared from Home Assistant")),
            }),
            ValidCall::CallService(checked) => match home.call_service(checked).await {
                Ok(_) => ToolOutput {
                    content: json!({
                        "called": format!("{}.{}", checked.domain, checked.service),
                        "entity_id": checked.target.entity_id,
                        "area_id": checked.target.area_id,
                        "data": checked.data,
                        "status": "accepted by Home Assistant",
                    })
                    .to_string(),
                    is_error: false,
                    performed: Some(checked.clone()),
                },
                // Sent, then the connection broke (or HA went quiet): it may have run. Counted
                // as performed, so it is verified and reported as unconfirmed, never as not done.
                Err(
                    e @ CallError::Ha(HaError::ConnectionLost { .. } | HaError::Timeout { .. }),
                ) => ToolOutput {
                    performed: Some(checked.clone()),
                    ..ToolOutput::error(e.to_string())
                },
                Err(e) => ToolOutput::error(e.to_string()),
            },
            ValidCall::SearchEntities {
                query,
                domain,
                area,
                limit,
            } => with_registry(home, |r| {
                let found = r.search(query, domain.as_deref(), area.as_deref(), *limit);
                ToolOutput::ok(json!({
                    "candidates": found.iter().map(|c| json!({
                        "entity_id": c.entity_id, "name": c.name, "area": c.area, "state": c.state
                    })).collect::<Vec<_>>()
                }))
            }),
            ValidCall::ListAreas => with_registry(home, |r| {
                ToolOutput::ok(json!({
                    "areas": r.areas().map(|a| {
                        let count = r.entities().filter(|e| e.area_id.as_deref() == Some(a.area_id.as_str())).count();
                        let mut area = json!({"area_id": a.area_id, "name": a.name, "entities": count});
                        if let Some(floor) = r.floor_of(a) {
                            area["floor"] = json!(floor.name);
                        }
                        area
                    }).collect::<Vec<_>>()
                }))
            }),
        }
    }
}

/// The entities of an id's domain whose names are nearest to its object id (at most 3, best
/// first): what the model may have meant by an id the home does not have.
pub(crate) fn near_of_its_kind(id: &str, registry: &Registry) -> Vec<String> {
    let words = crate::ha::registry::id_words(id);
    let domain = id.split_once('.').map(|(d, _)| d);
    registry
        .search(&words, domain, None, 3)
        .into_iter()
        .map(|c| c.entity_id)
        .collect()
}

fn unknown_entity(id: &str, registry: &Registry) -> String {
    // An entity that exists but is kept from the agent gets the reason, so the person learns
    // what to change rather than that the device "does not exist".
    if let Some((reason, _)) = registry.hidden(id) {
        return reason.explain(id);
    }
    let words = crate::ha::registry::id_words(id);
    let mut suggestions = near_of_its_kind(id, registry);
    if suggestions.is_empty() {
        suggestions = registry
            .search(&words, None, None, 3)
            .into_iter()
            .map(|c| c.entity_id)
            .collect();
    }
    if suggestions.is_empty() {
        format!("unknown entity {id}; use search_entities to find the right entity_id")
    } else {
        format!(
            "unknown entity {id}; did you mean {}? (use search_entities when unsure)",
            suggestions.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::selfcheck::home::MemoryHome;
    use crate::config::ExposureConfig;
    use crate::ha::exposure::{AssistExposure, ExposurePolicy};
    use crate::ha::registry::{Area, Floor, Snapshot};

    #[tokio::test]
    async fn list_areas_says_which_floor_each_room_is_on() {
        let snapshot = Snapshot {
            areas: vec![
                Area {
                    area_id: "bedroom".into(),
                    name: "Bedroom".into(),
                    floor_id: Some("upstairs".into()),
                    ..Default::default()
                },
                Area {
                    area_id: "shed".into(),
                    name: "Shed".into(),
                    ..Default::default()
                },
            ],
            floors: vec![Floor {
                floor_id: "upstairs".into(),
                name: "Upstairs".into(),
                ..Default::default()
            }],
            assist: AssistExposure::Unsupported,
            ..Default::default()
        };
        let registry = Registry::from_snapshot(
            snapshot,
            ExposurePolicy::new(ExposureConfig::default()),
            None,
        );
        let home = MemoryHome::new(registry);
        let out = ToolRegistry.dispatch(&ValidCall::ListAreas, &home).await;
        let listed: Value = serde_json::from_str(&out.content).unwrap();
        assert_eq!(listed["areas"][0]["floor"], "Upstairs", "{listed}");
        assert_eq!(listed["areas"][1].get("floor"), None, "{listed}");
    }
}
