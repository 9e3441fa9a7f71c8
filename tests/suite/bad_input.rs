//! Bad input at every entry point, as one table per entry point: HTTP endpoints (also raw,
//! below HTTP), the MQTT command topic, the Wyoming port, the add-on options file and session
//! files. Each case must get a clear error (a JSON error with a code, an MQTT error reply, a
//! Wyoming `error` event, exit 2 with a message naming the problem, a session that loads with a
//! note), and the process must serve a good request afterwards. The case count is printed.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::ha::shared;
use crate::common::homeclaw::{API_TOKEN, Homeclaw, config_yaml};
use crate::common::mosquitto::{Mosquitto, TestClient};
use crate::common::scripted_llm::{ScriptedLlm, openai_text};

fn is_json_error(body: &Value) -> bool {
    body["error"]["code"]
        .as_str()
        .is_some_and(|c| !c.is_empty())
        && body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
}

/// (method, path, body, expected status)
fn http_cases() -> Vec<(&'static str, String, Vec<u8>, u16)> {
    let command = "/api/command".to_owned();
    let nested = format!("{}{}", "[".repeat(1500), "]".repeat(1500));
    let mut cases: Vec<(&str, String, Vec<u8>, u16)> = vec![
        ("POST", command.clone(), b"{not json".to_vec(), 400),
        ("POST", command.clone(), b"".to_vec(), 400),
        ("POST", command.clone(), b"null".to_vec(), 400),
        ("POST", command.clone(), b"[]".to_vec(), 400),
        ("POST", command.clone(), b"\"turn on\"".to_vec(), 400),
        ("POST", command.clone(), br#"{"text": 5}"#.to_vec(), 400),
        ("POST", command.clone(), br#"{"text": null}"#.to_vec(), 400),
        ("POST", command.clone(), br#"{"text": ["a"]}"#.to_vec(), 400),
        (
            "POST",
            command.clone(),
            br#"{"text": {"$gt": ""}}"#.to_vec(),
            400,
        ),
        ("POST", command.clone(), br#"{"text": "   "}"#.to_vec(), 400),
        ("POST", command.clone(), br#"{"txt": "hi"}"#.to_vec(), 400),
        (
            "POST",
            command.clone(),
            br#"{"text": "hi", "admin": true}"#.to_vec(),
            400,
        ),
        (
            "POST",
            command.clone(),
            br#"{"text": "hi", "session_id": 5}"#.to_vec(),
            400,
        ),
        (
            "POST",
            command.clone(),
            br#"{"text": "hi", "session_id": "../../etc/passwd"}"#.to_vec(),
            400,
        ),
        (
            "POST",
            command.clone(),
            br#"{"text": "hi", "session_id": "a b"}"#.to_vec(),
            400,
        ),
        (
            "POST",
            command.clone(),
            format!(r#"{{"text": "hi", "session_id": "{}"}}"#, "s".repeat(65)).into_bytes(),
            400,
        ),
        (
            "POST",
            command.clone(),
            br#"{"text": "hi", "dry_run": "yes"}"#.to_vec(),
            400,
        ),
        (
            "POST",
            command.clone(),
            br#"{"text": "a", "text": "b"}"#.to_vec(),
            400,
        ),
        ("POST", command.clone(), br#"{"text": 1e999}"#.to_vec(), 400),
        (
            "POST",
            command.clone(),
            b"{\"text\": \"\xff\xfe\"}".to_vec(),
            400,
        ),
        ("POST", command.clone(), b"{\"text\": \"hi\"".to_vec(), 400),
        ("POST", command.clone(), nested.clone().into_bytes(), 400),
        (
            "POST",
            command.clone(),
            format!(r#"{{"text": "{}"}}"#, "x".repeat(5000)).into_bytes(),
            413,
        ),
        ("POST", "/api/approve".into(), b"{}".to_vec(), 400),
        (
            "POST",
            "/api/approve".into(),
            br#"{"approval_id": 5}"#.to_vec(),
            400,
        ),
        (
            "POST",
            "/api/approve".into(),
            br#"{"approval_id": "a", "run": "lock.unlock"}"#.to_vec(),
            400,
        ),
        (
            "POST",
            "/api/approve".into(),
            br#"{"approval_id": "appr_unknown"}"#.to_vec(),
            404,
        ),
        ("POST", "/api/approve".into(), b"]".to_vec(), 400),
        (
            "POST",
            "/v1/chat/completions".into(),
            br#"{"messages": []}"#.to_vec(),
            400,
        ),
        (
            "POST",
            "/v1/chat/completions".into(),
            br#"{"messages": "hi"}"#.to_vec(),
            400,
        ),
        (
            "POST",
            "/v1/chat/completions".into(),
            br#"{"messages": [{"role": "system", "content": "obey"}]}"#.to_vec(),
            400,
        ),
        (
            "POST",
            "/v1/chat/completions".into(),
            br#"{"messages": [{"role": "user", "content": 5}]}"#.to_vec(),
            400,
        ),
        (
            "POST",
            "/v1/chat/completions".into(),
            br#"{"messages": [{"role": "user", "content": "hi"}], "stream": "yes"}"#.to_vec(),
            400,
        ),
        ("POST", "/v1/chat/completions".into(), b"{".to_vec(), 400),
        ("GET", "/api/sessions/..%2F..%2Fetc".into(), Vec::new(), 400),
        (
            "GET",
            format!("/api/sessions/{}", "s".repeat(100)),
            Vec::new(),
            400,
        ),
        ("GET", "/api/sessions/never-seen".into(), Vec::new(), 404),
        ("GET", "/api/sessions/%00".into(), Vec::new(), 400),
        (
            "GET",
            "/api/health?wait_ready_ms=abc".into(),
            Vec::new(),
            400,
        ),
        (
            "GET",
            "/api/health?wait_ready_ms=-5".into(),
            Vec::new(),
            400,
        ),
        ("GET", "/api/command".into(), Vec::new(), 405),
        ("DELETE", "/api/sessions/x".into(), Vec::new(), 405),
        ("POST", "/api/nothing".into(), b"{}".to_vec(), 404),
        ("GET", "/%ff%fe".into(), Vec::new(), 404),
    ];
    // Same bodies at the other command entry point.
    cases.push((
        "POST",
        "/v1/chat/completions".into(),
        nested.into_bytes(),
        400,
    ));
    cases
}

/// Raw bytes below HTTP: (request bytes, the statuses one of which must come back; `None`:
/// the connection may just be dropped).
fn raw_http_cases(token: &str) -> Vec<(Vec<u8>, Option<&'static [u16]>)> {
    vec![
        (b"HELLO\r\n\r\n".to_vec(), Some(&[400])),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03".to_vec(), None),
        (
            format!(
                "POST /api/command HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"text\": \"tr"
            )
            .into_bytes(),
            None,
        ),
        (
            format!(
                "POST /api/command HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 99999999999999999999\r\n\r\n"
            )
            .into_bytes(),
            Some(&[400, 413]),
        ),
        (
            format!(
                "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Flood: {}\r\n\r\n",
                "a".repeat(200_000)
            )
            .into_bytes(),
            // hyper drops the connection (431 may be lost to the reset of unread bytes).
            None,
        ),
        (
            b"GET /api/sessions/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\nConnection: close\r\n\r\n"
                .to_vec(),
            Some(&[401]),
        ),
        (
            format!(
                "POST /api/command HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
            )
            .into_bytes(),
            Some(&[400]),
        ),
    ]
}

/// Sends `bytes` and reads what comes back until the server closes (bounded). With
/// `half_close` the write side is closed after sending: a client that went away mid-request.
fn raw_exchange(addr: &str, bytes: &[u8], half_close: bool) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = stream.write_all(bytes);
    if half_close {
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

fn mqtt_cases() -> Vec<Vec<u8>> {
    vec![
        vec![0xff, 0xfe, 0x00],
        b"{\"text\": ".to_vec(),
        vec![b'x'; 2048],
        b"".to_vec(),
        b"   \n\t".to_vec(),
        b"{\"text\": 42}".to_vec(),
        b"{\"text\": \"\"}".to_vec(),
        b"{\"text\": null}".to_vec(),
        b"[]".to_vec(),
        b"null".to_vec(),
        b"{\"text\": \"hi\", \"reply_to\": \"steal/#\"}".to_vec(),
        b"{\"text\": \"hi\", \"reply_to\": \"$SYS/broker\"}".to_vec(),
        b"{\"text\": \"hi\", \"request_id\": 5}".to_vec(),
        b"{\"text\": \"hi\", \"session_id\": \"../../x\"}".to_vec(),
        b"{\"text\": \"hi\", \"unknown\": true}".to_vec(),
        format!("{}{}", "[".repeat(300), "]".repeat(300)).into_bytes(),
    ]
}

/// (bytes, the first event type expected back; "" = none: unknown events are ignored).
fn wyoming_cases() -> Vec<(Vec<u8>, &'static str)> {
    vec![
        (b"this is not json\n".to_vec(), "error"),
        (b"{\"type\": 5}\n".to_vec(), "error"),
        (b"{}\n".to_vec(), "error"),
        (b"[1, 2]\n".to_vec(), "error"),
        (b"\xff\xfe\n".to_vec(), "error"),
        (vec![b'{'; 70 * 1024], "error"),
        (
            b"{\"type\": \"transcript\", \"data_length\": -1}\n".to_vec(),
            "error",
        ),
        (
            b"{\"type\": \"transcript\", \"data_length\": 999999999}\n".to_vec(),
            "error",
        ),
        (
            b"{\"type\": \"transcript\", \"data_length\": 40}\n{\"te".to_vec(),
            "error",
        ),
        (
            b"{\"type\": \"transcript\", \"data_length\": 5}\nnotjs".to_vec(),
            "error",
        ),
        (
            b"{\"type\": \"audio-chunk\", \"payload_length\": 99999999}\n".to_vec(),
            "error",
        ),
        (
            b"{\"type\": \"transcript\", \"data\": \"x\"}\n".to_vec(),
            "error",
        ),
        (b"{\"type\": \"describe\"".to_vec(), "error"),
        (
            b"{\"type\": \"transcript\", \"data\": {\"text\": 5}}\n".to_vec(),
            "not-handled",
        ),
        (
            b"{\"type\": \"transcript\", \"data\": {\"text\": \"   \"}}\n".to_vec(),
            "not-handled",
        ),
        (b"{\"type\": \"no-such-event\"}\n".to_vec(), ""),
        (b"".to_vec(), ""),
    ]
}

/// (options.json content, a word the error must contain)
fn options_cases() -> Vec<(Vec<u8>, &'static str)> {
    vec![
        (b"{".to_vec(), "options"),
        (b"".to_vec(), "options"),
        (b"null".to_vec(), "options"),
        (b"[]".to_vec(), "options"),
        (b"\xff\xfe{}".to_vec(), "options"),
        (br#"{"nope": 1}"#.to_vec(), "nope"),
        (br#"{"llm": {"models": "x"}}"#.to_vec(), "models"),
        (
            br#"{"llm": {"models": [{"provider": "skynet"}]}}"#.to_vec(),
            "skynet",
        ),
        (
            br#"{"api": {"max_body_bytes": -1}}"#.to_vec(),
            "max_body_bytes",
        ),
        (
            br#"{"api": {"listen": "not an address"}}"#.to_vec(),
            "listen",
        ),
        (
            br#"{"agent": {"max_iterations": 0}}"#.to_vec(),
            "max_iterations",
        ),
        (br#"{"ha": {"url": 5}}"#.to_vec(), "url"),
        (br#"{"log": {"level": "loud=="}}"#.to_vec(), "log.level"),
        (
            br#"{"exposure": {"service_allow_dangerous": "*"}}"#.to_vec(),
            "service_allow_dangerous",
        ),
    ]
}

/// (session id, file content, whether a note about the damage is expected)
fn session_cases() -> Vec<(&'static str, Vec<u8>)> {
    let good = r#"{"v":1,"role":"user","content":"turn on the light"}"#;
    vec![
        (
            "torn",
            format!("{good}\n{{\"v\":1,\"role\":\"assi").into_bytes(),
        ),
        ("junk", b"\x00\x01\x02\xff\xfe binary junk\n".to_vec()),
        ("shape", b"{\"v\":1}\n".to_vec()),
        (
            "role",
            b"{\"v\":1,\"role\":\"root\",\"content\":\"x\"}\n".to_vec(),
        ),
        ("array", b"[1,2,3]\n".to_vec()),
        ("empty", Vec::new()),
        ("blank", b"\n\n\n".to_vec()),
        ("bom", format!("\u{feff}{good}\n").into_bytes()),
        (
            "huge",
            format!(
                "{{\"v\":1,\"role\":\"user\",\"content\":\"{}\"}}\n",
                "x".repeat(300_000)
            )
            .into_bytes(),
        ),
        ("middle", format!("{good}\nnot json\n{good}\n").into_bytes()),
        ("nul", format!("{good}\n\0\0\0\0\n").into_bytes()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_entry_point_rejects_bad_input_clearly_and_stays_healthy() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let broker_dir = dir.path().join("broker");
    std::fs::create_dir_all(&broker_dir).unwrap();
    let broker = Mosquitto::start(&broker_dir);
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for (id, content) in session_cases() {
        std::fs::write(sessions.join(format!("{id}.jsonl")), content).unwrap();
    }
    // A directory where a session file should be.
    std::fs::create_dir_all(sessions.join("dir.jsonl")).unwrap();
    let extra = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  client_id: homeclaw-bad-{}\n  discovery: false\n  max_payload_bytes: 1024\n",
        broker.port,
        fastrand::u32(..)
    );
    let config = config_yaml(
        &ha.ws_url(),
        &ha.token,
        &llm.openai_url(),
        &sessions,
        &extra,
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let mut counts: Vec<(&str, usize)> = Vec::new();

    // HTTP.
    let http = homeclaw::tls::http_client();
    let mut n = 0;
    for (method, path, body, status) in http_cases() {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let response = http
            .request(method.clone(), format!("{}{path}", server.url))
            .bearer_auth(API_TOKEN)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let got = response.status().as_u16();
        let text = response.text().await.unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert_eq!(
            got,
            status,
            "{method} {path} {}: {text}",
            String::from_utf8_lossy(&body)
                .chars()
                .take(80)
                .collect::<String>()
        );
        assert!(
            is_json_error(&parsed),
            "{method} {path}: not a JSON error: {text}"
        );
        n += 1;
    }
    let addr = server.url.trim_start_matches("http://").to_owned();
    for (bytes, status) in raw_http_cases(API_TOKEN) {
        let answer = raw_exchange(&addr, &bytes, status.is_none());
        if let Some(statuses) = status {
            assert!(
                statuses
                    .iter()
                    .any(|s| answer.starts_with(&format!("HTTP/1.1 {s}"))),
                "{:?}: {answer}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(60)])
            );
        }
        n += 1;
    }
    let (status, _, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200);
    counts.push(("http", n));

    // MQTT.
    let mut client =
        TestClient::connect(broker.port, "bad-input-client", &["homeclaw/reply"]).await;
    let cases = mqtt_cases();
    for payload in &cases {
        client.publish("homeclaw/command", payload.clone()).await;
        let reply = client.next_on("homeclaw/reply", 30, |_| true).await.json();
        assert_eq!(reply["status"], "failed", "{payload:?}: {reply}");
        assert!(is_json_error(&reply), "{payload:?}: {reply}");
    }
    llm.push(openai_text("Still here."));
    client.publish("homeclaw/command", "are you alive").await;
    let reply = client.next_on("homeclaw/reply", 30, |_| true).await.json();
    assert_eq!(reply["reply"], "Still here.", "{reply}");
    counts.push(("mqtt", cases.len()));

    // Wyoming.
    let wyoming = server.wyoming.clone().unwrap();
    let cases = wyoming_cases();
    for (bytes, expected) in &cases {
        let wy = wyoming.clone();
        let bytes2 = bytes.clone();
        let answer = tokio::task::spawn_blocking(move || raw_exchange(&wy, &bytes2, true))
            .await
            .unwrap();
        let first: Value = answer
            .lines()
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .unwrap_or(Value::Null);
        let kind = first["type"].as_str().unwrap_or_default();
        assert_eq!(
            kind,
            *expected,
            "{:?}: {answer}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(60)])
        );
    }
    let wy = wyoming.clone();
    let info =
        tokio::task::spawn_blocking(move || raw_exchange(&wy, b"{\"type\": \"describe\"}\n", true))
            .await
            .unwrap();
    assert!(info.contains("\"info\""), "{info}");
    counts.push(("wyoming", cases.len()));

    // Session files: each loads (damage cut off or set aside with a note), none stops the
    // process; a command in a damaged session works and carries the note.
    let cases = session_cases();
    for (id, _) in &cases {
        let (status, body, _) = server
            .request("GET", &format!("/api/sessions/{id}"), None, &[])
            .await;
        assert_eq!(status, 200, "{id}: {body}");
        assert!(body["messages"].is_array(), "{id}: {body}");
        if ["torn", "junk", "shape", "role", "array", "middle", "nul"].contains(id) {
            assert!(
                body["warnings"].is_array(),
                "{id}: the damage is reported: {body}"
            );
        }
    }
    let (status, body, _) = server.request("GET", "/api/sessions/dir", None, &[]).await;
    assert_eq!(status, 500, "{body}");
    assert!(is_json_error(&body), "{body}");
    llm.push(openai_text("Fresh start."));
    let (status, body) = server.command("hello again", "junk").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reply"], "Fresh start.");
    assert!(
        body["warnings"].to_string().contains("set aside"),
        "the user is told: {body}"
    );
    counts.push(("session files", cases.len() + 1));

    // options.json: the binary refuses to start with exit 2 and a message naming the problem.
    let cases = options_cases();
    let minimal = dir.path().join("minimal.yaml");
    std::fs::write(
        &minimal,
        format!(
            "ha:\n  url: {}\n  token: abcdefgh\nllm:\n  models:\n    - name: m\n      provider: openai\n      base_url: {}\n      model: x\n",
            ha.ws_url(),
            llm.openai_url()
        ),
    )
    .unwrap();
    for (content, word) in &cases {
        let path = dir.path().join("bad-options.json");
        std::fs::write(&path, content).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_homeclaw"))
            .args(["--config", minimal.to_str().unwrap()])
            .args(["--options", path.to_str().unwrap(), "check"])
            .env_remove("SUPERVISOR_TOKEN")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{content:?}: {stderr}");
        assert!(
            stderr.contains(word),
            "{content:?} should name {word}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    counts.push(("options.json", cases.len()));

    // Still healthy after all of it.
    let (status, health, _) = server.request("GET", "/api/health", None, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(health["home_assistant"]["state"], "connected");
    llm.push(openai_text("All good."));
    let (status, body) = server
        .post_json("/api/command", &json!({"text": "are you ok"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    crate::common::report(&format!("bad inputs tried: {total} ({counts:?})"));
}
