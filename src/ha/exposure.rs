//! What the agent may see and call.
//!
//! Invariants:
//! - Deny always wins over allow, for entities and for services.
//! - The built-in service deny list applies unless a `service_allow_dangerous` glob lifts an entry
//!   explicitly; a user's own `service_deny` only ever adds to it.
//! - Assist exposure mirrors Home Assistant: an explicit per-entity setting wins; an entity HA has
//!   not decided about yet gets HA's default rule (its default domains, no entity category).

use std::collections::HashMap;

use crate::config::ExposureConfig;
use crate::glob::glob_match;

/// Services that can take the home (or Home Assistant itself) down or run arbitrary code.
pub const BUILTIN_SERVICE_DENY: [&str; 5] = [
    "homeassistant.stop",
    "homeassistant.restart",
    "hassio.*",
    "shell_command.*",
    "python_script.*",
];

/// Domains Home Assistant exposes to Assist by default (`conversation/const.py`).
const ASSIST_DEFAULT_DOMAINS: [&str; 12] = [
    "climate",
    "cover",
    "fan",
    "humidifier",
    "light",
    "lock",
    "scene",
    "script",
    "sensor",
    "switch",
    "vacuum",
    "water_heater",
];

fn any_match(globs: &[String], text: &str) -> bool {
    globs.iter().any(|g| glob_match(g, text))
}

/// Home Assistant's per-entity Assist decision, from `homeassistant/expose_entity/list`.
#[derive(Debug, Clone, Default)]
pub enum AssistExposure {
    /// This HA version has no exposure settings: everything counts as exposed.
    #[default]
    Unsupported,
    Known(HashMap<String, bool>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceDecision {
    Allowed,
    /// Refused by a deny glob (built-in or configured); carries the glob for the error text.
    Denied(String),
    /// Not matched by any allow glob.
    NotAllowed,
}

#[derive(Debug, Clone)]
pub struct ExposurePolicy {
    cfg: ExposureConfig,
}

impl ExposurePolicy {
    pub fn new(cfg: ExposureConfig) -> Self {
        Self { cfg }
    }

    /// `registry_setting` is the entity registry's own `options.conversation.should_expose`,
    /// which is authoritative where present (the exposure list may omit unexposed entities).
    pub fn entity_visible(
        &self,
        entity_id: &str,
        entity_category: Option<&str>,
        assist: &AssistExposure,
        registry_setting: Option<bool>,
    ) -> bool {
        if any_match(&self.cfg.entity_deny, entity_id)
            || !any_match(&self.cfg.entity_allow, entity_id)
        {
            return false;
        }
        if !self.cfg.respect_assist {
            return true;
        }
        match assist {
            AssistExposure::Unsupported => true,
            AssistExposure::Known(map) => match registry_setting.or(map.get(entity_id).copied()) {
                Some(exposed) => exposed,
                None => {
                    let domain = entity_id.split('.').next().unwrap_or_default();
                    entity_category.is_none() && ASSIST_DEFAULT_DOMAINS.contains(&domain)
                }
            },
        }
    }

    pub fn service(&self, domain: &str, service: &str) -> ServiceDecision {
        let full = format!("{domain}.{service}");
        if let Some(glob) = self.cfg.service_deny.iter().find(|g| glob_match(g, &full)) {
            return ServiceDecision::Denied(glob.clone());
        }
        let builtin = BUILTIN_SERVICE_DENY
            .iter()
            .find(|g| glob_match(g, &full) && !any_match(&self.cfg.service_allow_dangerous, &full));
        if let Some(glob) = builtin {
            return ServiceDecision::Denied((*glob).to_owned());
        }
        if any_match(&self.cfg.service_allow, &full) {
            ServiceDecision::Allowed
        } else {
            ServiceDecision::NotAllowed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(edit: impl FnOnce(&mut ExposureConfig)) -> ExposurePolicy {
        let mut cfg = ExposureConfig::default();
        edit(&mut cfg);
        ExposurePolicy::new(cfg)
    }

    #[test]
    fn builtin_denials_hold_even_when_the_user_adds_their_own() {
        let p = policy(|c| c.service_deny = vec!["lock.unlock".into()]);
        assert_eq!(
            p.service("homeassistant", "restart"),
            ServiceDecision::Denied("homeassistant.restart".into())
        );
        assert_eq!(
            p.service("shell_command", "anything"),
            ServiceDecision::Denied("shell_command.*".into())
        );
        assert_eq!(
            p.service("lock", "unlock"),
            ServiceDecision::Denied("lock.unlock".into())
        );
        assert_eq!(p.service("light", "turn_on"), ServiceDecision::Allowed);
    }

    #[test]
    fn dangerous_entries_are_lifted_only_one_by_one() {
        let p = policy(|c| c.service_allow_dangerous = vec!["shell_command.backup".into()]);
        assert_eq!(
            p.service("shell_command", "backup"),
            ServiceDecision::Allowed
        );
        assert!(matches!(
            p.service("shell_command", "rm"),
            ServiceDecision::Denied(_)
        ));
    }

    #[test]
    fn allow_lists_restrict_and_deny_wins() {
        let p = policy(|c| {
            c.service_allow = vec!["light.*".into()];
            c.entity_allow = vec!["light.*".into(), "switch.*".into()];
            c.entity_deny = vec!["switch.ac".into()];
            c.respect_assist = false;
        });
        assert_eq!(p.service("switch", "turn_on"), ServiceDecision::NotAllowed);
        let none = AssistExposure::Unsupported;
        assert!(p.entity_visible("light.kitchen", None, &none, None));
        assert!(p.entity_visible("switch.decorative_lights", None, &none, None));
        assert!(!p.entity_visible("switch.ac", None, &none, None));
        assert!(!p.entity_visible("lock.front_door", None, &none, Some(true)));
    }

    #[test]
    fn assist_settings_win_and_undecided_entities_follow_ha_defaults() {
        let p = policy(|_| {});
        let assist = AssistExposure::Known(HashMap::from([
            ("light.hidden".to_string(), false),
            ("camera.porch".to_string(), true),
        ]));
        assert!(!p.entity_visible("light.hidden", None, &assist, None));
        assert!(p.entity_visible("camera.porch", None, &assist, None));
        assert!(!p.entity_visible("camera.porch", None, &assist, Some(false)));
        assert!(p.entity_visible("update.core", None, &assist, Some(true)));
        assert!(p.entity_visible("lock.front_door", None, &assist, None));
        assert!(!p.entity_visible("lock.front_door", Some("config"), &assist, None));
        assert!(!p.entity_visible("update.core", None, &assist, None));
        let off = policy(|c| c.respect_assist = false);
        assert!(off.entity_visible("update.core", None, &assist, Some(false)));
    }
}
