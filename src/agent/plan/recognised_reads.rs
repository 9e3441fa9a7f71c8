//! What Home Assistant recognised that moves no device: an item added to or completed on a
//! list, and a state question answered from the registry (see [`super::recognised`]).

use serde_json::{Value, json};

use super::understood::Understood;
use super::{PlannedCall, ReadState, answer_from_reads};
use crate::ha::exposure::ServiceDecision;
use crate::ha::recognise::Recognition;
use crate::ha::registry::{Entity, Registry};
use crate::lang::Lang;

/// Add or complete an item on the one list the words name.
/// `lists`: the lists the recognition's slots name.
pub(super) fn list_item(rec: &Recognition, lists: &[&Entity], registry: &Registry) -> Understood {
    let (Some(item), true) = (rec.slot("item"), rec.matched) else {
        return Understood::Unknown;
    };
    let item = item.text.trim().to_owned();
    let [list] = lists else {
        return Understood::Nothing;
    };
    let (service, data) = if rec.intent == "HassListAddItem" {
        ("add_item", json!({"item": item}))
    } else {
        ("update_item", json!({"item": item, "status": "completed"}))
    };
    if !matches!(
        registry.service_decision("todo", service),
        Some(ServiceDecision::Allowed)
    ) {
        return Understood::Nothing;
    }
    Understood::Act {
        calls: vec![PlannedCall {
            domain: "todo".into(),
            service: service.into(),
            entity_ids: vec![list.entity_id.clone()],
            data,
        }],
        intent: rec.intent.clone(),
        keys: vec!["item_added"],
        slots: vec![("item".into(), item), ("name".into(), list.name.clone())],
    }
}

/// A state question about `asked` (what the recognition's slots name) answered from the
/// registry, in a language HomeClaw speaks; in any other,
/// Home Assistant answers (a read changes nothing, and its answer is in the person's words).
pub(super) fn answer(
    rec: &Recognition,
    lang: Option<Lang>,
    question: &str,
    asked: Vec<&Entity>,
) -> Understood {
    let Some(lang) = lang else {
        return Understood::HandOff {
            why: "a question in a language HomeClaw has no words for",
            asked: asked.iter().map(|e| e.entity_id.clone()).collect(),
        };
    };
    if !rec.matched {
        return Understood::Unknown;
    }
    if asked.is_empty() {
        // Read completely, and neither Home Assistant nor HomeClaw finds anything it asks
        // about ("ist jemand zu Hause" in a home without people): Home Assistant's own answer
        // ("Niemand", "Nein") is the true one. Where Home Assistant named targets that
        // HomeClaw may not see, HomeClaw does not pass the question on.
        return if rec.targets.is_empty() {
            Understood::HandOff {
                why: "a question about nothing this home has",
                asked: Vec::new(),
            }
        } else {
            Understood::Unknown
        };
    }
    let climate = rec.intent == "HassClimateGetTemperature";
    let values: Vec<(&Entity, String, Option<String>)> = asked
        .iter()
        .map(|e| {
            if climate {
                // What it measures, in the home's degrees ("22°").
                let current = e.attributes.get("current_temperature").map(|v| match v {
                    Value::String(s) => format!("{s}°"),
                    other => format!("{other}°"),
                });
                (*e, current.unwrap_or_else(|| e.state.clone()), None)
            } else {
                let unit = e
                    .attributes
                    .get("unit_of_measurement")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (*e, e.state.clone(), unit)
            }
        })
        .collect();
    let reads: Vec<ReadState<'_>> = values
        .iter()
        .map(|(e, state, unit)| ReadState {
            asked_about: true,
            domain: if climate { "sensor" } else { e.domain() },
            name: &e.name,
            state,
            unit: unit.as_deref(),
        })
        .collect();
    Understood::Answer(answer_from_reads(question, &reads, lang))
}
