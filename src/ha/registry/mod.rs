//! The home as HomeClaw sees it: entities, areas, domains and services, built from Home
//! Assistant's snapshots and kept live from `state_changed` and registry events.
//!
//! Invariants:
//! - Pure data and lookups; no IO. [`crate::ha::sync`] feeds it.
//! - An entity's area is its own area, else its device's area (HA's rule).
//! - Entities hidden by the exposure policy are kept (so a later policy or event can see them)
//!   but never returned by the public lookups.
//! - Every derived field of an entity (area, visibility, search words) is recomputed from its
//!   state and the current registries whenever either changes; nothing is patched by hand.
//! - A state never goes back in time: an event or snapshot older than what we hold (by
//!   `last_updated`) is ignored, so a resync racing with events cannot undo a newer state.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Map, Value};

mod search;
mod wire;

pub use wire::{
    Area, DeviceEntry, EntityRegistryEntry, Floor, ServiceField, ServiceInfo, Snapshot, StateObject,
};

use super::exposure::{AssistExposure, ExposurePolicy, ServiceDecision};
use super::search::{Haystack, WordIndex};
use crate::text::tokens;

#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    pub entity_id: String,
    pub name: String,
    pub area_id: Option<String>,
    pub device_id: Option<String>,
    pub entity_category: Option<String>,
    pub state: String,
    pub attributes: Map<String, Value>,
    pub last_changed: String,
    pub last_updated: String,
    /// The household's other names for it (Home Assistant's entity aliases).
    pub aliases: Vec<String>,
    pub visible: bool,
    /// Folded words of the name, id and area, prepared once for free-text search.
    pub haystack: Haystack,
    /// Where the registry's word index holds this entity (visible entities only).
    pub(crate) search_slot: Option<u32>,
}

impl Entity {
    pub fn domain(&self) -> &str {
        self.entity_id.split('.').next().unwrap_or_default()
    }

    /// The state this entity was derived from, to derive it again.
    fn state_object(&self) -> StateObject {
        StateObject {
            entity_id: self.entity_id.clone(),
            state: self.state.clone(),
            attributes: self.attributes.clone(),
            last_changed: self.last_changed.clone(),
            last_updated: self.last_updated.clone(),
        }
    }

    /// [`Entity::state_object`], taking the entity apart instead of copying it.
    fn into_state_object(self) -> StateObject {
        StateObject {
            entity_id: self.entity_id,
            state: self.state,
            attributes: self.attributes,
            last_changed: self.last_changed,
            last_updated: self.last_updated,
        }
    }
}

/// Why an entity Home Assistant has is kept from the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// Not exposed to Assist in Home Assistant (and `respect_assist` is on).
    NotExposed,
    /// Left out by HomeClaw's own `entity_allow`/`entity_deny`.
    Filtered,
}

impl Hidden {
    /// What the person (through the model, or a refusal) is told: what to change, and where.
    pub fn explain(self, entity_id: &str) -> String {
        match self {
            Self::NotExposed => format!(
                "{entity_id} is not exposed to Assist in Home Assistant, so HomeClaw may not \
                 read or control it; it can be exposed under Settings > Voice assistants > Expose"
            ),
            Self::Filtered => format!(
                "{entity_id} is excluded by HomeClaw's own exposure settings \
                 (ha.exposure.entity_allow / entity_deny), so HomeClaw may not read or control it"
            ),
        }
    }
}

/// A ranked answer to a free-text lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub entity_id: String,
    pub name: String,
    pub area: Option<String>,
    pub state: String,
    pub score: f64,
}

/// What a `state_changed` event did to the registry.
#[derive(Debug, Clone, PartialEq)]
pub enum StateUpdate {
    Changed {
        entity_id: String,
        state: String,
    },
    Removed {
        entity_id: String,
    },
    /// Older than what we hold, or not a state event we understand.
    Ignored,
}

