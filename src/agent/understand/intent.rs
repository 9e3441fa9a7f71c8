//! A command's intent: which of the lexicons' verbs (and the value with it) its words say, and
//! the word classes a reading needs (fillers, joiners, "every"). Every word comes from the
//! languages' lexicons ([`crate::lang`]); this module holds none.

use crate::ha::search::domain_of_word;
pub use crate::lang::{Intent, Lang};
use crate::lang::{LEXICONS, any_has, lang_of_words, named_by};

use super::value::{colour, degrees, percentage};

use Intent::*;

/// Words that carry the request's shape but name no device.
pub(crate) fn is_filler(word: &str) -> bool {
    any_has(|l| l.filler, word) || FOREIGN_FUNCTION_WORDS.contains(&word)
}

/// Articles and prepositions of languages HomeClaw has no lexicon for (Spanish, Dutch,
/// Italian, Portuguese), folded: in a home named in them ("Luz del techo", "Persianas del
/// dormitorio"), "del" names every device and must not make one the words' target.
const FOREIGN_FUNCTION_WORDS: [&str; 22] = [
    "del", "los", "las", "el", "al", "por", "favor", "het", "een", "naar", "voor", "il", "gli",
    "della", "nel", "nella", "dos", "das", "na", "no", "os", "uma",
];

/// Question openers: a question about the home is not an action.
pub(crate) fn is_question_word(word: &str) -> bool {
    any_has(|l| l.question_openers, word)
}

/// Words that make a domain-only command mean every device of that kind.
pub(crate) fn is_every(word: &str) -> bool {
    any_has(|l| l.every, word)
}

/// Whether the word at `i` is "room" after a word for every ("in every room", "in all the
/// rooms", "in allen Räumen"): it names the whole home, not a room called "… Room".
pub(crate) fn is_every_room(words: &[String], i: usize) -> bool {
    any_has(|l| l.any_room, &words[i]) && words[..i].iter().rev().take(2).any(|w| is_every(w))
}

/// Words that join two requests in one command.
pub(crate) fn is_joiner(word: &str) -> bool {
    any_has(|l| l.joiners, word)
}

/// Words for cleaning ("start vacuuming", "clean the living room"): only a vacuum cleans.
pub fn is_cleaning(word: &str) -> bool {
    any_has(|l| l.cleaning, word)
}

/// The kind word a lighting verb stands for ("Illuminate the kitchen": the kitchen's lights).
pub(crate) const LIGHTS: &str = "lights";

/// A verb that gives light opens the command: the lights are meant, named or not.
pub(crate) fn lighting(words: &[String]) -> bool {
    words.first().is_some_and(|w| any_has(|l| l.lighting, w))
}

/// The state a word says ("aus", "zamknięte" folded, "locked"), as Home Assistant writes it.
pub fn state_named(word: &str) -> Option<&'static str> {
    named_by(|l| l.states, word)
}

/// Whether the word says a state in any language.
pub(crate) fn is_state_word(word: &str) -> bool {
    state_named(word).is_some()
}

/// Whether the command is about the water supply: it opens with a watering verb, or names
/// "the water" ("turn off the water in the front yard"), which only a valve answers — but not
/// the water heater.
pub(crate) fn watering(words: &[String]) -> bool {
    let noun = words.iter().enumerate().skip(1).any(|(i, w)| {
        any_has(|l| l.water, w)
            && !words
                .get(i + 1)
                .is_some_and(|next| any_has(|l| l.water_appliances, next))
    });
    noun || words.first().is_some_and(|w| any_has(|l| l.watering, w))
}

/// The folded words, and the index of the word a raw `%` followed (see [`super::pieces::read`]).
pub(crate) fn words_of(text: &str) -> (Vec<String>, Option<usize>) {
    let read = super::pieces::read(text);
    (read.words, read.percent_at)
}

/// The intent, its language and the word positions it used; `None` for none or two. Words
/// several languages share ("pause", "30 %") are in the language the rest of the command is in.
pub(crate) fn intent(
    words: &[String],
    percent_at: Option<usize>,
) -> Option<(Intent, Lang, Vec<usize>)> {
    let (intent, lang, used) = intent_in_words(words, percent_at)?;
    let Some(other) = lang_of_words(words).filter(|l| *l != lang) else {
        return Some((intent, lang, used));
    };
    let lexicon = other.lexicon();
    let said_there = |w: &str| {
        w.parse::<f64>().is_ok()
            || lexicon.intents.iter().any(|(p, _)| p.contains(&w))
            || lexicon.levels.iter().any(|(level, _)| *level == w)
            || lexicon.percent_units.contains(&w)
            || lexicon.degree_units.contains(&w)
            || lexicon.colours.iter().any(|(_, forms)| forms.contains(&w))
    };
    let shared = used.iter().all(|&i| said_there(&words[i]));
    Some((intent, if shared { other } else { lang }, used))
}

