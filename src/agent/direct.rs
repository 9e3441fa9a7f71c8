//! Answers that need no second sampling: the deterministic fast path (lever "no model at
//! all") and the reply written from Home Assistant's verification once a model's calls fully
//! answered a single action (lever "one round trip"). Both go through the same call path as a
//! model's call, so approval, policy and verification hold unchanged.

use super::fastpath::{self, Lang, Plan};
use super::home::with_registry;
use super::reply;
use super::state::{Agent, CallEnd, RunState, RunStatus};
use crate::llm::{Message, ToolCall};

impl Agent<'_> {
    /// The deterministic fast path ([`fastpath::plan`]): a command it resolves runs without the
    /// model, through the same call path, and is answered from the verification (`Ok`), or ends
    /// as a call can (`Err`: held for approval, stopped by a guard). `None` leaves the command
    /// to the model (also when a planned call was refused: the model sees why).
    pub(super) async fn fast_path(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Option<Result<(RunStatus, String), CallEnd>> {
        // A request on a condition HomeClaw cannot check: nothing changes, and the person is
        // told why, without asking the model (which acts and forgets the condition).
        if state.said.conditional && state.said.acts && !state.said.only_asks() {
            state
                .trace
                .push("a request on a condition: nothing changed");
            let text = state.lang().lexicon().says.conditional.to_owned();
            history.push(Message::assistant(text.clone()));
            let why = "the request waits on a condition HomeClaw cannot check".to_owned();
            return Some(Ok((RunStatus::Failed(why), text)));
        }
        let plan = with_registry(self.home, |r| state.said.plan(r, self.device_id.as_deref()));
        let language = |lang: Lang| self.language.as_deref().map_or(lang, Lang::from_tag);
        match plan {
            Plan::Model => self.nothing_to_act_on(history, state),
            Plan::Answer { text, lang } => {
                if self.language.is_some() && language(lang) != lang {
                    return None;
                }
                state.reads += 1;
                state.trace.push("fast path: answered from the registry");
                history.push(Message::assistant(text.clone()));
                Some(Ok((RunStatus::Done, text)))
            }
            Plan::Read { reads, asked, lang } => {
                // What is read does not depend on the language: answered in the request's.
                self.read_and_answer(&reads, &asked, language(lang), history, state)
                    .await
            }
            Plan::Ask { question, lang } => {
                let question = if language(lang) == lang {
                    question
                } else {
                    return None;
                };
                state
                    .trace
                    .push("fast path: several equally good targets; asking which");
                history.push(Message::assistant(question.clone()));
                Some(Ok((RunStatus::ClarificationRequired, question)))
            }
            Plan::Act { calls, lang } => {
                let lang = language(lang);
                let before = state.actions.len();
                for (i, planned) in calls.iter().enumerate() {
                    let mut call = [ToolCall {
                        id: format!("fast_{}", i + 1),
                        name: "call_service".into(),
                        arguments: planned.arguments(),
                        provider_data: None,
                    }];
                    super::repair::unique_call_ids(&mut call, history);
                    let [call] = call;
                    state.trace.push(format!(
                        "fast path: {}.{} on {}",
                        planned.domain,
                        planned.service,
                        planned.entity_ids.join(", ")
                    ));
                    history.push(Message::assistant_calls("", vec![call.clone()]));
                    match self.run_call(&call, state, history).await {
                        CallEnd::Continue => {}
                        end => return Some(Err(end)),
                    }
                }
                let done = &state.actions[before..];
                if done.len() < calls.len() {
                    state
                        .trace
                        .push("fast path: a planned call did not run; the model takes over");
                    return None;
                }
                let text = with_registry(self.home, |r| {
                    reply::from_verification(
                        &calls,
                        done,
                        |id| r.get(id).map(|e| e.name.clone()),
                        lang,
                    )
                });
                history.push(Message::assistant(text.clone()));
                // Done only when Home Assistant showed every change (or a dry run planned it).
                Some(Ok((super::speak::status_of(done), text)))
            }
        }
    }

    /// Runs the reads a question needs (validated like any call: the service must be allowed
    /// and every entity visible) and answers from what they returned. A read that fails leaves
    /// the question to the model, which sees nothing of it.
    async fn read_and_answer(
        &self,
        reads: &[fastpath::FastCall],
        asked: &fastpath::Asked,
        lang: Lang,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Option<Result<(RunStatus, String), CallEnd>> {
        let mut responses = Vec::with_capacity(reads.len());
        for read in reads {
            let call = crate::ha::services::ServiceCall {
                domain: read.domain.clone(),
                service: read.service.clone(),
                entity_ids: read.entity_ids.clone(),
                areas: Vec::new(),
                data: Some(read.data.clone()),
            };
            let checked = match with_registry(self.home, |r| call.check(r)) {
                Ok(checked) => checked,
                Err(e) => {
                    state.trace.push(format!(
                        "fast path: read {}.{} refused: {e}",
                        read.domain, read.service
                    ));
                    return None;
                }
            };
            state.reads += 1;
            match self.home.read_service(&checked).await {
                Ok(response) => {
                    state.trace.push(format!(
                        "fast path: read {}.{} on {}",
                        read.domain,
                        read.service,
                        read.entity_ids.join(", ")
                    ));
                    responses.push(response);
                }
                Err(e) => {
                    state.trace.push(format!(
                        "fast path: read {}.{} failed: {e}",
                        read.domain, read.service
                    ));
                    return None;
                }
            }
        }
        if reads.is_empty() {
            state.reads += 1;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let text = with_registry(self.home, |r| {
            super::reading::compose(asked, &responses, r, lang, now)
        });
        state.trace.push("fast path: answered from what was read");
        history.push(Message::assistant(text.clone()));
        Some(Ok((RunStatus::Done, text)))
    }

    /// An action whose words point at nothing: answered at once ([`fastpath::unmatched`]),
    /// only where the model could not do better: `agent.named_targets` on, and no device the
    /// person spoke to whose own entities the model might use.
    fn nothing_to_act_on(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Option<Result<(RunStatus, String), CallEnd>> {
        if !self.cfg.named_targets {
            return None;
        }
        let unmatched = with_registry(self.home, |r| {
            let speaker_has_entities = self
                .device_id
                .as_deref()
                .is_some_and(|device| r.entities().any(|e| e.device_id.as_deref() == Some(device)));
            if speaker_has_entities {
                return None;
            }
            state.said.unmatched(r)
        })?;
        let text = reply::nothing_found(&unmatched, state.lang());
        state
            .trace
            .push("fast path: the words point at nothing HomeClaw may act on");
        history.push(Message::assistant(text.clone()));
        Some(Ok((
            RunStatus::Failed("nothing in the home matches the words".into()),
            text,
        )))
    }

    /// One round trip: when the command is one request (whether or not its words were
    /// understood) and every call of this round was a service call Home Assistant verified,
    /// the reply is written from the verification instead of asking the model again. Anything
    /// else (a question, a failed or unverified call, a read) goes back to the model.
    pub(super) fn answer_from_verification(
        &self,
        calls: &[ToolCall],
        state: &RunState,
        before_round: usize,
    ) -> Option<String> {
        let new = &state.actions[before_round..];
        let all_verified_services = !calls.is_empty()
            && new.len() == calls.len()
            && calls.iter().all(|c| c.name == "call_service")
            && new.iter().all(|a| a.verified);
        if !self.cfg.answer_from_verification || !all_verified_services || !state.said.one_request {
            return None;
        }
        let lang = state.lang();
        Some(with_registry(self.home, |r| {
            reply::from_actions(new, |id| r.get(id).map(|e| e.name.clone()), lang)
        }))
    }
}
