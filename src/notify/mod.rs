//! Approvals where people are, in Home Assistant itself: a persistent notification for each
//! held action (`agent.approval.notify`) and, with `agent.approval.notify_service`, an
//! actionable notification on a phone whose Approve and Deny buttons answer it — the companion
//! app fires `mobile_app_notification_action`, which this transport turns into an approval
//! through the same front door as `POST /api/approve`.
//!
//! Invariants:
//! - A notification is withdrawn (dismissed in Home Assistant, cleared on the phone) as soon as
//!   its action ends, however it ended: approved or declined anywhere, or expired.
//! - A button for an action that is gone (expired, already answered, unknown after a restart)
//!   gets a clear answer on the phone; nothing runs.
//! - A failed notification is logged and never blocks an approval.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{info, warn};

use crate::agent::act::approval::{ApprovalEvent, PendingAction};
use crate::agent::say::reply::approval_notice;
use crate::app::App;
use crate::command::activity::Source;
use crate::command::{Commands, ErrorKind};
use crate::ha::protocol::EVENT_NOTIFICATION_ACTION;
use crate::ha::{ClientEvent, Target};
use crate::lang::{Lang, NotRun};

const APPROVE: &str = "HOMECLAW_APPROVE_";
const DENY: &str = "HOMECLAW_DENY_";

/// The notification id (and phone tag) of a held action.
fn tag(id: &str) -> String {
    format!("homeclaw_{id}")
}

/// What a button press asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Press {
    Approve(String),
    Deny(String),
}

/// The press a `mobile_app_notification_action` event carries, if it is one of ours.
pub fn press_of(data: &Value) -> Option<Press> {
    let action = data.get("action")?.as_str()?;
    if let Some(id) = action.strip_prefix(APPROVE) {
        return Some(Press::Approve(id.to_owned()));
    }
    action
        .strip_prefix(DENY)
        .map(|id| Press::Deny(id.to_owned()))
}

/// The phone's answer to a press whose action could not be answered, in the language the
/// action was asked in (English when it is not known any more).
fn gone_text(kind: ErrorKind, lang: Lang) -> &'static str {
    let why = match kind {
        ErrorKind::Expired => NotRun::Expired,
        ErrorKind::AlreadyUsed => NotRun::AlreadyAnswered,
        ErrorKind::UnknownApproval => NotRun::Unknown,
        ErrorKind::Denied => NotRun::Denied,
        _ => NotRun::Failed,
    };
    lang.says().not_run(why)
}

/// A notified action: when it expires (its notification is withdrawn then) and the language
/// its answers are in.
struct Notified {
    expires: Instant,
    lang: Lang,
}

struct Notifier {
    app: Arc<App>,
    commands: Arc<Commands>,
    notified: HashMap<String, Notified>,
}

/// Starts the notifier when the configuration asks for any notification.
pub fn start(app: Arc<App>, commands: Arc<Commands>) -> Option<JoinHandle<()>> {
    let approval = &app.cfg.agent.approval;
    if !approval.notify && approval.notify_service.is_none() {
        return None;
    }
    let held = app.approvals.subscribe();
    let events = app.client.events();
    let notifier = Notifier {
        app: app.clone(),
        commands,
        notified: HashMap::new(),
    };
    Some(tokio::spawn(notifier.run(held, events)))
}

