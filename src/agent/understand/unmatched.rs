//! An action whose words point at nothing in the home ("turn on the sauna", "włącz pompę w
//! basenie"). With `agent.named_targets` no call the model could make would pass (every target
//! must be something the words point at), so asking it only costs the person seconds before
//! the same "nothing found": the answer is given at once, naming the words, or saying why a
//! device Home Assistant has is kept from HomeClaw.

use super::intent::{Intent, is_every, is_filler, is_state_word};
use super::mood::Reading;
use super::target::{Pointing, in_hay, known_word, names_in_home, split_compound};
use crate::ha::registry::{Entity, Hidden, Registry};
use crate::ha::search::domain_of_word;
use crate::lang::{LEXICONS, Lang, Lexicon, Words, any_has, named_by};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unmatched {
    /// A device Home Assistant has but keeps from HomeClaw, with its name.
    Hidden { reason: Hidden, name: String },
    /// Nothing at all: the person's own words for the target.
    Nothing { words: String },
    /// A question about the state of something this home does not have ("is guest mode
    /// on?"): the person's own words for it.
    NothingAsked { words: String },
}

/// Why the command can act on nothing (`before`, the command said before it, may name what
/// "it" is), or `None` when something might be meant. Only single actions with target words of
/// their own qualify, and yes/no questions about a state; "send" may mean a message, which
/// needs no device.
pub fn unmatched(
    command: &Reading,
    before: Option<&str>,
    registry: &Registry,
) -> Option<Unmatched> {
    let question = asks_a_state(command);
    let target = target_words(command, question)?;
    let pointing: Vec<Pointing> = std::iter::once(Pointing::of_reading(command, registry))
        .chain(before.map(|t| Pointing::new(t, registry)))
        .collect();
    let pointed = registry
        .entities()
        .any(|e| pointing.iter().any(|p| p.at(e, registry)));
    if pointed && question {
        return None;
    }
    if pointed {
        // Devices of the kind exist, but not the one the words single out.
        let (_, lang, _) = command.intent()?;
        let (first, last) = unfound_modifier(&command.words, &target, lang, registry)?;
        return Some(Unmatched::Nothing {
            words: span(command, first, last),
        });
    }
    if let Some((reason, name)) = registry
        .hidden_entities()
        .find(|e| pointing[0].at(e, registry) && all_said_of(command, &target, e))
        .and_then(|e| registry.hidden(&e.entity_id))
    {
        return Some(Unmatched::Hidden {
            reason,
            name: name.to_owned(),
        });
    }
    Some(nothing(command, &target, question))
}

/// Whether every word of the target says something of `entity`: its name, its room or its
/// kind. A device kept from HomeClaw is named as the reason only when the words are about it
/// and nothing else: "ist Thomas zu Hause" shares "Hause" with the automation "Gute Nacht
/// Haus", but Thomas is no part of it, and "not exposed" would be a false answer.
fn all_said_of(command: &Reading, target: &[usize], entity: &Entity) -> bool {
    target.iter().all(|&i| {
        let word = command.words[i].as_str();
        any_has(|l| l.articles, word)
            || any_has(|l| l.stand_ins, word)
            || domain_of_word(word) == Some(entity.domain())
            || in_hay(entity, word)
    })
}

/// The words that ask, in a yes/no question: "is", "on", "czy", "jest".
fn asking(word: &str) -> bool {
    any_has(|l| l.question_filler, word)
        || any_has(|l| l.yes_no_openers, word)
        || any_has(|l| l.be, word)
        || is_state_word(word)
}

/// The indices of the words that say what the command is about: not its verb (or, in a
/// question, not the words that ask), no filler; `None` when it has none of its own ("turn
/// it off": "it" points at what was said before) or is not a command this rule reads.
fn target_words(command: &Reading, question: bool) -> Option<Vec<usize>> {
    let words = &command.words;
    let used = if question {
        Vec::new()
    } else if command.is_single_action() {
        let (verb, _, used) = command.intent()?;
        if matches!(verb, Intent::Dock) {
            return None;
        }
        used
    } else {
        return None;
    };
    let target: Vec<usize> = (0..words.len())
        .filter(|i| !used.contains(i))
        .filter(|&i| {
            let w = words[i].as_str();
            let asks = question && asking(w);
            !(asks || is_filler(w) || is_every(w) || w.parse::<f64>().is_ok())
        })
        .collect();
    // "it" alone points at what was said before; an article that is also a stand-in ("die"
    // in "Schalte die Sauna ein") does not when other words follow.
    let stand_ins = target.iter().all(|&i| any_has(|l| l.stand_ins, &words[i]));
    (!stand_ins).then_some(target)
}

