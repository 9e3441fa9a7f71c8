//! The self-check's home, held in memory: the agent loop driven without sockets. The self-check
//! (`GET /api/self-check`, in the release build) runs its guard checks on it; unit tests and
//! the benchmarks use it too.
//!
//! It applies the obvious effect of a service (turn_on → on, lock → locked) so that a run
//! changes state the way Home Assistant would; it is not a mock of the integration tests,
//! which run against a real Home Assistant.

use std::sync::{Mutex, PoisonError, RwLock};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use crate::agent::home::{Home, Recognised};
use crate::config::ExposureConfig;
use crate::ha::exposure::{AssistExposure, ExposurePolicy};
use crate::ha::registry::{Area, Entity, EntityRegistryEntry, Registry, Snapshot, StateObject};
use crate::ha::services::{CallError, CheckedCall};

/// A home held in memory; service calls change states the obvious way.
pub struct MemoryHome {
    registry: RwLock<Registry>,
    calls: Mutex<Vec<CheckedCall>>,
    /// Entities that accept calls but never change (an offline device).
    stuck: Mutex<Vec<String>>,
    /// Calls run, but their answer is lost (the connection drops after sending).
    lose_answers: std::sync::atomic::AtomicBool,
    /// What a read through `domain.service` answers, keyed by entity id as Home Assistant's
    /// response is.
    responses: Mutex<std::collections::BTreeMap<String, Value>>,
    /// What Home Assistant's recogniser answers for every sentence (none: not recognised).
    recognition: Mutex<Option<crate::ha::recognise::Recognition>>,
    /// What Home Assistant's recogniser answers for one sentence, before `recognition`.
    sentences: Mutex<Vec<(String, crate::ha::recognise::Recognition)>>,
    /// The sentences the recogniser was asked, in order.
    asked: Mutex<Vec<String>>,
    /// What Home Assistant's agent says to a sentence handed to it.
    handled: Mutex<Vec<String>>,
    /// The next sentence's recognition misses the budget and comes through this, late.
    late: Mutex<Option<tokio::sync::oneshot::Receiver<crate::ha::recognise::Recognition>>>,
}

impl MemoryHome {
    pub fn new(registry: Registry) -> Self {
        Self {
            registry: RwLock::new(registry),
            calls: Mutex::new(Vec::new()),
            stuck: Mutex::new(Vec::new()),
            lose_answers: std::sync::atomic::AtomicBool::new(false),
            responses: Mutex::new(Default::default()),
            recognition: Mutex::new(None),
            sentences: Mutex::new(Vec::new()),
            asked: Mutex::new(Vec::new()),
            handled: Mutex::new(Vec::new()),
            late: Mutex::new(None),
        }
    }

    /// The next sentence's recognition misses the recogniser's budget: it comes when sent
    /// through the returned sender (dropped unsent: it never comes).
    pub fn recognise_late(
        &self,
    ) -> tokio::sync::oneshot::Sender<crate::ha::recognise::Recognition> {
        let (send, late) = tokio::sync::oneshot::channel();
        *self.late.lock().unwrap_or_else(PoisonError::into_inner) = Some(late);
        send
    }

    /// Home Assistant's recogniser recognises every sentence as this from now on.
    pub fn recognise_as(&self, recognition: crate::ha::recognise::Recognition) {
        *self
            .recognition
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(recognition);
    }

    /// Home Assistant's recogniser recognises `sentence` (word for word) as this.
    pub fn recognise_sentence(
        &self,
        sentence: &str,
        recognition: crate::ha::recognise::Recognition,
    ) {
        self.sentences
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((sentence.to_owned(), recognition));
    }

