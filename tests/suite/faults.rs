//! Fault injection with real parts: HomeClaw as a spawned binary, real Home Assistant, the
//! scripted LLM server (real HTTP, real wire formats). Each test names the fault, makes it
//! happen at a known point of a run (a gated model reply, never a sleep), and asserts that the
//! command ends with a clear answer, that nothing runs twice and that the process still serves.
//!
//! The broker restart mid-reply lives with the MQTT tests (`mqtt.rs`), the HTTP-level kill -9
//! of a running command with the API tests (`api.rs`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::common::ha::{HaInstance, shared};
use crate::common::homeclaw::{API_TOKEN, Homeclaw, LLM_KEY, config_for, config_with_llm};
use crate::common::scripted_llm::{
    Reply, ScriptedLlm, anthropic_calls, anthropic_text, openai_calls, openai_text,
};

/// Own instance: this file stops and starts it.
const FAULT_HA_PORT: u16 = 18127;
/// A bound on a whole command: reaching it means HomeClaw hung, which is the failure.
const HANG: Duration = Duration::from_secs(90);

async fn state_of(ha: &HaInstance, entity: &str) -> String {
    let (_, state) = ha.rest("GET", &format!("/api/states/{entity}"), None).await;
    state["state"].as_str().unwrap_or_default().to_owned()
}

/// Sends a command in the background, so the test can break things while it runs.
fn send(
    server: &Homeclaw,
    body: Value,
    key: Option<&str>,
) -> tokio::task::JoinHandle<(u16, Value)> {
    let url = format!("{}/api/command", server.url);
    let key = key.map(str::to_owned);
    tokio::spawn(async move {
        let mut request = homeclaw::tls::http_client()
            .post(url)
            .bearer_auth(API_TOKEN)
            .json(&body);
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        let response = tokio::time::timeout(HANG, request.send())
            .await
            .expect("HomeClaw hung on a command")
            .expect("HomeClaw answers");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    })
}

fn toggle(id: &str, entity: &str) -> Reply {
    let domain = entity.split('.').next().unwrap_or_default();
    openai_calls(&[(
        id,
        "call_service",
        json!({"domain": domain, "service": "toggle", "entity_id": entity}),
    )])
}

fn gated(reply: Reply) -> (Arc<Notify>, Reply) {
    let gate = Arc::new(Notify::new());
    (gate.clone(), Reply::Gate(gate, Box::new(reply)))
}

/// Home Assistant dies while the model is deciding; the call then fails clearly and nothing
/// is replayed later. Then it dies and comes back while the model is deciding; the call runs
/// once after the reconnect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistant_going_away_mid_command_fails_clearly_or_completes_once() {
    let ha = HaInstance::start(FAULT_HA_PORT);
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let server = Homeclaw::spawn(dir.path(), &config_for(&ha, &llm.openai_url(), dir.path()));
    server.ready().await;

    // 1. Stopped and not back: a clear failure, no claim, no hang.
    let (gate, reply) = gated(toggle("c1", "light.bed_light"));
    llm.push(reply);
    llm.push(openai_text(
        "Home Assistant did not answer, so nothing changed.",
    ));
    let pending = send(
        &server,
        json!({"text": "toggle the bed light", "session_id": "ha-down"}),
        None,
    );
    llm.wait_requests(1).await;
    ha.kill();
    gate.notify_one();
    let (status, body) = pending.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["actions"], json!([]), "nothing ran: {body}");
    let tool_result = llm.requests()[1].tool_results().join("\n");
    assert!(
        tool_result.contains("Home Assistant"),
        "the model is told why: {tool_result}"
    );
    // The process still serves, and says Home Assistant is away.
    let (status, health, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200);
    assert_ne!(health["home_assistant"]["state"], "connected", "{health}");
    let (status, busy, _) = server
        .request(
            "POST",
            "/api/command",
            Some(r#"{"text": "toggle the bed light"}"#),
            &[],
        )
        .await;
    assert_eq!(status, 503, "{busy}");

    // 2. Stopped and back before the model answers: the call runs once after reconnecting.
    let ha = HaInstance::start(FAULT_HA_PORT);
    server.ready().await;
    let before = llm.requests().len();
    let (gate, reply) = gated(toggle("c2", "light.bed_light"));
    llm.push(reply);
    llm.push(openai_text("Toggled the bed light."));
    let pending = send(
        &server,
        json!({"text": "toggle the bed light", "session_id": "ha-back"}),
        None,
    );
    llm.wait_requests(before + 1).await;
    ha.kill();
    let ha = HaInstance::start(FAULT_HA_PORT);
    server.ready().await;
    let before = state_of(&ha, "light.bed_light").await;
    gate.notify_one();
    let (status, body) = pending.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "done", "{body}");
    assert_eq!(body["actions"][0]["verified"], true, "{body}");
    // Toggled exactly once: a replay of an earlier attempt would have toggled it back.
    assert_ne!(state_of(&ha, "light.bed_light").await, before);
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
}

