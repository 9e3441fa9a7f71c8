//! HomeClaw in Assist: the Wyoming handle service against real peers, the reference
//! `wyoming` client from PyPI and Home Assistant's own Wyoming integration.

use std::io::{Read, Write};
use std::process::Command;
use std::time::Duration;

use homeclaw::ha::protocol::Command as HaCommand;
use serde_json::{Value, json};

use crate::common::ha::{HaInstance, shared};
use crate::common::homeclaw::{Homeclaw, config_yaml};
use crate::common::scripted_llm::{ScriptedLlm, openai_calls, openai_text};

async fn start(ha: &HaInstance, llm: &ScriptedLlm, dir: &std::path::Path) -> Homeclaw {
    let config = config_yaml(
        &ha.ws_url(),
        &ha.token,
        &llm.openai_url(),
        &dir.join("sessions"),
        "",
    );
    let server = Homeclaw::spawn(dir, &config);
    server.ready().await;
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_client_describes_and_gets_a_handled_reply() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let server = start(ha, &llm, dir.path()).await;
    let addr = server.wyoming.clone().expect("wyoming address");
    let (host, port) = addr.rsplit_once(':').unwrap();
    llm.push(openai_text("Hello from HomeClaw over Wyoming."));
    let python = ha.venv().join("bin/python");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scripts/wyoming_probe.py"
    );
    let (host, port) = (host.to_owned(), port.to_owned());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .args([script, &host, &port, "hello"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(got["info_type"], "info");
    assert_eq!(got["handle"], json!(["HomeClaw"]));
    assert_eq!(got["installed"], true);
    // Every language Home Assistant recognises, unless the configuration names some: Dutch and
    // Spanish too, which Home Assistant's recogniser reads for HomeClaw.
    let languages: Vec<&str> = got["languages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for tag in ["en", "pl", "de", "fr", "nl", "es", "it"] {
        assert!(languages.contains(&tag), "{tag} not in {languages:?}");
    }
    assert_eq!(got["result_type"], "handled");
    assert_eq!(got["text"], "Hello from HomeClaw over Wyoming.");

    // A malformed event gets an error event and a closed connection; the server lives on.
    let mut raw = std::net::TcpStream::connect(&addr).unwrap();
    raw.write_all(b"this is not json\n").unwrap();
    let mut answer = String::new();
    raw.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    raw.read_to_string(&mut answer).unwrap();
    let header: Value = serde_json::from_str(answer.lines().next().unwrap_or_default()).unwrap();
    assert_eq!(header["type"], "error", "{answer}");
    assert!(answer.contains("bad_event"), "{answer}");
    let (status, _, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistant_uses_homeclaw_as_a_conversation_agent() {
    let ha = tokio::task::spawn_blocking(|| HaInstance::start(18126))
        .await
        .unwrap();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut server = start(&ha, &llm, dir.path()).await;
    let addr = server.wyoming.clone().unwrap();
    let (_, port) = addr.rsplit_once(':').unwrap();
    let port: u16 = port.parse().unwrap();

    // Add the Wyoming integration by its config flow, pointed at HomeClaw.
    ha.add_integration("wyoming", json!({"host": "127.0.0.1", "port": port}))
        .await;

    // Find the conversation entity it created.
    let (client, registry) = ha.registry().await;
    let mut agent = None;
    assert!(
        registry
            .wait_until(Duration::from_secs(60), |r| {
                agent = r
                    .entities()
                    .find(|e| {
                        e.domain() == "conversation" && e.entity_id != "conversation.home_assistant"
                    })
                    .map(|e| e.entity_id.clone());
                agent.is_some()
            })
            .await,
        "no Wyoming conversation entity"
    );
    let agent = agent.unwrap();

    // Assist asks HomeClaw; the demo light really changes and HA returns the reply.
    ha.rest(
        "POST",
        "/api/services/light/turn_off",
        Some(json!({"entity_id": "light.bed_light"})),
    )
    .await;
    llm.push(openai_calls(&[(
        "c1",
        "call_service",
        json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
    )]));
    llm.push(openai_text("The bed light is on."));
    let process = |text: &str| {
        HaCommand::new("conversation/process")
            .with("text", json!(text))
            .with("agent_id", json!(agent))
            .with("language", json!("en"))
    };
    let result = client
        .request_with_timeout(process("turn on the bed light"), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(
        result["response"]["speech"]["plain"]["speech"], "Turned on Bed Light.",
        "{result}"
    );
    let (_, state) = ha.rest("GET", "/api/states/light.bed_light", None).await;
    assert_eq!(state["state"], "on");

    // HomeClaw down: Home Assistant answers with an error response, not a hang.
    server.kill9();
    let result = client
        .request_with_timeout(process("turn off the bed light"), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(result["response"]["response_type"], "error", "{result}");
}
