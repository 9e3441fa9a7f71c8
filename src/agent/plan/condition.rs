//! A request on a condition HomeClaw can check from the live registry: "If the temperature in
//! the guest room is above 23, set the target temperature to 22", "Close the garage door if
//! it's open", "Wenn das Garagentor offen ist, schließe es". The condition is read from the
//! states Home Assistant reported, never guessed: when it holds, the request runs as it would
//! without it; when it does not, nothing changes and the person hears the state that decided
//! it; when HomeClaw cannot read it (nothing the words point at, a value that is no number,
//! devices that disagree), the caller refuses as for any condition.

use super::question::{is_in, is_question_filler, state_line};
use super::{Plan, plan_from};
use crate::agent::understand::intent::{is_filler, state_named, words_of};
use crate::agent::understand::target::{covers, query_of};
use crate::ha::registry::{Entity, Registry};
use crate::lang::any_has;

/// What the condition decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// It holds: the request's own plan.
    Holds(Plan),
    /// It does not: what the person hears (the state that decided it; nothing changed).
    Unmet(String),
}

/// What the condition checks: a number against the one said, or a state.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Test {
    Number(Compare),
    State(&'static str),
}

/// How a number in the condition compares.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Compare {
    Above(f64),
    Below(f64),
}

/// The checked condition of `text`, or `None` when the text holds no condition HomeClaw can
/// read (the caller then refuses, as for any condition).
pub fn checked(text: &str, registry: &Registry, device_id: Option<&str>) -> Option<Checked> {
    let (condition, action) = split(text)?;
    let (cond_words, _) = words_of(&condition);
    // A number compared says what is checked ("on the terrace" is no state then); neither a
    // number nor a state: not a condition HomeClaw can read.
    let test = match comparison(&cond_words) {
        Some(compare) => Test::Number(compare),
        None => Test::State(cond_words.iter().find_map(|w| state_named(w))?),
    };
    let subject: Vec<&str> = cond_words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !(is_filler(w)
                || is_question_filler(w)
                || state_named(w).is_some()
                || any_has(|l| l.stand_ins, w)
                || any_has(|l| l.above, w)
                || any_has(|l| l.below, w)
                || any_has(|l| l.degree_units, w)
                || any_has(|l| l.percent_units, w)
                || w.parse::<f64>().is_ok())
        })
        .collect();
    let subject_entities: Vec<&Entity> = if subject.is_empty() {
        Vec::new()
    } else {
        let query = query_of(&subject, registry);
        registry.entities().filter(|e| covers(e, &query)).collect()
    };
    // "…, close it": the stand-in is what the condition named.
    let action = if subject.is_empty() {
        action
    } else {
        with_stand_ins_as(&action, &subject.join(" "))
    };
    let (plan, targets) = action_plan(&action, &subject_entities, registry, device_id)?;
    let lang = match &plan {
        Plan::Act { lang, .. } => *lang,
        _ => return None,
    };
    // The condition is about what it named, else about what the request acts on.
    let about: Vec<&Entity> = if subject.is_empty() {
        targets.iter().filter_map(|id| registry.get(id)).collect()
    } else {
        subject_entities
    };
    let holds = match test {
        Test::Number(compare) => numbers_hold(&about, compare)?,
        Test::State(state) => states_hold(&about, state)?,
    };
    if holds {
        return Some(Checked::Holds(plan));
    }
    let seen: Vec<String> = about
        .iter()
        .map(|e| match (test, value_of(e)) {
            // A thermostat's degrees as its own answers say them ("21°").
            (Test::Number(_), Some((value, Some("°")))) => {
                state_line(&e.name, &format!("{value}°"), None, lang)
            }
            (Test::Number(_), Some((value, unit))) => state_line(&e.name, &value, unit, lang),
            _ => state_line(&e.name, &e.state, None, lang),
        })
        .collect();
    Some(Checked::Unmet(
        lang.says().condition_unmet(&seen.join("; ")),
    ))
}

