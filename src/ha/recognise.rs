//! Home Assistant's own sentence recogniser, over the websocket: the sentences it understands
//! in every language it ships, with the household's aliases, custom sentences and sentence
//! triggers, and the speaking device's area.
//!
//! `conversation/agent/homeassistant/debug` recognises without executing: HomeClaw turns what
//! it recognised into its own validated, verified calls (`agent::recognised`).
//! `conversation/process` with Home Assistant's agent runs what HomeClaw does not execute
//! itself (timers, broadcasts, a household's own intents and sentence triggers); said to a
//! satellite on a Home Assistant whose `conversation/process` does not take the device, an
//! intent-stage `assist_pipeline/run` does instead, so that the timer lands on the satellite.
//!
//! Everything here is data from Home Assistant: parsed into plain fields, never trusted as a
//! target until the registry and HomeClaw's constraints agree.

use serde_json::{Map, Value, json};

use super::connection::{HaClient, HaError, Pending};
use super::pipelines::{self, TYPE_PIPELINE_LIST};
use super::protocol::{Command, HaErrorCode};

pub const TYPE_DEBUG: &str = "conversation/agent/homeassistant/debug";
pub const TYPE_PROCESS: &str = "conversation/process";
/// Home Assistant's own conversation agent.
pub const HA_AGENT: &str = pipelines::HOME_ASSISTANT_AGENT;

/// Where Home Assistant found the sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Home Assistant's shipped templates.
    Builtin,
    /// The household's custom sentences (`custom_sentences/`, `conversation: intents:`).
    Custom,
    /// An automation's sentence trigger.
    Trigger,
}

/// One slot as recognised: its value (Home Assistant's canonical form: `light`, `on`, `40`) and
/// the words that said it.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub value: Value,
    pub text: String,
}

impl Slot {
    /// The value as text (`"Küche"`, `"light"`, `"40"`).
    pub fn as_text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Null => self.text.clone(),
            other => other.to_string(),
        }
    }

    /// The values as a list (a `domain` slot may hold several).
    pub fn values(&self) -> Vec<String> {
        match &self.value {
            Value::Array(list) => list
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => vec![self.as_text()],
        }
    }

    pub fn number(&self) -> Option<f64> {
        match &self.value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().trim_end_matches('%').trim().parse().ok(),
            _ => self.text.trim().trim_end_matches('%').trim().parse().ok(),
        }
    }
}

/// What Home Assistant recognised in one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognition {
    /// `HassTurnOn`, `HassStartTimer`, a household's own intent; empty for a sentence trigger.
    pub intent: String,
    pub slots: Vec<(String, Slot)>,
    /// Entities Home Assistant would target, and whether each matched (a question's state).
    pub targets: Vec<(String, bool)>,
    /// Every slot matched something in the home.
    pub matched: bool,
    /// Slots that were said but matched nothing ("area": "Küche" in a home named in English).
    pub unmatched: Vec<(String, String)>,
    pub source: Source,
}

impl Recognition {
    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    pub fn unmatched(&self, name: &str) -> Option<&str> {
        self.unmatched
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_str())
    }
}

/// The debug command that recognises `sentence` (nothing run).
fn recognise_command(sentence: &str, language: &str, device_id: Option<&str>) -> Command {
    let command = Command::new(TYPE_DEBUG)
        .with("sentences", json!([sentence]))
        .with("language", json!(language));
    match device_id {
        Some(device) => command.with("device_id", json!(device)),
        None => command,
    }
}

