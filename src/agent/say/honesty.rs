//! The honesty guards, compiled once from every language's tables ([`crate::lang`]):
//! - claim patterns: a reply that says it did or saw something ("I've turned on…",
//!   "Sprawdziłem…", "Ich habe … eingeschaltet");
//! - intent patterns: a command that is clearly an action or a question about live state, so
//!   the first sampling must call a tool.
//!
//! The tables are data in the lexicons; adding a language adds its rows there.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use crate::ha::registry::Registry;
use crate::ha::search::Haystack;
use crate::text::fold;

pub use crate::lang::Claim;
use crate::lang::LEXICONS;

/// Every language's claim patterns, in one order: the set below is compiled from them.
static CLAIM_PATTERNS: LazyLock<Vec<(Claim, &'static str)>> = LazyLock::new(|| {
    LEXICONS
        .iter()
        .flat_map(|l| l.claims.iter().copied())
        .collect()
});
static INTENT_PATTERNS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    LEXICONS
        .iter()
        .flat_map(|l| l.needs_tools.iter().copied())
        .collect()
});

/// One regex a pattern, not one set: a set asked which of its patterns match runs the slow
/// engine every time, and this runs on every reply of every run.
static CLAIMS: LazyLock<Vec<(Claim, Regex)>> = LazyLock::new(|| {
    CLAIM_PATTERNS
        .iter()
        .filter_map(|(claim, p)| Some((*claim, Regex::new(p).ok()?)))
        .collect()
});
static INTENTS: LazyLock<RegexSet> = LazyLock::new(|| compile(INTENT_PATTERNS.iter().copied()));
/// An empty set (matching nothing) only if a row fails to compile, which the unit tests rule
/// out.
fn compile<'a>(patterns: impl Iterator<Item = &'a str>) -> RegexSet {
    RegexSet::new(patterns).unwrap_or_else(|_| RegexSet::empty())
}

/// Whether a reply claims to have done or seen something.
pub fn claims_action_or_observation(reply: &str) -> bool {
    CLAIMS.iter().any(|(_, r)| r.is_match(reply))
}

/// Whether a reply claims an action (not just an observation).
pub fn claims_action(reply: &str) -> bool {
    CLAIMS
        .iter()
        .any(|(claim, r)| *claim == Claim::Action && r.is_match(reply))
}

/// Advice instead of action: "call the `todo.add_item` service", "use light.turn_on".
static ADVICE: LazyLock<RegexSet> = LazyLock::new(|| {
    let verbs: Vec<&str> = LEXICONS
        .iter()
        .flat_map(|l| l.advice_verbs.iter().copied())
        .collect();
    let pattern = format!(
        r"(?i)\b(?:{})\b[^.\n]{{0,40}}`?\b[a-z_]+\.[a-z_]+\b`?",
        verbs.join("|")
    );
    compile(std::iter::once(pattern.as_str()))
});

/// A reply that is a tool call written out (JSON naming a tool or a service), or advice to
/// make one, instead of an answer: it must never reach the person as if it were one.
pub fn is_call_as_text(reply: &str) -> bool {
    let body = reply.replace("```json", "").replace("```", "");
    let json_call = body.find('{').is_some_and(|start| {
        let candidate = &body[start..body.rfind('}').map_or(body.len(), |e| e + 1)];
        serde_json::from_str::<serde_json::Value>(candidate).is_ok_and(|v| {
            let has = |k: &str| v.get(k).is_some();
            (has("name") && (has("arguments") || has("parameters")))
                || (has("domain") && has("service"))
        })
    });
    json_call || ADVICE.is_match(reply)
}

/// Text HomeClaw writes for the model (guard notes, markers) that a model may echo back.
const INTERNAL_NOTES: [&str; 6] = [
    "[HomeClaw]",
    "[Note: you already made this exact call",
    "Do not call it again",
    "Stop repeating it",
    "Do not repeat it again",
    "tool result unavailable (recovered)",
];

/// A reply that repeats one of HomeClaw's notes to the model: never for the person.
pub fn echoes_internal_note(reply: &str) -> bool {
    INTERNAL_NOTES.iter().any(|note| reply.contains(note))
}

