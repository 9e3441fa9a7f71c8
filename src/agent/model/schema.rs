//! The one shape a constrained reply may take (`llm.models[].structured_output`), drawn from
//! the same tool registry as the prompt schema and the validator: a call of a listed tool on
//! one of the command's candidates with a service its domain offers and policy allows (or, for
//! anything else, an id and a service of the right shape), or a final answer. Listing every
//! entity of the home made each request grow with the home (19,000 tokens at 2,000 entities);
//! the candidates are the few the words point at. A server that constrains decoding to it (llama.cpp, Ollama, vLLM) cannot
//! let a small model invent `light.kitchen`, write `turn_on_light`, or answer with a half call
//! in prose. Everything is still validated after decoding: the schema narrows, it does not
//! authorise.
//!
//! Property order matters: grammar-constrained decoding writes properties in the order given,
//! so a call starts with the tool's name, and a service call names its domain before the
//! service and the target.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::agent::act::tools::{ToolKind, ToolRegistry};
use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::Registry;
use crate::llm::ToolChoice;

/// The shape of an entity id: what the model may write for an entity that is not among the
/// candidates (validation then checks it against the registry).
const ID_PATTERN: &str = "^[a-z0-9_]+\\.[a-z0-9_]+$";
/// The shape of a service name outside the candidates' domains.
const SERVICE_PATTERN: &str = "^[a-z0-9_]+$";

/// The JSON Schema of every reply allowed for `choice`; `None` when the model must not call
/// tools (nothing to constrain). `candidates` are the entities the command's words point at:
/// their ids and their domains' allowed services are listed; anything else is held to the id
/// and service shape only, so the schema's size follows the candidates, not the home.
pub fn reply_schema(
    tools: &ToolRegistry,
    registry: &Registry,
    choice: &ToolChoice,
    candidates: &[&str],
) -> Option<Value> {
    let mut branches: Vec<Value> = Vec::new();
    for kind in ToolKind::ALL {
        let wanted = match choice {
            ToolChoice::None => return None,
            ToolChoice::Named(name) => name == kind.name(),
            ToolChoice::Auto | ToolChoice::Required => true,
        };
        if wanted && tools.names().contains(&kind.name()) {
            branches.extend(tool_branches(kind, registry, candidates));
        }
    }
    if *choice == ToolChoice::Auto {
        branches.push(closed([(
            "answer",
            json!({"type": "string", "minLength": 1}),
        )]));
    }
    (!branches.is_empty()).then(|| object([("anyOf", Value::Array(branches))]))
}

/// What a run's requests share, each built at its first request: the reply schemas (one per
/// sampling, nearly always for the same tool choice on the same candidates: the same schema),
/// the system text and the tools. (An area or service Home Assistant registers during the run
/// is in the next run's; they narrow what the model writes, validation still decides what
/// runs.)
#[derive(Default)]
pub(crate) struct Shared {
    replies: Vec<(ToolChoice, Vec<String>, Option<Arc<Value>>)>,
    system: Option<String>,
    tools: Option<Arc<[crate::llm::ToolDef]>>,
}

impl Shared {
    /// The schema for `choice` on `ids`, built by `build` the first time it is asked for.
    pub(crate) fn reply(
        &mut self,
        choice: &ToolChoice,
        ids: &[&str],
        build: impl FnOnce() -> Option<Value>,
    ) -> Option<Arc<Value>> {
        let same = |(c, i, _): &&(ToolChoice, Vec<String>, Option<Arc<Value>>)| {
            c == choice && i.iter().map(String::as_str).eq(ids.iter().copied())
        };
        if let Some((.., schema)) = self.replies.iter().find(same) {
            return schema.clone();
        }
        let schema = build().map(Arc::new);
        let ids = ids.iter().map(|id| (*id).to_owned()).collect();
        self.replies.push((choice.clone(), ids, schema.clone()));
        schema
    }

    /// The system text, built by `build` at the run's first request.
    pub(crate) fn system(&mut self, build: impl FnOnce() -> String) -> String {
        self.system.get_or_insert_with(build).clone()
    }

