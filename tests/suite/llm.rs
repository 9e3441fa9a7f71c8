//! Providers over real HTTP against the scripted LLM server: each wire format, streaming,
//! every fault, retries and the fallback chain.

use std::time::{Duration, Instant};

use homeclaw::config::{LlmConfig, ModelConfig, Provider, StructuredOutput};
use homeclaw::llm::{
    ChatModel, ChatRequest, LlmChain, LlmError, Message, StopReason, ToolChoice, ToolDef,
};
use homeclaw::secret::Secret;
use serde_json::{Value, json};

use crate::common::scripted_llm::{
    Reply, ScriptedLlm, anthropic_calls, anthropic_text, gemini_calls, gemini_text, openai_calls,
    openai_text,
};

const KEY: &str = "sk-test-secret-key";

fn model(provider: Provider, base_url: String, name: &str) -> ModelConfig {
    ModelConfig {
        name: Some(name.into()),
        provider,
        base_url: Some(base_url),
        model: format!("{name}-model"),
        api_key: Some(Secret::new(KEY)),
        native_tools: true,
        max_tokens: Some(256),
        temperature: Some(0.0),
        max_tools: None,
        short_descriptions: false,
        stream: false,
        structured_output: StructuredOutput::Auto,
        warm_up: None,
    }
}

/// A model asked for streamed replies.
fn streaming(provider: Provider, base_url: String, name: &str) -> ModelConfig {
    ModelConfig {
        stream: true,
        ..model(provider, base_url, name)
    }
}

fn llm_config(models: Vec<ModelConfig>) -> LlmConfig {
    LlmConfig {
        models,
        max_attempts: 8,
        initial_backoff_ms: 1,
        max_backoff_ms: 5,
        max_retry_after_ms: 10_000,
        connect_timeout_ms: 2_000,
        request_timeout_ms: 5_000,
        stream_idle_timeout_ms: 2_000,
    }
}

fn chain(models: Vec<ModelConfig>) -> LlmChain {
    LlmChain::from_config(&llm_config(models)).unwrap()
}

fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "get_state".into(),
            description: "Read one entity's state.".into(),
            parameters: json!({"type": "object", "properties": {"entity_id": {"type": "string"}},
                "required": ["entity_id"]}),
            ..Default::default()
        },
        ToolDef {
            name: "list_areas".into(),
            description: "List the areas.".into(),
            parameters: json!({"type": "object", "properties": {}}),
            ..Default::default()
        },
    ]
}

fn request(messages: Vec<Message>, choice: ToolChoice) -> ChatRequest {
    ChatRequest {
        system: Some("You run a home.".into()),
        messages,
        tools: tools().into(),
        tool_choice: choice,
        max_tokens: None,
        temperature: None,
        reply_schema: None,
        context: None,
    }
}

/// Runs a tool-call round trip: first reply calls tools, we append results, second reply
/// answers. Returns the final text.
async fn round_trip(chain: &LlmChain) -> (Vec<Message>, String) {
    let mut history = vec![Message::user("Are the kitchen and bed lights on?")];
    let first = chain
        .chat(&request(history.clone(), ToolChoice::Required))
        .await
        .unwrap();
    assert_eq!(first.stop, StopReason::ToolCalls);
    assert_eq!(first.tool_calls.len(), 2, "parallel calls");
    history.push(first.to_message());
    for call in &first.tool_calls {
        let state = if call.arguments["entity_id"] == "light.kitchen" {
            "on"
        } else {
            "off"
        };
        history.push(Message::tool_result(
            call,
            json!({"state": state}).to_string(),
            false,
        ));
    }
    let second = chain
        .chat(&request(history.clone(), ToolChoice::Auto))
        .await
        .unwrap();
    assert!(second.tool_calls.is_empty());
    (history, second.text)
}

