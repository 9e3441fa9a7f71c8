//! The files of HomeClaw's sentences: each reads, has every text English has with the same
//! placeholders, names only placeholders the code fills, and says what a person should read.

use std::collections::BTreeSet;

use super::*;
use crate::lang::LEXICONS;
use crate::text::fold;

/// A file's texts, flattened: each text's path and template; a list's entries as parts.
fn leaves(texts: &Texts) -> Vec<(String, &str)> {
    fn walk<'a>(prefix: &str, node: &'a Node, out: &mut Vec<(String, &'a str)>) {
        match node {
            Node::Text(text) => out.push((prefix.to_owned(), text)),
            Node::List(items) => out.extend(items.iter().map(|i| (prefix.to_owned(), i.as_str()))),
            Node::Table(table) => {
                for (key, inner) in table {
                    walk(&format!("{prefix}.{key}"), inner, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (key, node) in texts {
        walk(key, node, &mut out);
    }
    out
}

fn matches(pattern: &str, path: &str) -> bool {
    let (p, k): (Vec<_>, Vec<_>) = (pattern.split('.').collect(), path.split('.').collect());
    p.len() == k.len() && p.iter().zip(&k).all(|(p, k)| *p == "*" || p == k)
}

/// The placeholders and role the code gives the text at a path.
fn spec(path: &str) -> Option<(&'static [&'static str], Role)> {
    TEXTS
        .iter()
        .find(|(pattern, ..)| matches(pattern, path))
        .map(|(_, placeholders, role)| (*placeholders, *role))
}

/// A placeholder as the code knows it: `{To_do}` is `{to_do}`, and a held action's noun
/// (`doing`) stands where another language says its infinitive.
fn normalised(name: &str) -> String {
    let lower = name.to_lowercase();
    if lower == "doing" {
        "to_do".into()
    } else {
        lower
    }
}

fn placeholder_set(template: &str) -> BTreeSet<String> {
    placeholders(template).into_iter().map(normalised).collect()
}

fn file(lang: Lang) -> Texts {
    file_of(lang.lexicon().tag)
}

fn file_of(tag: &str) -> Texts {
    let (_, yaml) = FILES.iter().find(|(t, _)| *t == tag).unwrap();
    read(yaml).unwrap_or_else(|e| panic!("{tag}: {e}"))
}

/// The plural categories a language's rule gives counts from 1 on.
fn categories(lang: Lang) -> BTreeSet<&'static str> {
    (1..=200)
        .map(|n| category((lang.lexicon().plural)(n)))
        .collect()
}

#[test]
fn every_language_has_a_file_and_every_file_reads() {
    for l in LEXICONS {
        assert!(FILES.iter().any(|(tag, _)| *tag == l.tag), "{:?}", l.lang);
    }
    for (tag, _) in FILES {
        assert!(!file_of(tag).is_empty(), "{tag}");
        assert!(texts(tag).is_some(), "{tag}");
    }
    // A region's tag reads its language's file; a language without one has none.
    assert!(std::ptr::eq(texts("de-CH").unwrap(), texts("de").unwrap()));
    assert!(texts("sv").is_none());
}

#[test]
fn a_broken_file_is_a_clear_error() {
    assert_eq!(read("today: 7"), Err(Error::Shape("today".into())));
    assert_eq!(
        read("did:\n  turn_on: [1]"),
        Err(Error::Shape("did.turn_on".into()))
    );
    assert!(matches!(read("did: \"unclosed"), Err(Error::Yaml(_))));
    assert!(matches!(read("a: b\n---\nc: d"), Err(Error::Yaml(_))));
}

#[test]
fn every_language_has_every_text_of_english_with_its_placeholders() {
    let english = file(Lang::En);
    let optional = |path: &str| OPTIONAL.iter().any(|p| matches(p, path));
    let counted = |path: &str| {
        COUNTED.iter().any(|key| {
            path.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|c| ["one", "few", "many"].contains(&c))
        })
    };
    let english_leaves: Vec<(String, &str)> = leaves(&english);
    for l in LEXICONS {
        let texts = file(l.lang);
        let ours = leaves(&texts);
        let paths: BTreeSet<&str> = ours.iter().map(|(p, _)| p.as_str()).collect();
        for (path, template) in &english_leaves {
            if optional(path) || counted(path) {
                continue;
            }
            assert!(paths.contains(path.as_str()), "{:?} lacks {path}", l.lang);
            let theirs = ours
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, t)| *t)
                .unwrap();
            assert_eq!(
                placeholder_set(theirs),
                placeholder_set(template),
                "{:?} {path}: {theirs}",
                l.lang
            );
        }
        // A counted text has exactly the language's categories, each with English's
        // placeholders.
        for key in COUNTED {
            let have: BTreeSet<&str> = ours
                .iter()
                .filter_map(|(p, _)| p.strip_prefix(key)?.strip_prefix('.'))
                .filter(|c| ["one", "few", "many"].contains(c))
                .collect();
            assert_eq!(have, categories(l.lang), "{:?} {key}", l.lang);
            let english_many = at(&english, &[key, "many"]);
            let Some(Node::Text(english_many)) = english_many else {
                panic!("English {key}.many")
            };
            for c in have {
                let Some(Node::Text(text)) = at(&texts, &[key, c]) else {
                    unreachable!()
                };
                assert_eq!(
                    placeholder_set(text),
                    placeholder_set(english_many),
                    "{:?} {key}.{c}",
                    l.lang
                );
            }
        }
        for (key, len) in LISTS {
            match texts.get(*key) {
                Some(Node::List(items)) => assert_eq!(items.len(), *len, "{:?} {key}", l.lang),
                other => panic!("{:?} {key}: {other:?}", l.lang),
            }
        }
    }
}

