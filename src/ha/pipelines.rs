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
const HOME_ASSISTANT_AGENT: &str = "conversation.home_assistant";
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
    #[serde(default)]
    pub prefer_local_intents: bool,
}

#[derive(Debug, Default, Deserialize)]
struct PipelineList {
    #[serde(default)]
    pipelines: Vec<Pipeline>,
}

/// The pipelines that prefer local intents and hand the rest to an agent other than Home
/// Assistant's own: the ones that might be HomeClaw's.
pub fn preferring_local(list: &Value) -> Vec<Pipeline> {
    let parsed: PipelineList = serde_json::from_value(list.clone()).unwrap_or_default();
    parsed
        .pipelines
        .into_iter()
        .filter(|p| p.prefer_local_intents && p.conversation_engine != HOME_ASSISTANT_AGENT)
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
