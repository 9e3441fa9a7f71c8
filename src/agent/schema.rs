//! The one shape a constrained reply may take (`llm.models[].structured_output`), drawn from
//! the same tool registry as the prompt schema and the validator: a call of a listed tool whose
//! `entity_id` is a real, visible entity and whose service its domain offers and policy allows,
//! or a final answer. A server that constrains decoding to it (llama.cpp, Ollama, vLLM) cannot
//! let a small model invent `light.kitchen`, write `turn_on_light`, or answer with a half call
//! in prose. Everything is still validated after decoding: the schema narrows, it does not
//! authorise.
//!
//! Property order matters: grammar-constrained decoding writes properties in the order given,
//! so a call starts with the tool's name, and a service call names its domain before the
//! service and the target.

use serde_json::{Value, json};

use super::tools::{ToolKind, ToolRegistry};
use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::Registry;
use crate::llm::ToolChoice;

/// Above this many visible entities an id is constrained to the id shape only: the grammar
/// would cost more to build than it saves.
pub const MAX_LISTED_IDS: usize = 1_000;

/// The JSON Schema of every reply allowed for `choice`; `None` when the model must not call
/// tools (nothing to constrain).
pub fn reply_schema(
    tools: &ToolRegistry,
    registry: &Registry,
    choice: &ToolChoice,
) -> Option<Value> {
    let mut branches: Vec<Value> = Vec::new();
    for kind in ToolKind::ALL {
        let wanted = match choice {
            ToolChoice::None => return None,
            ToolChoice::Named(name) => name == kind.name(),
            ToolChoice::Auto | ToolChoice::Required => true,
        };
        if wanted && tools.names().contains(&kind.name()) {
            branches.extend(tool_branches(kind, tools, registry));
        }
    }
    if *choice == ToolChoice::Auto {
        branches.push(closed(
            json!({"answer": {"type": "string", "minLength": 1}}),
        ));
    }
    (!branches.is_empty()).then(|| json!({"anyOf": branches}))
}

/// An object with exactly these properties, all required, in this order.
fn closed(properties: Value) -> Value {
    let required: Vec<&String> = properties
        .as_object()
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn call(name: &str, arguments: Value) -> Value {
    closed(json!({"name": {"const": name}, "arguments": arguments}))
}

/// One entity id, or a list of them, from `ids` (or of the id shape when there are too many).
fn ids_schema(ids: &[&str], list: bool) -> Value {
    let one = if ids.len() > MAX_LISTED_IDS {
        json!({"type": "string", "pattern": "^[a-z0-9_]+\\.[a-z0-9_]+$"})
    } else {
        json!({"enum": ids})
    };
    if list {
        json!({"anyOf": [one.clone(), {"type": "array", "items": one, "minItems": 1}]})
    } else {
        one
    }
}

fn tool_branches(kind: ToolKind, tools: &ToolRegistry, registry: &Registry) -> Vec<Value> {
    match kind {
        ToolKind::GetState => {
            let ids: Vec<&str> = registry.entities().map(|e| e.entity_id.as_str()).collect();
            if ids.is_empty() {
                return Vec::new();
            }
            vec![call(
                kind.name(),
                closed(json!({"entity_id": ids_schema(&ids, false)})),
            )]
        }
        // One branch per domain: its own services and its own entities, so a light's id never
        // goes with `lock.unlock`.
        ToolKind::CallService => registry
            .services()
            .iter()
            .filter_map(|(domain, services)| {
                let services: Vec<&str> = services
                    .keys()
                    .map(String::as_str)
                    .filter(|s| {
                        registry.service_decision(domain, s) == Some(ServiceDecision::Allowed)
                    })
                    .collect();
                let ids: Vec<&str> = registry
                    .entities()
                    .filter(|e| e.domain() == domain)
                    .map(|e| e.entity_id.as_str())
                    .collect();
                if services.is_empty() || ids.is_empty() {
                    return None;
                }
                let arguments = json!({
                    "type": "object",
                    "properties": {
                        "domain": {"const": domain},
                        "service": {"enum": services},
                        "entity_id": ids_schema(&ids, true),
                        "data": {"type": "object"},
                    },
                    "required": ["domain", "service", "entity_id"],
                    "additionalProperties": false,
                });
                Some(call(kind.name(), arguments))
            })
            .collect(),
        ToolKind::SearchEntities | ToolKind::ListAreas => tools
            .definitions(registry)
            .into_iter()
            .filter(|d| d.name == kind.name())
            .map(|d| call(kind.name(), d.parameters))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::sim::synthetic_home;

    fn branch_names(schema: &Value) -> Vec<String> {
        schema["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let p = &b["properties"];
                match p["name"]["const"].as_str() {
                    Some(name) => match p["arguments"]["properties"]["domain"]["const"].as_str() {
                        Some(domain) => format!("{name}:{domain}"),
                        None => name.to_owned(),
                    },
                    None => "answer".to_owned(),
                }
            })
            .collect()
    }

    #[test]
    fn a_reply_is_a_call_on_a_real_entity_with_its_domains_services_or_an_answer() {
        let registry = synthetic_home(6);
        let tools = ToolRegistry;
        let schema = reply_schema(&tools, &registry, &ToolChoice::Auto).unwrap();
        let names = branch_names(&schema);
        assert!(names.contains(&"answer".to_owned()), "{names:?}");
        assert!(names.contains(&"get_state".to_owned()), "{names:?}");
        assert!(
            names.contains(&"call_service:light".to_owned()),
            "{names:?}"
        );
        let light = schema["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["properties"]["arguments"]["properties"]["domain"]["const"] == "light")
            .unwrap();
        let args = &light["properties"]["arguments"]["properties"];
        let services: Vec<&str> = args["service"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(services.contains(&"turn_on"), "{services:?}");
        let ids = args["entity_id"]["anyOf"][0]["enum"].as_array().unwrap();
        assert!(!ids.is_empty());
        assert!(
            ids.iter()
                .all(|id| id.as_str().unwrap().starts_with("light.")),
            "{ids:?}"
        );
        // The grammar writes properties in this order: the tool first, then what it acts on.
        let order: Vec<&String> = light["properties"].as_object().unwrap().keys().collect();
        assert_eq!(order, ["name", "arguments"]);
        let order: Vec<&String> = args.as_object().unwrap().keys().collect();
        assert_eq!(order, ["domain", "service", "entity_id", "data"]);
    }

    #[test]
    fn denied_services_are_not_offered_and_the_choice_narrows_the_shape() {
        let registry = synthetic_home(6);
        let tools = ToolRegistry;
        let schema = reply_schema(&tools, &registry, &ToolChoice::Auto).unwrap();
        let text = schema.to_string();
        assert!(
            !text.contains("\"restart\""),
            "homeassistant.restart is denied"
        );
        let required = reply_schema(&tools, &registry, &ToolChoice::Required).unwrap();
        assert!(!branch_names(&required).contains(&"answer".to_owned()));
        let named =
            reply_schema(&tools, &registry, &ToolChoice::Named("get_state".into())).unwrap();
        assert_eq!(branch_names(&named), ["get_state"]);
        assert_eq!(reply_schema(&tools, &registry, &ToolChoice::None), None);
    }
}