    /// The sentences Home Assistant's recogniser was asked, in order.
    pub fn asked_recogniser(&self) -> Vec<String> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The sentences handed to Home Assistant's agent.
    pub fn handed_off(&self) -> Vec<String> {
        self.handled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What a read of `entity_id` through `domain.service` answers from now on.
    pub fn respond(&self, domain: &str, service: &str, entity_id: &str, answer: Value) {
        let mut responses = self
            .responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let entry = responses
            .entry(format!("{domain}.{service}"))
            .or_insert_with(|| json!({}));
        entry[entity_id] = answer;
    }

    /// From now on every call runs but fails as if the connection broke before its answer.
    pub fn lose_answers(&self) {
        self.lose_answers
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Makes an entity ignore every service call from now on.
    pub fn stick(&self, entity_id: &str) {
        self.stuck
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entity_id.to_owned());
    }

    pub fn calls(&self) -> Vec<CheckedCall> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn state(&self, entity_id: &str) -> Option<String> {
        self.registry
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(entity_id)
            .map(|e| e.state.clone())
    }

    /// Sets a state as Home Assistant would report it.
    pub fn set_state(&self, entity_id: &str, state: &str) {
        self.set_state_with(entity_id, state, serde_json::Map::new());
    }

    /// Sets a state and some of its attributes (the others stay).
    pub fn set_state_with(
        &self,
        entity_id: &str,
        state: &str,
        changed: serde_json::Map<String, Value>,
    ) {
        let mut registry = self
            .registry
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let mut attributes = registry
            .get(entity_id)
            .map(|e| e.attributes.clone())
            .unwrap_or_default();
        attributes.extend(changed);
        let attributes = Value::Object(attributes);
        let stamp = format!("9999-{:08}", registry.len());
        registry.apply_state_changed(&json!({
            "entity_id": entity_id,
            "new_state": {"entity_id": entity_id, "state": state, "attributes": attributes,
                "last_changed": stamp, "last_updated": stamp}
        }));
    }
}

fn effect(domain: &str, service: &str, current: &str) -> Option<&'static str> {
    Some(match (domain, service) {
        (_, "turn_on") => "on",
        (_, "turn_off") => "off",
        (_, "toggle") if current == "on" => "off",
        (_, "toggle") => "on",
        ("lock", "lock") => "locked",
        ("lock", "unlock") => "unlocked",
        ("cover", "open_cover") => "open",
        ("cover", "close_cover") => "closed",
        _ => return None,
    })
}

impl Home for MemoryHome {
    fn read(&self, f: &mut dyn FnMut(&Registry)) {
        f(&self.registry.read().unwrap_or_else(PoisonError::into_inner));
    }

    fn recognise<'a>(
        &'a self,
        sentence: &'a str,
        _language: &'a str,
        _device_id: Option<&'a str>,
    ) -> BoxFuture<'a, Recognised> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(sentence.to_owned());
        let of_sentence = self
            .sentences
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|(said, _)| said == sentence)
            .map(|(_, recognition)| recognition.clone());
        if let Some(recognition) = of_sentence {
            return Box::pin(async move { Recognised::Now(Some(recognition)) });
        }
        if let Some(late) = self
            .late
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Box::pin(
                async move { Recognised::Late(Box::pin(async move { late.await.ok() })) },
            );
        }
        let recognition = self
            .recognition
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Box::pin(async move { Recognised::Now(recognition) })
    }

    fn hand_off<'a>(
        &'a self,
        text: &'a str,
        _language: &'a str,
        _device_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<crate::ha::recognise::Handled, String>> {
        self.handled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(text.to_owned());
        Box::pin(async move {
            Ok(crate::ha::recognise::Handled {
                speech: format!("Home Assistant: {text}"),
                failed: false,
            })
        })
    }

    fn read_service<'a>(
        &'a self,
        call: &'a CheckedCall,
    ) -> BoxFuture<'a, Result<Value, CallError>> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(call.clone());
        let all = self
            .responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&format!("{}.{}", call.domain, call.service))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let answer: serde_json::Map<String, Value> = call
            .target
            .entity_id
            .iter()
            .filter_map(|id| Some((id.clone(), all.get(id)?.clone())))
            .collect();
        Box::pin(async move { Ok(Value::Object(answer)) })
    }

    fn call_service<'a>(
        &'a self,
        call: &'a CheckedCall,
    ) -> BoxFuture<'a, Result<Value, CallError>> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(call.clone());
        let targets: Vec<(String, String)> = {
            let registry = self.registry.read().unwrap_or_else(PoisonError::into_inner);
            let mut ids = call.target.entity_id.clone();
            for area in &call.target.area_id {
                ids.extend(
                    registry
                        .entities()
                        .filter(|e| {
                            e.area_id.as_deref() == Some(area.as_str()) && e.domain() == call.domain
                        })
                        .map(|e| e.entity_id.clone()),
                );
            }
            ids.into_iter()
                .filter_map(|id| registry.get(&id).map(|e| (id, e.state.clone())))
                .collect()
        };
        let stuck = self
            .stuck
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for (id, current) in targets {
            if stuck.contains(&id) {
                continue;
            }
            if let Some(new) = effect(&call.domain, &call.service, &current) {
                // A light set to a percentage shows it as Home Assistant does (0–255).
                let mut changed = serde_json::Map::new();
                if let Some(pct) = call
                    .data
                    .as_ref()
                    .and_then(|d| d.get("brightness_pct"))
                    .and_then(Value::as_f64)
                {
                    changed.insert("brightness".into(), json!((pct * 2.55).round()));
                }
                self.set_state_with(&id, new, changed);
            }
        }
        if self.lose_answers.load(std::sync::atomic::Ordering::Relaxed) {
            return Box::pin(async {
                Err(CallError::Ha(crate::ha::HaError::ConnectionLost {
                    command: "call_service".into(),
                }))
            });
        }
        Box::pin(async { Ok(json!({"context": {"id": "sim"}})) })
    }

    fn wait_for<'a>(
        &'a self,
        entity_id: &'a str,
        _timeout: Duration,
        check: &'a (dyn Fn(&Entity) -> bool + Send + Sync),
    ) -> BoxFuture<'a, (bool, Option<Entity>)> {
        // Effects apply synchronously here, so the answer is known at once.
        let seen = self
            .registry
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(entity_id)
            .cloned();
        Box::pin(async move { (seen.as_ref().is_some_and(check), seen) })
    }
}

