//! Every lexicon is complete and none fights another over a word.

use std::collections::BTreeSet;

use super::*;
use crate::text::fold;

fn keys(named: Named) -> BTreeSet<&'static str> {
    named.iter().map(|(key, _)| *key).collect()
}

fn words_of(named: Named) -> impl Iterator<Item = &'static str> {
    named.iter().flat_map(|(_, words)| words.iter().copied())
}

#[test]
fn every_language_has_every_entry() {
    for l in LEXICONS {
        let lists: [(&str, usize); 22] = [
            ("intents", l.intents.len()),
            ("filler", l.filler.len()),
            ("courtesy", l.courtesy.len()),
            ("wrappers", l.wrappers.len()),
            ("please", l.please.len()),
            ("desires", l.desires.len()),
            ("wished", l.wished.len()),
            ("joiners", l.joiners.len()),
            ("every", l.every.len()),
            ("everything", l.everything.len()),
            ("cleaning", l.cleaning.len()),
            ("volume", l.volume.len()),
            ("percent_units", l.percent_units.len()),
            ("degree_units", l.degree_units.len()),
            ("add_item", l.add_item.len()),
            ("list_filler", l.list_filler.len()),
            ("question_openers", l.question_openers.len()),
            ("yes_no_openers", l.yes_no_openers.len()),
            ("how_many", l.how_many.len()),
            ("which", l.which.len()),
            ("any", l.any.len()),
            ("question_filler", l.question_filler.len()),
        ];
        for (name, n) in lists {
            assert!(n > 0, "{}: {name} is empty", l.tag);
        }
        assert!(!l.yes.is_empty() && !l.no.is_empty(), "{}", l.tag);
        // Places are named in the pivot language; the others translate to it.
        assert!(
            !l.places.is_empty() || !l.translations.is_empty(),
            "{}: no places and no translations",
            l.tag
        );
        assert_eq!(Lang::known(l.tag), Some(l.lang), "{}", l.tag);
        assert_eq!(l.lang.lexicon().tag, l.tag);
    }
}

#[test]
fn every_language_names_the_same_things() {
    let en = &en::LEXICON;
    for l in LEXICONS {
        assert_eq!(keys(l.kinds), keys(en.kinds), "{}: kinds", l.tag);
        assert_eq!(keys(l.states), keys(en.states), "{}: states", l.tag);
        assert_eq!(keys(l.colours), keys(en.colours), "{}: colours", l.tag);
        assert_eq!(keys(l.measures), keys(en.measures), "{}: measures", l.tag);
        let wished: BTreeSet<&str> = l.wished.iter().map(|(s, _)| *s).collect();
        let asked: BTreeSet<&str> = en.wished.iter().map(|(s, _)| *s).collect();
        assert_eq!(wished, asked, "{}: wished", l.tag);
        // Every state a wish turns into a request is one a question can ask about.
        assert!(
            wished.iter().all(|s| keys(l.states).contains(s)),
            "{}",
            l.tag
        );
        // Answers say every state HA writes that the other languages say.
        if l.lang != Lang::En {
            let said: BTreeSet<&str> = l.state_words.iter().map(|(s, _)| *s).collect();
            let others: BTreeSet<&str> = LEXICONS
                .iter()
                .filter(|o| o.lang != Lang::En)
                .flat_map(|o| o.state_words.iter().map(|(s, _)| *s))
                .collect();
            assert_eq!(said, others, "{}: state_words", l.tag);
        }
    }
}

#[test]
fn every_word_is_folded() {
    for l in LEXICONS {
        let mut all: Vec<&str> = Vec::new();
        all.extend(l.intents.iter().flat_map(|(p, _)| p.iter().copied()));
        all.extend(l.filler.iter().chain(l.question_filler).chain(l.joiners));
        all.extend(words_of(l.kinds).chain(words_of(l.states)));
        all.extend(words_of(l.colours).chain(words_of(l.translations)));
        all.extend(words_of(l.measures));
        all.extend(
            l.wrappers
                .iter()
                .chain(l.desires)
                .flat_map(|p| p.iter().copied()),
        );
        for w in all {
            assert_eq!(fold(w), w, "{}: {w:?} is not folded", l.tag);
        }
    }
}

