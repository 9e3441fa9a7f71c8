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

use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::{Instrument, debug, info_span};

use std::time::Duration;

use super::approval::{ApprovalStore, PendingAction, needs_approval};
use super::compaction::{CompactionError, compact, estimate_tokens, refresh_note};
use super::guards::{CircuitBreaker, LoopDetector, Verdict};
use super::home::{Home, with_registry};
use super::honesty::{asks_question, claims_action, claims_action_or_observation, needs_tools};
use super::normalize::{call_hash, normalise_args, result_hash};
use super::prompt::system_prompt;
use super::repair::repair;
use super::tools::{ToolKind, ToolOutput, ToolRegistry, ValidCall};
use super::truncate::{budget_history, truncate};
use super::verify::{ActionReport, before_states, target_entities, verify};
use crate::config::AgentConfig;
use crate::llm::{
    ChatModel, ChatRequest, ChatResponse, LlmError, Message, StreamDelta, ToolCall, ToolChoice,
};

/// Longest trace line, and most trace lines per run.
const TRACE_LINE_MAX: usize = 240;
const TRACE_LINES_MAX: usize = 200;

pub const CORRECTIVE_NOTE: &str = "[HomeClaw] You said you did or checked something, but you \
made no tool call for this request. Nothing has been done or checked. Use the tools now to \
actually do or check it, or say plainly that you did not.";

pub const UNBACKED_REPLY: &str = "I did not do or check anything for this request: the model \
claimed a result without using Home Assistant, so I am not repeating that claim.";

pub const AUDIT_NOTE: &str = "[HomeClaw] Warning: the conversation was just compacted and you \
stated something about the home without checking it with a tool. Check it with the tools now, \
or say plainly that you did not.";

pub const RESET_NOTE: &str = "[HomeClaw] The conversation was reset: the model provider \
rejected its history even after it was summarised. Earlier messages are no longer in context.";

pub const FINAL_NOTE: &str = "You have used all tool rounds for this request. Do not call tools. \
Tell the user plainly what was done and what was not done, based only on the tool results above.";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    Done,
    /// The run needs the user to say more; the reply is the question. The next message in the
    /// same session continues.
    ClarificationRequired,
    /// A high-risk action waits for approval ([`RunResult::approval`]).
    ApprovalRequired,
    /// The request could not be carried out; the reason says why.
    Failed(String),
    /// No model answered (every model and retry failed).
    ModelUnavailable(String),
}

impl RunStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::ClarificationRequired => "clarification_required",
            Self::ApprovalRequired => "approval_required",
            Self::Failed(_) | Self::ModelUnavailable(_) => "failed",
        }
    }
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
    pub hallucination_retries: u32,
    pub compactions: u32,
    pub verified_actions: u32,
    pub unverified_actions: u32,
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
    /// Service calls Home Assistant accepted, in order, each verified or not.
    pub actions: Vec<ActionReport>,
    /// The recorded high-risk action waiting for approval.
    pub approval: Option<PendingAction>,
    /// The history was compacted: earlier messages were replaced, not only appended to.
    pub compacted: bool,
    /// The history was reset after the provider kept rejecting it.
    pub reset: bool,
}

/// A bounded trace: each line cut to a maximum, and the whole trace capped.
#[derive(Debug, Default)]
pub struct Trace {
    lines: Vec<String>,
    dropped: usize,
    secrets: Vec<String>,
}

impl Trace {
    pub fn new(secrets: Vec<String>) -> Self {
        Self {
            secrets,
            ..Self::default()
        }
    }