const AREAS: [(&str, &str); 6] = [
    ("kitchen", "Kitchen"),
    ("living_room", "Living Room"),
    ("bedroom", "Bedroom"),
    ("office", "Office"),
    ("garage", "Garage"),
    ("hall", "Hall"),
];

/// A home with `entities` entities: the named ones the tests talk about, then generated ones
/// across domains and areas.
pub fn synthetic_home(entities: usize) -> Registry {
    let fixed: [(&str, &str, &str, &str); 8] = [
        ("light.kitchen_lights", "Kitchen Lights", "on", "kitchen"),
        ("light.bed_light", "Bed Light", "off", "bedroom"),
        (
            "light.ceiling_lights",
            "Ceiling Lights",
            "on",
            "living_room",
        ),
        (
            "switch.decorative_lights",
            "Decorative Lights",
            "on",
            "living_room",
        ),
        ("cover.garage_door", "Garage Door", "closed", "garage"),
        ("lock.front_door", "Front Door", "locked", "hall"),
        ("climate.heatpump", "HeatPump", "heat", "bedroom"),
        (
            "sensor.outside_temperature",
            "Outside Temperature",
            "12.5",
            "living_room",
        ),
    ];
    let domains = ["light", "switch", "sensor", "binary_sensor", "cover", "fan"];
    let mut states = Vec::with_capacity(entities.max(fixed.len()));
    let mut links = Vec::new();
    for (id, name, state, area) in fixed.iter().take(entities.max(1)) {
        states.push(state_object(id, name, state));
        links.push(link(id, area));
    }
    for i in states.len()..entities {
        let domain = domains[i % domains.len()];
        let (area_id, area_name) = AREAS[i % AREAS.len()];
        let id = format!("{domain}.{area_id}_{domain}_{i}");
        let name = format!("{area_name} {} {i}", domain.replace('_', " "));
        states.push(state_object(
            &id,
            &name,
            if i % 2 == 0 { "on" } else { "off" },
        ));
        links.push(link(&id, area_id));
    }
    let services = json!({
        "light": {"turn_on": {"fields": {"brightness_pct": {}}}, "turn_off": {}, "toggle": {}},
        "switch": {"turn_on": {}, "turn_off": {}, "toggle": {}},
        "cover": {"open_cover": {}, "close_cover": {}, "stop_cover": {}},
        "lock": {"lock": {}, "unlock": {}},
        "fan": {"turn_on": {}, "turn_off": {}},
        "climate": {"set_temperature": {"fields": {"temperature": {}}}, "set_hvac_mode": {}},
        "homeassistant": {"turn_on": {}, "turn_off": {}, "restart": {}, "stop": {}}
    });
    home_of(states, links, &AREAS, services)
}

/// A home from its states, their registry entries (area links), its areas and Home
/// Assistant's service list, exposed as HomeClaw's defaults expose it.
pub fn home_of(
    states: Vec<StateObject>,
    links: Vec<EntityRegistryEntry>,
    areas: &[(&str, &str)],
    services: Value,
) -> Registry {
    let snapshot = Snapshot {
        ha_version: "sim".into(),
        location_name: Some("Sim Home".into()),
        time_zone: None,
        states,
        entity_registry: links,
        devices: Vec::new(),
        areas: areas
            .iter()
            .map(|(id, name)| Area {
                area_id: (*id).into(),
                name: (*name).into(),
                aliases: Vec::new(),
                floor_id: None,
            })
            .collect(),
        floors: Vec::new(),
        services: serde_json::from_value(services).unwrap_or_default(),
        assist: AssistExposure::Unsupported,
    };
    Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig::default()),
        None,
    )
}

/// A state as `get_states` answers it, named `name`.
pub fn state_object(id: &str, name: &str, state: &str) -> StateObject {
    StateObject {
        entity_id: id.to_owned(),
        state: state.to_owned(),
        attributes: json!({"friendly_name": name})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        last_changed: "2026-01-01T00:00:00+00:00".into(),
        last_updated: "2026-01-01T00:00:00+00:00".into(),
    }
}

pub fn link(id: &str, area: &str) -> EntityRegistryEntry {
    EntityRegistryEntry {
        entity_id: id.to_owned(),
        area_id: Some(area.to_owned()),
        ..Default::default()
    }
}
