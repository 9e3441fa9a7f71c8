//! The deterministic fast path: a command that names one intent (on/off, open/close,
//! lock/unlock, start, stop, dock, pause, resume, next, mute, toggle, a percentage, a
//! temperature, an HVAC mode, adding an item to a to-do list) and resolves to one target set in
//! the live registry runs without asking the model at all. It is executed through
//! the same call path as a model's call (validation, policy, approval, verification), so the only
//! thing skipped is the guessing.
//!
//! Invariants: pure (the registry in, a plan out); anything uncertain — a question, no intent,
//! two intents, a word no target explains, several equally good targets of different kinds — is
//! [`Plan::Model`]; a single-device command with a few equally good targets of one kind asks
//! which, naming them.

pub(crate) mod alongside;
pub mod ask;
pub mod chosen;
pub mod condition;
pub mod direct;
mod handoff;
mod hearing;
pub(crate) mod late;
mod question;
mod read;
pub mod recognised;
mod recognised_names;
mod recognised_reads;
mod targets;
mod todo;
mod understood;

use crate::agent::understand::mood::{Reading, unwrapped_request};

use crate::agent::understand::target::{covers, query_of};
use crate::agent::understand::words::{
    leading_kind, leading_verb, names_a_kind, requests, trailing_kind, with_the_particle,
};
use crate::agent::understand::{Lang, here, join_compounds};
use crate::ha::registry::Registry;
use question::answer;
pub use question::{ReadState, answer_from_reads, state_line};
pub use read::{Asked, Day};
use targets::plan_reading;
pub use targets::{add_call, allowed_service};
use todo::add_item;

pub use crate::agent::act::call::PlannedCall;

#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// A question about the home answered from the live registry.
    Answer { text: String, lang: Lang },
    /// A question answered by reading through services that answer (to-do items, calendar
    /// events, forecasts); HomeClaw writes the answer from what they return.
    Read {
        reads: Vec<PlannedCall>,
        asked: Asked,
        lang: Lang,
    },
    /// Run these calls (one per domain), then reply from their verification.
    Act { calls: Vec<PlannedCall>, lang: Lang },
    /// A few equally good targets for a single-device command: ask which. `options` holds
    /// the call each answer would make, one per candidate in the order the question names
    /// them (none when the question is not between devices: "which room is here?"), so that
    /// the person's answer is acted on without reading the command again.
    Ask {
        question: String,
        options: Vec<PlannedCall>,
        lang: Lang,
    },
    /// Not certain: the model decides.
    Model,
}

/// The plan for a command: one request, or several joined by "and", "then" or commas
/// ("turn on the kitchen light and then turn off the living room light"). A part without its
/// own verb takes the one before ("turn on the kitchen light and the hall light"). Joined
/// requests run only when every part resolves; otherwise the model decides for the whole.
pub fn plan(text: &str, registry: &Registry) -> Plan {
    plan_from(text, registry, None)
}

/// [`plan`] for a person speaking to a device (a voice satellite, a speaker): a command that
/// names a kind but no room ("turn off the light", "set the volume to 20%") means the device
/// itself or what is in its room, as Home Assistant's own agent reads it.
pub fn plan_from(text: &str, registry: &Registry, device_id: Option<&str>) -> Plan {
    plan_joined(&join_compounds(text, registry), registry, device_id)
}

/// [`plan_from`] for words whose compound names are already joined ([`join_compounds`]).
pub fn plan_joined(text: &str, registry: &Registry, device_id: Option<&str>) -> Plan {
    plan_joined_in(text, registry, device_id, None)
}

/// [`plan_joined`], with a question answered in `answer_in` when the request says the
/// language (a pipeline set to English hearing Polish answers in English), else in the words'.
pub fn plan_joined_in(
    text: &str,
    registry: &Registry,
    device_id: Option<&str>,
    answer_in: Option<Lang>,
) -> Plan {
    plan_reading_in(&Reading::new(text), registry, device_id, answer_in)
}