#[test]
fn no_phrase_means_two_intents() {
    let mut seen: Vec<(&[&str], Intent, &str)> = Vec::new();
    for l in LEXICONS {
        for (phrase, intent) in l.intents {
            if let Some((_, other, tag)) = seen.iter().find(|(p, ..)| p == phrase) {
                assert_eq!(other, intent, "{phrase:?}: {tag} and {}", l.tag);
            }
            seen.push((phrase, *intent, l.tag));
        }
    }
}

#[test]
fn no_two_lists_fight_over_a_word() {
    let all = |list: fn(&Lexicon) -> Words| -> BTreeSet<&'static str> {
        LEXICONS
            .iter()
            .flat_map(|l| list(l).iter().copied())
            .collect()
    };
    let all_named = |list: fn(&Lexicon) -> Named| -> BTreeSet<&'static str> {
        LEXICONS.iter().flat_map(|l| words_of(list(l))).collect()
    };
    let kinds = all_named(|l| l.kinds);
    let colours = all_named(|l| l.colours);
    let states = all_named(|l| l.states);
    let filler = all(|l| l.filler);
    let joiners = all(|l| l.joiners);
    let verbs: BTreeSet<&str> = LEXICONS
        .iter()
        .flat_map(|l| l.intents.iter())
        .filter(|(p, _)| p.len() == 1)
        .map(|(p, _)| p[0])
        .collect();
    let trailing: BTreeSet<&str> = LEXICONS
        .iter()
        .flat_map(|l| l.trailing.iter().map(|(w, _)| *w))
        .collect();
    let translated = all_named(|l| l.translations);
    let (openers, every, everything) = (
        all(|l| l.question_openers),
        all(|l| l.every),
        all(|l| l.everything),
    );
    let rules: [(&BTreeSet<&str>, &BTreeSet<&str>, &str); 13] = [
        // A filler word is dropped from the words that name a target: it must name nothing.
        (&filler, &kinds, "filler and kinds"),
        (&filler, &colours, "filler and colours"),
        (&filler, &translated, "filler and translations"),
        // A joiner splits a command in two: it can be nothing else.
        (&joiners, &filler, "joiners and filler"),
        (&joiners, &kinds, "joiners and kinds"),
        (&joiners, &colours, "joiners and colours"),
        (&joiners, &states, "joiners and states"),
        (&joiners, &verbs, "joiners and verbs"),
        // A colour before a kind is a name; anywhere else it is set: it names no kind or state.
        (&colours, &kinds, "colours and kinds"),
        (&colours, &states, "colours and states"),
        // A word that opens a question is no verb, or every question would be a command.
        (&openers, &verbs, "question openers and verbs"),
        // A trailing word that says what to do names no device.
        (&trailing, &kinds, "trailing words and kinds"),
        // "All the lights" and "everything in the kitchen" are different requests.
        (&every, &everything, "every and everything"),
    ];
    for (a, b, what) in rules {
        let both: Vec<&&str> = a.intersection(b).collect();
        assert!(both.is_empty(), "{what}: {both:?}");
    }
}

