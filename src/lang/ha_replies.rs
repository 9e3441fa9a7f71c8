//! What Home Assistant's own agent says after an action, in every language it ships: the
//! words HomeClaw speaks where it has no lexicon of its own (Dutch, Spanish, Italian, …).
//!
//! The table is data Home Assistant ships (`home-assistant-intents`' responses, pinned with
//! Home Assistant; written by `scripts/ha/reply-table.py`), so a Dutch household hears the
//! sentence it knows from Home Assistant, and a new language there is a new row here. Only
//! plain sentences are kept; a slot (`{name}`, `{area}`, `{item}`, …) is filled from what was
//! recognised and done, and a sentence whose slots cannot all be filled is not said.
//!
//! Two more rows come from Home Assistant Core's own translations: what a service is called
//! (the action an approval question names) and what a state is called (the word the
//! household's dashboard shows, where Home Assistant's agent says the raw "closed").
//! HomeClaw's own sentence around a held action, in the few languages we wrote it for, is
//! [`ask_approval`]'s: Home Assistant ships no such sentence.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

#[derive(Deserialize)]
struct Table {
    languages: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        // The file is generated and checked in; a broken one is a build defect the tests catch.
        serde_json::from_str(include_str!("ha_replies.json")).unwrap_or(Table {
            languages: BTreeMap::new(),
        })
    })
}

/// The table's row for a language tag: `pt-BR` → `pt-br`, else `de-AT` → `de`.
fn row(tag: &str) -> Option<&'static BTreeMap<String, BTreeMap<String, String>>> {
    let tag = normalised(tag);
    let languages = &table().languages;
    languages
        .get(&tag)
        .or_else(|| languages.get(super::primary_tag(&tag)))
}

/// A tag as the table writes it: `pt_BR` → `pt-br`.
fn normalised(tag: &str) -> String {
    tag.trim().to_ascii_lowercase().replace('_', "-")
}

/// Every language Home Assistant ships sentences for (`pt-br`, `de`, …): the languages a
/// person can speak to HomeClaw in, through Home Assistant's recogniser where HomeClaw has no
/// lexicon.
pub fn languages() -> Vec<String> {
    table().languages.keys().cloned().collect()
}

/// Whether Home Assistant ships replies for this language tag.
pub fn speaks(tag: &str) -> bool {
    row(tag).is_some()
}

/// What Home Assistant says when `intent` was done, by the first of `keys` (then `default`,
/// then, for switching on or off, the light's sentence: the plain "switched on" of languages
/// that key theirs by domain) whose slots `slots` fills; `None` when it has no such sentence.
/// Never another domain's sentence ("se ha abierto" is a cover's, not a coffee machine's).
pub fn done(tag: &str, intent: &str, keys: &[&str], slots: &[(&str, &str)]) -> Option<String> {
    let phrases = row(tag)?.get(intent)?;
    let generic: &[&str] = match intent {
        "HassTurnOn" | "HassTurnOff" => &["default", "light"],
        _ => &["default"],
    };
    keys.iter()
        .chain(generic)
        .filter_map(|key| phrases.get(*key))
        .find_map(|phrase| filled(phrase, slots))
}

/// Home Assistant's "something went wrong" in the language: said when HomeClaw could not
/// confirm an action, so a failure never reads as done.
pub fn failed(tag: &str) -> Option<String> {
    row(tag)?.get("errors")?.get("handle_error").cloned()
}

/// Home Assistant's "I know no device called …" in the language, with the words said.
pub fn unknown_name(tag: &str, name: &str) -> Option<String> {
    filled(
        row(tag)?.get("errors")?.get("no_entity")?,
        &[("entity", name)],
    )
}

/// Home Assistant's "sorry, I did not understand" in the language: said when nothing was
/// done and nothing read.
pub fn not_understood(tag: &str) -> Option<String> {
    row(tag)?.get("errors")?.get("no_intent").cloned()
}

/// What Home Assistant calls `domain.service` in the language ("Openen", "Abrir").
pub fn service_name(tag: &str, domain: &str, service: &str) -> Option<&'static str> {
    row(tag)?
        .get("services")?
        .get(&format!("{domain}.{service}"))
        .map(String::as_str)
}

/// What Home Assistant calls a state in the language, its device class's word first ("Open"
/// for a door sensor that is `on`), then the domain's ("Gesloten").
pub fn state_word(
    tag: &str,
    domain: &str,
    device_class: Option<&str>,
    state: &str,
) -> Option<&'static str> {
    let states = row(tag)?.get("states")?;
    device_class
        .and_then(|class| states.get(&format!("{domain}.{class}.{state}")))
        .or_else(|| states.get(&format!("{domain}.{state}")))
        .map(String::as_str)
}

