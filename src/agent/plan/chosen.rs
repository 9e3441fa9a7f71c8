//! The person's answer to HomeClaw's "which one?". The question was asked because the
//! command fitted several devices equally well; the answer ("the kitchen one", "Kitchen
//! Speaker") only says which. What to do stays what the command said: the options the
//! question was asked with ([`Plan::Ask`]) are the only calls an answer can make, so an answer
//! never acts on a device the question did not offer, nor with another service.
//!
//! Pure: the options, the registry and what the answer's words point at in; a plan out.

use super::ask::which_one;
use super::{Plan, PlannedCall};
use crate::agent::understand::Lang;
use crate::ha::registry::{Entity, Registry};

/// How the answer reads as a choice between a question's options.
pub struct Answer<'a> {
    /// Whether every word of the answer explains an entity ("Ceiling Light in the Kitchen").
    pub covers: &'a dyn Fn(&Entity) -> bool,
    /// Whether the answer's words point at an entity (its name or room: "the kitchen one").
    pub points_at: &'a dyn Fn(&Entity) -> bool,
}

/// The plan an answer makes of `options`: the one option its words all explain runs, else
/// the one it points at; several of them (fewer than were offered) are asked about again;
/// none, or every one, is no choice (`None`: the words are read as they are).
pub fn chosen(
    options: Vec<PlannedCall>,
    answer: &Answer<'_>,
    registry: &Registry,
    lang: Lang,
) -> Option<Plan> {
    let offered = options.len();
    let fits = |option: &PlannedCall, fit: &dyn Fn(&Entity) -> bool| {
        !option.entity_ids.is_empty()
            && option
                .entity_ids
                .iter()
                .all(|id| registry.get(id).is_some_and(fit))
    };
    let covered = options.iter().filter(|o| fits(o, answer.covers)).count();
    let fitting: Vec<PlannedCall> = if covered == 1 {
        options
            .into_iter()
            .filter(|o| fits(o, answer.covers))
            .collect()
    } else {
        options
            .into_iter()
            .filter(|o| fits(o, answer.points_at))
            .collect()
    };
    match fitting.len() {
        0 => None,
        1 => Some(Plan::Act {
            calls: fitting,
            lang,
        }),
        n if n < offered => {
            let entities: Vec<&Entity> = fitting
                .iter()
                .filter_map(|o| o.entity_ids.first())
                .filter_map(|id| registry.get(id))
                .collect();
            Some(Plan::Ask {
                question: which_one(&entities, registry, lang),
                options: fitting,
                lang,
            })
        }
        _ => None,
    }
}