/// The recognition of the first sentence of a debug result; `None` when Home Assistant
/// recognised nothing (or answered something this version does not know how to read).
pub fn parse_debug(result: &Value) -> Option<Recognition> {
    let first = result.get("results")?.as_array()?.first()?;
    let object = first.as_object()?;
    let source = match object.get("source").and_then(Value::as_str) {
        Some("trigger") => Source::Trigger,
        Some("custom") => Source::Custom,
        _ => Source::Builtin,
    };
    let matched = object.get("match").and_then(Value::as_bool) == Some(true);
    let intent = object
        .get("intent")
        .and_then(|i| i.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if intent.is_empty() && source != Source::Trigger {
        return None;
    }
    let empty = Map::new();
    let details = object
        .get("details")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let slots = object
        .get("slots")
        .and_then(Value::as_object)
        .unwrap_or(&empty)
        .iter()
        .map(|(name, plain)| {
            let detail = details.get(name);
            let value = detail
                .and_then(|d| d.get("value"))
                .cloned()
                .unwrap_or_else(|| plain.clone());
            let text = detail
                .and_then(|d| d.get("text"))
                .and_then(Value::as_str)
                .map_or_else(
                    || plain.as_str().unwrap_or_default().to_owned(),
                    str::to_owned,
                );
            (name.clone(), Slot { value, text })
        })
        .collect();
    let targets = object
        .get("targets")
        .and_then(Value::as_object)
        .unwrap_or(&empty)
        .iter()
        .map(|(id, t)| {
            let hit = t.get("matched").and_then(Value::as_bool).unwrap_or(false);
            (id.clone(), hit)
        })
        .collect();
    let unmatched = object
        .get("unmatched_slots")
        .and_then(Value::as_object)
        .unwrap_or(&empty)
        .iter()
        .map(|(name, v)| {
            let text = match v {
                Value::String(s) => s.trim().to_owned(),
                other => other.to_string(),
            };
            (name.clone(), text)
        })
        .collect();
    Some(Recognition {
        intent,
        slots,
        targets,
        matched,
        unmatched,
        source,
    })
}

/// Home Assistant's agent's answer to a `conversation/process`: its words and whether it
/// reports an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Handled {
    pub speech: String,
    pub failed: bool,
}

pub fn parse_process(result: &Value) -> Handled {
    let response = &result["response"];
    Handled {
        speech: response["speech"]["plain"]["speech"]
            .as_str()
            .unwrap_or_default()
            .trim()
            .to_owned(),
        failed: response["response_type"].as_str() == Some("error"),
    }
}

/// The first Home Assistant whose `conversation/process` takes the speaking device
/// (`device_id`, `satellite_id`): 2026.11 does, 2026.2.3 does not. Before it, a sentence handed
/// over carries no device (a timer asked of a satellite is refused there: "timers are not
/// supported on this device").
pub const PROCESS_TAKES_DEVICE: (u32, u32) = (2026, 11);

/// Whether Home Assistant `version` ("2026.11.0", "2026.12.0b1", "2027.1.0.dev2026…") takes
/// the device in `conversation/process`; an unreadable version is taken as an old one.
pub fn process_takes_device(version: &str) -> bool {
    let mut parts = version.split('.');
    let mut number = || {
        parts.next().and_then(|p| {
            let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok()
        })
    };
    match (number(), number()) {
        (Some(year), Some(month)) => (year, month) >= PROCESS_TAKES_DEVICE,
        _ => false,
    }
}

/// The `conversation/process` message for Home Assistant `version`: with the device where that
/// version takes it, without it before (an older one refuses a field it does not know).
pub fn process_command(
    text: &str,
    language: &str,
    device_id: Option<&str>,
    version: &str,
) -> Command {
    let mut command = Command::new(TYPE_PROCESS)
        .with("text", json!(text))
        .with("language", json!(language))
        .with("agent_id", json!(HA_AGENT));
    if let Some(device) = device_id.filter(|_| process_takes_device(version)) {
        command = command.with("device_id", json!(device));
    }
    command
}

pub const TYPE_PIPELINE_RUN: &str = "assist_pipeline/run";

/// The intent stage alone of `pipeline`, on `text` said to `device`: Home Assistant's agent
/// runs it as it runs a sentence from that satellite.
pub fn intent_run_command(text: &str, pipeline: &str, device: &str) -> Command {
    Command::new(TYPE_PIPELINE_RUN)
        .with("start_stage", json!("intent"))
        .with("end_stage", json!("intent"))
        .with("input", json!({ "text": text }))
        .with("pipeline", json!(pipeline))
        .with("device_id", json!(device))
}

/// What one event of an intent-stage run says: the agent's answer (`intent-end`), the run's
/// error, or the end of a run that gave none; `None` for the events on the way.
pub fn pipeline_answer(event: &Value) -> Option<Result<Handled, HaError>> {
    match event["type"].as_str()? {
        "intent-end" => Some(Ok(parse_process(&event["data"]["intent_output"]))),
        "error" => Some(Err(HaError::Api {
            code: HaErrorCode::parse(event["data"]["code"].as_str().unwrap_or("unknown")),
            message: event["data"]["message"]
                .as_str()
                .unwrap_or("no message")
                .to_owned(),
        })),
        "run-end" => Some(Err(HaError::Protocol {
            command: TYPE_PIPELINE_RUN.into(),
            reason: "the run ended without the agent's answer".into(),
        })),
        _ => None,
    }
}

