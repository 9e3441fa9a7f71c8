//! Assist pipelines that hand HomeClaw only what Home Assistant does not understand itself.
//!
//! A pipeline's "prefer handling commands locally" (`prefer_local_intents`, offered by Home
//! Assistant's UI and ticked by default for agents that can control the home) makes Home
//! Assistant run every sentence its own matcher understands before the conversation agent is
//! asked: "open the garage door" then runs without HomeClaw's approval, its check of the state
//! afterwards or its activity record. Nothing in Home Assistant tells the household; HomeClaw
//! reads the pipelines and says so (the panel, `/api/health`, the log).
//!
//! Invariants:
//! - A pipeline counts only when its conversation engine is HomeClaw's: a Wyoming conversation
//!   entity whose registry entry names HomeClaw (the handle program's name), so another agent's
//!   pipeline is never reported.
//! - Reading is best effort: a Home Assistant without the command (or without a pipeline) is no
//!   pipeline to report, and an error is returned, never a guess.

use serde::Deserialize;
use serde_json::Value;

use super::connection::{HaClient, HaError};
use super::protocol::{Command, TYPE_ENTITY_REGISTRY_GET};

pub const TYPE_PIPELINE_LIST: &str = "assist_pipeline/pipeline/list";
/// Home Assistant's own agent, which a pipeline preferring local intents already is.
pub const HOME_ASSISTANT_AGENT: &str = "conversation.home_assistant";
/// What pipelines made before Home Assistant 2024.5 still name its own agent.
const HOME_ASSISTANT_AGENT_OLD: &str = "homeassistant";
/// The name HomeClaw's Wyoming handle program gives Home Assistant (its conversation entity's).
const HANDLE_NAME: &str = "HomeClaw";

/// One Assist pipeline, as `assist_pipeline/pipeline/list` lists it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Pipeline {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub conversation_engine: String,
    /// The language Home Assistant's agent reads in this pipeline (`en`, or `*` for any).
    #[serde(default)]
    pub conversation_language: Option<String>,
    #[serde(default)]
    pub prefer_local_intents: bool,
}

impl Pipeline {
    fn is_home_assistants(&self) -> bool {
        self.conversation_engine == HOME_ASSISTANT_AGENT
            || self.conversation_engine == HOME_ASSISTANT_AGENT_OLD
    }

