//! What the person is told. Every text here is built from what HomeClaw knows happened — the
//! verified actions, the recorded approval, the guard that stopped a run — never from the
//! model's word alone, so no reply can say an action happened that did not.

use crate::agent::act::approval::{ApprovalError, ExecuteError, PendingAction};
use crate::agent::act::verify::ActionReport;
use crate::agent::capability;
use crate::agent::understand::{Lang, Unmatched};
use crate::ha::registry::Hidden;
use crate::lang::Intent;
use crate::lang::{Held, NotRun, Ways};

/// What to say when the model gave no final text: what ran, each said from what Home
/// Assistant showed (`name` gives an entity's friendly name).
pub fn fallback_summary(
    actions: &[ActionReport],
    name: impl Fn(&str) -> Option<String>,
    lang: Lang,
) -> String {
    let says = lang.says();
    if actions.is_empty() {
        return says.unfinished_nothing_changed().into();
    }
    format!(
        "{} {}",
        says.unfinished(),
        from_actions(actions, name, lang)
    )
}

/// An action request that ended with nothing done: said plainly, with the model's words only
/// when they claim nothing (a question or an explanation may help; "it is already closed",
/// unread, may not be true). A device HomeClaw may not see is named with what to change: that
/// is the one thing the person can fix, and the model cannot be relied on to say it.
pub fn nothing_done(model_text: &str, lang: Lang, hidden: Option<&(Hidden, String)>) -> String {
    let lead = lang.says().nothing_changed();
    if let Some((reason, name)) = hidden {
        return format!("{lead} {}", hidden_words(*reason, name, lang));
    }
    let text = model_text.trim();
    let foreign = written_in(text).is_some_and(|written| written != lang);
    if text.is_empty() || foreign || super::honesty::claims_action_or_observation(text) {
        lead.to_owned()
    } else {
        format!("{lead} {text}")
    }
}

/// The language a model's sentence is plainly written in, by its small words; `None` when
/// it is too short or mixed to tell. A small model often explains itself in English whatever
/// the person spoke, and half a reply in another language is no answer.
pub(crate) fn written_in(text: &str) -> Option<Lang> {
    let folded = crate::text::fold(text);
    let words: Vec<&str> = folded.split_whitespace().collect();
    let mut counts: Vec<(usize, Lang)> = crate::lang::LEXICONS
        .iter()
        .map(|l| {
            (
                words.iter().filter(|w| l.own_words.contains(w)).count(),
                l.lang,
            )
        })
        .collect();
    counts.sort_by_key(|count| std::cmp::Reverse(count.0));
    let ((best, lang), (second, _)) = (counts[0], counts[1]);
    (best >= 2 && best > second * 2).then_some(lang)
}

/// An action whose words point at nothing HomeClaw may use: what was not found, in the
/// person's own words (quoted, so no grammatical case has to agree), or why the device they
/// named is kept from HomeClaw.
pub fn nothing_found(unmatched: &Unmatched, lang: Lang) -> String {
    match unmatched {
        Unmatched::Hidden { reason, name } => {
            nothing_done("", lang, Some(&(*reason, name.clone())))
        }
        Unmatched::Nothing { words } => lang.says().nothing_matches(words),
        Unmatched::NothingAsked { words } => lang.says().nothing_to_answer(words),
    }
}

fn hidden_words(reason: Hidden, name: &str, lang: Lang) -> String {
    let says = lang.says();
    match reason {
        Hidden::NotExposed => says.not_exposed(name),
        Hidden::Filtered => says.filtered_out(name),
    }
}

/// The question that ends a run holding a high-risk action, in the language of the person
/// who asked: what would happen to which device, and how to approve it. No id or service
/// name: those are the API's fields and the trace's.
/// `ways`: how it can be approved from here (a "yes" in this conversation, a phone).
pub fn approval_question(pending: &PendingAction, ways: Ways) -> String {
    let theirs = pending.tag.as_deref().and_then(|tag| {
        crate::lang::ha_replies::ask_approval(
            tag,
            &pending.call.domain,
            &pending.call.service,
            &pending.names.join(", "),
        )
    });
    theirs.unwrap_or_else(|| in_words(pending, |held| pending.lang.says().ask_approval(held, ways)))
}

/// The text of a notification about a held action, and its title: on a phone with its
/// buttons (`buttons`), or in Home Assistant's own notifications, which say where to answer.
pub fn approval_notice(pending: &PendingAction, buttons: bool) -> (String, &'static str) {
    let says = pending.lang.says();
    (
        in_words(pending, |held| says.approval_notice(held, buttons)),
        says.approval_title(),
    )
}

