//! The agent's view of the home, behind a trait so the loop core runs without sockets.
//!
//! [`LiveHome`] is the real one: the live registry plus the Home Assistant client.

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::ha::registry::{Entity, Registry};
use crate::ha::services::{CallError, CheckedCall};
use crate::ha::{HaClient, LiveRegistry};

pub trait Home: Send + Sync {
    /// Runs `f` on the current registry.
    fn read(&self, f: &mut dyn FnMut(&Registry));

    /// Performs a validated service call.
    fn call_service<'a>(&'a self, call: &'a CheckedCall)
    -> BoxFuture<'a, Result<Value, CallError>>;

    /// Reads through a validated service that answers (to-do items, calendar events,
    /// forecasts): Home Assistant's response, keyed by entity id.
    fn read_service<'a>(&'a self, call: &'a CheckedCall)
    -> BoxFuture<'a, Result<Value, CallError>>;

    /// Waits until `check` holds for the entity (driven by state changes, not polling), at most
    /// `timeout`. Returns whether it held, and the entity as last seen.
    fn wait_for<'a>(
        &'a self,
        entity_id: &'a str,
        timeout: Duration,
        check: &'a (dyn Fn(&Entity) -> bool + Send + Sync),
    ) -> BoxFuture<'a, (bool, Option<Entity>)>;
}

/// Reads the registry through a [`Home`] and returns a value.
pub fn with_registry<R>(home: &dyn Home, f: impl FnOnce(&Registry) -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    home.read(&mut |registry| {
        if let Some(f) = f.take() {
            out = Some(f(registry));
        }
    });
    match out {
        Some(out) => out,
        // `read` must call its closure; a Home that does not is a bug we want loudly.
        None => unreachable!("Home::read did not run its closure"),
    }
}

pub struct LiveHome {
    pub client: HaClient,
    pub registry: LiveRegistry,
}

impl Home for LiveHome {
    fn read(&self, f: &mut dyn FnMut(&Registry)) {
        self.registry.read(|r| f(r));
    }

    fn call_service<'a>(
        &'a self,
        call: &'a CheckedCall,
    ) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(call.execute(&self.client))
    }

    fn read_service<'a>(
        &'a self,
        call: &'a CheckedCall,
    ) -> BoxFuture<'a, Result<Value, CallError>> {
        Box::pin(call.read(&self.client))
    }

    fn wait_for<'a>(
        &'a self,
        entity_id: &'a str,
        timeout: Duration,
        check: &'a (dyn Fn(&Entity) -> bool + Send + Sync),
    ) -> BoxFuture<'a, (bool, Option<Entity>)> {
        Box::pin(async move {
            let ok = self
                .registry
                .wait_until(timeout, |r| r.get(entity_id).is_some_and(check))
                .await;
            (ok, self.registry.read(|r| r.get(entity_id).cloned()))
        })
    }
}
