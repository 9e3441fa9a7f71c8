//! MQTT commands against a real Mosquitto broker, the real Home Assistant and the scripted LLM.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::ha::{HaInstance, shared};
use crate::common::homeclaw::{Homeclaw, config_yaml};
use crate::common::mosquitto::{Mosquitto, TestClient};
use crate::common::scripted_llm::{Reply, ScriptedLlm, openai_calls, openai_text};

struct Setup {
    broker: Mosquitto,
    llm: ScriptedLlm,
    server: Homeclaw,
    _dir: tempfile::TempDir,
}

async fn setup(ha: &HaInstance, discovery: bool) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let broker_dir = dir.path().join("broker");
    std::fs::create_dir_all(&broker_dir).unwrap();
    let broker = Mosquitto::start(&broker_dir);
    let llm = ScriptedLlm::start().await;
    let extra = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  client_id: homeclaw-test-{}\n  discovery: {discovery}\n  max_payload_bytes: 1024\n",
        broker.port,
        fastrand::u32(..)
    );
    let config = config_yaml(
        &ha.ws_url(),
        &ha.token,
        &llm.openai_url(),
        &dir.path().join("sessions"),
        &extra,
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    Setup {
        broker,
        llm,
        server,
        _dir: dir,
    }
}

async fn ha_state(ha: &HaInstance, entity: &str) -> Value {
    ha.rest("GET", &format!("/api/states/{entity}"), None)
        .await
        .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_by_mqtt_changes_the_light_and_the_reply_arrives() {
    let ha = shared();
    // light.ceiling_lights belongs to this test.
    ha.rest(
        "POST",
        "/api/services/light/turn_off",
        Some(json!({"entity_id": "light.ceiling_lights"})),
    )
    .await;
    let s = setup(ha, false).await;
    let mut client = TestClient::connect(
        s.broker.port,
        "test-client-1",
        &["homeclaw/reply", "homeclaw/status"],
    )
    .await;
    let status = client
        .next_on("homeclaw/status", 20, |m| m.payload.as_ref() == b"online")
        .await;
    assert_eq!(status.payload.as_ref(), b"online");

    s.llm.push(openai_calls(&[(
        "c1",
        "call_service",
        json!({"domain": "light", "service": "turn_on", "entity_id": "light.ceiling_lights"}),
    )]));
    s.llm.push(openai_text("The ceiling lights are on."));
    client
        .publish(
            "homeclaw/command",
            json!({"text": "turn on the ceiling lights", "request_id": "r-1", "session_id": "mq-1"}).to_string(),
        )
        .await;
    let reply = client
        .next_on("homeclaw/reply", 30, |m| m.json()["request_id"] == "r-1")
        .await
        .json();
    assert_eq!(reply["status"], "done", "{reply}");
    assert_eq!(reply["reply"], "Turned on Ceiling Lights.");
    assert_eq!(reply["actions"][0]["verified"], true);
    assert!(reply.get("trace").is_none(), "trace is off by default");
    assert_eq!(ha_state(ha, "light.ceiling_lights").await["state"], "on");

    // Redelivery of the same request id: answered from the first result, not run again.
    let before = s.llm.requests().len();
    client
        .publish(
            "homeclaw/command",
            json!({"text": "turn on the ceiling lights", "request_id": "r-1", "session_id": "mq-1"}).to_string(),
        )
        .await;
    let again = client
        .next_on("homeclaw/reply", 30, |m| m.json()["request_id"] == "r-1")
        .await
        .json();
    assert_eq!(again, reply);
    assert_eq!(
        s.llm.requests().len(),
        before,
        "the redelivered command did not run"
    );

    // A custom reply topic with plain text payloads.
    let mut custom = TestClient::connect(s.broker.port, "test-client-2", &["my/answers"]).await;
    s.llm.push(openai_text("Hello there."));
    client
        .publish(
            "homeclaw/command",
            json!({"text": "hello", "reply_to": "my/answers"}).to_string(),
        )
        .await;
    let custom_reply = custom.next_on("my/answers", 30, |_| true).await.json();
    assert_eq!(custom_reply["reply"], "Hello there.");

    // MQTT v5 request/response: response topic and correlation data.
    let mut v5 = TestClient::connect(s.broker.port, "test-client-5", &["v5/replies"]).await;
    s.llm.push(openai_text("v5 works."));
    v5.publish_v5("homeclaw/command", "hi v5", "v5/replies", "corr-7")
        .await;
    let answer = v5.next_on("v5/replies", 30, |_| true).await;
    assert_eq!(answer.json()["reply"], "v5 works.");
    assert_eq!(answer.correlation.as_deref(), Some(&b"corr-7"[..]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_payloads_get_error_replies_and_the_bridge_keeps_going() {
    let ha = shared();
    let s = setup(ha, false).await;
    let mut client = TestClient::connect(s.broker.port, "test-client-3", &["homeclaw/reply"]).await;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0xff, 0xfe, 0x00], "invalid_utf8"),
        (b"{\"text\": ".to_vec(), "invalid_json"),
        (vec![b'x'; 2048], "too_large"),
        (b"   ".to_vec(), "empty"),
        (
            b"{\"text\": 42, \"request_id\": \"bad-1\"}".to_vec(),
            "invalid_fields",
        ),
    ];
    for (payload, code) in cases {
        client.publish("homeclaw/command", payload).await;
        let reply = client.next_on("homeclaw/reply", 20, |_| true).await.json();
        assert_eq!(reply["status"], "failed", "{reply}");
        assert_eq!(reply["error"]["code"], code, "{reply}");
    }
    s.llm.push(openai_text("Still here."));
    client.publish("homeclaw/command", "are you alive").await;
    let reply = client.next_on("homeclaw/reply", 30, |_| true).await.json();
    assert_eq!(reply["reply"], "Still here.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_restart_mid_run_still_delivers_the_reply() {
    let ha = shared();
    let mut s = setup(ha, false).await;
    let mut client = TestClient::connect(s.broker.port, "test-client-4", &["homeclaw/reply"]).await;
    s.llm.push(Reply::Delay(
        Duration::from_secs(2),
        Box::new(openai_text("Answer after the restart.")),
    ));
    client
        .publish(
            "homeclaw/command",
            json!({"text": "slow question", "request_id": "slow-1"}).to_string(),
        )
        .await;
    // The run is in progress (the model has the request) when the broker goes away.
    s.llm.wait_requests(1).await;
    s.broker.restart();
    let reply = client
        .next_on("homeclaw/reply", 60, |m| m.json()["request_id"] == "slow-1")
        .await
        .json();
    assert_eq!(reply["reply"], "Answer after the restart.");
    assert!(s.server.log().contains("Connected to the MQTT broker"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistant_creates_the_discovered_entities_and_they_work() {
    // A dedicated Home Assistant: this one gets an MQTT integration.
    let ha = tokio::task::spawn_blocking(|| HaInstance::start(18125))
        .await
        .unwrap();
    let s = setup(&ha, true).await;
    ha.add_integration(
        "mqtt",
        json!({"broker": "127.0.0.1", "port": s.broker.port}),
    )
    .await;
    let (_client, registry) = ha.registry().await;
    assert!(
        registry
            .wait_until(Duration::from_secs(60), |r| {
                // Created, and available (HomeClaw's retained "online" status was seen).
                r.get("text.homeclaw_command")
                    .is_some_and(|e| e.state != "unavailable")
                    && r.get("sensor.homeclaw_last_reply").is_some()
            })
            .await,
        "Home Assistant did not create the discovered entities"
    );
    // Typing into the text entity runs a command; the sensor shows the reply.
    s.llm.push(openai_text("Hello from the dashboard."));
    let (status, _) = ha
        .rest(
            "POST",
            "/api/services/text/set_value",
            Some(json!({"entity_id": "text.homeclaw_command", "value": "hello"})),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        registry
            .wait_until(Duration::from_secs(60), |r| r
                .get("sensor.homeclaw_last_reply")
                .is_some_and(|e| e.state == "Hello from the dashboard."))
            .await,
        "the reply sensor did not update"
    );
}

/// The log of `server` once it holds `needle` (HomeClaw writes it as the event happens).
async fn log_with(server: &Homeclaw, needle: &str) -> String {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let log = server.log();
            if log.contains(needle) {
                return log;
            }
            // Polling a file that the server appends to; the condition, not the pause, decides.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {needle:?} in the log:\n{}", server.log()))
}

/// MQTT over TLS on HomeClaw's own TLS stack (rustls with ring, through the relay): a broker
/// with a certificate of the household's own CA is trusted with `mqtt.ca_file` and commands
/// flow; without it the broker's certificate is refused, said in the log, and nothing connects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_over_tls_trusts_the_households_ca_and_only_it() {
    let ha = shared();
    let dir = tempfile::tempdir().unwrap();
    let broker_dir = dir.path().join("broker");
    std::fs::create_dir_all(&broker_dir).unwrap();
    let broker = Mosquitto::start_with_tls(&broker_dir);
    let tls = broker.tls.as_ref().unwrap();
    let llm = ScriptedLlm::start().await;
    let mut client =
        TestClient::connect(broker.port, "tls-watcher", &["tls/status", "tls/reply"]).await;
    let spawn = |name: &str, ca: Option<&std::path::Path>| {
        let home = dir.path().join(name);
        std::fs::create_dir_all(&home).unwrap();
        let ca = ca
            .map(|c| format!("  ca_file: {}\n", c.display()))
            .unwrap_or_default();
        let extra = format!(
            "mqtt:\n  host: 127.0.0.1\n  port: {}\n  tls: true\n{ca}  client_id: homeclaw-{name}\n  \
             discovery: false\n  status_topic: tls/status\n  reply_topic: tls/reply\n  command_topic: tls/command\n",
            tls.port
        );
        let config = config_yaml(
            &ha.ws_url(),
            &ha.token,
            &llm.openai_url(),
            &home.join("sessions"),
            &extra,
        );
        Homeclaw::spawn(&home, &config)
    };

    let trusting = spawn("trusting", Some(&tls.ca));
    let online = client
        .next_on("tls/status", 30, |m| m.payload.as_ref() == b"online")
        .await;
    assert_eq!(online.payload.as_ref(), b"online");
    llm.push(openai_text("Over TLS."));
    client
        .publish(
            "tls/command",
            json!({"text": "hello", "request_id": "tls-1"}).to_string(),
        )
        .await;
    let reply = client
        .next_on("tls/reply", 30, |m| m.json()["request_id"] == "tls-1")
        .await
        .json();
    assert_eq!(reply["reply"], "Over TLS.", "{reply}");
    drop(trusting);

    // Without the household's CA: refused, with the reason in the log, never connected.
    let _ = client
        .next_on("tls/status", 30, |m| m.payload.as_ref() == b"offline")
        .await;
    let doubting = spawn("doubting", None);
    let log = log_with(&doubting, "MQTT over TLS failed").await;
    assert!(
        log.contains("UnknownIssuer") || log.contains("invalid peer certificate"),
        "{log}"
    );
    let (status, health, _) = doubting.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200, "{health}");
}
