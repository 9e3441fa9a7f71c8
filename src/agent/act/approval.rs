//! Approval for high-risk actions: such a call is recorded, not executed; the run ends asking
//! the user, and approving executes exactly the recorded call, once.
//!
//! Invariants: an approval id is single-use and expires; a denied service is refused at
//! approval time too (the policy may have changed since); the recorded call is executed as
//! recorded, never re-planned by the model.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::config::HighRiskRule;
use crate::glob::glob_match;
use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::Registry;
use crate::ha::services::CheckedCall;
use crate::lang::Lang;

/// Why a call needs approval, or `None` when it does not.
pub fn needs_approval(
    rules: &[HighRiskRule],
    call: &CheckedCall,
    targets: &[String],
    registry: &Registry,
) -> Option<String> {
    let full = format!("{}.{}", call.domain, call.service);
    for rule in rules.iter().filter(|r| glob_match(&r.service_glob, &full)) {
        if rule.device_classes.is_empty() {
            return Some(format!("{full} is a high-risk action"));
        }
        for id in targets {
            let class = registry
                .get(id)
                .and_then(|e| e.attributes.get("device_class"))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_lowercase();
            if rule.device_classes.contains(&class) {
                return Some(format!("{full} on a {class} ({id}) is a high-risk action"));
            }
        }
    }
    None
}

#[derive(Debug, Clone, PartialEq)]
pub struct PendingAction {
    pub id: String,
    pub call: CheckedCall,
    pub targets: Vec<String>,
    /// The targets' names when it was held: every sentence about it names them so.
    pub names: Vec<String>,
    pub session_id: Option<String>,
    pub reason: String,
    /// The language of the person who asked: the approval's texts are in it, wherever they
    /// appear (the panel, a phone, an answer over the API).
    pub lang: Lang,
    /// The request's language tag when HomeClaw has no lexicon for it ("nl", "es"): the
    /// question and the outcome are then said in Home Assistant's words for it, where there are
    /// any (`lang` is the fallback).
    pub tag: Option<String>,
}

/// A call to hold for approval, as the run that made it knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hold {
    pub call: CheckedCall,
    pub targets: Vec<String>,
    pub names: Vec<String>,
    pub session_id: Option<String>,
    pub reason: String,
    pub lang: Lang,
    pub tag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalError {
    #[error("unknown approval id {0}")]
    Unknown(String),
    #[error("approval {0} was already used")]
    AlreadyUsed(String),
    #[error("approval {0} expired")]
    Expired(String),
    #[error("{0} is denied and can never be executed")]
    Denied(String),
    /// The operating system gave no randomness for an id: nothing is held, since a guessable
    /// id would approve the action for whoever guessed it.
    #[error("no approval id could be drawn from the operating system's random source: {0}")]
    NoRandomness(String),
}

/// Bits of an approval id drawn from the operating system's CSPRNG.
pub const APPROVAL_ID_BITS: usize = 128;

/// A new approval id. It travels in a phone notification's action and a panel URL, and whoever
/// holds it can approve the action: it is a bearer token, so it comes from the operating
/// system's CSPRNG (`getrandom`), never from a fast, predictable generator.
pub fn new_approval_id() -> Result<String, ApprovalError> {
    let mut bytes = [0u8; APPROVAL_ID_BITS / 8];
    getrandom::fill(&mut bytes).map_err(|e| ApprovalError::NoRandomness(e.to_string()))?;
    Ok(bytes.iter().fold(String::from("appr_"), |mut id, b| {
        id.push_str(&format!("{b:02x}"));
        id
    }))
}

/// Remembered used ids, so a second approval says "already used" rather than "unknown".
const USED_MEMORY: usize = 1024;

/// Wrong PINs an action survives; the next one cancels it (a guessed PIN must not unlock).
pub const PIN_ATTEMPTS: u32 = 3;

