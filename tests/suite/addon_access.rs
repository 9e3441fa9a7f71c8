//! The add-on's API port as an attacker on the Supervisor's network meets it: the real
//! `homeclaw serve` started as the add-on is (the Supervisor's token in its environment, no
//! `api.token` configured, listening on every interface), a real Home Assistant behind it.
//! Another address without the token, with a wrong one, or replaying an approval id gets
//! nothing run, and each refusal is in Activity; the household's token (made on the first
//! start, kept across restarts, shown in the panel) works. `lock.kitchen_door` is shared with
//! the approval tests, hence their lock.

use std::net::IpAddr;

use serde_json::{Value, json};

use crate::common::ha::shared;
use crate::common::homeclaw::{API_TOKEN, Homeclaw, config_for, with_fast_path};
use crate::common::scripted_llm::ScriptedLlm;
use crate::suite::approvals::{DOOR_TAKEN, door, lock_door};

/// A neighbour on the network: another source address than the household's tools.
const NEIGHBOUR: &str = "127.0.0.2";

/// The add-on's configuration as the tests can run it: the API on every interface with no
/// token set (the add-on's options), the token kept under `dir/data`, the panel behind a
/// loopback "ingress proxy", no Wyoming announcement and no Supervisor broker to look up.
fn addon_config(
    ha: &crate::common::ha::HaInstance,
    llm: &ScriptedLlm,
    dir: &std::path::Path,
) -> String {
    let base = with_fast_path(&config_for(ha, &llm.openai_url(), &dir.join("sessions")));
    let replaced = base
        .replace(
            &format!("api:\n  listen: 127.0.0.1:0\n  token: {API_TOKEN}\n"),
            &format!(
                "api:\n  listen: 0.0.0.0:0\n  token_file: {}\n",
                dir.join("data/api-token").display()
            ),
        )
        .replace(
            "wyoming:\n  listen: 127.0.0.1:0\n",
            "wyoming:\n  enabled: false\n",
        )
        .replace(
            "panel:\n  listen: 127.0.0.1:0\n",
            "panel:\n  listen: 127.0.0.1:0\n  allowed_peers: [127.0.0.1]\n",
        );
    assert!(
        replaced.contains("token_file") && !replaced.contains(API_TOKEN),
        "{replaced}"
    );
    format!("{replaced}mqtt:\n  enabled: false\n")
}

/// `method path` from `from`, with `token` as the bearer if any.
async fn call(
    server: &Homeclaw,
    from: &str,
    token: Option<&str>,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let http = homeclaw::tls::http_builder()
        .local_address(from.parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    let url = format!("{}{path}", server.url.replace("0.0.0.0", "127.0.0.1"));
    let mut request = match &body {
        Some(body) => http.post(url).json(body),
        None => http.get(url),
    };
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn panel_get(server: &Homeclaw, path: &str) -> Value {
    let panel = server.panel.as_ref().expect("the add-on serves its panel");
    homeclaw::tls::http_client()
        .get(format!("http://{panel}{path}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_add_on_api_answers_only_with_its_token() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = addon_config(ha, &llm, dir.path());
    let mut server = Homeclaw::spawn_addon(dir.path(), &config);
    lock_door(ha).await;

    // Made on the first start, private to its owner, never in the log.
    let file = dir.path().join("data/api-token");
    let token = std::fs::read_to_string(&file).unwrap().trim().to_owned();
    assert_eq!(token.len(), 64, "{token}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // The Supervisor's watchdog needs no token.
    let (status, health) = call(
        &server,
        NEIGHBOUR,
        None,
        "/api/health?wait_ready_ms=30000",
        None,
    )
    .await;
    assert_eq!(status, 200, "{health}");

    // A neighbour: no token, a wrong one, on every door in.
    let open = json!({"text": "unlock the kitchen door"});
    let mut refused = 0;
    for (bearer, path, body) in [
        (None, "/api/command", Some(open.clone())),
        (Some("0".repeat(64)), "/api/command", Some(open.clone())),
        (
            None,
            "/api/approve",
            Some(json!({"approval_id": "appr_guessed"})),
        ),
        (
            None,
            "/v1/chat/completions",
            Some(
                json!({"model": "homeclaw", "messages": [{"role": "user", "content": "unlock the kitchen door"}]}),
            ),
        ),
        (None, "/api/sessions/panel-1", None),
    ] {
        let (status, answer) = call(&server, NEIGHBOUR, bearer.as_deref(), path, body).await;
        assert_eq!(status, 401, "{path}: {answer}");
        assert_eq!(answer["error"]["code"], "unauthorized");
        refused += 1;
    }
    assert_eq!(door(ha).await, "locked");

    // The household, with the token: held for approval, approved, run once.
    let (status, held) = call(
        &server,
        NEIGHBOUR,
        Some(&token),
        "/api/command",
        Some(open.clone()),
    )
    .await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["status"], "approval_required", "{held}");
    let id = held["approval_id"].as_str().unwrap().to_owned();
    // The id alone opens nothing.
    let approve = json!({"approval_id": id});
    let (status, _) = call(
        &server,
        NEIGHBOUR,
        None,
        "/api/approve",
        Some(approve.clone()),
    )
    .await;
    assert_eq!(status, 401);
    refused += 1;
    assert_eq!(door(ha).await, "locked");
    let (status, done) = call(
        &server,
        "127.0.0.1",
        Some(&token),
        "/api/approve",
        Some(approve.clone()),
    )
    .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(door(ha).await, "unlocked");

    // Replayed, with or without the token: nothing runs again.
    lock_door(ha).await;
    let (status, _) = call(
        &server,
        NEIGHBOUR,
        None,
        "/api/approve",
        Some(approve.clone()),
    )
    .await;
    assert_eq!(status, 401);
    refused += 1;
    let (status, replay) = call(
        &server,
        NEIGHBOUR,
        Some(&token),
        "/api/approve",
        Some(approve),
    )
    .await;
    assert_eq!(status, 409, "{replay}");
    assert_eq!(replay["error"]["code"], "already_used");
    assert_eq!(door(ha).await, "locked");

    // Every refusal at the door is in Activity: who, what, why.
    let activity = panel_get(&server, "/api/activity").await;
    let refusals: Vec<&Value> = activity["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "refused")
        .collect();
    assert_eq!(refusals.len(), refused, "{activity}");
    assert!(refusals.iter().all(|r| {
        r["status"] == "unauthorized"
            && r["text"]
                .as_str()
                .unwrap()
                .ends_with(&format!("from {NEIGHBOUR}"))
    }));
    assert!(refusals.iter().any(|r| r["reply"] == "wrong token"));
    assert!(refusals.iter().any(|r| r["source"] == "openai"));

    // The panel (behind ingress) shows the household how to connect.
    let access = panel_get(&server, "/api/access").await;
    assert_eq!(access["token"], token.as_str());
    assert_eq!(access["kept_in"], file.display().to_string());
    assert!(!server.log().contains(&token), "the token is never logged");

    // A restart keeps the token: the household's clients keep working.
    server.terminate();
    let server = Homeclaw::spawn_addon(dir.path(), &config);
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    let (status, _) = call(
        &server,
        NEIGHBOUR,
        Some(&token),
        "/api/sessions/panel-1",
        None,
    )
    .await;
    assert_ne!(status, 401);
    let (status, _) = call(&server, NEIGHBOUR, None, "/api/sessions/panel-1", None).await;
    assert_eq!(status, 401);
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
}
