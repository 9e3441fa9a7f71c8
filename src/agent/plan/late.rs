//! Home Assistant's recogniser past its budget. Its answer is still on its way when the run
//! turns to the model; it is taken if it comes before the model's first answer (a recognition
//! at 301 ms against a 300 ms budget is not thrown away for seconds of model rounds), and the
//! model's request is then given up. After the model's first answer it is dropped.

use super::direct::recognition_trace;
use super::recognised::{Understood, understood};
use crate::agent::home::{LateRecognition, RecogniserAsk, with_registry};
use crate::agent::state::{Agent, CallEnd, Caller, RunState, RunStatus};
use crate::llm::{ChatRequest, ChatResponse, LlmError, Message};

/// Which came first: the model's answer, or a late recognition that ended the run.
pub(crate) enum Raced {
    Model(Result<ChatResponse, LlmError>),
    Ended(Result<(RunStatus, String), CallEnd>),
}

impl Agent<'_> {
    /// Asks the model and, alongside, waits for the late recognition: the first to come wins.
    /// A recognition that leads to nothing HomeClaw does itself (nothing recognised, or only
    /// a kind of device, too late to bound the request already sent) waits for the model.
    pub(crate) async fn chat_or_late(
        &self,
        request: &ChatRequest,
        late: LateRecognition,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Raced {
        let chat = self.model.chat(request);
        tokio::pin!(chat);
        let LateRecognition {
            mut recognition,
            asked,
        } = late;
        let heard = tokio::select! {
            biased;
            response = &mut chat => match response {
                // The model failed (a provider down answers in a millisecond): the recognition
                // still on its way is all there is, and is waited for within its own time.
                Err(e) => {
                    let heard = (&mut recognition).await;
                    let when = "after the model failed";
                    return match self.follow_late(heard, &asked, when, history, state).await {
                        Some(end) => Raced::Ended(end),
                        None => Raced::Model(Err(e)),
                    };
                }
                ok => return Raced::Model(ok),
            },
            heard = &mut recognition => heard,
        };
        let when = "before the model's answer";
        if let Some(end) = self.follow_late(heard, &asked, when, history, state).await {
            return Raced::Ended(end);
        }
        Raced::Model(chat.await)
    }

    /// The late recognition, waited for (within its request's time) where the run would
    /// otherwise end on "I found nothing": what it leads to, if HomeClaw does it; `None` when
    /// there is none, or it read nothing HomeClaw does.
    pub(crate) async fn late_before_nothing_found(
        &self,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Option<Result<(RunStatus, String), CallEnd>> {
        let LateRecognition { recognition, asked } = state.late.take()?;
        let heard = recognition.await;
        let when = "before saying nothing was found";
        self.follow_late(heard, &asked, when, history, state).await
    }

    /// What a late recognition leads to, when it is HomeClaw's to do (its own calls, an
    /// answer, a hand-off, the words that found nothing); `None` leaves the run to the model.
    async fn follow_late(
        &self,
        heard: Option<(crate::ha::recognise::Recognition, String)>,
        asked: &RecogniserAsk,
        when: &str,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Option<Result<(RunStatus, String), CallEnd>> {
        let took = asked.at.elapsed().as_millis();
        let (tag, lang) = (asked.tag.as_str(), asked.lang);
        let Some((recognition, command)) = heard else {
            state.trace.push(format!(
                "Home Assistant's recogniser: nothing recognised ({took} ms, late)"
            ));
            return None;
        };
        state.trace.push(format!(
            "{}{}, late: {when}",
            recognition_trace(&recognition, took),
            state.said.as_said_note(&command)
        ));
        let plan = with_registry(self.home, |r| {
            understood(&recognition, Some(state.said.as_ref()), lang, &command, r)
        });
        if matches!(plan, Understood::Hint { .. }) {
            return None;
        }
        let model = std::mem::replace(&mut state.caller, Caller::Words);
        let ended = self.follow(plan, &command, tag, lang, history, state).await;
        if ended.is_none() {
            state.caller = model;
        }
        ended
    }
}
