//! Whether words speak of this home: a kind of device it has, one of its areas, a name said in
//! another language, a question about a state. Asked of the person's command when it is parsed
//! (whether the run needs the tools) and of the model's words when the run ends (whether they
//! may reach the person).

use super::mood::Reading;
use super::{is_cleaning, state_named, translations};
use crate::ha::registry::Registry;
use crate::text::{compound_cuts, plural_stem, tokens};

/// Whether the words speak of this home: a kind of device it has, one of its areas, a name
/// said in another language, or a question about a state. The run then needs the tools from
/// its first round, and the model's words about it are never passed on.
pub(crate) fn about_the_home(said: &Reading, registry: &Registry) -> bool {
    let text = said.text.as_str();
    names_a_kind(text, registry)
        || names_an_area(text, registry)
        || names_by_translation(text, registry)
        || asks_about_a_state(said)
        || speaks_of_the_household(text)
}

/// The household's agenda ("my calendar", "appointment") or its garden's watering: about the
/// home whether or not Home Assistant shows HomeClaw a calendar or a valve, so the model's
/// words about them never reach the person ("I have no access to your calendar").
fn speaks_of_the_household(text: &str) -> bool {
    let day = |w: &str| {
        crate::lang::any_has(|l| l.today_words, w) || crate::lang::any_has(|l| l.tomorrow_words, w)
    };
    tokens(text).iter().any(|w| {
        (crate::lang::any_has(|l| l.agenda, w) && !day(w))
            || crate::lang::any_has(|l| l.watering, w)
    })
}

pub(crate) fn names_an_area(text: &str, registry: &Registry) -> bool {
    let said = tokens(text);
    registry.areas().any(|a| {
        std::iter::once(&a.name)
            .chain(&a.aliases)
            .map(|n| tokens(n))
            .any(|words| !words.is_empty() && words.iter().all(|w| said.contains(w)))
    })
}

/// A question about a state ("is guest mode on?", "czy … jest otwarte?") asks about the home,
/// whatever it names: a yes or no to it is a sentence about the home, so only a read answers it.
fn asks_about_a_state(said: &Reading) -> bool {
    let (opening, _) = said.after_courtesy();
    said.is_question()
        && (said.words.iter().any(|w| state_named(w).is_some())
            // "Läuft der Fernseher?", "Czy gra muzyka?": a verb that says the state asks it.
            || opening
                .iter()
                .take(2)
                .any(|w| crate::lang::any_has(|l| l.state_verbs, w)))
}

/// Whether the text speaks of a kind of device this home has ("the lights", "the song",
/// "any windows").
pub(crate) fn names_a_kind(text: &str, registry: &Registry) -> bool {
    let kinds = registry.domains();
    let kind_of = |w: &str| {
        crate::ha::search::domain_of_word(w)
            // A sentence about songs, the volume or chores is about the home that has them.
            .or_else(|| crate::lang::named_by(|l| l.about_kinds, w))
            .or_else(|| is_cleaning(w).then_some("vacuum"))
    };
    tokens(text).iter().any(|w| {
        kind_of(w)
            .or_else(|| kind_of(plural_stem(w)))
            .or_else(|| compound_head(w).and_then(kind_of))
            .is_some_and(|k| kinds.contains_key(k))
    })
}

/// The last word of a German compound that is a kind ("küchenlicht" is a "licht").
fn compound_head(word: &str) -> Option<&str> {
    compound_cuts(word, 3, 4)
        .map(|(_, tail)| tail)
        .find(|tail| {
            crate::ha::search::domain_of_word(tail).is_some()
                || crate::lang::named_by(|l| l.about_kinds, tail).is_some()
        })
}

/// Whether a word of the text, translated as the fast path translates it ("Klimaanlage" is
/// "AC", "Wohnzimmer" is "living"), is a word of a name or room of this home.
pub(crate) fn names_by_translation(text: &str, registry: &Registry) -> bool {
    let english: Vec<&str> = tokens(text).iter().flat_map(|w| translations(w)).collect();
    !english.is_empty()
        && registry.entities().any(|e| {
            let hay = &e.haystack;
            hay.name_and_place().any(|n| english.contains(&n))
        })
}
