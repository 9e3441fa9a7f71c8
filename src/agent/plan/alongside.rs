//! Home Assistant's recogniser beside HomeClaw's own reading (issue 47: never less than Home
//! Assistant). Where HomeClaw's lexicons would act or ask which device, the same words go to
//! the recogniser too; a *complete* match (one of Home Assistant's templates read the whole
//! sentence, every slot matched something) is what the words mean to the people who wrote
//! Home Assistant's sentences in that language. When its reading leads to other calls than
//! HomeClaw's own (another intent, other targets, another value), its reading is taken, still
//! through HomeClaw's own constraints, validation, approval and verification; when both agree,
//! or Home Assistant reads less than the whole sentence, HomeClaw's own reading stands (the
//! paraphrases, conditions and joined requests that no template reads).
//!
//! The cost is one recognition per command HomeClaw reads itself (5–90 ms here, never more
//! than the recogniser's budget: past it, HomeClaw's reading stands).

use std::collections::BTreeSet;

use super::PlannedCall;
use super::direct::recognition_trace;
use super::hearing::Heard;
use super::recognised::{Understood, understood};
use crate::agent::home::with_registry;
use crate::agent::state::{Agent, CallEnd, RunState, RunStatus};
use crate::ha::recognise::Source;
use crate::llm::Message;

type Ended = Option<Result<(RunStatus, String), CallEnd>>;

/// What a list of calls does, entity by entity: the same whichever way it is grouped.
fn effects(calls: &[PlannedCall]) -> BTreeSet<(String, String, String, String)> {
    calls
        .iter()
        .flat_map(|c| {
            c.entity_ids.iter().map(|id| {
                let data = c.data().map(ToString::to_string).unwrap_or_default();
                (id.clone(), c.domain.clone(), c.service.clone(), data)
            })
        })
        .collect()
}

/// Whether two plans make the same changes.
pub(crate) fn same_calls(ours: &[PlannedCall], theirs: &[PlannedCall]) -> bool {
    effects(ours) == effects(theirs)
}

impl Agent<'_> {
    /// HomeClaw's own reading would run `ours` (or, `None`, ask which device): Home
    /// Assistant's complete reading of the same words is taken where it leads to other calls.
    /// `None`: HomeClaw's own plan stands.
    pub(super) async fn alongside(
        &self,
        ours: Option<&[PlannedCall]>,
        history: &mut Vec<Message>,
        state: &mut RunState,
    ) -> Ended {
        let (heard, tag, lang, started) = self.ask_recogniser(history, state)?.await;
        let (recognition, command) = match heard {
            Heard::Now(Some(recognition), command) => (recognition, command),
            Heard::Now(None, _) => {
                state.trace.push(format!(
                    "Home Assistant's recogniser, alongside: nothing recognised ({} ms); \
                     HomeClaw's own reading stands",
                    started.elapsed().as_millis()
                ));
                return None;
            }
            Heard::Late(_) => {
                state.trace.push(format!(
                    "Home Assistant's recogniser, alongside: no answer within its budget \
                     ({} ms); HomeClaw's own reading stands",
                    started.elapsed().as_millis()
                ));
                return None;
            }
        };
        let took = started.elapsed().as_millis();
        state.trace.push(format!(
            "{}{}, alongside HomeClaw's own reading",
            recognition_trace(&recognition, took),
            state.said.as_said_note(&command)
        ));
        if !recognition.matched || recognition.source != Source::Builtin {
            return None;
        }
        let plan = with_registry(self.home, |r| {
            understood(&recognition, Some(state.said.as_ref()), lang, &command, r)
        });
        let Understood::Act { calls: theirs, .. } = &plan else {
            return None;
        };
        // HomeClaw would ask which of a few devices ("turn on the lamp" in a room of two
        // lamps): Home Assistant's reading is taken only where it settles that, on one
        // device or on a floor the words name; its room said by the satellite alone is every
        // light of the room, not the one the person meant.
        let settled = theirs
            .iter()
            .flat_map(|c| c.entity_ids.iter())
            .collect::<BTreeSet<_>>()
            .len()
            == 1
            || recognition.slot("floor").is_some();
        if ours.is_none() && !settled {
            state
                .trace
                .push("Home Assistant's reading does not settle which device: HomeClaw asks");
            return None;
        }
        if ours.is_some_and(|ours| same_calls(ours, theirs)) {
            state
                .trace
                .push("Home Assistant's recogniser reads the words as HomeClaw does");
            return None;
        }
        let described: Vec<String> = theirs.iter().map(PlannedCall::describe).collect();
        state.trace.push(format!(
            "Home Assistant read the whole sentence otherwise ({}): its reading is taken",
            described.join("; ")
        ));
        self.follow(plan, &command, &tag, lang, history, state)
            .await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(service: &str, ids: &[&str], data: serde_json::Value) -> PlannedCall {
        PlannedCall {
            domain: "light".into(),
            service: service.into(),
            entity_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            data,
        }
    }

    #[test]
    fn the_same_changes_grouped_otherwise_are_the_same() {
        let one = [call("turn_on", &["light.a", "light.b"], json!(null))];
        let two = [
            call("turn_on", &["light.b"], json!(null)),
            call("turn_on", &["light.a"], json!(null)),
        ];
        assert!(same_calls(&one, &two));
        assert!(!same_calls(&one, &two[..1]));
        let dimmed = [call(
            "turn_on",
            &["light.a", "light.b"],
            json!({"brightness_pct": 100}),
        )];
        assert!(!same_calls(&one, &dimmed));
    }
}