#[test]
fn every_text_is_one_the_code_says_and_names_only_its_placeholders() {
    for (tag, _) in FILES {
        for (path, template) in leaves(&file_of(tag)) {
            let (allowed, _) =
                spec(&path).unwrap_or_else(|| panic!("{tag}: {path} is no text HomeClaw says"));
            for name in placeholders(template) {
                assert!(
                    allowed.contains(&name.to_lowercase().as_str()),
                    "{tag} {path}: {{{name}}} is never filled"
                );
            }
            assert!(!template.trim().is_empty(), "{tag} {path} is empty");
        }
    }
}

#[test]
fn placeholders_are_filled_capitalised_where_written_so_and_unknown_ones_stay() {
    let args = [("names", "front door"), ("to_do", "unlock front door")];
    assert_eq!(
        fill("{To_do}? {names}.", &args),
        "Unlock front door? front door."
    );
    assert_eq!(fill("{nobody} {names", &args), "{nobody} {names");
    assert_eq!(fill("no placeholder", &args), "no placeholder");
    assert_eq!(placeholders("{a} and {B}, {c"), ["a", "B"]);
}

#[test]
fn a_text_a_language_lacks_is_said_in_english_but_a_value_word_is_not() {
    let own: &'static Texts = Box::leak(Box::new(
        read("nothing_changed: Nic.\ncolours:\n  red: czerwony").unwrap(),
    ));
    let says = Says {
        lang: Lang::Pl,
        own,
        english: texts("en").unwrap(),
    };
    assert_eq!(says.nothing_changed(), "Nic.");
    assert_eq!(says.stuck(), Lang::En.says().stuck());
    assert_eq!(says.colour("red"), Some("czerwony"));
    // "blue" in English inside a Polish sentence would betray it: no word, not English's.
    assert_eq!(says.colour("blue"), None);
    assert_eq!(says.did("turn_on", "X"), "Turned on X.");
}

