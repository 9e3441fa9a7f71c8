//! How a recognition's name slot names the home's devices: its value or words as a device's
//! name or alias, said whole and in order, or in another form.

use crate::agent::understand::target::word_matches;
use crate::ha::recognise::Slot;
use crate::ha::registry::Entity;
use crate::text::fold;

/// Whether the words said for a slot are a name's words, one for one, each in any form
/// ("roletę salonu" says "Roleta salonu").
pub(super) fn says_the_name(slot: &Slot, name: &str) -> bool {
    let said = crate::text::tokens(&slot.text);
    let named = crate::text::tokens(name);
    !named.is_empty()
        && said.len() == named.len()
        && said.iter().zip(&named).all(|(s, n)| word_matches(s, n))
}

/// Whether the words are, one for one in any form, the entity's name or one of its aliases,
/// said as a name is: its words together and in its order in the sentence (`spoken`)
/// ("žaluzie ložnice"), not a kind and a room ("d Vorhäng im Schlafzimmer": the bedroom's
/// curtains, though one is named "Schlafzimmer Vorhang").
pub(super) fn is_whole_name(said: &[String], spoken: &[String], entity: &Entity) -> bool {
    std::iter::once(&entity.name)
        .chain(&entity.aliases)
        .any(|name| {
            let named = crate::text::tokens(name);
            !named.is_empty()
                && named.len() == said.len()
                && named
                    .iter()
                    .all(|n| said.iter().any(|s| word_matches(s, n)))
                && said
                    .iter()
                    .all(|s| named.iter().any(|n| word_matches(s, n)))
                && spoken
                    .windows(named.len())
                    .any(|run| run.iter().zip(&named).all(|(s, n)| word_matches(s, n)))
        })
}

/// Whether a name or one of its aliases is what the slot holds: its value (the name Home
/// Assistant matched) or the words said for it.
pub(super) fn names(slot: &Slot, name: &str, aliases: &[String]) -> bool {
    let is = |said: &str| {
        let said = fold(said.trim());
        !said.is_empty() && (fold(name) == said || aliases.iter().any(|a| fold(a) == said))
    };
    is(&slot.as_text()) || is(&slot.text)
}

/// Of devices so named, those whose name or alias is Home Assistant's value as written, if any:
/// it is the name of the device whose sentence matched ("zaključaj ulazna vrata" matched the
/// lock "Ulazna vrata", a sentence for locks, not the door "ulazna vrata").
pub(super) fn exactly_named<'r>(slot: &Slot, so_named: Vec<&'r Entity>) -> Vec<&'r Entity> {
    let value = slot.as_text();
    let exact: Vec<&Entity> = so_named
        .iter()
        .copied()
        .filter(|e| e.name == value || e.aliases.contains(&value))
        .collect();
    if exact.is_empty() { so_named } else { exact }
}
