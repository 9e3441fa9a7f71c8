//! Test doubles of the model: scripted replies (every request recorded) and an echo, for unit
//! tests and the benchmarks (feature `testkit`); never in the release build. The home they
//! act on is the self-check's ([`crate::agent::selfcheck::home`]).

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use crate::llm::{ChatModel, ChatRequest, ChatResponse, LlmError, StopReason, ToolCall};

/// Replies handed out in order; every request is recorded.
#[derive(Default)]
pub struct ScriptedModel {
    replies: Mutex<VecDeque<Result<ChatResponse, LlmError>>>,
    requests: Mutex<Vec<ChatRequest>>,
}

pub fn text_reply(text: &str) -> ChatResponse {
    ChatResponse {
        text: text.to_owned(),
        tool_calls: Vec::new(),
        rejected: Vec::new(),
        stop: StopReason::EndTurn,
        usage: None,
        provider_data: None,
        model: "scripted".into(),
        attempts: Vec::new(),
    }
}

/// A reply that makes one service call on one entity.
pub fn service_reply(salt: &str, domain: &str, service: &str, entity_id: &str) -> ChatResponse {
    calls_reply(
        salt,
        &[(
            "call_service",
            json!({"domain": domain, "service": service, "entity_id": entity_id}),
        )],
    )
}

/// A reply with these calls; ids are `call_<n>` in order, unique per reply via `salt`.
pub fn calls_reply(salt: &str, calls: &[(&str, Value)]) -> ChatResponse {
    ChatResponse {
        tool_calls: calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall {
                id: format!("call_{salt}_{i}"),
                name: (*name).to_owned(),
                arguments: args.clone(),
                provider_data: None,
            })
            .collect(),
        stop: StopReason::ToolCalls,
        ..text_reply("")
    }
}

impl ScriptedModel {
    pub fn new(replies: Vec<ChatResponse>) -> Self {
        Self {
            replies: Mutex::new(replies.into_iter().map(Ok).collect()),
            requests: Mutex::new(Vec::new()),
        }
    }

    pub fn push(&self, reply: Result<ChatResponse, LlmError>) {
        self.replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(reply);
    }

    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn request_count(&self) -> usize {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn clear_requests(&self) {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

impl ChatModel for ScriptedModel {
    fn uses_reply_schema(&self) -> bool {
        true
    }

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.clone());
        let next = self
            .replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        Box::pin(async move {
            next.unwrap_or_else(|| Err(LlmError::Config("scripted model: no reply queued".into())))
        })
    }
}

/// Answers every request with `echo: <last user message>` at once: a zero-latency model whose
/// replies can be matched to their requests (concurrency tests, load benchmarks).
#[derive(Default)]
pub struct EchoModel;

impl ChatModel for EchoModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        let last = request
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                crate::llm::Message::User { content } => Some(content.clone()),
                _ => None,
            })
            .unwrap_or_default();
        Box::pin(async move { Ok(text_reply(&format!("echo: {last}"))) })
    }
}

/// The calls a fast-path plan makes, as "domain.service entity_id" sorted, with each call's
/// data and the reply's language; the plan itself when it is no action.
pub fn planned_calls(
    plan: crate::agent::plan::Plan,
) -> Result<(Vec<String>, Vec<Value>, crate::agent::understand::Lang), crate::agent::plan::Plan> {
    match plan {
        crate::agent::plan::Plan::Act { calls, lang } => {
            let mut said: Vec<String> = calls
                .iter()
                .flat_map(|c| {
                    c.entity_ids
                        .iter()
                        .map(move |id| format!("{}.{} {id}", c.domain, c.service))
                })
                .collect();
            said.sort();
            Ok((said, calls.into_iter().map(|c| c.data).collect(), lang))
        }
        other => Err(other),
    }
}
