//! The model chooses, HomeClaw speaks. On the model path the model picks the calls to make,
//! the entities to read and, when it cannot tell, the candidates to ask about; every sentence
//! the person then gets about the home is written here, from what the run verified or read,
//! in the person's language. The model's own words reach the person only when the run touched
//! nothing and neither the command nor the words are about the home (checked against the
//! registry's names, not against a list of claim phrases): a greeting, a joke, general
//! knowledge. Everything else the model wrote stays in the trace.
//!
//! Pure: the run's record and the registry in, the status and the reply out.

use super::reply;
use crate::agent::act::verify::ActionReport;
use crate::agent::plan::ReadState;
use crate::agent::plan::ask::{MAX_NAMED, which_one};
use crate::agent::state::{Observed, RunStatus};
use crate::agent::understand::Lang;
use crate::agent::understand::naming::{names_a_kind, names_an_area, names_by_translation};
use crate::agent::understand::parsed::Parsed;
use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::{Entity, Hidden, Registry};
use crate::text::{plural_stem, tokens};

/// What the run did and what the model said at its end.
pub(crate) struct Ending<'a> {
    /// The command, as parsed for the run.
    pub said: &'a Parsed,
    /// The run needed the tools: the command acts on or asks about the home (its words or the
    /// names it uses).
    pub about_home: bool,
    /// The model tried a service call (refused, failed or held): whatever it says next is
    /// about the home.
    pub tried_a_change: bool,
    /// The model's last words ("" when they could not be used at all).
    pub text: &'a str,
    pub actions: &'a [ActionReport],
    /// What the run read of entities it did not then act on.
    pub reads: &'a [&'a Observed],
    pub hidden: Option<&'a (Hidden, String)>,
    /// The entities the command's words point at, as the model was shown them.
    pub candidates: &'a [String],
}

/// The end of a run as the person gets it.
#[derive(Debug, PartialEq)]
pub(crate) struct Said {
    pub status: RunStatus,
    pub reply: String,
    /// Why, for the trace.
    pub why: &'static str,
}

/// Whether something the run read is what the question asks about (its name, room or kind):
/// then HomeClaw can answer from it without asking the model again.
pub(crate) fn answers_the_question(said: &Parsed, reads: &[Observed], registry: &Registry) -> bool {
    said.question
        && reads
            .iter()
            .any(|o| asked_about(said, &o.entity_id, registry))
}

pub(crate) fn compose(end: &Ending<'_>, registry: &Registry) -> Said {
    let said = end.said;
    if said.conditional && !said.only_asks() && end.actions.is_empty() {
        return Said {
            status: RunStatus::Failed("the request waits on a condition".into()),
            reply: said.lang.says().conditional().to_owned(),
            why: "a request on a condition: nothing may change, said why",
        };
    }
    let about_home = end.about_home || said.about_home(registry);
    // Told, not asked, about the home: a request, whether or not its words were understood.
    let acts = said.acts || (about_home && !said.question);
    if let Some(from_record) = from_the_record(end, acts, registry) {
        return from_record;
    }
    from_the_model(end, about_home, acts, registry)
}