/// The approval question for a held `domain.service` on `names`, in a language HomeClaw has
/// no lexicon for (its sentence is data, [`super::says`]); `None` where we have no sentence
/// or Home Assistant no name for the service.
pub fn ask_approval(tag: &str, domain: &str, service: &str, names: &str) -> Option<String> {
    let action = service_name(tag, domain, service)?;
    super::says::ask_approval_by_service(tag, action, names)
}

/// Home Assistant's answer with each raw state it says ("closed") in the household's word
/// for it ("gesloten"), where the two differ; only whole words, so "on" inside "Sonos" stays.
pub fn in_household_words(speech: &str, states: &[(String, &str)]) -> String {
    let mut out = speech.to_owned();
    for (raw, word) in states {
        if raw.is_empty() || raw.eq_ignore_ascii_case(word) {
            continue;
        }
        let word = word.to_lowercase();
        let mut said = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(raw.as_str()) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + raw.len()..].chars().next();
            let whole = !before.is_some_and(char::is_alphanumeric)
                && !after.is_some_and(char::is_alphanumeric);
            said.push_str(&rest[..at]);
            said.push_str(if whole { &word } else { raw });
            rest = &rest[at + raw.len()..];
        }
        said.push_str(rest);
        out = said;
    }
    out
}

/// The phrase with every `{slot}` (or `{slot|capitalize}`) filled, or `None` if one cannot be.
fn filled(phrase: &str, slots: &[(&str, &str)]) -> Option<String> {
    let mut out = String::with_capacity(phrase.len());
    let mut rest = phrase;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}')? + open;
        let inner = &rest[open + 1..close];
        let (name, capitalize) = match inner.split_once('|') {
            Some((name, _)) => (name, true),
            None => (inner, false),
        };
        let value = slots
            .iter()
            .find(|(slot, value)| *slot == name && !value.trim().is_empty())?
            .1
            .trim();
        if capitalize {
            out.push_str(&super::capitalised(value));
        } else {
            out.push_str(value);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_home_assistant_ships_has_its_failure_sentence() {
        let languages = &table().languages;
        assert!(languages.len() >= 50, "{}", languages.len());
        for (tag, _) in languages.iter() {
            assert!(failed(tag).is_some(), "{tag} has no handle_error");
        }
    }

    #[test]
    fn a_sentence_is_said_only_with_every_slot_filled() {
        assert_eq!(
            done("nl", "HassTurnOn", &["cover"], &[]).as_deref(),
            Some("Geopend")
        );
        assert_eq!(
            done(
                "nl-BE",
                "HassListAddItem",
                &["item_added"],
                &[("item", "melk")]
            )
            .as_deref(),
            Some("melk toegevoegd")
        );
        assert_eq!(done("nl", "HassListAddItem", &["item_added"], &[]), None);
        assert_eq!(done("xx", "HassTurnOn", &[], &[]), None);
        // A switch in Spanish, whose sentences are keyed by domain: the light's, not a cover's.
        assert_eq!(
            done("es", "HassTurnOn", &["switch"], &[("name", "Cafetera")]).as_deref(),
            Some("Cafetera se ha encendido")
        );
        assert!(speaks("es-ES") && speaks("pt-BR") && !speaks("tlh"));
        // Home Assistant Core's words for services and states, in the household's language.
        assert_eq!(service_name("es", "cover", "open_cover"), Some("Abrir"));
        assert_eq!(state_word("nl", "cover", None, "closed"), Some("Gesloten"));
        assert_eq!(
            state_word("nl", "binary_sensor", Some("door"), "on"),
            Some("Open")
        );
        assert_eq!(state_word("nl", "binary_sensor", None, "on"), Some("Aan"));
        assert_eq!(
            ask_approval("es-ES", "cover", "open_cover", "Puerta del garaje").as_deref(),
            Some("¿Abrir Puerta del garaje? Hace falta tu aprobación: apruébalo en HomeClaw.")
        );
        assert!(
            ask_approval("nl", "lock", "unlock", "Voordeur")
                .unwrap()
                .starts_with("Voordeur ontgrendelen? ")
        );
        assert_eq!(
            ask_approval("sv", "cover", "open_cover", "Garageport"),
            None
        );
        let closed = [("closed".to_owned(), "Gesloten")];
        assert_eq!(
            in_household_words("Nee, die is closed", &closed),
            "Nee, die is gesloten"
        );
        let on = [("on".to_owned(), "Aan")];
        assert_eq!(in_household_words("Sonos is on.", &on), "Sonos is aan.");
        assert_eq!(
            filled("{name|capitalize} aan", &[("name", "lamp")]).as_deref(),
            Some("Lamp aan")
        );
    }
}
