//! One request's targets: the entities its intent can act on, which of them its words choose
//! (named, unnamed, "everything in"), in the state that fits, and the question back when
//! several fit equally.

use serde_json::Value;

use super::ask::{MAX_NAMED, which_one};
use super::question::{self, same_place};
use super::todo::add_item;
use super::{Plan, PlannedCall};
use crate::agent::capability::{self, service_for, supports};
use crate::agent::understand::intent::is_cleaning;
use crate::agent::understand::intent::{Intent::*, is_every, lighting, watering};
use crate::agent::understand::mood::Reading;
use crate::agent::understand::target::{KindsSaid, covers, named, query_of, word_matches};
use crate::agent::understand::{Lang, intent, target};
use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::{Entity, Registry};
use crate::ha::search::{Query, domain_of_word};
use crate::lang::any_has;

/// An entity an intent can act on, with the service it means for it and that service's data.
type Able<'r> = (&'r Entity, &'static str, Value);

/// The plan for one request.
pub(super) fn plan_reading(
    reading: &Reading,
    registry: &Registry,
    device_id: Option<&str>,
) -> Plan {
    let trimmed = reading.text.trim();
    if trimmed.is_empty() {
        return Plan::Model;
    }
    // A question was answered (or left to the model) by `plan_from`, which looks at the whole
    // text before any part of it.
    if reading.is_question() {
        return Plan::Model;
    }
    if let Some(plan) = add_item(reading, registry) {
        return plan;
    }
    let words = &reading.words;
    let Some((intent, lang, _)) = reading.intent() else {
        return Plan::Model;
    };
    let volume = words.iter().any(|w| any_has(|l| l.volume, w));
    // "Turn up the volume": up or down, of a volume, is louder or quieter.
    let intent = match intent {
        Brighter if volume => Louder,
        Dimmer if volume => Quieter,
        other => other,
    };
    let rest: Vec<&str> = target::object_words(reading, |_| false)
        .filter(|w| !is_every(w))
        // "Make it 19 degrees": the "it" of the weather, not a device named before.
        .filter(|w| !(matches!(intent, Degrees(_)) && any_has(|l| l.stand_ins, w)))
        .collect();
    if matches!(intent, On | Off) && words.iter().any(|w| any_has(|l| l.everything, w)) {
        return everything_in(intent, lang, &rest, registry);
    }
    let query = query_of(&rest, registry);
    if intent == Open
        && words.iter().any(|w| any_has(|l| l.open_or_on, w))
        && names_only_places(&query, registry)
    {
        return Plan::Model;
    }
    let able = able(intent, volume, words, &query, registry);
    let chosen = if query.is_empty() {
        // Nothing named: only a lone device of a kind the request implies.
        let implied = volume
            || words.iter().any(|w| is_cleaning(w))
            || matches!(
                intent,
                Dock | Next | Previous | Mute | Pause | Resume | Louder | Quieter
            );
        if matches!(intent, Degrees(_)) {
            // "Make it 19 degrees": the home's one thermostat, or the one where the person
            // speaks; between several, the model has the conversation to tell which.
            unnamed_target(&able, device_id, registry, lang).map_err(|_| Plan::Model)
        } else if !implied {
            return Plan::Model;
        } else {
            unnamed_target(&able, device_id, registry, lang)
        }
    } else {
        named_target(&able, words, &query, device_id, registry, lang)
    };
    match chosen {
        Ok(chosen) if !chosen.is_empty() => Plan::Act {
            calls: calls_for(&chosen),
            lang,
        },
        Ok(_) => Plan::Model,
        Err(plan) => plan,
    }
}

/// Whether the words name rooms or floors of the home and nothing else: no kind, no device.
fn names_only_places(query: &Query, registry: &Registry) -> bool {
    let in_names = |q: &String, name: &String, aliases: &[String]| {
        std::iter::once(name)
            .chain(aliases)
            .any(|n| crate::text::tokens(n).iter().any(|w| word_matches(q, w)))
    };
    let of_a_place = |q: &String| {
        registry.areas().any(|a| in_names(q, &a.name, &a.aliases))
            || registry.floors().any(|f| in_names(q, &f.name, &f.aliases))
    };
    !query.words.is_empty()
        && query
            .words
            .iter()
            .all(|q| domain_of_word(q).is_none() && of_a_place(q))
}

