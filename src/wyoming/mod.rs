//! A Wyoming protocol server offering an intent *handle* program, so Home Assistant's built-in
//! Wyoming integration creates a conversation agent for HomeClaw (Assist, voice satellites).
//!
//! Wire format: a JSON header line `{"type", "data"?, "data_length"?, "payload_length"?,
//! "version"}` followed by `data_length` bytes of JSON data and `payload_length` bytes of
//! payload. Invariants: every length is bounded before anything is allocated; a malformed
//! event gets an `error` event and the connection is closed; an idle connection is closed; one
//! connection's trouble never touches another.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::command::activity::Source;
use crate::command::{CommandRequest, Commands, Status};

/// The protocol version we speak (that of Home Assistant's bundled `wyoming` package).
pub const VERSION: &str = "1.5.4";
const MAX_HEADER: usize = 64 * 1024;
const MAX_DATA: usize = 1024 * 1024;
const MAX_PAYLOAD: usize = 1024 * 1024;
const IDLE: Duration = Duration::from_secs(120);

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: String,
    pub data: Map<String, Value>,
    pub payload: Option<Vec<u8>>,
}

#[derive(Debug, thiserror::Error)]
pub enum WyomingError {
    #[error("malformed event: {0}")]
    Malformed(String),
    #[error("event too large: {what} of {len} bytes (limit {limit})")]
    TooLarge {
        what: &'static str,
        len: usize,
        limit: usize,
    },
    #[error("connection error: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads one event; `Ok(None)` at a clean end of stream.
pub async fn read_event<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> Result<Option<Event>, WyomingError> {
    let mut line = Vec::new();
    let n = (&mut *reader)
        .take(MAX_HEADER as u64 + 1)
        .read_until(b'\n', &mut line)
        .await?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(if line.len() > MAX_HEADER {
            WyomingError::TooLarge {
                what: "header",
                len: line.len(),
                limit: MAX_HEADER,
            }
        } else {
            WyomingError::Malformed("header line ended early".into())
        });
    }
    let header: Value = serde_json::from_slice(&line)
        .map_err(|e| WyomingError::Malformed(format!("header is not JSON: {e}")))?;
    let Value::Object(mut header) = header else {
        return Err(WyomingError::Malformed("header is not an object".into()));
    };
    let kind = header
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| WyomingError::Malformed("header has no type".into()))?
        .to_owned();
    let mut data = match header.remove("data") {
        Some(Value::Object(map)) => map,
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(WyomingError::Malformed("data is not an object".into())),
    };
    let length = |key: &str| -> Result<usize, WyomingError> {
        match header.get(key) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => v
                .as_u64()
                .map(|n| n as usize)
                .ok_or_else(|| WyomingError::Malformed(format!("{key} is not a length"))),
        }
    };
    let (data_len, payload_len) = (length("data_length")?, length("payload_length")?);
    if data_len > MAX_DATA {
        return Err(WyomingError::TooLarge {
            what: "data",
            len: data_len,
            limit: MAX_DATA,
        });
    }
    if payload_len > MAX_PAYLOAD {
        return Err(WyomingError::TooLarge {
            what: "payload",
            len: payload_len,
            limit: MAX_PAYLOAD,
        });
    }
    if data_len > 0 {
        let mut bytes = vec![0; data_len];
        reader.read_exact(&mut bytes).await?;
        match serde_json::from_slice(&bytes) {
            Ok(Value::Object(extra)) => data.extend(extra),
            _ => return Err(WyomingError::Malformed("data is not a JSON object".into())),
        }
    }
    let payload = if payload_len > 0 {
        let mut bytes = vec![0; payload_len];
        reader.read_exact(&mut bytes).await?;
        Some(bytes)
    } else {
        None
    };
    Ok(Some(Event {
        kind,
        data,
        payload,
    }))
}

