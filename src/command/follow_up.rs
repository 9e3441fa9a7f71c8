//! Listening again after a question, without the wake word.
//!
//! When HomeClaw answers a satellite with a question ("Which one do you mean …?", an approval
//! question, "Which room?"), the person should just answer. Home Assistant's Wyoming
//! conversation cannot ask for that (it never sets `continue_conversation`), so HomeClaw asks
//! the satellite itself: `assist_satellite.start_conversation` (Home Assistant 2025.4+) once the
//! satellite has finished speaking the question, with a short chime rather than the question
//! again. The satellite then listens in a conversation Home Assistant opens anew, so the answer
//! arrives under another conversation id; it is taken back to the session that asked because it
//! comes from the same satellite, within [`OPEN_FOR`].
//!
//! Invariants:
//! - Only the satellite the question was said to listens again, and only when HomeClaw knows
//!   which it is (Home Assistant 2026.11's Wyoming conversation names it; the API and MQTT take
//!   `satellite_id`/`device_id`) and it can (ESPHome satellites can; Wyoming satellites only
//!   announce). Never a guess.
//! - A follow-up is used once: the next sentence from that satellite continues the session that
//!   asked, the one after starts its own (unless it asks again).
//! - Starting to listen never cuts the question short: HomeClaw waits for the satellite to be
//!   idle, at most [`WAIT_IDLE`], and gives up (with a log line) rather than interrupt it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tracing::{debug, warn};

use crate::agent::home::LiveHome;
use crate::ha::HaError;
use crate::ha::protocol::Command;
use crate::ha::registry::Registry;

/// How long the answer to a question may take to arrive from the satellite.
pub const OPEN_FOR: Duration = Duration::from_secs(60);
/// How long the satellite may take to finish speaking the question.
pub const WAIT_IDLE: Duration = Duration::from_secs(30);
/// Home Assistant's own "listening" chime, served by every Home Assistant since 2025.4: played
/// instead of speaking the question a second time.
pub const CHIME: &str = "/api/assist_satellite/static/preannounce.mp3";

/// The questions waiting for their answer, by satellite entity.
#[derive(Debug, Default)]
pub struct FollowUps {
    open: Mutex<HashMap<String, Open>>,
}

#[derive(Debug)]
struct Open {
    session_id: String,
    until: Instant,
}

impl FollowUps {
    /// The session a sentence from `satellite` continues, if that satellite was asked to
    /// listen for an answer within [`OPEN_FOR`] of `now`; used once.
    pub fn take(&self, satellite: &str, now: Instant) -> Option<String> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|_, o| o.until > now);
        open.remove(satellite).map(|o| o.session_id)
    }

    /// Has `satellite`, which heard `session_id`'s `question`, listen for the answer: in the
    /// background, since the question is answered now and the satellite speaks it first.
    pub fn listen_for_the_answer(
        &self,
        home: Arc<LiveHome>,
        satellite: String,
        session_id: &str,
        question: &str,
    ) {
        self.open(&satellite, session_id, Instant::now());
        let question = question.to_owned();
        tokio::spawn(async move {
            match listen_again(&home, &satellite, &question).await {
                Ok(()) => debug!(%satellite, "Listening for the answer"),
                Err(e) => warn!(
                    %satellite, error = %e,
                    "The satellite could not listen again for the answer"
                ),
            }
        });
    }

    /// Remembers that `satellite` listens for the answer to `session_id`'s question.
    pub fn open(&self, satellite: &str, session_id: &str, now: Instant) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|_, o| o.until > now);
        open.insert(
            satellite.to_owned(),
            Open {
                session_id: session_id.to_owned(),
                until: now + OPEN_FOR,
            },
        );
    }
}

/// `AssistSatelliteEntityFeature.START_CONVERSATION`: satellites that can be asked to listen
/// (ESPHome's, such as Home Assistant Voice; a Wyoming satellite only announces).
const START_CONVERSATION: u64 = 2;

/// Whether a satellite's state attributes say it can be asked to listen again.
pub fn can_listen_again(attributes: &serde_json::Map<String, Value>) -> bool {
    attributes
        .get("supported_features")
        .and_then(Value::as_u64)
        .is_some_and(|f| f & START_CONVERSATION != 0)
}