/// Entities `intent` can act on (of the kind the words ask for), with the allowed service it
/// means for each.
pub(super) fn able<'r>(
    intent: intent::Intent,
    volume: bool,
    words: &[String],
    query: &Query,
    registry: &'r Registry,
) -> Vec<Able<'r>> {
    // "start vacuuming", "clean the living room": only a vacuum cleans.
    let cleaning = words.iter().any(|w| is_cleaning(w));
    let watering = watering(words);
    let lighting = lighting(words);
    // "The brightness", "the song": only a light, only a player.
    let about = target::about_kinds(words);
    let kinds = KindsSaid::commanded(words, query);
    registry
        .entities()
        .filter(|e| about.is_empty() || about.contains(&e.domain()))
        .filter(|e| !cleaning || e.domain() == "vacuum")
        .filter(|e| !lighting || e.domain() == "light")
        .filter(|e| !watering || e.domain() == "valve")
        .filter(|e| supports(intent, e))
        .filter(|e| kinds.fit(e))
        .filter_map(|e| {
            let (service, data) = allowed_service(intent, e, volume, registry)?;
            Some((e, service, data))
        })
        .collect()
}

/// The service (and its fields) `intent` means for the entity, when policy allows it.
pub fn allowed_service(
    intent: intent::Intent,
    entity: &Entity,
    volume: bool,
    registry: &Registry,
) -> Option<(&'static str, Value)> {
    let (service, data) = service_for(intent, entity.domain(), volume)?;
    matches!(
        registry.service_decision(entity.domain(), service),
        Some(ServiceDecision::Allowed)
    )
    .then_some((service, data))
}

/// The target of a request that names nothing: the lone device that can do it, or the one the
/// person spoke to; a few alike are asked about (`Err`), anything else is the model's.
fn unnamed_target<'a, 'r>(
    able: &'a [Able<'r>],
    device_id: Option<&str>,
    registry: &Registry,
    lang: Lang,
) -> Result<Vec<&'a Able<'r>>, Plan> {
    let all: Vec<_> = able.iter().collect();
    if all.len() == 1 {
        return Ok(all);
    }
    // "Set the volume to 0%" said to a speaker: that speaker; else what the players' states
    // select.
    let near = nearest(&all, device_id, registry);
    if near.is_empty()
        && let Some(chosen) = by_state(&all, lang, registry)
    {
        return chosen;
    }
    if near.len() == 1 {
        Ok(near)
    } else if near.is_empty() && alike(&all) {
        // Reading to no device of them, with a few alike: which one.
        Err(ask(&all, lang, registry))
    } else {
        Err(Plan::Model)
    }
}