/// Whether the reply ends by asking the user a question.
pub fn asks_question(reply: &str) -> bool {
    reply
        .trim_end()
        .trim_end_matches([')', ']', '"', '\''])
        .ends_with('?')
}

/// Whether a command clearly acts or asks about live state: by the intent tables, or because
/// it names an area or an entity of the home.
pub fn needs_tools(command: &str, registry: &Registry) -> bool {
    if INTENTS.is_match(command) {
        return true;
    }
    let folded = format!(" {} ", fold(command));
    let named = |name: &str| {
        let n = fold(name);
        n.len() >= 3 && folded.contains(&format!(" {n} "))
    };
    // Entity names as the registry holds them, already folded into words: a run of them in
    // the command's words (this runs for every entity, so nothing is folded again).
    let said = crate::text::tokens(command);
    let in_command = |hay: &Haystack| {
        let len = hay.name_len();
        // Two letters are a name as a whole word ("the AC").
        hay.name().map(str::len).sum::<usize>() + len.saturating_sub(1) >= 2
            && said
                .windows(len.max(1))
                .any(|run| run.iter().map(String::as_str).eq(hay.name()))
    };
    registry
        .areas()
        .any(|a| named(&a.name) || a.aliases.iter().any(|al| named(al)))
        || registry.entities().any(|e| in_command(&e.haystack))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::selfcheck::home::synthetic_home;
    use regex::Regex;

    #[test]
    fn every_table_row_compiles() {
        for (_, pattern) in CLAIM_PATTERNS.iter() {
            assert!(Regex::new(pattern).is_ok(), "{pattern}");
        }
        for pattern in INTENT_PATTERNS.iter() {
            assert!(Regex::new(pattern).is_ok(), "{pattern}");
        }
        assert!(ADVICE.len() == 1);
        assert_eq!(CLAIMS.len(), CLAIM_PATTERNS.len());
        assert_eq!(INTENTS.len(), INTENT_PATTERNS.len());
    }

    #[test]
    fn claims_are_caught_in_every_language() {
        for text in [
            "I've turned on the kitchen light.",
            "I have switched off the fan for you.",
            "I checked: the door is locked.",
            "The temperature in the living room is 21 °C.",
            "The lights are now off.",
            "Włączyłem światło w kuchni.",
            "Wyłączyłam wentylator.",
            "Sprawdziłem, drzwi są zamknięte.",
            "Światło jest teraz włączone.",
            "Temperatura w salonie wynosi 21 stopni.",
            "Ich habe das Licht in der Küche eingeschaltet.",
            "Ich habe nachgesehen, die Tür ist zu.",
            "Das Licht ist jetzt aus.",
            "Die Temperatur beträgt 21 Grad.",
            "The ceiling lights should be on.",
            "The garage door is already closed.",
            "Światło powinno być włączone.",
            "Das Licht sollte an sein.",
            "Die Tür ist bereits geschlossen.",
            "The porch switch is on.",
            "Die Haustür ist offen.",
        ] {
            assert!(claims_action_or_observation(text), "missed: {text}");
        }
        for text in [
            "Added 'apples' to the shopping list.",
            "I did not find it. Milk added to the list.",
            "Roborock Downstairs has been stopped.",
            "The vacuum has returned to the base.",
            "Turned on Garden Light.",
            "Dodano mleko do listy.",
            "Włączono: Kitchen Lights.",
            "Milch wurde zur Einkaufsliste hinzugefügt.",
            "Eingeschaltet: Deckenlicht.",
            "I did not change anything. Shutting off the upstairs lights.",
            "I'm turning on the kitchen light now.",
            "The list of areas is updated with the new area 'Backyard'.",
            "The volume has been adjusted.",
        ] {
            assert!(claims_action_or_observation(text), "missed: {text}");
            assert!(claims_action(text), "not an action claim: {text}");
        }
        assert!(claims_action("The ceiling lights should be on."));
    }

    #[test]
    fn calls_written_as_text_and_advice_are_not_answers() {
        for text in [
            r#"{"name": "call_service", "arguments": {"domain": "light"}}"#,
            "```json\n{\"domain\": \"todo\", \"service\": \"add\"}\n```",
            "To add it, call the `todo.add_item` service with the item.",
            "You can use light.turn_on for that.",
        ] {
            assert!(is_call_as_text(text), "missed: {text}");
        }
        for text in [
            "Turned on Kitchen Light.",
            "The kitchen is at 21.5 °C.",
            "Which one do you mean: Bed Light, Ceiling?",
        ] {
            assert!(!is_call_as_text(text), "flagged: {text}");
        }
    }

    #[test]
    fn guard_notes_echoed_by_the_model_are_recognised() {
        assert!(echoes_internal_note(
            "I have already made this exact call in this turn. [Note: you already made this \
             exact call in this turn; this is its earlier result. Do not call it again.]"
        ));
        assert!(!echoes_internal_note("Turned on Bed Light."));
    }

    #[test]
    fn action_claims_are_told_from_observations() {
        assert!(claims_action("The TV in the garage has been turned on."));
        assert!(claims_action(
            "I have already called the service to turn on the light."
        ));
        assert!(claims_action("Ich habe das Licht eingeschaltet."));
        // The breaker's note retold in the model's words is still a claim of a call.
        assert!(claims_action(
            "I have already called the lock service for the lock entity."
        ));
        assert!(claims_action("Wywołałem usługę lock.unlock."));
        assert!(claims_action("Ich habe den Dienst lock.unlock aufgerufen."));
        assert!(!claims_action(
            "I can call the lock service if you approve."
        ));
        assert!(!claims_action("I checked: the door is locked."));
        assert!(!claims_action("Die Temperatur beträgt 21 Grad."));
    }

    #[test]
    fn honest_replies_are_not_claims() {
        for text in [
            "Which light do you mean, the kitchen or the bedroom one?",
            "I can turn on the light if you tell me which one.",
            "Sorry, I could not reach Home Assistant.",
            "Hello! How can I help?",
            "Nie mogę tego zrobić.",
            "Welches Licht meinst du?",
            "Set the thermostat to 20 if you like.",
            "Should I add milk to the list?",
            "I could not find a sauna. Nothing was changed.",
            "Open the app to pair it.",
            "Is the porch switch on?",
            "Ist die Haustür offen?",
        ] {
            assert!(!claims_action_or_observation(text), "false alarm: {text}");
        }
    }

    #[test]
    fn commands_that_need_tools_are_recognised() {
        let home = synthetic_home(20);
        for text in [
            "turn on the kitchen light",
            "Is the front door locked?",
            "what's the temperature outside",
            "włącz światło w kuchni",
            "Czy drzwi są zamknięte?",
            "jaka jest temperatura",
            "Schalte das Licht ein",
            "Ist die Tür zu?",
            "Licht in der Küche an",
            "garage door",
            "Bed Light please",
        ] {
            assert!(needs_tools(text, &home), "missed: {text}");
        }
        for text in ["hello", "tell me a joke", "thanks!", "wer bist du"] {
            assert!(!needs_tools(text, &home), "false alarm: {text}");
        }
    }

    #[test]
    fn questions_are_recognised() {
        assert!(asks_question("Which one do you mean?"));
        assert!(asks_question("Do you mean the kitchen light? "));
        assert!(!asks_question("Done."));
    }

    #[test]
    fn a_restart_under_way_is_a_claim() {
        for text in [
            "Home Assistant is restarting now.",
            "Home Assistant is being restarted.",
            "Restarting Home Assistant.",
            "The lights are turning off.",
            "Zrestartowałem Home Assistant.",
            "Home Assistant restartuje się.",
            "Home Assistant startet jetzt neu.",
            "Home Assistant wird neu gestartet.",
        ] {
            assert!(claims_action(text), "{text}");
        }
        assert!(!claims_action("Do you want me to restart Home Assistant?"));
        assert!(!claims_action("The garage door is opening."));
    }
}