fn two_model_llm(llm: &ScriptedLlm) -> String {
    format!(
        "llm:\n  max_attempts: 2\n  initial_backoff_ms: 1\n  max_backoff_ms: 5\n  request_timeout_ms: 1500\n  models:\n\
         \x20   - name: primary\n      provider: openai\n      base_url: {}\n      model: scripted\n      api_key: {LLM_KEY}\n\
         \x20   - name: fallback\n      provider: anthropic\n      base_url: {}\n      model: claude\n      api_key: {LLM_KEY}\n",
        llm.openai_url(),
        llm.root_url()
    )
}

fn status(code: u16) -> Reply {
    Reply::Status {
        status: code,
        body: format!("{{\"error\": {{\"message\": \"scripted {code}\"}}}}"),
        retry_after: (code == 429).then(|| "0".to_owned()),
    }
}

/// Every provider fault (5xx, 429 + Retry-After, a body that is not JSON, a reply slower than
/// the timeout, a 4xx that moves to the fallback model in another wire format, every model
/// failing) at a different round of multi-tool runs. The runs finish honestly, calls run once,
/// and an answer after a partial run says what was done and is not re-run on retry. (The fan
/// is named whole: "the limited fan" fits the demo's two limited fans alike, and the model
/// may not pick one of them.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_llm_fault_during_multi_tool_runs_is_survived() {
    let ha = shared();
    let fan = "fan.percentage_limited_fan";
    ha.rest(
        "POST",
        "/api/services/fan/turn_off",
        Some(json!({"entity_id": fan})),
    )
    .await;
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_with_llm(
        &ha.ws_url(),
        &ha.token,
        &two_model_llm(&llm),
        dir.path(),
        "",
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;

    // Run 1: a fault before each of three rounds, each retried on the same model.
    llm.push(status(500));
    llm.push(openai_calls(&[(
        "r1",
        "get_state",
        json!({"entity_id": fan}),
    )]));
    llm.push(status(429));
    llm.push(openai_calls(&[(
        "r2",
        "call_service",
        json!({"domain": "fan", "service": "turn_on", "entity_id": fan}),
    )]));
    llm.push(Reply::InvalidJson);
    llm.push(Reply::Delay(
        Duration::from_secs(5),
        Box::new(openai_text("too late")),
    ));
    // Both attempts on the primary failed: the fallback (Anthropic format) answers.
    llm.push(anthropic_text("The fan is on now."));
    let (code, body) = server
        .command("turn on the percentage limited fan", "faulty-1")
        .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["status"], "done", "{body}");
    assert_eq!(body["reply"], "Turned on Percentage Limited Fan.");
    assert_eq!(body["actions"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(body["actions"][0]["verified"], true);
    assert_eq!(body["stats"]["model_used"], "fallback", "{body}");
    assert_eq!(state_of(ha, fan).await, "on");

    // Run 2: a 401 moves to the fallback at once (not retried); the run goes on there, and the
    // primary, cooling down after its 401, is not asked again in the next round.
    let seen = llm.requests().len();
    llm.push(status(401));
    llm.push(anthropic_calls(&[(
        "r3",
        "call_service",
        json!({"domain": "fan", "service": "turn_off", "entity_id": fan}),
    )]));
    llm.push(anthropic_text("The fan is off."));
    let (code, body) = server
        .command("turn off the percentage limited fan", "faulty-2")
        .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["status"], "done", "{body}");
    assert_eq!(
        llm.requests().len() - seen,
        3,
        "4xx are not retried, and the broken model is not asked every round"
    );
    assert_eq!(state_of(ha, fan).await, "off");
    let (_, health, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(
        health["llm"]["health"][0]["state"], "cooling_down",
        "{health}"
    );
    assert_eq!(health["llm"]["health"][1]["state"], "ok", "{health}");
    // A fresh server (its primary healthy again) for the last run.
    drop(server);
    let dir = tempfile::tempdir().unwrap();
    let config = config_with_llm(
        &ha.ws_url(),
        &ha.token,
        &two_model_llm(&llm),
        dir.path(),
        "",
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;

    // Run 3: every model fails after a call ran. The answer says what was done, and a retry
    // with the same key gets that answer instead of running the call again.
    llm.push(openai_calls(&[(
        "r4",
        "call_service",
        json!({"domain": "fan", "service": "toggle", "entity_id": fan}),
    )]));
    for _ in 0..4 {
        llm.push(status(503));
    }
    let body = json!({"text": "toggle the percentage limited fan", "session_id": "faulty-3"});
    let (code, first) = send(&server, body.clone(), Some("fault-3")).await.unwrap();
    assert_eq!(code, 504, "{first}");
    assert_eq!(first["error"]["code"], "llm_unavailable", "{first}");
    assert_eq!(first["actions"][0]["service"], "toggle", "{first}");
    let reply = first["reply"].as_str().unwrap();
    // Said by name, as every reply is: the call itself is in `actions`.
    assert_eq!(
        reply,
        "I could not finish this request. Toggled Percentage Limited Fan."
    );
    let requests = llm.requests().len();
    let (code, again) = send(&server, body, Some("fault-3")).await.unwrap();
    assert_eq!(code, 504);
    assert_eq!(again, first);
    assert_eq!(llm.requests().len(), requests, "the retry ran nothing");
    assert_eq!(state_of(ha, fan).await, "on", "toggled exactly once");
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    ha.rest(
        "POST",
        "/api/services/fan/turn_off",
        Some(json!({"entity_id": fan})),
    )
    .await;
}

fn sse_call(id: &str, name: &str, args: &Value, cut: bool) -> Vec<String> {
    let args = args.to_string();
    let (head, tail) = args.split_at(args.len() / 2);
    let mut events = vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0,
            "id": id, "type": "function", "function": {"name": name, "arguments": head}}]}}]})
        .to_string(),
    ];
    if !cut {
        events.push(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                "function": {"arguments": tail}}]}}]})
            .to_string(),
        );
        events.push(
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
                .to_string(),
        );
        events.push("[DONE]".into());
    }
    events
}

