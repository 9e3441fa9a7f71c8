//! Post-condition verification: after Home Assistant accepts a service call, the target
//! entities must show the state the service implies, or the action is reported unverified.
//!
//! Why: HA answers success for calls that change nothing (a device that is offline, an entity
//! that ignores the service). Invariants: the expectation table is data; waiting is driven by
//! `state_changed` events through [`Home::wait_for`], never by polling; a service with no
//! known expectation is reported unverified, never assumed done.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::call::PlannedCall;
use crate::agent::home::{Home, with_registry};
use crate::ha::registry::Entity;
use crate::ha::services::CheckedCall;

pub use crate::agent::capability::{Expect, expectation, expectation_of};

fn value_matches(observed: &Value, wanted: &Value) -> bool {
    match (observed.as_f64(), wanted.as_f64()) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-6,
        _ => {
            let as_text = |v: &Value| match v {
                Value::String(s) => s.trim().to_lowercase(),
                other => other.to_string(),
            };
            as_text(observed) == as_text(wanted)
        }
    }
}

fn state_matches(state: &str, wanted: &Value) -> bool {
    let observed = state
        .parse::<f64>()
        .ok()
        .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
        .unwrap_or_else(|| Value::String(state.to_owned()));
    let wanted = match wanted {
        Value::String(s) => s
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            .unwrap_or_else(|| wanted.clone()),
        other => other.clone(),
    };
    value_matches(&observed, &wanted)
}

/// Before-call facts the checks need (toggle, updated).
#[derive(Debug, Clone)]
pub struct Before {
    pub state: String,
    pub last_updated: String,
}

/// Whether `entity` satisfies `expect` for this call.
pub fn satisfied(
    expect: &Expect,
    call: &CheckedCall,
    entity: &Entity,
    before: Option<&Before>,
) -> bool {
    let field = |name: &str| call.data.as_ref().and_then(|d| d.get(name));
    match expect {
        Expect::StateIn(states) => states.contains(&entity.state.as_str()),
        Expect::StateNotIn(states) => !states.contains(&entity.state.as_str()),
        Expect::Settles { done, .. } => done.contains(&entity.state.as_str()),
        Expect::StateEqualsField(name) => {
            field(name).is_some_and(|v| state_matches(&entity.state, v))
        }
        Expect::AttributeEqualsField {
            attribute,
            field: f,
        } => match (entity.attributes.get(*attribute), field(f)) {
            (Some(observed), Some(wanted)) => value_matches(observed, wanted),
            _ => false,
        },
        Expect::OnAtPercent {
            attribute,
            field: f,
            full,
        } => {
            let observed = entity.attributes.get(*attribute).and_then(Value::as_f64);
            let wanted = field(f).and_then(|v| match v {
                Value::String(s) => s.trim().parse().ok(),
                other => other.as_f64(),
            });
            entity.state == "on"
                && matches!((observed, wanted), (Some(o), Some(w)) if (o * 100.0 / full - w).abs() <= 1.0)
        }
        Expect::StateChanged => before.is_some_and(|b| b.state != entity.state),
        Expect::Updated => before.is_some_and(|b| b.last_updated != entity.last_updated),
    }
}

/// One performed action, as reported to the user and the API: the call as planned (its
/// service data kept for the reply, "Set Bed Light to 50%", and never sent out) and what Home
/// Assistant showed after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionReport {
    #[serde(flatten)]
    pub call: PlannedCall,
    pub verified: bool,
    /// Entity id → the state seen after the call (or why nothing could be checked).
    pub observed_state: BTreeMap<String, String>,
    /// A dry run held the call back: nothing was sent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

/// What a dry run's report says was seen of each target: nothing was called.
pub const DRY_RUN_STATE: &str = "dry run: not called";

impl ActionReport {
    /// The report of a call a dry run held back: every target's state says so.
    pub fn held_back(call: PlannedCall) -> Self {
        let observed_state = call
            .entity_ids
            .iter()
            .map(|t| (t.clone(), DRY_RUN_STATE.to_owned()))
            .collect();
        Self {
            call,
            verified: false,
            observed_state,
            dry_run: true,
        }
    }
}

/// The entities a call acts on: its entity ids, plus the entities of its areas in its domain.
pub fn target_entities(home: &dyn Home, call: &CheckedCall) -> Vec<String> {
    with_registry(home, |r| {
        let mut ids = call.target.entity_id.clone();
        for area in &call.target.area_id {
            for e in r.entities() {
                if e.area_id.as_deref() == Some(area.as_str())
                    && e.domain() == call.domain
                    && !ids.contains(&e.entity_id)
                {
                    ids.push(e.entity_id.clone());
                }
            }
        }
        ids
    })
}

/// Snapshot of the targets before the call.
pub fn before_states(home: &dyn Home, ids: &[String]) -> BTreeMap<String, Before> {
    with_registry(home, |r| {
        ids.iter()
            .filter_map(|id| {
                r.get(id).map(|e| {
                    (
                        id.clone(),
                        Before {
                            state: e.state.clone(),
                            last_updated: e.last_updated.clone(),
                        },
                    )
                })
            })
            .collect()
    })
}

