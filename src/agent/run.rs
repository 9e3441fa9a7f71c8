//! The sampling loop: a pure, deterministic core that takes its model and its home through
//! traits, so every guardrail is unit-tested with scripted replies and no sockets.
//!
//! Invariants:
//! - The request is rebuilt from the session history on every iteration, after repair.
//! - The tool calls of one reply run in order; their results are appended in call order, one
//!   result for every call, whatever happens (blocked, refused, stopped).
//! - After the last iteration one more sampling runs with tools disabled, so the user always
//!   gets a text answer.
//! - Guards are per run: a new command starts with an empty breaker and loop history.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::{Instrument, debug, info_span};

use super::guards::{CircuitBreaker, LoopDetectionConfig, LoopDetector, Verdict};
use super::home::{Home, with_registry};
use super::normalize::{call_hash, normalise_args, result_hash};
use super::prompt::system_prompt;
use super::repair::repair;
use super::tools::{ToolKind, ToolOutput, ToolRegistry};
use super::truncate::{TruncationConfig, budget_history, truncate};
use crate::ha::services::CheckedCall;
use crate::llm::{
    ChatModel, ChatRequest, ChatResponse, LlmError, Message, StreamDelta, ToolCall, ToolChoice,
};

/// Longest trace line, and most trace lines per run.
const TRACE_LINE_MAX: usize = 240;
const TRACE_LINES_MAX: usize = 200;

pub const FINAL_NOTE: &str = "You have used all tool rounds for this request. Do not call tools. \
Tell the user plainly what was done and what was not done, based only on the tool results above.";

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    pub max_iterations: u32,
    /// The model's effective context window, in tokens.
    pub context_window_tokens: usize,
    pub loop_detection: LoopDetectionConfig,
    pub truncation: TruncationConfig,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_iterations: 8,
            context_window_tokens: 100_000,
            loop_detection: LoopDetectionConfig::default(),
            truncation: TruncationConfig::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum RunStatus {
    Done,
    /// A guard stopped the run; the reason says which and why.
    Stopped(String),
    /// The model could not be reached (every model and retry failed).
    Failed(String),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub rounds: u32,
    pub tool_calls: u32,
    pub empty_tool_results: u32,
    pub rejected_tool_calls: u32,
    pub repaired_messages: u32,
    pub breaker_hits: u32,
    pub loop_warnings: u32,
    pub loop_blocks: u32,
    pub max_iterations_reached: bool,
    pub model_used: Option<String>,
    pub fallbacks_used: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub status: RunStatus,
    pub reply: String,
    pub trace: Vec<String>,
    pub stats: Stats,
    /// Service calls Home Assistant accepted, in order.
    pub actions: Vec<CheckedCall>,
}

/// A bounded trace: each line cut to a maximum, and the whole trace capped.
#[derive(Debug, Default)]
pub struct Trace {
    lines: Vec<String>,
    dropped: usize,
}

impl Trace {
    pub fn push(&mut self, line: impl Into<String>) {
        let line: String = line.into();
        if self.lines.len() >= TRACE_LINES_MAX {
            self.dropped += 1;
            return;
        }
        let line: String = line
            .chars()
            .map(|c| if c == '\n' { ' ' } else { c })
            .take(TRACE_LINE_MAX)
            .collect();
        self.lines.push(line);
    }

    pub fn finish(mut self) -> Vec<String> {
        if self.dropped > 0 {
            self.lines
                .push(format!("… {} more trace lines dropped", self.dropped));
        }
        self.lines
    }
}

pub struct Agent<'a> {
    pub model: &'a dyn ChatModel,
    pub home: &'a dyn Home,
    pub tools: &'a ToolRegistry,
    pub cfg: &'a AgentConfig,
}

enum CallEnd {
    Continue,
    Stop(String),
}

struct RunState {
    detector: LoopDetector,
    breaker: CircuitBreaker,
    stats: Stats,
    trace: Trace,
    actions: Vec<CheckedCall>,
}

impl<'a> Agent<'a> {
    /// The request for the current history.
    pub fn build_request(&self, history: &[Message], choice: ToolChoice) -> ChatRequest {
        let (system, tools) = with_registry(self.home, |r| {
            (system_prompt(r), self.tools.definitions(r, false, None))
        });
        ChatRequest {
            system: Some(system),
            messages: budget_history(history, self.cfg.truncation.history_budget_chars),
            tools,
            tool_choice: choice,
            max_tokens: None,
            temperature: None,
        }
    }

    /// Runs one command. `history` ends with the user's message; the run appends to it.
    pub async fn run(&self, history: &mut Vec<Message>) -> RunResult {
        self.run_inner(history, None).await
    }

    /// Like [`Self::run`], streaming the text of every sampling to `deltas`.
    pub async fn run_streaming(
        &self,
        history: &mut Vec<Message>,
        deltas: mpsc::Sender<StreamDelta>,
    ) -> RunResult {
        self.run_inner(history, Some(deltas)).await
    }

