//! What HomeClaw does with what Home Assistant's recogniser understood (see
//! [`super::recognised`]).

use super::PlannedCall;

/// What HomeClaw does with a recognition.
#[derive(Debug, Clone, PartialEq)]
pub enum Understood {
    /// Run these calls, then say what was done: `intent` and `keys` choose Home Assistant's
    /// own sentence where HomeClaw has no lexicon for the language; `slots` fill it.
    Act {
        calls: Vec<PlannedCall>,
        intent: String,
        keys: Vec<&'static str>,
        slots: Vec<(String, String)>,
    },
    /// A question answered from the registry, in a language HomeClaw speaks.
    Answer(String),
    /// Home Assistant's own agent runs it (timers, broadcasts, the household's own sentences,
    /// and questions in a language HomeClaw has no words for); why, for the trace, and the
    /// entities a question asks about (their states, in Home Assistant's answer, are then said
    /// in the household's words).
    HandOff {
        why: &'static str,
        asked: Vec<String>,
    },
    /// An action Home Assistant understood, but nothing HomeClaw may act on satisfies every
    /// constraint the words state.
    Nothing,
    /// An action on a name nothing in the home has ("Zet de sauna aan"), in a language
    /// HomeClaw has no words for: said with Home Assistant's own sentence, nothing run.
    NoSuchName(String),
    /// Not complete: facts about the words for the model (the kind of device it may use).
    Hint {
        intent: String,
        domains: Vec<String>,
    },
    /// Nothing HomeClaw can use.
    Unknown,
}

impl Understood {
    pub(super) fn hand_off(why: &'static str) -> Self {
        Self::HandOff {
            why,
            asked: Vec::new(),
        }
    }
}