/// A held action, as the lexicon's sentences take it.
fn in_words<T>(pending: &PendingAction, say: impl FnOnce(&Held) -> T) -> T {
    let names = pending.names.join(", ");
    say(&Held {
        key: service_key(&pending.call.domain, &pending.call.service),
        names: &names,
        many: pending.names.len() > 1,
    })
}

/// The lexicon's key for what a service does (`to_do`'s keys); one it has no words for is
/// said as changing the device.
fn service_key<'a>(domain: &str, service: &'a str) -> &'a str {
    match (domain, service) {
        ("script" | "scene" | "automation", "turn_on" | "trigger") | ("button", "press") => "run",
        ("script", _) => "run",
        _ => capability::key_of(domain, service).unwrap_or(service),
    }
}

/// What the person hears, in Home Assistant's own sentences, after a run in a language
/// HomeClaw has no lexicon for: what was done (each action's intent, by its service), or
/// Home Assistant's "something went wrong" when one was not seen to take effect, or its "I did
/// not understand" when nothing was done. `None` where Home Assistant has no sentence (the
/// caller keeps its own).
pub fn in_their_words(
    tag: &str,
    actions: &[ActionReport],
    name: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    use crate::lang::ha_replies;
    if actions.is_empty() {
        return ha_replies::not_understood(tag);
    }
    if actions.iter().any(|a| !a.verified) {
        return ha_replies::failed(tag);
    }
    let sentences: Option<Vec<String>> = actions
        .iter()
        .map(|a| {
            let data = &a.call.data;
            let (intent, key) = intent_of(&a.call.domain, &a.call.service, data)?;
            let names: Vec<String> = a.call.entity_ids.iter().filter_map(|id| name(id)).collect();
            let names = names.join(", ");
            let value = |field: &str| match &data[field] {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            };
            let (item, temperature, brightness, color) = (
                value("item"),
                value("temperature"),
                value("brightness_pct"),
                value("color_name"),
            );
            let slots = [
                ("name", names.as_str()),
                ("item", item.as_str()),
                ("temperature", temperature.as_str()),
                ("brightness", brightness.as_str()),
                ("color", color.as_str()),
            ];
            ha_replies::done(tag, intent, &[key, a.call.domain.as_str()], &slots)
        })
        .collect();
    sentences.map(|s| s.join(". "))
}

/// Home Assistant's intent (and which of its sentences) a service call carries out.
fn intent_of(
    domain: &str,
    service: &str,
    data: &serde_json::Value,
) -> Option<(&'static str, &'static str)> {
    capability::of_call(domain, service, data)?.ha_reply
}

/// What the person is told when they answer a held action in conversation and it does not
/// run (yet): declined, a PIN missing or wrong, or a session where approving needs a PIN.
pub fn answered(pending: &PendingAction, answer: Answered, lang: Lang) -> String {
    let says = lang.says();
    in_words(pending, |held| match answer {
        Answered::Declined => says.declined(held),
        Answered::PinMissing => says.pin_missing(held),
        Answered::WrongPin { left: 0 } => says.pin_cancelled(held),
        Answered::WrongPin { left } => says.pin_wrong(held, left),
        Answered::PinRequiredHere { phone } => says.pin_required_here(held, phone),
    })
}

/// How an answer in conversation left a held action that did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    Declined,
    PinMissing,
    WrongPin {
        left: u32,
    },
    /// Approving by voice needs a PIN in this session; `phone`: a phone has the buttons too.
    PinRequiredHere {
        phone: bool,
    },
}

/// After an approved action ran, said like any other action: done only when Home Assistant
/// shows the expected state.
pub fn approved(report: &ActionReport, pending: &PendingAction, lang: Lang) -> String {
    let name = |id: &str| {
        pending
            .targets
            .iter()
            .position(|t| t == id)
            .and_then(|i| pending.names.get(i).cloned())
    };
    let reports = std::slice::from_ref(report);
    pending
        .tag
        .as_deref()
        .and_then(|tag| in_their_words(tag, reports, name))
        .unwrap_or_else(|| from_actions(reports, name, lang))
}

/// Why an approved action did not run, in plain words.
pub fn not_run(error: &ExecuteError, lang: Lang) -> &'static str {
    let why = match error {
        ExecuteError::Approval(ApprovalError::Expired(_)) => NotRun::Expired,
        ExecuteError::Approval(ApprovalError::AlreadyUsed(_)) => NotRun::AlreadyAnswered,
        ExecuteError::Approval(ApprovalError::Denied(_)) => NotRun::Denied,
        ExecuteError::Approval(ApprovalError::Unknown(_) | ApprovalError::NoRandomness(_)) => {
            NotRun::Unknown
        }
        ExecuteError::Call(_) => NotRun::Failed,
    };
    lang.says().not_run(why)
}

