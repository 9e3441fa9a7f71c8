//! Reading a command: its words, its intent and the language it is in. Every word comes from
//! the languages' lexicons ([`crate::lang`]); this module holds none.

use serde_json::{Value, json};

use crate::ha::search::domain_of_word;
pub use crate::lang::{Intent, Lang};
use crate::lang::{
    LEXICONS, Lexicon, Words, any_has, lang_having, lang_of_words, leading_phrase, named_by,
};
use crate::text::fold;

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

/// Whether the person asks rather than tells: a question mark, or a question word first.
pub fn is_question(text: &str) -> bool {
    if text.trim_end().ends_with('?') {
        return true;
    }
    let (words, _) = words_of(text);
    // "Tell me the outside temperature" asks, politely (a lone "please" asks nothing).
    let told_to_tell = leading_phrase(|l| l.question_courtesy, &words)
        .is_some_and(|(n, _)| n >= 2 && n < words.len());
    told_to_tell
        || words
            .first()
            .is_some_and(|w| is_question_word(w) || any_has(|l| l.more_question_openers, w))
}

/// The language a question is in: its first word's, else the one most of its words are in.
pub(crate) fn question_lang_in(words: &[String]) -> Lang {
    match words.first() {
        Some(first) if is_question_word(first) || any_has(|l| l.which, first) => {
            question_lang(first)
        }
        _ => lang_of_words(words).unwrap_or_else(|| question_lang(words.first().map_or("", |w| w))),
    }
}

