//! Questions answered by reading through a service that answers: what is on a to-do list, what
//! is on a calendar, what the weather is or will be. The plan names the reads; HomeClaw writes
//! the answer from what they return ([`crate::agent::say::reading`]), never the model.
//!
//! Which kind of read a question wants is told by its words (en/pl/de): the weather's, a
//! list's, or an agenda's (a calendar, a day, a meeting), in that order; a question that names
//! none of them, or a home without such an entity, is not planned here.

use serde_json::json;

use super::todo::add_item;
use super::{Plan, PlannedCall};
use crate::agent::understand::intent::{Lang, is_filler, is_question_word};
use crate::agent::understand::mood::Reading;
use crate::ha::registry::{Entity, Registry};
use crate::text::tokens;

/// What the person asked to be read, and for whom the answer is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    /// The open items of these to-do lists (entity ids).
    Items { lists: Vec<String> },
    /// Events of these calendars from now on, within `day` when the question names one;
    /// `counting`: the question's own words, for "how many …" (events whose summary shares one
    /// are counted).
    Events {
        calendars: Vec<String>,
        day: Option<Day>,
        counting: Option<Vec<String>>,
        /// The question asks when something is ("what time is the dentist?"): only the events
        /// `counting`'s words name answer it; none named, it is not found.
        when: bool,
    },
    /// The weather entity's conditions now, or its forecast for tomorrow.
    Weather { entity: String, tomorrow: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Day {
    Today,
    Tomorrow,
}

/// Whether any language's list holds a word.
fn any(list: fn(&crate::lang::Lexicon) -> crate::lang::Words, word: &str) -> bool {
    crate::lang::any_has(list, word)
}

/// The plan for a question answered by reads, if it is one (`None` leaves it to the rest of
/// the fast path, then the model). Answered in `answer_in` when the request says the language.
pub(super) fn plan(
    reading: &Reading,
    registry: &Registry,
    answer_in: Option<Lang>,
) -> Option<Plan> {
    let words = &reading.words;
    // A request ("add milk to the list", "turn on the light?") is not a read.
    if !reading.is_question() || reading.intent().is_some() || add_item(reading, registry).is_some()
    {
        return None;
    }
    let lang = answer_in.unwrap_or_else(|| reading.language());
    let has =
        |list: fn(&crate::lang::Lexicon) -> crate::lang::Words| words.iter().any(|w| any(list, w));
    let of = |domain: &str| -> Vec<&Entity> {
        registry
            .entities()
            .filter(|e| e.domain() == domain)
            .collect()
    };
    let day = if has(|l| l.tomorrow_words) {
        Some(Day::Tomorrow)
    } else if has(|l| l.today_words) {
        Some(Day::Today)
    } else {
        None
    };
    let weather = of("weather");
    if !weather.is_empty()
        && (has(|l| l.weather) || (has(|l| l.outside) && has(|l| l.weather_measures)))
    {
        let entity = named(&weather, words)
            .into_iter()
            .next()
            .unwrap_or(weather[0]);
        return Some(weather_plan(entity, day == Some(Day::Tomorrow), lang));
    }
    let lists = of("todo");
    let calendars = of("calendar");
    let wants_list = has(|l| l.lists) || (!has(|l| l.agenda) && has(|l| l.needs));
    if !lists.is_empty() && wants_list {
        let chosen = named(&lists, words);
        let chosen = if chosen.is_empty() { lists } else { chosen };
        return Some(items_plan(&chosen, lang));
    }
    if !calendars.is_empty() && (has(|l| l.agenda) || (lists.is_empty() && has(|l| l.needs))) {
        let chosen = named(&calendars, words);
        let chosen = if chosen.is_empty() { calendars } else { chosen };
        let counting = (0..words.len())
            .any(|i| crate::lang::leading_phrase(|l| l.how_many, &words[i..]).is_some())
            .then(|| content_words(words));
        return Some(events_plan(&chosen, day, counting, false, lang));
    }
    if let Some(about) = when_about(words, registry).filter(|_| !calendars.is_empty()) {
        return Some(events_plan(&calendars, day, Some(about), true, lang));
    }
    // "What's on my calendar?" in a home without a calendar HomeClaw can read: not found, at
    // once (the model would have nothing to read either).
    if calendars.is_empty() && has(|l| l.calendar_words) {
        return Some(Plan::Answer {
            text: lang.says().could_not_answer().to_owned(),
            lang,
        });
    }
    None
}

/// "What time is the dentist?", "Wann ist der Zahnarzt?": the words it asks the time of, when
/// they name nothing of the home (not "what time is it", not "when did the door open", which
/// are the clock's and the home's).
fn when_about(words: &[String], registry: &Registry) -> Option<Vec<String>> {
    let (at, len) = (0..words.len()).find_map(|i| {
        crate::lang::leading_phrase(|l| l.when_is, &words[i..]).map(|(n, _)| (i, n))
    })?;
    let about: Vec<String> = content_words(&words[at + len..])
        .into_iter()
        .filter(|w| {
            !is_question_word(w)
                && !is_filler(w)
                && !any(|l| l.stopwords, w)
                && !any(|l| l.stand_ins, w)
                && !any(|l| l.be, w)
        })
        .collect();
    let of_the_home = about
        .iter()
        .any(|w| registry.matches_word(w) || crate::ha::search::domain_of_word(w).is_some());
    (!about.is_empty() && !of_the_home).then_some(about)
}

/// The entities whose name the question says (every word of a name that is not the kind).
fn named<'a>(entities: &[&'a Entity], words: &[String]) -> Vec<&'a Entity> {
    entities
        .iter()
        .copied()
        .filter(|e| {
            let name = tokens(&e.name);
            !name.is_empty()
                && name
                    .iter()
                    .filter(|n| !any(|l| l.lists, n) && !any(|l| l.agenda, n))
                    .any(|n| words.iter().any(|w| w == n))
        })
        .collect()
}

