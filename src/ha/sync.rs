//! Keeps a [`Registry`] live: a full snapshot on every (re)connect, `state_changed` events in
//! between, registry and service events applied as they come (an entity moved, exposed or
//! renamed in Home Assistant's UI counts without a reconnect), and a full resync whenever we
//! might have missed events (lagged receiver) or could not fetch what an event announced.
//!
//! Invariants:
//! - One task applies snapshots and events, so they are never applied concurrently.
//! - Registry events carry only ids: what changed is fetched, once per burst. Events already
//!   queued are drained first (state changes applied in order), so a UI action that fires a
//!   dozen events costs one fetch of each registry it touched.
//! - The lock is held only to swap or patch the registry, never across an `.await`.
//! - `generation` counts completed full syncs and `revision` every change (sync or event), so
//!   callers (and tests) wait for a condition without sleeping or polling.

use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use super::connection::{ClientEvent, HaClient, HaError};
use super::exposure::ExposurePolicy;
use super::protocol::{
    EVENT_AREA_REGISTRY_UPDATED, EVENT_CORE_CONFIG_UPDATED, EVENT_DEVICE_REGISTRY_UPDATED,
    EVENT_ENTITY_REGISTRY_UPDATED, EVENT_FLOOR_REGISTRY_UPDATED, EVENT_HOMEASSISTANT_STARTED,
    EVENT_SERVICE_REGISTERED, EVENT_SERVICE_REMOVED, EVENT_STATE_CHANGED, HaEvent,
};
use super::registry::Registry;

const SNAPSHOT_ATTEMPTS: u32 = 3;
/// Above this many changed entities in one burst, the whole entity registry is fetched in one
/// request rather than entry by entry.
const ENTRY_FETCH_LIMIT: usize = 32;
/// How soon a snapshot taken while Home Assistant was starting is taken again, if HA's
/// `homeassistant_started` event does not come first.
const STARTING_RETRY: Duration = Duration::from_secs(2);

pub struct LiveRegistry {
    registry: Arc<RwLock<Registry>>,
    generation: watch::Receiver<u64>,
    /// Whether the registry was synced over the connection that is up now. Between a
    /// reconnect and its resync the states are those of before the outage: a toggle verified
    /// against them would be judged wrongly.
    current: watch::Receiver<bool>,
    revision: watch::Receiver<u64>,
    task: JoinHandle<()>,
}

/// The two counters the sync task bumps.
struct Counters {
    generation: watch::Sender<u64>,
    current: watch::Sender<bool>,
    revision: watch::Sender<u64>,
}

impl LiveRegistry {
    pub fn spawn(client: HaClient, policy: ExposurePolicy) -> Self {
        let registry = Arc::new(RwLock::new(Registry::empty(policy.clone())));
        let (generation_tx, generation) = watch::channel(0);
        let (revision_tx, revision) = watch::channel(0);
        let (current_tx, current) = watch::channel(false);
        let counters = Counters {
            generation: generation_tx,
            current: current_tx,
            revision: revision_tx,
        };
        // Subscribe before looking at the state, so a connection made in between is not missed.
        let events = client.events();
        let task = tokio::spawn(run(client, events, policy, Arc::clone(&registry), counters));
        Self {
            registry,
            generation,
            current,
            revision,
            task,
        }
    }

    /// Runs `f` on the current registry; keep it short, writers wait meanwhile.
    pub fn read<R>(&self, f: impl FnOnce(&Registry) -> R) -> R {
        let guard = self.registry.read().unwrap_or_else(PoisonError::into_inner);
        f(&guard)
    }

    pub fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    /// Whether the registry was synced over the connection that is up now.
    pub fn is_current(&self) -> bool {
        *self.current.borrow()
    }

    /// Waits until the registry is synced over the current connection.
    pub async fn wait_current(&self, timeout: Duration) -> bool {
        let mut current = self.current.clone();
        matches!(
            tokio::time::timeout(timeout, current.wait_for(|c| *c)).await,
            Ok(Ok(_))
        )
    }

    /// Waits for a full sync newer than `after`; returns its generation.
    pub async fn wait_synced_after(&self, after: u64, timeout: Duration) -> Option<u64> {
        let mut generation = self.generation.clone();
        let waited = tokio::time::timeout(timeout, generation.wait_for(|g| *g > after)).await;
        match waited {
            Ok(Ok(g)) => Some(*g),
            _ => None,
        }
    }
}

