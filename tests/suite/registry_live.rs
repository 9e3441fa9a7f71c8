//! A registry that follows Home Assistant: entities moved, renamed, unexposed and exposed, an
//! area renamed and an integration added while HomeClaw runs, each acted on without a
//! reconnect. A real Home Assistant with a small fixture home of its own (the changes would
//! disturb the tests sharing the demo home).

use std::path::Path;
use std::time::Duration;

use homeclaw::agent::act::approval::ApprovalStore;
use homeclaw::agent::{Agent, AgentConfig, LiveHome, RunResult, RunStatus, ToolRegistry};
use homeclaw::config::ExposureConfig;
use homeclaw::ha::protocol::Command;
use homeclaw::ha::{ExposurePolicy, HaClient, LiveRegistry, Registry};
use homeclaw::llm::Message;
use serde_json::{Value, json};

use crate::common::ha::HaInstance;
use crate::common::scripted_llm::{ScriptedLlm, openai_calls, openai_text};
use crate::suite::agent_live::scripted_chain;

const LIVE_REGISTRY_PORT: u16 = 18131;
const WAIT: Duration = Duration::from_secs(30);

async fn ws(client: &HaClient, kind: &str, fields: Value) {
    let mut command = Command::new(kind);
    for (key, value) in fields.as_object().unwrap() {
        command = command.with(key, value.clone());
    }
    client
        .request(command)
        .await
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
}

async fn state_of(ha: &HaInstance, entity_id: &str) -> String {
    let (_, state) = ha
        .rest("GET", &format!("/api/states/{entity_id}"), None)
        .await;
    state["state"].as_str().unwrap_or_default().to_owned()
}

async fn wait_for(home: &LiveHome, what: &str, condition: impl FnMut(&Registry) -> bool) {
    assert!(
        home.registry.wait_until(WAIT, condition).await,
        "the registry never saw {what}"
    );
}

struct Fixture {
    ha: HaInstance,
    home: LiveHome,
    llm: ScriptedLlm,
}

