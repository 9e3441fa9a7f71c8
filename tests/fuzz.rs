//! Fuzz targets for every parser that reads bytes from outside: Home Assistant frames, the
//! three providers' responses (and OpenAI's SSE stream), the text-fallback tool-call parser,
//! the JSONL session loader, the Wyoming event reader and the MQTT command payload.
//!
//! `cargo fuzz` needs a nightly toolchain, which this project's machines do not have, so the
//! targets run on proptest: inputs are raw bytes or mutations of real seed inputs (the shapes
//! these parsers meet in production), and a failing input is shrunk to a minimal one before it
//! is reported. Besides "never panics", each target checks a property that could break.
//!
//! `FUZZ_SECONDS=N` runs each target for N seconds (scripts/fuzz.sh; CI uses 30) and prints
//! the executions; without it each target runs a fixed number of cases, so `cargo test` stays
//! quick. `FUZZ_TARGET=name` runs one target.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

/// Fixed cases per target in a plain `cargo test`.
const QUICK_CASES: u32 = 300;
/// Cases per batch in a timed run; the clock is checked between batches.
const BATCH: u32 = 2_000;

/// A mutation of a seed: the byte tricks that break hand-written parsers.
#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn interesting() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 1..8),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"{".to_vec()),
        Just(b"}".to_vec()),
        Just(b"[".to_vec()),
        Just(b"\\u0000".to_vec()),
        Just(b"\\ud800".to_vec()),
        Just(b"null".to_vec()),
        Just(b"-1".to_vec()),
        Just(b"18446744073709551616".to_vec()),
        Just(b"1e999".to_vec()),
        Just("\u{feff}ł€😀".as_bytes().to_vec()),
        Just(b"data: ".to_vec()),
        Just(b"```json\n".to_vec()),
        Just(b"\xff\xfe".to_vec()),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<usize>(), interesting()).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Edit::Remove(i, n)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Edit::Duplicate(i, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len();
        let at = |i: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Flip(i, b) if len > 0 => bytes[i % len] ^= b | 1,
            Edit::Flip(..) => {}
            Edit::Insert(i, b) => {
                let i = at(*i);
                bytes.splice(i..i, b.iter().copied());
            }
            Edit::Remove(i, n) => {
                let i = at(*i);
                bytes.drain(i..(i + n).min(len));
            }
            Edit::Duplicate(i, n) => {
                let i = at(*i);
                let part: Vec<u8> = bytes[i..(i + n).min(len)].to_vec();
                bytes.splice(i..i, part);
            }
            Edit::Truncate(i) => bytes.truncate(at(*i)),
        }
    }
    bytes
}

/// Raw bytes, or a seed with a few edits (most inputs: a parser rejects raw noise early).
fn input(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let n = seeds.len();
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..600),
        1 => (0..n).prop_map(move |i| i).prop_flat_map({
            let seeds = seeds.clone();
            move |i| Just(seeds[i].clone())
        }),
        6 => (0..n, prop::collection::vec(edit(), 1..6)).prop_map(move |(i, edits)| apply(seeds[i].clone(), &edits)),
    ]
}

/// Runs `target` on inputs from `seeds` (for `FUZZ_SECONDS`, or a fixed number of cases) and
/// returns the number of executions. A failure is shrunk and reported by proptest.
fn fuzz(name: &str, seeds: Vec<Vec<u8>>, target: impl Fn(&[u8]) -> Result<(), TestCaseError>) {
    if let Ok(only) = std::env::var("FUZZ_TARGET")
        && only != name
    {
        return;
    }
    let seconds: Option<u64> = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok());
    let strategy = input(seeds);
    let executions = AtomicU64::new(0);
    let started = Instant::now();
    let run = |cases: u32| {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        runner.run(&strategy, |bytes| {
            executions.fetch_add(1, Ordering::Relaxed);
            target(&bytes)
        })
    };
    let outcome = match seconds {
        None => run(QUICK_CASES),
        Some(s) => {
            let budget = Duration::from_secs(s);
            let mut outcome = Ok(());
            while outcome.is_ok() && started.elapsed() < budget {
                outcome = run(BATCH);
            }
            outcome
        }
    };
    println!(
        "fuzz {name}: {} executions in {:.1} s, {} crashes",
        executions.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        u8::from(outcome.is_err()),
    );
    if let Err(e) = outcome {
        panic!("fuzz target {name} failed: {e}");
    }
}

