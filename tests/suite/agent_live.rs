//! The agent loop end to end: scripted LLM server over real HTTP, real Home Assistant.

use std::time::Duration;

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
    let client = ha.client();
    let registry = LiveRegistry::spawn(
        client.clone(),
        ExposurePolicy::new(ExposureConfig::default()),
    );
    assert!(
        registry
            .wait_synced_after(0, Duration::from_secs(30))
            .await
            .is_some()
    );
    assert!(
        registry
            .wait_until(Duration::from_secs(30), |r| r
                .get("light.kitchen_lights")
                .is_some_and(|e| e.state == "off"))
            .await
    );
    let home = LiveHome { client, registry };

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
    let chain = LlmChain::from_config(&LlmConfig {
        models: vec![ModelConfig {
            name: Some("scripted".into()),
            provider: Provider::Openai,
            base_url: Some(server.openai_url()),
            model: "scripted".into(),
            api_key: None,
            native_tools: true,
            max_tokens: None,
            temperature: None,
        }],
        ..Default::default()
    })
    .unwrap();
    let tools = ToolRegistry;
    let cfg = AgentConfig::default();
    let agent = Agent {
        model: &chain,
        home: &home,
        tools: &tools,
        cfg: &cfg,
    };
    let mut history = vec![Message::user("turn on the kitchen light")];
    let result = agent.run(&mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.reply, "The kitchen light is on.");

    // The search result the model saw named the real entity.
    let requests = server.requests();
    let seen = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(seen.contains("light.kitchen_lights"), "{seen}");
    assert!(server.violations().is_empty(), "{:?}", server.violations());

    // Home Assistant itself reports the light on.
    let (_, state) = ha
        .rest("GET", "/api/states/light.kitchen_lights", None)
        .await;
    assert_eq!(state["state"], "on");
}
