//! Home Assistant's agent as a voice satellite meets it: an Assist pipeline run
//! (`assist_pipeline/run`, text in, intent stage only) carrying the speaking device, in a
//! pipeline set to the task's language. `conversation/process` in Home Assistant 2025.4 takes
//! no device, so "turn on the light" said to a satellite could not be measured through it.
//!
//! The run streams events on its own subscription, which the shared client does not follow:
//! this is one short-lived websocket per sentence.

use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// What Home Assistant's agent said and how it classed its answer (`action_done`, `error`, …).
pub(super) struct Spoken {
    pub(super) speech: String,
    pub(super) response_type: String,
}

/// Runs `text` through a pipeline in `language` (created once per language by name), as said
/// to `device_id`.
pub(super) async fn run(
    ws_url: &str,
    token: &str,
    language: &str,
    text: &str,
    device_id: &str,
    timeout: Duration,
) -> anyhow::Result<Spoken> {
    tokio::time::timeout(timeout, run_inner(ws_url, token, language, text, device_id))
        .await
        .context("the pipeline run did not end in time")?
}

async fn run_inner(
    ws_url: &str,
    token: &str,
    language: &str,
    text: &str,
    device_id: &str,
) -> anyhow::Result<Spoken> {
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url).await?;
    let mut next = async |ws: &mut tokio_tungstenite::WebSocketStream<_>| -> anyhow::Result<Value> {
        loop {
            match ws
                .next()
                .await
                .context("Home Assistant closed the socket")??
            {
                Message::Text(t) => return Ok(serde_json::from_str(&t)?),
                Message::Close(_) => bail!("Home Assistant closed the socket"),
                _ => {}
            }
        }
    };
    next(&mut ws).await?;
    ws.send(Message::text(
        json!({"type": "auth", "access_token": token}).to_string(),
    ))
    .await?;
    let auth = next(&mut ws).await?;
    if auth["type"] != "auth_ok" {
        bail!("Home Assistant refused the token: {auth}");
    }
    let pipeline = pipeline_for(&mut ws, &mut next, language).await?;
    ws.send(Message::text(
        json!({"id": 10, "type": "assist_pipeline/run", "start_stage": "intent",
               "end_stage": "intent", "input": {"text": text}, "pipeline": pipeline,
               "device_id": device_id})
        .to_string(),
    ))
    .await?;
    let mut spoken = None;
    loop {
        let message = next(&mut ws).await?;
        if message["type"] == "result" && message["success"] == false {
            bail!("assist_pipeline/run failed: {}", message["error"]);
        }
        let event = &message["event"];
        match event["type"].as_str() {
            Some("intent-end") => {
                let response = &event["data"]["intent_output"]["response"];
                spoken = Some(Spoken {
                    speech: response["speech"]["plain"]["speech"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    response_type: response["response_type"]
                        .as_str()
                        .unwrap_or("error")
                        .to_owned(),
                });
            }
            Some("error") => bail!("the pipeline run failed: {}", event["data"]),
            Some("run-end") => break,
            _ => {}
        }
    }
    let _ = ws.close(None).await;
    spoken.context("the pipeline ended without an answer")
}

/// The id of the benchmark's pipeline for `language` (Home Assistant's agent, text only),
/// created the first time.
async fn pipeline_for<S>(
    ws: &mut S,
    next: &mut impl AsyncFnMut(&mut S) -> anyhow::Result<Value>,
    language: &str,
) -> anyhow::Result<String>
where
    S: SinkExt<Message> + Unpin,
    <S as futures_util::Sink<Message>>::Error: std::error::Error + Send + Sync + 'static,
{
    let name = format!("homeclaw-bench-{language}");
    ws.send(Message::text(
        json!({"id": 1, "type": "assist_pipeline/pipeline/list"}).to_string(),
    ))
    .await?;
    let list = next(ws).await?;
    if let Some(id) = list["result"]["pipelines"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == name.as_str())
        .and_then(|p| p["id"].as_str())
    {
        return Ok(id.to_owned());
    }
    ws.send(Message::text(
        json!({"id": 2, "type": "assist_pipeline/pipeline/create",
               "conversation_engine": "conversation.home_assistant",
               "conversation_language": language, "language": language, "name": name,
               "stt_engine": null, "stt_language": null, "tts_engine": null,
               "tts_language": null, "tts_voice": null, "wake_word_entity": null,
               "wake_word_id": null})
        .to_string(),
    ))
    .await?;
    let created = next(ws).await?;
    created["result"]["id"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("cannot create a {language} pipeline: {created}"))
}
