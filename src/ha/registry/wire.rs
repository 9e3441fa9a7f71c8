//! The shapes Home Assistant's messages give the home in: a state, the entity, device, area
//! and floor registries, the services, and the snapshot they make together.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::ha::exposure::AssistExposure;
use crate::text::tokens;

/// One entry of `get_states` (and `new_state` of a `state_changed` event).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StateObject {
    pub entity_id: String,
    pub state: String,
    #[serde(default)]
    pub attributes: Map<String, Value>,
    #[serde(default)]
    pub last_changed: String,
    #[serde(default)]
    pub last_updated: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct EntityRegistryEntry {
    pub entity_id: String,
    #[serde(default)]
    pub area_id: Option<String>,
    #[serde(default)]
    pub device_id: Option<String>,
    #[serde(default)]
    pub entity_category: Option<String>,
    #[serde(default)]
    pub disabled_by: Option<String>,
    /// Per-integration options; `conversation.should_expose` is the Assist setting.
    #[serde(default)]
    pub options: Option<Value>,
    /// The other names a household gave the entity for Assist ("night light" for the bedroom
    /// lamp). `config/entity_registry/list` leaves them out; `get` and `get_entries` carry
    /// them. Anything but a string in the list (a newer Home Assistant's marker for "the
    /// entity's own name") is skipped.
    #[serde(default, deserialize_with = "strings_only")]
    pub aliases: Vec<String>,
}

fn strings_only<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let items: Option<Vec<Value>> = Deserialize::deserialize(d)?;
    Ok(items
        .unwrap_or_default()
        .into_iter()
        .filter_map(|v| match v {
            Value::String(s) if !s.trim().is_empty() => Some(s),
            _ => None,
        })
        .collect())
}

impl EntityRegistryEntry {
    pub(super) fn assist_setting(&self) -> Option<bool> {
        self.options
            .as_ref()?
            .get("conversation")?
            .get("should_expose")?
            .as_bool()
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct DeviceEntry {
    pub id: String,
    #[serde(default)]
    pub area_id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub name_by_user: Option<String>,
    /// The device this one is part of (Home Assistant 2026's device registry: a satellite's
    /// microphone unit in a speaker, say); one without an area of its own is in its parent's.
    #[serde(default)]
    pub parent_device_id: Option<String>,
}

impl DeviceEntry {
    /// The name a person sees: theirs if they gave one.
    pub fn display_name(&self) -> Option<&str> {
        self.name_by_user.as_deref().or(self.name.as_deref())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Area {
    pub area_id: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub floor_id: Option<String>,
}

impl Area {
    /// The folded words that name this area: its name and its aliases ("Schlofzimmer" of
    /// the "Schlafzimmer"), each a name of what is in it.
    pub fn words(&self) -> Vec<String> {
        let mut words = tokens(&self.name);
        for alias in &self.aliases {
            words.extend(tokens(alias));
        }
        words
    }
}

/// A floor of the home (HA 2024.4+): people name areas by it ("the lights upstairs").
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Floor {
    pub floor_id: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// 0 is the ground floor, negative below it; `None` when the user did not say.
    #[serde(default)]
    pub level: Option<i64>,
}

impl Floor {
    /// The folded words that name this floor: its name, its aliases and, when its level is
    /// set, the everyday word for where it is ("upstairs" for level 1 and up, "downstairs" for
    /// the ground floor and below), so a home whose floors are "First" and "Ground" still
    /// answers "the lights upstairs".
    pub fn words(&self) -> Vec<String> {
        let mut words = tokens(&self.name);
        for alias in &self.aliases {
            words.extend(tokens(alias));
        }
        match self.level {
            Some(level) if level > 0 => words.push("upstairs".to_owned()),
            Some(_) => words.push("downstairs".to_owned()),
            None => {}
        }
        words.sort();
        words.dedup();
        words
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ServiceField {
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub example: Option<Value>,
    #[serde(default)]
    pub selector: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ServiceInfo {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub fields: BTreeMap<String, ServiceField>,
    /// Present when the service can return a response (`return_response`).
    #[serde(default)]
    pub response: Option<Value>,
}

/// Everything fetched on (re)connect.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub ha_version: String,
    pub location_name: Option<String>,
    /// Home Assistant's `time_zone` (IANA name), when it said one.
    pub time_zone: Option<String>,
    pub states: Vec<StateObject>,
    pub entity_registry: Vec<EntityRegistryEntry>,
    pub devices: Vec<DeviceEntry>,
    pub areas: Vec<Area>,
    /// Empty on Home Assistant versions without floors.
    pub floors: Vec<Floor>,
    pub services: BTreeMap<String, BTreeMap<String, ServiceInfo>>,
    pub assist: AssistExposure,
}
