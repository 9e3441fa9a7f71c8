//! The one shape of a service call, from the plan that makes it to the reply that says what
//! it did: HomeClaw's own reading plans it, the recogniser's stage too, a model's checked call
//! becomes one, and the report of what Home Assistant then showed carries it.
//!
//! Two other forms of a call are not shapes of this one: the transcript's `ToolCall` is what
//! was asked in the conversation (a planned call is written there as the model would write it,
//! so one validation judges both), and `[`CheckedCall`] is that request checked
//! against the registry, as Home Assistant receives it (a target may still name areas).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ha::services::CheckedCall;

/// A service call on named entities, with its service data (`Null` for none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedCall {
    pub domain: String,
    pub service: String,
    pub entity_ids: Vec<String>,
    /// Sent out with a report without its code: what was set ("brightness_pct": 40) is the
    /// person's to see (and a benchmark's to judge a dry run by), a lock's code never is.
    #[serde(
        default,
        skip_serializing_if = "nothing_to_show",
        serialize_with = "without_code"
    )]
    pub data: Value,
}

/// Service data keys that hold a secret, never written anywhere.
const SECRET_KEYS: [&str; 2] = ["code", "pin"];

fn nothing_to_show(data: &Value) -> bool {
    data.as_object()
        .is_none_or(|d| d.keys().all(|k| SECRET_KEYS.contains(&k.as_str())))
}

fn without_code<S: serde::Serializer>(data: &Value, out: S) -> Result<S::Ok, S::Error> {
    let shown: serde_json::Map<String, Value> = data
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !SECRET_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    serde::Serialize::serialize(&shown, out)
}

impl PlannedCall {
    /// A checked call as planned, on the entities it reaches (`targets`: its ids and its
    /// areas').
    pub fn checked(call: &CheckedCall, targets: &[String]) -> Self {
        Self {
            domain: call.domain.clone(),
            service: call.service.clone(),
            entity_ids: targets.to_vec(),
            data: call.data.clone().unwrap_or_default(),
        }
    }

    /// The `call_service` tool arguments for this call: the same validation as a model's call.
    pub fn arguments(&self) -> Value {
        let mut args = json!({
            "domain": self.domain,
            "service": self.service,
            "entity_id": self.entity_ids,
        });
        if self.data.as_object().is_some_and(|d| !d.is_empty()) {
            args["data"] = self.data.clone();
        }
        args
    }

    /// The service data, when the call has any.
    pub fn data(&self) -> Option<&Value> {
        Some(&self.data).filter(|d| !d.is_null())
    }

    /// "light.turn_on on light.kitchen, light.hall", for traces and logs.
    pub fn describe(&self) -> String {
        format!(
            "{}.{} on {}",
            self.domain,
            self.service,
            if self.entity_ids.is_empty() {
                "(no entities)".to_owned()
            } else {
                self.entity_ids.join(", ")
            }
        )
    }
}
