//! Plain questions about the state of named things, answered from the live registry.

use super::Plan;
use crate::agent::understand::intent::{
    Lang, is_every, is_filler, is_question_word, is_state_word, state_named, words_of,
};
use crate::agent::understand::mood::Reading;
use crate::agent::understand::target::{KindsSaid, covers, named, query_of, word_matches};
use crate::ha::registry::{Entity, Registry};
use crate::ha::search::{Query, domain_of_word};
use crate::lang::{any_has, leading_phrase};
use crate::text::tokens;

/// "Kitchen Lights is off", "Outside is 21 °C", in the person's language (Polish without a
/// verb, so no case or gender has to agree with a name we do not decline).
pub fn state_line(name: &str, state: &str, unit: Option<&str>, lang: Lang) -> String {
    let state = state_word(state, lang);
    let value = match unit {
        // "55%", as people write a percentage; other units after a space ("21 °C").
        Some("%") => format!("{state}%"),
        Some(unit) => format!("{state} {unit}"),
        None => state.to_owned(),
    };
    (lang.lexicon().state_line)(name, &value)
}

/// A state Home Assistant writes in English ("off", "locked"), as the person's language says
/// it; anything else (a number, a state we have no word for) as it is.
fn state_word(state: &str, lang: Lang) -> &str {
    lang.lexicon()
        .state_words
        .iter()
        .find(|(s, _)| *s == state)
        .map_or(state, |(_, said)| said)
}

/// Question words and the verbs around them, which name nothing in the home.
pub(super) fn is_question_filler(word: &str) -> bool {
    any_has(|l| l.question_filler, word)
}

/// "Low", of a battery: a level at or below [`LOW_BATTERY`] percent.
const LOW_BATTERY: f64 = 20.0;

/// Domains whose devices are "on" or "off" in a person's words, whatever state word Home
/// Assistant writes for them (a valve that is open is on, a thermostat heating is on).
const SWITCHED: [&str; 12] = [
    "light",
    "switch",
    "fan",
    "cover",
    "valve",
    "media_player",
    "vacuum",
    "climate",
    "input_boolean",
    "humidifier",
    "siren",
    "binary_sensor",
];

/// Whether the entity is in the state the question asks about, as a person means it.
pub(super) fn is_in(entity: &Entity, asked: &str) -> bool {
    is_in_state(entity.domain(), &entity.state, asked)
}

fn is_in_state(domain: &str, state: &str, asked: &str) -> bool {
    let on = match domain {
        "cover" | "valve" => matches!(state, "open" | "opening"),
        "media_player" => !matches!(state, "off" | "standby" | "unavailable" | "unknown"),
        "vacuum" => matches!(state, "cleaning" | "returning"),
        "climate" => !matches!(state, "off" | "unavailable" | "unknown"),
        _ => state == "on",
    };
    let known = !matches!(state, "unavailable" | "unknown");
    match asked {
        "on" => on,
        "off" => known && !on,
        "open" => matches!(state, "open" | "opening"),
        other => state == other,
    }
}

/// What a question over a kind of device asks: how many are in a state, which, or whether any.
#[derive(Clone, Copy, PartialEq)]
enum Over {
    HowMany,
    Which,
    Any,
}

/// "How many lights are on?", "which windows are open?", "are any lights on in the kitchen?".
fn over(words: &[String]) -> Option<Over> {
    let how_many = (0..words.len()).any(|i| leading_phrase(|l| l.how_many, &words[i..]).is_some());
    if how_many {
        return Some(Over::HowMany);
    }
    // Which or any, of a state said: "which lights are in the kitchen" asks no state.
    if !words.iter().any(|w| state_named(w).is_some()) {
        return None;
    }
    if words.first().is_some_and(|w| any_has(|l| l.which, w)) {
        Some(Over::Which)
    } else if words.iter().any(|w| any_has(|l| l.any, w)) {
        Some(Over::Any)
    } else {
        None
    }
}