/// The bytes of one event, data separate from the header as the reference implementation does.
pub fn encode_event(kind: &str, data: &Value) -> Vec<u8> {
    let mut header = json!({"type": kind, "version": VERSION});
    let data_bytes = match data {
        Value::Object(map) if !map.is_empty() => data.to_string().into_bytes(),
        _ => Vec::new(),
    };
    if !data_bytes.is_empty() {
        header["data_length"] = json!(data_bytes.len());
    }
    let mut out = header.to_string().into_bytes();
    out.push(b'\n');
    out.extend(data_bytes);
    out
}

/// The `info` answer to `describe`: one installed handle program.
pub fn info(languages: &[String]) -> Value {
    let attribution = json!({"name": "HomeClaw", "url": "https://github.com/homeclaw/homeclaw"});
    let description = "HomeClaw: an LLM agent that controls your home through Home Assistant \
                       and answers only after the action really happened";
    json!({
        "asr": [], "tts": [], "intent": [], "wake": [],
        "handle": [{
            "name": "HomeClaw",
            "description": description,
            "attribution": attribution,
            "installed": true,
            "version": env!("CARGO_PKG_VERSION"),
            // Wyoming 1.9+: Home Assistant (2026.11) gives a handle service the conversation
            // agent's CONTROL feature only when it says it acts on the home — which lets the
            // person pick "prefer handling commands locally" (see DOCS.md for what that skips).
            "supports_home_control": true,
            "models": [{
                "name": "homeclaw",
                "description": description,
                "attribution": attribution,
                "installed": true,
                "version": env!("CARGO_PKG_VERSION"),
                "languages": languages,
            }],
        }],
    })
}

/// The one session of every client that sends no conversation id.
const SHARED_SESSION: &str = "wyoming";

/// The session for a transcript: its conversation id when the client sends one (newer
/// Wyoming versions), else one shared Wyoming session (Home Assistant 2025.4's bundled client
/// drops the context), so follow-up answers still continue the run.
pub fn session_for(data: &Map<String, Value>) -> String {
    let id = data
        .get("context")
        .and_then(|c| c.get("conversation_id"))
        .and_then(Value::as_str)
        .map(|c| {
            c.chars()
                .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '-' || *ch == '_')
                .take(60)
                .collect::<String>()
        })
        .filter(|c| !c.is_empty());
    match id {
        Some(id) => format!("wy-{id}"),
        None => SHARED_SESSION.into(),
    }
}

/// A string Home Assistant put in the transcript's context: 2026.11 sends the satellite's
/// `device_id` and `satellite_id` there (2025.4's client sends no context at all).
pub fn context_str(data: &Map<String, Value>, key: &str) -> Option<String> {
    data.get("context")
        .and_then(|c| c.get(key))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|v| !v.is_empty() && v.len() <= 255)
        .map(str::to_owned)
}

async fn send<W: AsyncWrite + Unpin>(
    writer: &mut W,
    kind: &str,
    data: Value,
) -> std::io::Result<()> {
    writer.write_all(&encode_event(kind, &data)).await?;
    writer.flush().await
}

/// The transcript's language when it is one we announced (Home Assistant sends the pipeline's
/// language); otherwise none, and the agent answers in the language it was spoken to.
fn language_of(data: &Map<String, Value>, announced: &[String]) -> Option<String> {
    let language = data.get("language").and_then(Value::as_str)?;
    announced
        .iter()
        .find(|l| {
            language.eq_ignore_ascii_case(l)
                || crate::lang::primary_tag(language).eq_ignore_ascii_case(l)
        })
        .map(|_| language.to_owned())
}