impl HaClient {
    /// Asks Home Assistant's recogniser to recognise one sentence without running it, and
    /// returns its answer on its way: a caller waits its budget, and may still take a late
    /// answer.
    pub async fn recognition(
        &self,
        sentence: &str,
        language: &str,
        device_id: Option<&str>,
    ) -> Result<Pending, HaError> {
        self.send(recognise_command(sentence, language, device_id))
            .await
    }

    /// Has Home Assistant's own agent run the sentence, and returns what it said. Said to a
    /// device, the device goes along so that a timer starts on the satellite that heard it:
    /// in `conversation/process` where this Home Assistant takes it (see
    /// [`process_takes_device`]), else through an intent-stage run of a pipeline whose agent is
    /// Home Assistant's (which takes the device since 2024.6); without such a pipeline, without
    /// the device (and Home Assistant says what it cannot do without one).
    pub async fn converse(
        &self,
        text: &str,
        language: &str,
        device_id: Option<&str>,
    ) -> Result<Handled, HaError> {
        let version = match self.current_state() {
            super::ConnectionState::Connected { ha_version } => ha_version,
            _ => String::new(),
        };
        if let Some(device) = device_id.filter(|_| !process_takes_device(&version)) {
            let pipelines = self.request(Command::new(TYPE_PIPELINE_LIST)).await?;
            match pipelines::for_hand_off(&pipelines, language) {
                Some(pipeline) => return self.run_intent(text, &pipeline, device).await,
                None => tracing::debug!(
                    language,
                    "No pipeline with Home Assistant's agent: the hand-off goes without the device"
                ),
            }
        }
        let result = self
            .request(process_command(text, language, device_id, &version))
            .await?;
        Ok(parse_process(&result))
    }

    /// Runs the intent stage of `pipeline` on `text`, said to `device`, and returns the agent's
    /// answer.
    async fn run_intent(
        &self,
        text: &str,
        pipeline: &str,
        device: &str,
    ) -> Result<Handled, HaError> {
        let timeout = self.request_timeout();
        let mut events = self
            .stream(intent_run_command(text, pipeline, device), timeout)
            .await?;
        let answer = async {
            while let Some(event) = events.recv().await {
                if let Some(answer) = pipeline_answer(&event) {
                    return answer;
                }
            }
            Err(HaError::ConnectionLost {
                command: TYPE_PIPELINE_RUN.into(),
            })
        };
        tokio::time::timeout(timeout, answer)
            .await
            .unwrap_or(Err(HaError::Timeout {
                command: TYPE_PIPELINE_RUN.into(),
                timeout,
            }))
    }

