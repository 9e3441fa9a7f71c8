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

use tracing::{Instrument, info_span};

use super::approval::PendingAction;
use super::compaction::{CompactionError, compact, estimate_tokens, refresh_note};
use super::fastpath;
use super::guards::{CircuitBreaker, LoopDetector, Verdict};
use super::home::with_registry;
use super::honesty::{
    claims_action, claims_action_or_observation, echoes_internal_note, is_call_as_text, needs_tools,
};
use super::prompt::{candidates, device_entities, grounding, speaker_line, system_prompt};
use super::repair::repair;
use super::reply;
use super::schema;
use super::speak;
use super::state::{Agent, CallEnd, Observed, RunResult, RunState, RunStatus, Stats, Trace};
use super::tools::ToolOutput;
use super::truncate::budget_history;
use crate::llm::{ChatRequest, ChatResponse, LlmError, Message, ToolChoice};

pub const CORRECTIVE_NOTE: &str = "[HomeClaw] You said you did or checked something, but you \
made no tool call for this request. Nothing has been done or checked. Use the tools now to \
actually do or check it, or say plainly that you did not.";

pub const CALL_AS_TEXT_NOTE: &str = "[HomeClaw] You wrote a tool call (or advice to make one) \
as your answer. Nothing was done. Make the call with the tool now, or answer the user plainly.";

pub const AUDIT_NOTE: &str = "[HomeClaw] Warning: the conversation was just compacted and you \
stated something about the home without checking it with a tool. Check it with the tools now, \
or say plainly that you did not.";

pub const RESET_NOTE: &str = "[HomeClaw] The conversation was reset: the model provider \
rejected its history even after it was summarised. Earlier messages are no longer in context.";

pub const CALL_FAILED_NOTE: &str = "[HomeClaw] Nothing was done: the call above failed. Read \
its error, then make the corrected call now: the entity the user named (see the likely targets), \
a service its domain offers, and only the data that service takes.";

