//! The sampling loop: a pure, deterministic core that takes its model and its home through
//! traits, so every guardrail is unit-tested with scripted replies and no sockets.
//!
//! A run reads as its steps: parse the command once ([`Parsed`]) → the fast path → per round:
//! take input that joined the turn → compact if needed → sample → screen the reply (a text
//! answer, or calls) → run the calls → decide the end. Each step answers with what happens
//! next ([`Next`]); how a run ends is one [`End`], turned into the person's reply in one
//! place.
//!
//! Invariants:
//! - The request is rebuilt from the session history on every iteration, after repair.
//! - The tool calls of one reply run in order; their results are appended in call order, one
//!   result for every call, whatever happens (blocked, refused, stopped).
//! - When the round budget is spent, HomeClaw says what the run did and read: no further model
//!   request, so the user always gets an answer the record backs.
//! - Guards are per run: a new command starts with an empty breaker and loop history.

use std::sync::Arc;

use tracing::{Instrument, info_span};

use crate::agent::act::approval::PendingAction;
use crate::agent::act::guards::Verdict;
use crate::agent::act::tools::ToolOutput;
use crate::agent::home::with_registry;
use crate::agent::model::compaction::{CompactionError, compact, estimate_tokens, refresh_note};
use crate::agent::model::repair::repair;
use crate::agent::plan::late::Raced;
use crate::agent::say::honesty::{
    claims_action, claims_action_or_observation, echoes_internal_note, is_call_as_text,
};
use crate::agent::say::reply;
use crate::agent::say::speak;
use crate::agent::state::{
    Agent, CallEnd, Caller, RunResult, RunState, RunStatus, answered_before, command_in, commands,
    newest_command,
};
use crate::agent::understand::parsed::Parsed;
use crate::llm::{ChatResponse, LlmError, Message, ToolCall, ToolChoice};

mod end;

use crate::agent::model::notes::{
    AUDIT_NOTE, CALL_AS_TEXT_NOTE, CALL_FAILED_NOTE, CORRECTIVE_NOTE,
};

/// How a run ends; turned into the person's reply in one place ([`Agent::end`]).
enum End {
    /// Said as it is.
    Finish(RunStatus, String),
    /// A guard stopped the run: a question back instead of a dead end.
    Stuck(String),
    /// A high-risk call was recorded: the run asks for approval.
    Held(Box<PendingAction>),
    /// HomeClaw speaks from the record; the model's last words ("" for none) stay in the trace
    /// unless nothing in the home was touched or named.
    Speak(String),
    /// The provider kept rejecting the history: the session starts over.
    Reset(LlmError),
}

/// What a step leaves the loop to do.
enum Next {
    /// On to the next step (or round).
    Go,
    /// Sample again now, with this tool choice (a re-prompt).
    Again(ToolChoice),
    End(End),
}

/// What the loop carries from round to round (the flags of a turn).
#[derive(Default)]
struct Turn {
    choice: ToolChoice,
    /// The provider reported more input than the window: compact before the next sampling.
    force_compaction: bool,
    /// The history was just compacted: the next answer's claims are audited.
    audit_pending: bool,
    /// The provider rejected the history once and it was summarised.
    recovered: bool,
    /// A request whose call was wrong (refused, invalid, or answered with an error by Home
    /// Assistant) got its one more round to correct it: a small model often explains the
    /// error instead of fixing the call. A device kept from HomeClaw is not the model's to fix.
    corrected: bool,
    /// Rounds whose calls taught the run nothing new (errors, refusals, repeats).
    stalled: u32,
}