fn seeds(values: &[&str]) -> Vec<Vec<u8>> {
    values.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn json_seeds(values: &[Value]) -> Vec<Vec<u8>> {
    values.iter().map(|v| v.to_string().into_bytes()).collect()
}

#[test]
fn ha_frame_parser() {
    let seeds = json_seeds(&[
        json!({"type": "auth_required", "ha_version": "2025.4.4"}),
        json!({"type": "auth_ok", "ha_version": "2025.4.4"}),
        json!({"type": "auth_invalid", "message": "Invalid access token or password"}),
        json!({"id": 3, "type": "result", "success": true, "result": null}),
        json!({"id": 4, "type": "result", "success": false,
               "error": {"code": "not_found", "message": "Service not found."}}),
        json!({"id": 2, "type": "event", "event": {"event_type": "state_changed",
               "data": {"entity_id": "light.kitchen", "old_state": null,
                        "new_state": {"entity_id": "light.kitchen", "state": "on",
                                      "attributes": {"friendly_name": "Kitchen"},
                                      "last_changed": "2025-04-01T00:00:00+00:00",
                                      "last_updated": "2025-04-01T00:00:00+00:00",
                                      "context": {"id": "x"}}}}}),
        json!([{"id": 5, "type": "pong"}, {"id": 6, "type": "result", "success": true,
                "result": [{"entity_id": "switch.ac", "state": "off", "attributes": {}}]}]),
    ]);
    fuzz("ha_frame_parser", seeds, |bytes| {
        let text = String::from_utf8_lossy(bytes);
        // A frame either parses to messages or is a clear error; never a panic.
        let _ = homeclaw::ha::protocol::parse_frame(&text);
        Ok(())
    });
}

fn provider_seeds() -> Vec<Vec<u8>> {
    json_seeds(&[
        // OpenAI chat completions.
        json!({"id": "c", "choices": [{"index": 0, "finish_reason": "tool_calls",
               "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
               "type": "function", "function": {"name": "get_state",
               "arguments": "{\"entity_id\": \"light.kitchen\"}"}}]}}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        json!({"choices": [{"index": 0, "finish_reason": "stop",
               "message": {"role": "assistant", "content": "Done."}}]}),
        // Anthropic Messages.
        json!({"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use",
               "content": [{"type": "thinking", "thinking": "hm", "signature": "sig"},
                           {"type": "text", "text": "Checking."},
                           {"type": "tool_use", "id": "toolu_1", "name": "get_state",
                            "input": {"entity_id": "light.kitchen"}}],
               "usage": {"input_tokens": 10, "output_tokens": 4}}),
        // Gemini generateContent.
        json!({"candidates": [{"content": {"role": "model", "parts": [
               {"text": "Sure."},
               {"functionCall": {"name": "call_service", "args": {"domain": "light",
                "service": "turn_on", "entity_id": "light.kitchen"}}, "thoughtSignature": "abc"}]},
               "finishReason": "STOP"}],
               "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3}}),
    ])
}

#[test]
fn provider_response_parsers() {
    fuzz("provider_response_parsers", provider_seeds(), |bytes| {
        let Ok(body) = serde_json::from_slice::<Value>(bytes) else {
            return Ok(());
        };
        for parsed in [
            homeclaw::llm::openai::parse(&body),
            homeclaw::llm::anthropic::parse(&body),
            homeclaw::llm::gemini::parse(&body),
        ] {
            let _ = parsed;
        }
        Ok(())
    });
}

fn openai_stream_seeds() -> Vec<Vec<u8>> {
    let events = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me "}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_s",
               "type": "function", "function": {"name": "get_state", "arguments": "{\"entity"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
               "function": {"arguments": "_id\": \"light.kitchen\"}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 12}}),
    ];
    let mut stream: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    stream.push_str("data: [DONE]\n\n");
    vec![
        stream.into_bytes(),
        b"event: message_start\r\ndata: {\"a\":1}\r\n\r\n: comment\ndata: x\ndata: y\n\n".to_vec(),
    ]
}

/// The SSE parser and the OpenAI stream accumulator: the same bytes give the same events
/// however the network splits them.
#[test]
fn sse_stream_parser() {
    fuzz("sse_stream_parser", openai_stream_seeds(), |bytes| {
        use homeclaw::llm::openai::StreamAccumulator;
        use homeclaw::llm::sse::SseParser;
        let whole = SseParser::new().feed(bytes);
        let split_at = bytes.len() / 3;
        let mut parser = SseParser::new();
        let mut pieces = parser.feed(&bytes[..split_at]);
        for chunk in bytes[split_at..].chunks(7) {
            pieces.extend(parser.feed(chunk));
        }
        prop_assert_eq!(
            format!("{whole:?}"),
            format!("{pieces:?}"),
            "chunking changed the events"
        );
        let mut acc = StreamAccumulator::default();
        for event in &whole {
            if acc.feed(&event.data).is_err() {
                return Ok(());
            }
        }
        let _ = acc.finish();
        Ok(())
    });
}

#[test]
fn text_fallback_parser() {
    let seeds = seeds(&[
        r#"{"name": "call_service", "arguments": {"domain": "light", "service": "turn_on", "entity_id": "light.kitchen"}}"#,
        "```json\n{\"tool\": \"get_state\", \"parameters\": {\"entity_id\": \"sensor.outside\"}}\n```",
        r#"{"function": "search_entities", "args": {"query": "kitchen"}}"#,
        "I turned on the light. {\"name\": \"get_state\"}",
        r#"{"name": "rm_rf", "arguments": {}}"#,
    ]);
    let whitelist = ["search_entities", "get_state", "call_service", "list_areas"];
    fuzz("text_fallback_parser", seeds, |bytes| {
        use homeclaw::llm::fallback::{TextCall, parse_text_call};
        let text = String::from_utf8_lossy(bytes);
        if let TextCall::Call { name, .. } = parse_text_call(&text, &whitelist) {
            prop_assert!(
                whitelist.contains(&name.as_str()),
                "{name} passed the whitelist"
            );
        }
        Ok(())
    });
}

#[test]
fn session_loader() {
    use homeclaw::llm::Message;
    use homeclaw::session::store::SessionStore;
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), 20_000, 100_000);
    let history = vec![
        Message::user("turn on the kitchen light"),
        Message::system("[HomeClaw] note"),
    ];
    store.append("seed", &[], &history).unwrap();
    let seed = std::fs::read(dir.path().join("seed.jsonl")).unwrap();
    let mut with_tools = seed.clone();
    with_tools.extend_from_slice(
        br#"{"v":1,"message":{"role":"assistant","content":"ok","tool_calls":[]}}
"#,
    );
    fuzz("session_loader", vec![seed, with_tools], |bytes| {
        std::fs::write(dir.path().join("f.jsonl"), bytes).unwrap();
        // Any file loads (torn tail cut, damage set aside with a note), and loading what is
        // left gives the same conversation again: nothing is half-read.
        let first = store
            .load("f")
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let second = store
            .load("f")
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        if first.warnings.iter().all(|w| !w.contains("set aside")) {
            prop_assert_eq!(
                format!("{:?}", first.messages),
                format!("{:?}", second.messages)
            );
            prop_assert!(second.warnings.is_empty(), "{:?}", second.warnings);
        }
        for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if entry.file_name().to_string_lossy().contains(".corrupt-") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
    });
}

#[test]
fn wyoming_event_reader() {
    let seeds = seeds(&[
        "{\"type\": \"describe\"}\n",
        "{\"type\": \"transcript\", \"data\": {\"text\": \"turn on the light\", \"language\": \"en\"}}\n",
        "{\"type\": \"transcript\", \"data_length\": 27}\n{\"text\": \"turn on the light\"}       ",
        "{\"type\": \"audio-chunk\", \"data_length\": 2, \"payload_length\": 4}\n{}\u{0}\u{1}\u{2}\u{3}",
        "{\"type\": \"describe\"}\n{\"type\": \"transcript\", \"data\": {\"text\": \"hi\"}}\n",
    ]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    fuzz("wyoming_event_reader", seeds, |bytes| {
        rt.block_on(async {
            let mut reader = tokio::io::BufReader::new(bytes);
            // Events until the end or the first error; each event is bounded by the input.
            for _ in 0..64 {
                match homeclaw::wyoming::read_event(&mut reader).await {
                    Ok(Some(event)) => {
                        prop_assert!(event.payload.as_ref().map_or(0, Vec::len) <= bytes.len());
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            Ok(())
        })
    });
}

#[test]
fn mqtt_command_payload() {
    let seeds = seeds(&[
        "turn on the kitchen light",
        r#"{"text": "turn on the kitchen light", "session_id": "kitchen", "request_id": "r1", "reply_to": "home/reply"}"#,
        r#"{"text": "", "reply_to": "home/#"}"#,
    ]);
    fuzz("mqtt_command_payload", seeds, |bytes| {
        if let Ok(command) = homeclaw::mqtt::payload::parse(bytes, 4096) {
            prop_assert!(!command.text.trim().is_empty());
            if let Some(topic) = &command.reply_to {
                prop_assert!(homeclaw::mqtt::payload::valid_topic(topic), "{topic}");
            }
        }
        Ok(())
    });
}