#[test]
fn counts_take_their_plural_form_in_every_language() {
    let held = Held {
        key: "unlock",
        names: "X",
        many: false,
    };
    let wrong_pin = |lang: Lang, n| (lang.lexicon().says.pin_wrong)(&held, n);
    let items = |lang: Lang, n| (lang.lexicon().says.items)("L", n, "a");
    let cases: [(Lang, u32, &str, &str); 13] = [
        (Lang::En, 1, "(1 attempt left)", "has 1 item:"),
        (Lang::En, 2, "(2 attempts left)", "has 2 items:"),
        (Lang::De, 1, "(noch 1 Versuch)", "hat 1 Eintrag:"),
        (Lang::De, 2, "(noch 2 Versuche)", "hat 2 Einträge:"),
        (Lang::Fr, 1, "(encore 1 essai)", "contient 1 élément :"),
        (Lang::Fr, 2, "(encore 2 essais)", "contient 2 éléments :"),
        (Lang::Pl, 1, "(pozostała 1 próba)", "L: 1 pozycja:"),
        (Lang::Pl, 2, "(pozostały 2 próby)", "L: 2 pozycje:"),
        (Lang::Pl, 4, "(pozostały 4 próby)", "L: 4 pozycje:"),
        (Lang::Pl, 5, "(pozostało 5 prób)", "L: 5 pozycji:"),
        (Lang::Pl, 12, "(pozostało 12 prób)", "L: 12 pozycji:"),
        (Lang::Pl, 22, "(pozostały 22 próby)", "L: 22 pozycje:"),
        (Lang::Pl, 25, "(pozostało 25 prób)", "L: 25 pozycji:"),
    ];
    for (lang, n, pin, listed) in cases {
        assert!(
            wrong_pin(lang, n).contains(pin),
            "{lang:?} {n}: {}",
            wrong_pin(lang, n)
        );
        assert!(
            items(lang, n as usize).contains(listed),
            "{lang:?} {n}: {}",
            items(lang, n as usize)
        );
    }
    // Every language's rule: 1 is "one", 2 and 5 are not; French counts 0 as one, the others do not.
    for l in LEXICONS {
        assert_eq!((l.plural)(1), Plural::One, "{:?}", l.lang);
        assert_ne!((l.plural)(2), Plural::One, "{:?}", l.lang);
        assert_eq!((l.plural)(5), Plural::Many, "{:?}", l.lang);
        assert_eq!(
            (l.plural)(0) == Plural::One,
            l.lang == Lang::Fr,
            "{:?}",
            l.lang
        );
    }
}

/// Every text of a lexicon's `Says`, filled with names as HomeClaw fills them; `true` marks a
/// whole sentence (it ends as one). The destructuring names every field, so a new text cannot
/// be left out of the checks below (those bound to `_` are written by [`held_texts`],
/// [`read_texts`] and [`parts`]).
fn every_text(says: &Says) -> Vec<(String, bool)> {
    every_text_naming(says, "Front Door", "Kitchen Lights, Bed Light")
}

/// [`every_text`] with the names a household gave its devices: `one`, and `two` (a list).
/// The service keys whose texts are checked.
const KEYS: [&str; 13] = [
    "turn_on",
    "turn_off",
    "toggle",
    "open",
    "close",
    "lock",
    "unlock",
    "start",
    "pause",
    "disarm",
    "arm",
    "run",
    "set_temperature",
];

