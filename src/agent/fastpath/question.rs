//! Plain questions about the state of named things, answered from the live registry.

use super::Plan;
use super::intent::{FILLER, Lang, QUESTION_WORDS, question_lang, words_of};
use super::target::{covers, named, query_of, word_matches};
use crate::ha::registry::{Entity, Registry};
use crate::ha::search::{Query, domain_of_word};
use crate::text::tokens;

/// States a question may ask about (folded words, en/pl/de) and the state they mean.
pub(super) const STATE_WORDS: [(&str, &[&str]); 8] = [
    (
        "on",
        &[
            "on",
            "wlaczone",
            "wlaczony",
            "wlaczona",
            "an",
            "eingeschaltet",
        ],
    ),
    (
        "off",
        &[
            "off",
            "wylaczone",
            "wylaczony",
            "wylaczona",
            "aus",
            "ausgeschaltet",
        ],
    ),
    (
        "open",
        &["open", "otwarte", "otwarty", "otwarta", "offen", "geoffnet"],
    ),
    (
        "closed",
        &[
            "closed",
            "zamkniete",
            "zamkniety",
            "zamknieta",
            "geschlossen",
        ],
    ),
    (
        "locked",
        &[
            "locked",
            "zablokowane",
            "zablokowany",
            "verriegelt",
            "abgeschlossen",
        ],
    ),
    (
        "unlocked",
        &["unlocked", "odblokowane", "odblokowany", "entriegelt"],
    ),
    ("playing", &["playing", "gra", "spielt"]),
    (
        "paused",
        &["paused", "wstrzymany", "wstrzymane", "pausiert"],
    ),
];

/// The state a word says ("aus", "zamknięte" folded, "locked"), as Home Assistant writes it.
pub fn state_named(word: &str) -> Option<&'static str> {
    STATE_WORDS
        .iter()
        .find(|(_, forms)| forms.contains(&word))
        .map(|(state, _)| *state)
}

/// "Kitchen Lights is off", "Outside is 21 °C", in the person's language (Polish without a
/// verb, so no case or gender has to agree with a name we do not decline).
pub fn state_line(name: &str, state: &str, unit: Option<&str>, lang: Lang) -> String {
    let state = state_word(state, lang);
    let value = match unit {
        Some(unit) => format!("{state} {unit}"),
        None => state.to_owned(),
    };
    match lang {
        Lang::De => format!("{name} ist {value}"),
        Lang::Pl => format!("{name}: {value}"),
        Lang::En => format!("{name} is {value}"),
    }
}

/// A state Home Assistant writes in English ("off", "locked"), as the person's language says
/// it; anything else (a number, a state we have no word for) as it is.
fn state_word(state: &str, lang: Lang) -> &str {
    const WORDS: [(&str, &str, &str); 8] = [
        ("on", "włączone", "an"),
        ("off", "wyłączone", "aus"),
        ("open", "otwarte", "offen"),
        ("closed", "zamknięte", "geschlossen"),
        ("locked", "zablokowane", "verriegelt"),
        ("unlocked", "odblokowane", "entriegelt"),
        ("playing", "gra", "spielt"),
        ("paused", "wstrzymane", "pausiert"),
    ];
    match (WORDS.iter().find(|(en, ..)| *en == state), lang) {
        (Some((_, pl, _)), Lang::Pl) => pl,
        (Some((.., de)), Lang::De) => de,
        _ => state,
    }
}

/// Question words and the verbs around them, which name nothing in the home.
pub(super) const QUESTION_FILLER: [&str; 20] = [
    "what", "whats", "s", "is", "are", "how", "high", "much", "which", "czy", "jaka", "jaki",
    "jest", "sa", "ile", "wie", "hoch", "ist", "sind", "welche",
];

/// A plain question about the state of named things, answered from the registry: "is the
/// front door locked?", "what is the outside temperature?", "czy światło w kuchni jest
/// włączone?". `None` when it is not such a question or the target is not certain.
pub(super) fn answer(text: &str, registry: &Registry) -> Option<Plan> {
    let (words, _) = words_of(text);
    let first = words.first()?;
    if !(text.trim_end().ends_with('?') || QUESTION_WORDS.contains(&first.as_str())) {
        return None;
    }
    let lang = question_lang(first);
    let asked = words.iter().find_map(|w| state_named(w));
    let rest: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !QUESTION_FILLER.contains(w)
                && !FILLER.contains(w)
                && !STATE_WORDS.iter().any(|(_, forms)| forms.contains(w))
        })
        .collect();
    let query = query_of(&rest, registry);
    if query.is_empty() {
        return None;
    }
    let covering: Vec<&Entity> = registry.entities().filter(|e| covers(e, &query)).collect();
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
    let listed: Vec<String> = targets
        .iter()
        .map(|e| {
            let unit = e
                .attributes
                .get("unit_of_measurement")
                .and_then(serde_json::Value::as_str);
            state_line(&e.name, &e.state, unit, lang)
        })
        .collect();
    let listed = listed.join("; ");
    let text = match asked {
        Some(state) => {
            let yes = targets.iter().all(|e| e.state == state);
            let word = match (lang, yes) {
                (Lang::En, true) => "Yes",
                (Lang::En, false) => "No",
                (Lang::Pl, true) => "Tak",
                (Lang::Pl, false) => "Nie",
                (Lang::De, true) => "Ja",
                (Lang::De, false) => "Nein",
            };
            format!("{word}: {listed}.")
        }
        None => format!("{listed}."),
    };
    Some(Plan::Answer { text, lang })
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
