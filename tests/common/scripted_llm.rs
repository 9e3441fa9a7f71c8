//! A scripted LLM server speaking the providers' real wire formats over real HTTP.
//!
//! Tests queue replies (and faults); the server answers requests in order, records every
//! request, and checks the invariants every provider enforces on EVERY request it receives
//! (each tool call answered exactly once, by a result that follows it; ids unique), so a bug in
//! history handling fails many tests at once.

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    Json(Value),
    Status {
        status: u16,
        body: String,
        retry_after: Option<String>,
    },
    /// 200 with a body that is not JSON.
    InvalidJson,
    /// A complete SSE stream of these `data:` payloads.
    Sse(Vec<String>),
    /// These `data:` payloads, then the stream ends mid-reply: no finish reason, no `[DONE]`.
    SseCut(Vec<String>),
    /// These `data:` payloads, then the connection is reset (the client may lose them).
    SseReset(Vec<String>),
    /// Wait before answering (a slow provider).
    Delay(Duration, Box<Reply>),
    /// Hold the answer until the test opens the gate: the test does something (stops Home
    /// Assistant, say) while HomeClaw is known to be waiting for the model.
    Gate(Arc<tokio::sync::Notify>, Box<Reply>),
}

#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

impl Recorded {
    /// The contents of the tool results in an OpenAI-format request, in order.
    pub fn tool_results(&self) -> Vec<String> {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "tool")
            .map(|m| match &m["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    }
}

#[derive(Default)]
struct Inner {
    queue: VecDeque<Reply>,
    requests: Vec<Recorded>,
    violations: Vec<String>,
}

#[derive(Clone)]
pub struct ScriptedLlm {
    pub addr: SocketAddr,
    inner: Arc<Mutex<Inner>>,
    received: tokio::sync::watch::Receiver<usize>,
}

impl ScriptedLlm {
    pub async fn start() -> Self {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let (count_tx, received) = tokio::sync::watch::channel(0usize);
        let app = Router::new()
            .fallback(handle)
            .with_state((Arc::clone(&inner), Arc::new(count_tx)));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            addr,
            inner,
            received,
        }
    }

    /// Waits until at least `n` requests have arrived; a bound, so that a command that never
    /// reaches the model fails the test instead of hanging it.
    pub async fn wait_requests(&self, n: usize) {
        let mut rx = self.received.clone();
        tokio::time::timeout(Duration::from_secs(120), rx.wait_for(|&c| c >= n))
            .await
            .unwrap_or_else(|_| panic!("the scripted model never got request {n}"))
            .expect("server alive");
    }

    /// Base URL for the OpenAI format (`…/v1`).
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Base URL for the Anthropic and Gemini formats (they add their own version path).
    pub fn root_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn push(&self, reply: Reply) {
        self.inner.lock().expect("lock").queue.push_back(reply);
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.lock().expect("lock").requests.clone()
    }

    pub fn violations(&self) -> Vec<String> {
        self.inner.lock().expect("lock").violations.clone()
    }

    pub fn remaining(&self) -> usize {
        self.inner.lock().expect("lock").queue.len()
    }
}

type Shared = (Arc<Mutex<Inner>>, Arc<tokio::sync::watch::Sender<usize>>);

async fn handle(
    State((inner, count)): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = {
        let mut inner = inner.lock().expect("lock");
        for v in check_invariants(&path, &body) {
            inner.violations.push(format!("{path}: {v}"));
        }
        inner.requests.push(Recorded {
            path,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
                .collect(),
            body,
        });
        count.send_replace(inner.requests.len());
        inner.queue.pop_front()
    };
    let Some(reply) = reply else {
        return respond(Reply::Status {
            status: 500,
            body: "scripted server: no reply queued".into(),
            retry_after: None,
        })
        .await;
    };
    respond(reply).await
}

async fn respond(reply: Reply) -> Response {
    let mut reply = reply;
    loop {
        reply = match reply {
            Reply::Delay(wait, inner) => {
                tokio::time::sleep(wait).await;
                *inner
            }
            Reply::Gate(gate, inner) => {
                gate.notified().await;
                *inner
            }
            other => break reply = other,
        };
    }
    let builder = Response::builder();
    let built = match reply {
        Reply::Json(value) => builder
            .header("content-type", "application/json")
            .body(Body::from(value.to_string())),
        Reply::Status {
            status,
            body,
            retry_after,
        } => {
            let mut b =
                builder.status(StatusCode::from_u16(status).unwrap_or(StatusCode::IM_A_TEAPOT));
            if let Some(ra) = retry_after {
                b = b.header("retry-after", ra);
            }
            b.body(Body::from(body))
        }
        Reply::InvalidJson => builder
            .header("content-type", "application/json")
            .body(Body::from("{\"choices\": [ this is not json")),
        Reply::Sse(events) => builder
            .header("content-type", "text/event-stream")
            .body(Body::from(sse(&events))),
        Reply::SseCut(events) => builder
            .header("content-type", "text/event-stream")
            .body(Body::from(sse(&events))),
        Reply::SseReset(events) => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(Bytes::from(sse(&events))),
                Err(std::io::Error::other("scripted cut")),
            ];
            builder
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(futures_util::stream::iter(chunks)))
        }
        Reply::Delay(..) | Reply::Gate(..) => unreachable!("unwrapped above"),
    };
    built.unwrap_or_else(|_| Response::new(Body::empty()))
}