    /// The tools, built by `build` at the run's first request and shared by its requests.
    pub(crate) fn tools(
        &mut self,
        build: impl FnOnce() -> Vec<crate::llm::ToolDef>,
    ) -> Arc<[crate::llm::ToolDef]> {
        self.tools.get_or_insert_with(|| build().into()).clone()
    }
}

/// An object of these members, in this order. The parts are moved in: `json!` would copy
/// each part it is given, through the serializer, at every level of nesting (most of the
/// time a request took to build).
fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn strings(items: &[&str]) -> Value {
    Value::Array(items.iter().map(|s| Value::from(*s)).collect())
}

/// An object with exactly these properties, all required, in this order.
fn closed<const N: usize>(properties: [(&str, Value); N]) -> Value {
    let required = Value::Array(properties.iter().map(|(k, _)| Value::from(*k)).collect());
    object([
        ("type", "object".into()),
        ("properties", object(properties)),
        ("required", required),
        ("additionalProperties", false.into()),
    ])
}

fn call(name: &str, arguments: Value) -> Value {
    closed([
        ("name", object([("const", name.into())])),
        ("arguments", arguments),
    ])
}

/// One entity id (or a list of them): one of `ids`, else (`open`) any id of the right shape.
fn ids_schema(ids: &[&str], list: bool, open: bool) -> Value {
    let shape = json!({"type": "string", "pattern": ID_PATTERN});
    let one = match (ids.is_empty(), open) {
        (true, _) => shape,
        (false, false) => object([("enum", strings(ids))]),
        (false, true) => object([(
            "anyOf",
            Value::Array(vec![object([("enum", strings(ids))]), shape]),
        )]),
    };
    if list {
        let many = object([
            ("type", "array".into()),
            ("items", one.clone()),
            ("minItems", 1.into()),
        ]);
        object([("anyOf", Value::Array(vec![one, many]))])
    } else {
        one
    }
}

fn service_call(domain: Value, service: Value, entity_id: Value) -> Value {
    call(
        ToolKind::CallService.name(),
        object([
            ("type", "object".into()),
            (
                "properties",
                object([
                    ("domain", domain),
                    ("service", service),
                    ("entity_id", entity_id),
                    ("data", json!({"type": "object"})),
                ]),
            ),
            ("required", strings(&["domain", "service", "entity_id"])),
            ("additionalProperties", false.into()),
        ]),
    )
}