/// The end said from what the run did and read, when it did or read anything.
fn from_the_record(end: &Ending<'_>, acts: bool, registry: &Registry) -> Option<Said> {
    let said = end.said;
    let lang = said.lang;
    let name = |id: &str| registry.get(id).map(|e| e.name.clone());
    let reads: Vec<ReadState<'_>> = end
        .reads
        .iter()
        .map(|o| ReadState {
            asked_about: asked_about(said, &o.entity_id, registry),
            domain: o.entity_id.split('.').next().unwrap_or_default(),
            name: &o.name,
            state: &o.state,
            unit: o.unit.as_deref(),
        })
        .collect();
    // What the words do not point at is not the answer: "is guest mode on?" is not answered
    // by the AC the model read instead, nor the living room's temperature by the outside's.
    let read_anything = !reads.is_empty();
    let reads: Vec<ReadState<'_>> = reads.into_iter().filter(|r| r.asked_about).collect();
    if read_anything && reads.is_empty() && end.actions.is_empty() && said.question {
        return Some(Said {
            status: RunStatus::Failed("what was read is not what was asked about".into()),
            reply: not_found(lang, end.hidden),
            why: "read only what the question does not name: said it was not found",
        });
    }
    if !end.actions.is_empty() {
        let mut reply = reply::from_actions(end.actions, name, lang);
        if !reads.is_empty() {
            reply.push(' ');
            reply.push_str(&said.answer_from(&reads));
        }
        let status = status_of(end.actions);
        let why = match &status {
            RunStatus::Done => "said what was verified",
            _ if !end.actions.iter().any(confirmed) => {
                "nothing was confirmed: said what Home Assistant showed"
            }
            _ => "part was confirmed: said which part",
        };
        return Some(Said { status, reply, why });
    }
    if !reads.is_empty() {
        let answer = said.answer_from(&reads);
        if acts && let Some(ask) = which_of_the_pointed(end, registry) {
            return Some(ask);
        }
        if acts {
            return Some(Said {
                status: RunStatus::Failed("the request asked for an action and none ran".into()),
                reply: format!("{} {answer}", reply::nothing_done("", lang, end.hidden)),
                why: "an action was asked for and none ran: said so, and what was read",
            });
        }
        return Some(Said {
            status: RunStatus::Done,
            reply: answer,
            why: "answered from the reads",
        });
    }
    None
}

/// The end of a run that did and read nothing: the model's words pass only when nothing in
/// the home is touched or named; else what it named is read from the registry, or the person
/// is told nothing was done or found.
fn from_the_model(end: &Ending<'_>, about_home: bool, acts: bool, registry: &Registry) -> Said {
    let said = end.said;
    let lang = said.lang;
    let named = named_in(end.text, registry);
    let units = stated_units(end.text, registry);
    let names_home = !named.is_empty()
        || !units.is_empty()
        || names_an_area(end.text, registry)
        || names_by_translation(end.text, registry)
        || names_a_kind(end.text, registry);
    // Told, not asked, and the model's words are about the home: a request that did nothing.
    let acts = acts || (names_home && !said.question);
    if (about_home || names_home) && super::honesty::asks_question(end.text) {
        return Said {
            status: RunStatus::ClarificationRequired,
            reply: which_one(&named, registry, lang),
            why: "the model asked which: asked about the candidates it named",
        };
    }
    // A question whose model tried a change (refused) is still a question: it is answered
    // that what it asks about was not found, not that nothing was changed.
    if acts || (end.tried_a_change && !said.question) {
        if let Some(ask) = which_of_the_pointed(end, registry) {
            return ask;
        }
        return Said {
            status: RunStatus::Failed("the request asked for an action and none ran".into()),
            reply: reply::nothing_done("", lang, end.hidden),
            why: "an action was asked for and none ran: the model's words stay in the trace",
        };
    }
    // A question the model answered without reading: the entities its answer names are read
    // from the registry (kept live by Home Assistant's events), never taken from its words —
    // and only those the question is about ("what's on my calendar?" is not answered with
    // the players the model listed).
    let asked: Vec<&Entity> = named
        .iter()
        .copied()
        .filter(|e| said.points_at(e, registry))
        .collect();
    if about_home && !asked.is_empty() {
        let reads: Vec<ReadState<'_>> = asked.iter().map(|e| as_read(said, e, registry)).collect();
        return Said {
            status: RunStatus::Done,
            reply: said.answer_from(&reads),
            why: "answered from the registry's states of what the model named",
        };
    }
    // A reading the model gave from the candidates it was shown ("100 watts"): said from the
    // one measuring candidate, as the registry holds it now.
    if said.question && !units.is_empty() {
        let measuring: Vec<&Entity> = end
            .candidates
            .iter()
            .filter_map(|id| registry.get(id))
            .filter(|e| unit_of(e).is_some_and(|u| units.contains(&u.to_lowercase())))
            .collect();
        if let [one] = measuring.as_slice() {
            let read = as_read(said, one, registry);
            return Said {
                status: RunStatus::Done,
                reply: said.answer_from(&[read]),
                why: "answered from the one measuring candidate, as the registry holds it",
            };
        }
    }
    if about_home || names_home {
        return Said {
            status: RunStatus::Failed("nothing in the home was read".into()),
            reply: not_found(lang, end.hidden),
            why: "about the home, nothing read: the model's words stay in the trace",
        };
    }
    if end.text.trim().is_empty() {
        return Said {
            status: RunStatus::Failed("the model gave no answer".into()),
            reply: reply::fallback_summary(&[], |_| None, lang),
            why: "no answer to pass on",
        };
    }
    // Plainly in another of HomeClaw's languages than the person's (a small model often
    // answers in English whatever it is asked in): not an answer they can use.
    let foreign = reply::written_in(end.text).is_some_and(|written| written != lang);
    if foreign && !said.unknown_language("") {
        return Said {
            status: RunStatus::Failed("the model answered in another language".into()),
            reply: could_not_answer(lang).to_owned(),
            why: "the model's words are in another language than the person's: not passed on",
        };
    }
    Said {
        status: RunStatus::Done,
        reply: end.text.to_owned(),
        why: "nothing in the home was touched or named: the model's words passed on",
    }
}