/// [`plan_joined_in`] for words read already (the command's [`Reading`], built once per run).
pub fn plan_reading_in(
    reading: &Reading,
    registry: &Registry,
    device_id: Option<&str>,
    answer_in: Option<Lang>,
) -> Plan {
    // "Here" is the room of the device the person speaks to, or nothing at all.
    let placed;
    let reading = match here::place(&reading.text, registry, device_id, None) {
        here::Here::Unsaid => reading,
        here::Here::Placed { words, .. } => {
            placed = reading.reworded(&words);
            &placed
        }
        here::Here::Unplaced(lang) => {
            let lang = answer_in.or(lang).unwrap_or(Lang::En);
            return Plan::Ask {
                question: lang.says().no_room_here().to_owned(),
                options: Vec::new(),
                lang,
            };
        }
    };
    let text = reading.text.as_str();
    if let Some((joke, lang)) = joke(reading, answer_in) {
        return Plan::Answer {
            text: joke.to_owned(),
            lang,
        };
    }
    // "Can you turn the fan on?" is a request, said politely: planned as the request.
    if let Some(request) = unwrapped_request(text) {
        return plan_from(&request, registry, device_id);
    }
    // A question is one request, whatever its words ("who do I need to call" holds the Polish
    // "i"): a device's state first, then what is read through a list, a calendar or the weather.
    if let Some(answered) = answer(reading, registry, answer_in) {
        return answered;
    }
    if let Some(read) = read::plan(reading, registry, answer_in) {
        return read;
    }
    if let Some(plan) = all_but(reading, registry, device_id) {
        return plan;
    }
    let parts = with_the_particle(requests(reading));
    if parts.len() < 2 {
        return plan_reading(reading, registry, device_id);
    }
    let kind = trailing_kind(&parts);
    // "The lights in the kitchen and the bedroom": the kind said first holds for the parts
    // after it that name none (the bedroom's lights, not a player named Bedroom).
    let first_kind = leading_kind(&parts[0]);
    let mut calls: Vec<PlannedCall> = Vec::new();
    let mut first_lang = None;
    let mut verb: Option<Reading> = None;
    for (i, part) in parts.iter().enumerate() {
        let own = part.intent().is_some() || add_item(part, registry).is_some();
        let said = match (&verb, own) {
            (_, true) => {
                verb = leading_verb(part);
                part.clone()
            }
            (Some(v), false) => v.then(part),
            (None, false) => return Plan::Model,
        };
        let kind_first = first_kind
            .as_ref()
            .filter(|_| i > 0 && !names_a_kind(&said));
        let mut planned = match kind_first {
            // Never the part without the kind: "the bedroom" alone is a player named so.
            Some(k) => [k.then(&said), said.then(k)]
                .iter()
                .map(|with| plan_reading(with, registry, device_id))
                .find(|p| matches!(p, Plan::Act { .. }))
                .unwrap_or(Plan::Model),
            None => plan_reading(&said, registry, device_id),
        };
        if !matches!(planned, Plan::Act { .. })
            && let Some(kind) = &kind
            && !names_a_kind(&said)
        {
            planned = plan_reading(&said.then(kind), registry, device_id);
        }
        match planned {
            Plan::Act { calls: more, lang } => {
                first_lang.get_or_insert(lang);
                calls.extend(more);
            }
            _ => return Plan::Model,
        }
    }
    Plan::Act {
        calls,
        lang: first_lang.unwrap_or(Lang::En),
    }
}

/// "Tell me a joke", "Erzähl mir einen Witz": one of the lexicon's jokes, chosen by the words
/// (another wording, another joke). Only a short request with no verb of the home's: "turn on
/// the funny lamp" is a command. Told in `answer_in` when the request says the language.
fn joke(reading: &Reading, answer_in: Option<Lang>) -> Option<(&'static str, Lang)> {
    let words = &reading.words;
    if words.len() > 8 {
        return None;
    }
    // The joke word first: every command passes here, and few ask for a joke.
    let said = crate::lang::LEXICONS
        .iter()
        .find(|l| words.iter().any(|w| l.joke_words.contains(&w.as_str())))?;
    if reading.intent().is_some() {
        return None;
    }
    let lexicon = answer_in.map_or(*said, Lang::lexicon);
    let pick = words.iter().map(|w| w.len()).sum::<usize>() % lexicon.jokes.len().max(1);
    Some((lexicon.jokes.get(pick)?, lexicon.lang))
}

/// "Turn off all the lights except the kitchen", "wyłącz wszystkie światła oprócz sypialni":
/// the request before the word that excepts, less every entity the words after it name (a
/// room, a device). `None` when no word excepts; the model decides when either side names
/// nothing, or nothing would be left.
fn all_but(reading: &Reading, registry: &Registry, device_id: Option<&str>) -> Option<Plan> {
    let pieces = reading.pieces.len();
    let at = (0..pieces).find(|&i| {
        reading
            .piece_words(i)
            .iter()
            .any(|w| crate::lang::any_has(|l| l.except, w))
    })?;
    let Plan::Act { calls, lang } = plan_reading(&reading.of_pieces(0..at), registry, device_id)
    else {
        return Some(Plan::Model);
    };
    let rest = reading.of_pieces(at + 1..pieces);
    let words: Vec<&str> = rest
        .words
        .iter()
        .map(String::as_str)
        .filter(|w| !crate::lang::any_has(|l| l.stopwords, w))
        .collect();
    let query = query_of(&words, registry);
    if query.is_empty() {
        return Some(Plan::Model);
    }
    let spared: Vec<&str> = registry
        .entities()
        .filter(|e| covers(e, &query))
        .map(|e| e.entity_id.as_str())
        .collect();
    let planned: Vec<&String> = calls.iter().flat_map(|c| &c.entity_ids).collect();
    if !planned.iter().any(|id| spared.contains(&id.as_str())) {
        // The exception names nothing the request would touch: it is not understood.
        return Some(Plan::Model);
    }
    let calls: Vec<PlannedCall> = calls
        .into_iter()
        .filter_map(|mut call| {
            call.entity_ids.retain(|id| !spared.contains(&id.as_str()));
            (!call.entity_ids.is_empty()).then_some(call)
        })
        .collect();
    Some(if calls.is_empty() {
        Plan::Model
    } else {
        Plan::Act { calls, lang }
    })
}

#[cfg(test)]
mod alias_tests;
#[cfg(test)]
mod constraint_tests;
#[cfg(test)]
mod floor_tests;
#[cfg(test)]
mod grounding_tests;
#[cfg(test)]
mod kind_words_tests;
#[cfg(test)]
mod levels_tests;
#[cfg(test)]
mod people_question_tests;
#[cfg(test)]
mod people_tests;
#[cfg(test)]
mod question_tests;
#[cfg(test)]
mod recognised_here_tests;
#[cfg(test)]
mod recognised_tests;
#[cfg(test)]
mod speaker_tests;
#[cfg(test)]
mod targets_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod unfound_tests;
#[cfg(test)]
mod verbs_tests;