fn sse_text(text: &str) -> Vec<String> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]})
            .to_string(),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
        "[DONE]".into(),
    ]
}

/// The streaming faults (a stream cut mid tool call, a connection reset mid reply) during a
/// multi-tool streaming run against the real Home Assistant: each retried, the partial call
/// never executed, the real call executed once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_faults_during_a_multi_tool_streaming_run_are_survived() {
    use homeclaw::agent::act::approval::ApprovalStore;
    use homeclaw::agent::{Agent, AgentConfig, RunStatus, ToolRegistry};
    use homeclaw::config::ExposureConfig;
    use homeclaw::llm::Message;

    let ha = shared();
    let fan = "fan.preset_only_limited_fan";
    ha.rest(
        "POST",
        "/api/services/fan/turn_off",
        Some(json!({"entity_id": fan})),
    )
    .await;
    let home = super::agent_live::live_home(ExposureConfig::default()).await;
    let llm = ScriptedLlm::start().await;
    let call = json!({"domain": "fan", "service": "turn_on", "entity_id": fan});
    llm.push(Reply::SseCut(sse_call("s1", "call_service", &call, true)));
    llm.push(Reply::Sse(sse_call("s1", "call_service", &call, false)));
    llm.push(Reply::SseReset(vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "The fan"}}]})
            .to_string(),
    ]));
    llm.push(Reply::Sse(sse_text("The fan is on.")));
    let chain = super::agent_live::chain_streaming(&llm, true);
    let (tools, cfg) = (
        ToolRegistry,
        AgentConfig {
            fast_path: false,
            answer_from_verification: false,
            ..AgentConfig::default()
        },
    );
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let agent = Agent::new(&chain, &home, &tools, &cfg, &approvals);
    let mut history = vec![Message::user("turn on the preset fan")];
    let result = tokio::time::timeout(HANG, agent.run(&mut history))
        .await
        .expect("the streaming run hung");
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.reply, "Turned on Preset Only Limited Fan.");
    assert_eq!(result.actions.len(), 1, "the cut call was not executed");
    assert!(result.actions[0].verified);
    assert_eq!(llm.requests().len(), 4);
    assert_eq!(state_of(ha, fan).await, "on");
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
}