    async fn sample(
        &self,
        request: &ChatRequest,
        deltas: &Option<mpsc::Sender<StreamDelta>>,
    ) -> Result<ChatResponse, LlmError> {
        match deltas {
            Some(tx) => self.model.chat_stream(request, tx.clone()).await,
            None => self.model.chat(request).await,
        }
    }

    async fn run_inner(
        &self,
        history: &mut Vec<Message>,
        deltas: Option<mpsc::Sender<StreamDelta>>,
    ) -> RunResult {
        let mut state = RunState {
            detector: LoopDetector::new(self.cfg.loop_detection.clone()),
            breaker: CircuitBreaker::default(),
            stats: Stats::default(),
            trace: Trace::default(),
            actions: Vec::new(),
        };
        let whitelist = self.tools.names();
        for round in 1..=self.cfg.max_iterations {
            let span = info_span!("round", round);
            let report = repair(history, &whitelist);
            state.stats.repaired_messages += report.changes() as u32;
            for line in report.trace {
                state.trace.push(line);
            }
            let request = self.build_request(history, ToolChoice::Auto);
            let response = match self
                .sample(&request, &deltas)
                .instrument(span.clone())
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    state.trace.push(format!("model failed: {e}"));
                    return finish(state, RunStatus::Failed(e.to_string()), String::new());
                }
            };
            note_response(&mut state, &response);
            history.push(response.to_message());
            for rejected in &response.rejected {
                state.stats.rejected_tool_calls += 1;
                state.trace.push(format!(
                    "rejected tool {:?}: {}",
                    rejected.name, rejected.reason
                ));
                if let Verdict::Critical(reason) = state.detector.unknown_tool(&rejected.name) {
                    return finish(state, RunStatus::Stopped(reason), String::new());
                }
                history.push(Message::user(format!(
                    "[HomeClaw] That was not run: {}",
                    rejected.reason
                )));
            }
            if response.tool_calls.is_empty() {
                if !response.rejected.is_empty() {
                    continue;
                }
                state.trace.push(format!("answer after {round} round(s)"));
                return finish(state, RunStatus::Done, response.text);
            }
            let calls = response.tool_calls.clone();
            for (index, call) in calls.iter().enumerate() {
                let end = self
                    .run_call(call, &mut state, history)
                    .instrument(span.clone())
                    .await;
                if let CallEnd::Stop(reason) = end {
                    for skipped in &calls[index + 1..] {
                        history.push(Message::tool_result(
                            skipped,
                            ToolOutput::error("not run: the run was stopped").content,
                            true,
                        ));
                    }
                    state.trace.push(format!("stopped: {reason}"));
                    return finish(state, RunStatus::Stopped(reason), String::new());
                }
            }
        }
        self.final_answer(history, state, &deltas).await
    }

    async fn final_answer(
        &self,
        history: &mut Vec<Message>,
        mut state: RunState,
        deltas: &Option<mpsc::Sender<StreamDelta>>,
    ) -> RunResult {
        state.stats.max_iterations_reached = true;
        state.trace.push(format!(
            "reached {} rounds; asking for a final answer without tools",
            self.cfg.max_iterations
        ));
        let whitelist = self.tools.names();
        let report = repair(history, &whitelist);
        state.stats.repaired_messages += report.changes() as u32;
        let mut request = self.build_request(history, ToolChoice::None);
        request.messages.push(Message::user(FINAL_NOTE));
        match self.sample(&request, deltas).await {
            Ok(response) => {
                note_response(&mut state, &response);
                // Tools were disabled: any call it still makes is ignored.
                let mut message = Message::assistant(response.text.clone());
                if let Message::Assistant { provider_data, .. } = &mut message {
                    *provider_data = response.provider_data.clone();
                }
                history.push(message);
                let reply = if response.text.trim().is_empty() {
                    fallback_summary(&state.actions)
                } else {
                    response.text
                };
                finish(state, RunStatus::Done, reply)
            }
            Err(e) => {
                state
                    .trace
                    .push(format!("model failed on the final answer: {e}"));
                let reply = fallback_summary(&state.actions);
                finish(state, RunStatus::Failed(e.to_string()), reply)
            }
        }
    }

    /// Runs one tool call through the guards; always appends exactly one result.
    async fn run_call(
        &self,
        call: &ToolCall,
        state: &mut RunState,
        history: &mut Vec<Message>,
    ) -> CallEnd {
        state.stats.tool_calls += 1;
        let push = |history: &mut Vec<Message>, content: String, is_error: bool| {
            history.push(Message::tool_result(call, content, is_error));
        };
        let Some(kind) = ToolKind::from_name(&call.name) else {
            state.stats.rejected_tool_calls += 1;
            state.trace.push(format!("unknown tool {:?}", call.name));
            let verdict = state.detector.unknown_tool(&call.name);
            let message = format!(
                "unknown tool {:?}; available tools: {}",
                call.name,
                self.tools.names().join(", ")
            );
            push(history, ToolOutput::error(message).content, true);
            return match verdict {
                Verdict::Critical(reason) => CallEnd::Stop(reason),
                _ => CallEnd::Continue,
            };
        };
        let normalised = with_registry(self.home, |r| normalise_args(&call.arguments, r));
        let hash = call_hash(&call.name, &normalised);
        debug!(tool = %call.name, args = %normalised, "Tool call");
        let before = state
            .detector
            .before_call(&call.name, hash, kind.is_read_only());
        match &before {
            Verdict::Critical(reason) => {
                push(history, ToolOutput::error(reason.clone()).content, true);
                return CallEnd::Stop(reason.clone());
            }
            Verdict::Block(text) => {
                state.stats.loop_blocks += 1;
                state
                    .trace
                    .push(format!("blocked {}: repeated call", call.name));
                push(history, ToolOutput::error(text.clone()).content, true);
                return match state.detector.record_no_progress() {
                    Verdict::Critical(reason) => CallEnd::Stop(reason),
                    _ => CallEnd::Continue,
                };
            }
            _ => {}
        }
        let (mut content, is_error, raw_for_hash) =
            if let Some(earlier) = state.breaker.earlier_result(hash) {
                state.stats.breaker_hits += 1;
                state
                    .trace
                    .push(format!("breaker: {} {normalised} already ran", call.name));
                let raw = state.breaker.raw(hash).unwrap_or_default().to_owned();
                (earlier, false, raw)
            } else {
                let validated = with_registry(self.home, |r| self.tools.validate(call, r));
                let output = match validated {
                    Ok(valid) => self.tools.dispatch(&valid, self.home).await,
                    Err(message) => {
                        state.stats.rejected_tool_calls += 1;
                        state
                            .trace
                            .push(format!("invalid {} call: {message}", call.name));
                        ToolOutput::error(message)
                    }
                };
                if let Some(performed) = &output.performed {
                    state.trace.push(format!(
                        "called {}.{} on {:?}",
                        performed.domain, performed.service, performed.target.entity_id
                    ));
                    state.actions.push(performed.clone());
                } else if !output.is_error {
                    state.trace.push(format!("{} {normalised}: ok", call.name));
                }
                let limit = self
                    .cfg
                    .truncation
                    .result_limit(self.cfg.context_window_tokens);
                let content = truncate(&output.content, limit);
                if is_empty_result(&content) {
                    state.stats.empty_tool_results += 1;
                }
                state.breaker.record(hash, &content);
                (content.clone(), output.is_error, content)
            };
        let after = state.detector.after_call(result_hash(&raw_for_hash));
        let verdict = before.max(after);
        let end = match verdict {
            Verdict::Warn(warning) => {
                state.stats.loop_warnings += 1;
                state.trace.push(format!("loop warning on {}", call.name));
                content.push('\n');
                content.push_str(&warning);
                CallEnd::Continue
            }
            Verdict::Critical(reason) => CallEnd::Stop(reason),
            _ => CallEnd::Continue,
        };
        push(history, content, is_error);
        end
    }
}