/// An intent found in the words: what, in which language, at which words.
type Found = (Intent, Lang, Vec<usize>);

fn intent_in_words(words: &[String], percent_at: Option<usize>) -> Option<Found> {
    // "Please lock the front door": the verb is first after the courtesy.
    let lead = words
        .iter()
        .take_while(|w| any_has(|l| l.please, w))
        .count();
    // "Next", "weiter", "pauza": a player's command said alone.
    if let [word] = &words[lead..]
        && let Some((intent, lang)) = LEXICONS.iter().find_map(|l| {
            l.alone
                .iter()
                .find(|(w, _)| w == word)
                .map(|(_, intent)| (*intent, l.lang))
        })
    {
        return Some((intent, lang, vec![lead]));
    }
    let (mut found, used) = phrase_intents(words, lead);
    separable_intent(words, &used, &mut found);
    if found.is_empty() {
        found.extend(trailing_intent(words, lead));
    }
    settle(words, &mut found);
    with_a_value(words, percent_at, found)
}

/// The lexicons' intent phrases in the words, each at most once; the words they used.
fn phrase_intents(words: &[String], lead: usize) -> (Vec<Found>, Vec<bool>) {
    let mut found: Vec<Found> = Vec::new();
    let mut used = vec![false; words.len()];
    for lexicon in LEXICONS {
        for (phrase, intent) in lexicon.intents {
            let n = phrase.len();
            if let Some(start) = (0..words.len().saturating_sub(n - 1))
                .find(|&s| !used[s] && (0..n).all(|k| words[s + k] == phrase[k]))
            {
                // A later "lock" in "unlock the smart lock" is the device, not a second
                // intent; watering and cleaning verbs are verbs only first ("turn off the
                // water").
                if start > lead
                    && n == 1
                    && (domain_of_word(&words[start]).is_some()
                        || any_has(|l| l.water, phrase[0])
                        || any_has(|l| l.cleaning, phrase[0]))
                {
                    continue;
                }
                (start..start + n).for_each(|k| used[k] = true);
                found.push((*intent, lexicon.lang, (start..start + n).collect()));
            }
        }
    }
    (found, used)
}

/// Separable verbs: the verb, then its particle anywhere later ("schalte das Licht ein",
/// "turn everything off in the bedroom"). The verb with its particle is one intent: "schließ
/// … ab" locks, whatever "schließ" alone would mean.
fn separable_intent(words: &[String], used: &[bool], found: &mut Vec<Found>) {
    if let Some((verb, particles, lang)) = words.iter().enumerate().find_map(|(i, w)| {
        LEXICONS.iter().find_map(|l| {
            l.separable
                .iter()
                .find(|(verbs, _)| verbs.contains(&w.as_str()))
                .map(|(_, particles)| (i, *particles, l.lang))
        })
    }) && !found
        .iter()
        .any(|(_, _, at)| at.len() > 1 && at.contains(&verb))
        && let Some((at, particle)) = words
            .iter()
            .enumerate()
            .skip(verb + 1)
            .rev()
            .filter(|(i, _)| !used[*i])
            .find_map(|(i, w)| particles.iter().find(|(p, _)| p == w).map(|(_, x)| (i, *x)))
    {
        found.retain(|(_, _, at)| !at.contains(&verb));
        found.push((particle, lang, vec![verb, at]));
    }
}

/// "kitchen light off", "all the lights off please", "Garagentor zu": a trailing word that
/// says what to do is the intent.
fn trailing_intent(words: &[String], lead: usize) -> Option<Found> {
    let mut end = words
        .iter()
        .rposition(|w| !any_has(|l| l.after, w))
        .map_or(0, |i| i + 1);
    // "Lights on in the bedroom", "Lights off upstairs": the word that says what to do, then
    // where (after a preposition, or one last word).
    let trailing = |w: &String| {
        LEXICONS
            .iter()
            .any(|l| l.trailing.iter().any(|(t, _)| t == w))
    };
    // One last word is a place only right after "<kind> off", and never a value: "auf" is also
    // "to" ("Stelle das Licht auf blau", "die Jalousie auf 30 %").
    let a_value = |w: &str| {
        !w.chars().all(char::is_alphabetic)
            || is_filler(w)
            || any_has(|l| l.be, w)
            || is_state_word(w)
            || named_by(|l| l.colours, w).is_some()
            || LEXICONS
                .iter()
                .any(|l| l.levels.iter().chain(l.speeds).any(|(word, _)| *word == w))
    };
    let a_place_after = |i: usize| {
        i + 1 == end && i >= 2 && domain_of_word(&words[i - 2]).is_some() && !a_value(&words[i])
    };
    if let Some(place) = (2..end).find(|&i| {
        (any_has(|l| l.place_prepositions, &words[i]) || a_place_after(i))
            && trailing(&words[i - 1])
    }) && !words[..end].last().is_some_and(trailing)
    {
        end = place;
    }
    let last = words[..end].last()?;
    let (intent, lang) = LEXICONS.iter().find_map(|l| {
        l.trailing
            .iter()
            .find(|(w, _)| w == last)
            .map(|(_, i)| (*i, l.lang))
    })?;
    // "Switch the upstairs lights on": a leading "switch" is the verb, not a kind.
    let mut at = vec![end - 1];
    if words.len() > lead + 2 && any_has(|l| l.trailing_verbs, &words[lead]) {
        at.insert(0, lead);
    }
    Some((intent, lang, at))
}