/// kill -9 after a command was answered: after the restart the session loads whole and a
/// retry with the same Idempotency-Key gets the first answer without running again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acknowledged_command_is_not_run_again_after_kill_9() {
    let ha = shared();
    let fan = "fan.percentage_full_fan";
    let before = state_of(ha, fan).await;
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let config = config_for(ha, &llm.openai_url(), &sessions);
    let mut server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    llm.push(toggle("k1", fan));
    llm.push(openai_text("Toggled the full fan."));
    let body = r#"{"text": "toggle the full fan", "session_id": "acked"}"#;
    let key = [("idempotency-key", "acked-1")];
    let (status, first, _) = server
        .request("POST", "/api/command", Some(body), &key)
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["actions"][0]["verified"], true, "{first}");
    server.kill9();

    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let (status, again, headers) = server
        .request("POST", "/api/command", Some(body), &key)
        .await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, first);
    assert_eq!(headers["idempotent-replay"], "true");
    assert_eq!(llm.requests().len(), 2, "nothing ran again");
    assert_ne!(state_of(ha, fan).await, before, "toggled exactly once");
    // The session loaded whole: user, call, result, reply.
    let (_, session, _) = server
        .request("GET", "/api/sessions/acked", None, &[])
        .await;
    let roles: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool", "assistant"],
        "{session}"
    );
}

/// A tmpfs mounted over a test directory, unmounted on drop; `None` without the privilege.
struct Mount(std::path::PathBuf);

impl Mount {
    fn tmpfs(path: &std::path::Path, size: &str) -> Option<Self> {
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Self(path.to_owned()))
    }

    fn remount(&self, mode: &str) {
        let status = std::process::Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success(), "remount {mode}");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// The session directory fills up, then turns read-only, in the middle of runs: each command
/// gets a clear storage error or an answer that says it could not be saved, the process keeps
/// serving, and once the disk is writable again nothing of the conversation is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_or_read_only_session_directory_is_a_clear_error_and_nothing_is_lost() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mount = Mount::tmpfs(&sessions, "512k");
    let server = Homeclaw::spawn(dir.path(), &config_for(ha, &llm.openai_url(), &sessions));
    server.ready().await;

    // Disk full: a real tmpfs filled to the brim, or /dev/full where mounting is not allowed.
    let filler = sessions.join("filler.bin");
    if mount.is_some() {
        let mut file = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0u8; 64 * 1024];
        while std::io::Write::write_all(&mut file, &chunk).is_ok() {}
    } else {
        eprintln!("no mount privilege: disk full via /dev/full, read-only case skipped");
        std::os::unix::fs::symlink("/dev/full", sessions.join("full.jsonl")).unwrap();
    }
    let (status, body) = server.command("turn on the light", "full").await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"]["code"], "storage", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("No space left"),
        "{body}"
    );
    assert_eq!(
        llm.requests().len(),
        0,
        "nothing ran for an unsaved command"
    );
    let _ = std::fs::remove_file(&filler);
    let _ = std::fs::remove_file(sessions.join("full.jsonl"));
    llm.push(openai_text("first answer"));
    let (status, body) = server.command("first", "ro").await;
    assert_eq!(status, 200, "space again: {body}");

    let Some(mount) = mount else {
        return;
    };
    // Read-only while a run is in progress: the user's message is stored, the answer cannot be.
    let (gate, reply) = gated(openai_text("second answer"));
    llm.push(reply);
    let pending = send(&server, json!({"text": "second", "session_id": "ro"}), None);
    llm.wait_requests(2).await;
    mount.remount("ro");
    gate.notify_one();
    let (status, body) = pending.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "second answer");
    assert!(
        body["warnings"]
            .to_string()
            .contains("could not be saved yet"),
        "{body}"
    );
    // A new command cannot be stored at all: a clear error, nothing run.
    let (status, body) = server.command("third", "other").await;
    assert_eq!(status, 500, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Read-only"),
        "{body}"
    );
    let (status, _, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200);

    // Writable again: the next exchange saves what could not be saved before.
    mount.remount("rw");
    llm.push(openai_text("third answer"));
    let (status, body) = server.command("third", "ro").await;
    assert_eq!(status, 200, "{body}");
    let on_disk = std::fs::read_to_string(sessions.join("ro.jsonl")).unwrap();
    for text in [
        "first",
        "first answer",
        "second",
        "second answer",
        "third",
        "third answer",
    ] {
        assert!(
            on_disk.contains(&format!("\"{text}\"")),
            "{text} is on disk:\n{on_disk}"
        );
    }
    drop(server);
}
