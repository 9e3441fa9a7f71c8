//! Service calls checked against the live registry before they reach Home Assistant.
//!
//! Why: HA answers *success* for `light.turn_on` on an entity that does not exist, or on a
//! `switch.*` entity. An agent that trusts that answer reports actions that never happened. So
//! every call is validated here first: the service exists, the policy allows it, every target
//! entity exists, is visible and belongs to the service's domain, and every area exists.

use serde_json::Value;

use super::commands::Target;
use super::connection::{HaClient, HaError};
use super::exposure::ServiceDecision;
use super::registry::{Hidden, Registry, normalise_entity_id};

/// Domains whose services act on entities of any domain.
const CROSS_DOMAIN: [&str; 1] = ["homeassistant"];

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// The entity is not in the registry (or hidden); carries close matches for the model.
    #[error("unknown entity {entity_id}{}", suggest(.suggestions))]
    UnknownEntity {
        entity_id: String,
        suggestions: Vec<String>,
    },
    /// The entity exists in Home Assistant but is kept from the agent; says why.
    #[error("{}", .reason.explain(.entity_id))]
    HiddenEntity { entity_id: String, reason: Hidden },
    /// The entity exists but the service's domain cannot act on it.
    #[error(
        "{service_domain}.* services cannot act on {entity_id}; use {entity_domain}.* services"
    )]
    WrongDomain {
        entity_id: String,
        entity_domain: String,
        service_domain: String,
    },
    #[error("unknown area {0:?}")]
    UnknownArea(String),
    /// Home Assistant has no such service.
    #[error("Home Assistant has no service {domain}.{service}")]
    UnknownService { domain: String, service: String },
    /// A deny rule forbids the service; never retry it.
    #[error("{domain}.{service} is denied by the rule {rule:?}")]
    Denied {
        domain: String,
        service: String,
        rule: String,
    },
    /// No allow rule admits the service.
    #[error("{domain}.{service} is not in the allowed services")]
    NotAllowed { domain: String, service: String },
    /// The call was valid but Home Assistant failed it (or could not be reached).
    #[error(transparent)]
    Ha(#[from] HaError),
}

fn suggest(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", suggestions.join(", "))
    }
}

/// A service call as requested (by the agent, the API or a test), before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServiceCall {
    pub domain: String,
    pub service: String,
    pub entity_ids: Vec<String>,
    pub areas: Vec<String>,
    pub data: Option<Value>,
}

/// A call that passed validation: normalised names and a concrete target.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedCall {
    pub domain: String,
    pub service: String,
    pub target: Target,
    pub data: Option<Value>,
}

impl ServiceCall {
    /// The service alone: unknown, denied or not allowed. Checked before anything about the
    /// target, so a denied call is answered "denied" however incomplete it is.
    pub fn check_service(&self, registry: &Registry) -> Result<(), CallError> {
        let domain = self.domain.trim().to_lowercase();
        let service = self.service.trim().to_lowercase();
        match registry.service_decision(&domain, &service) {
            None => Err(CallError::UnknownService { domain, service }),
            Some(ServiceDecision::Denied(rule)) => Err(CallError::Denied {
                domain,
                service,
                rule,
            }),
            Some(ServiceDecision::NotAllowed) => Err(CallError::NotAllowed { domain, service }),
            Some(ServiceDecision::Allowed) => Ok(()),
        }
    }

    pub fn check(&self, registry: &Registry) -> Result<CheckedCall, CallError> {
        self.check_service(registry)?;
        let domain = self.domain.trim().to_lowercase();
        let service = self.service.trim().to_lowercase();
        let mut target = Target::default();
        for raw in &self.entity_ids {
            let Some(entity) = registry.get(raw) else {
                let id = normalise_entity_id(raw);
                if let Some((reason, _)) = registry.hidden(&id) {
                    return Err(CallError::HiddenEntity {
                        entity_id: id,
                        reason,
                    });
                }
                let words = id.split_once('.').map_or(id.as_str(), |(_, o)| o);
                let suggestions = registry
                    .search(&words.replace('_', " "), Some(&domain), None, 3)
                    .into_iter()
                    .map(|c| c.entity_id)
                    .collect();
                return Err(CallError::UnknownEntity {
                    entity_id: id,
                    suggestions,
                });
            };
            if entity.domain() != domain && !CROSS_DOMAIN.contains(&domain.as_str()) {
                return Err(CallError::WrongDomain {
                    entity_id: entity.entity_id.clone(),
                    entity_domain: entity.domain().to_owned(),
                    service_domain: domain,
                });
            }
            if !target.entity_id.contains(&entity.entity_id) {
                target.entity_id.push(entity.entity_id.clone());
            }
        }
        for raw in &self.areas {
            let area = registry
                .resolve_area(raw)
                .ok_or_else(|| CallError::UnknownArea(raw.clone()))?;
            if !target.area_id.contains(&area.area_id) {
                target.area_id.push(area.area_id.clone());
            }
        }
        Ok(CheckedCall {
            domain,
            service,
            target,
            data: self.data.clone().filter(|d| !d.is_null()),
        })
    }
}