/// The language a question is in, from its first word.
pub(crate) fn question_lang(first: &str) -> Lang {
    let lists: [fn(&Lexicon) -> Words; 4] = [
        |l| l.question_openers,
        |l| l.which,
        |l| l.state_verbs,
        |l| l.yes_no_openers,
    ];
    lists
        .iter()
        .find_map(|list| lang_having(*list, first))
        .unwrap_or(Lang::En)
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

/// The colour the words name, its language, and where. A colour before a kind word is part of
/// a name ("the white lights", "Entrance Color + White Lights"), not a colour to set.
fn colour(words: &[String]) -> Option<(&'static str, Lang, usize)> {
    words.iter().enumerate().find_map(|(i, w)| {
        if words
            .get(i + 1)
            .is_some_and(|next| domain_of_word(next).is_some())
        {
            return None;
        }
        LEXICONS.iter().find_map(|l| {
            l.colours
                .iter()
                .find(|(_, forms)| forms.contains(&w.as_str()))
                .map(|(css, _)| (*css, l.lang, i))
        })
    })
}

/// The service (and its fields) an intent means for a domain, if it means one.
pub fn service_for(intent: Intent, domain: &str, volume: bool) -> Option<(&'static str, Value)> {
    if volume && domain != "media_player" {
        // "volume" names what to change: only a media player has one.
        return None;
    }
    let none = || json!({});
    let pair = match (intent, domain) {
        (Percent(n), "media_player") if volume => {
            ("volume_set", json!({"volume_level": f64::from(n) / 100.0}))
        }
        (_, "media_player") if volume && !matches!(intent, Mute | Louder | Quieter) => return None,
        (Percent(n), "light") => ("turn_on", json!({"brightness_pct": n})),
        (Percent(n), "cover") => ("set_cover_position", json!({"position": n})),
        (Percent(n), "valve") => ("set_valve_position", json!({"position": n})),
        (Percent(n), "fan") => ("set_percentage", json!({"percentage": n})),
        (
            On,
            "light" | "switch" | "fan" | "media_player" | "input_boolean" | "climate"
            | "humidifier" | "siren",
        ) => ("turn_on", none()),
        (
            Off,
            "light" | "switch" | "fan" | "media_player" | "input_boolean" | "climate"
            | "humidifier" | "siren",
        ) => ("turn_off", none()),
        (Toggle, "light" | "switch" | "fan" | "input_boolean" | "media_player" | "cover") => {
            ("toggle", none())
        }
        (Open, "cover") => ("open_cover", none()),
        (Close, "cover") => ("close_cover", none()),
        (Open | On, "valve") => ("open_valve", none()),
        (Close | Off, "valve") => ("close_valve", none()),
        (Lock, "lock") => ("lock", none()),
        (Unlock, "lock") => ("unlock", none()),
        (Start | Resume | On, "vacuum") => ("start", none()),
        // A robot told to stop or turn off is done cleaning: left where it stopped it is in
        // the way and away from its charger, so it goes home (what the leaderboard's task set
        // expects of "stop the vacuum" too).
        (Dock | Stop | Off, "vacuum") => ("return_to_base", none()),
        (Stop, "media_player") => ("media_stop", none()),
        (Degrees(n), "climate" | "water_heater") => {
            ("set_temperature", json!({"temperature": degrees_value(n)}))
        }
        (Mode(mode), "climate") => ("set_hvac_mode", json!({"hvac_mode": mode.as_str()})),
        (Color(css), "light") => ("turn_on", json!({"color_name": css})),
        (White(kelvin), "light") => ("turn_on", json!({"color_temp_kelvin": kelvin})),
        (Pause, "vacuum") => ("pause", none()),
        (Pause, "media_player") => ("media_pause", none()),
        (Resume | Start, "media_player") => ("media_play", none()),
        (Next, "media_player") => ("media_next_track", none()),
        (Previous, "media_player") => ("media_previous_track", none()),
        (Brighter, "light") => ("turn_on", json!({"brightness_step_pct": STEP})),
        (Dimmer, "light") => ("turn_on", json!({"brightness_step_pct": -STEP})),
        (Louder, "media_player") => ("volume_up", none()),
        (Quieter, "media_player") => ("volume_down", none()),
        (Mute, "media_player") => ("volume_mute", json!({"is_volume_muted": true})),
        _ => return None,
    };
    Some(pair)
}

/// How much brighter or dimmer one step is, in percent of full brightness.
const STEP: i64 = 20;

/// A percentage in the words ("50%", "50 percent", "50 procent"), the language of its unit,
/// and the words it used. `percent_at` is the word a `%` followed in the raw text (folding
/// drops the sign).
pub(crate) fn percentage(
    words: &[String],
    percent_at: Option<usize>,
) -> Option<(u8, Option<Lang>, Vec<usize>)> {
    // "Volume to zero", "half brightness", "Lautstärke auf null": a level said in words, when
    // the words say what the level is of.
    if words.iter().any(|w| any_has(|l| l.level_of, w))
        && let Some((i, n, lang)) = words.iter().enumerate().find_map(|(i, w)| {
            LEXICONS.iter().find_map(|l| {
                l.levels
                    .iter()
                    .find(|(level, _)| level == w)
                    .map(|(_, n)| (i, *n, l.lang))
            })
        })
    {
        return Some((n, Some(lang), vec![i]));
    }
    // "Set the fan to high", "Lüfter auf Stufe hoch": a speed said in words, when the words
    // are about a fan or a speed.
    let about_speed = words
        .iter()
        .any(|w| domain_of_word(w) == Some("fan") || any_has(|l| l.speed_words, w));
    if about_speed
        && let Some((i, n, lang)) = words.iter().enumerate().find_map(|(i, w)| {
            LEXICONS.iter().find_map(|l| {
                l.speeds
                    .iter()
                    .find(|(speed, _)| speed == w)
                    .map(|(_, n)| (i, *n, l.lang))
            })
        })
    {
        let mut at = vec![i];
        at.extend(
            words
                .iter()
                .enumerate()
                .filter(|(_, w)| any_has(|l| l.speed_words, w))
                .map(|(j, _)| j),
        );
        return Some((n, Some(lang), at));
    }
    // "Volume 50", "Lautstärke auf 20": a volume is a share whatever unit is left unsaid.
    let of_volume = words.iter().any(|w| any_has(|l| l.volume, w));
    for (i, w) in words.iter().enumerate() {
        let Ok(n) = w.parse::<u8>() else {
            continue;
        };
        if n > 100 {
            continue;
        }
        let unit = words.get(i + 1);
        if of_volume && unit.is_none_or(|u| lang_having(|l| l.degree_units, u).is_none()) {
            let percent = unit.and_then(|u| lang_having(|l| l.percent_units, u));
            let at = if percent.is_some() {
                vec![i, i + 1]
            } else {
                vec![i]
            };
            return Some((n, percent, at));
        }
        if let Some(lang) = words
            .get(i + 1)
            .and_then(|u| lang_having(|l| l.percent_units, u))
        {
            return Some((n, Some(lang), vec![i, i + 1]));
        }
        if percent_at == Some(i) {
            return Some((n, None, vec![i]));
        }
    }
    None
}

/// A temperature in the words ("21 degrees", "21 stopni", "21 Grad", "21°": [`words_of`]
/// writes a `°` as the word "degrees"), the language of its unit, and the words it used.
/// A temperature as said ("21", "19.5"), in tenths of a degree: 210, 195.
fn tenths(word: &str) -> Option<u16> {
    if !word.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let value: f64 = word.parse().ok()?;
    (0.0..=255.0)
        .contains(&value)
        .then(|| (value * 10.0).round() as u16)
}

pub(crate) fn degrees(words: &[String]) -> Option<(u16, Lang, Vec<usize>)> {
    let with_unit = words.iter().enumerate().find_map(|(i, w)| {
        let n = tenths(w)?;
        let lang = lang_having(|l| l.degree_units, words.get(i + 1)?)?;
        Some((n, lang, vec![i, i + 1]))
    });
    // "Set the target temperature to 22": a whole number after the word for a temperature,
    // within what a thermostat is set to (°C or °F: "the temperature in bedroom 2" names a
    // room); the caller keeps a percentage for what it is.
    with_unit.or_else(|| {
        let (t, lang) = words
            .iter()
            .enumerate()
            .find_map(|(t, w)| Some((t, lang_having(|l| l.temperature_words, w)?)))?;
        let (i, n) = words
            .iter()
            .enumerate()
            .skip(t + 1)
            .find_map(|(i, w)| Some((i, tenths(w)?)))?;
        (50..=950).contains(&n).then(|| (n, lang, vec![t, i]))
    })
}

/// A temperature in tenths as Home Assistant takes it: a whole number when it is one (21),
/// else the decimal (19.5).
pub fn degrees_value(tenths: u16) -> serde_json::Value {
    if tenths.is_multiple_of(10) {
        json!(tenths / 10)
    } else {
        json!(f64::from(tenths) / 10.0)
    }
}

/// A number with one decimal as people write it ("19.5", "19,5", "19,5°"), as one word with a
/// point ("19.5"): folding would make it two words.
fn decimal(raw: &str) -> Option<String> {
    let number = raw.trim_end_matches(|c: char| !c.is_ascii_digit());
    let (whole, fraction) = number.split_once(['.', ','])?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(whole) && whole.len() <= 3 && digits(fraction) && fraction.len() == 1)
        .then(|| format!("{whole}.{fraction}"))
}