/// What happens to held actions, for whoever tells people about them (notifications, the
/// panel).
#[derive(Debug, Clone, PartialEq)]
pub enum ApprovalEvent {
    /// A high-risk action now waits; it expires `expires_in` from now.
    Held {
        action: Box<PendingAction>,
        expires_in: Duration,
    },
    /// It will never run from now on: it ran, or was declined or cancelled. (Expiry is not
    /// announced: it is known from `expires_in`.)
    Ended { id: String },
}

/// Events buffered per listener; one that falls further behind misses some (and says so).
const EVENT_BUFFER: usize = 64;

#[derive(Debug)]
pub struct ApprovalStore {
    ttl: Duration,
    events: tokio::sync::broadcast::Sender<ApprovalEvent>,
    pending: Mutex<HashMap<String, (Instant, PendingAction)>>,
    used: Mutex<VecDeque<String>>,
    /// Wrong PINs so far, per pending action.
    wrong_pins: Mutex<HashMap<String, u32>>,
}

impl ApprovalStore {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            events: tokio::sync::broadcast::channel(EVENT_BUFFER).0,
            pending: Mutex::new(HashMap::new()),
            used: Mutex::new(VecDeque::new()),
            wrong_pins: Mutex::new(HashMap::new()),
        }
    }

    /// Records a call awaiting approval under a new id.
    pub fn request(&self, hold: Hold) -> Result<PendingAction, ApprovalError> {
        let id = new_approval_id()?;
        let action = PendingAction {
            id: id.clone(),
            call: hold.call,
            targets: hold.targets,
            names: hold.names,
            session_id: hold.session_id,
            reason: hold.reason,
            lang: hold.lang,
            tag: hold.tag,
        };
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let ttl = self.ttl;
        pending.retain(|_, (at, _)| at.elapsed() < ttl);
        pending.insert(id, (Instant::now(), action.clone()));
        drop(pending);
        let _ = self.events.send(ApprovalEvent::Held {
            action: Box::new(action.clone()),
            expires_in: ttl,
        });
        Ok(action)
    }

    /// Held and ended actions from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<ApprovalEvent> {
        self.events.subscribe()
    }

    /// Takes the pending action for `id`, exactly once. `registry` re-checks the policy.
    pub fn take(&self, id: &str, registry: &Registry) -> Result<PendingAction, ApprovalError> {
        let (at, action) = self.remove(id)?;
        if at.elapsed() >= self.ttl {
            return Err(ApprovalError::Expired(id.to_owned()));
        }
        let full = format!("{}.{}", action.call.domain, action.call.service);
        match registry.service_decision(&action.call.domain, &action.call.service) {
            Some(ServiceDecision::Allowed) => Ok(action),
            _ => Err(ApprovalError::Denied(full)),
        }
    }

    /// Removes a waiting action for good, remembering its id as used.
    fn remove(&self, id: &str) -> Result<(Instant, PendingAction), ApprovalError> {
        let entry = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        self.wrong_pins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(entry) = entry else {
            return Err(if used.iter().any(|u| u == id) {
                ApprovalError::AlreadyUsed(id.to_owned())
            } else {
                ApprovalError::Unknown(id.to_owned())
            });
        };
        used.push_back(id.to_owned());
        while used.len() > USED_MEMORY {
            used.pop_front();
        }
        drop(used);
        let _ = self.events.send(ApprovalEvent::Ended { id: id.to_owned() });
        Ok(entry)
    }

    /// The action waiting under `id`, if it still waits: what a sentence about answering it
    /// names.
    pub fn waiting(&self, id: &str) -> Option<PendingAction> {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .map(|(_, action)| action.clone())
    }

    /// The session a pending action was recorded in (`None` when it is unknown, used, or was
    /// recorded outside any session).
    pub fn session_of(&self, id: &str) -> Option<String> {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .and_then(|(_, action)| action.session_id.clone())
    }

    /// The newest action still waiting in `session_id`, if any: what a "yes" in that
    /// conversation answers.
    pub fn waiting_in(&self, session_id: &str) -> Option<PendingAction> {
        let ttl = self.ttl;
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter(|(at, a)| at.elapsed() < ttl && a.session_id.as_deref() == Some(session_id))
            .max_by_key(|(at, _)| *at)
            .map(|(_, a)| a.clone())
    }

    /// Declines (or cancels) a waiting action: it can never run, and approving it later says
    /// "already used".
    pub fn decline(&self, id: &str) -> Result<PendingAction, ApprovalError> {
        self.remove(id).map(|(_, action)| action)
    }

    /// Counts a wrong PIN for a waiting action; returns the attempts left. At none left the
    /// action is cancelled.
    pub fn wrong_pin(&self, id: &str) -> u32 {
        let mut wrong = self
            .wrong_pins
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let count = wrong.entry(id.to_owned()).or_insert(0);
        *count += 1;
        let left = PIN_ATTEMPTS.saturating_sub(*count);
        drop(wrong);
        if left == 0 {
            let _ = self.decline(id);
        }
        left
    }

    pub fn pending_count(&self) -> usize {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// An approved action that ran: what was held (its names and language say it) and what Home
/// Assistant showed.
#[derive(Debug, Clone)]
pub struct Ran {
    pub action: PendingAction,
    pub report: super::verify::ActionReport,
}

/// Executes an approved action exactly once and verifies it.
pub async fn execute_approved(
    home: &dyn crate::agent::home::Home,
    store: &ApprovalStore,
    approval_id: &str,
    verify_timeout: Duration,
) -> Result<Ran, ExecuteError> {
    let action = crate::agent::home::with_registry(home, |r| store.take(approval_id, r))?;
    let before = super::verify::before_states(home, &action.targets);
    home.call_service(&action.call).await?;
    let report =
        super::verify::verify(home, &action.call, &action.targets, &before, verify_timeout).await;
    Ok(Ran { action, report })
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecuteError {
    #[error(transparent)]
    Approval(#[from] ApprovalError),
    #[error(transparent)]
    Call(#[from] crate::ha::services::CallError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::selfcheck::home::synthetic_home;
    use crate::config::ApprovalConfig;
    use crate::ha::Target;

    fn rules() -> Vec<HighRiskRule> {
        ApprovalConfig::default()
            .high_risk
            .iter()
            .map(|r| HighRiskRule::parse(r).unwrap())
            .collect()
    }

    fn call(domain: &str, service: &str, id: &str) -> CheckedCall {
        CheckedCall {
            domain: domain.into(),
            service: service.into(),
            target: Target::entities([id]),
            data: None,
        }
    }

    fn hold(call: CheckedCall, targets: Vec<String>, session_id: Option<String>) -> Hold {
        Hold {
            names: targets.clone(),
            call,
            targets,
            session_id,
            reason: "r".into(),
            lang: Lang::En,
            tag: None,
        }
    }

    #[test]
    fn rules_parse_with_device_classes() {
        assert_eq!(
            HighRiskRule::parse("cover.open_cover:garage|Door").unwrap(),
            HighRiskRule {
                service_glob: "cover.open_cover".into(),
                device_classes: vec!["garage".into(), "door".into()]
            }
        );
        assert!(HighRiskRule::parse("unlock").is_err());
    }

    #[test]
    fn unlocking_is_high_risk_and_turning_on_a_light_is_not() {
        let mut registry = synthetic_home(10);
        let r = rules();
        let unlock = call("lock", "unlock", "lock.front_door");
        assert!(needs_approval(&r, &unlock, &["lock.front_door".into()], &registry).is_some());
        let light = call("light", "turn_on", "light.bed_light");
        assert!(needs_approval(&r, &light, &["light.bed_light".into()], &registry).is_none());
        // Covers only by device class.
        let open = call("cover", "open_cover", "cover.garage_door");
        let targets = vec!["cover.garage_door".to_string()];
        assert!(needs_approval(&r, &open, &targets, &registry).is_none());
        registry.apply_state_changed(&serde_json::json!({"entity_id": "cover.garage_door",
            "new_state": {"entity_id": "cover.garage_door", "state": "closed",
            "attributes": {"device_class": "garage"}, "last_updated": "z"}}));
        assert!(needs_approval(&r, &open, &targets, &registry).is_some());
    }

    #[test]
    fn approval_ids_carry_128_random_bits_and_do_not_repeat() {
        let ids: std::collections::HashSet<String> =
            (0..256).map(|_| new_approval_id().unwrap()).collect();
        assert_eq!(ids.len(), 256);
        for id in &ids {
            let hex = id.strip_prefix("appr_").unwrap();
            assert_eq!(hex.len() * 4, APPROVAL_ID_BITS);
            assert!(hex.chars().all(|c| c.is_ascii_hexdigit()));
        }
        // Every bit position takes both values across the ids: no half of the id is fixed,
        // as it would be were it built from a narrower source.
        let bits = |id: &String| u128::from_str_radix(&id[5..], 16).unwrap();
        let ones = ids.iter().fold(0u128, |acc, id| acc | bits(id));
        let zeros = ids.iter().fold(0u128, |acc, id| acc | !bits(id));
        assert_eq!((ones, zeros), (u128::MAX, u128::MAX));
        // The source is the operating system's CSPRNG, not the fast generator of jitter.
        let source = include_str!("approval.rs");
        let body = &source[source.find("pub fn new_approval_id").unwrap()..];
        let body = &body[..body.find("\n}").unwrap()];
        assert!(body.contains("getrandom::fill") && !body.contains("fastrand"));
    }

    #[test]
    fn an_approval_is_taken_exactly_once() {
        let registry = synthetic_home(10);
        let store = ApprovalStore::new(Duration::from_secs(60));
        let pending = store
            .request(hold(
                call("lock", "unlock", "lock.front_door"),
                vec!["lock.front_door".into()],
                None,
            ))
            .unwrap();
        assert_eq!(
            store.take(&pending.id, &registry).unwrap().call.service,
            "unlock"
        );
        assert_eq!(
            store.take(&pending.id, &registry),
            Err(ApprovalError::AlreadyUsed(pending.id.clone()))
        );
        assert_eq!(
            store.take("appr_nope", &registry),
            Err(ApprovalError::Unknown("appr_nope".into()))
        );
    }

    #[test]
    fn a_session_answers_only_its_own_action_and_wrong_pins_cancel_it() {
        let store = ApprovalStore::new(Duration::from_secs(60));
        let mut events = store.subscribe();
        let held = store
            .request(hold(
                call("lock", "unlock", "lock.front_door"),
                vec!["lock.front_door".into()],
                Some("a".into()),
            ))
            .unwrap();
        assert!(matches!(
            events.try_recv(),
            Ok(ApprovalEvent::Held { action, .. }) if action.id == held.id
        ));
        assert_eq!(store.waiting_in("a").map(|p| p.id), Some(held.id.clone()));
        assert_eq!(store.waiting_in("b"), None);
        assert_eq!(store.wrong_pin(&held.id), PIN_ATTEMPTS - 1);
        assert_eq!(store.wrong_pin(&held.id), PIN_ATTEMPTS - 2);
        assert_eq!(store.wrong_pin(&held.id), 0);
        assert_eq!(store.waiting_in("a"), None, "cancelled");
        assert_eq!(
            events.try_recv(),
            Ok(ApprovalEvent::Ended {
                id: held.id.clone()
            })
        );
        assert_eq!(
            store.decline(&held.id),
            Err(ApprovalError::AlreadyUsed(held.id.clone()))
        );
    }

    #[test]
    fn expired_and_denied_approvals_are_refused() {
        let registry = synthetic_home(10);
        let store = ApprovalStore::new(Duration::ZERO);
        let pending = store
            .request(hold(
                call("lock", "unlock", "lock.front_door"),
                vec![],
                None,
            ))
            .unwrap();
        assert_eq!(
            store.take(&pending.id, &registry),
            Err(ApprovalError::Expired(pending.id.clone()))
        );
        let store = ApprovalStore::new(Duration::from_secs(60));
        let restart = store
            .request(hold(call("homeassistant", "restart", "x"), vec![], None))
            .unwrap();
        assert!(matches!(
            store.take(&restart.id, &registry),
            Err(ApprovalError::Denied(_))
        ));
    }
}