impl CheckedCall {
    /// A read through a service that answers (`todo.get_items`, `calendar.get_events`,
    /// `weather.get_forecasts`): Home Assistant's `response`, keyed by entity id.
    pub async fn read(&self, client: &HaClient) -> Result<Value, CallError> {
        let result = client
            .call_service(
                &self.domain,
                &self.service,
                &self.target,
                self.data.clone(),
                true,
            )
            .await?;
        Ok(result.get("response").cloned().unwrap_or(Value::Null))
    }

    pub async fn execute(&self, client: &HaClient) -> Result<Value, CallError> {
        Ok(client
            .call_service(
                &self.domain,
                &self.service,
                &self.target,
                self.data.clone(),
                false,
            )
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExposureConfig;
    use crate::ha::exposure::{AssistExposure, ExposurePolicy};
    use crate::ha::registry::{Area, EntityRegistryEntry, Snapshot, StateObject};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn registry() -> Registry {
        let state = |id: &str| StateObject {
            entity_id: id.into(),
            state: "off".into(),
            attributes: Default::default(),
            last_changed: String::new(),
            last_updated: String::new(),
        };
        let snapshot = Snapshot {
            states: vec![
                state("light.kitchen_lights"),
                state("light.bed_light"),
                state("switch.ac"),
            ],
            entity_registry: vec![EntityRegistryEntry {
                entity_id: "light.bed_light".into(),
                area_id: Some("bedroom".into()),
                ..Default::default()
            }],
            areas: vec![Area {
                area_id: "bedroom".into(),
                name: "Bedroom".into(),
                aliases: vec!["Sypialnia".into()],
                floor_id: None,
            }],
            services: serde_json::from_value(json!({
                "light": {"turn_on": {}, "turn_off": {}},
                "homeassistant": {"turn_off": {}, "restart": {}},
                "switch": {"turn_on": {}}
            }))
            .unwrap(),
            assist: AssistExposure::Unsupported,
            ..Default::default()
        };
        Registry::from_snapshot(
            snapshot,
            ExposurePolicy::new(ExposureConfig::default()),
            None,
        )
    }

    fn call(domain: &str, service: &str, ids: &[&str]) -> ServiceCall {
        ServiceCall {
            domain: domain.into(),
            service: service.into(),
            entity_ids: ids.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn sloppy_but_valid_calls_are_normalised() {
        let mut c = call(
            " Light ",
            "TURN_ON",
            &[" Light.Kitchen_Lights ", "light.kitchen_lights"],
        );
        c.areas = vec!["sypialnia".into()];
        c.data = Some(json!({"brightness_pct": 50}));
        assert_eq!(
            c.check(&registry()).unwrap(),
            CheckedCall {
                domain: "light".into(),
                service: "turn_on".into(),
                target: Target {
                    entity_id: vec!["light.kitchen_lights".into()],
                    area_id: vec!["bedroom".into()],
                    device_id: vec![],
                },
                data: Some(json!({"brightness_pct": 50})),
            }
        );
    }

    #[test]
    fn unknown_entities_come_back_with_suggestions() {
        let err = call("light", "turn_on", &["light.kitchen"])
            .check(&registry())
            .unwrap_err();
        assert_eq!(
            err,
            CallError::UnknownEntity {
                entity_id: "light.kitchen".into(),
                suggestions: vec!["light.kitchen_lights".into()]
            }
        );
        assert!(
            err.to_string()
                .contains("did you mean light.kitchen_lights?")
        );
    }

    #[test]
    fn wrong_domain_unknown_service_and_denied_are_refused() {
        let r = registry();
        assert!(matches!(
            call("light", "turn_on", &["switch.ac"]).check(&r),
            Err(CallError::WrongDomain { .. })
        ));
        assert!(
            call("homeassistant", "turn_off", &["switch.ac"])
                .check(&r)
                .is_ok()
        );
        assert!(matches!(
            call("light", "explode", &[]).check(&r),
            Err(CallError::UnknownService { .. })
        ));
        assert!(matches!(
            call("homeassistant", "restart", &[]).check(&r),
            Err(CallError::Denied { .. })
        ));
        let mut area = call("light", "turn_on", &[]);
        area.areas = vec!["attic".into()];
        assert_eq!(area.check(&r), Err(CallError::UnknownArea("attic".into())));
    }
}
