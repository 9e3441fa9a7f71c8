//! The agent loop end to end: scripted LLM server over real HTTP, real Home Assistant.

use std::time::Duration;

use homeclaw::agent::act::approval::{ApprovalStore, execute_approved};
use homeclaw::agent::{Agent, AgentConfig, LiveHome, RunStatus, ToolRegistry};
use homeclaw::config::{ExposureConfig, LlmConfig, ModelConfig, Provider};
use homeclaw::ha::{ExposurePolicy, LiveRegistry};
use homeclaw::llm::{LlmChain, Message};
use serde_json::json;

use crate::common::ha::shared;
use crate::common::scripted_llm::{ScriptedLlm, openai_calls, openai_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_on_the_kitchen_light_changes_the_real_state() {
    let ha = shared();
    // light.kitchen_lights belongs to this test: start from off.
    let (status, _) = ha
        .rest(
            "POST",
            "/api/services/light/turn_off",
            Some(json!({"entity_id": "light.kitchen_lights"})),
        )
        .await;
    assert_eq!(status, 200);
    let home = live_home(ExposureConfig::default()).await;
    assert!(
        home.registry
            .wait_until(Duration::from_secs(30), |r| r
                .get("light.kitchen_lights")
                .is_some_and(|e| e.state == "off"))
            .await
    );

    let server = ScriptedLlm::start().await;
    server.push(openai_calls(&[(
        "call_1",
        "search_entities",
        json!({"query": "kitchen light"}),
    )]));
    server.push(openai_calls(&[(
        "call_2",
        "call_service",
        json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights"}),
    )]));
    server.push(openai_text("The kitchen light is on."));
    let chain = scripted_chain(&server);
    let tools = ToolRegistry;
    let cfg = AgentConfig {
        fast_path: false,
        answer_from_verification: false,
        ..AgentConfig::default()
    };
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let agent = Agent::new(&chain, &home, &tools, &cfg, &approvals);
    let mut history = vec![Message::user("turn on the kitchen light")];
    let result = agent.run(&mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    // HomeClaw says what it verified; the model's sentence stays in the trace.
    assert_eq!(result.reply, "Turned on Kitchen Lights.");
    // Verified through the real state_changed event.
    assert!(result.actions[0].verified, "{:?}", result.actions);
    assert_eq!(
        result.actions[0].observed_state["light.kitchen_lights"],
        "on"
    );

    // The search result the model saw named the real entity.
    let requests = server.requests();
    let seen = requests[1].tool_results().remove(0);
    assert!(seen.contains("light.kitchen_lights"), "{seen}");
    assert!(server.violations().is_empty(), "{:?}", server.violations());

    // Home Assistant itself reports the light on.
    let (_, state) = ha
        .rest("GET", "/api/states/light.kitchen_lights", None)
        .await;
    assert_eq!(state["state"], "on");
}

pub(crate) fn scripted_chain(server: &ScriptedLlm) -> LlmChain {
    chain_streaming(server, false)
}

/// As [`scripted_chain`], with the model asked for streamed replies when `stream`.
pub(crate) fn chain_streaming(server: &ScriptedLlm, stream: bool) -> LlmChain {
    LlmChain::from_config(&LlmConfig {
        models: vec![ModelConfig {
            name: Some("scripted".into()),
            provider: Provider::Openai,
            base_url: Some(server.openai_url()),
            model: "scripted".into(),
            api_key: None,
            native_tools: true,
            max_tokens: None,
            temperature: None,
            max_tools: None,
            short_descriptions: false,
            stream,
            structured_output: homeclaw::config::StructuredOutput::Auto,
            warm_up: None,
        }],
        ..Default::default()
    })
    .unwrap()
}

pub(crate) async fn live_home(exposure: ExposureConfig) -> LiveHome {
    let client = shared().client();
    let registry = LiveRegistry::spawn(client.clone(), ExposurePolicy::new(exposure));
    assert!(
        registry
            .wait_synced_after(0, Duration::from_secs(30))
            .await
            .is_some()
    );
    LiveHome::new(
        client,
        registry,
        Some(std::time::Duration::from_millis(300)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_service_never_reaches_home_assistant() {
    let ha = shared();
    // light.living_room_rgbww_lights belongs to this test: it starts on.
    ha.rest(
        "POST",
        "/api/services/light/turn_on",
        Some(json!({"entity_id": "light.living_room_rgbww_lights"})),
    )
    .await;
    let home = live_home(ExposureConfig {
        service_deny: vec!["light.turn_off".into()],
        ..Default::default()
    })
    .await;
    assert!(
        home.registry
            .wait_until(Duration::from_secs(30), |r| r
                .get("light.living_room_rgbww_lights")
                .is_some_and(|e| e.state == "on"))
            .await
    );
    let server = ScriptedLlm::start().await;
    server.push(openai_calls(&[(
        "call_1",
        "call_service",
        json!({"domain": "light", "service": "turn_off", "entity_id": "light.living_room_rgbww_lights"}),
    )]));
    server.push(openai_text("I am not allowed to turn that off."));
    let chain = scripted_chain(&server);
    let tools = ToolRegistry;
    let cfg = AgentConfig {
        fast_path: false,
        answer_from_verification: false,
        ..AgentConfig::default()
    };
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let agent = Agent::new(&chain, &home, &tools, &cfg, &approvals);
    let mut history = vec![Message::user("turn off the living room lights")];
    let result = agent.run(&mut history).await;
    assert!(result.actions.is_empty());
    let seen = server.requests()[1].tool_results().remove(0);
    assert!(seen.contains("denied"), "{seen}");
    let (_, state) = ha
        .rest("GET", "/api/states/light.living_room_rgbww_lights", None)
        .await;
    assert_eq!(state["state"], "on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocking_waits_for_approval_and_runs_once_against_real_home_assistant() {
    let ha = shared();
    let home = live_home(ExposureConfig::default()).await;
    let server = ScriptedLlm::start().await;
    server.push(openai_calls(&[(
        "call_1",
        "call_service",
        json!({"domain": "lock", "service": "unlock", "entity_id": "lock.front_door"}),
    )]));
    let chain = scripted_chain(&server);
    let tools = ToolRegistry;
    let cfg = AgentConfig {
        fast_path: false,
        answer_from_verification: false,
        ..AgentConfig::default()
    };
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let agent = Agent::new(&chain, &home, &tools, &cfg, &approvals);
    let mut history = vec![Message::user("unlock the front door")];
    let result = agent.run(&mut history).await;
    assert_eq!(result.status, RunStatus::ApprovalRequired);
    let id = result.approval.unwrap().id;
    let (_, state) = ha.rest("GET", "/api/states/lock.front_door", None).await;
    assert_eq!(state["state"], "locked", "nothing runs before approval");

    let report = execute_approved(&home, &approvals, &id, Duration::from_secs(10))
        .await
        .unwrap()
        .report;
    assert!(report.verified, "{report:?}");
    let (_, state) = ha.rest("GET", "/api/states/lock.front_door", None).await;
    assert_eq!(state["state"], "unlocked");
    assert!(
        execute_approved(&home, &approvals, &id, Duration::from_secs(1))
            .await
            .is_err()
    );
    // Put the door back for the next run of the suite.
    ha.rest(
        "POST",
        "/api/services/lock/lock",
        Some(json!({"entity_id": "lock.front_door"})),
    )
    .await;
}

/// The capability the table's one row added (a humidifier's target humidity), end to end on
/// the real Home Assistant: read by HomeClaw's own words in four languages, called, seen in
/// the humidifier's attributes, and said in the person's language, without the model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_humidifiers_target_humidity_is_set_in_every_language_without_the_model() {
    let ha = shared();
    let home = live_home(ExposureConfig::default()).await;
    let server = ScriptedLlm::start().await;
    let chain = scripted_chain(&server);
    let tools = ToolRegistry;
    let cfg = AgentConfig::default();
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let agent = Agent::new(&chain, &home, &tools, &cfg, &approvals);
    // humidifier.humidifier belongs to this test; each sentence asks for a value it does not
    // have yet, so a reply can only be right if the call was made and seen.
    let sentences = [
        ("Set the humidifier to 45%", 45, "Set Humidifier to 45%."),
        (
            "Stelle den Luftbefeuchter auf 50 %",
            50,
            "Humidifier auf 50% eingestellt.",
        ),
        ("Ustaw nawilżacz na 55%", 55, "Ustawiono Humidifier na 55%."),
        (
            "Règle l'humidificateur à 60 %",
            60,
            "Humidifier réglé sur 60%.",
        ),
    ];
    for (text, humidity, reply) in sentences {
        let mut history = vec![Message::user(text)];
        let result = agent.run(&mut history).await;
        assert_eq!(result.status, RunStatus::Done, "{text}: {:?}", result.trace);
        assert_eq!(result.actions.len(), 1, "{text}: {:?}", result.actions);
        let action = &result.actions[0];
        assert_eq!(
            (action.call.domain.as_str(), action.call.service.as_str()),
            ("humidifier", "set_humidity"),
            "{text}"
        );
        assert_eq!(action.call.entity_ids, ["humidifier.humidifier"], "{text}");
        assert!(action.verified, "{text}: {action:?}");
        assert_eq!(result.reply, reply, "{text}");
        let (_, state) = ha
            .rest("GET", "/api/states/humidifier.humidifier", None)
            .await;
        assert_eq!(state["attributes"]["humidity"], humidity, "{text}");
    }
    assert!(server.requests().is_empty(), "the model was asked");
}
