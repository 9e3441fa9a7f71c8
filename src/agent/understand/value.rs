//! The values a command says: a percentage (or a step up or down), a temperature to the
//! tenth, a colour, as the words give them in every lexicon's language.

use crate::ha::search::domain_of_word;
use crate::lang::{LEXICONS, Lang, any_has, lang_having};

/// The colour the words name, its language, and where. A colour before a kind word is part of
/// a name ("the white lights", "Entrance Color + White Lights"), not a colour to set.
pub(crate) fn colour(words: &[String]) -> Option<(&'static str, Lang, usize)> {
    words.iter().enumerate().find_map(|(i, w)| {
        // "the blue light" names a light; "blau leuchten" (shine blue) says its colour.
        if words
            .get(i + 1)
            .is_some_and(|next| domain_of_word(next).is_some() && !any_has(|l| l.lit, next))
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

/// A percentage in the words ("50%", "50 percent", "50 procent"), the language of its unit,
/// and the words it used. `percent_at` is the word a `%` followed in the raw text (folding
/// drops the sign).
pub(crate) fn percentage(
    words: &[String],
    percent_at: Option<usize>,
) -> Option<(u8, Option<Lang>, Vec<usize>)> {
    // "Volume to zero", "half brightness", "Lautstärke auf null": a level said in words, when
    // the words say what the level is of ("auf die niedrigste Stufe": the step word is the
    // level's own).
    if words.iter().any(|w| any_has(|l| l.level_of, w))
        && let Some((i, n, lang)) = value_word(words, |l| l.levels)
    {
        return Some((n, Some(lang), with_step_words(words, i)));
    }
    // "Set the fan to high", "Lüfter auf Stufe hoch": a speed said in words, when the words
    // are about a fan or a speed.
    let about_speed = words
        .iter()
        .any(|w| domain_of_word(w) == Some("fan") || any_has(|l| l.speed_words, w));
    if about_speed && let Some((i, n, lang)) = value_word(words, |l| l.speeds) {
        return Some((n, Some(lang), with_step_words(words, i)));
    }
    // "Volume 50", "Lautstärke auf 20", "Dimme das Licht auf 11": a volume or a brightness is
    // a share whatever unit is left unsaid.
    let of_volume = words.iter().any(|w| any_has(|l| l.level_of, w));
    for (i, w) in words.iter().enumerate() {
        let Ok(n) = w.parse::<u8>() else {
            continue;
        };
        if n > 100 {
            continue;
        }
        let unit = words.get(i + 1);
        let percent = unit.and_then(|u| lang_having(|l| l.percent_units, u));
        // "Helligkeit im Schlafzimmer 1 auf 11": a number after a name's word is the name's.
        let after_a_name = i > 0 && {
            let before = words[i - 1].as_str();
            !(any_has(|l| l.filler, before)
                || any_has(|l| l.stopwords, before)
                || any_has(|l| l.level_of, before))
        };
        if of_volume
            && (percent.is_some() || !after_a_name)
            && unit.is_none_or(|u| lang_having(|l| l.degree_units, u).is_none())
        {
            let at = if percent.is_some() {
                vec![i, i + 1]
            } else {
                vec![i]
            };
            return Some((n, percent, at));
        }
        if let Some(lang) = percent {
            return Some((n, Some(lang), vec![i, i + 1]));
        }
        if percent_at == Some(i) {
            return Some((n, None, vec![i]));
        }
    }
    None
}

/// The first word a lexicon's table gives a share for ("half", "max", "hoch"): where, the
/// share, the language.
fn value_word(
    words: &[String],
    table: fn(&crate::lang::Lexicon) -> &'static [(&'static str, u8)],
) -> Option<(usize, u8, Lang)> {
    words.iter().enumerate().find_map(|(i, w)| {
        LEXICONS.iter().find_map(|l| {
            table(l)
                .iter()
                .find(|(said, _)| said == w)
                .map(|(_, n)| (i, *n, l.lang))
        })
    })
}

/// The value's word and every step word ("Stufe", "speed"): the words the value used.
fn with_step_words(words: &[String], at: usize) -> Vec<usize> {
    let mut used = vec![at];
    used.extend(
        words
            .iter()
            .enumerate()
            .filter(|(_, w)| any_has(|l| l.speed_words, w))
            .map(|(j, _)| j),
    );
    used
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

/// A number with one decimal as people write it ("19.5", "19,5", "19,5°"), as one word with a
/// point ("19.5"): folding would make it two words.
pub(crate) fn decimal(raw: &str) -> Option<String> {
    let number = raw.trim_end_matches(|c: char| !c.is_ascii_digit());
    let (whole, fraction) = number.split_once(['.', ','])?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(whole) && whole.len() <= 3 && digits(fraction) && fraction.len() == 1)
        .then(|| format!("{whole}.{fraction}"))
}