fn tool_branches(kind: ToolKind, registry: &Registry, candidates: &[&str]) -> Vec<Value> {
    match kind {
        ToolKind::GetState if registry.is_empty() => Vec::new(),
        ToolKind::GetState => vec![call(
            kind.name(),
            closed([("entity_id", ids_schema(candidates, false, true))]),
        )],
        // One branch per candidate domain: its own allowed services and its candidates, so a
        // light's id never goes with `lock.unlock`; then one branch for every other domain of
        // the home, held to the shapes only.
        ToolKind::CallService => {
            let mut domains: Vec<&str> = candidates
                .iter()
                .filter_map(|id| id.split_once('.').map(|(d, _)| d))
                .collect();
            domains.sort_unstable();
            domains.dedup();
            let mut branches: Vec<Value> = domains
                .iter()
                .filter_map(|domain| {
                    let services: Vec<&str> = registry
                        .services()
                        .get(*domain)?
                        .keys()
                        .map(String::as_str)
                        .filter(|s| {
                            registry.service_decision(domain, s) == Some(ServiceDecision::Allowed)
                        })
                        .collect();
                    let ids: Vec<&str> = candidates
                        .iter()
                        .copied()
                        .filter(|id| id.split_once('.').is_some_and(|(d, _)| d == *domain))
                        .collect();
                    (!services.is_empty()).then(|| {
                        service_call(
                            object([("const", (*domain).into())]),
                            object([("enum", strings(&services))]),
                            ids_schema(&ids, true, false),
                        )
                    })
                })
                .collect();
            let others: Vec<&str> = registry
                .domains()
                .keys()
                .map(String::as_str)
                .filter(|d| !domains.contains(d) && registry.services().contains_key(*d))
                .collect();
            if !others.is_empty() {
                branches.push(service_call(
                    object([("enum", strings(&others))]),
                    json!({"type": "string", "pattern": SERVICE_PATTERN}),
                    ids_schema(&[], true, true),
                ));
            }
            branches
        }
        ToolKind::SearchEntities | ToolKind::ListAreas => {
            vec![call(kind.name(), kind.parameters(registry))]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::selfcheck::home::synthetic_home;

    const CANDIDATES: [&str; 3] = ["light.kitchen_lights", "light.bed_light", "lock.front_door"];

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
        let schema = reply_schema(&tools, &registry, &ToolChoice::Auto, &CANDIDATES).unwrap();
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
        assert_eq!(
            ids,
            &[json!("light.kitchen_lights"), json!("light.bed_light")]
        );
        // The grammar writes properties in this order: the tool first, then what it acts on.
        let order: Vec<&String> = light["properties"].as_object().unwrap().keys().collect();
        assert_eq!(order, ["name", "arguments"]);
        let order: Vec<&String> = args.as_object().unwrap().keys().collect();
        assert_eq!(order, ["domain", "service", "entity_id", "data"]);
    }

    #[test]
    fn the_schema_follows_the_candidates_not_the_size_of_the_home() {
        let tools = ToolRegistry;
        let small = synthetic_home(20);
        let big = synthetic_home(5_000);
        let size = |r: &Registry| {
            reply_schema(&tools, r, &ToolChoice::Auto, &CANDIDATES)
                .unwrap()
                .to_string()
                .len()
        };
        assert_eq!(size(&small), size(&big));
        let schema = reply_schema(&tools, &big, &ToolChoice::Auto, &CANDIDATES).unwrap();
        // Every other domain of the home is one branch held to the shapes, never its ids.
        let text = schema.to_string();
        assert!(!text.contains("fan.kitchen_fan"), "{text}");
        let names = branch_names(&schema);
        let other = schema["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["properties"]["arguments"]["properties"]["domain"]["enum"].is_array())
            .unwrap();
        let others = &other["properties"]["arguments"]["properties"]["domain"]["enum"];
        assert!(
            others.as_array().unwrap().contains(&json!("fan")),
            "{others}"
        );
        assert!(
            !others.as_array().unwrap().contains(&json!("light")),
            "{others}"
        );
        assert!(names.contains(&"call_service:lock".to_owned()), "{names:?}");
        // With no candidate the model may still name any entity of the right shape.
        let open = reply_schema(&tools, &big, &ToolChoice::Required, &[]).unwrap();
        let get_state = open["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["properties"]["name"]["const"] == "get_state")
            .unwrap();
        let get_state = &get_state["properties"]["arguments"]["properties"]["entity_id"];
        assert_eq!(get_state, &json!({"type": "string", "pattern": ID_PATTERN}));
    }

    #[test]
    fn denied_services_are_not_offered_and_the_choice_narrows_the_shape() {
        let registry = synthetic_home(6);
        let tools = ToolRegistry;
        let schema = reply_schema(&tools, &registry, &ToolChoice::Auto, &CANDIDATES).unwrap();
        let text = schema.to_string();
        assert!(
            !text.contains("\"restart\""),
            "homeassistant.restart is denied"
        );
        let required = reply_schema(&tools, &registry, &ToolChoice::Required, &CANDIDATES).unwrap();
        assert!(!branch_names(&required).contains(&"answer".to_owned()));
        let named = reply_schema(
            &tools,
            &registry,
            &ToolChoice::Named("get_state".into()),
            &CANDIDATES,
        )
        .unwrap();
        assert_eq!(branch_names(&named), ["get_state"]);
        assert_eq!(
            reply_schema(&tools, &registry, &ToolChoice::None, &CANDIDATES),
            None
        );
    }
}