/// The target of a request whose words name something: the one device they name, the devices
/// of an area or a kind, or (`Err`) a question between a few alike, else the model's.
fn named_target<'a, 'r>(
    able: &'a [Able<'r>],
    words: &[String],
    query: &Query,
    device_id: Option<&str>,
    registry: &Registry,
    lang: Lang,
) -> Result<Vec<&'a Able<'r>>, Plan> {
    let covering: Vec<_> = able.iter().filter(|(e, ..)| covers(e, query)).collect();
    let specific = query.words.iter().any(|q| domain_of_word(q).is_none());
    // "Helligkeit im Schlafzimmer", "the light in the bedroom": a room said as a place with a
    // kind names the room's devices of it, as Home Assistant reads it, not the one whose name
    // is that room and kind ("Schlafzimmerlampe", "Bedroom Light").
    // Only a room the device is in: a player named "Living Room" and in no room is named by
    // "dans le salon".
    let places = target::place_words(words);
    let by_place_and_kind = |e: &Entity| {
        let room = e.area_id.as_deref().and_then(|a| registry.area(a));
        let its_room = |q: &String| {
            places.contains(q)
                && room.is_some_and(|a| {
                    crate::text::tokens(&a.name)
                        .iter()
                        .any(|w| word_matches(q, w))
                })
        };
        let naming: Vec<&String> = query
            .words
            .iter()
            .filter(|q| e.haystack.name().any(|n| word_matches(q, n)))
            .collect();
        naming.iter().any(|q| its_room(q))
            && naming
                .iter()
                .all(|q| domain_of_word(q).is_some() || its_room(q))
    };
    let fully_named: Vec<_> = covering
        .iter()
        .copied()
        .filter(|(e, ..)| named(e, query) && !by_place_and_kind(e))
        .collect();
    let of_kind: Vec<_> = covering
        .iter()
        .copied()
        .filter(|(e, ..)| {
            query
                .words
                .iter()
                .any(|q| domain_of_word(q) == Some(e.domain()))
        })
        .collect();
    if !specific
        && !words.iter().any(|w| is_every(w))
        && nearest(&covering, device_id, registry).is_empty()
    {
        // "Pause the music", said to no player: the players playing, if any play.
        if let Some(chosen) = by_state(&covering, lang, registry) {
            return chosen;
        }
    }
    if !specific {
        // "all lights": every one; "the lights" with one light: that one; "the light" with
        // several: which one.
        let near = nearest(&covering, device_id, registry);
        let singular = singular_kind(words, query);
        return if words.iter().any(|w| is_every(w)) || covering.len() == 1 {
            Ok(covering)
        } else if !near.is_empty() && (singular.is_none() || near.len() == 1) {
            // "Turn off the light(s)" said to a satellite: the one(s) in its room.
            Ok(near)
        } else if fully_named.len() == 1 {
            // "Turn off the HVAC": a kind word that is also one device's whole name.
            Ok(fully_named)
        } else if let Some(kind) = singular {
            let near_of_kind: Vec<_> = of_kind
                .iter()
                .copied()
                .filter(|c| near.iter().any(|n| n.0.entity_id == c.0.entity_id))
                .collect();
            let asked = if near_of_kind.len() >= 2 {
                near_of_kind
            } else {
                of_kind
            };
            Err(ask_which(&asked, kind, lang, registry))
        } else {
            Err(Plan::Model)
        };
    }
    if fully_named.len() == 1 {
        Ok(fully_named)
    } else if covering.len() == 1
        || (covering.len() > 1 && area_command(&covering, words, query, registry))
    {
        Ok(covering)
    } else if !of_kind.is_empty() && area_command(&of_kind, words, query, registry) {
        // "the lights in the living room" are its lights, not a switch named "… Lights".
        Ok(of_kind)
    } else if alike(&covering) {
        Err(ask(&covering, lang, registry))
    } else {
        Err(Plan::Model)
    }
}

/// Of several players, those in the state a player command is for (pausing what plays,
/// resuming what is paused, skipping on or turning up what plays): what the state selects,
/// before asking.
/// Empty when the command is not a player's, or none (or each) of them is in that state.
fn in_fitting_state<'a, 'r>(candidates: &[&'a Able<'r>]) -> Vec<&'a Able<'r>> {
    let fitting: Vec<_> = candidates
        .iter()
        .copied()
        .filter(|(e, service, _)| {
            capability::by_state_of_call(e.domain(), service).is_some_and(|b| e.state == b.state)
        })
        .collect();
    if fitting.len() == candidates.len() {
        Vec::new()
    } else {
        fitting
    }
}

/// The players a player command acts on by their state ([`in_fitting_state`]): pausing and
/// resuming, every one in that state; skipping, the one playing, or which one of those.
fn by_state<'a, 'r>(
    candidates: &[&'a Able<'r>],
    lang: Lang,
    registry: &Registry,
) -> Option<Result<Vec<&'a Able<'r>>, Plan>> {
    let fitting = in_fitting_state(candidates);
    let one_only = fitting.iter().any(|(e, service, _)| {
        capability::by_state_of_call(e.domain(), service).is_some_and(|b| !b.every)
    });
    match fitting.len() {
        0 => None,
        1 => Some(Ok(fitting)),
        _ if one_only => Some(Err(ask(&fitting, lang, registry))),
        _ => Some(Ok(fitting)),
    }
}