/// Questions over a kind: every visible entity of the kind named, in the state asked (on
/// unless said), in the area named if one is; counted with their names, and for "any" a yes or
/// no in front.
fn count(words: &[String], lang: Lang, registry: &Registry) -> Option<Plan> {
    let over = over(words)?;
    let asked = words.iter().find_map(|w| state_named(w)).unwrap_or("on");
    let Some(domain) = words.iter().find_map(|w| domain_of_word(w)) else {
        return anything_open(over, asked, lang, registry);
    };
    let area = registry.areas().find(|a| {
        let name = tokens(&a.name);
        !name.is_empty()
            && name
                .iter()
                .all(|n| words.iter().any(|w| word_matches(w, n)))
    });
    // "How many windows" counts the windows, not every cover.
    let query = query_of(
        &words.iter().map(String::as_str).collect::<Vec<_>>(),
        registry,
    );
    let kinds = KindsSaid::asked(words, &query);
    let of_kind: Vec<&Entity> = registry
        .entities()
        .filter(|e| e.domain() == domain)
        .filter(|e| area.is_none_or(|a| e.area_id.as_deref() == Some(a.area_id.as_str())))
        .filter(|e| kinds.fit(e))
        .collect();
    if of_kind.is_empty() {
        return None;
    }
    let total = of_kind.len();
    let names: Vec<&str> = of_kind
        .iter()
        .filter(|e| is_in(e, asked))
        .map(|e| e.name.as_str())
        .collect();
    let n = names.len();
    let state = state_word(asked, lang);
    let listed = if names.is_empty() {
        String::new()
    } else {
        format!(": {}", names.join(", "))
    };
    let counted = (lang.lexicon().counted)(n, total, state, &listed);
    let text = match over {
        Over::Any => format!("{}: {counted}", yes_no(n > 0, lang)),
        Over::HowMany | Over::Which => counted,
    };
    Some(Plan::Answer { text, lang })
}

/// The answer about `targets`: their states (and a thermostat's settings), led by yes or no
/// when the question asked for a state or a low battery.
fn answer_text(targets: &[&Entity], asked: Option<&str>, low: bool, lang: Lang) -> String {
    let listed: Vec<String> = targets
        .iter()
        .map(|e| {
            let unit = e
                .attributes
                .get("unit_of_measurement")
                .and_then(serde_json::Value::as_str);
            let line = state_line(&e.name, &e.state, unit, lang);
            match thermostat_settings(e, lang) {
                Some(settings) => format!("{line}, {settings}"),
                None => line,
            }
        })
        .collect();
    let listed = listed.join("; ");
    let battery_level = |e: &Entity| {
        let battery = e
            .attributes
            .get("device_class")
            .and_then(serde_json::Value::as_str)
            == Some("battery");
        battery.then(|| e.state.parse::<f64>().ok()).flatten()
    };
    let low_battery = low
        .then(|| {
            targets
                .iter()
                .map(|e| battery_level(e))
                .collect::<Option<Vec<f64>>>()
        })
        .flatten();
    match (asked, low_battery) {
        (_, Some(levels)) => {
            let yes = levels.iter().all(|l| *l <= LOW_BATTERY);
            format!("{}: {listed}.", yes_no(yes, lang))
        }
        (Some(state), None) => {
            let yes = targets.iter().all(|e| is_in(e, state));
            format!("{}: {listed}.", yes_no(yes, lang))
        }
        (None, None) => format!("{listed}."),
    }
}

/// "Is anything open?", "which things are unlocked?": with no kind named, every cover and
/// valve open and every lock unlocked, each said with its state; `None` for any other state.
fn anything_open(over: Over, asked: &str, lang: Lang, registry: &Registry) -> Option<Plan> {
    let opens = |e: &&Entity| match e.domain() {
        "cover" | "valve" => matches!(e.state.as_str(), "open" | "opening"),
        "lock" => matches!(
            e.state.as_str(),
            "unlocked" | "open" | "opening" | "unlocking"
        ),
        _ => false,
    };
    if !matches!(asked, "open" | "unlocked") || over == Over::HowMany {
        return None;
    }
    let total = registry
        .entities()
        .filter(|e| matches!(e.domain(), "cover" | "valve" | "lock"))
        .count();
    if total == 0 {
        return None;
    }
    let open: Vec<String> = registry
        .entities()
        .filter(opens)
        .map(|e| state_line(&e.name, &e.state, None, lang))
        .collect();
    let listed = if open.is_empty() {
        (lang.lexicon().counted)(0, total, state_word(asked, lang), "")
    } else {
        open.join("; ")
    };
    let text = match over {
        Over::Any => format!("{}: {listed}", yes_no(!open.is_empty(), lang)),
        _ => listed,
    };
    Some(Plan::Answer { text, lang })
}