#[derive(Debug, Default)]
struct RegistryLinks {
    entity: HashMap<String, EntityRegistryEntry>,
    devices: HashMap<String, DeviceEntry>,
}

#[derive(Debug)]
pub struct Registry {
    policy: ExposurePolicy,
    ha_version: String,
    location_name: Option<String>,
    time_zone: Option<String>,
    entities: BTreeMap<String, Entity>,
    /// Visible entities per domain, kept in step with `entities` (asked for on every request).
    domain_counts: BTreeMap<String, usize>,
    /// Every visible entity's search words, kept in step with `entities`: a search, or a
    /// word said ([`Registry::names_word`]), reads the entities holding its words, not every
    /// entity of the home.
    index: WordIndex,
    areas: BTreeMap<String, Area>,
    floors: BTreeMap<String, Floor>,
    services: BTreeMap<String, BTreeMap<String, ServiceInfo>>,
    assist: AssistExposure,
    links: RegistryLinks,
}

/// Trim, lowercase, and turn inner whitespace runs into `_`: `" Light.Kitchen "` →
/// `light.kitchen`, `"light.kitchen lights"` → `light.kitchen_lights`.
pub fn normalise_entity_id(raw: &str) -> String {
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join("_")
        .to_lowercase()
}

/// The displayed name: `friendly_name`, else the object id with spaces.
fn friendly_name(entity_id: &str, attributes: &Map<String, Value>) -> String {
    attributes
        .get("friendly_name")
        .and_then(Value::as_str)
        .map_or_else(|| id_words(entity_id), str::to_owned)
}

/// An entity id's object id as words: `light.hall_lamp` → "hall lamp".
pub fn id_words(entity_id: &str) -> String {
    entity_id
        .split_once('.')
        .map_or(entity_id, |(_, o)| o)
        .replace('_', " ")
}

impl Registry {
    pub fn empty(policy: ExposurePolicy) -> Self {
        Self {
            policy,
            ha_version: String::new(),
            location_name: None,
            time_zone: None,
            entities: BTreeMap::new(),
            domain_counts: BTreeMap::new(),
            index: WordIndex::default(),
            areas: BTreeMap::new(),
            floors: BTreeMap::new(),
            services: BTreeMap::new(),
            assist: AssistExposure::Unsupported,
            links: RegistryLinks::default(),
        }
    }

    /// Builds the registry from a snapshot. With `previous`, states newer than the snapshot's
    /// (applied from events while the snapshot was in flight) are kept.
    pub fn from_snapshot(
        snapshot: Snapshot,
        policy: ExposurePolicy,
        previous: Option<&Registry>,
    ) -> Self {
        let Snapshot {
            ha_version,
            location_name,
            time_zone,
            states,
            entity_registry,
            devices,
            areas,
            floors,
            services,
            assist,
        } = snapshot;
        let links = RegistryLinks {
            entity: entity_registry
                .into_iter()
                .map(|e| (e.entity_id.clone(), e))
                .collect(),
            devices: devices.into_iter().map(|d| (d.id.clone(), d)).collect(),
        };
        let mut registry = Self {
            policy,
            ha_version,
            location_name,
            time_zone,
            entities: BTreeMap::new(),
            domain_counts: BTreeMap::new(),
            index: WordIndex::default(),
            areas: areas.into_iter().map(|a| (a.area_id.clone(), a)).collect(),
            floors: floors
                .into_iter()
                .map(|f| (f.floor_id.clone(), f))
                .collect(),
            services,
            assist,
            links,
        };
        for state in states {
            let newer = previous
                .and_then(|p| p.entities.get(&state.entity_id))
                .filter(|held| held.last_updated > state.last_updated);
            let state = newer.map_or(state, Entity::state_object);
            registry.insert(state);
        }
        registry
    }

