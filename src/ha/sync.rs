//! Keeps a [`Registry`] live: a full snapshot on every (re)connect, `state_changed` events in
//! between, and a full resync whenever we might have missed events (lagged receiver).
//!
//! Invariants:
//! - One task applies snapshots and events, so they are never applied concurrently.
//! - The lock is held only to swap or patch the registry, never across an `.await`.
//! - `generation` counts completed full syncs and `revision` every change (sync or event), so
//!   callers (and tests) wait for a condition without sleeping or polling.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use super::connection::{ClientEvent, HaClient, HaError};
use super::exposure::ExposurePolicy;
use super::protocol::{EVENT_HOMEASSISTANT_STARTED, EVENT_STATE_CHANGED};
use super::registry::Registry;

const SNAPSHOT_ATTEMPTS: u32 = 3;
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
    loop {
        let received = match again_at {
            Some(at) => tokio::select! {
                event = events.recv() => event,
                () = tokio::time::sleep_until(at) => {
                    sync(&mut again_at).await;
                    continue;
                }
            },
            None => events.recv().await,
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
                let mut guard = registry.write().unwrap_or_else(PoisonError::into_inner);
                let update = guard.apply_state_changed(&event.data);
                drop(guard);
                counters.revision.send_modify(|r| *r += 1);
                debug!(?update, "Applied state change");
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                warn!(missed, "Fell behind Home Assistant events; resyncing");
                sync(&mut again_at).await;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
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
