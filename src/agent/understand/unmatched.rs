//! An action whose words point at nothing in the home ("turn on the sauna", "włącz pompę w
//! basenie"). With `agent.named_targets` no call the model could make would pass (every target
//! must be something the words point at), so asking it only costs the person seconds before
//! the same "nothing found": the answer is given at once, naming the words, or saying why a
//! device Home Assistant has is kept from HomeClaw.

use super::intent::{Intent, is_every, is_filler};
use super::mood::Reading;
use super::target::Pointing;
use crate::ha::registry::{Hidden, Registry};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unmatched {
    /// A device Home Assistant has but keeps from HomeClaw, with its name.
    Hidden { reason: Hidden, name: String },
    /// Nothing at all: the person's own words for the target.
    Nothing { words: String },
}

/// Why the command can act on nothing (`before`, the command said before it, may name what
/// "it" is), or `None` when something might be meant. Only single actions with target words of
/// their own qualify; "send" may mean a message, which needs no device.
pub fn unmatched(
    command: &Reading,
    before: Option<&str>,
    registry: &Registry,
) -> Option<Unmatched> {
    if !command.is_single_action() {
        return None;
    }
    let words = &command.words;
    let (verb, _, used) = command.intent()?;
    if matches!(verb, Intent::Dock) {
        return None;
    }
    let target: Vec<usize> = (0..words.len())
        .filter(|i| !used.contains(i))
        .filter(|&i| {
            let w = words[i].as_str();
            !is_filler(w) && !is_every(w) && w.parse::<f64>().is_err()
        })
        .collect();
    // "it" alone points at what was said before; an article that is also a stand-in ("die"
    // in "Schalte die Sauna ein") does not when other words follow.
    if target
        .iter()
        .all(|&i| crate::lang::any_has(|l| l.stand_ins, &words[i]))
    {
        return None;
    }
    let pointing: Vec<Pointing> = std::iter::once(Pointing::of_reading(command, registry))
        .chain(before.map(|t| Pointing::new(t, registry)))
        .collect();
    let pointed = registry
        .entities()
        .any(|e| pointing.iter().any(|p| p.at(e, registry)));
    if pointed {
        return None;
    }
    if let Some((reason, name)) = registry
        .hidden_entities()
        .find(|e| pointing[0].at(e, registry))
        .and_then(|e| registry.hidden(&e.entity_id))
    {
        return Some(Unmatched::Hidden {
            reason,
            name: name.to_owned(),
        });
    }
    let first = target
        .iter()
        .copied()
        .find(|&i| !crate::lang::any_has(|l| l.stand_ins, &words[i]))
        .unwrap_or(target[0]);
    Some(Unmatched::Nothing {
        words: span(command, first, target[target.len() - 1]),
    })
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
