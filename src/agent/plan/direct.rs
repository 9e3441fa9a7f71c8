//! Answers that need no second sampling: the deterministic fast path (lever "no model at
//! all") and the reply written from Home Assistant's verification once a model's calls fully
//! answered a single action (lever "one round trip"). Both go through the same call path as a
//! model's call, so approval, policy and verification hold unchanged.

use super::condition::Checked;
use super::hearing::Heard;
use super::recognised::{Understood, understood};
use super::{Asked, Lang, Plan, PlannedCall};
use crate::agent::home::{LateRecognition, RecogniserAsk, with_registry};
use crate::agent::model::repair::unique_call_ids;
use crate::agent::say::reading;
use crate::agent::say::reply;
use crate::agent::say::speak::status_of;
use crate::agent::state::{Agent, CallEnd, RunState, RunStatus};
use crate::ha::recognise::Recognition;
use crate::lang::ha_replies;
use crate::llm::{Message, ToolCall};

/// How a run that ended before the model ends: a reply (`Ok`), or as a call can (`Err`).
pub(super) type Ended = Option<Result<(RunStatus, String), CallEnd>>;

impl Agent<'_> {
    /// The deterministic fast path ([`super::plan`]): a command it resolves runs without the
    /// model, through the same call path, and is answered from the verification (`Ok`), or ends
    /// as a call can (`Err`: held for approval, stopped by a guard). `None` leaves the command
    /// to the model (also when a planned call was refused: the model sees why).
    pub(crate) async fn fast_path(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Option<Result<(RunStatus, String), CallEnd>> {
        let conditioned = match self.condition(history, state) {
            Ok(plan) => plan,
            Err(end) => return Some(Ok(end)),
        };
        // A language HomeClaw has no words for: Home Assistant's recogniser reads it, and what
        // it cannot read goes to the model (HomeClaw's own lexicons would only misread it).
        if self
            .language
            .as_deref()
            .is_some_and(|tag| Lang::known(tag).is_none())
        {
            return self.recognised(history, state).await;
        }
        // A request on a condition is not a sentence Home Assistant's templates read whole.
        let on_condition = conditioned.is_some();
        let plan = match conditioned {
            Some(plan) => plan,
            None => with_registry(self.home, |r| state.said.plan(r, self.device_id.as_deref())),
        };
        if state.said.answers_a_question() {
            state.trace.push(
                "an answer to HomeClaw's question: read with the command it answers, not by \
                 Home Assistant's recogniser (which did not hear the question)",
            );
        }
        let language = |lang: Lang| self.language.as_deref().map_or(lang, Lang::from_tag);
        match plan {
            Plan::Model => {
                if let Some(end) = self.recognised(history, state).await {
                    return Some(end);
                }
                self.nothing_to_act_on(history, state).await
            }
            Plan::Answer { text, lang } => {
                if self.language.is_some() && language(lang) != lang {
                    return None;
                }
                state.reads += 1;
                state.trace.push("fast path: answered without the model");
                history.push(Message::assistant(text.clone()));
                Some(Ok((RunStatus::Done, text)))
            }
            Plan::Read { reads, asked, lang } => {
                // What is read does not depend on the language: answered in the request's.
                self.read_and_answer(&reads, &asked, language(lang), history, state)
                    .await
            }
            Plan::Ask { question, lang, .. } => {
                if !on_condition && let Some(end) = self.alongside(None, history, state).await {
                    return Some(end);
                }
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
                if !on_condition
                    && let Some(end) = self.alongside(Some(&calls), history, state).await
                {
                    return Some(end);
                }
                let lang = language(lang);
                self.act(&calls, lang, None, history, state).await
            }
        }
    }

    /// A request on a condition, read from the registry where HomeClaw can: its plan when the
    /// condition holds, `None` when the request has none. One that does not hold, or that
    /// HomeClaw cannot check, ends the run (`Err`) and changes nothing; the person is told why
    /// without asking the model (which acts and forgets the condition).
    fn condition(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Result<Option<Plan>, (RunStatus, String)> {
        if !(state.said.conditional && state.said.acts && !state.said.only_asks()) {
            return Ok(None);
        }
        let checked = with_registry(self.home, |r| {
            state.said.checked_condition(r, self.device_id.as_deref())
        });
        match checked {
            Some(Checked::Holds(plan)) => {
                state.reads += 1;
                state.condition_holds = true;
                state
                    .trace
                    .push("the condition holds (read from the registry)");
                Ok(Some(plan))
            }
            Some(Checked::Unmet(text)) => {
                state.reads += 1;
                state
                    .trace
                    .push("the condition does not hold (read from the registry): nothing changed");
                history.push(Message::assistant(text.clone()));
                Err((RunStatus::Done, text))
            }
            None => {
                state
                    .trace
                    .push("a request on a condition: nothing changed");
                let text = state.lang().says().conditional().to_owned();
                history.push(Message::assistant(text.clone()));
                let why = "the request waits on a condition HomeClaw cannot check".to_owned();
                Err((RunStatus::Failed(why), text))
            }
        }
    }

    /// Runs planned calls through the call path, then says what Home Assistant showed: in
    /// `lang`, or in Home Assistant's own sentence for a language HomeClaw has no words for
    /// (`said`: the language tag and the sentence's intent, keys and slots).
    async fn act(
        &self,
        calls: &[PlannedCall],
        lang: Lang,
        said: Option<(&str, &Said<'_>)>,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Ended {
        let before = state.actions.len();
        for (i, planned) in calls.iter().enumerate() {
            let mut call = [ToolCall {
                id: format!("fast_{}", i + 1),
                name: "call_service".into(),
                arguments: planned.arguments(),
                provider_data: None,
            }];
            unique_call_ids(&mut call, history);
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
        let status = status_of(done);
        let theirs = said.and_then(|(tag, said)| {
            if matches!(status, RunStatus::Done) {
                ha_replies::done(tag, said.intent, said.keys, &said.slots())
            } else {
                ha_replies::failed(tag)
            }
        });
        let text = theirs.unwrap_or_else(|| {
            with_registry(self.home, |r| {
                reply::from_actions(done, |id| r.get(id).map(|e| e.name.clone()), lang)
            })
        });
        history.push(Message::assistant(text.clone()));
        // Done only when Home Assistant showed every change (or a dry run planned it).
        Some(Ok((status, text)))
    }

    /// Home Assistant's recogniser, between HomeClaw's own lexicons and the model: what it
    /// understands becomes HomeClaw's own calls (validated, approved, verified, said by
    /// HomeClaw); what HomeClaw does not run itself is handed to Home Assistant's agent; a
    /// partial understanding bounds the model's calls to the kind of device it names. `None`
    /// goes on as without it.
    async fn recognised(&self, history: &mut Vec<Message>, state: &mut RunState) -> Ended {
        let (heard, tag, lang, started) = self.ask_recogniser(history, state)?.await;
        let (recognition, command) = match heard {
            Heard::Now(recognition, command) => (recognition, command),
            Heard::Late(recognition) => {
                state.trace.push(format!(
                    "Home Assistant's recogniser: no answer within its budget ({} ms); taken if \
                     it comes before the model's",
                    started.elapsed().as_millis()
                ));
                let asked = RecogniserAsk {
                    tag,
                    lang,
                    at: started,
                };
                state.late = Some(LateRecognition { recognition, asked });
                return None;
            }
        };
        let took = started.elapsed().as_millis();
        let Some(recognition) = recognition else {
            // Nothing, or no answer at all: Home Assistant's agent is not asked either (what
            // it would run is unknown).
            state.trace.push(format!(
                "Home Assistant's recogniser: nothing recognised ({took} ms)"
            ));
            return None;
        };
        let plan = with_registry(self.home, |r| {
            understood(&recognition, Some(state.said.as_ref()), lang, &command, r)
        });
        let note = state.said.as_said_note(&command);
        state
            .trace
            .push(format!("{}{note}", recognition_trace(&recognition, took)));
        self.follow(plan, &command, &tag, lang, history, state)
            .await
    }

    /// What a recognition leads to: HomeClaw's own calls, an answer, a hand-off to Home
    /// Assistant's agent, the words that found nothing, or a bound on the model's kinds.
    pub(super) async fn follow(
        &self,
        plan: Understood,
        command: &str,
        tag: &str,
        lang: Option<Lang>,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Ended {
        match plan {
            Understood::Act {
                calls,
                intent,
                keys,
                slots,
            } => {
                let said = Said {
                    intent: &intent,
                    keys: &keys,
                    slots: &slots,
                };
                let theirs = lang.is_none().then_some((tag, &said));
                let lang = lang.unwrap_or(Lang::En);
                let end = self.act(&calls, lang, theirs, history, state).await;
                if end.is_none() {
                    // A planned call was refused: the model sees why, within the same kind.
                    state.kinds = calls.iter().map(|c| c.domain.clone()).collect();
                }
                end
            }
            Understood::Answer(text) => {
                state.reads += 1;
                state
                    .trace
                    .push("answered from the registry what Home Assistant recognised");
                history.push(Message::assistant(text.clone()));
                Some(Ok((RunStatus::Done, text)))
            }
            Understood::HandOff { why, asked } if self.cfg.ha_recogniser.hand_off => {
                state
                    .trace
                    .push(format!("handed to Home Assistant's agent: {why}"));
                let states = self.dashboard_states(&asked, tag);
                self.handed(command, tag, &states, history, state).await
            }
            Understood::HandOff { .. } => None,
            Understood::Unknown => {
                self.ask_home_assistant(command, tag, lang, history, state)
                    .await
            }
            Understood::Nothing => {
                // Home Assistant understood an action, and nothing satisfies every word:
                // said with the words that found nothing, as HomeClaw's own path says it.
                let unmatched = with_registry(self.home, |r| state.said.unmatched(r));
                let text = match (unmatched, lang) {
                    (Some(unmatched), Some(lang)) => reply::nothing_found(&unmatched, lang),
                    _ => return None,
                };
                nothing_matches(
                    text,
                    "nothing HomeClaw may act on satisfies the recognised words",
                    history,
                    state,
                )
            }
            Understood::NoSuchName(name) => {
                let text = ha_replies::unknown_name(tag, &name)?;
                nothing_matches(
                    text,
                    "the words name nothing in the home: said in Home Assistant's words",
                    history,
                    state,
                )
            }
            Understood::Hint { domains, .. } => {
                state.kinds = domains;
                None
            }
        }
    }

    /// "Nee, die is closed": the states of what was asked about, as the household's dashboard
    /// says them, for Home Assistant's agent to answer with.
    fn dashboard_states(&self, asked: &[String], tag: &str) -> Vec<(String, &'static str)> {
        with_registry(self.home, |r| {
            asked
                .iter()
                .filter_map(|id| r.get(id))
                .filter_map(|e| {
                    let class = e.attributes.get("device_class").and_then(|c| c.as_str());
                    let word = ha_replies::state_word(tag, e.domain(), class, &e.state)?;
                    Some((e.state.clone(), word))
                })
                .collect()
        })
    }

    /// Runs the reads a question needs (validated like any call: the service must be allowed
    /// and every entity visible) and answers from what they returned. A read that fails leaves
    /// the question to the model, which sees nothing of it.
    async fn read_and_answer(
        &self,
        reads: &[PlannedCall],
        asked: &Asked,
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
            reading::compose(asked, &responses, r, lang, now)
        });
        state.trace.push("fast path: answered from what was read");
        history.push(Message::assistant(text.clone()));
        Some(Ok((RunStatus::Done, text)))
    }

    /// An action whose words point at nothing: answered at once ([`crate::agent::understand::unmatched`]),
    /// only where the model could not do better: `agent.named_targets` on, and no device the
    /// person spoke to whose own entities the model might use. Home Assistant's recogniser,
    /// past its budget, is waited for first: "I found nothing" only after it found nothing
    /// either ("Stelle die Schlafzimmerlampe auf das maximum ein" is Home Assistant's to read).
    async fn nothing_to_act_on(
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
        if let Some(end) = self.late_before_nothing_found(history, state).await {
            return Some(end);
        }
        let text = reply::nothing_found(&unmatched, state.lang());
        nothing_matches(
            text,
            "fast path: the words point at nothing HomeClaw may act on",
            history,
            state,
        )
    }

    /// One round trip: when the command is one request (whether or not its words were
    /// understood) and every call of this round was a service call Home Assistant verified,
    /// the reply is written from the verification instead of asking the model again. Anything
    /// else (a question, a failed or unverified call, a read) goes back to the model.
    pub(crate) fn answer_from_verification(
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
        if let Some(theirs) = self.in_their_words(new) {
            return Some(theirs);
        }
        let lang = state.lang();
        Some(with_registry(self.home, |r| {
            reply::from_actions(new, |id| r.get(id).map(|e| e.name.clone()), lang)
        }))
    }
}

/// What Home Assistant's sentence for an action needs: its intent, which of its sentences,
/// and the slots that fill it.
struct Said<'a> {
    intent: &'a str,
    keys: &'a [&'static str],
    slots: &'a [(String, String)],
}

impl Said<'_> {
    fn slots(&self) -> Vec<(&str, &str)> {
        self.slots
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect()
    }
}

/// Every path that finds nothing satisfying the words ends the same way: the person hears
/// which words found nothing, and the run fails rather than widening to something else.
fn nothing_matches(
    text: String,
    why: &str,
    history: &mut Vec<Message>,
    state: &mut RunState,
) -> Option<Result<(RunStatus, String), CallEnd>> {
    state.trace.push(why);
    history.push(Message::assistant(text.clone()));
    Some(Ok((
        RunStatus::Failed("nothing in the home matches the words".into()),
        text,
    )))
}

/// What the trace says of a recognition: its intent (or a sentence trigger), whether it was
/// complete, and how long it took.
pub(super) fn recognition_trace(recognition: &Recognition, took: u128) -> String {
    format!(
        "Home Assistant recognised {} ({}, {took} ms)",
        if recognition.intent.is_empty() {
            "a sentence trigger"
        } else {
            recognition.intent.as_str()
        },
        if recognition.matched {
            "complete"
        } else {
            "partial"
        }
    )
}
