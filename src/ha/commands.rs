//! Typed Home Assistant commands on top of [`HaClient::request`].
//!
//! Each helper turns the reply into our types or a [`HaError::Protocol`] that names the
//! command, so a changed HA payload is a clear error rather than a panic far away.

use std::collections::{BTreeMap, HashMap};

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::connection::{HaClient, HaError};
use super::exposure::AssistExposure;
use super::protocol::{
    Command, HaErrorCode, TYPE_AREA_REGISTRY_LIST, TYPE_DEVICE_REGISTRY_LIST,
    TYPE_ENTITY_REGISTRY_GET, TYPE_ENTITY_REGISTRY_GET_ENTRIES, TYPE_ENTITY_REGISTRY_LIST,
    TYPE_EXPOSED_ENTITIES_LIST, TYPE_FLOOR_REGISTRY_LIST, TYPE_GET_CONFIG, TYPE_GET_SERVICES,
    TYPE_GET_STATES,
};
use super::registry::{
    Area, DeviceEntry, EntityRegistryEntry, Floor, ServiceInfo, Snapshot, StateObject,
};

/// The parts of `get_config` we use.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct HaConfigInfo {
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub location_name: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    /// The home's IANA time zone ("Australia/Brisbane"): what "today" means to the household.
    #[serde(default)]
    pub time_zone: Option<String>,
    /// The household's language ("de"): what Home Assistant's recogniser prepares first.
    #[serde(default)]
    pub language: Option<String>,
}

/// The target of a service call; empty parts are left out of the wire message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Target {
    pub entity_id: Vec<String>,
    pub area_id: Vec<String>,
    pub device_id: Vec<String>,
}

impl Target {
    pub fn entities<I: IntoIterator<Item = S>, S: Into<String>>(ids: I) -> Self {
        Self {
            entity_id: ids.into_iter().map(Into::into).collect(),
            ..Default::default()
        }
    }

    fn to_value(&self) -> Option<Value> {
        let mut map = serde_json::Map::new();
        for (key, ids) in [
            ("entity_id", &self.entity_id),
            ("area_id", &self.area_id),
            ("device_id", &self.device_id),
        ] {
            if !ids.is_empty() {
                map.insert(key.into(), Value::from(ids.clone()));
            }
        }
        (!map.is_empty()).then_some(Value::Object(map))
    }
}

fn decode<T: DeserializeOwned>(command: &str, raw: &str) -> Result<T, HaError> {
    serde_json::from_str(raw).map_err(|e| HaError::Protocol {
        command: command.to_owned(),
        reason: e.to_string(),
    })
}

impl HaClient {
    async fn typed<T: DeserializeOwned>(&self, kind: &str) -> Result<T, HaError> {
        let raw = self.request_raw(Command::new(kind)).await?;
        decode(kind, raw.get())
    }

    pub async fn get_states(&self) -> Result<Vec<StateObject>, HaError> {
        self.typed(TYPE_GET_STATES).await
    }

    pub async fn get_services(
        &self,
    ) -> Result<BTreeMap<String, BTreeMap<String, ServiceInfo>>, HaError> {
        self.typed(TYPE_GET_SERVICES).await
    }

    pub async fn get_config(&self) -> Result<HaConfigInfo, HaError> {
        self.typed(TYPE_GET_CONFIG).await
    }

    /// The entity registry, with each entry's aliases (which the list leaves out).
    pub async fn entity_registry(&self) -> Result<Vec<EntityRegistryEntry>, HaError> {
        let mut entries: Vec<EntityRegistryEntry> = self.typed(TYPE_ENTITY_REGISTRY_LIST).await?;
        let mut aliases = self.entity_aliases(&entries).await?;
        for entry in &mut entries {
            if let Some(these) = aliases.remove(&entry.entity_id) {
                entry.aliases = these;
            }
        }
        Ok(entries)
    }

    /// The aliases of these entries' entities, by entity id (those with any), asked in
    /// chunks so that no answer grows with the home. None on a Home Assistant without
    /// `get_entries`.
    async fn entity_aliases(
        &self,
        entries: &[EntityRegistryEntry],
    ) -> Result<HashMap<String, Vec<String>>, HaError> {
        /// Entity ids per request: an answer of a few hundred kilobytes.
        const CHUNK: usize = 500;
        let mut aliases = HashMap::new();
        for chunk in entries.chunks(CHUNK) {
            let ids: Vec<&str> = chunk.iter().map(|e| e.entity_id.as_str()).collect();
            let command =
                Command::new(TYPE_ENTITY_REGISTRY_GET_ENTRIES).with("entity_ids", json!(ids));
            let raw = match self.request_raw(command).await {
                Ok(raw) => raw,
                Err(HaError::Api {
                    code: HaErrorCode::UnknownCommand,
                    ..
                }) => return Ok(aliases),
                Err(e) => return Err(e),
            };
            let found: HashMap<String, Option<EntityRegistryEntry>> =
                decode(TYPE_ENTITY_REGISTRY_GET_ENTRIES, raw.get())?;
            aliases.extend(
                found
                    .into_iter()
                    .filter_map(|(id, entry)| Some((id, entry?.aliases)))
                    .filter(|(_, these)| !these.is_empty()),
            );
        }
        Ok(aliases)
    }

