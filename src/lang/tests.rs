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
    let wrong_pin = |lang: Lang, n| lang.says().pin_wrong(&held, n);
    let items = |lang: Lang, n| lang.says().items("L", n, "a");
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