fn every_text_naming(says: &Says, one: &str, two: &str) -> Vec<(String, bool)> {
    let Says {
        nothing_changed,
        no_room_here,
        conditional,
        condition_unmet,
        nothing_matches,
        nothing_to_answer,
        not_exposed,
        filtered_out,
        did_words,
        did,
        set_value,
        colour_names: _,
        mode_names: _,
        added,
        to_do: _,
        dry_run: _,
        not_confirmed,
        unfinished_nothing_changed,
        unfinished,
        stuck,
        reset,
        ask_approval: _,
        approval_title: _,
        approval_notice: _,
        approval_buttons: _,
        declined: _,
        pin_missing: _,
        pin_cancelled: _,
        pin_wrong: _,
        pin_required_here: _,
        not_run: _,
        which_device,
        do_you_mean,
        which_of,
        another: _,
        in_room: _,
        could_not_answer,
        could_not_read,
        items: _,
        weekdays: _,
        months: _,
        date: _,
        today: _,
        tomorrow: _,
        rest_of_today: _,
        next_7_days: _,
        nothing_on: _,
        at_place: _,
        all_day: _,
        events_counted: _,
        conditions: _,
        humidity: _,
        wind: _,
        no_forecast: _,
        chance_of_rain: _,
    } = says;
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut sentence = |text: String| out.push((text, true));
    for s in [
        *nothing_changed,
        *no_room_here,
        *conditional,
        *unfinished_nothing_changed,
        *unfinished,
        *stuck,
        *reset,
        *which_device,
        *could_not_answer,
    ] {
        sentence(s.to_owned());
    }
    for f in [
        nothing_matches,
        nothing_to_answer,
        not_exposed,
        filtered_out,
        do_you_mean,
        could_not_read,
    ] {
        sentence(f("kitchen lamp"));
    }
    for (_, words) in *did_words {
        sentence(did(words, two));
    }
    sentence(set_value(one, "50%"));
    sentence(condition_unmet("Garage Door is closed"));
    sentence(added("milk", "Shopping List"));
    sentence(not_confirmed(two, "Bed Light: off"));
    sentence(which_of(one, "Back Door"));
    for text in read_texts(says) {
        sentence(text);
    }
    for text in held_texts(says, one, two) {
        sentence(text);
    }
    out.extend(parts(says, one).into_iter().map(|text| (text, false)));
    out
}

/// The texts about an action held for approval (and a dry run's), for every key.
fn held_texts(says: &Says, one: &str, two: &str) -> Vec<String> {
    let Says {
        dry_run,
        to_do,
        ask_approval,
        approval_notice,
        declined,
        pin_missing,
        pin_cancelled,
        pin_wrong,
        pin_required_here,
        not_run,
        ..
    } = says;
    let mut out = Vec::new();
    for why in [
        NotRun::Expired,
        NotRun::AlreadyAnswered,
        NotRun::Unknown,
        NotRun::Denied,
        NotRun::Failed,
    ] {
        out.push(not_run(why).to_owned());
    }
    for key in KEYS {
        out.push(dry_run(&to_do(key, one)));
        for (names, many) in [(one, false), (two, true)] {
            let held = Held { key, names, many };
            for by_voice in [true, false] {
                for phone in [true, false] {
                    out.push(ask_approval(&held, Ways { by_voice, phone }));
                }
            }
            out.push(approval_notice(&held, true));
            out.push(approval_notice(&held, false));
            out.push(declined(&held));
            out.push(pin_missing(&held));
            out.push(pin_cancelled(&held));
            out.push(pin_wrong(&held, 2));
            out.push(pin_required_here(&held, true));
            out.push(pin_required_here(&held, false));
        }
    }
    out
}

/// The sentences written from what a read returned (a list, a calendar, the weather).
fn read_texts(says: &Says) -> Vec<String> {
    let Says {
        items,
        nothing_on,
        events_counted,
        no_forecast,
        today,
        tomorrow,
        ..
    } = says;
    vec![
        items("Shopping List", 2, "milk, eggs"),
        items("Shopping List", 0, ""),
        nothing_on("Family", today),
        events_counted(2, "Family", tomorrow, "Dinner 18:00, Film 20:00"),
        no_forecast("Home"),
    ]
}

/// The texts that are parts of a sentence (names, buttons, labels).
fn parts(says: &Says, one: &str) -> Vec<String> {
    let Says {
        to_do,
        colour_names,
        mode_names,
        conditions,
        approval_buttons,
        weekdays,
        months,
        approval_title,
        another,
        rest_of_today,
        next_7_days,
        all_day,
        wind,
        in_room,
        date,
        at_place,
        humidity,
        chance_of_rain,
        ..
    } = says;
    let mut out = Vec::new();
    for key in KEYS {
        out.push(to_do(key, one));
    }
    for (_, words) in colour_names.iter().chain(*mode_names).chain(*conditions) {
        out.push((*words).to_owned());
    }
    for s in approval_buttons.iter().chain(weekdays).chain(months) {
        out.push((*s).to_owned());
    }
    for s in [
        *approval_title,
        *another,
        *rest_of_today,
        *next_7_days,
        *all_day,
        *wind,
    ] {
        out.push(s.to_owned());
    }
    out.push(in_room(one, "Kitchen"));
    out.push(date(weekdays[0], 3, months[0]));
    out.push(at_place("Home"));
    out.push(humidity("40"));
    out.push(chance_of_rain("20"));
    out
}

