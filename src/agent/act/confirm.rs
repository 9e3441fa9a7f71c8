//! Answering a held action in the conversation itself — "yes, unlock it", "tak", "ja, 4711" —
//! which is how voice users approve: they have no button and no approval id.
//!
//! Invariants:
//! - Pure: the words and the configuration in, a verdict out. The session worker applies it to
//!   the one action its own session holds, so a "yes" never approves another session's action.
//! - Only an answer that starts with a yes or no word counts; anything else is a new command.
//! - With a PIN configured, approving needs it; declining never does. Where the session is
//!   shared by clients that cannot tell their conversations apart (Home Assistant 2025.4's
//!   Wyoming client sends no conversation id, so every satellite shares one session), approving
//!   needs a PIN even when none is configured — otherwise anyone at any satellite could approve
//!   an unlock asked for elsewhere.
//! - The PIN is compared in constant time, and the caller never stores the answer's words.

use crate::agent::understand::Lang;
use crate::secret::Secret;
use crate::text::fold;

/// An answer longer than this is a new request, not a yes or a no.
const MAX_ANSWER_WORDS: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Approve,
    Decline,
    /// A yes without the PIN that approving needs.
    PinMissing,
    WrongPin,
    /// A yes in a shared session, where no PIN is configured: approving here is not possible.
    PinRequiredHere,
    /// Not an answer to the held action: the words run as a new command.
    NotAnAnswer,
}

/// How `text` answers a held action. `shared`: the session is shared by clients that cannot
/// tell their conversations apart.
pub fn judge(text: &str, pin: Option<&Secret>, shared: bool) -> Verdict {
    let folded = fold(text);
    let words = answer_words(&folded);
    if words.is_empty() || words.len() > MAX_ANSWER_WORDS {
        return Verdict::NotAnAnswer;
    }
    match answer_word(words[0]) {
        None => return Verdict::NotAnAnswer,
        Some((false, _)) => return Verdict::Decline,
        Some((true, _)) => {}
    }
    let spoken = spoken_digits(&words);
    match pin {
        Some(_) if spoken.is_empty() => Verdict::PinMissing,
        Some(pin) if pin.matches(&spoken) => Verdict::Approve,
        Some(_) => Verdict::WrongPin,
        None if shared => Verdict::PinRequiredHere,
        None => Verdict::Approve,
    }
}

/// The language of the answer's yes or no word ("tak" is Polish, "ja" German).
pub fn answer_lang(text: &str) -> Lang {
    let folded = fold(text);
    answer_words(&folded)
        .first()
        .and_then(|w| answer_word(w))
        .map_or(Lang::En, |(_, lang)| lang)
}

/// Whether `word` approves and in which language, if it is a yes or a no.
fn answer_word(word: &str) -> Option<(bool, Lang)> {
    crate::lang::LEXICONS.iter().find_map(|l| {
        if l.approve.contains(&word) {
            Some((true, l.lang))
        } else if l.decline.contains(&word) {
            Some((false, l.lang))
        } else {
            None
        }
    })
}

fn answer_words(folded: &str) -> Vec<&str> {
    folded
        .split(' ')
        .filter(|w| !w.is_empty())
        .skip_while(|w| crate::lang::any_has(|l| l.answer_lead, w))
        .collect()
}

/// The digits said in the answer, in order: "1234", "12 34" and "one two three four" alike.
fn spoken_digits(words: &[&str]) -> String {
    let mut digits = String::new();
    for word in words {
        if word.chars().all(|c| c.is_ascii_digit()) {
            digits.push_str(word);
        } else if let Some((_, d)) = crate::lang::LEXICONS
            .iter()
            .flat_map(|l| l.digits.iter())
            .find(|(w, _)| w == word)
        {
            digits.push(*d);
        }
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yes_or_a_no_in_any_of_our_languages_answers() {
        for text in ["Yes, unlock it", "ok", "Tak.", "ja bitte", "Please confirm"] {
            assert_eq!(judge(text, None, false), Verdict::Approve, "{text}");
        }
        for text in ["No", "nie, zostaw", "Nein danke", "cancel that", "Don't!"] {
            assert_eq!(judge(text, None, false), Verdict::Decline, "{text}");
        }
    }

    #[test]
    fn anything_else_is_a_new_command() {
        for text in [
            "unlock the front door",
            "turn on the kitchen light",
            "",
            "yes yes yes yes yes yes yes yes yes yes yes yes yes",
        ] {
            assert_eq!(judge(text, None, false), Verdict::NotAnAnswer, "{text}");
        }
    }

    #[test]
    fn a_configured_pin_is_needed_to_approve_but_not_to_decline() {
        let pin = Secret::new("4711");
        assert_eq!(judge("yes", Some(&pin), false), Verdict::PinMissing);
        assert_eq!(judge("yes 4711", Some(&pin), false), Verdict::Approve);
        assert_eq!(judge("yes, 47 11", Some(&pin), false), Verdict::Approve);
        assert_eq!(
            judge("tak, cztery siedem jeden jeden", Some(&pin), true),
            Verdict::Approve
        );
        assert_eq!(
            judge("ja, vier sieben eins eins", Some(&pin), true),
            Verdict::Approve
        );
        assert_eq!(judge("yes 4712", Some(&pin), false), Verdict::WrongPin);
        assert_eq!(judge("yes 47111", Some(&pin), false), Verdict::WrongPin);
        assert_eq!(judge("no", Some(&pin), false), Verdict::Decline);
    }

    #[test]
    fn the_answer_word_gives_the_language() {
        assert_eq!(answer_lang("Tak, otwórz"), Lang::Pl);
        assert_eq!(answer_lang("bitte nein"), Lang::De);
        assert_eq!(answer_lang("yes"), Lang::En);
    }

    #[test]
    fn a_shared_session_cannot_approve_without_a_pin() {
        assert_eq!(judge("yes", None, true), Verdict::PinRequiredHere);
        assert_eq!(judge("no", None, true), Verdict::Decline);
    }
}