impl Agent<'_> {
    /// The request for the current history.
    pub fn build_request(&self, history: &[Message], choice: ToolChoice) -> ChatRequest {
        let command = history.iter().rev().find_map(|m| match m {
            Message::User { content } if !content.starts_with("[HomeClaw]") => Some(content),
            _ => None,
        });
        // The system text is the same for every request of this home (a prompt cache serves
        // it); what belongs to this command goes into `context`, rendered after it.
        let (system, tools, reply_schema, mut context) = with_registry(self.home, |r| {
            let mut context = String::new();
            let mut ids: Vec<&str> = Vec::new();
            if let Some(device) = self.device_id.as_deref()
                && let Some(line) = speaker_line(r, device)
            {
                context.push_str(&line);
                ids.extend(device_entities(r, device));
            }
            let found = match command {
                Some(c) if self.cfg.grounding => self.candidates_for(r, c),
                _ => Vec::new(),
            };
            if let Some(lines) = grounding(r, &found) {
                context.push_str(&lines);
            }
            ids.extend(
                found
                    .iter()
                    .filter_map(|id| r.get(id))
                    .map(|e| e.entity_id.as_str()),
            );
            ids.sort_unstable();
            ids.dedup();
            let schema = self
                .model
                .uses_reply_schema()
                .then(|| schema::reply_schema(self.tools, r, &choice, &ids))
                .flatten();
            (system_prompt(r), self.tools.definitions(r), schema, context)
        });
        if let Some(language) = &self.language {
            context.push_str(&format!(
                "\nThe user speaks the language tagged {language}: write your reply in it."
            ));
        }
        ChatRequest {
            system: Some(system),
            messages: budget_history(history, self.cfg.truncation.history_budget_chars),
            tools,
            tool_choice: choice,
            max_tokens: None,
            temperature: None,
            reply_schema,
            context: (!context.is_empty()).then_some(context),
        }
    }

    /// A command in a language HomeClaw has no words for: its words cannot tell small talk from
    /// a request, so the model's words are held as if it were about the home. Known by the
    /// person's language tag, else by letters none of our lexicons writes (ñ, å, Cyrillic, …).
    fn unknown_language(&self, command: &str, text: &str) -> bool {
        match self.language.as_deref() {
            Some(tag) => fastpath::Lang::known(tag).is_none(),
            None => command
                .chars()
                .chain(text.chars())
                .flat_map(char::to_lowercase)
                .any(|c| {
                    c.is_alphabetic()
                        && !c.is_ascii()
                        && !crate::lang::LEXICONS.iter().any(|l| l.letters.contains(c))
                }),
        }
    }

    /// A high-risk call was recorded: the run ends asking for approval, in the person's words.
    fn held(&self, mut state: RunState, pending: PendingAction, command: &str) -> RunResult {
        let names: Vec<String> = with_registry(self.home, |r| {
            pending
                .targets
                .iter()
                .map(|id| r.get(id).map_or_else(|| id.clone(), |e| e.name.clone()))
                .collect()
        });
        let question = reply::approval_question(
            &pending,
            &names,
            self.reply_lang(command),
            self.cfg.approval.confirm_in_conversation,
        );
        state
            .trace
            .push(format!("approval required: {}", pending.id));
        state.approval = Some(pending);
        finish(state, RunStatus::ApprovalRequired, question)
    }

    /// The entities `command` points at, searched once per command.
    fn candidates_for(
        &self,
        registry: &crate::ha::registry::Registry,
        command: &str,
    ) -> Vec<String> {
        let mut held = self
            .grounded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match held.as_ref() {
            Some((said, found)) if said == command => found.clone(),
            _ => {
                let found = candidates(registry, command);
                *held = Some((command.to_owned(), found.clone()));
                found
            }
        }
    }

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
        let mut state = RunState {
            reads: 0,
            observed: Vec::new(),
            detector: LoopDetector::new(self.cfg.loop_detection.clone()),
            breaker: CircuitBreaker::default(),
            stats: Stats::default(),
            trace: Trace::new(self.secrets.clone()),
            actions: Vec::new(),
            approval: None,
            compacted: false,
            reset: false,
            named_by: None,
            verb_of: None,
            hidden: None,
            lang: fastpath::Lang::En,
            learned: 0,
        };
        let whitelist = self.tools.names();
        let mut force_compaction = false;
        let mut audit_pending = false;
        let mut recovered = false;
        // A request whose call was wrong (refused, invalid, or answered with an error by Home
        // Assistant) gets one more round to correct it: a small model often explains the
        // error instead of fixing the call. A device kept from HomeClaw is not the model's to fix.
        let mut corrected = false;
        let command = history
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User { content } => Some(content.clone()),
                _ => None,
            })
            .unwrap_or_default();
        state.lang = self.reply_lang(&command);
        if self.cfg.fast_path
            && matches!(history.last(), Some(Message::User { .. }))
            && let Some(end) = self.fast_path(&command, history, &mut state).await
        {
            return match end {
                Ok((status, reply)) => finish(state, status, reply),
                Err(CallEnd::Approval(pending)) => self.held(state, *pending, &command),
                Err(CallEnd::Stop(reason)) => stuck(state, reason),
                // The fast path answers `None` to go on; it never ends with `Continue`.
                Err(CallEnd::Continue) => stuck(state, "nothing to do".into()),
            };
        }
        if self.cfg.named_targets {
            state.named_by = Some(recent_commands(history));
        }
        state.verb_of = Some(command.clone());
        let (acts, question) = (
            fastpath::is_action(&command),
            fastpath::is_question(&command),
        );
        let wants_tools = acts
            || with_registry(self.home, |r| {
                let joined = fastpath::join_compounds(&command, r);
                needs_tools(&joined, r) || speak::about_the_home(&joined, r)
            });
        // A question that is not a polite request: its reads can answer it.
        let asked = question && !acts;
        // Rounds whose calls taught the run nothing new (errors, refusals, repeats).
        let mut stalled = 0;
        let told = acts || (wants_tools && !question);
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
            let response = match self.model.chat(&request).instrument(span.clone()).await {
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
                    let reply = reply::fallback_summary(&state.actions, state.lang);
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
            let mut response = response;
            super::repair::unique_call_ids(&mut response.tool_calls, history);
            history.push(response.to_message());
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
                let mut text = response.text;
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
                        choice = demand_tools(
                            &mut state,
                            history,
                            "the reply was a call written as text; retrying",
                            CALL_AS_TEXT_NOTE,
                        );
                        continue;
                    }
                    state
                        .trace
                        .push("the reply stayed a call written as text; not passing it on");
                    text.clear();
                }
                if audit_now && claims_action_or_observation(&text) {
                    choice = demand_tools(
                        &mut state,
                        history,
                        "post-compaction audit: claim without a tool call; retrying",
                        AUDIT_NOTE,
                    );
                    continue;
                }
                // A claim with nothing behind it: the model is asked once to use the tools;
                // whatever it then says, HomeClaw speaks from the record.
                let unbacked = (state.stats.tool_calls == 0 && claims_action_or_observation(&text))
                    || (claims_action(&text) && !state.actions.iter().any(|a| a.verified));
                if unbacked && state.stats.hallucination_retries == 0 {
                    choice = demand_tools(
                        &mut state,
                        history,
                        "hallucination guard: claim without a tool call; retrying",
                        CORRECTIVE_NOTE,
                    );
                    continue;
                }
                if told
                    && !corrected
                    && state.actions.is_empty()
                    && state.hidden.is_none()
                    && (state.stats.rejected_tool_calls > 0 || home_refused_a_call(history))
                {
                    corrected = true;
                    choice = demand_tools(
                        &mut state,
                        history,
                        "a call failed and nothing was done; asking for the corrected call",
                        CALL_FAILED_NOTE,
                    );
                    continue;
                }
                state.trace.push(format!("answer after {round} round(s)"));
                return self.speak(state, &text, &command, wants_tools);
            }
            let calls = response.tool_calls.clone();
            let before_round = state.actions.len();
            let (read_before, learned_before) = (state.observed.len(), state.learned);
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
                    CallEnd::Approval(pending) => return self.held(state, *pending, &command),
                    CallEnd::Continue => {}
                }
            }
            if let Some(text) =
                self.answer_from_verification(&command, &calls, &state, before_round)
            {
                state
                    .trace
                    .push("answered from verification: no second model request");
                history.push(Message::assistant(text.clone()));
                return finish(state, RunStatus::Done, text);
            }
            // The model only chooses what to read; once it has read what the question asks
            // about, another request could add nothing HomeClaw would say.
            if asked
                && state.observed.len() > read_before
                && with_registry(self.home, |r| {
                    speak::answers_the_question(&command, &state.observed, r)
                })
            {
                state
                    .trace
                    .push("answered from the reads: no second model request");
                return self.speak(state, "", &command, wants_tools);
            }
            if state.learned == learned_before {
                stalled += 1;
                if stalled == self.cfg.max_stalled_rounds {
                    state.trace.push(format!(
                        "{stalled} rounds taught nothing new: said what was done and read"
                    ));
                    return self.speak(state, "", &command, wants_tools);
                }
            }
        }
        self.final_answer(state, &command, wants_tools)
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
        let reply = state.lang.lexicon().says.reset.to_owned();
        finish(
            state,
            RunStatus::Failed(format!("the conversation had to be reset: {error}")),
            reply,
        )
    }

    /// The round budget is spent: HomeClaw says what the run did and read, with no further
    /// model request (the model's account could only repeat it, or get it wrong).
    fn final_answer(&self, mut state: RunState, command: &str, wants_tools: bool) -> RunResult {
        state.stats.max_iterations_reached = true;
        state.trace.push(format!(
            "reached {} rounds; said what was done and read",
            self.cfg.max_iterations
        ));
        self.speak(state, "", command, wants_tools)
    }

    /// The end of a model-path run, as the person gets it (see `speak`).
    fn speak(
        &self,
        mut state: RunState,
        text: &str,
        command: &str,
        wants_tools: bool,
    ) -> RunResult {
        let lang = self.reply_lang(command);
        let acts = fastpath::is_action(command);
        let candidates = self
            .grounded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .filter(|(said, _)| said == command)
            .map(|(_, found)| found.clone())
            .unwrap_or_default();
        let said = {
            let acted_on = |id: &str| {
                state
                    .actions
                    .iter()
                    .any(|a| a.entity_ids.iter().any(|e| e == id))
            };
            // The last read of each entity, in the order first read.
            let mut reads: Vec<&Observed> = Vec::new();
            for o in state.observed.iter().filter(|o| !acted_on(&o.entity_id)) {
                match reads.iter_mut().find(|r| r.entity_id == o.entity_id) {
                    Some(held) => *held = o,
                    None => reads.push(o),
                }
            }
            let ending = speak::Ending {
                lang,
                command,
                acts,
                about_home: wants_tools || acts || self.unknown_language(command, text),
                tried_a_change: state.stats.service_calls > 0,
                text,
                actions: &state.actions,
                reads: &reads,
                hidden: state.hidden.as_ref(),
                candidates: &candidates,
            };
            with_registry(self.home, |r| speak::compose(&ending, r))
        };
        if !text.trim().is_empty() && said.reply != text {
            let excerpt: String = text.chars().take(160).collect();
            state
                .trace
                .push(format!("the model's words, not passed on: {excerpt}"));
        }
        state.trace.push(said.why);
        finish(state, said.status, said.reply)
    }
}