/// What a person is told names things by their names: an entity id, a service name or an
/// approval id belongs to the trace and the API's fields; and a sentence ends once.
#[test]
fn no_text_a_person_reads_carries_an_id_or_ends_twice() {
    let id_like = regex::Regex::new(r"\b[a-z][a-z0-9]*\.[a-z0-9]+|_").unwrap();
    for l in LEXICONS {
        let texts = every_text(l.says);
        assert!(texts.len() > 150, "{:?}: {}", l.lang, texts.len());
        for (text, whole) in texts {
            assert!(!id_like.is_match(&text), "{:?}: {text}", l.lang);
            assert!(!text.contains(".."), "{:?}: {text}", l.lang);
            assert!(!text.contains("  "), "{:?}: {text:?}", l.lang);
            if whole {
                assert_eq!(text, text.trim(), "{:?}", l.lang);
                assert!(
                    text.ends_with(['.', '?', '!']),
                    "{:?}: not a whole sentence: {text}",
                    l.lang
                );
            }
        }
    }
}

/// Names as households write them (ending in a vowel, with an apostrophe, a number, a word of
/// their own language) never bend a sentence: each stays as written, no sentence ends twice,
/// and a reply in German, French or Polish has no English word of HomeClaw's in it.
#[test]
fn awkward_names_stay_as_written_and_replies_keep_their_language() {
    let names = [
        ("Łazienka", "Salon, Bad"),
        ("Lampe d'Anna", "Łazienka 2, Salon"),
        ("Bad", "Küche, Lampe d'Anna"),
        ("Radio 2", "Bad, Łazienka"),
    ];
    // HomeClaw's own English words that would betray a sentence left untranslated.
    let english = [
        "the", "and", "done", "press", "approve", "approval", "turned", "your", "please",
        "nothing", "could", "with", "has", "have", "heating", "cooling", "stays", "locked", "dock",
        "phone",
    ];
    // HomeClaw's own internal words: a person hears about devices, rooms and actions.
    let internal = [
        "llm",
        "provider",
        "exposure",
        "satellite",
        "satellites",
        "satelliten",
        "satelity",
        "entity",
        "entities",
        "trace",
        "dry",
        "probelauf",
    ];
    for l in LEXICONS {
        for (text, _) in every_text(l.says) {
            for word in fold(&text).split_whitespace() {
                assert!(
                    !internal.contains(&word),
                    "{:?}: internal word \"{word}\" in: {text}",
                    l.lang
                );
            }
        }
        for (one, two) in names {
            for (text, whole) in every_text_naming(l.says, one, two) {
                assert!(!text.contains(".."), "{:?}: {text}", l.lang);
                assert!(!text.contains(" ."), "{:?}: {text}", l.lang);
                if whole && text.contains(one) {
                    // The name as written, never declined or cut ("Łazienkę", "Lampe d'Ann").
                    let at = text.find(one).unwrap();
                    let after = text[at + one.len()..].chars().next();
                    assert!(
                        after.is_none_or(|c| !c.is_alphanumeric()),
                        "{:?}: {text}",
                        l.lang
                    );
                }
                if l.lang == Lang::En {
                    continue;
                }
                let without_names = text.replace(one, " ").replace(two, " ");
                for word in fold(&without_names).split_whitespace() {
                    assert!(
                        !english.contains(&word),
                        "{:?}: English \"{word}\" in: {text}",
                        l.lang
                    );
                }
            }
        }
    }
}