#[tokio::test]
async fn openai_round_trip_sends_tools_choice_and_history_faithfully() {
    let server = ScriptedLlm::start().await;
    server.push(openai_calls(&[
        ("call_a", "get_state", json!({"entity_id": "light.kitchen"})),
        ("call_b", "get_state", json!({"entity_id": "light.bed"})),
    ]));
    server.push(openai_text("Kitchen on, bed off."));
    let chain = chain(vec![model(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    let (_, text) = round_trip(&chain).await;
    assert_eq!(text, "Kitchen on, bed off.");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].headers["authorization"],
        format!("Bearer {KEY}")
    );
    let first = &requests[0].body;
    assert_eq!(first["model"], "primary-model");
    assert_eq!(first["tool_choice"], "required");
    assert_eq!(first["tools"][0]["function"]["name"], "get_state");
    assert_eq!(first["max_tokens"], 256);
    let second = &requests[1].body;
    assert_eq!(second["tool_choice"], "auto");
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_a");
    assert_eq!(messages[2]["tool_calls"][1]["id"], "call_b");
    assert_eq!(messages[3]["tool_call_id"], "call_a");
    assert_eq!(messages[4]["tool_call_id"], "call_b");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[tokio::test]
async fn anthropic_round_trip_keeps_ids_and_thinking_blocks() {
    let server = ScriptedLlm::start().await;
    server.push(anthropic_calls(&[
        (
            "toolu_1",
            "get_state",
            json!({"entity_id": "light.kitchen"}),
        ),
        ("toolu_2", "get_state", json!({"entity_id": "light.bed"})),
    ]));
    server.push(anthropic_text("Kitchen on, bed off."));
    let chain = chain(vec![model(
        Provider::Anthropic,
        server.root_url(),
        "claude",
    )]);
    let (_, text) = round_trip(&chain).await;
    assert_eq!(text, "Kitchen on, bed off.");

    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].headers["x-api-key"], KEY);
    assert_eq!(requests[0].headers["anthropic-version"], "2023-06-01");
    assert_eq!(requests[0].body["tool_choice"], json!({"type": "any"}));
    assert_eq!(requests[0].body["system"], "You run a home.");
    let turns = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(turns[1]["content"][0]["signature"], "sig-anthropic");
    assert_eq!(turns[1]["content"][1]["id"], "toolu_1");
    assert_eq!(turns[2]["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(turns[2]["content"][1]["tool_use_id"], "toolu_2");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[tokio::test]
async fn gemini_round_trip_sends_thought_signatures_back_unchanged() {
    let server = ScriptedLlm::start().await;
    server.push(gemini_calls(&[
        (
            "get_state",
            json!({"entity_id": "light.kitchen"}),
            "sig-one",
        ),
        ("get_state", json!({"entity_id": "light.bed"}), "sig-two"),
    ]));
    server.push(gemini_text("Kitchen on, bed off."));
    let chain = chain(vec![model(Provider::Gemini, server.root_url(), "gemini")]);
    let (_, text) = round_trip(&chain).await;
    assert_eq!(text, "Kitchen on, bed off.");

    let requests = server.requests();
    assert_eq!(
        requests[0].path,
        "/v1beta/models/gemini-model:generateContent"
    );
    assert_eq!(requests[0].headers["x-goog-api-key"], KEY);
    assert_eq!(
        requests[0].body["toolConfig"]["functionCallingConfig"]["mode"],
        "ANY"
    );
    let contents = requests[1].body["contents"].as_array().unwrap();
    assert_eq!(contents[1]["parts"][0]["thoughtSignature"], "sig-one");
    assert_eq!(contents[1]["parts"][1]["thoughtSignature"], "sig-two");
    assert_eq!(
        contents[2]["parts"][1]["functionResponse"]["response"],
        json!({"state": "off"})
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

fn stream_events(with_text: bool) -> Vec<String> {
    let mut events = Vec::new();
    if with_text {
        events.push(json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me "}}]}).to_string());
        events.push(json!({"choices": [{"index": 0, "delta": {"content": "check."}}]}).to_string());
    }
    events.push(
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_s",
        "type": "function", "function": {"name": "get_state", "arguments": "{\"entity"}}]}}]})
        .to_string(),
    );
    events
}