/// Serves Wyoming connections until the listener fails or the task is aborted.
pub async fn serve(listener: TcpListener, commands: Arc<Commands>, languages: Vec<String>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                warn!(error = %e, "Wyoming accept failed");
                continue;
            }
        };
        let commands = commands.clone();
        let languages = languages.clone();
        tokio::spawn(
            async move {
                let (read, mut write) = stream.into_split();
                let mut reader = BufReader::new(read);
                loop {
                    let event = match tokio::time::timeout(IDLE, read_event(&mut reader)).await {
                        Err(_) => break,
                        Ok(Ok(Some(e))) => e,
                        Ok(Ok(None)) => break,
                        Ok(Err(e)) => {
                            warn!(error = %e, "Closing a Wyoming connection after a bad event");
                            let _ = send(
                                &mut write,
                                "error",
                                json!({"text": e.to_string(), "code": "bad_event"}),
                            )
                            .await;
                            break;
                        }
                    };
                    debug!(kind = %event.kind, "Wyoming event");
                    let sent = match event.kind.as_str() {
                        "describe" => send(&mut write, "info", info(&languages)).await,
                        "ping" => send(&mut write, "pong", json!({})).await,
                        "transcript" => {
                            let text = event
                                .data
                                .get("text")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .trim()
                                .to_owned();
                            if text.is_empty() {
                                send(
                                    &mut write,
                                    "not-handled",
                                    json!({"text": "I did not hear a command."}),
                                )
                                .await
                            } else {
                                let session_id = session_for(&event.data);
                                let request = CommandRequest {
                                    text,
                                    shared_session: session_id == SHARED_SESSION,
                                    session_id: Some(session_id),
                                    language: language_of(&event.data, &languages),
                                    device_id: context_str(&event.data, "device_id"),
                                    satellite_id: context_str(&event.data, "satellite_id"),
                                    dry_run: false,
                                    source: Source::Assist,
                                };
                                match commands.submit(request, None).await.result {
                                    Ok(outcome) if outcome.status == Status::Failed => {
                                        let text = Some(outcome.reply)
                                            .filter(|r| !r.is_empty())
                                            .or(outcome.error)
                                            .unwrap_or_else(|| "That failed.".to_owned());
                                        send(&mut write, "not-handled", json!({"text": text})).await
                                    }
                                    Ok(outcome) => {
                                        let mut data = json!({"text": outcome.reply});
                                        if let Some(id) = event
                                            .data
                                            .get("context")
                                            .and_then(|c| c.get("conversation_id"))
                                        {
                                            data["context"] = json!({"conversation_id": id});
                                        }
                                        send(&mut write, "handled", data).await
                                    }
                                    Err(e) => {
                                        send(&mut write, "not-handled", json!({"text": e.message}))
                                            .await
                                    }
                                }
                            }
                        }
                        // Unknown events are ignored, as the protocol asks.
                        _ => Ok(()),
                    };
                    if sent.is_err() {
                        break;
                    }
                }
            }
            .instrument(info_span!("wyoming", %peer)),
        );
    }
}

