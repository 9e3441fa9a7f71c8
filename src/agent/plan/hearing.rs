//! Home Assistant's recogniser asked a command's words. Where the person said "here",
//! HomeClaw asks without it first (the speaking device, sent along, names the room, and in
//! most of Home Assistant's sentences "here" would be a name it does not know: "Zet het volume
//! hier op 30 procent" reads "volume hier" as a player's name). Where that reads less than the
//! whole sentence, the words as said are asked too: Dutch "hier de lichten uitzetten" is one
//! of Home Assistant's own sentences, and "de lichten uitzetten" none at all.

use futures_util::future::BoxFuture;

use super::Lang;
use crate::agent::home::Recognised;
use crate::agent::state::{Agent, RunState, newest_command};
use crate::ha::recognise::Recognition;
use crate::llm::Message;

/// What the recogniser read, with the words it read it in (what the recognition is followed
/// with, and handed to Home Assistant's agent as).
pub(crate) enum Heard {
    /// Within the budget: the recognition (`None`: nothing) and the words.
    Now(Option<Recognition>, String),
    /// Past the budget: the recognition and its words when they come.
    Late(BoxFuture<'static, Option<(Recognition, String)>>),
}

/// Home Assistant read the whole sentence.
fn complete(recognition: &Option<Recognition>) -> bool {
    recognition.as_ref().is_some_and(|r| r.matched)
}

/// The first complete reading of the two, else the first sentence's.
fn either(
    first: (Option<Recognition>, String),
    then: (Option<Recognition>, String),
) -> (Option<Recognition>, String) {
    if !complete(&first.0) && complete(&then.0) {
        then
    } else {
        first
    }
}

/// A recognition and its words, as a late one comes.
fn paired((recognition, words): (Option<Recognition>, String)) -> Option<(Recognition, String)> {
    recognition.map(|r| (r, words))
}

impl Agent<'_> {
    /// Home Assistant's recogniser asked the command's words, when it is on: what it read (and
    /// in which words), their language tag, the language HomeClaw answers in, and when it was
    /// asked. (A future of its own: the run's state is read before, never held across the
    /// wait.)
    pub(super) fn ask_recogniser(
        &self,
        history: &[Message],
        state: &RunState,
    ) -> Option<
        impl std::future::Future<Output = (Heard, String, Option<Lang>, std::time::Instant)> + '_,
    > {
        // An answer to HomeClaw's own question ("the kitchen one") is read with the command it
        // answers; the recogniser, which did not hear the question, would read it alone ("one"
        // as a brightness of 1%).
        if !self.cfg.ha_recogniser.enabled || state.said.answers_a_question() {
            return None;
        }
        let said = newest_command(history)?;
        let command = state.said.for_recogniser(said).to_owned();
        let as_said = (command != said).then(|| said.to_owned());
        let tag = self
            .language
            .clone()
            .unwrap_or_else(|| state.lang().lexicon().tag.to_owned());
        let lang = match &self.language {
            Some(tag) => Lang::known(tag),
            None => Some(state.lang()),
        };
        let started = std::time::Instant::now();
        Some(async move {
            let heard = self.recognise(command, as_said, &tag).await;
            (heard, tag, lang, started)
        })
    }

    /// `command` recognised; where it is not read whole and the person said other words
    /// (`as_said`, "here" included), those too, and the first complete reading is taken.
    async fn recognise(&self, command: String, as_said: Option<String>, tag: &str) -> Heard {
        let device = self.device_id.as_deref();
        let first = self.home.recognise(&command, tag, device).await;
        let Some(said) = as_said else {
            return match first {
                Recognised::Now(recognition) => Heard::Now(recognition, command),
                Recognised::Late(late) => {
                    Heard::Late(Box::pin(async move { paired((late.await, command)) }))
                }
            };
        };
        let first = match first {
            Recognised::Now(recognition) if complete(&recognition) => {
                return Heard::Now(recognition, command);
            }
            first => first,
        };
        // Asked in turn: Home Assistant reads one sentence at a time (two at once share its
        // lazily built name index and read differently).
        let then = self.home.recognise(&said, tag, device).await;
        match (first, then) {
            (Recognised::Now(first), Recognised::Now(then)) => {
                let (recognition, words) = either((first, command), (then, said));
                Heard::Now(recognition, words)
            }
            (first, then) => Heard::Late(Box::pin(async move {
                let first = match first {
                    Recognised::Now(recognition) => recognition,
                    Recognised::Late(late) => late.await,
                };
                if complete(&first) {
                    return paired((first, command));
                }
                let then = match then {
                    Recognised::Now(recognition) => recognition,
                    Recognised::Late(late) => late.await,
                };
                paired(either((first, command), (then, said)))
            })),
        }
    }
}