fn stream_rest() -> Vec<String> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
            "function": {"arguments": "_id\": \"light.kitchen\"}"}}]}}]})
        .to_string(),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}).to_string(),
        json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 12}}).to_string(),
        "[DONE]".to_string(),
    ]
}

#[tokio::test]
async fn openai_streaming_assembles_text_and_tool_calls() {
    let server = ScriptedLlm::start().await;
    let mut events = stream_events(true);
    events.extend(stream_rest());
    server.push(Reply::Sse(events));
    let chain = chain(vec![streaming(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    let reply = chain
        .chat(&request(vec![Message::user("kitchen?")], ToolChoice::Auto))
        .await
        .unwrap();
    assert_eq!(reply.text, "Let me check.");
    assert_eq!(reply.tool_calls[0].id, "call_s");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"entity_id": "light.kitchen"})
    );
    assert_eq!(reply.usage.unwrap().input_tokens, 50);
    assert_eq!(server.requests()[0].body["stream"], true);
}

#[tokio::test]
async fn a_stream_cut_mid_tool_call_is_retried_and_no_partial_reply_is_used() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::SseCut(stream_events(true)));
    let mut events = stream_events(false);
    events.extend(stream_rest());
    server.push(Reply::Sse(events));
    let chain = chain(vec![streaming(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    let reply = chain
        .chat(&request(vec![Message::user("kitchen?")], ToolChoice::Auto))
        .await
        .unwrap();
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"entity_id": "light.kitchen"})
    );
    // The cut attempt's "Let me check." is not part of the answer.
    assert_eq!(reply.text, "");
    assert_eq!(reply.attempts[0].attempts, 2);
}