/// Whether Home Assistant answered a call of this command's run with an error of its own (bad
/// service data, say): the model's mistake, which another call can correct. A lost
/// connection is not one.
fn home_refused_a_call(history: &[Message]) -> bool {
    history
        .iter()
        .rev()
        .take_while(
            |m| !matches!(m, Message::User { content } if !content.starts_with("[HomeClaw]")),
        )
        .any(|m| {
            matches!(m, Message::Tool { is_error: true, content, .. }
                if content.contains("Home Assistant error "))
        })
}

/// The person's last two commands (HomeClaw's own notes excluded): "turn it off" names what
/// the command before it named.
pub(super) fn recent_commands(history: &[Message]) -> Vec<String> {
    history
        .iter()
        .rev()
        .filter_map(|m| match m {
            Message::User { content } if !content.starts_with("[HomeClaw]") => {
                Some(content.clone())
            }
            _ => None,
        })
        .take(2)
        .collect()
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

/// A guard stop becomes a question for the user instead of a dead end.
fn stuck(mut state: RunState, reason: String) -> RunResult {
    state.trace.push(format!("stopped: {reason}"));
    let reply = reply::stuck(&reason, state.lang);
    finish(state, RunStatus::ClarificationRequired, reply)
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
pub(crate) mod tests;
