//! How a run ends, in one place: a reply said as it is, a question back when a guard stopped
//! the run, an approval asked for, HomeClaw speaking from the record, or a session started
//! over.

use crate::agent::act::approval::PendingAction;
use crate::agent::act::verify::ActionReport;
use crate::agent::home::with_registry;
use crate::agent::model::notes::RESET_NOTE;
use crate::agent::say::{reply, speak};
use crate::agent::state::{Agent, Observed, RunResult, RunState, RunStatus};
use crate::agent::understand::Lang;
use crate::llm::{LlmError, Message};

use super::End;

impl Agent<'_> {
    /// The run's end as the person gets it.
    pub(super) fn end(
        &self,
        history: &mut Vec<Message>,
        mut state: RunState,
        end: End,
    ) -> RunResult {
        match end {
            End::Finish(status, reply) => finish(state, status, reply),
            End::Stuck(reason) => {
                state.trace.push(format!("stopped: {reason}"));
                let reply = self
                    .in_their_words(&state.actions)
                    .unwrap_or_else(|| reply::stuck(state.lang()));
                finish(state, RunStatus::ClarificationRequired, reply)
            }
            End::Held(pending) => self.held(state, *pending),
            End::Speak(text) => {
                let result = self.speak(state, &text);
                if result.status == RunStatus::ClarificationRequired {
                    asked(history, &result.reply);
                }
                result
            }
            End::Reset(error) => reset(history, state, error),
        }
    }

    /// A high-risk call was recorded: the run ends asking for approval, in the person's words.
    fn held(&self, mut state: RunState, pending: PendingAction) -> RunResult {
        let ways = crate::lang::Ways {
            by_voice: self.cfg.approval.confirm_in_conversation,
            phone: self.cfg.approval.notify_service.is_some(),
        };
        let question = reply::approval_question(&pending, ways);
        state
            .trace
            .push(format!("approval required: {}", pending.id));
        state.approval = Some(pending);
        finish(state, RunStatus::ApprovalRequired, question)
    }

    /// For a person speaking a language HomeClaw has no lexicon for, what was done in Home
    /// Assistant's own sentences (`None`: HomeClaw's own words stand).
    pub(crate) fn in_their_words(&self, actions: &[ActionReport]) -> Option<String> {
        let tag = self
            .language
            .as_deref()
            .filter(|t| Lang::known(t).is_none() && crate::lang::ha_replies::speaks(t))?;
        with_registry(self.home, |r| {
            reply::in_their_words(tag, actions, |id| r.get(id).map(|e| e.name.clone()))
        })
    }

    /// The end of a model-path run, as the person gets it (see `speak`).
    fn speak(&self, mut state: RunState, text: &str) -> RunResult {
        let said = state.said.clone();
        // The candidates as the model was shown them: none without grounding.
        let candidates = if self.cfg.grounding {
            with_registry(self.home, |r| said.candidates(r).to_vec())
        } else {
            Vec::new()
        };
        let read_something;
        let mut composed = {
            let acted_on = |id: &str| {
                state
                    .actions
                    .iter()
                    .any(|a| a.call.entity_ids.iter().any(|e| e == id))
            };
            // The last read of each entity, in the order first read.
            let mut reads: Vec<&Observed> = Vec::new();
            for o in state.observed.iter().filter(|o| !acted_on(&o.entity_id)) {
                match reads.iter_mut().find(|r| r.entity_id == o.entity_id) {
                    Some(held) => *held = o,
                    None => reads.push(o),
                }
            }
            read_something = !reads.is_empty();
            let ending = speak::Ending {
                said: &said,
                about_home: with_registry(self.home, |r| said.wants_tools(r))
                    || said.acts
                    || said.unknown_language(text),
                tried_a_change: state.stats.service_calls > 0,
                text,
                actions: &state.actions,
                reads: &reads,
                hidden: state.hidden.as_ref(),
                candidates: &candidates,
            };
            with_registry(self.home, |r| speak::compose(&ending, r))
        };
        if !text.trim().is_empty() && composed.reply != text {
            let excerpt: String = text.chars().take(160).collect();
            state
                .trace
                .push(format!("the model's words, not passed on: {excerpt}"));
        }
        state.trace.push(composed.why);
        // HomeClaw's own account (not the model's chat) in a language it has no words for:
        // Home Assistant's sentences say what was done; a read stays as HomeClaw said it.
        if composed.reply != text
            && (!state.actions.is_empty() || !read_something)
            && let Some(theirs) = self.in_their_words(&state.actions)
        {
            composed.reply = theirs;
        }
        finish(state, composed.status, composed.reply)
    }
}

/// HomeClaw's question ends the history as the person heard it (not the model's words it
/// replaced): the answer is read against it, by the fast path (`Parsed::plan`) or the model.
fn asked(history: &mut Vec<Message>, question: &str) {
    if let Some(Message::Assistant {
        content,
        tool_calls,
        ..
    }) = history.last_mut()
        && tool_calls.is_empty()
    {
        question.clone_into(content);
        return;
    }
    history.push(Message::assistant(question));
}

/// The provider kept rejecting the history: start the session over with a note.
fn reset(history: &mut Vec<Message>, mut state: RunState, error: LlmError) -> RunResult {
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
    let reply = state.lang().says().reset().to_owned();
    finish(
        state,
        RunStatus::Failed(format!("the conversation had to be reset: {error}")),
        reply,
    )
}

pub(super) fn finish(state: RunState, status: RunStatus, reply: String) -> RunResult {
    RunResult {
        status,
        reply: crate::text::ends_once(&reply),
        trace: state.trace.finish(),
        stats: state.stats,
        actions: state.actions,
        approval: state.approval,
        compacted: state.compacted,
        reset: state.reset,
    }
}