impl LiveRegistry {
    /// Waits until `condition` holds on the registry, re-checking after every change.
    /// Returns `false` when `timeout` passes first.
    pub async fn wait_until(
        &self,
        timeout: Duration,
        mut condition: impl FnMut(&Registry) -> bool,
    ) -> bool {
        let mut revision = self.revision.clone();
        let wait = async {
            loop {
                revision.borrow_and_update();
                if self.read(&mut condition) {
                    return true;
                }
                if revision.changed().await.is_err() {
                    return false;
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.unwrap_or(false)
    }
}

impl Drop for LiveRegistry {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn run(
    client: HaClient,
    mut events: broadcast::Receiver<ClientEvent>,
    policy: ExposurePolicy,
    registry: Arc<RwLock<Registry>>,
    counters: Counters,
) {
    // While Home Assistant is still starting, its integrations (and their services and
    // entities) are not all loaded: the snapshot is used but not trusted, and taken again when
    // HA says it has started (or, without that event, after a pause).
    let mut again_at: Option<tokio::time::Instant> = None;
    let sync = async |again_at: &mut Option<tokio::time::Instant>| {
        *again_at = match resync(&client, &policy, &registry, &counters).await {
            Some(false) => Some(tokio::time::Instant::now() + STARTING_RETRY),
            _ => None,
        };
    };
    if client.current_state().is_connected() {
        sync(&mut again_at).await;
    }
    // A connection event met while draining a burst of registry events, handled next.
    let mut carried: Option<ClientEvent> = None;
    loop {
        let received = match (carried.take(), again_at) {
            (Some(event), _) => Ok(event),
            (None, Some(at)) => tokio::select! {
                event = events.recv() => event,
                () = tokio::time::sleep_until(at) => {
                    sync(&mut again_at).await;
                    continue;
                }
            },
            (None, None) => events.recv().await,
        };
        match received {
            Ok(ClientEvent::Connected { .. }) => {
                counters.current.send_replace(false);
                sync(&mut again_at).await;
            }
            Ok(ClientEvent::Disconnected { .. }) => {
                counters.current.send_replace(false);
                again_at = None;
            }
            Ok(ClientEvent::Event(event)) if event.event_type == EVENT_HOMEASSISTANT_STARTED => {
                sync(&mut again_at).await;
            }
            Ok(ClientEvent::Event(event)) if event.event_type == EVENT_STATE_CHANGED => {
                apply_state_changed(&registry, &counters, &event);
            }
            Ok(ClientEvent::Event(event)) => {
                let mut pending = Pending::default();
                pending.note(&event);
                // Take in whatever else is queued, so a burst costs one fetch per registry.
                let mut lagged = false;
                loop {
                    match events.try_recv() {
                        Ok(ClientEvent::Event(e)) if e.event_type == EVENT_STATE_CHANGED => {
                            apply_state_changed(&registry, &counters, &e);
                        }
                        Ok(ClientEvent::Event(e)) => pending.note(&e),
                        // A connection change ends the burst: its resync covers everything.
                        Ok(other) => {
                            carried = Some(other);
                            break;
                        }
                        Err(broadcast::error::TryRecvError::Lagged(_)) => {
                            lagged = true;
                            break;
                        }
                        Err(_) => break,
                    }
                }
                if carried.is_some() {
                    continue;
                }
                if lagged || pending.started {
                    sync(&mut again_at).await;
                } else if !pending.is_empty() {
                    match apply_pending(&client, &registry, &pending).await {
                        Ok(()) => {
                            counters.revision.send_modify(|r| *r += 1);
                        }
                        Err(e) => {
                            warn!(error = %e, "Could not fetch a registry change; resyncing");
                            sync(&mut again_at).await;
                        }
                    }
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                warn!(missed, "Fell behind Home Assistant events; resyncing");
                sync(&mut again_at).await;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

fn apply_state_changed(registry: &RwLock<Registry>, counters: &Counters, event: &HaEvent) {
    let mut guard = registry.write().unwrap_or_else(PoisonError::into_inner);
    let update = guard.apply_state_changed(&event.data);
    drop(guard);
    counters.revision.send_modify(|r| *r += 1);
    debug!(?update, "Applied state change");
}

/// What a burst of registry events asks to fetch.
#[derive(Debug, Default)]
struct Pending {
    /// Entity ids whose registry entry changed (a renamed entity's old id too).
    entities: BTreeSet<String>,
    devices: bool,
    areas: bool,
    floors: bool,
    services: bool,
    /// The core configuration (the home's name, its time zone).
    config: bool,
    /// Home Assistant finished starting: a full sync replaces everything else.
    started: bool,
}

impl Pending {
    fn note(&mut self, event: &HaEvent) {
        let id = |key: &str| {
            event
                .data
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match event.event_type.as_str() {
            EVENT_ENTITY_REGISTRY_UPDATED => {
                self.entities.extend(id("entity_id"));
                self.entities.extend(id("old_entity_id"));
            }
            EVENT_DEVICE_REGISTRY_UPDATED => self.devices = true,
            EVENT_AREA_REGISTRY_UPDATED => self.areas = true,
            EVENT_FLOOR_REGISTRY_UPDATED => self.floors = true,
            EVENT_SERVICE_REGISTERED | EVENT_SERVICE_REMOVED => self.services = true,
            EVENT_CORE_CONFIG_UPDATED => self.config = true,
            EVENT_HOMEASSISTANT_STARTED => self.started = true,
            _ => {}
        }
    }

    fn is_empty(&self) -> bool {
        self.entities.is_empty()
            && !(self.devices || self.areas || self.floors || self.services || self.config)
    }
}

/// Fetches what the burst changed, then applies it under one short write lock.
async fn apply_pending(
    client: &HaClient,
    registry: &RwLock<Registry>,
    pending: &Pending,
) -> Result<(), HaError> {
    let whole_entity_registry = pending.entities.len() > ENTRY_FETCH_LIMIT;
    let mut entries = Vec::new();
    if !whole_entity_registry {
        for entity_id in &pending.entities {
            entries.push((entity_id, client.entity_registry_entry(entity_id).await?));
        }
    }
    let all_entries = maybe(whole_entity_registry, client.entity_registry()).await?;
    let devices = maybe(pending.devices, client.device_registry()).await?;
    let areas = maybe(pending.areas, client.area_registry()).await?;
    let floors = maybe(pending.floors, client.floor_registry()).await?;
    let services = maybe(pending.services, client.get_services()).await?;
    let config = maybe(pending.config, client.get_config()).await?;

    let mut guard = registry.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(floors) = floors {
        guard.set_floors(floors);
    }
    if let Some(areas) = areas {
        guard.set_areas(areas);
    }
    if let Some(devices) = devices {
        guard.set_devices(devices);
    }
    if let Some(all) = all_entries {
        guard.set_entity_entries(all);
    }
    for (entity_id, entry) in entries {
        guard.set_entity_entry(entity_id, entry);
    }
    if let Some(services) = services {
        guard.set_services(services);
    }
    if let Some(config) = config {
        guard.set_core_config(config.location_name, config.time_zone);
    }
    drop(guard);
    info!(
        entities = pending.entities.len(),
        devices = pending.devices,
        areas = pending.areas,
        floors = pending.floors,
        services = pending.services,
        config = pending.config,
        "Applied Home Assistant registry changes"
    );
    Ok(())
}

/// Runs `fetch` only when `wanted`.
async fn maybe<T>(
    wanted: bool,
    fetch: impl Future<Output = Result<T, HaError>>,
) -> Result<Option<T>, HaError> {
    if wanted {
        fetch.await.map(Some)
    } else {
        Ok(None)
    }
}

/// Takes a full snapshot. `Some(running)` when one was applied (`running`: HA had finished
/// starting, so the registry is complete and current), `None` when none could be taken.
async fn resync(
    client: &HaClient,
    policy: &ExposurePolicy,
    registry: &Arc<RwLock<Registry>>,
    counters: &Counters,
) -> Option<bool> {
    for attempt in 1..=SNAPSHOT_ATTEMPTS {
        match client.snapshot_and_running().await {
            Ok((snapshot, running)) => {
                let fresh = {
                    let previous = registry.read().unwrap_or_else(PoisonError::into_inner);
                    Registry::from_snapshot(snapshot, policy.clone(), Some(&previous))
                };
                let (entities, hidden) = (fresh.len(), fresh.all_entity_count() - fresh.len());
                *registry.write().unwrap_or_else(PoisonError::into_inner) = fresh;
                counters.generation.send_modify(|g| *g += 1);
                counters.revision.send_modify(|r| *r += 1);
                counters.current.send_replace(running);
                if running {
                    info!(entities, hidden, "Registry synced from Home Assistant");
                } else {
                    info!(
                        entities,
                        hidden, "Home Assistant is still starting; will sync again"
                    );
                }
                return Some(running);
            }
            // The next Connected event triggers a new sync; nothing to retry on a dead socket.
            Err(
                e @ (HaError::NotConnected(_) | HaError::ConnectionLost { .. } | HaError::Closed),
            ) => {
                debug!(error = %e, "Resync abandoned; waiting for the next connection");
                return None;
            }
            Err(e) => {
                warn!(error = %e, attempt, "Registry snapshot failed");
            }
        }
    }
    None
}