/// What the found intents mean together: a key locks, a device word addresses the device when
/// another verb says what to do, one intent said twice is one.
fn settle(words: &[String], found: &mut Vec<Found>) {
    // "zamknij drzwi na klucz": closed with a key is locked, opened with one unlocked.
    if let [(intent @ (Close | Open), _, at)] = found.as_mut_slice()
        && let Some(key) = words.iter().position(|w| any_has(|l| l.with_a_key, w))
    {
        *intent = if *intent == Close { Lock } else { Unlock };
        at.push(key);
    }
    // "Przełącz Hvac na grzanie": switching to a mode sets the mode; the verb only says
    // "change".
    if let [(Toggle, _, verb), (Mode(_), _, _)] | [(Mode(_), _, _), (Toggle, _, verb)] =
        found.as_slice()
    {
        let verb = verb.clone();
        found.retain(|(intent, ..)| matches!(intent, Mode(_)));
        found[0].2.extend(verb);
    }
    // "Vacuum, return to base": a device word that could be a verb addresses the device when
    // another verb says what to do.
    let a_verb = |at: &[usize]| at.len() > 1 || domain_of_word(&words[at[0]]).is_none();
    if found.len() > 1 && found.iter().any(|(_, _, at)| a_verb(at)) {
        found.retain(|(_, _, at)| a_verb(at));
    }
    // "skip to the next track" says one thing twice.
    while found.len() > 1
        && found.iter().all(|f| f.0 == found[0].0)
        && let Some((_, _, more)) = found.pop()
    {
        found[0].2.extend(more);
    }
}

/// The one intent, with the value the words give it: a colour, a temperature or a
/// percentage says what to do ("set the lights to blue", "21 degrees", "to 50%").
fn with_a_value(
    words: &[String],
    percent_at: Option<usize>,
    mut found: Vec<Found>,
) -> Option<Found> {
    // "Make the bed light red", "set the lights to blue", "turn the lamp on, red".
    let white = found.iter().any(|(i, ..)| matches!(i, White(_)));
    if !white && let Some((css, said_in, at)) = colour(words) {
        return match found.as_slice() {
            [] => Some((Color(css), said_in, vec![at])),
            [(On, lang, used)] => {
                let mut used = used.clone();
                used.push(at);
                Some((Color(css), *lang, used))
            }
            _ => None,
        };
    }
    let percent = percentage(words, percent_at);
    if let Some((n, unit_lang, at)) = degrees(words)
        && percent.is_none()
    {
        // "set the heating to 21 degrees", "ustaw termostat na 21 stopni": the number says what.
        // "Heat up the sauna to 90 degrees": with a temperature, a heating verb only says how.
        let mut at = at;
        at.extend(
            words
                .iter()
                .enumerate()
                .filter(|(_, w)| any_has(|l| l.temperature_verbs, w))
                .map(|(i, _)| i),
        );
        return match found.as_slice() {
            [] => Some((Degrees(n), unit_lang, at)),
            [(On | Off | Open | Close, lang, used)] => {
                let mut used = used.clone();
                used.extend(at);
                Some((Degrees(n), *lang, used))
            }
            _ => None,
        };
    }
    match (found.len(), percent) {
        (0, Some((n, unit_lang, at))) => Some((Percent(n), unit_lang.unwrap_or(Lang::En), at)),
        // "turn the volume down to 50%", "set it on 50%": the number says what.
        (1, Some((n, _, at)))
            if matches!(found[0].0, On | Off | Brighter | Dimmer | Open | Close) =>
        {
            let mut used = found[0].2.clone();
            used.extend(at);
            Some((Percent(n), found[0].1, used))
        }
        (1, None) => found.pop(),
        _ => None,
    }
}

/// "add X to L", "put X on L", "dodaj X do L", "füge X zu L hinzu", "setze X auf L": the
/// prepositions before the list's name and the language, when the command opens with such a
/// verb.
pub(crate) fn add_item_verb(first: &str) -> Option<(&'static [&'static str], Lang)> {
    LEXICONS.iter().find_map(|l| {
        l.add_item
            .iter()
            .find(|(verb, _)| *verb == first)
            .map(|(_, preps)| (*preps, l.lang))
    })
}