/// The words of a "how many" question that may name what is counted ("cook" in "how many
/// nights do I need to cook"), without the question's and the agenda's own words.
fn content_words(words: &[String]) -> Vec<String> {
    words
        .iter()
        .filter(|w| {
            w.len() > 2
                && !any(|l| l.count_aside, w)
                && !any(|l| l.agenda, w)
                && !any(|l| l.read_openers, w)
        })
        .cloned()
        .collect()
}

fn weather_plan(entity: &Entity, tomorrow: bool, lang: Lang) -> Plan {
    let reads = if tomorrow {
        vec![PlannedCall {
            domain: "weather".into(),
            service: "get_forecasts".into(),
            entity_ids: vec![entity.entity_id.clone()],
            data: json!({"type": "daily"}),
        }]
    } else {
        Vec::new()
    };
    Plan::Read {
        reads,
        asked: Asked::Weather {
            entity: entity.entity_id.clone(),
            tomorrow,
        },
        lang,
    }
}

fn items_plan(lists: &[&Entity], lang: Lang) -> Plan {
    Plan::Read {
        reads: vec![PlannedCall {
            domain: "todo".into(),
            service: "get_items".into(),
            entity_ids: lists.iter().map(|e| e.entity_id.clone()).collect(),
            data: json!({"status": ["needs_action"]}),
        }],
        asked: Asked::Items {
            lists: lists.iter().map(|e| e.entity_id.clone()).collect(),
        },
        lang,
    }
}

fn events_plan(
    calendars: &[&Entity],
    day: Option<Day>,
    counting: Option<Vec<String>>,
    when: bool,
    lang: Lang,
) -> Plan {
    // From now on: today's rest, tomorrow, or the coming week (the start is Home Assistant's
    // own "now", in its own time zone).
    let days = match day {
        Some(Day::Today) => 1,
        Some(Day::Tomorrow) => 2,
        None => 7,
    };
    Plan::Read {
        reads: vec![PlannedCall {
            domain: "calendar".into(),
            service: "get_events".into(),
            entity_ids: calendars.iter().map(|e| e.entity_id.clone()).collect(),
            data: json!({"duration": {"days": days}}),
        }],
        asked: Asked::Events {
            calendars: calendars.iter().map(|e| e.entity_id.clone()).collect(),
            day,
            counting,
            when,
        },
        lang,
    }
}