/// Binds and serves in the background; returns the bound address.
pub async fn start(
    listen: &str,
    commands: Arc<Commands>,
    languages: Vec<String>,
) -> std::io::Result<(std::net::SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    // Every language Home Assistant recognises: where HomeClaw has no lexicon, Home Assistant's
    // recogniser reads the words and its sentences answer.
    let languages = if languages.is_empty() {
        crate::lang::ha_replies::languages()
    } else {
        languages
    };
    info!(%addr, ?languages, "Wyoming handle service listening");
    Ok((addr, tokio::spawn(serve(listener, commands, languages))))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read(bytes: &[u8]) -> Result<Option<Event>, WyomingError> {
        let mut reader = BufReader::new(bytes);
        read_event(&mut reader).await
    }

    #[tokio::test]
    async fn events_round_trip_with_separate_data() {
        let bytes = encode_event("transcript", &json!({"text": "włącz światło"}));
        let event = read(&bytes).await.unwrap().unwrap();
        assert_eq!(event.kind, "transcript");
        assert_eq!(event.data["text"], "włącz światło");
        let empty = encode_event("describe", &json!({}));
        assert_eq!(
            String::from_utf8(empty).unwrap(),
            "{\"type\":\"describe\",\"version\":\"1.5.4\"}\n"
        );
    }

    #[tokio::test]
    async fn inline_data_payloads_and_end_of_stream_are_read() {
        let bytes =
            b"{\"type\": \"audio-chunk\", \"data\": {\"rate\": 16000}, \"payload_length\": 3}\nabc";
        let event = read(bytes).await.unwrap().unwrap();
        assert_eq!(event.data["rate"], 16000);
        assert_eq!(event.payload.as_deref(), Some(&b"abc"[..]));
        assert!(read(b"").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn malformed_and_oversized_events_are_errors() {
        let cases: Vec<Vec<u8>> = vec![
            b"not json\n".to_vec(),
            b"[1]\n".to_vec(),
            b"{\"data\": {}}\n".to_vec(),
            b"{\"type\": \"x\", \"data\": 5}\n".to_vec(),
            b"{\"type\": \"x\", \"data_length\": \"ten\"}\n".to_vec(),
            b"{\"type\": \"x\", \"data_length\": 4}\nnope".to_vec(),
            b"{\"type\": \"x\"".to_vec(),
        ];
        for bytes in cases {
            assert!(
                matches!(read(&bytes).await, Err(WyomingError::Malformed(_))),
                "{bytes:?}"
            );
        }
        let big = format!(
            "{{\"type\": \"x\", \"payload_length\": {}}}\n",
            MAX_PAYLOAD + 1
        );
        assert!(matches!(
            read(big.as_bytes()).await,
            Err(WyomingError::TooLarge { .. })
        ));
        let long_header = vec![b'a'; MAX_HEADER + 10];
        assert!(matches!(
            read(&long_header).await,
            Err(WyomingError::TooLarge { .. })
        ));
        let truncated = b"{\"type\": \"x\", \"payload_length\": 10}\nabc";
        assert!(matches!(read(truncated).await, Err(WyomingError::Io(_))));
    }

    #[test]
    fn sessions_follow_the_conversation_id_when_there_is_one() {
        let with: Map<String, Value> = serde_json::from_value(
            json!({"text": "x", "context": {"conversation_id": "01JX/../a"}}),
        )
        .unwrap();
        assert_eq!(session_for(&with), "wy-01JXa");
        assert_eq!(session_for(&Map::new()), "wyoming");
    }

    #[test]
    fn info_announces_one_installed_handle_program() {
        let info = info(&["en".into(), "pl".into()]);
        let handle = &info["handle"][0];
        assert_eq!(handle["installed"], true);
        assert_eq!(handle["models"][0]["languages"], json!(["en", "pl"]));
        assert_eq!(handle["supports_home_control"], true);
    }

    #[test]
    fn the_satellite_comes_from_the_transcripts_context() {
        // As Home Assistant 2026.11's Wyoming conversation sends it.
        let data: Map<String, Value> = serde_json::from_value(json!({
            "text": "turn off the light", "language": "en",
            "context": {"conversation_id": "01K", "device_id": "4f1c0ffee",
                        "satellite_id": "assist_satellite.kitchen"}
        }))
        .unwrap();
        assert_eq!(
            context_str(&data, "device_id").as_deref(),
            Some("4f1c0ffee")
        );
        assert_eq!(
            context_str(&data, "satellite_id").as_deref(),
            Some("assist_satellite.kitchen")
        );
        // 2025.4 sends no context; an empty or non-string value is none.
        let bare: Map<String, Value> = serde_json::from_value(
            json!({"text": "x", "context": {"device_id": 7, "satellite_id": " "}}),
        )
        .unwrap();
        assert_eq!(context_str(&bare, "device_id"), None);
        assert_eq!(context_str(&bare, "satellite_id"), None);
        assert_eq!(context_str(&Map::new(), "device_id"), None);
    }
}
