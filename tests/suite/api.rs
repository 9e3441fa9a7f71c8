//! The HTTP API and the CLI over real HTTP: HomeClaw as a spawned binary, the real Home
//! Assistant, and the scripted LLM server.

use std::process::Command;

use serde_json::{Value, json};

use crate::common::ha::{HaInstance, shared};
use crate::common::homeclaw::{API_TOKEN, Homeclaw, config_for, config_yaml};
use crate::common::scripted_llm::{Reply, ScriptedLlm, openai_calls, openai_text};

struct Setup {
    ha: &'static HaInstance,
    llm: ScriptedLlm,
    server: Homeclaw,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let server = Homeclaw::spawn(dir.path(), &config_for(ha, &llm.openai_url(), &sessions));
    let health = server.ready().await;
    assert_eq!(health["home_assistant"]["state"], "connected", "{health}");
    Setup {
        ha,
        llm,
        server,
        _dir: dir,
    }
}

async fn ha_state(ha: &HaInstance, entity: &str) -> String {
    let (_, state) = ha.rest("GET", &format!("/api/states/{entity}"), None).await;
    state["state"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_is_open_and_everything_else_needs_the_token() {
    let s = setup().await;
    let (status, body, headers) = s
        .server
        .request(
            "GET",
            "/api/health",
            None,
            &[("authorization", "Bearer wrong")],
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["registry"]["synced"], true);
    assert_eq!(body["llm"]["models"], json!(["scripted"]));
    assert!(headers.contains_key("x-request-id"));

    for auth in ["", "Bearer wrong-token-of-some-length", "Basic abc"] {
        let (status, body, _) = s
            .server
            .request(
                "POST",
                "/api/command",
                Some(r#"{"text": "hi"}"#),
                &[("authorization", auth)],
            )
            .await;
        assert_eq!(status, 401, "{auth}: {body}");
        assert_eq!(body["error"]["code"], "unauthorized");
    }
    let (status, _, headers) = s
        .server
        .request("GET", "/v1/models", None, &[("x-request-id", "my-req-42")])
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["x-request-id"], "my-req-42");
    assert!(
        !s.server.log().contains(API_TOKEN),
        "the token leaked into the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_runs_end_to_end_with_verified_actions_trace_and_stats() {
    let s = setup().await;
    // light.entrance_color_white_lights belongs to this test.
    s.ha.rest(
        "POST",
        "/api/services/light/turn_off",
        Some(json!({"entity_id": "light.entrance_color_white_lights"})),
    )
    .await;
    s.llm.push(openai_calls(&[(
        "c1",
        "call_service",
        json!({"domain": "light", "service": "turn_on", "entity_id": "light.entrance_color_white_lights"}),
    )]));
    s.llm.push(openai_text("The entrance light is on."));
    let (status, body) = s
        .server
        .post_json(
            "/api/command",
            &json!({"text": "turn on the entrance light", "session_id": "api-e2e"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "done");
    // HomeClaw says what it verified, not the model's sentence.
    assert_eq!(body["reply"], "Turned on Entrance Color + White Lights.");
    assert_eq!(body["session_id"], "api-e2e");
    assert_eq!(body["actions"][0]["verified"], true, "{body}");
    assert_eq!(
        body["actions"][0]["observed_state"]["light.entrance_color_white_lights"],
        "on"
    );
    assert!(!body["trace"].as_array().unwrap().is_empty());
    assert_eq!(body["stats"]["tool_calls"], 1);
    assert_eq!(body["stats"]["model_used"], "scripted");
    assert_eq!(
        ha_state(s.ha, "light.entrance_color_white_lights").await,
        "on"
    );

    // The session is stored, with secrets redacted.
    let (status, session, _) = s
        .server
        .request("GET", "/api/sessions/api-e2e", None, &[])
        .await;
    assert_eq!(status, 200);
    let messages = session["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "user");
    assert!(messages.iter().any(|m| m["role"] == "tool"));
    let (status, _, _) = s
        .server
        .request("GET", "/api/sessions/nope", None, &[])
        .await;
    assert_eq!(status, 404);
    let (status, _, _) = s
        .server
        .request("GET", "/api/sessions/bad%20id", None, &[])
        .await;
    assert_eq!(status, 400);
    // The LLM key never reached the model's view or the session file.
    assert!(!session.to_string().contains("sk-test-llm-key"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotent_retry_returns_the_first_result_and_calls_home_assistant_once() {
    let s = setup().await;
    // switch.ac belongs to this test; toggling twice would put it back.
    let before = ha_state(s.ha, "switch.ac").await;
    s.llm.push(openai_calls(&[(
        "c1",
        "call_service",
        json!({"domain": "switch", "service": "toggle", "entity_id": "switch.ac"}),
    )]));
    s.llm.push(openai_text("Toggled the AC."));
    let body = r#"{"text": "toggle the ac", "session_id": "idem-1"}"#;
    let key = [("idempotency-key", "retry-me-1")];
    let (first_status, first, _) = s
        .server
        .request("POST", "/api/command", Some(body), &key)
        .await;
    assert_eq!(first_status, 200, "{first}");
    let (second_status, second, headers) = s
        .server
        .request("POST", "/api/command", Some(body), &key)
        .await;
    assert_eq!(second_status, 200);
    assert_eq!(second, first);
    assert_eq!(headers["idempotent-replay"], "true");
    assert_eq!(
        s.llm.requests().len(),
        2,
        "the retry did not run the agent again"
    );
    let after = ha_state(s.ha, "switch.ac").await;
    assert_ne!(after, before, "toggled exactly once");
    // The same key with another body is refused.
    let (status, err, _) = s
        .server
        .request("POST", "/api/command", Some(r#"{"text": "other"}"#), &key)
        .await;
    assert_eq!(status, 422, "{err}");
}

/// With the fast path on, a command that names one device and one intent runs against the real
/// Home Assistant without a single model request, and the reply comes from what Home Assistant
/// showed afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fast_path_acts_without_the_model_and_answers_from_verification() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(ha, &llm.openai_url(), &dir.path().join("sessions"))
        .replace("fast_path: false", "fast_path: true");
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    // cover.kitchen_window belongs to this test.
    ha.rest(
        "POST",
        "/api/services/cover/open_cover",
        Some(json!({"entity_id": "cover.kitchen_window"})),
    )
    .await;
    let (status, body) = server.command("Close the kitchen window", "fast-1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "done", "{body}");
    assert_eq!(body["stats"]["rounds"], 0, "{body}");
    assert!(llm.requests().is_empty(), "the model was asked");
    assert_eq!(body["actions"][0]["domain"], "cover", "{body}");
    assert_eq!(body["actions"][0]["service"], "close_cover", "{body}");
    assert_eq!(body["actions"][0]["entity_ids"][0], "cover.kitchen_window");
    let reply = body["reply"].as_str().unwrap();
    assert!(reply.contains("Kitchen Window"), "{reply}");
    let state = ha_state(ha, "cover.kitchen_window").await;
    assert!(["closing", "closed"].contains(&state.as_str()), "{state}");
    // Not resolvable without the model: it goes to the model (which has nothing scripted).
    let (status, body) = server.command("make the kitchen cosy", "fast-2").await;
    assert!(!llm.requests().is_empty(), "{status} {body}");
}

/// A client gives up while its keyed command runs (a timeout, a dropped connection) and retries
/// with the same key: the retry waits for the first run and gets its answer, and the command
/// runs once — the first run is not cancelled with the client's connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_while_the_first_request_still_runs_gets_its_answer() {
    let s = setup().await;
    // light.office_rgbw_lights belongs to this test.
    let light = "light.office_rgbw_lights";
    let before = ha_state(s.ha, light).await;
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    s.llm.push(Reply::Gate(
        gate.clone(),
        Box::new(openai_calls(&[(
            "c1",
            "call_service",
            json!({"domain": "light", "service": "toggle", "entity_id": light}),
        )])),
    ));
    s.llm.push(openai_text("Toggled the office lights."));
    let body = r#"{"text": "toggle the office lights", "session_id": "idem-wait"}"#;
    let key = [("idempotency-key", "give-up-and-retry")];
    tokio::select! {
        _ = s.server.request("POST", "/api/command", Some(body), &key) => {
            panic!("the first request cannot finish before the gate opens")
        }
        // The model has the first request: the client gives up (its request is dropped).
        _ = s.llm.wait_requests(1) => {}
    }
    let retry = s.server.request("POST", "/api/command", Some(body), &key);
    gate.notify_one();
    let (status, answer, headers) = retry.await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(headers["idempotent-replay"], "true");
    assert_eq!(answer["reply"], "Toggled Office RGBW Lights.", "{answer}");
    assert_eq!(s.llm.requests().len(), 2, "the command ran once");
    assert_ne!(ha_state(s.ha, light).await, before, "toggled exactly once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_clear_json_errors() {
    let s = setup().await;
    let big = format!(r#"{{"text": "{}"}}"#, "x".repeat(5000));
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("/api/command", "{not json".into(), 400, "invalid_json"),
        (
            "/api/command",
            r#"{"text": 5}"#.into(),
            400,
            "invalid_fields",
        ),
        (
            "/api/command",
            r#"{"txt": "hi"}"#.into(),
            400,
            "invalid_fields",
        ),
        (
            "/api/command",
            r#"{"text": "   "}"#.into(),
            400,
            "invalid_fields",
        ),
        (
            "/api/command",
            r#"{"text": "hi", "session_id": "../../etc"}"#.into(),
            400,
            "invalid_session_id",
        ),
        (
            "/api/command",
            r#"{"text": "turn off the light", "device_id": "no such device"}"#.into(),
            400,
            "invalid_fields",
        ),
        (
            "/api/command",
            r#"{"text": "turn off the light", "device_id": "0123456789abcdef0123456789abcdef"}"#
                .into(),
            400,
            "invalid_fields",
        ),
        ("/api/command", big, 413, "too_large"),
        (
            "/api/approve",
            r#"{"approval_id": "appr_nope"}"#.into(),
            404,
            "unknown_approval",
        ),
        (
            "/v1/chat/completions",
            r#"{"messages": []}"#.into(),
            400,
            "invalid_fields",
        ),
        ("/api/nothing-here", "{}".into(), 404, "not_found"),
    ];
    for (path, body, status, code) in cases {
        let (got, err, _) = s.server.request("POST", path, Some(&body), &[]).await;
        assert_eq!(got, status, "{path} {body:.60}: {err}");
        assert_eq!(err["error"]["code"], code, "{path}: {err}");
        assert!(
            err["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    // Nothing was asked of the model for any of them.
    assert!(s.llm.requests().is_empty());
    // Still healthy.
    let (status, _, _) = s.server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn self_check_passes() {
    let s = setup().await;
    let (status, body, _) = s.server.request("GET", "/api/self-check", None, &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ok"], true);
    assert!(body["checks"].as_array().unwrap().len() >= 15);
    // The log goes to a file here, as it goes to the Supervisor's log viewer in the add-on:
    // plain text, no terminal colour codes.
    let log = s.server.log();
    assert!(log.contains("INFO"), "{log}");
    assert!(
        !log.contains('\x1b'),
        "colour codes in a log that is not a terminal: {log:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_runs_the_recorded_action_once() {
    let s = setup().await;
    // lock.openable_lock belongs to this test.
    s.ha.rest(
        "POST",
        "/api/services/lock/lock",
        Some(json!({"entity_id": "lock.openable_lock"})),
    )
    .await;
    s.llm.push(openai_calls(&[(
        "c1",
        "call_service",
        json!({"domain": "lock", "service": "unlock", "entity_id": "lock.openable_lock"}),
    )]));
    let (status, body) = s
        .server
        .post_json("/api/command", &json!({"text": "unlock the openable lock"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "approval_required");
    let id = body["approval_id"].as_str().unwrap().to_owned();
    assert_eq!(ha_state(s.ha, "lock.openable_lock").await, "locked");
    let (status, approved) = s
        .server
        .post_json("/api/approve", &json!({"approval_id": id}))
        .await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["actions"][0]["verified"], true, "{approved}");
    assert_eq!(ha_state(s.ha, "lock.openable_lock").await, "unlocked");
    // The approval ran in the session that asked for it: its history says so.
    let session = body["session_id"].as_str().unwrap();
    assert_eq!(approved["session_id"], session, "{approved}");
    let (status, stored, _) = s
        .server
        .request("GET", &format!("/api/sessions/{session}"), None, &[])
        .await;
    assert_eq!(status, 200, "{stored}");
    let last = stored["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "assistant", "{stored}");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .starts_with("Unlocked Openable Lock"),
        "{stored}"
    );
    let (status, again) = s
        .server
        .post_json("/api/approve", &json!({"approval_id": id}))
        .await;
    assert_eq!(status, 409, "{again}");
    s.ha.rest(
        "POST",
        "/api/services/lock/lock",
        Some(json!({"entity_id": "lock.openable_lock"})),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_front_answers_plain_and_streaming() {
    let s = setup().await;
    s.llm.push(openai_text("Hello from HomeClaw."));
    let (status, body) = s
        .server
        .post_json(
            "/v1/chat/completions",
            &json!({"model": "homeclaw", "messages": [{"role": "user", "content": "hello"}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "Hello from HomeClaw."
    );

    s.llm
        .push(openai_text("Streaming works fine for long enough replies."));
    let response = homeclaw::tls::http_client()
        .post(format!("{}/v1/chat/completions", s.server.url))
        .bearer_auth(API_TOKEN)
        .json(
            &json!({"model": "homeclaw", "stream": true, "user": "stream-test",
            "messages": [{"role": "user", "content": "say something"}]}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    let mut content = String::new();
    let mut done = false;
    for line in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
        if line == "[DONE]" {
            done = true;
            continue;
        }
        let chunk: Value = serde_json::from_str(line).unwrap();
        content.push_str(
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .unwrap_or_default(),
        );
    }
    assert!(done);
    assert_eq!(content, "Streaming works fine for long enough replies.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_home_assistant_is_503_and_an_exhausted_llm_is_504() {
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = config_yaml(
        &format!("ws://127.0.0.1:{port}/api/websocket"),
        "x",
        &llm.openai_url(),
        &dir.path().join("sessions"),
        "",
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    let (status, body) = server
        .post_json("/api/command", &json!({"text": "hi"}))
        .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "ha_unavailable");

    let s = setup().await;
    s.llm.push(Reply::Status {
        status: 401,
        body: "no".into(),
        retry_after: None,
    });
    let (status, body) = s
        .server
        .post_json("/api/command", &json!({"text": "hello"}))
        .await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["error"]["code"], "llm_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_exit_codes_say_what_happened() {
    let s = setup().await;
    // 0: done and verified.
    s.llm.push(openai_calls(&[(
        "c1",
        "call_service",
        json!({"domain": "fan", "service": "turn_on", "entity_id": "fan.ceiling_fan"}),
    )]));
    s.llm.push(openai_text("The ceiling fan is on."));
    let (code, out) = run_ask(&s.server, &["turn on the ceiling fan"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Turned on Ceiling Fan."), "{out}");
    s.ha.rest(
        "POST",
        "/api/services/fan/turn_off",
        Some(json!({"entity_id": "fan.ceiling_fan"})),
    )
    .await;

    // 21: clarification.
    s.llm.push(openai_text("Which fan do you mean?"));
    let (code, out) = run_ask(&s.server, &["turn on the fan"]).await;
    assert_eq!(code, Some(21), "{out}");

    // 22: approval.
    s.llm.push(openai_calls(&[(
        "c2",
        "call_service",
        json!({"domain": "lock", "service": "unlock", "entity_id": "lock.poorly_installed_door"}),
    )]));
    let (code, out) = run_ask(&s.server, &["unlock the poorly installed door", "--json"]).await;
    assert_eq!(code, Some(22), "{out}");
    assert!(out.contains("approval_required"));

    // 23: accepted but not verified (the demo's poorly installed door jams when locked).
    s.llm.push(openai_calls(&[(
        "c3",
        "call_service",
        json!({"domain": "lock", "service": "lock", "entity_id": "lock.poorly_installed_door"}),
    )]));
    s.llm.push(openai_text("The door is locked."));
    let (code, out) = run_ask(
        &s.server,
        &["lock the poorly installed door", "--show-trace"],
    )
    .await;
    assert_eq!(code, Some(23), "{out}");
    assert!(out.contains("could not confirm"), "{out}");

    // 1: no server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = Command::new(env!("CARGO_BIN_EXE_homeclaw"))
        .args([
            "--config",
            s.server.config.to_str().unwrap(),
            "ask",
            "--url",
        ])
        .arg(format!("http://127.0.0.1:{port}"))
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot reach HomeClaw"));
    // Put the door back.
    s.ha.rest(
        "POST",
        "/api/services/lock/unlock",
        Some(json!({"entity_id": "lock.poorly_installed_door"})),
    )
    .await;
}

async fn run_ask(server: &Homeclaw, args: &[&str]) -> (Option<i32>, String) {
    let config = server.config.clone();
    let url = server.url.clone();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let out = Command::new(env!("CARGO_BIN_EXE_homeclaw"))
            .args(["--config", config.to_str().unwrap(), "ask", "--url", &url])
            .args(&args)
            .output()
            .unwrap();
        (
            out.status.code(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_shuts_down_cleanly() {
    let mut s = setup().await;
    let status = s.server.terminate();
    assert!(status.success(), "{status:?}\n{}", s.server.log());
    assert!(s.server.log().contains("Shut down cleanly"));
}

/// kill -9 while a run waits for the model: the acknowledged user message survives and the
/// session continues after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_run_loses_no_acknowledged_message() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let config = config_for(ha, &llm.openai_url(), &sessions);
    let mut server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    llm.push(openai_text("first answer"));
    let (status, _) = server
        .post_json(
            "/api/command",
            &json!({"text": "first", "session_id": "crashy"}),
        )
        .await;
    assert_eq!(status, 200);
    // The next reply never comes: the run is in progress when we kill the process.
    llm.push(Reply::Delay(
        std::time::Duration::from_secs(120),
        Box::new(openai_text("late")),
    ));
    let url = server.url.clone();
    let pending = tokio::spawn(async move {
        let _ = homeclaw::tls::http_client()
            .post(format!("{url}/api/command"))
            .bearer_auth(API_TOKEN)
            .json(&json!({"text": "second", "session_id": "crashy"}))
            .send()
            .await;
    });
    llm.wait_requests(2).await;
    server.kill9();
    let _ = pending.await;

    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let (_, session, _) = server
        .request("GET", "/api/sessions/crashy", None, &[])
        .await;
    let users: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(users, vec!["first", "second"], "{session}");
    llm.push(openai_text("third answer"));
    let (status, body) = server
        .post_json(
            "/api/command",
            &json!({"text": "third", "session_id": "crashy"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "third answer");
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
}

/// A local text model's prompt cache is warmed once Home Assistant's registry is loaded: one
/// request of a single token whose system text is the prefix of every command's, so that the
/// person's first command does not pay for reading the rules and the tool catalogue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_text_model_is_warmed_with_the_prompt_s_fixed_part() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    llm.push(openai_text("{\"answer\": \"hi\"}"));
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "llm:\n  max_attempts: 1\n  models:\n    - name: local\n      provider: openai\n      base_url: {}\n      model: scripted\n      native_tools: false\n",
        llm.openai_url()
    );
    let config = crate::common::homeclaw::config_with_llm(
        &ha.ws_url(),
        &ha.token,
        &text,
        &dir.path().join("sessions"),
        "",
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    llm.wait_requests(1).await;
    let warm = llm.requests().remove(0).body;
    assert_eq!(warm["max_tokens"], 1, "{warm}");
    let fixed = warm["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(fixed.contains("You can use tools"), "{fixed}");
    // A command's request starts with the same text: the cache serves it.
    llm.push(openai_text(
        r#"{"name": "get_state", "arguments": {"entity_id": "light.bed_light"}}"#,
    ));
    let (status, body) = server.command("is the bed light on?", "warm-1").await;
    assert_eq!(status, 200, "{body}");
    let asked = llm.requests().remove(1).body;
    let system = asked["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with(fixed.trim_end()),
        "the fixed part changed:\n{fixed}\n---\n{system}"
    );
    assert_ne!(asked["max_tokens"], 1);
    // A model that does not ask for it (native tools, a hosted provider's way) is not warmed:
    // the shared setup's server made no request of its own.
    let s = setup().await;
    let (_, health, _) = s.server.request("GET", "/api/health", None, &[]).await;
    assert!(
        health["llm"]["health"][0].get("prompt_cache").is_none(),
        "{health}"
    );
    assert!(s.llm.requests().is_empty());
}