    fn insert(&mut self, state: StateObject) {
        let link = self.links.entity.get(&state.entity_id);
        if link.is_some_and(|l| l.disabled_by.is_some()) {
            if let Some(old) = self.entities.remove(&state.entity_id) {
                self.forget(&old);
            }
            return;
        }
        let device_id = link.and_then(|l| l.device_id.clone());
        let area_id = link
            .and_then(|l| l.area_id.clone())
            .or_else(|| self.device_area(device_id.as_deref()?).map(str::to_owned));
        let entity_category = link.and_then(|l| l.entity_category.clone());
        let visible = self.policy.entity_visible(
            &state.entity_id,
            entity_category.as_deref(),
            &self.assist,
            link.and_then(EntityRegistryEntry::assist_setting),
        );
        let name = friendly_name(&state.entity_id, &state.attributes);
        let area = area_id.as_deref().and_then(|a| self.areas.get(a));
        let mut area_words = area.map(Area::words).unwrap_or_default();
        // Where the area is counts as where the entity is: "upstairs" names its lights.
        if let Some(floor) = area.and_then(|a| self.floor_of(a)) {
            area_words.extend(floor.words());
        }
        let aliases = link.map(|l| l.aliases.clone()).unwrap_or_default();
        let haystack = Haystack::placed(&state.entity_id, &name, area_words).with_aliases(&aliases);
        let mut entity = Entity {
            name,
            entity_id: state.entity_id,
            area_id,
            device_id,
            entity_category,
            state: state.state,
            // Collected again at their exact size: the parser grows a map by doubling, and
            // the spare half of thousands of maps is most of a big home's memory peak.
            attributes: state.attributes.into_iter().collect(),
            last_changed: state.last_changed,
            last_updated: state.last_updated,
            aliases,
            visible,
            search_slot: None,
            haystack,
        };
        if entity.visible {
            *self
                .domain_counts
                .entry(entity.domain().to_owned())
                .or_insert(0) += 1;
            entity.search_slot = self.index.add(&entity.entity_id, &entity.haystack);
        }
        if let Some(old) = self.entities.insert(entity.entity_id.clone(), entity) {
            self.forget(&old);
        }
    }

    /// Keeps the domain counts and the word index in step when an entity leaves.
    fn forget(&mut self, old: &Entity) {
        if !old.visible {
            return;
        }
        if let Some(n) = self.domain_counts.get_mut(old.domain()) {
            *n -= 1;
            if *n == 0 {
                self.domain_counts.remove(old.domain());
            }
        }
        if let Some(slot) = old.search_slot {
            self.index.remove(slot, &old.haystack);
            self.compact_index();
        }
    }

    /// Applies the `data` of a `state_changed` event.
    pub fn apply_state_changed(&mut self, data: &Value) -> StateUpdate {
        let Some(entity_id) = data.get("entity_id").and_then(Value::as_str) else {
            return StateUpdate::Ignored;
        };
        match data.get("new_state") {
            None | Some(Value::Null) => {
                if let Some(old) = self.entities.remove(entity_id) {
                    self.forget(&old);
                    StateUpdate::Removed {
                        entity_id: entity_id.to_owned(),
                    }
                } else {
                    StateUpdate::Ignored
                }
            }
            Some(new_state) => {
                let Ok(state) = StateObject::deserialize(new_state) else {
                    return StateUpdate::Ignored;
                };
                if state.entity_id != entity_id {
                    return StateUpdate::Ignored;
                }
                let update = StateUpdate::Changed {
                    entity_id: entity_id.to_owned(),
                    state: state.state.clone(),
                };
                if let Some(held) = self.entities.get_mut(entity_id) {
                    if held.last_updated > state.last_updated {
                        return StateUpdate::Ignored;
                    }
                    // A new name means new search words: derive the entity again.
                    if friendly_name(entity_id, &state.attributes) != held.name {
                        self.insert(state);
                        return update;
                    }
                    held.state = state.state;
                    held.attributes = state.attributes;
                    held.last_changed = state.last_changed;
                    held.last_updated = state.last_updated;
                    return update;
                }
                self.insert(state);
                update
            }
        }
    }