/// The question that would make a request actionable, when a run changed nothing: the few
/// devices (two to [`MAX_NAMED`]) its words point at that the request could change, as the
/// model was shown them ("Which one do you mean: Living Room Fan or Ceiling Fan?") rather than
/// "I did not change anything" — the person's answer continues the conversation. Only when
/// the words mean one device; never for a device Home Assistant keeps from HomeClaw or a word
/// naming nothing here (those are said instead), nor between devices the question could not
/// tell apart.
fn which_of_the_pointed(end: &Ending<'_>, registry: &Registry) -> Option<Said> {
    let said = end.said;
    // A place or name this home lacks ("the sauna light") is said, not asked about; "the
    // lights" meant them all.
    if end.hidden.is_some()
        || said.only_asks()
        || !said.means_one(registry)
        || said.unmatched(registry).is_some()
    {
        return None;
    }
    let changeable = |e: &Entity| {
        registry.services().get(e.domain()).is_some_and(|services| {
            services.keys().any(|service| {
                registry.service_decision(e.domain(), service) == Some(ServiceDecision::Allowed)
                    && said.against(service).is_none()
            })
        })
    };
    let pointed: Vec<&Entity> = end
        .candidates
        .iter()
        .filter_map(|id| registry.get(id))
        .filter(|e| said.points_at(e, registry) && changeable(e))
        .collect();
    let mut told_apart: Vec<(&str, Option<&str>)> = pointed
        .iter()
        .map(|e| (e.name.as_str(), e.area_id.as_deref()))
        .collect();
    told_apart.sort_unstable();
    told_apart.dedup();
    if !(2..=MAX_NAMED).contains(&pointed.len()) || told_apart.len() < 2 {
        return None;
    }
    Some(Said {
        status: RunStatus::ClarificationRequired,
        reply: which_one(&pointed, registry, said.lang),
        why: "nothing was changed and the words fit a few devices: asked which",
    })
}

/// An entity as the registry holds it now, as if read for this question.
fn as_read<'e>(said: &Parsed, entity: &'e Entity, registry: &Registry) -> ReadState<'e> {
    ReadState {
        asked_about: said.points_at(entity, registry),
        domain: entity.domain(),
        name: &entity.name,
        state: &entity.state,
        unit: unit_of(entity),
    }
}

fn unit_of(entity: &Entity) -> Option<&str> {
    entity
        .attributes
        .get("unit_of_measurement")
        .and_then(serde_json::Value::as_str)
}

/// Whether the question's words point at the entity (its name, room or kind).
fn asked_about(said: &Parsed, entity_id: &str, registry: &Registry) -> bool {
    registry
        .get(entity_id)
        .is_some_and(|e| said.points_at(e, registry))
}

/// Dry runs count as what was asked: nothing was meant to change.
/// What a run that acted reached: done only when every action was confirmed.
pub(crate) fn status_of(actions: &[ActionReport]) -> RunStatus {
    let confirmed = actions.iter().filter(|a| confirmed(a)).count();
    if confirmed == actions.len() {
        RunStatus::Done
    } else if confirmed == 0 {
        RunStatus::Failed("no action could be confirmed".into())
    } else {
        RunStatus::Failed("only part of the request could be confirmed".into())
    }
}