impl Fixture {
    async fn run(&self, text: &str) -> RunResult {
        let chain = scripted_chain(&self.llm);
        let cfg = AgentConfig::default();
        let approvals = ApprovalStore::new(Duration::from_secs(60));
        let agent = Agent::new(&chain, &self.home, &ToolRegistry, &cfg, &approvals);
        let mut history = vec![Message::user(text)];
        agent.run(&mut history).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_made_in_home_assistant_count_without_a_reconnect() {
    let fixture_file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/homes/live-registry.fixture.yaml");
    let ha = tokio::task::spawn_blocking(move || {
        HaInstance::start_home(LIVE_REGISTRY_PORT, &fixture_file)
    })
    .await
    .unwrap();
    let client = ha.client();
    // HomeClaw's own defaults: Home Assistant's Assist exposure is honoured.
    let registry = LiveRegistry::spawn(
        client.clone(),
        ExposurePolicy::new(ExposureConfig::default()),
    );
    assert!(registry.wait_synced_after(0, WAIT).await.is_some());
    let generation = registry.generation();
    let f = Fixture {
        ha,
        home: LiveHome::new(
            client,
            registry,
            Some(std::time::Duration::from_millis(300)),
        ),
        llm: ScriptedLlm::start().await,
    };
    let client = &f.home.client;

    // An entity moved to another area: a command naming that area acts on it.
    ws(
        client,
        "config/entity_registry/update",
        json!({"entity_id": "light.desk_lamp", "area_id": "hall"}),
    )
    .await;
    wait_for(&f.home, "the desk lamp in the hall", |r| {
        r.get("light.desk_lamp")
            .is_some_and(|e| e.area_id.as_deref() == Some("hall"))
    })
    .await;
    let result = f.run("turn on the lights in the hall").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(state_of(&f.ha, "light.desk_lamp").await, "on");
    assert_eq!(state_of(&f.ha, "light.ceiling_light").await, "on");

    // Renamed: found by the new name, and only it is switched.
    ws(
        client,
        "config/entity_registry/update",
        json!({"entity_id": "light.ceiling_light", "name": "Reading Lamp"}),
    )
    .await;
    wait_for(&f.home, "the new name", |r| {
        r.get("light.ceiling_light")
            .is_some_and(|e| e.name == "Reading Lamp")
    })
    .await;
    let result = f.run("turn off the reading lamp").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(state_of(&f.ha, "light.ceiling_light").await, "off");
    assert_eq!(state_of(&f.ha, "light.desk_lamp").await, "on");

    // An alias given in Home Assistant: a name people can say, read without the model.
    ws(
        client,
        "config/entity_registry/update",
        json!({"entity_id": "light.desk_lamp", "aliases": ["Night Reader"]}),
    )
    .await;
    wait_for(&f.home, "the desk lamp's alias", |r| {
        r.get("light.desk_lamp")
            .is_some_and(|e| e.aliases == ["Night Reader"])
    })
    .await;
    let asked = f.llm.requests().len();
    let result = f.run("turn off the night reader").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(state_of(&f.ha, "light.desk_lamp").await, "off");
    assert_eq!(f.llm.requests().len(), asked, "the fast path took it");
    // A registry read afresh has it too: Home Assistant's list leaves aliases out.
    let fresh = LiveRegistry::spawn(
        client.clone(),
        ExposurePolicy::new(ExposureConfig::default()),
    );
    assert!(fresh.wait_synced_after(0, WAIT).await.is_some());
    let aliases = fresh.read(|r| r.get("light.desk_lamp").map(|e| e.aliases.clone()));
    assert_eq!(aliases, Some(vec!["Night Reader".to_owned()]));

    // Unexposed in Home Assistant: refused with the reason, and Home Assistant untouched.
    ws(
        client,
        "homeassistant/expose_entity",
        json!({"assistants": ["conversation"], "entity_ids": ["switch.porch"],
               "should_expose": false}),
    )
    .await;
    wait_for(&f.home, "the porch switch hidden", |r| {
        r.get("switch.porch").is_none()
    })
    .await;
    let refusal = "I did not change anything. Porch Switch is not exposed to Assist in Home \
                   Assistant (Settings > Voice assistants > Expose).";
    // Named by the person: refused at once, without asking the model.
    let result = f.run("turn on the porch switch").await;
    assert!(f.llm.requests().is_empty(), "{:?}", result.trace);
    assert_ne!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.reply, refusal);
    // Called by a model (here in a command the fast path leaves to it): refused with the reason.
    f.llm.push(openai_calls(&[(
        "call_1",
        "call_service",
        json!({"domain": "switch", "service": "turn_on", "entity_id": "switch.porch"}),
    )]));
    f.llm.push(openai_text("The porch switch is on."));
    let result = f.run("turn on the porch switch and make it cosy").await;
    let seen = f.llm.requests()[1].tool_results().remove(0);
    assert!(seen.contains("not exposed to Assist"), "{seen}");
    assert_ne!(result.status, RunStatus::Done, "{:?}", result.trace);
    // The person hears what to change, whatever the model wrote.
    assert_eq!(result.reply, refusal);
    assert_eq!(state_of(&f.ha, "switch.porch").await, "off");

    // Exposed again: callable, with no model at all.
    ws(
        client,
        "homeassistant/expose_entity",
        json!({"assistants": ["conversation"], "entity_ids": ["switch.porch"],
               "should_expose": true}),
    )
    .await;
    wait_for(&f.home, "the porch switch exposed", |r| {
        r.get("switch.porch").is_some()
    })
    .await;
    let requests = f.llm.requests().len();
    let result = f.run("turn on the porch switch").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(state_of(&f.ha, "switch.porch").await, "on");

    // An area renamed: the new name is a place people can say.
    ws(
        client,
        "config/area_registry/update",
        json!({"area_id": "garden", "name": "Backyard"}),
    )
    .await;
    wait_for(&f.home, "the renamed area", |r| {
        r.resolve_area("backyard").is_some()
    })
    .await;
    let result = f.run("turn off the switch in the backyard").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(state_of(&f.ha, "switch.porch").await, "off");
    assert_eq!(f.llm.requests().len(), requests, "the fast path took these");

    // An integration added: its services are callable.
    f.ha.add_integration("shopping_list", json!({})).await;
    wait_for(&f.home, "the shopping list's services", |r| {
        r.service("shopping_list", "add_item").is_some()
    })
    .await;

    // The home's time zone: read from `get_config`, and followed when a person changes it
    // (`core_config_updated`), so "today" is the household's day.
    wait_for(&f.home, "Home Assistant's time zone", |r| {
        r.time_zone() == Some("UTC")
    })
    .await;
    ws(
        client,
        "config/core/update",
        json!({"time_zone": "Australia/Brisbane"}),
    )
    .await;
    wait_for(&f.home, "the new time zone", |r| {
        r.time_zone() == Some("Australia/Brisbane")
    })
    .await;

    assert_eq!(
        f.home.registry.generation(),
        generation,
        "all of it without a full resync"
    );
}
