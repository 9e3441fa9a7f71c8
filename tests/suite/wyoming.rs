//! HomeClaw in Assist: the Wyoming handle service against real peers, the reference
//! `wyoming` client from PyPI and Home Assistant's own Wyoming integration.

use std::io::{Read, Write};
use std::process::Command;
use std::time::Duration;

use homeclaw::ha::protocol::Command as HaCommand;
use serde_json::{Value, json};

use crate::common::ha::{HaInstance, create_pipeline, shared};
use crate::common::homeclaw::{Homeclaw, config_yaml, with_fast_path};
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
    llm.push(openai_text("Hello from HomeClaw over Wyoming."));
    let python = ha.venv().join("bin/python");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scripts/wyoming_probe.py"
    );
    let got = probe(python, script, &addr, &["hello"]).await;
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
    // With the panel as the app has it (ingress vouches; the test's browser is the proxy).
    let config = config_yaml(
        &ha.ws_url(),
        &ha.token,
        &llm.openai_url(),
        &dir.path().join("sessions"),
        "",
    )
    .replace(
        "panel:\n  listen: 127.0.0.1:0\n",
        "panel:\n  enabled: true\n  auth: ingress\n  listen: 127.0.0.1:0\n  allowed_peers: [127.0.0.1]\n",
    );
    let mut server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
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

    // No pipeline lets Home Assistant answer first yet (an earlier run's is removed: the
    // instance keeps its configuration between runs).
    let pipelines = client
        .request(HaCommand::new("assist_pipeline/pipeline/list"))
        .await
        .unwrap();
    for old in pipelines["pipelines"].as_array().unwrap() {
        if old["prefer_local_intents"] == true
            && old["conversation_engine"] != "conversation.home_assistant"
        {
            client
                .request(
                    HaCommand::new("assist_pipeline/pipeline/delete")
                        .with("pipeline_id", old["id"].clone()),
                )
                .await
                .unwrap();
        }
    }
    let (_, health, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(
        health["assist"]["prefer_local_pipelines"],
        json!([]),
        "{health}"
    );
    // The household picks HomeClaw for an assistant with "prefer handling commands locally"
    // ticked, as Home Assistant's UI offers it.
    let created = create_pipeline(&client, "Kitchen voice", &agent, true).await;
    assert_eq!(created["prefer_local_intents"], true, "{created}");
    let (_, health, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(
        health["assist"]["prefer_local_pipelines"],
        json!(["Kitchen voice"]),
        "{health}"
    );
    assert!(
        health["assist"]["warning"]
            .as_str()
            .is_some_and(|w| w.contains("without HomeClaw's approval")),
        "{health}"
    );
    assert!(
        server.log().contains("prefer handling commands locally"),
        "{}",
        server.log()
    );
    // The panel says it in the person's words, with the way out.
    let panel = server.panel.clone().expect("the panel listens");
    let mut browser = crate::common::browser::Browser::launch(1000, 700).await;
    browser.open(&format!("http://{panel}/?lang=en")).await;
    let notice = browser
        .wait_for("document.getElementById('notice-prefer-local')?.textContent")
        .await;
    let notice = notice.as_str().unwrap();
    assert!(
        notice.contains("“Kitchen voice”") && notice.contains("Prefer handling commands locally"),
        "{notice}"
    );
    browser
        .screenshot(
            &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/screenshots/panel-prefer-local.png"),
        )
        .await;
    drop(browser);

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

/// The `wyoming` client Home Assistant 2026.11 pins (1.10.x), from its own cached venv.
fn wyoming_2026_python() -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/wyoming-venv.sh");
    let out = Command::new(script).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

pub(crate) async fn speak_2026(addr: &str, args: &[&str]) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripts/wyoming_2026.py");
    probe(wyoming_2026_python().into(), script, addr, args).await
}

/// Runs a Wyoming client `script` with `python` against the server at `addr` and reads the
/// one JSON line it prints.
async fn probe(python: std::path::PathBuf, script: &str, addr: &str, args: &[&str]) -> Value {
    let (host, port) = addr.rsplit_once(':').unwrap();
    let mut all = vec![script.to_owned(), host.to_owned(), port.to_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let out =
        tokio::task::spawn_blocking(move || Command::new(python).args(&all).output().unwrap())
            .await
            .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

/// Home Assistant 2026.11's Wyoming conversation, spoken with the client it pins: the handle
/// program says it controls the home (so Home Assistant grants the agent CONTROL), and the
/// satellite named in the transcript's context — by its device, or by its entity alone — is
/// where "the temperature" is. `climate.heatpump` belongs to this test on the shared instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistant_2026_names_the_satellite_and_homeclaw_acts_on_its_device() {
    let ha = shared();
    let heatpump = "climate.heatpump";
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = with_fast_path(&config_yaml(
        &ha.ws_url(),
        &ha.token,
        &llm.openai_url(),
        &dir.path().join("sessions"),
        "",
    ));
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let addr = server.wyoming.clone().unwrap();
    let (_client, registry) = ha.registry().await;
    let mut device = None;
    assert!(
        registry
            .wait_until(Duration::from_secs(30), |r| {
                device = r.get(heatpump).and_then(|e| e.device_id.clone());
                device.is_some()
            })
            .await,
        "{heatpump} has no device"
    );
    let device = device.unwrap();
    let target = |ha: &'static HaInstance| async move {
        ha.rest("GET", &format!("/api/states/{heatpump}"), None)
            .await
            .1["attributes"]["temperature"]
            .as_f64()
    };

    let got = speak_2026(&addr, &["set the temperature to 21 degrees", "en", &device]).await;
    assert_eq!(got["supports_home_control"], true, "{got}");
    assert_eq!(got["result_type"], "handled", "{got}");
    assert_eq!(
        got["context"]["conversation_id"], "01KAZ0WYOMING2026TEST0000",
        "the conversation id comes back"
    );
    assert_eq!(target(ha).await, Some(21.0), "{got}");

    // The satellite's entity alone names its device too.
    let got = speak_2026(
        &addr,
        &["set the temperature to 22 degrees", "en", "", heatpump],
    )
    .await;
    assert_eq!(got["result_type"], "handled", "{got}");
    assert_eq!(target(ha).await, Some(22.0), "{got}");
    assert!(llm.requests().is_empty(), "the fast path took both");
}