/// A few devices of one domain: few enough to name in a question.
fn alike(candidates: &[&Able<'_>]) -> bool {
    (2..=MAX_NAMED).contains(&candidates.len())
        && candidates
            .iter()
            .all(|(e, ..)| e.domain() == candidates[0].0.domain())
}

/// One call per domain and service, for the chosen targets.
fn calls_for(chosen: &[&Able<'_>]) -> Vec<PlannedCall> {
    let mut calls: Vec<PlannedCall> = Vec::new();
    for (entity, service, data) in chosen {
        add_call(&mut calls, entity, service, data.clone());
    }
    calls
}

/// Adds `service` on `entity` to the calls: to the call of the same domain, service and data
/// if there is one (one call per kind of change, as a person's one request is).
pub fn add_call(calls: &mut Vec<PlannedCall>, entity: &Entity, service: &str, data: Value) {
    match calls
        .iter_mut()
        .find(|c| c.domain == entity.domain() && c.service == service && c.data == data)
    {
        Some(call) => call.entity_ids.push(entity.entity_id.clone()),
        None => calls.push(PlannedCall {
            domain: entity.domain().to_owned(),
            service: service.to_owned(),
            entity_ids: vec![entity.entity_id.clone()],
            data,
        }),
    }
}

/// The kinds of device "everything" turns on or off: what a person switches by hand. Locks,
/// doors and windows are not "off", and a siren is never turned on in passing.
const EVERYTHING_KINDS: [&str; 6] = [
    "light",
    "switch",
    "fan",
    "climate",
    "media_player",
    "humidifier",
];

/// "Turn off everything in the bedroom": every device there of [`EVERYTHING_KINDS`], when the
/// other words name exactly one area and nothing else; otherwise the model decides.
pub(super) fn everything_in(
    intent: intent::Intent,
    lang: Lang,
    rest: &[&str],
    registry: &Registry,
) -> Plan {
    // "…that is on" ("co jest włączone", "was an ist"): only what is in that state now;
    // "…that is lit" ("co świeci"): only the lights that are on. In the command's own
    // language: French "lit" is a bed.
    let is_lit = |w: &str| lang.lexicon().lit.contains(&w);
    let lit = rest.iter().any(|w| is_lit(w));
    let in_state = rest
        .iter()
        .find_map(|w| intent::state_named(w))
        .or(lit.then_some("on"));
    let words: Vec<String> = crate::text::tokens(&rest.join(" "))
        .into_iter()
        .filter(|w| !any_has(|l| l.everything, w))
        .filter(|w| {
            !any_has(|l| l.relatives, w)
                && !any_has(|l| l.be, w)
                && intent::state_named(w).is_none()
                && !is_lit(w)
        })
        .collect();
    let switched_in = |area: &str| {
        registry
            .entities()
            .any(|e| e.area_id.as_deref() == Some(area) && EVERYTHING_KINDS.contains(&e.domain()))
    };
    // Of the areas the words name, those with something to switch ("the bedroom" in a home
    // whose other bedrooms have nothing).
    let areas: Vec<_> = registry
        .areas()
        .filter(|a| switched_in(&a.area_id))
        .filter(|a| {
            let name = crate::text::tokens(&a.name);
            !words.is_empty()
                && words
                    .iter()
                    .all(|w| name.iter().any(|n| word_matches(w, n)))
        })
        .collect();
    let [area] = areas.as_slice() else {
        return Plan::Model;
    };
    let mut calls: Vec<PlannedCall> = Vec::new();
    for entity in registry.entities().filter(|e| {
        e.area_id.as_deref() == Some(area.area_id.as_str())
            && EVERYTHING_KINDS.contains(&e.domain())
            && in_state.is_none_or(|state| question::is_in(e, state))
            && (!lit || e.domain() == "light")
    }) {
        if let Some((service, data)) = allowed_service(intent, entity, false, registry) {
            add_call(&mut calls, entity, service, data);
        }
    }
    if calls.is_empty() {
        return Plan::Model;
    }
    Plan::Act { calls, lang }
}

/// Of these candidates, the ones nearest the device the person spoke to: its own entities,
/// else those in its room. Empty without a device, or when none is near it.
fn nearest<'c, 'e>(
    candidates: &[&'c (&'e Entity, &'static str, Value)],
    device_id: Option<&str>,
    registry: &Registry,
) -> Vec<&'c (&'e Entity, &'static str, Value)> {
    let Some(device_id) = device_id else {
        return Vec::new();
    };
    let own: Vec<_> = candidates
        .iter()
        .copied()
        .filter(|(e, ..)| e.device_id.as_deref() == Some(device_id))
        .collect();
    if !own.is_empty() {
        return own;
    }
    let Some(area) = registry.device_area(device_id) else {
        return Vec::new();
    };
    candidates
        .iter()
        .copied()
        .filter(|(e, ..)| e.area_id.as_deref() == Some(area))
        .collect()
}

/// All the covering entities share one area or floor the query names, and every other query
/// word only names their kind: "the kitchen lights" means every light in the kitchen, "the
/// lights upstairs" every light on the floor called Upstairs.
fn area_command(
    covering: &[&(&Entity, &str, Value)],
    words: &[String],
    query: &Query,
    registry: &Registry,
) -> bool {
    // "Turn on the living room" names no kind: not everything in it. "Helligkeit im
    // Schlafzimmer" names lights by what it sets.
    let mut kinds: Vec<&str> = query
        .words
        .iter()
        .filter_map(|q| domain_of_word(q))
        .collect();
    kinds.extend(target::about_kinds(words));
    let entities: Vec<&Entity> = covering.iter().map(|(e, ..)| *e).collect();
    !kinds.is_empty()
        && entities.iter().all(|e| kinds.contains(&e.domain()))
        && same_place(&entities, query, registry)
}

/// The one kind word of a kind-only command when it names a single device.
fn singular_kind<'a>(words: &[String], query: &'a Query) -> Option<&'a str> {
    let [kind] = query.words.as_slice() else {
        return None;
    };
    // "The light", "das Fenster", "wentylator": with several of that kind, the person meant one.
    if any_has(|l| l.singular, kind) {
        return Some(kind);
    }
    // Words alike in both numbers are singular only after a singular article.
    let at = words.iter().position(|w| w == kind)?;
    let article = at.checked_sub(1).map(|i| words[i].as_str());
    (any_has(|l| l.same_in_plural, kind)
        && article.is_some_and(|a| any_has(|l| l.singular_articles, a)))
    .then_some(kind.as_str())
}

/// "Which one": among the devices of the kind, those whose name says the word ("Kitchen
/// Window" for "das Fenster", not the "Garage Door" cover), else all of the kind.
fn ask_which(of_kind: &[&Able<'_>], kind: &str, lang: Lang, registry: &Registry) -> Plan {
    let saying: Vec<&Able<'_>> = of_kind
        .iter()
        .copied()
        .filter(|(e, ..)| e.haystack.name().any(|w| word_matches(kind, w)))
        .collect();
    let candidates = if saying.len() >= 2 { &saying } else { of_kind };
    if candidates.len() < 2 {
        return Plan::Model;
    }
    ask(candidates, lang, registry)
}

/// The question back between `candidates`, in the person's language.
fn ask(candidates: &[&Able<'_>], lang: Lang, registry: &Registry) -> Plan {
    let entities: Vec<&Entity> = candidates.iter().map(|(e, ..)| *e).collect();
    Plan::Ask {
        question: which_one(&entities, registry, lang),
        options: candidates
            .iter()
            .flat_map(|able| calls_for(&[able]))
            .collect(),
        lang,
    }
}
