//! The words of a command as HomeClaw reads them: a home's compound names joined, the requests
//! one sentence holds, and the kind or verb one request lends the next.

use super::intent::{intent, is_filler, is_joiner, words_of};
use crate::ha::registry::Registry;
use crate::ha::search::domain_of_word;
use crate::lang::any_has;
use crate::text::fold;

/// "Heat pump" for a device the home names "HeatPump": two words said apart that are one word
/// of a name here are joined, so the first is not read as a verb ("heat") and the second does
/// not stand alone ("pump").
pub fn join_compounds(text: &str, registry: &Registry) -> String {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let pair = raw.get(i + 1).and_then(|next| {
            let (a, b) = (fold(raw[i]), fold(next));
            let plain = |w: &str| {
                w.len() >= 3 && w.chars().all(char::is_alphabetic) && !is_filler(w) && !is_joiner(w)
            };
            let joined = format!("{a}{b}");
            (plain(&a) && plain(&b) && registry.names_word(&joined))
                .then(|| format!("{}{}", raw[i], next))
        });
        match pair {
            Some(word) => {
                out.push(word);
                i += 2;
            }
            None => {
                out.push(raw[i].to_owned());
                i += 1;
            }
        }
    }
    out.join(" ")
}

/// The parts of a command joined by "and", "then", "i", "und" or commas.
pub(crate) fn split_requests(text: &str) -> Vec<String> {
    let text = crate::text::decimal_points(text);
    let mut parts = vec![String::new()];
    for raw in text.split_inclusive([',', ' ']) {
        let word = fold(raw.trim_end_matches([',', ' ']));
        let ends_part = raw.ends_with(',');
        if any_has(|l| l.both, &word) {
            // "both the kitchen light and the hall light": the "and" splits.
            continue;
        }
        if is_joiner(&word) {
            if !parts.last().is_some_and(|p| p.trim().is_empty()) {
                parts.push(String::new());
            }
            continue;
        }
        if let Some(last) = parts.last_mut() {
            last.push_str(raw.trim_end_matches(','));
            if ends_part {
                last.push(' ');
            }
        }
        if ends_part {
            parts.push(String::new());
        }
    }
    // "Wyłącz klimatyzację, proszę": a part that only thanks or asks nicely is no request.
    parts
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .filter(|p| {
            !fold(p)
                .split(' ')
                .all(|w| w.is_empty() || any_has(|l| l.courtesy, w))
        })
        .collect()
}

/// "The living room and kitchen lights": the kind words the last part ends with ("lights"),
/// for an earlier part that names no kind of its own and resolves to nothing alone.
pub(crate) fn trailing_kind(parts: &[String]) -> Option<String> {
    let raw: Vec<&str> = parts.last()?.split_whitespace().collect();
    let kinds = raw
        .iter()
        .rev()
        .take_while(|w| domain_of_word(&fold(w)).is_some())
        .count();
    (kinds > 0 && kinds < raw.len()).then(|| raw[raw.len() - kinds..].join(" "))
}

/// "Schalte die Lichter in der Küche und im Schlafzimmer aus": a verb's particle said once, at
/// the end, belongs to every part before it that needs it to be a request.
pub(crate) fn with_the_particle(mut parts: Vec<String>) -> Vec<String> {
    let Some(particle) = parts
        .last()
        .and_then(|p| p.split_whitespace().last())
        .map(str::to_owned)
    else {
        return parts;
    };
    let last = parts.len().saturating_sub(1);
    for part in &mut parts[..last] {
        let own = |text: &str| {
            let (words, percent_at) = words_of(text);
            intent(&words, percent_at).is_some()
        };
        let with = format!("{part} {particle}");
        if !own(part) && own(&with) {
            *part = with;
        }
    }
    parts
}

/// The kind words a request names besides its verb, folded ("lights" in "turn off the lights
/// in the kitchen").
pub(crate) fn leading_kind(part: &str) -> Option<String> {
    let (words, percent_at) = words_of(part);
    let used = intent(&words, percent_at)
        .map(|(.., used)| used)
        .unwrap_or_default();
    let kinds: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| !used.contains(i) && domain_of_word(w).is_some())
        .map(|(_, w)| w.as_str())
        .collect();
    (!kinds.is_empty()).then(|| kinds.join(" "))
}

/// Whether a request names a kind of device besides its verb ("lock" in "lock the door" is
/// the verb).
pub(crate) fn names_a_kind(text: &str) -> bool {
    leading_kind(text).is_some()
}

/// The verb words a part starts with, for the parts after it that have none ("turn on").
pub(crate) fn leading_verb(part: &str) -> Option<String> {
    let raw: Vec<&str> = part.split_whitespace().collect();
    let (words, percent_at) = words_of(part);
    let (_, _, used) = intent(&words, percent_at)?;
    let last = *used.iter().max()?;
    (used.contains(&0) && last < 3 && last < raw.len()).then(|| raw[..=last].join(" "))
}