fn confirmed(action: &ActionReport) -> bool {
    action.verified || action.dry_run
}

/// The visible entities a text names: by id, or by every word of a name (of two words or
/// more, or one word of four letters or more), the longest names first; an entity whose name
/// is part of another named one is that one ("Kitchen" in "Kitchen Lights").
pub(crate) fn named_in<'r>(text: &str, registry: &'r Registry) -> Vec<&'r Entity> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let lower = text.to_lowercase();
    let said: Vec<String> = tokens(text)
        .iter()
        .map(|w| plural_stem(w).to_owned())
        .collect();
    let has = |w: &str| said.iter().any(|s| s == plural_stem(w));
    // The search words of each name are already folded in the registry.
    let mut found: Vec<&Entity> = registry
        .entities()
        .filter(|e| {
            let mut words = e.haystack.name();
            let by_name = match e.haystack.name_len() {
                0 => false,
                1 => words
                    .next()
                    .is_some_and(|one| one.chars().count() >= 4 && has(one)),
                _ => words.all(has),
            };
            by_name || lower.contains(&e.entity_id)
        })
        .collect();
    found.sort_by_key(|e| std::cmp::Reverse(e.haystack.name_len()));
    let mut kept: Vec<&Entity> = Vec::new();
    for entity in found {
        let words = &entity.haystack;
        let inside = kept.iter().any(|longer| {
            let longer = &longer.haystack;
            words.name_len() < longer.name_len()
                && words.name().all(|w| longer.name().any(|l| l == w))
        });
        if !inside {
            kept.push(entity);
        }
    }
    // In the order the text names them.
    let at = |e: &Entity| {
        e.haystack
            .name()
            .next()
            .and_then(|first| said.iter().position(|w| w == plural_stem(first)))
            .unwrap_or(usize::MAX)
    };
    kept.sort_by_key(|e| at(e));
    kept
}

/// The units of this home's measurements that the text states a reading in ("450 ppm",
/// "21 °C", "100 watts"), lowercased; empty when it states none.
fn stated_units(text: &str, registry: &Registry) -> Vec<String> {
    let units: std::collections::BTreeSet<String> = registry
        .entities()
        .filter_map(|e| e.attributes.get("unit_of_measurement")?.as_str())
        .map(|u| u.to_lowercase())
        .collect();
    if units.is_empty() {
        return Vec::new();
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let mut found = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let digits = w.trim_start_matches(|c: char| !c.is_ascii_digit());
        let number_end = digits
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(digits.len());
        if number_end == 0 {
            continue;
        }
        // The unit glued to the number ("54%", "21°C") or the next word ("450 ppm").
        let glued = digits[number_end..].trim_end_matches(['.', ',', '!', ';', ')']);
        let next = words
            .get(i + 1)
            .map(|n| n.trim_end_matches(['.', ',', '!', ';', ')']))
            .unwrap_or_default();
        for said in [glued, next] {
            let unit = crate::lang::LEXICONS
                .iter()
                .flat_map(|l| l.unit_words.iter())
                .find(|(word, _)| *word == said)
                .map_or(said, |(_, unit)| *unit);
            if !unit.is_empty() && units.contains(unit) {
                found.push(unit.to_owned());
            } else if unit != said {
                // A spelled-out unit of a measure this home does not take in that unit.
                found.push(unit.to_owned());
            }
        }
    }
    found
}

/// What a question whose subject was not read is answered: why a device Home Assistant keeps
/// from HomeClaw cannot be read, else that nothing was found.
fn not_found(lang: Lang, hidden: Option<&(Hidden, String)>) -> String {
    match hidden {
        Some(hidden) => reply::nothing_done("", lang, Some(hidden)),
        None => could_not_answer(lang).to_owned(),
    }
}

fn could_not_answer(lang: Lang) -> &'static str {
    lang.says().could_not_answer()
}

#[cfg(test)]
#[path = "speak_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "speak_replayed_tests.rs"]
mod replayed;