/// The folded words, and the index of the word a raw `%` followed.
pub(crate) fn words_of(text: &str) -> (Vec<String>, Option<usize>) {
    let mut words = Vec::new();
    let mut percent_at = None;
    for raw in text.split_whitespace() {
        let has_percent = raw.contains('%');
        if let Some(number) = decimal(raw) {
            words.push(number);
        } else {
            for w in fold(raw).split(' ').filter(|w| !w.is_empty()) {
                words.push(w.to_owned());
            }
        }
        if has_percent && !words.is_empty() {
            percent_at = Some(words.len() - 1);
        }
        if raw.contains('°') {
            words.push("degrees".to_owned());
        }
    }
    (words, percent_at)
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

/// Whether a command asks for an action (one intent, not a question), whatever its target.
pub fn is_action(text: &str) -> bool {
    if let Some(request) = unwrapped_request(text) {
        return is_action(&request);
    }
    let trimmed = text.trim();
    if trimmed.ends_with('?') {
        return false;
    }
    let (words, percent_at) = words_of(trimmed);
    let question = words.first().is_some_and(|w| is_question_word(w));
    let adds = words.first().is_some_and(|w| add_item_verb(w).is_some());
    !question && (adds || intent(&words, percent_at).is_some())
}

/// One action and nothing more: no second request joined on, no question.
pub fn is_single_action(text: &str) -> bool {
    let (words, _) = words_of(text);
    is_action(text)
        && !crate::text::decimal_points(text).contains(',')
        && !words.iter().any(|w| is_joiner(w))
}

/// One request, whether or not its words were understood: no second request joined on by a
/// comma or a joining word, and not a question (unless a polite request).
pub fn is_one_request(text: &str) -> bool {
    let (words, _) = words_of(text);
    !crate::text::decimal_points(text).contains(',')
        && !words.iter().any(|w| is_joiner(w))
        && (is_action(text) || !is_question(text))
}

/// A request said politely ("can you …", "could you please …", "kannst du …", "czy możesz
/// …") or as a wish ("I want the light on"): the request itself, when the rest carries an
/// intent; `None` otherwise (a question about ability or state stays a question).
pub fn unwrapped_request(text: &str) -> Option<String> {
    // Word by word as folding sees them: "Peux-tu" is two words, "l'entrée" too.
    let (raw, folded): (Vec<String>, Vec<String>) = text
        .trim()
        .trim_end_matches(['?', '.', '!', ' '])
        .split_whitespace()
        .flat_map(|w| {
            let pieces: Vec<String> = fold(w).split(' ').map(str::to_owned).collect();
            if pieces.len() == 1 {
                vec![(w.to_owned(), pieces[0].clone())]
            } else {
                pieces.into_iter().map(|p| (p.clone(), p)).collect()
            }
        })
        .unzip();
    let raw: Vec<&str> = raw.iter().map(String::as_str).collect();
    if let Some((n, lang)) = leading_phrase(|l| l.desires, &folded) {
        return desired(&raw[n..], lang);
    }
    let (skip, _) = leading_phrase(|l| l.wrappers, &folded)?;
    let rest: Vec<&str> = raw[skip..]
        .iter()
        .zip(&folded[skip..])
        .filter(|(_, f)| !any_has(|l| l.please, f.trim_matches(|c: char| !c.is_alphanumeric())))
        .map(|(r, _)| *r)
        .collect();
    let rest = rest.join(" ");
    let (words, percent_at) = words_of(&rest);
    intent(&words, percent_at).map(|_| rest)
}

/// The request a wish for a state makes ("the kitchen light on", "światło w kuchni było
/// włączone", "das Küchenlicht an ist"): the state word becomes its verb in the wish's language;
/// `None` when the wish names no state we act on, or asks ("I want to know if …").
fn desired(rest: &[&str], lang: Lang) -> Option<String> {
    let folded: Vec<String> = rest.iter().map(|w| fold(w)).collect();
    if folded.iter().any(|w| any_has(|l| l.asking, w)) {
        return None;
    }
    // "I want to turn on the lights": the wish is already a request.
    let (words, percent_at) = words_of(&rest.join(" "));
    if intent(&words, percent_at).is_some() {
        return Some(rest.join(" "));
    }
    let (at, state) = folded
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, w)| state_named(w).map(|s| (i, s)))?;
    let verb = lang
        .lexicon()
        .wished
        .iter()
        .find(|(s, _)| *s == state)
        .map(|(_, verb)| *verb)?;
    let target: Vec<&str> = rest
        .iter()
        .zip(&folded)
        .enumerate()
        .filter(|(i, (_, f))| *i != at && !any_has(|l| l.be, f))
        .map(|(_, (r, _))| r.trim_end_matches(','))
        .collect();
    let request = format!("{verb} {}", target.join(" "));
    let (words, percent_at) = words_of(&request);
    intent(&words, percent_at).map(|_| request)
}