    /// Whether Home Assistant's agent reads `language` (a tag such as `de-CH`) in this
    /// pipeline: the same language, whatever the region, or any.
    fn reads(&self, language: &str) -> bool {
        use crate::lang::primary_tag;
        match self.conversation_language.as_deref() {
            Some("*") => true,
            Some(own) => primary_tag(own).eq_ignore_ascii_case(primary_tag(language)),
            None => false,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct PipelineList {
    #[serde(default)]
    pipelines: Vec<Pipeline>,
    #[serde(default)]
    preferred_pipeline: Option<String>,
}

/// The message that makes a text-only pipeline (no speech, no wake word) in `language` on
/// conversation agent `agent`: a household's assistant as the tests and benchmarks build it.
pub fn create_text_pipeline(
    name: &str,
    language: &str,
    agent: &str,
    prefer_local_intents: bool,
) -> Command {
    let mut command = Command::new("assist_pipeline/pipeline/create")
        .with("name", Value::from(name))
        .with("language", Value::from(language))
        .with("conversation_engine", Value::from(agent))
        .with("conversation_language", Value::from(language))
        .with("prefer_local_intents", Value::from(prefer_local_intents));
    for unused in [
        "stt_engine",
        "stt_language",
        "tts_engine",
        "tts_language",
        "tts_voice",
        "wake_word_entity",
        "wake_word_id",
    ] {
        command = command.with(unused, Value::Null);
    }
    command
}

/// The pipeline a sentence is handed to Home Assistant's own agent through when the device
/// must go along and `conversation/process` does not take it (Home Assistant before 2026.11):
/// one whose engine is Home Assistant's agent reading `language`, the preferred one first.
/// `None` when the household has none (its only assistants use other agents).
pub fn for_hand_off(list: &Value, language: &str) -> Option<String> {
    let parsed: PipelineList = serde_json::from_value(list.clone()).unwrap_or_default();
    let fits = |p: &&Pipeline| p.is_home_assistants() && p.reads(language);
    let preferred = parsed
        .pipelines
        .iter()
        .filter(fits)
        .find(|p| Some(&p.id) == parsed.preferred_pipeline.as_ref());
    preferred
        .or_else(|| parsed.pipelines.iter().find(fits))
        .map(|p| p.id.clone())
}

/// The pipelines that prefer local intents and hand the rest to an agent other than Home
/// Assistant's own: the ones that might be HomeClaw's.
pub fn preferring_local(list: &Value) -> Vec<Pipeline> {
    let parsed: PipelineList = serde_json::from_value(list.clone()).unwrap_or_default();
    parsed
        .pipelines
        .into_iter()
        .filter(|p| p.prefer_local_intents && !p.is_home_assistants())
        .collect()
}

/// Whether an entity registry entry (`config/entity_registry/get`) is HomeClaw's conversation
/// agent: a Wyoming conversation entity named as HomeClaw's handle program names itself.
pub fn is_homeclaw_agent(entry: &Value) -> bool {
    let named = |key: &str| {
        entry[key]
            .as_str()
            .is_some_and(|n| n.trim().eq_ignore_ascii_case(HANDLE_NAME))
    };
    entry["platform"] == "wyoming"
        && entry["entity_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("conversation."))
        && (named("original_name") || named("name"))
}

/// The names of the pipelines whose engine is HomeClaw and that let Home Assistant answer
/// first.
pub async fn homeclaw_preferring_local(client: &HaClient) -> Result<Vec<Pipeline>, HaError> {
    let list = client.request(Command::new(TYPE_PIPELINE_LIST)).await?;
    let mut out = Vec::new();
    for pipeline in preferring_local(&list) {
        let entry = client
            .request(Command::new(TYPE_ENTITY_REGISTRY_GET).with(
                "entity_id",
                Value::from(pipeline.conversation_engine.clone()),
            ))
            .await;
        match entry {
            Ok(entry) if is_homeclaw_agent(&entry) => out.push(pipeline),
            Ok(_) => {}
            // An engine that is an agent id rather than an entity has no registry entry.
            Err(HaError::Api { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_pipelines_preferring_local_intents_for_another_agent_count() {
        // As Home Assistant 2025.4 lists them (fields HomeClaw does not read left out).
        let list = json!({"pipelines": [
            {"id": "a", "name": "Home Assistant", "conversation_engine": "conversation.home_assistant",
             "prefer_local_intents": true},
            {"id": "b", "name": "HomeClaw", "conversation_engine": "conversation.homeclaw",
             "prefer_local_intents": true, "language": "en"},
            {"id": "c", "name": "HomeClaw strict", "conversation_engine": "conversation.homeclaw",
             "prefer_local_intents": false},
            {"id": "d", "name": "Older", "conversation_engine": "conversation.homeclaw"}
        ], "preferred_pipeline": "b"});
        let found = preferring_local(&list);
        assert_eq!(
            found.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        assert!(preferring_local(&json!({"unexpected": true})).is_empty());
    }

    #[test]
    fn a_hand_off_goes_through_home_assistants_agent_in_the_sentences_language() {
        // As Home Assistant 2025.4.4 lists them: the household's assistant is HomeClaw's, the
        // one Home Assistant made at its first start is still there.
        let list = json!({"pipelines": [
            {"id": "hc", "name": "HomeClaw", "conversation_engine": "conversation.homeclaw",
             "conversation_language": "en"},
            {"id": "de", "name": "Deutsch", "conversation_engine": "conversation.home_assistant",
             "conversation_language": "de"},
            {"id": "ha", "name": "Home Assistant", "conversation_engine": "conversation.home_assistant",
             "conversation_language": "en"},
            {"id": "old", "name": "Old", "conversation_engine": "homeassistant",
             "conversation_language": "en"},
            {"id": "any", "name": "Any", "conversation_engine": "conversation.home_assistant",
             "conversation_language": "*"}
        ], "preferred_pipeline": "hc"});
        assert_eq!(for_hand_off(&list, "en").as_deref(), Some("ha"));
        assert_eq!(for_hand_off(&list, "en-GB").as_deref(), Some("ha"));
        assert_eq!(for_hand_off(&list, "de-CH").as_deref(), Some("de"));
        assert_eq!(for_hand_off(&list, "pl").as_deref(), Some("any"));
        // The preferred one first, when it is Home Assistant's own; an old engine name counts.
        let mut preferred = list.clone();
        preferred["preferred_pipeline"] = json!("old");
        assert_eq!(for_hand_off(&preferred, "en").as_deref(), Some("old"));
        // Only HomeClaw's assistants: nothing to hand the device over through.
        let only_ours = json!({"pipelines": [list["pipelines"][0].clone()]});
        assert_eq!(for_hand_off(&only_ours, "en"), None);
        assert_eq!(for_hand_off(&json!(null), "en"), None);
    }

    #[test]
    fn homeclaws_agent_is_the_wyoming_entity_named_homeclaw() {
        let entry = |platform: &str, id: &str, name: Value| json!({"entity_id": id, "platform": platform, "original_name": name, "name": null});
        assert!(is_homeclaw_agent(&entry(
            "wyoming",
            "conversation.homeclaw",
            json!("HomeClaw")
        )));
        // Renamed by the household: its original name still says what it is.
        assert!(is_homeclaw_agent(&entry(
            "wyoming",
            "conversation.voice",
            json!("HomeClaw")
        )));
        assert!(!is_homeclaw_agent(&entry(
            "wyoming",
            "conversation.other",
            json!("Rhasspy")
        )));
        assert!(!is_homeclaw_agent(&entry(
            "openai_conversation",
            "conversation.homeclaw",
            json!("HomeClaw")
        )));
        assert!(!is_homeclaw_agent(&entry(
            "wyoming",
            "stt.homeclaw",
            json!("HomeClaw")
        )));
    }
}