#[test]
fn a_declined_action_says_what_stays_as_it_was_where_the_language_has_it() {
    let held = |key, many| Held {
        key,
        names: "Front Door",
        many,
    };
    let en = Lang::En.says();
    assert_eq!(
        en.declined(&held("unlock", false)),
        "OK, Front Door stays locked."
    );
    assert_eq!(
        en.declined(&held("unlock", true)),
        "OK, Front Door stay locked."
    );
    assert_eq!(
        en.declined(&held("turn_on", false)),
        "OK, I will not turn on Front Door. Nothing was changed."
    );
    assert_eq!(
        Lang::Pl.says().declined(&held("unlock", false)),
        "Dobrze, anulowałem odblokowanie Front Door. Niczego nie zmieniłem."
    );
    assert_eq!(
        Lang::De.says().pin_cancelled(&held("unlock", false)),
        "Zu oft eine falsche PIN: „Front Door entriegeln“ ist abgebrochen. Nichts wurde geändert."
    );
}

/// The service keys whose held texts are checked.
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

/// Every text of a language, filled as HomeClaw fills it: `one` a device's name, `two` a list
/// of them; held actions' texts for every key.
fn every_text(lang: Lang, one: &str, two: &str) -> Vec<(String, Role)> {
    let says = lang.says();
    let samples = [
        ("name", one),
        ("names", two),
        ("words", "kitchen lamp"),
        ("seen", "Garage Door is closed"),
        ("value", "50%"),
        ("item", "milk"),
        ("list", "Shopping List"),
        ("first", one),
        ("last", "Back Door"),
        ("area", "Kitchen"),
        ("count", "2"),
        ("items", "milk, eggs"),
        ("weekday", says.weekday(0)),
        ("day", "3"),
        ("month", says.month(0)),
        ("calendar", "Family"),
        ("window", says.today()),
        ("place", "Home"),
        ("events", "Dinner 18:00, Film 20:00"),
        ("percent", "40"),
        ("left", "2"),
    ];
    let mut out = Vec::new();
    for (path, template) in leaves(texts(lang.lexicon().tag).unwrap()) {
        let (allowed, role) = spec(&path).unwrap();
        if allowed.contains(&"to_do") {
            for key in KEYS {
                for (names, many) in [(one, false), (two, true)] {
                    let held = Held { key, names, many };
                    out.push((says.held(template, &held, &[("left", "2")]), role));
                }
            }
        } else {
            out.push((fill(template, &samples), role));
        }
    }
    out
}

/// What a person is told names things by their names: an entity id, a service name or an
/// approval id belongs to the trace and the API's fields; and a sentence ends once.
#[test]
fn no_text_a_person_reads_carries_an_id_or_ends_twice() {
    let id_like = regex::Regex::new(r"\b[a-z][a-z0-9]*\.[a-z0-9]+|_|\{|\}").unwrap();
    for l in LEXICONS {
        let texts = every_text(l.lang, "Front Door", "Kitchen Lights, Bed Light");
        assert!(texts.len() > 300, "{:?}: {}", l.lang, texts.len());
        for (text, role) in texts {
            assert!(!id_like.is_match(&text), "{:?}: {text}", l.lang);
            assert!(!text.contains(".."), "{:?}: {text}", l.lang);
            assert!(!text.contains("  "), "{:?}: {text:?}", l.lang);
            if role == Role::Sentence {
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
        for (text, _) in every_text(l.lang, "Front Door", "Kitchen Lights, Bed Light") {
            for word in fold(&text).split_whitespace() {
                assert!(
                    !internal.contains(&word),
                    "{:?}: internal word \"{word}\" in: {text}",
                    l.lang
                );
            }
        }
        for (one, two) in names {
            for (text, role) in every_text(l.lang, one, two) {
                assert!(!text.contains(".."), "{:?}: {text}", l.lang);
                assert!(!text.contains(" ."), "{:?}: {text}", l.lang);
                if role == Role::Sentence && text.contains(one) {
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

/// The table in `docs/benchmarks.md` says, per language, how many texts its file has.
#[test]
fn the_benchmarks_page_counts_each_languages_texts() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/benchmarks.md"))
        .unwrap();
    let total = file_of("en").len();
    for (tag, _) in FILES {
        let row = page
            .lines()
            .find(|line| line.starts_with(&format!("| `{tag}`")))
            .unwrap_or_else(|| panic!("no row for {tag}"));
        let count = format!("| {} of {total}", file_of(tag).len());
        assert!(row.contains(&count), "{tag}: {row} (expected {count})");
    }
}