    /// One entity's registry entry changed (`None`: it left the entity registry). Its state
    /// is kept; area, visibility and search words follow the new entry.
    pub fn set_entity_entry(&mut self, entity_id: &str, entry: Option<EntityRegistryEntry>) {
        match entry {
            Some(entry) => self.links.entity.insert(entity_id.to_owned(), entry),
            None => self.links.entity.remove(entity_id),
        };
        if let Some(state) = self.entities.get(entity_id).map(Entity::state_object) {
            self.insert(state);
        }
    }

    /// The whole entity registry, for when many entries changed at once.
    pub fn set_entity_entries(&mut self, entries: Vec<EntityRegistryEntry>) {
        self.links.entity = entries
            .into_iter()
            .map(|e| (e.entity_id.clone(), e))
            .collect();
        self.derive_all();
    }

    pub fn set_devices(&mut self, devices: Vec<DeviceEntry>) {
        self.links.devices = devices.into_iter().map(|d| (d.id.clone(), d)).collect();
        self.derive_all();
    }

    pub fn set_areas(&mut self, areas: Vec<Area>) {
        self.areas = areas.into_iter().map(|a| (a.area_id.clone(), a)).collect();
        self.derive_all();
    }

    pub fn set_floors(&mut self, floors: Vec<Floor>) {
        self.floors = floors
            .into_iter()
            .map(|f| (f.floor_id.clone(), f))
            .collect();
        self.derive_all();
    }

    pub fn set_services(&mut self, services: BTreeMap<String, BTreeMap<String, ServiceInfo>>) {
        self.services = services;
    }

    /// Derives every entity again from its state (after a device, area or floor change, any
    /// entity may have moved or been renamed by where it is).
    fn derive_all(&mut self) {
        // Built again from empty: taking each entity out of the index in turn would walk the
        // entities sharing each of its words, for every entity.
        let states: Vec<StateObject> = std::mem::take(&mut self.entities)
            .into_values()
            .map(Entity::into_state_object)
            .collect();
        self.domain_counts.clear();
        self.index = WordIndex::default();
        for state in states {
            self.insert(state);
        }
    }

    /// Why an entity that Home Assistant has is not visible, with its name; `None` for visible
    /// or unknown entities. Lets a refusal tell the person what to change instead of "unknown
    /// entity".
    pub fn hidden(&self, raw_entity_id: &str) -> Option<(Hidden, &str)> {
        let entity = self.entities.get(&normalise_entity_id(raw_entity_id))?;
        if entity.visible {
            return None;
        }
        let filtered = !self.policy.entity_visible(
            &entity.entity_id,
            entity.entity_category.as_deref(),
            &AssistExposure::Unsupported,
            None,
        );
        let reason = if filtered {
            Hidden::Filtered
        } else {
            Hidden::NotExposed
        };
        Some((reason, &entity.name))
    }

    pub fn ha_version(&self) -> &str {
        &self.ha_version
    }

    pub fn location_name(&self) -> Option<&str> {
        self.location_name.as_deref()
    }

    /// Home Assistant's time zone (an IANA name), when it said one.
    pub fn time_zone(&self) -> Option<&str> {
        self.time_zone.as_deref()
    }

    /// The core configuration read again (`core_config_updated`).
    pub fn set_core_config(&mut self, location_name: Option<String>, time_zone: Option<String>) {
        self.location_name = location_name;
        self.time_zone = time_zone;
    }

    /// Visible entities, in entity-id order.
    pub fn entities(&self) -> impl Iterator<Item = &Entity> {
        self.entities.values().filter(|e| e.visible)
    }

    /// Entities Home Assistant has that the agent may not use: for telling a person who names
    /// one why it cannot be used, never for acting.
    pub fn hidden_entities(&self) -> impl Iterator<Item = &Entity> {
        self.entities.values().filter(|e| !e.visible)
    }