    /// Loads Home Assistant's sentences for a language ahead of the first command (the first
    /// recognition otherwise pays for loading them).
    pub async fn prepare_language(&self, language: &str) -> Result<(), HaError> {
        let command = Command::new("conversation/prepare")
            .with("language", json!(language))
            .with("agent_id", json!(HA_AGENT));
        self.request(command).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_debug_answer_reads_as_intent_slots_targets_and_what_did_not_match() {
        // As Home Assistant 2025.4.4 answered "Schalte das Licht im Obergeschoss aus".
        let result = json!({"results": [{
            "intent": {"name": "HassTurnOff"},
            "slots": {"floor": "Obergeschoss", "domain": "light"},
            "details": {"floor": {"name": "floor", "value": "Obergeschoss", "text": "Obergeschoss"},
                        "domain": {"name": "domain", "value": "light", "text": ""}},
            "targets": {"light.deckenleuchte": {"matched": true}},
            "match": true,
            "sentence_template": "<schalten> (<licht>|<lichter>) <floor> <aus>",
            "unmatched_slots": {},
            "source": "builtin"}]});
        let r = parse_debug(&result).unwrap();
        assert_eq!(r.intent, "HassTurnOff");
        assert_eq!(r.slot("domain").unwrap().values(), ["light"]);
        assert_eq!(r.slot("floor").unwrap().as_text(), "Obergeschoss");
        assert_eq!(r.targets, [("light.deckenleuchte".to_owned(), true)]);
        assert!(r.matched && r.source == Source::Builtin);

        let partial = json!({"results": [{"intent": {"name": "HassTurnOn"},
            "slots": {"domain": "light"}, "targets": {}, "match": false,
            "unmatched_slots": {"area": "kitchen "}, "source": "builtin"}]});
        let r = parse_debug(&partial).unwrap();
        assert!(!r.matched);
        assert_eq!(r.unmatched("area"), Some("kitchen"));
        assert_eq!(r.slot("domain").unwrap().as_text(), "light");

        let trigger = json!({"results": [{"match": true, "source": "trigger",
            "sentence_template": "good night"}]});
        assert_eq!(parse_debug(&trigger).unwrap().source, Source::Trigger);
        assert_eq!(parse_debug(&json!({"results": [null]})), None);
        assert_eq!(parse_debug(&json!({"nothing": 1})), None);
    }

    #[test]
    fn a_number_slot_reads_from_its_value_or_its_words() {
        let slot = Slot {
            value: json!(40.0),
            text: "40".into(),
        };
        assert_eq!(slot.number(), Some(40.0));
        let said = Slot {
            value: json!("50 %"),
            text: "50 %".into(),
        };
        assert_eq!(said.number(), Some(50.0));
    }

    #[test]
    fn home_assistant_s_answer_says_whether_it_failed() {
        let ok = json!({"response": {"response_type": "action_done",
            "speech": {"plain": {"speech": "Timer gestart"}}}});
        assert_eq!(
            parse_process(&ok),
            Handled {
                speech: "Timer gestart".into(),
                failed: false
            }
        );
        let error = json!({"response": {"response_type": "error",
            "speech": {"plain": {"speech": "Sorry"}}}});
        assert!(parse_process(&error).failed);
    }

    #[test]
    fn an_intent_stage_run_reads_as_the_agents_answer() {
        // As Home Assistant 2025.4.4 sent them for "set a timer for 5 minutes" said to a
        // timer-capable satellite.
        let command = intent_run_command("set a timer for 5 minutes", "01m8", "19f7");
        let frame: Value = serde_json::from_str(&command.to_frame(3)).unwrap();
        assert_eq!(
            frame,
            json!({"id": 3, "type": "assist_pipeline/run", "start_stage": "intent",
                   "end_stage": "intent", "input": {"text": "set a timer for 5 minutes"},
                   "pipeline": "01m8", "device_id": "19f7"})
        );
        let start = json!({"type": "intent-start", "data": {"engine": "conversation.home_assistant",
            "intent_input": "set a timer for 5 minutes", "device_id": "19f7"}});
        assert!(pipeline_answer(&start).is_none());
        let end = json!({"type": "intent-end", "data": {"processed_locally": true,
            "intent_output": {"response": {"speech": {"plain": {"speech": "Timer set for 5 minutes"}},
            "language": "en", "response_type": "action_done"}, "conversation_id": "01M8",
            "continue_conversation": false}}});
        assert_eq!(
            pipeline_answer(&end).unwrap().unwrap(),
            Handled {
                speech: "Timer set for 5 minutes".into(),
                failed: false
            }
        );
        let error = json!({"type": "error", "data": {"code": "intent-failed", "message": "boom"}});
        assert!(matches!(
            pipeline_answer(&error),
            Some(Err(HaError::Api { message, .. })) if message == "boom"
        ));
        assert!(matches!(
            pipeline_answer(&json!({"type": "run-end", "data": null})),
            Some(Err(HaError::Protocol { .. }))
        ));
        assert!(pipeline_answer(&json!("not an event")).is_none());
    }

    #[test]
    fn the_device_goes_along_where_home_assistant_takes_it() {
        for (version, takes) in [
            ("2026.11.0", true),
            ("2026.11.0b3", true),
            ("2026.12.1", true),
            ("2027.1.0.dev20261120", true),
            ("2026.2.3", false),
            ("2026.10.4", false),
            ("2025.4.4", false),
            ("", false),
            ("unknown", false),
        ] {
            assert_eq!(process_takes_device(version), takes, "{version}");
        }
        let frame = |version: &str| -> Value {
            serde_json::from_str(
                &process_command("set a timer for 5 minutes", "en", Some("sat1"), version)
                    .to_frame(7),
            )
            .unwrap()
        };
        // As Home Assistant 2026.11 reads it: the satellite's device next to the sentence.
        assert_eq!(
            frame("2026.11.0"),
            json!({"id": 7, "type": "conversation/process", "text": "set a timer for 5 minutes",
                   "language": "en", "agent_id": "conversation.home_assistant",
                   "device_id": "sat1"})
        );
        // 2025.4 refuses a field it does not know: left out there.
        assert_eq!(frame("2025.4.4").get("device_id"), None);
    }
}