fn note_response(state: &mut RunState, response: &ChatResponse) {
    state.stats.rounds += 1;
    state.stats.model_used = Some(response.model.clone());
    state.stats.fallbacks_used = state
        .stats
        .fallbacks_used
        .max(response.attempts.len().saturating_sub(1) as u32);
    if let Some(usage) = response.usage {
        state.stats.input_tokens += usage.input_tokens;
        state.stats.output_tokens += usage.output_tokens;
    }
}

fn is_empty_result(content: &str) -> bool {
    match serde_json::from_str::<Value>(content) {
        Ok(Value::Object(map)) => map
            .values()
            .any(|v| v.as_array().is_some_and(Vec::is_empty)),
        Ok(Value::Null) => true,
        _ => content.trim().is_empty(),
    }
}

/// What to say when the model gave no final text.
fn fallback_summary(actions: &[CheckedCall]) -> String {
    if actions.is_empty() {
        "I could not finish this request, and I made no changes.".into()
    } else {
        let done: Vec<String> = actions
            .iter()
            .map(|a| {
                format!(
                    "{}.{} on {}",
                    a.domain,
                    a.service,
                    a.target.entity_id.join(", ")
                )
            })
            .collect();
        format!(
            "I could not finish this request. Home Assistant accepted: {}.",
            done.join("; ")
        )
    }
}

fn finish(state: RunState, status: RunStatus, reply: String) -> RunResult {
    RunResult {
        status,
        reply,
        trace: state.trace.finish(),
        stats: state.stats,
        actions: state.actions,
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
