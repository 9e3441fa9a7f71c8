//! A scripted Home Assistant websocket server for the protocol edge cases a real HA will not
//! produce on demand: a socket that dies mid-request, a server that stops answering pings,
//! coalesced frames, a command that never gets an answer.
//!
//! It speaks the real handshake (auth_required → auth → auth_ok/auth_invalid) and records
//! every message it receives, tagged with the connection it came on.

use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

pub const GOOD_TOKEN: &str = "scripted-good-token";

/// What the server does with one received message.
pub enum Action {
    /// Send these frames (raw text, so tests can send coalesced arrays).
    Send(Vec<String>),
    /// Close the TCP connection without a close frame, as a crash would.
    Drop,
    /// Never answer.
    Ignore,
}

/// Decides per (connection number, message); connection numbers start at 1.
pub type Script = Arc<dyn Fn(usize, &Value) -> Action + Send + Sync>;

pub struct ScriptedHa {
    pub url: String,
    pub received: Arc<Mutex<Vec<(usize, Value)>>>,
    pub connections: watch::Receiver<usize>,
}

/// The usual answer: success with `result` for the message's id.
pub fn ok(msg: &Value, result: Value) -> String {
    json!({"id": msg["id"], "type": "result", "success": true, "result": result}).to_string()
}

/// Answers pings and set-up commands; everything else goes to `script`.
pub fn standard(script: impl Fn(usize, &Value) -> Action + Send + Sync + 'static) -> Script {
    Arc::new(move |conn, msg| match msg["type"].as_str() {
        Some("ping") => Action::Send(vec![json!({"id": msg["id"], "type": "pong"}).to_string()]),
        Some("supported_features" | "subscribe_events") => Action::Send(vec![ok(msg, Value::Null)]),
        _ => script(conn, msg),
    })
}

impl ScriptedHa {
    pub async fn start(script: Script) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "ws://{}/api/websocket",
            listener.local_addr().expect("addr")
        );
        let received = Arc::new(Mutex::new(Vec::new()));
        let (count_tx, connections) = watch::channel(0usize);
        let log = Arc::clone(&received);
        tokio::spawn(async move {
            let mut n = 0;
            while let Ok((tcp, _)) = listener.accept().await {
                n += 1;
                count_tx.send_replace(n);
                let (script, log) = (Arc::clone(&script), Arc::clone(&log));
                tokio::spawn(async move {
                    let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                        return;
                    };
                    let hello = json!({"type": "auth_required", "ha_version": "2099.1.0"});
                    if ws.send(Message::text(hello.to_string())).await.is_err() {
                        return;
                    }
                    let Some(Ok(Message::Text(auth))) = ws.next().await else {
                        return;
                    };
                    let auth: Value = serde_json::from_str(auth.as_str()).unwrap_or_default();
                    if auth["access_token"] != GOOD_TOKEN {
                        let no = json!({"type": "auth_invalid", "message": "Invalid access token"});
                        let _ = ws.send(Message::text(no.to_string())).await;
                        let _ = ws.close(None).await;
                        return;
                    }
                    let yes = json!({"type": "auth_ok", "ha_version": "2099.1.0"});
                    if ws.send(Message::text(yes.to_string())).await.is_err() {
                        return;
                    }
                    while let Some(Ok(frame)) = ws.next().await {
                        let Message::Text(text) = frame else { continue };
                        let msg: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
                        log.lock().expect("log").push((n, msg.clone()));
                        match script(n, &msg) {
                            Action::Send(frames) => {
                                for f in frames {
                                    if ws.send(Message::text(f)).await.is_err() {
                                        return;
                                    }
                                }
                            }
                            Action::Drop => return,
                            Action::Ignore => {}
                        }
                    }
                });
            }
        });
        Self {
            url,
            received,
            connections,
        }
    }

    /// Waits until at least `n` connections were accepted.
    pub async fn wait_connections(&self, n: usize) {
        let mut c = self.connections.clone();
        c.wait_for(|&count| count >= n).await.expect("server alive");
    }

    pub fn ids(&self) -> Vec<(usize, u64)> {
        self.received
            .lock()
            .expect("log")
            .iter()
            .filter_map(|(conn, m)| m["id"].as_u64().map(|id| (*conn, id)))
            .collect()
    }
}
