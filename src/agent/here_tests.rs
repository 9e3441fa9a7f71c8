//! "Here" through the whole run, as a satellite in a room says it: the fast path acts in that
//! room alone, the model's calls are held to it, a room without the kind and a satellite
//! HomeClaw cannot place act on nothing and say so.

use serde_json::json;

use crate::agent::run::tests::{cfg, run_at, tool_results};
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{ScriptedModel, calls_reply, text_reply};
use crate::agent::{AgentConfig, RunStatus};
use crate::ha::registry::DeviceEntry;
use crate::llm::Message;

/// The synthetic home with a satellite in the bedroom and one in the garage.
fn home() -> MemoryHome {
    let mut registry = synthetic_home(20);
    let satellite = |id: &str, area: &str| DeviceEntry {
        id: id.into(),
        area_id: Some(area.into()),
        name: Some(format!("{area} satellite")),
        ..Default::default()
    };
    registry.set_devices(vec![
        satellite("sat_bedroom", "bedroom"),
        satellite("sat_garage", "garage"),
    ]);
    MemoryHome::new(registry)
}

async fn said_to(
    device: Option<&str>,
    text: &str,
    model: &ScriptedModel,
    home: &MemoryHome,
    cfg: &AgentConfig,
) -> (crate::agent::RunResult, Vec<Message>) {
    let mut history = vec![Message::user(text)];
    let result = run_at(model, home, cfg, &mut history, device).await;
    (result, history)
}

#[tokio::test]
async fn the_model_is_held_to_the_satellites_room() {
    let home = home();
    home.set_state("light.kitchen_lights", "on");
    home.set_state("light.bed_light", "on");
    // A small model picks the wrong room's light, then the right one.
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_off", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_off", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply("Done."),
    ]);
    let (result, history) = said_to(
        Some("sat_bedroom"),
        "switch the light off in here",
        &model,
        &home,
        &cfg(),
    )
    .await;
    let refusal = &tool_results(&history)[0];
    assert!(refusal.contains("light.kitchen_lights"), "{refusal}");
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
    assert_eq!(home.state("light.bed_light").as_deref(), Some("off"));
    assert_eq!(result.actions.len(), 1, "{:?}", result.actions);
}

#[tokio::test]
async fn a_room_without_the_kind_and_an_unknown_room_act_on_nothing() {
    let home = home();
    let model = ScriptedModel::new(vec![]);
    let cfg = AgentConfig::default();
    // The garage has no light: said at once, the model never asked, nothing anywhere changed.
    let (result, _) = said_to(
        Some("sat_garage"),
        "turn off the lights in here",
        &model,
        &home,
        &cfg,
    )
    .await;
    assert!(home.calls().is_empty(), "{:?}", home.calls());
    assert!(model.requests().is_empty());
    assert!(
        result.reply.contains("lights in Garage"),
        "{}",
        result.reply
    );
    // Nobody said which room, and no satellite tells it.
    for device in [None, Some("not_a_device")] {
        let (result, _) = said_to(device, "turn off the lights here", &model, &home, &cfg).await;
        assert!(home.calls().is_empty());
        assert_eq!(
            result.status,
            RunStatus::ClarificationRequired,
            "{result:?}"
        );
        assert!(result.reply.contains("which room"), "{}", result.reply);
    }
    assert!(model.requests().is_empty());
}

/// A language HomeClaw has no lexicon for: the model's call on a device named by the words but
/// outside the room "aquí" names is refused like any other.
#[tokio::test]
async fn here_holds_the_models_call_to_the_room_in_every_language() {
    let home = home();
    home.set_state("light.kitchen_lights", "off");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        text_reply("Listo."),
        text_reply("Listo."),
    ]);
    let mut cfg = cfg();
    cfg.ha_recogniser.enabled = false;
    let mut history = vec![Message::user("Enciende kitchen lights aquí")];
    let result = run_at(&model, &home, &cfg, &mut history, Some("sat_bedroom")).await;
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert!(result.actions.is_empty(), "{:?}", result.actions);
}

/// Dutch "hier de lichten uitzetten" is one of Home Assistant's own sentences, and without its
/// "hier" none at all: asked without it first, then as said, and what that reads is done in
/// the satellite's room. A reading of the words without "here" is taken as it comes, the
/// person's words never asked ("Zet het volume hier op 30 procent" reads "volume hier" as a
/// name).
#[tokio::test]
async fn home_assistants_sentence_with_here_is_asked_as_said_when_without_it_reads_nothing() {
    use crate::ha::recognise::{Recognition, Slot, Source};
    let slot = |v: &str| Slot {
        value: json!(v),
        text: v.into(),
    };
    let lights_off = Recognition {
        intent: "HassTurnOff".into(),
        slots: vec![
            ("area".into(), slot("Bedroom")),
            ("domain".into(), slot("light")),
        ],
        targets: vec![("light.bed_light".into(), true)],
        matched: true,
        unmatched: Vec::new(),
        source: Source::Builtin,
    };
    let said = "hier de lichten uitzetten";
    let model = ScriptedModel::new(vec![]);
    let run = async |home: &MemoryHome| {
        use crate::agent::act::approval::ApprovalStore;
        use crate::agent::act::tools::ToolRegistry;
        home.set_state("light.bed_light", "on");
        let (tools, cfg) = (ToolRegistry, AgentConfig::default());
        let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
        let mut agent = crate::agent::Agent::new(&model, home, &tools, &cfg, &approvals);
        agent.language = Some("nl".into());
        agent.device_id = Some("sat_bedroom".into());
        agent.run(&mut vec![Message::user(said)]).await
    };
    let home = home();
    home.recognise_sentence(said, lights_off.clone());
    let result = run(&home).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert!(model.requests().is_empty(), "no model: {:?}", result.trace);
    assert_eq!(home.state("light.bed_light").as_deref(), Some("off"));
    let asked = home.asked_recogniser();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_ne!(asked[0], said, "without 'here' first: {asked:?}");
    assert_eq!(asked[1], said);
    assert!(
        result.trace.iter().any(|t| t.contains("as said")),
        "{:?}",
        result.trace
    );

    // Read whole without "here": the person's words are not asked.
    let home = self::home();
    home.recognise_sentence(&asked[0], lights_off);
    let result = run(&home).await;
    assert_eq!(
        home.state("light.bed_light").as_deref(),
        Some("off"),
        "{:?}",
        result.trace
    );
    assert_eq!(home.asked_recogniser(), vec![asked[0].clone()]);
}