/// The condition's words and the request's, from "if C then A", "if C, A" or "A if C".
fn split(text: &str) -> Option<(String, String)> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let is_if = |w: &str| {
        crate::text::fold(w)
            .split(' ')
            .any(|f| any_has(|l| l.if_words, f))
    };
    let at = raw.iter().position(|w| is_if(w))?;
    if raw.iter().skip(at + 1).any(|w| is_if(w)) {
        return None;
    }
    if at > 0 {
        // "Close the garage door if it's open".
        let action = raw[..at].join(" ");
        let condition = raw[at + 1..].join(" ");
        return Some((condition, action.trim_end_matches(',').to_owned()));
    }
    // "If C, A" or "If C then A".
    let rest = &raw[1..];
    let then = rest
        .iter()
        .position(|w| any_has(|l| l.then_words, &crate::text::fold(w)));
    let comma = rest.iter().position(|w| w.ends_with(','));
    let (condition, action) = match (comma, then) {
        (Some(c), t) if t.is_none_or(|t| c < t) => {
            let after = t.filter(|t| *t == c + 1).map_or(c + 1, |t| t + 1);
            (rest[..=c].join(" "), rest[after..].join(" "))
        }
        (_, Some(t)) => (rest[..t].join(" "), rest[t + 1..].join(" ")),
        _ => return None,
    };
    let condition = condition.trim_end_matches(',').to_owned();
    (!condition.is_empty() && !action.trim().is_empty()).then_some((condition, action))
}

/// "Above 23", "über 23 Grad", "poniżej 18": the number and which side of it.
/// The number is the first after the comparing word ("bedroom 2" is a name).
fn comparison(words: &[String]) -> Option<Compare> {
    let at = words
        .iter()
        .position(|w| any_has(|l| l.above, w) || any_has(|l| l.below, w))?;
    let number = words[at..].iter().find_map(|w| w.parse::<f64>().ok())?;
    if any_has(|l| l.above, &words[at]) {
        Some(Compare::Above(number))
    } else {
        Some(Compare::Below(number))
    }
}

/// The request's words with each stand-in ("it", "es", "go", "le") replaced by what the
/// condition named.
fn with_stand_ins_as(action: &str, subject: &str) -> String {
    action
        .split_whitespace()
        .map(|w| {
            let folded = crate::text::fold(w.trim_matches(|c: char| !c.is_alphanumeric()));
            if any_has(|l| l.stand_ins, &folded) {
                subject
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The request's plan and the entities it acts on. A request that names no place acts where
/// the condition's devices are ("set the target temperature to 22" after "the temperature in
/// the guest room"): that area's name is added when the words alone are not enough.
fn action_plan(
    action: &str,
    subject: &[&Entity],
    registry: &Registry,
    device_id: Option<&str>,
) -> Option<(Plan, Vec<String>)> {
    let acted = |plan: Plan| match &plan {
        Plan::Act { calls, .. } => {
            let ids = calls.iter().flat_map(|c| c.entity_ids.clone()).collect();
            Some((plan, ids))
        }
        _ => None,
    };
    if let Some(planned) = acted(plan_from(action, registry, device_id)) {
        return Some(planned);
    }
    let mut areas = subject.iter().map(|e| e.area_id.as_deref());
    let area_id = areas.next()??;
    if !areas.all(|a| a == Some(area_id)) {
        return None;
    }
    let area = registry.area(area_id)?;
    acted(plan_from(
        &format!("{action} in {}", area.name),
        registry,
        device_id,
    ))
}

/// A device's number: a sensor's state, a thermostat's measured temperature; with its unit.
fn value_of(entity: &Entity) -> Option<(String, Option<&str>)> {
    let unit = entity
        .attributes
        .get("unit_of_measurement")
        .and_then(serde_json::Value::as_str);
    if entity.domain() == "climate" {
        let current = entity.attributes.get("current_temperature")?;
        let value = current.as_f64().map(|v| v.to_string())?;
        return Some((value, Some("°")));
    }
    entity.state.parse::<f64>().ok()?;
    Some((entity.state.clone(), unit))
}

/// Whether every number read satisfies the comparison; `None` when there is none to read, or
/// the devices disagree (HomeClaw cannot tell which the person meant).
fn numbers_hold(about: &[&Entity], compare: Compare) -> Option<bool> {
    let values: Vec<f64> = about
        .iter()
        .filter_map(|e| value_of(e))
        .filter_map(|(v, _)| v.parse().ok())
        .collect();
    if values.is_empty() {
        return None;
    }
    let each: Vec<bool> = values
        .iter()
        .map(|v| match compare {
            Compare::Above(n) => *v > n,
            Compare::Below(n) => *v < n,
        })
        .collect();
    agreed(&each)
}

/// Whether every device is in the state; `None` when there is none or they disagree.
fn states_hold(about: &[&Entity], state: &str) -> Option<bool> {
    let each: Vec<bool> = about.iter().map(|e| is_in(e, state)).collect();
    agreed(&each)
}

fn agreed(each: &[bool]) -> Option<bool> {
    let first = *each.first()?;
    each.iter().all(|b| *b == first).then_some(first)
}

#[cfg(test)]
#[path = "condition_tests.rs"]
mod tests;