/// A guard stop becomes a question for the user instead of a dead end; the guard's own
/// reason (English, with ids) stays in the trace.
pub fn stuck(lang: Lang) -> String {
    lang.says().stuck().to_owned()
}

/// A held call for logs and the model's notes (ids and service names: never a reply).
pub fn describe_call(pending: &PendingAction) -> String {
    format!(
        "{}.{} on {}",
        pending.call.domain,
        pending.call.service,
        pending.targets.join(", ")
    )
}

/// An entity without a name, as a person would read it: "light.hall_lamp" → "Hall lamp" (the
/// id itself belongs to the trace).
fn readable(entity_id: &str) -> String {
    crate::lang::capitalised(&crate::ha::registry::id_words(entity_id))
}

/// The value a call sets, as the person would say it ("50%", "21°", "heat mode"), if it sets
/// one.
fn setting_of(domain: &str, service: &str, data: &serde_json::Value, lang: Lang) -> Option<String> {
    let (row, value) = capability::setting(domain, service, data)?;
    let says = lang.says();
    match row.asks.first()? {
        Intent::Percent(_) if row.field == Some("volume_level") => {
            value.as_f64().map(|v| format!("{}%", (v * 100.0).round()))
        }
        Intent::Percent(_) => value.as_u64().map(|n| format!("{n}%")),
        Intent::Degrees(_) => value.as_f64().map(|t| format!("{t}°")),
        Intent::White(_) => {
            let white = if value.as_u64()? <= 4000 {
                "warm_white"
            } else {
                "cool_white"
            };
            Some(says.colour(white).unwrap_or(white).to_owned())
        }
        // A colour the language has no word for is not said in English: the light is said
        // to be on instead (true, and in the person's words).
        Intent::Color(_) => {
            let css = value.as_str()?;
            match says.colour(css) {
                Some(word) => Some(word.to_owned()),
                None if lang == Lang::En => Some(css.to_owned()),
                None => None,
            }
        }
        Intent::Mode(_) => {
            let mode = value.as_str()?;
            Some(
                says.mode(mode)
                    .map_or_else(|| mode.replace('_', " "), str::to_owned),
            )
        }
        _ => None,
    }
}

/// The reply for the actions a run made (the own reading's, the recogniser's or the model's),
/// each said from what Home Assistant showed afterwards, in the person's language. `name` gives
/// an entity's friendly name.
pub fn from_actions(
    actions: &[ActionReport],
    name: impl Fn(&str) -> Option<String>,
    lang: Lang,
) -> String {
    let says = lang.says();
    let mut out = Vec::new();
    let nothing = serde_json::json!({});
    for action in actions {
        let data = action.call.data().unwrap_or(&nothing);
        let names: Vec<String> = action
            .call
            .entity_ids
            .iter()
            .map(|id| name(id).unwrap_or_else(|| readable(id)))
            .collect();
        let list = names.join(", ");
        if action.dry_run {
            let key = service_key(&action.call.domain, &action.call.service);
            out.push(says.dry_run(key, &list));
            continue;
        }
        if !action.verified {
            let tag = lang.lexicon().tag;
            let seen: Vec<String> = action
                .observed_state
                .iter()
                .map(|(id, state)| {
                    let domain = id.split('.').next().unwrap_or_default();
                    // Mid-sentence: Home Assistant's "Off" is "off" here.
                    let state = crate::lang::ha_replies::state_word(tag, domain, None, state)
                        .map_or_else(|| state.replace('_', " "), str::to_lowercase);
                    format!("{}: {state}", name(id).unwrap_or_else(|| readable(id)))
                })
                .collect();
            let seen = seen.join(", ");
            out.push(says.not_confirmed(&list, &seen));
            continue;
        }
        if let Some(item) = data.get("item").and_then(serde_json::Value::as_str) {
            out.push(says.added(item, &list));
            continue;
        }
        // A step of brightness is said as one, not as turning on.
        let step = data
            .get("brightness_step_pct")
            .and_then(serde_json::Value::as_i64);
        let key = match step {
            Some(s) if s > 0 => "brighten",
            Some(_) => "dim",
            None => capability::key_of(&action.call.domain, &action.call.service)
                .unwrap_or(&action.call.service),
        };
        out.push(
            match setting_of(&action.call.domain, &action.call.service, data, lang) {
                Some(value) => says.set_value(&list, &value),
                None => says.did(key, &list),
            },
        );
    }
    out.join(" ")
}

#[cfg(test)]
#[path = "reply_tests.rs"]
mod tests;