    pub fn push(&mut self, line: impl Into<String>) {
        let line = crate::secret::redact(&line.into(), &self.secrets);
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

/// When and how far to compact the history during a run.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPolicy {
    /// Estimated tokens of history above which it is compacted before sampling.
    pub limit_tokens: usize,
    /// Reported input tokens above which it is compacted before the next iteration.
    pub usage_ceiling_tokens: usize,
    /// How much recent history to keep verbatim.
    pub keep_tokens: usize,
}

impl CompactionPolicy {
    pub fn for_window(context_tokens: usize) -> Self {
        Self {
            limit_tokens: context_tokens,
            usage_ceiling_tokens: context_tokens,
            keep_tokens: context_tokens / 4,
        }
    }
}

pub struct Agent<'a> {
    pub model: &'a dyn ChatModel,
    pub home: &'a dyn Home,
    pub tools: &'a ToolRegistry,
    pub cfg: &'a AgentConfig,
    pub approvals: &'a ApprovalStore,
    pub session_id: Option<String>,
    /// Plan and validate only: no service is called.
    pub dry_run: bool,
    /// Values to redact from the trace (tokens, API keys).
    pub secrets: Vec<String>,
    /// Compaction during the run; `None` never compacts.
    pub compaction: Option<CompactionPolicy>,
    /// Input that arrived for this session while the run is in progress: drained before each
    /// sampling after the first, it joins the turn.
    pub inbox: Option<&'a (dyn Fn() -> Vec<String> + Send + Sync)>,
}

enum CallEnd {
    Continue,
    /// A guard stopped the run; this is why.
    Stop(String),
    /// A high-risk call was recorded for approval.
    Approval(Box<PendingAction>),
}

struct RunState {
    detector: LoopDetector,
    breaker: CircuitBreaker,
    stats: Stats,
    trace: Trace,
    actions: Vec<ActionReport>,
    approval: Option<PendingAction>,
    compacted: bool,
    reset: bool,
}

impl<'a> Agent<'a> {
    pub fn new(
        model: &'a dyn ChatModel,
        home: &'a dyn Home,
        tools: &'a ToolRegistry,
        cfg: &'a AgentConfig,
        approvals: &'a ApprovalStore,
    ) -> Self {
        Self {
            model,
            home,
            tools,
            cfg,
            approvals,
            session_id: None,
            dry_run: false,
            secrets: Vec::new(),
            compaction: None,
            inbox: None,
        }
    }

    /// The request for the current history.
    pub fn build_request(&self, history: &[Message], choice: ToolChoice) -> ChatRequest {
        let (system, tools) =
            with_registry(self.home, |r| (system_prompt(r), self.tools.definitions(r)));
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
        let result = self.run_inner(history, None).await;
        self.sealed(result)
    }

    /// The reply leaves HomeClaw (HTTP, MQTT, a speaker): no secret goes with it, whatever
    /// the model wrote.
    fn sealed(&self, mut result: RunResult) -> RunResult {
        result.reply = crate::secret::redact(&result.reply, &self.secrets);
        if let RunStatus::Failed(reason) | RunStatus::ModelUnavailable(reason) = &mut result.status
        {
            *reason = crate::secret::redact(reason, &self.secrets);
        }
        result
    }

