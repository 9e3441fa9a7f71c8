//! Keeps a [`Registry`] live: a full snapshot on every (re)connect, `state_changed` events in
//! between, and a full resync whenever we might have missed events (lagged receiver).
//!
//! Invariants:
//! - One task applies snapshots and events, so they are never applied concurrently.
//! - The lock is held only to swap or patch the registry, never across an `.await`.
//! - `generation` counts completed full syncs, so callers (and tests) can wait for a resync
//!   without sleeping.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use super::connection::{ClientEvent, HaClient, HaError};
use super::exposure::ExposurePolicy;
use super::protocol::EVENT_STATE_CHANGED;
use super::registry::Registry;

const SNAPSHOT_ATTEMPTS: u32 = 3;

pub struct LiveRegistry {
    registry: Arc<RwLock<Registry>>,
    generation: watch::Receiver<u64>,
    task: JoinHandle<()>,
}

impl LiveRegistry {
    pub fn spawn(client: HaClient, policy: ExposurePolicy) -> Self {
        let registry = Arc::new(RwLock::new(Registry::empty(policy.clone())));
        let (generation_tx, generation) = watch::channel(0);
        // Subscribe before looking at the state, so a connection made in between is not missed.
        let events = client.events();
        let task = tokio::spawn(run(
            client,
            events,
            policy,
            Arc::clone(&registry),
            generation_tx,
        ));
        Self {
            registry,
            generation,
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
    generation: watch::Sender<u64>,
) {
    if client.current_state().is_connected() {
        resync(&client, &policy, &registry, &generation).await;
    }
    loop {
        match events.recv().await {
            Ok(ClientEvent::Connected { .. }) => {
                resync(&client, &policy, &registry, &generation).await;
            }
            Ok(ClientEvent::Event(event)) if event.event_type == EVENT_STATE_CHANGED => {
                let mut guard = registry.write().unwrap_or_else(PoisonError::into_inner);
                let update = guard.apply_state_changed(&event.data);
                drop(guard);
                debug!(?update, "Applied state change");
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                warn!(missed, "Fell behind Home Assistant events; resyncing");
                resync(&client, &policy, &registry, &generation).await;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

async fn resync(
    client: &HaClient,
    policy: &ExposurePolicy,
    registry: &Arc<RwLock<Registry>>,
    generation: &watch::Sender<u64>,
) {
    for attempt in 1..=SNAPSHOT_ATTEMPTS {
        match client.snapshot().await {
            Ok(snapshot) => {
                let fresh = {
                    let previous = registry.read().unwrap_or_else(PoisonError::into_inner);
                    Registry::from_snapshot(snapshot, policy.clone(), Some(&previous))
                };
                let (entities, hidden) = (fresh.len(), fresh.all_entity_count() - fresh.len());
                *registry.write().unwrap_or_else(PoisonError::into_inner) = fresh;
                generation.send_modify(|g| *g += 1);
                info!(entities, hidden, "Registry synced from Home Assistant");
                return;
            }
            // The next Connected event triggers a new sync; nothing to retry on a dead socket.
            Err(
                e @ (HaError::NotConnected(_) | HaError::ConnectionLost { .. } | HaError::Closed),
            ) => {
                debug!(error = %e, "Resync abandoned; waiting for the next connection");
                return;
            }
            Err(e) => {
                warn!(error = %e, attempt, "Registry snapshot failed");
            }
        }
    }
}
