//! Argument normalisation and the hashes the guards compare.
//!
//! Why: models are sloppy in ways that must not defeat the circuit breaker and loop detectors:
//! `get_state(" Light.Kitchen ")` and `get_state("light.kitchen")` are the same call.
//! Invariants: normalisation is deterministic and idempotent; keys are sorted (serde_json's map
//! is ordered), nulls dropped, strings trimmed with inner whitespace collapsed, entity ids and
//! domains lowercased, and a friendly name matching exactly one entity becomes its id.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value};

use crate::ha::registry::{Registry, normalise_entity_id};

/// Keys whose string values are entity ids.
const ENTITY_KEYS: [&str; 2] = ["entity_id", "entity_ids"];
/// Keys whose string values are lowercased identifiers.
const IDENT_KEYS: [&str; 4] = ["domain", "service", "area_id", "area"];
/// Fields that change without the entity changing (timestamps, contexts): ignored in result
/// hashes so that polling an unchanged entity is seen as no progress.
const VOLATILE: [&str; 6] = [
    "last_updated",
    "last_changed",
    "last_reported",
    "context",
    "context_id",
    "time_fired",
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Resolves an entity reference: an id (sloppy or not), or a friendly name that matches exactly
/// one visible entity.
pub fn resolve_entity(raw: &str, registry: &Registry) -> String {
    let id = normalise_entity_id(raw);
    if id.contains('.') || registry.get(&id).is_some() {
        return id;
    }
    let wanted = collapse(raw).to_lowercase();
    let mut matches = registry
        .entities()
        .filter(|e| e.name.to_lowercase() == wanted);
    match (matches.next(), matches.next()) {
        (Some(only), None) => only.entity_id.clone(),
        _ => id,
    }
}

fn normalise_value(key: Option<&str>, value: &Value, registry: &Registry) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(Value::String(match key {
            Some(k) if ENTITY_KEYS.contains(&k) => resolve_entity(s, registry),
            Some(k) if IDENT_KEYS.contains(&k) => collapse(s).to_lowercase().replace(' ', "_"),
            _ => collapse(s),
        })),
        Value::Array(items) => Some(Value::Array(
            items
                .iter()
                .filter_map(|v| normalise_value(key, v, registry))
                .collect(),
        )),
        Value::Object(map) => Some(Value::Object(
            map.iter()
                .filter_map(|(k, v)| normalise_value(Some(k), v, registry).map(|v| (k.clone(), v)))
                .collect::<Map<String, Value>>(),
        )),
        other => Some(other.clone()),
    }
}

/// The canonical form of a call's arguments.
pub fn normalise_args(args: &Value, registry: &Registry) -> Value {
    normalise_value(None, args, registry).unwrap_or(Value::Object(Map::new()))
}

fn hash_str(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Hash of a tool name and its normalised arguments.
pub fn call_hash(tool: &str, normalised_args: &Value) -> u64 {
    hash_str(&format!(
        "{}\u{0}{normalised_args}",
        tool.trim().to_lowercase()
    ))
}

/// Feeds `value` to the hasher without its volatile fields, each part tagged with its type
/// and length so that different values do not feed the same bytes. (Walked in place: a copy
/// without them, written out as text, took longer than the call it fingerprints.)
fn hash_stable(value: &Value, h: &mut DefaultHasher) {
    match value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n).hash(h),
        Value::String(text) => (3u8, text).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            for item in items {
                hash_stable(item, h);
            }
        }
        Value::Object(map) => {
            5u8.hash(h);
            for (key, item) in map.iter().filter(|(k, _)| !VOLATILE.contains(&k.as_str())) {
                key.hash(h);
                hash_stable(item, h);
            }
            // The end of the object: {"a": {}, "b": 1} and {"a": {"b": 1}} differ.
            6u8.hash(h);
        }
    }
}

/// Hash of a tool result, ignoring volatile fields when the result is JSON.
pub fn result_hash(result: &str) -> u64 {
    match serde_json::from_str::<Value>(result) {
        Ok(value) => {
            let mut h = DefaultHasher::new();
            hash_stable(&value, &mut h);
            h.finish()
        }
        Err(_) => hash_str(result.trim()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExposureConfig;
    use crate::ha::exposure::ExposurePolicy;
    use crate::ha::registry::{Snapshot, StateObject};
    use serde_json::json;

    pub(crate) fn registry() -> Registry {
        let state = |id: &str, name: &str| StateObject {
            entity_id: id.into(),
            state: "off".into(),
            attributes: json!({"friendly_name": name}).as_object().unwrap().clone(),
            last_changed: String::new(),
            last_updated: String::new(),
        };
        Registry::from_snapshot(
            Snapshot {
                states: vec![
                    state("light.kitchen", "Kitchen Light"),
                    state("light.bed", "Lamp"),
                    state("switch.bed", "Lamp"),
                ],
                ..Default::default()
            },
            ExposurePolicy::new(ExposureConfig::default()),
            None,
        )
    }

    #[test]
    fn sloppy_and_clean_arguments_hash_the_same() {
        let r = registry();
        let a = normalise_args(&json!({"entity_id": " Light.Kitchen "}), &r);
        let b = normalise_args(&json!({"entity_id": "light.kitchen"}), &r);
        let c = normalise_args(&json!({"entity_id": "kitchen  light"}), &r);
        assert_eq!(a, json!({"entity_id": "light.kitchen"}));
        assert_eq!(a, b);
        assert_eq!(a, c, "a unique friendly name resolves to its id");
        assert_eq!(call_hash("get_state", &a), call_hash(" Get_State", &b));
        assert_ne!(call_hash("get_state", &a), call_hash("call_service", &a));
    }

    #[test]
    fn nulls_drop_keys_sort_and_identifiers_lowercase() {
        let r = registry();
        let got = normalise_args(
            &json!({"service": " Turn_On ", "domain": "LIGHT", "data": {"brightness_pct": 50,
                "transition": null}, "entity_id": ["Light.Kitchen", null], "area_id": null}),
            &r,
        );
        assert_eq!(
            got,
            json!({"data": {"brightness_pct": 50}, "domain": "light",
                "entity_id": ["light.kitchen"], "service": "turn_on"})
        );
        assert_eq!(
            got.to_string(),
            normalise_args(&got, &r).to_string(),
            "idempotent"
        );
    }

    #[test]
    fn ambiguous_friendly_names_are_left_alone() {
        let r = registry();
        assert_eq!(resolve_entity("Lamp", &r), "lamp");
    }

    #[test]
    fn result_hashes_ignore_volatile_fields() {
        let a = r#"{"state": "on", "last_updated": "t1", "context": {"id": "x"}}"#;
        let b = r#"{"state": "on", "last_updated": "t2", "context": {"id": "y"}}"#;
        let c = r#"{"state": "off", "last_updated": "t2"}"#;
        assert_eq!(result_hash(a), result_hash(b));
        assert_ne!(result_hash(a), result_hash(c));
        assert_eq!(result_hash(" plain "), result_hash("plain"));
        // Nesting and types are part of the value.
        assert_ne!(
            result_hash(r#"{"a": {}, "b": 1}"#),
            result_hash(r#"{"a": {"b": 1}}"#)
        );
        assert_ne!(result_hash(r#"["1"]"#), result_hash("[1]"));
        assert_ne!(result_hash(r#"[[1], 2]"#), result_hash("[[1, 2]]"));
    }
}