/// Whether the person asked to toggle ("toggle the lamp", "przełącz"): a toggle does the
/// opposite of whatever state the device is in, so it is a model's service only when asked
/// for ("make the lamp red" toggled is a lamp switched off).
pub fn asks_to_toggle(text: &str) -> bool {
    let (words, percent_at) = words_of(text);
    matches!(intent(&words, percent_at), Some((Toggle, ..)))
}

/// Whether `domain.service` does the opposite of, or something unrelated to, what the person's
/// words ask for: the verb they said and the service it bounds, for the refusal. `None` when
/// the words carry no intent (the model may choose), or the service fits it.
pub fn against_the_words(text: &str, domain: &str, service: &str) -> Option<&'static str> {
    let text =
        unwrapped_request(text).unwrap_or_else(|| text.trim().trim_end_matches('?').to_owned());
    let (words, percent_at) = words_of(&text);
    let (said, ..) = intent(&words, percent_at)?;
    // Services that undo what each intent asks; anything else is left to the other guards.
    let (asked, against): (&str, &[&str]) = match said {
        On => (
            "to turn something on",
            &["turn_off", "close_cover", "close_valve", "lock"],
        ),
        Off => (
            "to turn something off",
            &[
                "turn_on",
                "open_cover",
                "open_valve",
                "start",
                "unlock",
                "open",
            ],
        ),
        Open => (
            "to open something",
            &["close_cover", "close_valve", "lock", "turn_off"],
        ),
        Close => (
            "to close something",
            &["open_cover", "open_valve", "unlock", "open", "turn_on"],
        ),
        Lock => (
            "to lock something",
            &["unlock", "open", "open_cover", "open_valve"],
        ),
        Unlock => (
            "to unlock something",
            &["lock", "close_cover", "close_valve"],
        ),
        Start => (
            "to start something",
            &[
                "return_to_base",
                "stop",
                "pause",
                "media_pause",
                "media_stop",
                "turn_off",
            ],
        ),
        Dock | Stop => ("to stop something", &["start", "media_play", "turn_on"]),
        Pause => ("to pause something", &["media_play", "start", "turn_on"]),
        Resume => (
            "to resume something",
            &["media_pause", "media_stop", "pause", "stop", "turn_off"],
        ),
        _ => return None,
    };
    let _ = domain;
    against.contains(&service).then_some(asked)
}

/// The language a command's question word or intent words are in (English when none is
/// recognised).
pub fn language_of(text: &str) -> Lang {
    let (words, percent_at) = words_of(text);
    if let Some(first) = words.first().filter(|w| is_question_word(w)) {
        return question_lang(first);
    }
    if let Some((_, lang, _)) = intent(&words, percent_at) {
        return lang;
    }
    words
        .first()
        .and_then(|w| add_item_verb(w))
        .map_or(Lang::En, |(_, lang)| lang)
}
