//! What the words ask of a service, as the capability table reads it: a toggle asked for, and
//! services that do the opposite of what the words ask, which no path may call for them.

use crate::lang::Intent::Toggle;

use super::mood::{Reading, unwrapped_request};

/// Whether the person asked to toggle ("toggle the lamp", "przełącz"): a toggle does the
/// opposite of whatever state the device is in, so it is a model's service only when asked
/// for ("make the lamp red" toggled is a lamp switched off).
pub fn asks_to_toggle(reading: &Reading) -> bool {
    matches!(reading.intent(), Some((Toggle, ..)))
}

/// Whether a service does the opposite of, or something unrelated to, what the person's words
/// ask for: the verb they said and the service it bounds, for the refusal. `None` when the
/// words carry no intent (the model may choose), or the service fits it.
pub fn against_the_words(reading: &Reading, service: &str) -> Option<&'static str> {
    let asked = match unwrapped_request(&reading.text) {
        Some(request) => Reading::new(&request).intent(),
        None => reading.intent(),
    };
    crate::agent::capability::undoes(asked?.0, service)
}