impl Agent<'_> {
    /// Runs one command. `history` ends with the user's message; the run appends to it.
    pub async fn run(&self, history: &mut Vec<Message>) -> RunResult {
        let result = self.run_inner(history).await;
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

    async fn run_inner(&self, history: &mut Vec<Message>) -> RunResult {
        let command = newest_command(history).unwrap_or_default();
        let before = commands(history).nth(1).map(str::to_owned);
        let asked = answered_before(history).map(str::to_owned);
        let said = with_registry(self.home, |r| {
            Parsed::new(
                command,
                self.language.as_deref(),
                self.device_id.as_deref(),
                r,
            )
            .after(before, asked)
        });
        let mut state = RunState::new(
            Arc::new(said),
            self.cfg.loop_detection.clone(),
            self.secrets.clone(),
        );
        if self.cfg.fast_path
            && matches!(history.last(), Some(Message::User { .. }))
            && let Some(end) = self.fast_path(history, &mut state).await
        {
            return self.end(history, state, ended(end));
        }
        state.caller = Caller::Model {
            named: self.cfg.named_targets,
        };
        let mut turn = Turn::default();
        if with_registry(self.home, |r| state.said.wants_tools(r)) {
            state
                .trace
                .push("command acts or asks about the home: tool call required");
            turn.choice = ToolChoice::Required;
        }
        for round in 1..=self.cfg.max_iterations {
            let next = self.round(round, history, &mut state, &mut turn).await;
            match next {
                Next::Go => {}
                Next::Again(choice) => turn.choice = choice,
                Next::End(end) => return self.end(history, state, end),
            }
        }
        state.stats.max_iterations_reached = true;
        state.trace.push(format!(
            "reached {} rounds; said what was done and read",
            self.cfg.max_iterations
        ));
        self.end(history, state, End::Speak(String::new()))
    }

    /// One round: input that joined the turn, compaction, one sampling, then its answer or
    /// its calls.
    async fn round(
        &self,
        round: u32,
        history: &mut Vec<Message>,
        state: &mut RunState,
        turn: &mut Turn,
    ) -> Next {
        let span = info_span!("round", round);
        if round > 1 {
            self.take_input(history, state);
        }
        if let Next::End(end) = self.compact_if_needed(history, state, turn).await {
            return Next::End(end);
        }
        let response = match self
            .sample(history, state, turn)
            .instrument(span.clone())
            .await
        {
            Ok(response) => response,
            Err(next) => return next,
        };
        let audit_now = std::mem::take(&mut turn.audit_pending);
        if let Next::End(end) = self.screen_rejected(&response, history, state) {
            return Next::End(end);
        }
        if response.tool_calls.is_empty() {
            if !response.rejected.is_empty() {
                return Next::Go;
            }
            return self.screen_answer(response.text, round, audit_now, history, state, turn);
        }
        self.run_round(&response.tool_calls, history, state, turn)
            .instrument(span)
            .await
    }

    /// Input that arrived for this session while the run is in progress joins the turn.
    fn take_input(&self, history: &mut Vec<Message>, state: &mut RunState) {
        let Some(inbox) = self.inbox else {
            return;
        };
        for text in inbox() {
            let duplicate =
                matches!(history.last(), Some(Message::User { content }) if *content == text);
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

    /// Compacts the history when it outgrew the window (or the provider said it did).
    async fn compact_if_needed(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
        turn: &mut Turn,
    ) -> Next {
        let Some(policy) = &self.compaction else {
            return Next::Go;
        };
        if !(turn.force_compaction || estimate_tokens(history) > policy.limit_tokens) {
            return Next::Go;
        }
        turn.force_compaction = false;
        match self.compact_now(history, policy.keep_tokens, state).await {
            Ok(()) => turn.audit_pending = true,
            Err(CompactionError::NothingToCompact) => {
                state.trace.push("compaction: nothing older to summarise");
            }
            Err(e) => {
                state.trace.push(format!("{e}"));
                return Next::End(End::Finish(RunStatus::Failed(e.to_string()), String::new()));
            }
        }
        Next::Go
    }

    /// One sampling of the repaired history. `Err` says what happens instead of a reply: a
    /// retry after the history was summarised, or the end of the run.
    async fn sample(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
        turn: &mut Turn,
    ) -> Result<ChatResponse, Next> {
        let report = repair(history, &self.tools.names());
        state.stats.repaired_messages += report.changes() as u32;
        for line in report.trace {
            state.trace.push(line);
        }
        let choice = std::mem::take(&mut turn.choice);
        let request = self.request_for(history, choice, &state.said, &mut state.shared);
        let chat = match state.late.take() {
            None => self.model.chat(&request).await,
            Some(late) => match self.chat_or_late(&request, late, history, state).await {
                Raced::Model(chat) => chat,
                Raced::Ended(end) => return Err(Next::End(ended(end))),
            },
        };
        let mut response = match chat {
            Ok(r) => r,
            Err(e) if e.is_request_rejected() && !turn.recovered => {
                // The provider rejects the history itself: summarise it and retry once.
                turn.recovered = true;
                state.trace.push(format!(
                    "provider rejected the history ({e}); compacting to recover"
                ));
                return Err(match self.compact_now(history, 0, state).await {
                    Ok(()) => Next::Go,
                    Err(_) => Next::End(End::Reset(e)),
                });
            }
            Err(e) if e.is_request_rejected() => return Err(Next::End(End::Reset(e))),
            Err(e) => {
                state.trace.push(format!("model failed: {e}"));
                // Whatever already ran is said, so a retry does not repeat it blindly.
                let reply = with_registry(self.home, |r| {
                    reply::fallback_summary(
                        &state.actions,
                        |id| r.get(id).map(|e| e.name.clone()),
                        state.lang(),
                    )
                });
                return Err(Next::End(End::Finish(
                    RunStatus::ModelUnavailable(e.to_string()),
                    reply,
                )));
            }
        };
        note_response(state, &response);
        if let (Some(policy), Some(usage)) = (&self.compaction, response.usage)
            && usage.input_tokens as usize > policy.usage_ceiling_tokens
        {
            turn.force_compaction = true;
        }
        crate::agent::model::repair::unique_call_ids(&mut response.tool_calls, history);
        history.push(response.to_message());
        Ok(response)
    }

    /// Calls the provider rejected (an unknown tool, unparsable arguments): each told to the
    /// model; one named too often stops the run.
    fn screen_rejected(
        &self,
        response: &ChatResponse,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Next {
        for rejected in &response.rejected {
            state.stats.rejected_tool_calls += 1;
            if rejected.name == "call_service" {
                state.stats.service_calls += 1;
            }
            state.trace.push(format!(
                "rejected tool {:?}: {}",
                rejected.name, rejected.reason
            ));
            if let Verdict::Critical(reason) = state.detector.unknown_tool(&rejected.name) {
                return Next::End(End::Stuck(reason));
            }
            history.push(Message::user(format!(
                "[HomeClaw] That was not run: {}",
                rejected.reason
            )));
        }
        Next::Go
    }

    /// A reply without calls: passed to the composer, unless it is a call written as text, an
    /// unbacked claim or an explanation of a failed call, each re-prompted once.
    fn screen_answer(
        &self,
        mut text: String,
        round: u32,
        audit_now: bool,
        history: &mut Vec<Message>,
        state: &mut RunState,
        turn: &mut Turn,
    ) -> Next {
        if echoes_internal_note(&text) {
            state
                .trace
                .push("the reply echoed a guard note; not passed on");
            text.clear();
        }
        if is_call_as_text(&text) {
            let excerpt: String = text.chars().take(160).collect();
            state.trace.push(format!("call written as text: {excerpt}"));
            if state.stats.hallucination_retries == 0 {
                return demand_tools(
                    state,
                    history,
                    "the reply was a call written as text; retrying",
                    CALL_AS_TEXT_NOTE,
                );
            }
            state
                .trace
                .push("the reply stayed a call written as text; not passing it on");
            text.clear();
        }
        if audit_now && claims_action_or_observation(&text) {
            return demand_tools(
                state,
                history,
                "post-compaction audit: claim without a tool call; retrying",
                AUDIT_NOTE,
            );
        }
        // A claim with nothing behind it: the model is asked once to use the tools; whatever
        // it then says, HomeClaw speaks from the record.
        let unbacked = (state.stats.tool_calls == 0 && claims_action_or_observation(&text))
            || (claims_action(&text) && !state.actions.iter().any(|a| a.verified));
        if unbacked && state.stats.hallucination_retries == 0 {
            return demand_tools(
                state,
                history,
                "hallucination guard: claim without a tool call; retrying",
                CORRECTIVE_NOTE,
            );
        }
        let said = &state.said;
        let told =
            said.acts || (!said.question && with_registry(self.home, |r| said.wants_tools(r)));
        if told
            && !turn.corrected
            && state.actions.is_empty()
            && state.hidden.is_none()
            && (state.stats.rejected_tool_calls > 0 || home_refused_a_call(history))
        {
            turn.corrected = true;
            return demand_tools(
                state,
                history,
                "a call failed and nothing was done; asking for the corrected call",
                CALL_FAILED_NOTE,
            );
        }
        state.trace.push(format!("answer after {round} round(s)"));
        Next::End(End::Speak(text))
    }

    /// Runs a reply's calls in order, then decides whether the run has its answer: a verified
    /// request, the read a question asks about, or rounds that teach nothing.
    async fn run_round(
        &self,
        calls: &[ToolCall],
        history: &mut Vec<Message>,
        state: &mut RunState,
        turn: &mut Turn,
    ) -> Next {
        let before_round = state.actions.len();
        let (read_before, learned_before) = (state.observed.len(), state.learned);
        for (index, call) in calls.iter().enumerate() {
            let end = self.run_call(call, state, history).await;
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
                CallEnd::Stop(reason) => return Next::End(End::Stuck(reason)),
                CallEnd::Approval(pending) => return Next::End(End::Held(pending)),
                CallEnd::Continue => {}
            }
        }
        if let Some(text) = self.answer_from_verification(calls, state, before_round) {
            state
                .trace
                .push("answered from verification: no second model request");
            history.push(Message::assistant(text.clone()));
            return Next::End(End::Finish(RunStatus::Done, text));
        }
        // The model only chooses what to read; once it has read what the question asks
        // about, another request could add nothing HomeClaw would say.
        let said = &state.said;
        if said.only_asks()
            && state.observed.len() > read_before
            && with_registry(self.home, |r| {
                speak::answers_the_question(said, &state.observed, r)
            })
        {
            state
                .trace
                .push("answered from the reads: no second model request");
            return Next::End(End::Speak(String::new()));
        }
        if state.learned == learned_before {
            turn.stalled += 1;
            if turn.stalled == self.cfg.max_stalled_rounds {
                state.trace.push(format!(
                    "{} rounds taught nothing new: said what was done and read",
                    turn.stalled
                ));
                return Next::End(End::Speak(String::new()));
            }
        }
        Next::Go
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
}

/// Whether Home Assistant answered a call of this command's run with an error of its own (bad
/// service data, say): the model's mistake, which another call can correct. A lost
/// connection is not one.
/// How a run ends when the words' own path (HomeClaw's reading, Home Assistant's recogniser)
/// ended it.
fn ended(end: Result<(RunStatus, String), CallEnd>) -> End {
    match end {
        Ok((status, reply)) => End::Finish(status, reply),
        Err(CallEnd::Approval(pending)) => End::Held(pending),
        Err(CallEnd::Stop(reason)) => End::Stuck(reason),
        // The words' path answers `None` to go on; it never ends with `Continue`.
        Err(CallEnd::Continue) => End::Stuck("nothing to do".into()),
    }
}

fn home_refused_a_call(history: &[Message]) -> bool {
    history
        .iter()
        .rev()
        .take_while(|m| command_in(m).is_none())
        .any(|m| {
            matches!(m, Message::Tool { is_error: true, content, .. }
                if content.contains("Home Assistant error "))
        })
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

/// A claim the run cannot back: tell the model so and make the next sampling call a tool.
fn demand_tools(state: &mut RunState, history: &mut Vec<Message>, why: &str, note: &str) -> Next {
    state.stats.hallucination_retries += 1;
    state.trace.push(why.to_owned());
    history.push(Message::user(note));
    Next::Again(ToolChoice::Required)
}

#[cfg(test)]
mod alongside_tests;
#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod choice_tests;
#[cfg(test)]
mod once_tests;
#[cfg(test)]
mod recognised_tests;
#[cfg(test)]
pub(crate) mod tests;
