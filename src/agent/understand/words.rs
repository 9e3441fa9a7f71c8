//! The words of a command as HomeClaw reads them: a home's compound names joined, the requests
//! one sentence holds, and the kind or verb one request lends the next.

use super::intent::{is_filler, is_joiner};
use super::mood::Reading;
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

/// The requests of a command joined by "and", "then", "i", "und" or commas, each the run of
/// the command's pieces it holds.
pub(crate) fn requests(reading: &Reading) -> Vec<Reading> {
    let mut parts: Vec<Vec<usize>> = vec![Vec::new()];
    for (i, piece) in reading.pieces.iter().enumerate() {
        let word = match reading.piece_words(i) {
            [word] => word.as_str(),
            _ => "",
        };
        if any_has(|l| l.both, word) {
            // "both the kitchen light and the hall light": the "and" splits.
            continue;
        }
        if is_joiner(word) {
            if !parts.last().is_some_and(Vec::is_empty) {
                parts.push(Vec::new());
            }
            continue;
        }
        if let Some(last) = parts.last_mut()
            && !piece.raw.is_empty()
        {
            last.push(i);
        }
        if piece.comma {
            parts.push(Vec::new());
        }
    }
    // "Wyłącz klimatyzację, proszę": a part that only thanks or asks nicely is no request.
    parts
        .into_iter()
        .map(|part| reading.of_pieces(part))
        .filter(|part| !part.words.iter().all(|w| any_has(|l| l.courtesy, w)))
        .collect()
}

/// "The living room and kitchen lights": the kind words the last part ends with ("lights"),
/// for an earlier part that names no kind of its own and resolves to nothing alone.
pub(crate) fn trailing_kind(parts: &[Reading]) -> Option<Reading> {
    let last = parts.last()?;
    let count = last.pieces.len();
    let kinds = (0..count)
        .rev()
        .take_while(|&i| domain_of_word(&last.piece_words(i).join(" ")).is_some())
        .count();
    (kinds > 0 && kinds < count).then(|| last.of_pieces(count - kinds..count))
}

/// "Schalte die Lichter in der Küche und im Schlafzimmer aus": a verb's particle said once, at
/// the end, belongs to every part before it that needs it to be a request.
pub(crate) fn with_the_particle(mut parts: Vec<Reading>) -> Vec<Reading> {
    let Some(particle) = parts
        .last()
        .filter(|p| !p.pieces.is_empty())
        .map(|p| p.of_pieces([p.pieces.len() - 1]))
    else {
        return parts;
    };
    let last = parts.len().saturating_sub(1);
    for part in &mut parts[..last] {
        let with = part.then(&particle);
        if part.intent().is_none() && with.intent().is_some() {
            *part = with;
        }
    }
    parts
}

/// The kind words a request names besides its verb, folded ("lights" in "turn off the lights
/// in the kitchen").
pub(crate) fn leading_kind(part: &Reading) -> Option<Reading> {
    let used = part.intent().map(|(.., used)| used).unwrap_or_default();
    let kinds: Vec<&str> = part
        .words
        .iter()
        .enumerate()
        .filter(|(i, w)| !used.contains(i) && domain_of_word(w).is_some())
        .map(|(_, w)| w.as_str())
        .collect();
    (!kinds.is_empty()).then(|| Reading::of_words(&kinds))
}

/// Whether a request names a kind of device besides its verb ("lock" in "lock the door" is
/// the verb).
pub(crate) fn names_a_kind(part: &Reading) -> bool {
    leading_kind(part).is_some()
}

/// The verb a request starts with, for the parts after it that have none ("turn on"): its
/// first pieces, up to the last word the intent used, if that is among its first three.
pub(crate) fn leading_verb(part: &Reading) -> Option<Reading> {
    let (_, _, used) = part.intent()?;
    let last = *used.iter().max()?;
    (used.contains(&0) && last < 3 && last < part.pieces.len()).then(|| part.of_pieces(0..=last))
}