    /// Like [`Self::run`], streaming the text of every sampling to `deltas`.
    pub async fn run_streaming(
        &self,
        history: &mut Vec<Message>,
        deltas: mpsc::Sender<StreamDelta>,
    ) -> RunResult {
        let result = self.run_inner(history, Some(deltas)).await;
        self.sealed(result)
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
            trace: Trace::new(self.secrets.clone()),
            actions: Vec::new(),
            approval: None,
            compacted: false,
            reset: false,
        };
        let whitelist = self.tools.names();
        let mut force_compaction = false;
        let mut audit_pending = false;
        let mut recovered = false;
        let command = history
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User { content } => Some(content.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let wants_tools = with_registry(self.home, |r| needs_tools(&command, r));
        let mut choice = if wants_tools {
            state
                .trace
                .push("command acts or asks about the home: tool call required");
            ToolChoice::Required
        } else {
            ToolChoice::Auto
        };
        for round in 1..=self.cfg.max_iterations {
            let span = info_span!("round", round);
            if round > 1
                && let Some(inbox) = self.inbox
            {
                for text in inbox() {
                    let duplicate = matches!(history.last(), Some(Message::User { content }) if *content == text);
                    if duplicate {
                        state
                            .trace
                            .push("input joined: identical to the last message, kept once");
                    } else {
                        state.trace.push("input joined the turn");
                        history.push(Message::user(text));
                    }
                }
            }
            if let Some(policy) = &self.compaction
                && (force_compaction || estimate_tokens(history) > policy.limit_tokens)
            {
                force_compaction = false;
                match self
                    .compact_now(history, policy.keep_tokens, &mut state)
                    .await
                {
                    Ok(()) => audit_pending = true,
                    Err(CompactionError::NothingToCompact) => {
                        state.trace.push("compaction: nothing older to summarise");
                    }
                    Err(e) => {
                        state.trace.push(format!("{e}"));
                        return finish(state, RunStatus::Failed(e.to_string()), String::new());
                    }
                }
            }
            let report = repair(history, &whitelist);
            state.stats.repaired_messages += report.changes() as u32;
            for line in report.trace {
                state.trace.push(line);
            }
            let request = self.build_request(history, std::mem::take(&mut choice));
            let response = match self
                .sample(&request, &deltas)
                .instrument(span.clone())
                .await
            {
                Ok(r) => r,
                Err(e) if e.is_request_rejected() && !recovered => {
                    // The provider rejects the history itself: summarise it and retry once.
                    recovered = true;
                    state.trace.push(format!(
                        "provider rejected the history ({e}); compacting to recover"
                    ));
                    match self.compact_now(history, 0, &mut state).await {
                        Ok(()) => continue,
                        Err(_) => return self.reset(history, state, e),
                    }
                }
                Err(e) if e.is_request_rejected() => return self.reset(history, state, e),
                Err(e) => {
                    state.trace.push(format!("model failed: {e}"));
                    // Whatever already ran is said, so a retry does not repeat it blindly.
                    let reply = fallback_summary(&state.actions);
                    return finish(state, RunStatus::ModelUnavailable(e.to_string()), reply);
                }
            };
            note_response(&mut state, &response);
            if let (Some(policy), Some(usage)) = (&self.compaction, response.usage)
                && usage.input_tokens as usize > policy.usage_ceiling_tokens
            {
                force_compaction = true;
            }
            let audit_now = std::mem::take(&mut audit_pending);
            history.push(response.to_message());
            for rejected in &response.rejected {
                state.stats.rejected_tool_calls += 1;
                state.trace.push(format!(
                    "rejected tool {:?}: {}",
                    rejected.name, rejected.reason
                ));
                if let Verdict::Critical(reason) = state.detector.unknown_tool(&rejected.name) {
                    return stuck(state, reason);
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
                let text = response.text;
                if audit_now && claims_action_or_observation(&text) {
                    choice = demand_tools(
                        &mut state,
                        history,
                        "post-compaction audit: claim without a tool call; retrying",
                        AUDIT_NOTE,
                    );
                    continue;
                }
                // Unbacked: a claim with no tool call at all, or an action claim with no verified
                // action behind it (the model said "turned on" after its call failed).
                let unbacked = (state.stats.tool_calls == 0 && claims_action_or_observation(&text))
                    || (claims_action(&text) && !state.actions.iter().any(|a| a.verified));
                if unbacked {
                    if state.stats.hallucination_retries == 0 {
                        choice = demand_tools(
                            &mut state,
                            history,
                            "hallucination guard: claim without a tool call; retrying",
                            CORRECTIVE_NOTE,
                        );
                        continue;
                    }
                    state
                        .trace
                        .push("hallucination guard: the claim stayed unbacked; not repeating it");
                    history.push(Message::user(
                        "[HomeClaw] The previous reply was withheld from the user: it claimed \
                         something no tool did.",
                    ));
                    return finish(
                        state,
                        RunStatus::Failed(
                            "the model claimed an action or observation it did not make".into(),
                        ),
                        UNBACKED_REPLY.to_owned(),
                    );
                }
                state.trace.push(format!("answer after {round} round(s)"));
                // A command that needed the home, answered with a question and no action, is a
                // request for clarification (small talk ending in "?" is not).
                if wants_tools && state.actions.is_empty() && asks_question(&text) {
                    return finish(state, RunStatus::ClarificationRequired, text);
                }
                let reply = honest_reply(text, &state.actions);
                return finish(state, RunStatus::Done, reply);
            }
            let calls = response.tool_calls.clone();
            for (index, call) in calls.iter().enumerate() {
                let end = self
                    .run_call(call, &mut state, history)
                    .instrument(span.clone())
                    .await;
                if matches!(end, CallEnd::Continue) {
                    continue;
                }
                for skipped in &calls[index + 1..] {
                    history.push(Message::tool_result(
                        skipped,
                        ToolOutput::error("not run: the run ended before this call").content,
                        true,
                    ));
                }
                match end {
                    CallEnd::Stop(reason) => return stuck(state, reason),
                    CallEnd::Approval(pending) => {
                        let question = format!(
                            "This needs your approval: {} ({}). Approve it with approval id {}.",
                            pending.reason,
                            describe_call(&pending),
                            pending.id
                        );
                        state
                            .trace
                            .push(format!("approval required: {}", pending.id));
                        state.approval = Some(*pending);
                        return finish(state, RunStatus::ApprovalRequired, question);
                    }
                    CallEnd::Continue => {}
                }
            }
        }
        self.final_answer(history, state, &deltas).await
    }

    /// Compacts `history` now, keeping `keep_tokens` of recent messages.
    async fn compact_now(
        &self,
        history: &mut Vec<Message>,
        keep_tokens: usize,
        state: &mut RunState,
    ) -> Result<(), CompactionError> {
        let home = self.home;
        let report = compact(
            self.model,
            |h| with_registry(home, |r| refresh_note(r, h)),
            history,
            keep_tokens,
        )
        .await?;
        state.stats.compactions += 1;
        state.compacted = true;
        state.detector.arm_post_compaction();
        state.trace.push(format!(
            "compacted {} messages: about {} -> {} tokens",
            report.summarised_messages, report.tokens_before, report.tokens_after
        ));
        Ok(())
    }

    /// The provider kept rejecting the history: start the session over with a note.
    fn reset(&self, history: &mut Vec<Message>, mut state: RunState, error: LlmError) -> RunResult {
        state.trace.push(format!("session reset after: {error}"));
        let command = history
            .iter()
            .rev()
            .find(|m| matches!(m, Message::User { .. }))
            .cloned();
        history.clear();
        history.push(Message::system(RESET_NOTE));
        history.extend(command);
        state.reset = true;
        finish(
            state,
            RunStatus::Failed(format!("the conversation had to be reset: {error}")),
            "Sorry, I had to start our conversation over because the model provider rejected \
             it. Please repeat your request."
                .to_owned(),
        )
    }

    /// A validated service call: approval check, dry run, the call, then verification.
    /// `Err` carries the action recorded for approval.
    async fn service_call(
        &self,
        checked: crate::ha::services::CheckedCall,
        call: &ToolCall,
        state: &mut RunState,
    ) -> Result<ToolOutput, PendingAction> {
        let targets = target_entities(self.home, &checked);
        let rules = self.cfg.high_risk_rules();
        let risk = with_registry(self.home, |r| needs_approval(&rules, &checked, &targets, r));
        if self.dry_run {
            state.trace.push(format!(
                "dry run: would call {}.{} on {:?}",
                checked.domain, checked.service, targets
            ));
            state.actions.push(ActionReport {
                domain: checked.domain.clone(),
                service: checked.service.clone(),
                entity_ids: targets.clone(),
                verified: false,
                observed_state: targets
                    .iter()
                    .map(|t| (t.clone(), "dry run: not called".to_owned()))
                    .collect(),
            });
            return Ok(ToolOutput {
                content: serde_json::json!({
                    "dry_run": true,
                    "would_call": format!("{}.{}", checked.domain, checked.service),
                    "entity_id": targets,
                    "data": checked.data,
                    "needs_approval": risk,
                })
                .to_string(),
                is_error: false,
                performed: None,
            });
        }
        if let Some(reason) = risk {
            return Err(self
                .approvals
                .request(checked, targets, self.session_id.clone(), reason));
        }
        let before = before_states(self.home, &targets);
        let mut output = self
            .tools
            .dispatch(&ValidCall::CallService(checked.clone()), self.home)
            .await;
        if output.performed.is_none() {
            return Ok(output);
        }
        let timeout = Duration::from_millis(self.cfg.verify_timeout_ms);
        let report = verify(self.home, &checked, &targets, &before, timeout).await;
        if report.verified {
            state.stats.verified_actions += 1;
        } else {
            state.stats.unverified_actions += 1;
        }
        state.trace.push(format!(
            "called {} via {}: verified={} observed={:?}",
            report.describe(),
            call.name,
            report.verified,
            report.observed_state
        ));
        output.content = serde_json::json!({
            "called": format!("{}.{}", checked.domain, checked.service),
            "entity_id": targets,
            "data": checked.data,
            "verified": report.verified,
            "observed_state": report.observed_state,
            "note": if report.verified {
                "Home Assistant shows the expected state."
            } else if output.is_error {
                "The call was sent but the connection to Home Assistant broke before it answered: it may or may not have run. Check with get_state before calling it again, and do not tell the user it was done."
            } else {
                "NOT verified: the expected state was not observed. Do not tell the user this was done."
            },
        })
        .to_string();
        state.actions.push(report);
        Ok(output)
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
                    honest_reply(response.text, &state.actions)
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
                    Ok(ValidCall::CallService(checked)) => {
                        match self.service_call(checked, call, state).await {
                            Ok(output) => output,
                            Err(pending) => {
                                push(
                                    history,
                                    serde_json::json!({
                                        "status": "awaiting the user's approval",
                                        "approval_id": pending.id,
                                        "reason": pending.reason,
                                    })
                                    .to_string(),
                                    false,
                                );
                                return CallEnd::Approval(Box::new(pending));
                            }
                        }
                    }
                    Ok(valid) => self.tools.dispatch(&valid, self.home).await,
                    Err(message) => {
                        state.stats.rejected_tool_calls += 1;
                        state
                            .trace
                            .push(format!("invalid {} call: {message}", call.name));
                        ToolOutput::error(message)
                    }
                };
                if output.performed.is_none() && !output.is_error {
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

/// A claim the run cannot back: tell the model so and make the next sampling call a tool.
fn demand_tools(
    state: &mut RunState,
    history: &mut Vec<Message>,
    why: &str,
    note: &str,
) -> ToolChoice {
    state.stats.hallucination_retries += 1;
    state.trace.push(why.to_owned());
    history.push(Message::user(note));
    ToolChoice::Required
}

/// What to say when the model gave no final text.
fn fallback_summary(actions: &[ActionReport]) -> String {
    if actions.is_empty() {
        return "I could not finish this request, and I made no changes.".into();
    }
    let list = |verified: bool| -> Vec<String> {
        actions
            .iter()
            .filter(|a| a.verified == verified)
            .map(ActionReport::describe)
            .collect()
    };
    let (done, unsure) = (list(true), list(false));
    let mut out = String::from("I could not finish this request.");
    if !done.is_empty() {
        out.push_str(&format!(" Done and confirmed: {}.", done.join("; ")));
    }
    if !unsure.is_empty() {
        out.push_str(&format!(" Sent but not confirmed: {}.", unsure.join("; ")));
    }
    out
}

/// The model's reply, plus a plain statement of every action that was not verified, so the
/// answer never lets an unconfirmed action pass as done.
fn honest_reply(reply: String, actions: &[ActionReport]) -> String {
    let unverified: Vec<String> = actions
        .iter()
        .filter(|a| !a.verified)
        .map(|a| {
            let seen: Vec<String> = a
                .observed_state
                .iter()
                .map(|(id, state)| format!("{id}: {state}"))
                .collect();
            format!(
                "{} (Home Assistant shows {})",
                a.describe(),
                seen.join(", ")
            )
        })
        .collect();
    if unverified.is_empty() {
        return reply;
    }
    format!(
        "{}\n\nNote: I could not confirm that this took effect: {}.",
        reply.trim_end(),
        unverified.join("; ")
    )
}

fn describe_call(pending: &PendingAction) -> String {
    format!(
        "{}.{} on {}",
        pending.call.domain,
        pending.call.service,
        pending.targets.join(", ")
    )
}

/// A guard stop becomes a question for the user instead of a dead end.
fn stuck(mut state: RunState, reason: String) -> RunResult {
    state.trace.push(format!("stopped: {reason}"));
    let question = format!(
        "I got stuck on this request ({reason}). Could you tell me more precisely what you want, \
         for example the exact device or room?"
    );
    finish(state, RunStatus::ClarificationRequired, question)
}

fn finish(state: RunState, status: RunStatus, reply: String) -> RunResult {
    RunResult {
        status,
        reply,
        trace: state.trace.finish(),
        stats: state.stats,
        actions: state.actions,
        approval: state.approval,
        compacted: state.compacted,
        reset: state.reset,
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