    /// One entity's registry entry; `None` when the entity is not (or no longer) in the
    /// entity registry.
    pub async fn entity_registry_entry(
        &self,
        entity_id: &str,
    ) -> Result<Option<EntityRegistryEntry>, HaError> {
        let command =
            Command::new(TYPE_ENTITY_REGISTRY_GET).with("entity_id", Value::from(entity_id));
        match self.request_raw(command).await {
            Ok(raw) => decode(TYPE_ENTITY_REGISTRY_GET, raw.get()).map(Some),
            Err(HaError::Api {
                code: HaErrorCode::NotFound,
                ..
            }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub async fn device_registry(&self) -> Result<Vec<DeviceEntry>, HaError> {
        self.typed(TYPE_DEVICE_REGISTRY_LIST).await
    }

    pub async fn area_registry(&self) -> Result<Vec<Area>, HaError> {
        self.typed(TYPE_AREA_REGISTRY_LIST).await
    }

    /// The floors; none on versions before floors existed (2024.4).
    pub async fn floor_registry(&self) -> Result<Vec<Floor>, HaError> {
        match self.typed(TYPE_FLOOR_REGISTRY_LIST).await {
            Err(HaError::Api {
                code: HaErrorCode::UnknownCommand,
                ..
            }) => Ok(Vec::new()),
            other => other,
        }
    }

    /// HA's "exposed to Assist" settings; `Unsupported` on versions without them.
    pub async fn assist_exposure(&self) -> Result<AssistExposure, HaError> {
        #[derive(serde::Deserialize)]
        struct Listing {
            #[serde(default)]
            exposed_entities: HashMap<String, HashMap<String, Value>>,
        }
        match self.typed::<Listing>(TYPE_EXPOSED_ENTITIES_LIST).await {
            Ok(listing) => Ok(AssistExposure::Known(
                listing
                    .exposed_entities
                    .into_iter()
                    .filter_map(|(id, assistants)| {
                        assistants
                            .get("conversation")
                            .and_then(Value::as_bool)
                            .map(|b| (id, b))
                    })
                    .collect(),
            )),
            Err(HaError::Api {
                code: HaErrorCode::UnknownCommand,
                ..
            }) => Ok(AssistExposure::Unsupported),
            Err(e) => Err(e),
        }
    }

    /// Calls a service. HA answers success even for entity ids that do not exist, so callers
    /// must check ids against the registry first.
    pub async fn call_service(
        &self,
        domain: &str,
        service: &str,
        target: &Target,
        service_data: Option<Value>,
        return_response: bool,
    ) -> Result<Value, HaError> {
        self.request(Command::call_service(
            domain,
            service,
            target.to_value(),
            service_data,
            return_response,
        ))
        .await
    }

    /// Everything the registry is built from, fetched concurrently on one connection.
    pub async fn snapshot(&self) -> Result<Snapshot, HaError> {
        Ok(self.snapshot_and_running().await?.0)
    }

    /// A snapshot, and whether Home Assistant had finished starting (`RUNNING`; older versions
    /// do not say, and count as running). `get_config` is sent first, so a `RUNNING` answer
    /// means the rest was read from a started HA, with every integration loaded.
    pub async fn snapshot_and_running(&self) -> Result<(Snapshot, bool), HaError> {
        let (config, states, entity_registry, devices, areas, floors, services, assist) = tokio::try_join!(
            self.get_config(),
            self.get_states(),
            self.entity_registry(),
            self.device_registry(),
            self.area_registry(),
            self.floor_registry(),
            self.get_services(),
            self.assist_exposure(),
        )?;
        let running = config.state.as_deref().is_none_or(|s| s == "RUNNING");
        let snapshot = Snapshot {
            ha_version: config.version,
            location_name: config.location_name,
            time_zone: config.time_zone,
            states,
            entity_registry,
            devices,
            areas,
            floors,
            services,
            assist,
        };
        Ok((snapshot, running))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn targets_leave_out_empty_parts() {
        assert_eq!(Target::default().to_value(), None);
        assert_eq!(
            Target::entities(["light.a", "light.b"]).to_value(),
            Some(json!({"entity_id": ["light.a", "light.b"]}))
        );
        let areas = Target {
            area_id: vec!["kitchen".into()],
            ..Default::default()
        };
        assert_eq!(areas.to_value(), Some(json!({"area_id": ["kitchen"]})));
    }

    #[test]
    fn decode_errors_name_the_command() {
        let err = decode::<Vec<StateObject>>("get_states", r#"{"oops": 1}"#).unwrap_err();
        assert!(err.to_string().contains("get_states"), "{err}");
    }
}