/// A plain question about the state of named things, answered from the registry: "is the
/// front door locked?", "what is the outside temperature?", "czy światło w kuchni jest
/// włączone?". `None` when it is not such a question or the target is not certain.
pub(super) fn answer(
    reading: &Reading,
    registry: &Registry,
    answer_in: Option<Lang>,
) -> Option<Plan> {
    let whole = reading.text.trim();
    let text = question_part(whole);
    // The question alone when more follows it ("is it on? and …"): those words only.
    let mut words = if text == whole {
        reading.words.clone()
    } else {
        words_of(text).0
    };
    if !reading.is_question() {
        return None;
    }
    drop_courtesy(&mut words);
    with_a_key(&mut words);
    let lang = answer_in.unwrap_or_else(|| reading.language());
    if let Some(counted) = count(&words, lang, registry) {
        return Some(counted);
    }
    // "Playing, paused or stopped?" offers a choice: the answer is the state, not yes or no.
    let mut states: Vec<&str> = words.iter().filter_map(|w| state_named(w)).collect();
    states.dedup();
    let asked = asked_state(&words, &states);
    let low = words.iter().any(|w| any_has(|l| l.low, w));
    let mut rest: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !is_question_filler(w) && !is_filler(w) && !any_has(|l| l.low, w) && !is_state_word(w)
        })
        .collect();
    // "How warm is it outside?": beside words that name something, "it" names nothing.
    if rest.iter().any(|w| !any_has(|l| l.stand_ins, w)) {
        rest.retain(|w| !any_has(|l| l.stand_ins, w));
    }
    let query = query_of(&rest, registry);
    if query.is_empty() {
        return None;
    }
    // "Is the TV on?" asks about the media player that is a TV, not every player.
    let kinds = KindsSaid::asked(&words, &query);
    let mut covering: Vec<&Entity> = registry
        .entities()
        .filter(|e| covers(e, &query) && kinds.fit(e))
        .collect();
    // A measure asked for ("what is the battery level?") is the measuring entity's, not a
    // neighbour's on/off state of the same name.
    let measures = |e: &&Entity| e.attributes.contains_key("unit_of_measurement");
    if asked.is_none() && !low && covering.iter().any(measures) {
        covering.retain(measures);
    }
    let named: Vec<&Entity> = covering
        .iter()
        .copied()
        .filter(|e| named(e, &query))
        .collect();
    let specific = query.words.iter().any(|q| domain_of_word(q).is_none());
    let targets: Vec<&Entity> = if named.len() == 1 {
        named
    } else if covering.len() == 1
        || (specific
            && (2..=6).contains(&covering.len())
            && same_place(&covering, &query, registry))
    {
        covering
    } else {
        return None;
    };
    // A list, a calendar or the weather is answered from what is read through it.
    if targets
        .iter()
        .any(|e| matches!(e.domain(), "todo" | "calendar" | "weather"))
    {
        return None;
    }
    // What the question asks about, not a neighbour of the same device: "is the plug on?" is
    // the plug's switch, not its energy sensor.
    let switched: Vec<&Entity> = targets
        .iter()
        .copied()
        .filter(|e| SWITCHED.contains(&e.domain()))
        .collect();
    let targets = if asked.is_some_and(|a| matches!(a, "on" | "off")) && !switched.is_empty() {
        switched
    } else {
        targets
    };

    let text = answer_text(&targets, asked, low, lang);
    Some(Plan::Answer { text, lang })
}

/// "Is the light on? Please answer yes or no.": the question is what ends at its mark.
fn question_part(text: &str) -> &str {
    match text.find('?') {
        Some(at) => &text[..=at],
        None => text,
    }
}

/// "Zamknięte na klucz": closed with a key is locked, open with one unlocked.
fn with_a_key(words: &mut Vec<String>) {
    let Some(key) = words.iter().position(|w| any_has(|l| l.with_a_key, w)) else {
        return;
    };
    words.remove(key);
    for w in words.iter_mut() {
        match state_named(w) {
            Some("closed") => *w = "locked".to_owned(),
            Some("open") => *w = "unlocked".to_owned(),
            _ => {}
        }
    }
}

/// "Please tell me, are the sprinklers on?": the courtesy before the question asks nothing.
fn drop_courtesy(words: &mut Vec<String>) {
    if let Some((lead, _)) = leading_phrase(|l| l.question_courtesy, words)
        && lead < words.len()
    {
        words.drain(..lead);
    }
}

