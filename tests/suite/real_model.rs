//! Smoke test on the real local model (Qwen2.5-Coder-1.5B via llama.cpp, installed from PyPI by
//! `scripts/llm-dev.sh`), through HomeClaw's text fallback, against the real Home Assistant.
//!
//! The model makes mistakes (invented entity ids, wrong services); the assertions are about
//! HomeClaw's honesty with it, not about the model being right: every action reported as
//! verified really shows in Home Assistant, and nothing unverified is reported as done.
//! Skipped, loudly, only when the model packages cannot be installed.

use std::process::Command;

use serde_json::{Value, json};

use crate::common::ha::shared;
use crate::common::homeclaw::Homeclaw;

fn start_model() -> Option<String> {
    let out = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/llm-dev.sh"))
        .arg("start")
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "\n!!!! SKIPPING the real-model smoke test: scripts/llm-dev.sh could not install or \
             start the model:\n{}\n!!!!",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("LLM_URL=").map(str::to_owned))
}

async fn check_honest(ha: &crate::common::ha::HaInstance, body: &Value) {
    assert_eq!(body["stats"]["model_used"], "local-qwen", "{body}");
    for action in body["actions"].as_array().into_iter().flatten() {
        if action["verified"] == true {
            for (entity, seen) in action["observed_state"].as_object().unwrap() {
                let (_, state) = ha.rest("GET", &format!("/api/states/{entity}"), None).await;
                assert_eq!(
                    &state["state"], seen,
                    "verified {entity} but HA shows {state}"
                );
            }
        } else {
            assert!(
                body["reply"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("could not confirm")
                    || body["status"] != "done",
                "an unverified action passed as done: {body}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_commands_on_the_real_local_model_are_handled_honestly() {
    let Some(llm_url) = tokio::task::spawn_blocking(start_model).await.unwrap() else {
        return;
    };
    let ha = shared();
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "ha:\n  url: {}\n  token: {}\nllm:\n  request_timeout_ms: 300000\n  models:\n\
         \x20   - name: local-qwen\n      provider: openai\n      base_url: {llm_url}\n\
         \x20     model: qwen2.5-coder-1.5b-instruct\n      native_tools: false\n      temperature: 0\n\
         \x20     max_tokens: 256\n      short_descriptions: true\n\
         agent:\n  fast_path: false\n\
         session:\n  dir: {}\napi:\n  listen: 127.0.0.1:0\nwyoming:\n  enabled: false\npanel:\n  enabled: false\n",
        ha.ws_url(),
        ha.token,
        dir.path().join("sessions").display()
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;

    // fan.living_room_fan belongs to this test.
    ha.rest(
        "POST",
        "/api/services/fan/turn_off",
        Some(json!({"entity_id": "fan.living_room_fan"})),
    )
    .await;
    let (status, body) = server
        .post_json(
            "/api/command",
            &json!({"text": "turn on the living room fan"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["stats"]["rounds"].as_u64().unwrap() >= 1);
    check_honest(ha, &body).await;
    eprintln!("real model, action: {} | {}", body["status"], body["reply"]);

    let (status, body) = server
        .post_json(
            "/api/command",
            &json!({"text": "what is the outside temperature?"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    check_honest(ha, &body).await;
    eprintln!(
        "real model, question: {} | {}",
        body["status"], body["reply"]
    );
}