/// The satellite a request was said to, if it can listen again: the satellite entity it names
/// (exposed or not), else the satellite entity of its device. `None` when neither is such a
/// satellite.
pub fn satellite(
    registry: &Registry,
    satellite_id: Option<&str>,
    device_id: Option<&str>,
) -> Option<String> {
    let named = satellite_id
        .and_then(|s| registry.speaker(s))
        .filter(|e| e.domain() == "assist_satellite");
    named
        .or_else(|| device_id.and_then(|d| registry.satellite_of(d)))
        .filter(|e| can_listen_again(&e.attributes))
        .map(|e| e.entity_id.clone())
}

/// The `assist_satellite.start_conversation` call that has `satellite` listen again: the
/// question as its text (a satellite with a screen shows it), the chime as its sound.
pub fn listen_command(satellite: &str, question: &str) -> Command {
    Command::call_service(
        "assist_satellite",
        "start_conversation",
        Some(json!({ "entity_id": satellite })),
        Some(json!({
            "start_message": question,
            "start_media_id": CHIME,
            "preannounce": false,
        })),
        false,
    )
}

/// Has `satellite` listen again once it is idle. Errors are Home Assistant's (a satellite
/// whose pipeline is Home Assistant's own agent, or one that cannot start conversations,
/// refuses) or the wait running out.
pub async fn listen_again(home: &LiveHome, satellite: &str, question: &str) -> Result<(), HaError> {
    let idle = home
        .registry
        .wait_until(WAIT_IDLE, |r| {
            r.speaker(satellite).is_some_and(|e| e.state == "idle")
        })
        .await;
    if !idle {
        return Err(HaError::Timeout {
            command: format!("{satellite} to finish speaking"),
            timeout: WAIT_IDLE,
        });
    }
    home.client
        .request(listen_command(satellite, question))
        .await
        .map(|_: Value| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_from_the_satellite_continues_the_session_that_asked_once() {
        let follow_ups = FollowUps::default();
        let asked = Instant::now();
        follow_ups.open("assist_satellite.bedroom", "wy-01A", asked);
        assert_eq!(follow_ups.take("assist_satellite.kitchen", asked), None);
        assert_eq!(
            follow_ups
                .take("assist_satellite.bedroom", asked + Duration::from_secs(5))
                .as_deref(),
            Some("wy-01A")
        );
        assert_eq!(
            follow_ups.take("assist_satellite.bedroom", asked + Duration::from_secs(6)),
            None,
            "used once"
        );
        // An answer that comes too late starts afresh.
        follow_ups.open("assist_satellite.bedroom", "wy-01B", asked);
        assert_eq!(
            follow_ups.take("assist_satellite.bedroom", asked + OPEN_FOR),
            None
        );
        // A second question on the same satellite replaces the first.
        follow_ups.open("assist_satellite.bedroom", "wy-01C", asked);
        follow_ups.open("assist_satellite.bedroom", "wy-01D", asked);
        assert_eq!(
            follow_ups
                .take("assist_satellite.bedroom", asked)
                .as_deref(),
            Some("wy-01D")
        );
    }

    #[test]
    fn only_a_satellite_that_can_start_a_conversation_is_asked_to() {
        let features = |v: Value| {
            json!({"supported_features": v, "friendly_name": "Kitchen"})
                .as_object()
                .cloned()
                .unwrap()
        };
        // ESPHome's Voice satellite: announce and start a conversation.
        assert!(can_listen_again(&features(json!(3))));
        assert!(can_listen_again(&features(json!(2))));
        // A Wyoming satellite announces only; an odd value is no promise.
        assert!(!can_listen_again(&features(json!(1))));
        assert!(!can_listen_again(&features(json!("3"))));
        assert!(!can_listen_again(&serde_json::Map::new()));
    }

    #[test]
    fn the_satellite_is_asked_to_listen_with_the_chime_not_the_question_again() {
        let frame: Value = serde_json::from_str(
            &listen_command("assist_satellite.bedroom", "Which one do you mean?").to_frame(4),
        )
        .unwrap();
        assert_eq!(
            frame,
            json!({"id": 4, "type": "call_service", "domain": "assist_satellite",
                   "service": "start_conversation",
                   "target": {"entity_id": "assist_satellite.bedroom"},
                   "service_data": {"start_message": "Which one do you mean?",
                                    "start_media_id": CHIME, "preannounce": false}})
        );
    }
}