fn sse(events: &[String]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// Every provider's pairing rules, checked on the wire body.
fn check_invariants(path: &str, body: &Value) -> Vec<String> {
    let mut violations = Vec::new();
    if path.ends_with("/chat/completions") {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let mut open: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        for m in &messages {
            match m["role"].as_str() {
                Some("assistant") => {
                    if !open.is_empty() {
                        violations.push(format!("calls {open:?} have no result"));
                    }
                    open = m["tool_calls"]
                        .as_array()
                        .map(|calls| {
                            calls
                                .iter()
                                .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
                                .collect()
                        })
                        .unwrap_or_default();
                    for id in &open {
                        if !seen.insert(id.clone()) {
                            violations.push(format!("duplicate call id {id}"));
                        }
                    }
                }
                Some("tool") => {
                    let id = m["tool_call_id"].as_str().unwrap_or_default().to_owned();
                    if let Some(pos) = open.iter().position(|o| *o == id) {
                        open.remove(pos);
                    } else {
                        violations.push(format!("result for unknown or answered call {id}"));
                    }
                }
                _ => {
                    if !open.is_empty() {
                        violations.push(format!("calls {open:?} have no result"));
                        open.clear();
                    }
                }
            }
        }
        if !open.is_empty() {
            violations.push(format!("calls {open:?} have no result"));
        }
    } else if path.ends_with("/v1/messages") {
        let turns = body["messages"].as_array().cloned().unwrap_or_default();
        let mut expected: Vec<String> = Vec::new();
        for (i, t) in turns.iter().enumerate() {
            let role = t["role"].as_str().unwrap_or_default();
            if i == 0 && role != "user" {
                violations.push("first turn is not user".into());
            }
            if i > 0 && turns[i - 1]["role"] == role {
                violations.push(format!("two {role} turns in a row"));
            }
            let blocks = t["content"].as_array().cloned().unwrap_or_default();
            if role == "user" {
                let results: Vec<String> = blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_result")
                    .map(|b| b["tool_use_id"].as_str().unwrap_or_default().to_owned())
                    .collect();
                if results != expected {
                    violations.push(format!(
                        "tool results {results:?} do not answer {expected:?}"
                    ));
                }
                expected.clear();
            } else {
                expected = blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_use")
                    .map(|b| b["id"].as_str().unwrap_or_default().to_owned())
                    .collect();
            }
        }
        if !expected.is_empty() {
            violations.push(format!("tool uses {expected:?} have no result"));
        }
        if body["max_tokens"].as_u64().is_none() {
            violations.push("max_tokens missing".into());
        }
    } else if path.contains(":generateContent") {
        let contents = body["contents"].as_array().cloned().unwrap_or_default();
        let mut pending: Vec<String> = Vec::new();
        for c in &contents {
            let parts = c["parts"].as_array().cloned().unwrap_or_default();
            if c["role"] == "model" {
                pending = parts
                    .iter()
                    .filter_map(|p| p["functionCall"]["name"].as_str().map(str::to_owned))
                    .collect();
            } else {
                let answered: Vec<String> = parts
                    .iter()
                    .filter_map(|p| p["functionResponse"]["name"].as_str().map(str::to_owned))
                    .collect();
                if answered != pending {
                    violations.push(format!("responses {answered:?} do not answer {pending:?}"));
                }
                pending.clear();
            }
        }
    }
    violations
}

// ---- reply builders, one per wire format ----

pub fn openai_text(text: &str) -> Reply {
    Reply::Json(
        json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
        "finish_reason": "stop"}], "usage": {"prompt_tokens": 11, "completion_tokens": 3}}),
    )
}

pub fn openai_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    Reply::Json(
        json!({"id": "chatcmpl-2", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
        "tool_calls": calls}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9}}),
    )
}

pub fn anthropic_text(text: &str) -> Reply {
    Reply::Json(
        json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 12, "output_tokens": 4}}),
    )
}

pub fn anthropic_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let mut content =
        vec![json!({"type": "thinking", "thinking": "…", "signature": "sig-anthropic"})];
    content.extend(calls.iter().map(
        |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
    ));
    Reply::Json(
        json!({"id": "msg_2", "type": "message", "role": "assistant",
        "content": content, "stop_reason": "tool_use",
        "usage": {"input_tokens": 30, "output_tokens": 10}}),
    )
}

pub fn gemini_text(text: &str) -> Reply {
    Reply::Json(
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 2}}),
    )
}

pub fn gemini_calls(calls: &[(&str, Value, &str)]) -> Reply {
    let parts: Vec<Value> = calls
        .iter()
        .map(|(name, args, signature)| {
            json!({"functionCall": {"name": name, "args": args}, "thoughtSignature": signature})
        })
        .collect();
    Reply::Json(
        json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 15, "candidatesTokenCount": 6}}),
    )
}