/// Nothing at all is meant: the person's words for it, from the first that is no article or
/// stand-in; a question's run to the last that does not ask ("guest *mode*" though "mode"
/// alone names nothing).
fn nothing(command: &Reading, target: &[usize], question: bool) -> Unmatched {
    let words = &command.words;
    let first = target
        .iter()
        .copied()
        .find(|&i| !any_has(|l| l.stand_ins, &words[i]) && !any_has(|l| l.articles, &words[i]))
        .unwrap_or(target[0]);
    if question {
        let last = (first..words.len())
            .rev()
            .find(|&i| !asking(&words[i]))
            .unwrap_or(first);
        Unmatched::NothingAsked {
            words: span(command, first, last),
        }
    } else {
        Unmatched::Nothing {
            words: span(command, first, target[target.len() - 1]),
        }
    }
}

/// A yes/no question about one state ("is guest mode on?", "czy brama jest otwarta?"): its
/// answer needs a device, and one the words point at nowhere is not there to read.
fn asks_a_state(command: &Reading) -> bool {
    let words = &command.words;
    command.is_question()
        && !command.is_action()
        && words
            .first()
            .is_some_and(|w| any_has(|l| l.yes_no_openers, w))
        && words.iter().filter(|w| is_state_word(w)).count() == 1
}

/// A kind word, or a word of a device's name, with a word beside it in the place where the
/// language says which one ("the *hallway* heater", "ogrzewanie *podłogowe*", "*Haupt*ventil",
/// "the door to the *basement*") that names nothing in this home nor anything the lexicons
/// know: the person means a device this home does not have,
/// and a device of the kind elsewhere would be the wrong one. The span of the two words, or
/// `None` when every such word is accounted for.
fn unfound_modifier(
    words: &[String],
    target: &[usize],
    lang: Lang,
    registry: &Registry,
) -> Option<(usize, usize)> {
    let before = matches!(lang, Lang::En | Lang::De);
    let strange = |i: usize| target.contains(&i) && names_nothing(&words[i], registry);
    target.iter().copied().find_map(|i| {
        let word = words[i].as_str();
        // A name word in another language counts as it translates ("pompę" is the heat pump's).
        let head = domain_of_word(word).is_some() || names_in_home(word, registry);
        if !head {
            // "Hauptventil": a compound whose head names nothing and whose tail is a kind.
            let compound = lang == Lang::De
                && names_nothing(word, registry)
                && crate::text::compound_cuts(word, 3, 4).any(|(head, tail)| {
                    domain_of_word(tail).is_some() && names_nothing(head, registry)
                });
            return compound.then_some((i, i));
        }
        if before && i > 0 && strange(i - 1) {
            return Some((i - 1, i));
        }
        // After it, past a preposition ("the door to the basement", "drzwi do piwnicy"), or
        // right after it where an adjective follows its noun ("ogrzewanie podłogowe").
        // Prepositions and articles; the short ones no list holds ("to", "do", "du") too.
        let linking = |w: &str| {
            w.chars().count() <= 3
                || any_has(|l| l.place_prepositions, w)
                || any_has(|l| l.articles, w)
                || any_has(|l| l.stopwords, w)
        };
        let next = (i + 1..words.len()).find(|&j| !linking(&words[j]))?;
        let linked = next > i + 1;
        ((linked || !before) && strange(next)).then_some((i, next))
    })
}

/// Lexicon lists of words that say something other than which device ("the", "both", "open",
/// "please"): beside a kind word they are no name the home lacks.
const NOT_NAMES: [fn(&Lexicon) -> Words; 17] = [
    |l| l.stopwords,
    |l| l.articles,
    |l| l.place_prepositions,
    |l| l.after,
    |l| l.please,
    |l| l.courtesy,
    |l| l.stand_ins,
    |l| l.floor_words,
    |l| l.places,
    |l| l.both,
    |l| l.everything,
    |l| l.except,
    |l| l.relatives,
    |l| l.which,
    |l| l.any,
    |l| l.lit,
    |l| l.question_filler,
];

/// A word that names nothing here and that no lexicon knows as a word of its own (an article,
/// a kind, a place, a state, a name it translates, a number).
fn names_nothing(word: &str, registry: &Registry) -> bool {
    let lexicon_word = NOT_NAMES.iter().any(|list| any_has(*list, word))
        || named_by(|l| l.states, word).is_some()
        || named_by(|l| l.colours, word).is_some()
        || LEXICONS
            .iter()
            .any(|l| l.intents.iter().any(|(phrase, _)| phrase.contains(&word)));
    word.chars().count() > 2
        && word.parse::<f64>().is_err()
        && !is_filler(word)
        && !is_every(word)
        && !lexicon_word
        && !known_word(word)
        && !names_in_home(word, registry)
        && split_compound(word, registry).is_none()
}

/// The person's own words from folded word `first` to `last` (the pieces that gave them),
/// punctuation at the ends dropped.
fn span(command: &Reading, first: usize, last: usize) -> String {
    let kept: Vec<&str> = (0..command.pieces.len())
        .filter(|&i| {
            let words = &command.pieces[i].words;
            words.end > first && words.start <= last
        })
        .map(|i| command.piece(i))
        .collect();
    kept.join(" ")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_owned()
}
