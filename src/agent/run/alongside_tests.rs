//! Home Assistant's recogniser asked beside HomeClaw's own reading: its complete reading is
//! taken where it leads to other calls, HomeClaw's own stands where both agree or Home
//! Assistant reads less than the whole sentence.

use serde_json::json;

use super::*;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::act::tools::ToolRegistry;
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::ScriptedModel;
use crate::config::AgentConfig;
use crate::ha::recognise::{Recognition, Slot, Source};

fn slot(value: serde_json::Value) -> Slot {
    Slot {
        text: value.as_str().unwrap_or_default().to_owned(),
        value,
    }
}

fn recognition(intent: &str, slots: &[(&str, serde_json::Value)], matched: bool) -> Recognition {
    Recognition {
        intent: intent.into(),
        slots: slots
            .iter()
            .map(|(n, v)| ((*n).to_owned(), slot(v.clone())))
            .collect(),
        targets: Vec::new(),
        matched,
        unmatched: Vec::new(),
        source: Source::Builtin,
    }
}

async fn run(home: &MemoryHome, text: &str) -> RunResult {
    let model = ScriptedModel::new(vec![]);
    let tools = ToolRegistry;
    let cfg = AgentConfig::default();
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let mut agent = Agent::new(&model, home, &tools, &cfg, &approvals);
    agent.language = Some("en".into());
    let mut history = vec![Message::user(text)];
    let result = agent.run(&mut history).await;
    assert!(model.requests().is_empty(), "no model request");
    result
}

#[tokio::test]
async fn home_assistants_whole_reading_is_taken_where_it_differs() {
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(recognition(
        "HassLightSet",
        &[
            ("name", json!("Kitchen Lights")),
            ("brightness", json!(100)),
        ],
        true,
    ));
    let result = run(&home, "turn on the kitchen lights").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    let calls = home.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].data, Some(json!({"brightness_pct": 100})));
    assert!(
        result
            .trace
            .iter()
            .any(|t| t.contains("its reading is taken")),
        "{:?}",
        result.trace
    );
}

#[tokio::test]
async fn homeclaws_reading_stands_where_both_agree_or_home_assistant_reads_less() {
    // Home Assistant's matcher prefers the device's own name to the area's lights.
    let agreeing = recognition("HassTurnOff", &[("name", json!("Kitchen Lights"))], true);
    let partial = Recognition {
        matched: false,
        ..recognition("HassTurnOn", &[("domain", json!("light"))], false)
    };
    for (recognised, said) in [
        (agreeing, "reads the words as HomeClaw does"),
        (partial, "alongside HomeClaw's own reading"),
    ] {
        let home = MemoryHome::new(synthetic_home(20));
        home.recognise_as(recognised);
        let result = run(&home, "turn off the kitchen lights").await;
        assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
        assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
        assert_eq!(home.calls().len(), 1);
        assert!(
            result.trace.iter().any(|t| t.contains(said)),
            "{:?}",
            result.trace
        );
        assert!(
            !result
                .trace
                .iter()
                .any(|t| t.contains("its reading is taken"))
        );
    }
}

#[tokio::test]
async fn a_reading_that_asks_which_device_takes_home_assistants_complete_one() {
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(recognition(
        "HassTurnOn",
        &[("area", json!("Living Room")), ("domain", json!("light"))],
        true,
    ));
    let plain = MemoryHome::new(synthetic_home(20));
    let asked = run(&plain, "turn on the light").await;
    let result = run(&home, "turn on the light").await;
    assert_eq!(
        asked.status,
        RunStatus::ClarificationRequired,
        "{:?}",
        asked.trace
    );
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(home.state("light.ceiling_lights").as_deref(), Some("on"));
}

/// "Pause" said to the living room's satellite: HomeClaw's own words say nothing of which
/// player, so Home Assistant's reading (the room's player) is not filtered away by them.
#[tokio::test]
async fn a_players_verb_alone_takes_home_assistants_room() {
    use crate::agent::plan::tests::home_in_states;
    let registry = home_in_states(&[
        ("media_player.tv", "TV", "living_room", "playing", json!({})),
        ("light.lamp", "Lamp", "living_room", "on", json!({})),
    ]);
    let home = MemoryHome::new(registry);
    home.recognise_as(recognition(
        "HassMediaPause",
        &[("area", json!("Living Room"))],
        true,
    ));
    let result = run(&home, "pause").await;
    let calls = home.calls();
    assert_eq!(calls.len(), 1, "{:?}", result.trace);
    assert_eq!(
        (calls[0].domain.as_str(), calls[0].service.as_str()),
        ("media_player", "media_pause")
    );
    assert_eq!(calls[0].target.entity_id, ["media_player.tv"]);
}

/// HomeClaw asks which of a few devices; Home Assistant's reading of every light of a room
/// (the satellite's, when no room is said) does not settle which one the person meant.
#[tokio::test]
async fn a_reading_of_a_rooms_every_light_does_not_answer_which_one() {
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(recognition(
        "HassTurnOn",
        &[("area", json!("Kitchen")), ("domain", json!("light"))],
        true,
    ));
    let result = run(&home, "turn on the light").await;
    assert_eq!(
        result.status,
        RunStatus::ClarificationRequired,
        "{:?}",
        result.trace
    );
    assert!(home.calls().is_empty());
}
