//! Handing a sentence to Home Assistant's own agent: its words are the reply where HomeClaw
//! has none of its own (a question in a language HomeClaw has no words for, a sentence
//! trigger).

use super::Lang;
use super::direct::Ended;
use crate::agent::state::{Agent, RunState, RunStatus};
use crate::lang::ha_replies;
use crate::llm::Message;

impl Agent<'_> {
    /// A question in a language HomeClaw has no words for, that Home Assistant recognised only
    /// in part: Home Assistant's agent answers it in the person's language (its recogniser found
    /// nothing to run; the model would answer from reads in English). Anything else goes on.
    pub(super) async fn ask_home_assistant(
        &self,
        command: &str,
        tag: &str,
        lang: Option<Lang>,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Ended {
        let asks = state.said.question;
        if lang.is_some() || !asks || !self.cfg.ha_recogniser.hand_off {
            return None;
        }
        state
            .trace
            .push("a question in a language HomeClaw has no words for: Home Assistant answers");
        self.handed(command, tag, &[], history, state).await
    }

    /// Home Assistant's agent runs the sentence; its words are the reply (none: go on).
    pub(super) async fn handed(
        &self,
        command: &str,
        tag: &str,
        states: &[(String, &str)],
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Ended {
        let mut handled = match self
            .home
            .hand_off(command, tag, self.device_id.as_deref())
            .await
        {
            Ok(handled) if !handled.speech.is_empty() => handled,
            Ok(_) => return None,
            Err(e) => {
                state
                    .trace
                    .push(format!("Home Assistant's agent failed: {e}"));
                return None;
            }
        };
        handled.speech = ha_replies::in_household_words(&handled.speech, states);
        history.push(Message::assistant(handled.speech.clone()));
        let status = if handled.failed {
            RunStatus::Failed("Home Assistant's agent reported an error".into())
        } else {
            RunStatus::Done
        };
        Some(Ok((status, handled.speech)))
    }
}