impl Notifier {
    async fn run(
        mut self,
        mut held: tokio::sync::broadcast::Receiver<ApprovalEvent>,
        mut events: tokio::sync::broadcast::Receiver<ClientEvent>,
    ) {
        loop {
            let next = self.notified.values().map(|n| n.expires).min();
            tokio::select! {
                event = held.recv() => match event {
                    Ok(ApprovalEvent::Held { action, expires_in }) => {
                        let notified = Notified {
                            expires: Instant::now() + expires_in,
                            lang: action.lang,
                        };
                        self.notified.insert(action.id.clone(), notified);
                        self.announce(&action).await;
                    }
                    Ok(ApprovalEvent::Ended { id }) => {
                        if self.notified.remove(&id).is_some() {
                            self.withdraw(&id).await;
                        }
                    }
                    Err(RecvError::Lagged(missed)) => {
                        warn!(missed, "Missed approval events; some notifications may linger");
                    }
                    Err(RecvError::Closed) => break,
                },
                event = events.recv() => match event {
                    Ok(ClientEvent::Event(e)) if e.event_type == EVENT_NOTIFICATION_ACTION => {
                        if let Some(press) = press_of(&e.data) {
                            self.pressed(press).await;
                        }
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => break,
                },
                () = sleep_until(next) => {
                    let now = Instant::now();
                    let expired: Vec<String> = self
                        .notified
                        .iter()
                        .filter(|(_, n)| n.expires <= now)
                        .map(|(id, _)| id.clone())
                        .collect();
                    for id in expired {
                        self.notified.remove(&id);
                        self.withdraw(&id).await;
                    }
                }
            }
        }
    }

    async fn announce(&self, action: &PendingAction) {
        let approval = &self.app.cfg.agent.approval;
        if approval.notify {
            let (message, title) = approval_notice(action, false);
            self.call(
                "persistent_notification",
                "create",
                json!({"notification_id": tag(&action.id), "title": title, "message": message}),
            )
            .await;
        }
        if let Some(service) = &approval.notify_service {
            let (message, title) = approval_notice(action, true);
            let [approve, deny] = action.lang.says().approval_buttons();
            let data = json!({
                "title": title,
                "message": message,
                "data": {
                    "tag": tag(&action.id),
                    "actions": [
                        {"action": format!("{APPROVE}{}", action.id), "title": approve},
                        {"action": format!("{DENY}{}", action.id), "title": deny},
                    ],
                },
            });
            self.notify(service, data).await;
        }
    }

    async fn withdraw(&self, id: &str) {
        let approval = &self.app.cfg.agent.approval;
        if approval.notify {
            self.call(
                "persistent_notification",
                "dismiss",
                json!({"notification_id": tag(id)}),
            )
            .await;
        }
        if let Some(service) = &approval.notify_service {
            // The companion app's way to take a notification back.
            self.notify(
                service,
                json!({"message": "clear_notification", "data": {"tag": tag(id)}}),
            )
            .await;
        }
    }

    async fn pressed(&self, press: Press) {
        let lang = |id: &str| self.notified.get(id).map_or(Lang::En, |n| n.lang);
        let (id, text) = match press {
            Press::Approve(id) => {
                let answer = self.commands.approve(&id, None, Source::Notification).await;
                let text = match answer.result {
                    Ok(outcome) => outcome.reply,
                    Err(e) => gone_text(e.kind, lang(&id)).to_owned(),
                };
                (id, text)
            }
            Press::Deny(id) => {
                let text = match self.commands.decline(&id, Source::Notification) {
                    Ok(outcome) => outcome.reply,
                    Err(e) => gone_text(e.kind, lang(&id)).to_owned(),
                };
                (id, text)
            }
        };
        info!(approval = %id, "Answered an approval from a notification");
        self.answer(&text).await;
    }

    /// Tells the person what their press did: on the phone when there is one, else in Home
    /// Assistant's notifications.
    async fn answer(&self, text: &str) {
        match &self.app.cfg.agent.approval.notify_service {
            Some(service) => {
                self.notify(service, json!({"title": "HomeClaw", "message": text}))
                    .await;
            }
            None => {
                self.call(
                    "persistent_notification",
                    "create",
                    json!({"title": "HomeClaw", "message": text}),
                )
                .await;
            }
        }
    }

    async fn notify(&self, service: &str, data: Value) {
        let name = service.strip_prefix("notify.").unwrap_or(service);
        self.call("notify", name, data).await;
    }

    async fn call(&self, domain: &str, service: &str, data: Value) {
        let called = self
            .app
            .client
            .call_service(domain, service, &Target::default(), Some(data), false)
            .await;
        if let Err(e) = called {
            warn!(error = %e, "Could not send the notification through {domain}.{service}");
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_buttons_are_presses() {
        assert_eq!(
            press_of(&json!({"action": "HOMECLAW_APPROVE_appr_1"})),
            Some(Press::Approve("appr_1".into()))
        );
        assert_eq!(
            press_of(&json!({"action": "HOMECLAW_DENY_appr_1"})),
            Some(Press::Deny("appr_1".into()))
        );
        assert_eq!(press_of(&json!({"action": "OPEN_GARAGE"})), None);
        assert_eq!(press_of(&json!({"action": 3})), None);
        assert_eq!(press_of(&json!({})), None);
    }

    #[test]
    fn a_gone_approval_says_why_nothing_ran() {
        for kind in [
            ErrorKind::Expired,
            ErrorKind::AlreadyUsed,
            ErrorKind::UnknownApproval,
        ] {
            assert!(gone_text(kind, Lang::En).contains("nothing"), "{kind:?}");
            assert!(gone_text(kind, Lang::De).contains("nichts"), "{kind:?}");
        }
    }
}