/// The one state a yes/no question asks about; only a yes/no question is answered yes or no
/// ("what is on my list?" is not one).
fn asked_state(words: &[String], states: &[&'static str]) -> Option<&'static str> {
    let first = words.first()?;
    // "La porte est-elle fermée ?": the verb that asks may follow the subject, when no other
    // question word opens the question.
    let inverted = !is_question_word(first)
        && !any_has(|l| l.which, first)
        && words.iter().any(|w| any_has(|l| l.yes_no_openers, w));
    match states {
        // "Läuft im Wohnzimmer Musik?": a verb that says the state may open the question.
        [one]
            if any_has(|l| l.yes_no_openers, first)
                || any_has(|l| l.state_verbs, first)
                || inverted =>
        {
            Some(*one)
        }
        _ => None,
    }
}

/// One entity as a read showed it: domain, name, state, unit, and whether the question's own
/// words point at it (only then may its state answer yes or no).
pub struct ReadState<'a> {
    pub asked_about: bool,
    pub domain: &'a str,
    pub name: &'a str,
    pub state: &'a str,
    pub unit: Option<&'a str>,
}

/// The answer to a question from what the run read (the model chose what to read): yes or no
/// when the question asks about one state, with each domain's meaning of it, then every state
/// read, in the person's language.
pub fn answer_from_reads(question: &str, reads: &[ReadState<'_>], lang: Lang) -> String {
    let question = question_part(question);
    let (mut words, _) = words_of(question);
    drop_courtesy(&mut words);
    let mut states: Vec<&str> = words.iter().filter_map(|w| state_named(w)).collect();
    states.dedup();
    // "Are any lights on?" is not answered no from the one light the model chose to read.
    let asked = asked_state(&words, &states)
        .filter(|_| !words.iter().any(|w| any_has(|l| l.any, w) || is_every(w)));
    let listed: Vec<String> = reads
        .iter()
        .map(|r| state_line(r.name, r.state, r.unit, lang))
        .collect();
    let listed = listed.join("; ");
    match asked {
        // "Is the garage open?" is not answered "no" from the kitchen window the model read.
        Some(state) if !reads.is_empty() && reads.iter().all(|r| r.asked_about) => {
            let yes = reads.iter().all(|r| is_in_state(r.domain, r.state, state));
            format!("{}: {listed}.", yes_no(yes, lang))
        }
        _ => format!("{listed}."),
    }
}

/// What a thermostat is set to and what it measures ("set to 22°, currently 25°"), from its
/// attributes; `None` for other devices or one that shows neither.
fn thermostat_settings(entity: &Entity, lang: Lang) -> Option<String> {
    if entity.domain() != "climate" {
        return None;
    }
    let degrees = |name: &str| {
        entity
            .attributes
            .get(name)
            .and_then(serde_json::Value::as_f64)
            .map(|t| format!("{t}°"))
    };
    let target = degrees("temperature").or_else(|| {
        let (low, high) = (degrees("target_temp_low")?, degrees("target_temp_high")?);
        Some(format!("{}–{high}", low.trim_end_matches('°')))
    });
    let current = degrees("current_temperature");
    let (set_to, now) = (lang.lexicon().set_to, lang.lexicon().currently);
    let parts: Vec<String> = [
        target.map(|t| format!("{set_to} {t}")),
        current.map(|c| format!("{now} {c}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn yes_no(yes: bool, lang: Lang) -> &'static str {
    let lexicon = lang.lexicon();
    if yes { lexicon.yes } else { lexicon.no }
}

/// All in one place the query names: one area, or one floor ("the lights upstairs", "the
/// bedroom lights upstairs"). The other words only name their kind or the measure.
pub(super) fn same_place(entities: &[&Entity], query: &Query, registry: &Registry) -> bool {
    same_area(entities, query, registry) || same_floor(entities, query, registry)
}

fn area_words(entity: &Entity, registry: &Registry) -> Vec<String> {
    entity
        .area_id
        .as_deref()
        .and_then(|a| registry.area(a))
        .map(|a| tokens(&a.name))
        .unwrap_or_default()
}

/// All in one area the query names (the other words only name their kind or the measure).
fn same_area(entities: &[&Entity], query: &Query, registry: &Registry) -> bool {
    let Some(area_id) = entities[0].area_id.as_deref() else {
        return false;
    };
    if !entities
        .iter()
        .all(|e| e.area_id.as_deref() == Some(area_id))
    {
        return false;
    }
    let area_words = area_words(entities[0], registry);
    !area_words.is_empty()
        && query
            .words
            .iter()
            .all(|q| domain_of_word(q).is_some() || area_words.iter().any(|w| word_matches(q, w)))
}

/// All on one floor the query names; its other words name their kind, or a room that every
/// one of them is in ("bedroom" for Bedroom 2 and Bedroom 3).
fn same_floor(entities: &[&Entity], query: &Query, registry: &Registry) -> bool {
    let floor_of = |e: &Entity| {
        e.area_id
            .as_deref()
            .and_then(|a| registry.area(a))
            .and_then(|a| registry.floor_of(a))
    };
    let Some(floor) = floor_of(entities[0]) else {
        return false;
    };
    if !entities
        .iter()
        .all(|e| floor_of(e).is_some_and(|f| f.floor_id == floor.floor_id))
    {
        return false;
    }
    let floor_words = floor.words();
    let on_floor = |q: &str| floor_words.iter().any(|w| word_matches(q, w));
    let areas: Vec<Vec<String>> = entities.iter().map(|e| area_words(e, registry)).collect();
    query.words.iter().any(|q| on_floor(q))
        && query.words.iter().all(|q| {
            domain_of_word(q).is_some()
                || on_floor(q)
                || areas
                    .iter()
                    .all(|words| words.iter().any(|w| word_matches(q, w)))
        })
}