#[tokio::test]
async fn a_reset_connection_mid_stream_is_retried() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::SseReset(stream_events(false)));
    let mut events = stream_events(false);
    events.extend(stream_rest());
    server.push(Reply::Sse(events));
    let chain = chain(vec![streaming(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    let reply = chain
        .chat(&request(vec![Message::user("kitchen?")], ToolChoice::Auto))
        .await
        .unwrap();
    assert_eq!(reply.tool_calls[0].name, "get_state");
    assert_eq!(reply.attempts[0].attempts, 2);
}

#[tokio::test]
async fn a_model_without_stream_is_asked_for_a_whole_reply() {
    let server = ScriptedLlm::start().await;
    server.push(openai_text("whole"));
    let chain = chain(vec![model(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    let reply = chain
        .chat(&request(vec![Message::user("hi")], ToolChoice::Auto))
        .await
        .unwrap();
    assert_eq!(reply.text, "whole");
    assert!(server.requests()[0].body.get("stream").is_none());
}

#[tokio::test]
async fn rate_limits_honour_retry_after() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::Status {
        status: 429,
        body: r#"{"error": {"message": "slow down"}}"#.into(),
        retry_after: Some("0.3".into()),
    });
    server.push(openai_text("ok"));
    let mut slow_backoff = llm_config(vec![model(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    // Without Retry-After the jittered backoff could be anything up to ten minutes.
    slow_backoff.initial_backoff_ms = 600_000;
    slow_backoff.max_backoff_ms = 600_000;
    let chain = LlmChain::from_config(&slow_backoff).unwrap();
    let started = Instant::now();
    let reply = tokio::time::timeout(
        Duration::from_secs(30),
        chain.chat(&request(vec![Message::user("hi")], ToolChoice::Auto)),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(reply.text, "ok");
    assert_eq!(reply.attempts[0].attempts, 2);
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_moves_to_the_next_model() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::Status {
        status: 429,
        body: "busy".into(),
        retry_after: Some("3600".into()),
    });
    server.push(anthropic_text("from the fallback"));
    let chain = chain(vec![
        model(Provider::Openai, server.openai_url(), "primary"),
        model(Provider::Anthropic, server.root_url(), "fallback"),
    ]);
    let reply = chain
        .chat(&request(vec![Message::user("hi")], ToolChoice::Auto))
        .await
        .unwrap();
    assert_eq!(reply.model, "fallback");
    assert_eq!(reply.text, "from the fallback");
    assert_eq!(reply.attempts.len(), 2);
    assert_eq!(reply.attempts[0].attempts, 1);
}

#[tokio::test]
async fn server_errors_invalid_json_and_slow_replies_are_retried() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::Status {
        status: 500,
        body: "oops".into(),
        retry_after: None,
    });
    server.push(Reply::InvalidJson);
    server.push(Reply::Delay(
        Duration::from_secs(3),
        Box::new(openai_text("too late")),
    ));
    server.push(openai_text("finally"));
    let mut cfg = llm_config(vec![model(
        Provider::Openai,
        server.openai_url(),
        "primary",
    )]);
    cfg.request_timeout_ms = 500;
    let chain = LlmChain::from_config(&cfg).unwrap();
    let reply = chain
        .chat(&request(vec![Message::user("hi")], ToolChoice::Auto))
        .await
        .unwrap();
    assert_eq!(reply.text, "finally");
    assert_eq!(reply.attempts[0].attempts, 4);
}

#[tokio::test]
async fn client_errors_are_not_retried_and_fall_back_across_formats() {
    for status in [400, 401, 404] {
        let server = ScriptedLlm::start().await;
        server.push(Reply::Status {
            status,
            body: format!("{{\"error\": \"bad request with key {KEY}\"}}"),
            retry_after: None,
        });
        server.push(gemini_text("gemini answered"));
        let chain = chain(vec![
            model(Provider::Openai, server.openai_url(), "primary"),
            model(Provider::Gemini, server.root_url(), "backup"),
        ]);
        let reply = chain
            .chat(&request(vec![Message::user("hi")], ToolChoice::Auto))
            .await
            .unwrap();
        assert_eq!(reply.model, "backup", "{status}");
        assert_eq!(
            reply.attempts[0].attempts, 1,
            "{status}: no retry on a client error"
        );
        let error = reply.attempts[0].error.as_deref().unwrap();
        assert!(error.contains(&status.to_string()), "{error}");
        assert!(!error.contains(KEY), "the key leaked into {error}");
    }
}

/// A model that answered 4xx is not asked again on the next round: the fallback answers at once,
/// and the chain's health says which model cools down and why.
#[tokio::test]
async fn a_model_that_failed_with_a_client_error_cools_down_and_health_says_so() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::Status {
        status: 404,
        body: r#"{"error": "no such model"}"#.into(),
        retry_after: None,
    });
    server.push(gemini_text("first"));
    server.push(gemini_text("second"));
    let chain = chain(vec![
        model(Provider::Openai, server.openai_url(), "primary"),
        model(Provider::Gemini, server.root_url(), "backup"),
    ]);
    let hi = request(vec![Message::user("hi")], ToolChoice::Auto);
    assert_eq!(chain.chat(&hi).await.unwrap().text, "first");
    let second = chain.chat(&hi).await.unwrap();
    assert_eq!(second.text, "second");
    assert_eq!(second.attempts.len(), 1, "the broken model was asked again");
    assert_eq!(second.attempts[0].model, "backup");
    assert_eq!(server.requests().len(), 3);
    let health = chain.health();
    assert_eq!(health[0].name, "primary");
    assert_eq!(health[0].state, "cooling_down");
    assert!(health[0].last_error.as_deref().unwrap().contains("404"));
    assert_eq!(health[1].state, "ok");
}

#[tokio::test]
async fn when_every_model_fails_the_error_says_how_each_failed() {
    let server = ScriptedLlm::start().await;
    for _ in 0..3 {
        server.push(Reply::Status {
            status: 503,
            body: "down".into(),
            retry_after: None,
        });
    }
    server.push(Reply::Status {
        status: 401,
        body: "no".into(),
        retry_after: None,
    });
    let mut cfg = llm_config(vec![
        model(Provider::Openai, server.openai_url(), "primary"),
        model(Provider::Anthropic, server.root_url(), "second"),
    ]);
    cfg.max_attempts = 3;
    let chain = LlmChain::from_config(&cfg).unwrap();
    let err = chain
        .chat(&request(vec![Message::user("hi")], ToolChoice::Auto))
        .await
        .unwrap_err();
    match &err {
        LlmError::Exhausted { attempts } => {
            assert_eq!(attempts[0].attempts, 3);
            assert_eq!(attempts[1].attempts, 1);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("primary (3 attempts: primary answered HTTP 503")
    );
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut cfg = llm_config(vec![model(
        Provider::Openai,
        format!("http://127.0.0.1:{port}/v1"),
        "gone",
    )]);
    cfg.max_attempts = 2;
    let err = LlmChain::from_config(&cfg)
        .unwrap()
        .chat(&request(vec![Message::user("hi")], ToolChoice::Auto))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("gone (2 attempts: cannot reach gone"),
        "{err}"
    );
}

#[tokio::test]
async fn text_models_get_tools_in_the_prompt_and_their_json_becomes_a_validated_call() {
    let server = ScriptedLlm::start().await;
    // What Qwen2.5-Coder actually does: the call as bare JSON in the content.
    server.push(openai_text(
        "{\"name\": \"get_state\", \"arguments\": {\"entity_id\": \"light.kitchen\"}}",
    ));
    server.push(openai_text(
        "```json\n{\"name\": \"open_all_doors\", \"arguments\": {}}\n```",
    ));
    server.push(openai_text(
        "You could call {\"name\": \"get_state\", \"arguments\": {}} to check.",
    ));
    let mut local = model(Provider::Openai, server.openai_url(), "local");
    local.native_tools = false;
    local.api_key = None;
    let chain = chain(vec![local]);
    let req = request(vec![Message::user("kitchen?")], ToolChoice::Required);

    let call = chain.chat(&req).await.unwrap();
    assert_eq!(call.tool_calls.len(), 1);
    assert_eq!(call.tool_calls[0].name, "get_state");
    assert_eq!(
        call.tool_calls[0].arguments,
        json!({"entity_id": "light.kitchen"})
    );
    assert!(call.text.is_empty());

    let rejected = chain.chat(&req).await.unwrap();
    assert!(rejected.tool_calls.is_empty());
    assert_eq!(rejected.rejected[0].name, "open_all_doors");

    let prose = chain.chat(&req).await.unwrap();
    assert!(prose.tool_calls.is_empty() && prose.rejected.is_empty());

    let sent = &server.requests()[0];
    assert!(
        sent.body.get("tools").is_none(),
        "no native tools for a text model"
    );
    assert!(!sent.headers.contains_key("authorization"));
    let system = sent.body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("- get_state: Read one entity's state."),
        "{system}"
    );
    assert!(system.contains("You must call a tool now."), "{system}");

    // History with a parsed call goes back as text the model can read.
    let mut history = vec![Message::user("kitchen?"), call.to_message()];
    history.push(Message::tool_result(&call.tool_calls[0], "on", false));
    server.push(openai_text("It is on."));
    chain
        .chat(&request(history, ToolChoice::Auto))
        .await
        .unwrap();
    let last = server.requests().pop().unwrap();
    let roles: Vec<Value> = last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(
        roles,
        vec![
            json!("system"),
            json!("user"),
            json!("assistant"),
            json!("user")
        ]
    );
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

/// A reply schema in the shape the agent sends: a get_state call on a real id, or an answer.
fn reply_schema() -> Value {
    json!({"anyOf": [
        {"type": "object", "properties": {
            "name": {"const": "get_state"},
            "arguments": {"type": "object", "properties": {"entity_id": {"enum": ["light.kitchen"]}},
                "required": ["entity_id"], "additionalProperties": false}},
         "required": ["name", "arguments"], "additionalProperties": false},
        {"type": "object", "properties": {"answer": {"type": "string"}},
         "required": ["answer"], "additionalProperties": false}
    ]})
}

fn text_model(server: &ScriptedLlm, structured: StructuredOutput) -> ModelConfig {
    ModelConfig {
        native_tools: false,
        api_key: None,
        structured_output: structured,
        ..model(Provider::Openai, server.openai_url(), "local")
    }
}

#[tokio::test]
async fn a_text_model_is_held_to_the_reply_schema_and_its_json_answer_is_plain_text() {
    let server = ScriptedLlm::start().await;
    server.push(openai_text(
        "{\"name\": \"get_state\", \"arguments\": {\"entity_id\": \"light.kitchen\"}}",
    ));
    server.push(openai_text("{\"answer\": \"The kitchen light is on.\"}"));
    let chain = chain(vec![text_model(&server, StructuredOutput::Auto)]);
    let req = ChatRequest {
        reply_schema: Some(std::sync::Arc::new(reply_schema())),
        ..request(vec![Message::user("kitchen?")], ToolChoice::Auto)
    };

    let call = chain.chat(&req).await.unwrap();
    assert_eq!(call.tool_calls.len(), 1);
    assert_eq!(call.tool_calls[0].name, "get_state");
    let answer = chain.chat(&req).await.unwrap();
    assert!(answer.tool_calls.is_empty());
    assert_eq!(answer.text, "The kitchen light is on.");

    let sent = &server.requests()[0];
    assert_eq!(sent.body["response_format"]["type"], "json_schema");
    assert_eq!(
        sent.body["response_format"]["json_schema"]["schema"],
        reply_schema()
    );
    let system = sent.body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("reply with ONLY {\"answer\""), "{system}");
    // The grammar writes properties in the order sent: the tool's name before its arguments.
    let raw = serde_json::to_string(&sent.body["response_format"]).unwrap();
    assert!(raw.find("\"name\"").unwrap() < raw.find("\"arguments\"").unwrap());
}

#[tokio::test]
async fn a_server_that_refuses_structured_output_is_asked_without_it_from_then_on() {
    let server = ScriptedLlm::start().await;
    server.push(Reply::Status {
        status: 400,
        body: "{\"error\": {\"message\": \"response_format is not supported\"}}".into(),
        retry_after: None,
    });
    server.push(openai_text("The kitchen light is on."));
    server.push(openai_text("Still on."));
    let chain = chain(vec![text_model(&server, StructuredOutput::Auto)]);
    let req = ChatRequest {
        reply_schema: Some(std::sync::Arc::new(reply_schema())),
        ..request(vec![Message::user("kitchen?")], ToolChoice::Auto)
    };
    let first = chain.chat(&req).await.unwrap();
    assert_eq!(first.text, "The kitchen light is on.");
    assert_eq!(first.attempts[0].attempts, 1, "not a failed attempt");
    let second = chain.chat(&req).await.unwrap();
    assert_eq!(second.text, "Still on.");
    let sent = server.requests();
    assert_eq!(sent.len(), 3);
    assert!(sent[0].body.get("response_format").is_some());
    assert!(sent[1].body.get("response_format").is_none());
    assert!(sent[2].body.get("response_format").is_none());
    let system = sent[1].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Answer in plain text"), "{system}");
    assert!(chain.health().iter().all(|h| h.last_error.is_none()));

    // `on` insists: a refusal is the model's error, never a silent downgrade.
    let strict = ScriptedLlm::start().await;
    strict.push(Reply::Status {
        status: 400,
        body: "response_format is not supported".into(),
        retry_after: None,
    });
    let chain = self::chain(vec![text_model(&strict, StructuredOutput::On)]);
    let err = chain.chat(&req).await.unwrap_err();
    assert!(err.to_string().contains("400"), "{err}");
    assert_eq!(strict.requests().len(), 1);
}

#[tokio::test]
async fn native_tool_models_and_off_never_send_a_response_format() {
    let server = ScriptedLlm::start().await;
    server.push(openai_text("on"));
    server.push(openai_text("on"));
    let native = model(Provider::Openai, server.openai_url(), "native");
    let off = text_model(&server, StructuredOutput::Off);
    let req = ChatRequest {
        reply_schema: Some(std::sync::Arc::new(reply_schema())),
        ..request(vec![Message::user("kitchen?")], ToolChoice::Auto)
    };
    chain(vec![native]).chat(&req).await.unwrap();
    chain(vec![off]).chat(&req).await.unwrap();
    for sent in server.requests() {
        assert!(sent.body.get("response_format").is_none(), "{}", sent.body);
    }
}