/// Waits (event-driven, up to `timeout` in all) for every target to show the expected state.
pub async fn verify(
    home: &dyn Home,
    call: &CheckedCall,
    targets: &[String],
    before: &BTreeMap<String, Before>,
    timeout: Duration,
) -> ActionReport {
    let mut report = ActionReport {
        call: PlannedCall::checked(call, targets),
        verified: false,
        observed_state: BTreeMap::new(),
        dry_run: false,
    };
    let data = call.data.clone().unwrap_or_default();
    let Some(expect) = expectation_of(&call.domain, &call.service, &data) else {
        for id in targets {
            report.observed_state.insert(
                id.clone(),
                "not verifiable: no known effect for this service".into(),
            );
        }
        return report;
    };
    if targets.is_empty() {
        return report;
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let mut all = true;
    for id in targets {
        let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
        let prior = before.get(id);
        let check = |e: &Entity| satisfied(expect, call, e, prior);
        let (mut ok, seen) = home.wait_for(id, remaining, &check).await;
        if let (false, Expect::Settles { moving, .. }, Some(e)) = (ok, expect, &seen) {
            // Still on its way when the wait ended (a slow cover): that is progress, and the
            // observed state says so.
            ok = moving.contains(&e.state.as_str());
        }
        all &= ok;
        report.observed_state.insert(
            id.clone(),
            seen.map_or_else(|| "missing".to_owned(), |e| e.state),
        );
    }
    report.verified = all;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ha::Target;
    use serde_json::json;

    fn entity(state: &str, attrs: Value, updated: &str) -> Entity {
        Entity {
            entity_id: "x.y".into(),
            name: "y".into(),
            area_id: None,
            device_id: None,
            entity_category: None,
            state: state.into(),
            attributes: attrs.as_object().cloned().unwrap_or_default(),
            last_changed: updated.into(),
            last_updated: updated.into(),
            aliases: Vec::new(),
            visible: true,
            haystack: Default::default(),
            search_slot: None,
        }
    }

    fn call(domain: &str, service: &str, data: Option<Value>) -> CheckedCall {
        CheckedCall {
            domain: domain.into(),
            service: service.into(),
            target: Target::entities(["x.y"]),
            data,
        }
    }

    #[test]
    fn the_table_covers_the_common_services() {
        assert_eq!(
            expectation("light", "turn_on"),
            Some(&Expect::StateIn(&["on"]))
        );
        assert_eq!(
            expectation("media_player", "turn_on"),
            Some(&Expect::StateNotIn(&["off", "unavailable"]))
        );
        assert_eq!(
            expectation("lock", "lock"),
            Some(&Expect::Settles {
                done: &["locked"],
                moving: &["locking"]
            })
        );
        assert!(expectation("notify", "send_message").is_none());
    }

    #[test]
    fn a_brightness_is_verified_on_the_brightness_not_the_state_alone() {
        let set = call("light", "turn_on", Some(json!({"brightness_pct": 40})));
        let expect = expectation_of("light", "turn_on", set.data.as_ref().unwrap()).unwrap();
        // 40% is 102 of 255; Home Assistant may show 102 or a neighbour of it.
        assert!(satisfied(
            expect,
            &set,
            &entity("on", json!({"brightness": 102}), "t1"),
            None
        ));
        assert!(satisfied(
            expect,
            &set,
            &entity("on", json!({"brightness": 104}), "t1"),
            None
        ));
        assert!(!satisfied(
            expect,
            &set,
            &entity("on", json!({"brightness": 255}), "t1"),
            None
        ));
        assert!(!satisfied(
            expect,
            &set,
            &entity("off", json!({"brightness": 102}), "t1"),
            None
        ));
        // Turned on without a value: on is enough.
        let on = call("light", "turn_on", None);
        let plain = expectation_of("light", "turn_on", &serde_json::Value::Null).unwrap();
        assert!(satisfied(plain, &on, &entity("on", json!({}), "t1"), None));
    }

    #[test]
    fn states_attributes_and_changes_are_checked() {
        let on = entity("on", json!({}), "t1");
        assert!(satisfied(
            &Expect::StateIn(&["on"]),
            &call("light", "turn_on", None),
            &on,
            None
        ));
        let temp = entity("heat", json!({"temperature": 21.0}), "t1");
        let set = call(
            "climate",
            "set_temperature",
            Some(json!({"temperature": 21})),
        );
        let expect = expectation("climate", "set_temperature").unwrap();
        assert!(satisfied(expect, &set, &temp, None));
        let wrong = call(
            "climate",
            "set_temperature",
            Some(json!({"temperature": 25})),
        );
        assert!(!satisfied(expect, &wrong, &temp, None));
        let number = entity("21.5", json!({}), "t1");
        let set_value = call("input_number", "set_value", Some(json!({"value": "21.5"})));
        assert!(satisfied(
            &Expect::StateEqualsField("value"),
            &set_value,
            &number,
            None
        ));
        let before = Before {
            state: "off".into(),
            last_updated: "t0".into(),
        };
        assert!(satisfied(
            &Expect::StateChanged,
            &call("light", "toggle", None),
            &on,
            Some(&before)
        ));
        assert!(satisfied(
            &Expect::Updated,
            &call("scene", "turn_on", None),
            &on,
            Some(&before)
        ));
        let same = Before {
            state: "on".into(),
            last_updated: "t1".into(),
        };
        assert!(!satisfied(
            &Expect::StateChanged,
            &call("light", "toggle", None),
            &on,
            Some(&same)
        ));
        assert!(!satisfied(
            &Expect::Updated,
            &call("scene", "turn_on", None),
            &on,
            Some(&same)
        ));
    }
}
