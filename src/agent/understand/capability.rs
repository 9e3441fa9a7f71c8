//! What the words ask of a service, as the capability table reads it: a toggle asked for, and
//! services that do the opposite of what the words ask, which no path may call for them.

use crate::lang::Intent::Toggle;

use super::intent::{intent, words_of};
use super::mood::unwrapped_request;

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
    let _ = domain;
    crate::agent::capability::undoes(said, service)
}