    /// Every entity HA reported, hidden ones included (for diagnostics only).
    pub fn all_entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Visible entities: asked for on every model request, so counted from the per-domain
    /// tallies rather than by walking the home.
    pub fn len(&self) -> usize {
        self.domain_counts.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Exact lookup by a possibly sloppy entity id.
    pub fn get(&self, raw_entity_id: &str) -> Option<&Entity> {
        self.entities
            .get(&normalise_entity_id(raw_entity_id))
            .filter(|e| e.visible)
    }

    /// Where a person speaks: an entity looked up whether or not it is exposed (a voice
    /// satellite normally is not). For naming the speaking device and its room, never for
    /// acting on it.
    pub fn speaker(&self, raw_entity_id: &str) -> Option<&Entity> {
        self.entities.get(&normalise_entity_id(raw_entity_id))
    }

    /// The voice satellite entity (`assist_satellite.*`) of a device, exposed or not.
    pub fn satellite_of(&self, device_id: &str) -> Option<&Entity> {
        self.entities
            .values()
            .find(|e| e.domain() == "assist_satellite" && e.device_id.as_deref() == Some(device_id))
    }

    pub fn areas(&self) -> impl Iterator<Item = &Area> {
        self.areas.values()
    }

    pub fn area(&self, area_id: &str) -> Option<&Area> {
        self.areas.get(area_id)
    }

    /// A device of Home Assistant's device registry (a voice satellite, a speaker, …).
    pub fn device(&self, device_id: &str) -> Option<&DeviceEntry> {
        self.links.devices.get(device_id)
    }

    /// The area a device is in: its own, else its parent's (and so on up, a few levels at
    /// most: a registry with a loop in it answers none rather than spinning).
    pub fn device_area(&self, device_id: &str) -> Option<&str> {
        let mut device = self.links.devices.get(device_id)?;
        for _ in 0..8 {
            if let Some(area) = device.area_id.as_deref() {
                return Some(area);
            }
            device = self
                .links
                .devices
                .get(device.parent_device_id.as_deref()?)?;
        }
        None
    }

    pub fn floors(&self) -> impl Iterator<Item = &Floor> {
        self.floors.values()
    }

    /// The floor an area is on, if it is on a known one.
    pub fn floor_of(&self, area: &Area) -> Option<&Floor> {
        area.floor_id.as_deref().and_then(|f| self.floors.get(f))
    }

    /// An area by id, name or alias, ignoring case, diacritics and punctuation.
    pub fn resolve_area(&self, text: &str) -> Option<&Area> {
        let wanted = tokens(text);
        if wanted.is_empty() {
            return None;
        }
        self.areas.values().find(|a| {
            tokens(&a.area_id.replace('_', " ")) == wanted
                || tokens(&a.name) == wanted
                || a.aliases.iter().any(|alias| tokens(alias) == wanted)
        })
    }

    /// Visible entity counts per domain.
    pub fn domains(&self) -> &BTreeMap<String, usize> {
        &self.domain_counts
    }

    pub fn services(&self) -> &BTreeMap<String, BTreeMap<String, ServiceInfo>> {
        &self.services
    }

    pub fn service_count(&self) -> usize {
        self.services.values().map(BTreeMap::len).sum()
    }

    pub fn service(&self, domain: &str, service: &str) -> Option<&ServiceInfo> {
        self.services.get(domain).and_then(|s| s.get(service))
    }

    /// The policy's verdict on a service that exists; `None` when HA has no such service.
    /// `None` for a service Home Assistant does not have, except that a denied one is always
    /// `Denied`: the refusal must not depend on which integrations happen to be loaded.
    pub fn service_decision(&self, domain: &str, service: &str) -> Option<ServiceDecision> {
        match self.policy.service(domain, service) {
            denied @ ServiceDecision::Denied(_) => Some(denied),
            decision => self.service(domain, service).map(|_| decision),
        }
    }
}

#[cfg(test)]
mod search_tests;
#[cfg(test)]
mod tests;
