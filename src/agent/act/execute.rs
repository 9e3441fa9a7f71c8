//! Executing a validated tool call: the guards, approval for high-risk services, the dry run,
//! the service call, and the verification that turns "Home Assistant accepted it" into "the
//! home is in the expected state".

use crate::agent::understand::Lang;
use std::time::Duration;

/// What a dry run records as the state seen after a call it did not make.
use serde_json::Value;
use tracing::debug;

use super::approval::{Hold, PendingAction, needs_approval};
use super::call::PlannedCall;
use super::guards::Verdict;
use super::normalize::{call_hash, normalise_args, result_hash};
use super::tools::{ToolKind, ToolOutput, ValidCall};
use super::verify::{ActionReport, before_states, target_entities, verify};
use crate::agent::home::with_registry;
use crate::agent::model::truncate::truncate;
use crate::agent::state::{Agent, CallEnd, Observed, RunState};
use crate::agent::understand::parsed::Parsed;
use crate::ha::registry::{Entity, Hidden, Registry};
use crate::ha::services::CheckedCall;
use crate::llm::{Message, ToolCall};

impl Agent<'_> {
    /// A validated service call: approval check, dry run, the call, then verification.
    /// `Err` carries the action recorded for approval.
    async fn service_call(
        &self,
        checked: CheckedCall,
        call: &ToolCall,
        state: &mut RunState,
    ) -> Result<ToolOutput, PendingAction> {
        let targets = target_entities(self.home, &checked);
        let rules = self.cfg.high_risk_rules();
        let risk = with_registry(self.home, |r| needs_approval(&rules, &checked, &targets, r));
        if self.dry_run {
            return Ok(dry_run(&checked, &targets, risk, state));
        }
        if let Some(reason) = risk {
            // Recorded for approval (`Err`), not run.
            return match self
                .approvals
                .request(self.hold(checked, targets, reason, state))
            {
                Ok(pending) => Err(pending),
                Err(e) => Ok(ToolOutput::error(format!("not run: {e}"))),
            };
        }
        let before = before_states(self.home, &targets);
        let mut output = self
            .tools
            .dispatch(&ValidCall::CallService(checked.clone()), self.home)
            .await;
        if output.performed.is_none() {
            return Ok(output);
        }
        let timeout = Duration::from_millis(self.cfg.verify_timeout_ms);
        let report = verify(self.home, &checked, &targets, &before, timeout).await;
        if report.verified {
            state.stats.verified_actions += 1;
        } else {
            state.stats.unverified_actions += 1;
        }
        state.trace.push(format!(
            "called {} via {}: verified={} observed={:?}",
            report.call.describe(),
            call.name,
            report.verified,
            report.observed_state
        ));
        output.content = serde_json::json!({
            "called": format!("{}.{}", checked.domain, checked.service),
            "entity_id": targets,
            "data": checked.data,
            "verified": report.verified,
            "observed_state": report.observed_state,
            "note": if report.verified {
                "Home Assistant shows the expected state."
            } else if output.is_error {
                "The call was sent but the connection to Home Assistant broke before it answered: it may or may not have run. Check with get_state before calling it again, and do not tell the user it was done."
            } else {
                "NOT verified: the expected state was not observed. Do not tell the user this was done."
            },
        })
        .to_string();
        state.actions.push(report);
        Ok(output)
    }

    /// A call that must be approved, as the approval store records it (with the targets'
    /// names and the person's language, for the question and the notice).
    fn hold(
        &self,
        checked: CheckedCall,
        targets: Vec<String>,
        reason: String,
        state: &RunState,
    ) -> Hold {
        let names = with_registry(self.home, |r| {
            targets
                .iter()
                .map(|id| r.get(id).map_or_else(|| id.clone(), |e| e.name.clone()))
                .collect()
        });
        Hold {
            call: checked,
            targets,
            names,
            session_id: self.session_id.clone(),
            reason,
            lang: state.lang(),
            tag: self
                .language
                .clone()
                .filter(|tag| Lang::known(tag).is_none()),
        }
    }

    /// The targets of a model's service call that nothing the person said points at (named
    /// by id and name for the model), or `None` when every target is accounted for.
    /// A target of another kind than Home Assistant recognised in the words counts as unnamed.
    fn unnamed_targets(&self, checked: &CheckedCall, state: &RunState) -> Option<String> {
        if !state.caller.checks_named() && state.kinds.is_empty() {
            return None;
        }
        let said = &state.said;
        let targets = target_entities(self.home, checked);
        let other_kind =
            |e: &Entity| !state.kinds.is_empty() && !state.kinds.iter().any(|k| k == e.domain());
        let unnamed: Vec<String> = with_registry(self.home, |r| {
            targets
                .iter()
                .filter_map(|id| r.get(id))
                .filter(|e| {
                    other_kind(e)
                        || (state.caller.checks_named()
                            // The device the person spoke to is what "the volume" means.
                            && (self.device_id.is_none() || e.device_id != self.device_id)
                            && !said.named(e, r))
                })
                .map(|e| format!("{} ({:?})", e.entity_id, e.name))
                .collect()
        });
        (!unnamed.is_empty()).then(|| unnamed.join(", "))
    }

    /// A model's call on one device that the words, meant for one, fit no better than others
    /// of its kind: the target and those others, named for the model. The device the person
    /// spoke to is theirs to mean.
    fn picked_among(&self, checked: &CheckedCall, state: &RunState) -> Option<(String, String)> {
        if !state.caller.checks_named() {
            return None;
        }
        let targets = target_entities(self.home, checked);
        let [target] = targets.as_slice() else {
            return None;
        };
        with_registry(self.home, |r| {
            let entity = r.get(target)?;
            if self.device_id.is_some() && entity.device_id == self.device_id {
                return None;
            }
            let rivals = state.said.rivals(entity, r);
            let named = |e: &Entity| format!("{} ({:?})", e.entity_id, e.name);
            (!rivals.is_empty()).then(|| {
                let others: Vec<String> = rivals.iter().map(|e| named(e)).collect();
                (named(entity), others.join(", "))
            })
        })
    }

    /// Runs one tool call through the guards; always appends exactly one result.
    pub(crate) async fn run_call(
        &self,
        call: &ToolCall,
        state: &mut RunState,
        history: &mut Vec<Message>,
    ) -> CallEnd {
        state.stats.tool_calls += 1;
        if call.name == ToolKind::CallService.name() {
            state.stats.service_calls += 1;
        }
        let push = |history: &mut Vec<Message>, content: String, is_error: bool| {
            history.push(Message::tool_result(call, content, is_error));
        };
        let Some(kind) = ToolKind::from_name(&call.name) else {
            state.stats.rejected_tool_calls += 1;
            state.trace.push(format!("unknown tool {:?}", call.name));
            let verdict = state.detector.unknown_tool(&call.name);
            let message = format!(
                "unknown tool {:?}; available tools: {}",
                call.name,
                self.tools.names().join(", ")
            );
            push(history, ToolOutput::error(message).content, true);
            return match verdict {
                Verdict::Critical(reason) => CallEnd::Stop(reason),
                _ => CallEnd::Continue,
            };
        };
        let normalised = with_registry(self.home, |r| normalise_args(&call.arguments, r));
        let hash = call_hash(&call.name, &normalised);
        debug!(tool = %call.name, args = %normalised, "Tool call");
        let before = state
            .detector
            .before_call(&call.name, hash, kind.is_read_only());
        match &before {
            Verdict::Critical(reason) => {
                push(history, ToolOutput::error(reason.clone()).content, true);
                return CallEnd::Stop(reason.clone());
            }
            Verdict::Block(text) => {
                state.stats.loop_blocks += 1;
                state
                    .trace
                    .push(format!("blocked {}: repeated call", call.name));
                push(history, ToolOutput::error(text.clone()).content, true);
                return match state.detector.record_no_progress() {
                    Verdict::Critical(reason) => CallEnd::Stop(reason),
                    _ => CallEnd::Continue,
                };
            }
            _ => {}
        }
        let (mut content, is_error) = if let Some(earlier) = state.breaker.earlier_result(hash) {
            state.stats.breaker_hits += 1;
            state
                .trace
                .push(format!("breaker: {} {normalised} already ran", call.name));
            (earlier, false)
        } else {
            match self.execute(call, kind, &normalised, state).await {
                Ok(output) => {
                    let content = self.record(call, kind, &normalised, &output, state);
                    state.breaker.record(hash, &content);
                    (content, output.is_error)
                }
                Err(pending) => {
                    let held = serde_json::json!({
                        "status": "awaiting the user's approval",
                        "approval_id": pending.id,
                        "reason": pending.reason,
                    });
                    push(history, held.to_string(), false);
                    return CallEnd::Approval(Box::new(pending));
                }
            }
        };
        let raw = state.breaker.raw(hash).unwrap_or_default().to_owned();
        let after = state.detector.after_call(result_hash(&raw));
        let end = match before.max(after) {
            Verdict::Warn(warning) => {
                state.stats.loop_warnings += 1;
                state.trace.push(format!("loop warning on {}", call.name));
                content.push('\n');
                content.push_str(&warning);
                CallEnd::Continue
            }
            Verdict::Critical(reason) => CallEnd::Stop(reason),
            _ => CallEnd::Continue,
        };
        push(history, content, is_error);
        end
    }

    /// A known tool's call, validated and screened: its output, or (`Err`) the action held
    /// for approval.
    async fn execute(
        &self,
        call: &ToolCall,
        kind: ToolKind,
        normalised: &Value,
        state: &mut RunState,
    ) -> Result<ToolOutput, PendingAction> {
        let validated = with_registry(self.home, |r| self.tools.validate(call, r));
        match validated {
            Ok(ValidCall::CallService(checked)) => match self.screen(&checked, state) {
                Some(refused) => Ok(refused),
                None => self.service_call(checked, call, state).await,
            },
            Ok(valid) => Ok(self.tools.dispatch(&valid, self.home).await),
            Err(_)
                if kind == ToolKind::GetState
                    && self.only_asked(state)
                    && let Some(id) =
                        with_registry(self.home, |r| near_read(normalised, &state.said, r)) =>
            {
                state.trace.push(format!(
                    "get_state of an unknown id {normalised}: read {id}, the one near it the \
                     question names"
                ));
                let read = ValidCall::GetState { entity_id: id };
                Ok(self.tools.dispatch(&read, self.home).await)
            }
            Err(message) => {
                // A hint the person's words do not allow is no hint: the model takes it ("did
                // you mean light.kitchen_lights?" for the entrance light).
                let message = if state.caller.checks_named() {
                    let said = &state.said;
                    with_registry(self.home, |r| {
                        keep_suggestions(&message, |id| r.get(id).is_some_and(|e| said.named(e, r)))
                    })
                } else {
                    message
                };
                state.stats.rejected_tool_calls += 1;
                state
                    .trace
                    .push(format!("invalid {} call: {message}", call.name));
                // An entity kept from HomeClaw is something the person can change: the reply
                // names it and where, whatever the model makes of it.
                if let Some(hidden) = with_registry(self.home, |r| hidden_target(call, r)) {
                    state.hidden = Some(hidden);
                }
                Ok(ToolOutput::error(message))
            }
        }
    }

    /// A question about the home changes nothing ("which lights are on?" is no request to
    /// turn one on); a polite request in question form is a request.
    fn only_asked(&self, state: &RunState) -> bool {
        state.caller.checks_verb() && state.said.only_asks()
    }

    /// The guards a model's valid service call must pass: the person asked for a change, not
    /// its opposite, on something their words point at. `Some` is the refusal.
    fn screen(&self, checked: &CheckedCall, state: &mut RunState) -> Option<ToolOutput> {
        let call = format!("{}.{}", checked.domain, checked.service);
        if self.only_asked(state) {
            return Some(refuse(
                state,
                format!("refused {call}: the user asked a question"),
                "Refused: the user asked a question; nothing may be changed. Read the state \
                 with get_state and answer."
                    .to_owned(),
            ));
        }
        if state.said.conditional && !state.condition_holds {
            return Some(refuse(
                state,
                format!("refused {call}: the request waits on a condition"),
                "Refused: the user's request depends on a condition that cannot be checked \
                 first; nothing may be changed. Tell the user so."
                    .to_owned(),
            ));
        }
        // A toggle only when asked for: it does the opposite of the state it finds, and a
        // model reaches for it when it cannot tell what else to call ("make the lamp red").
        if state.caller.checks_verb() && checked.service == "toggle" && !state.said.asks_to_toggle()
        {
            return Some(refuse(
                state,
                format!("refused {call}: the user did not ask to toggle"),
                format!(
                    "Refused: {call} switches to whatever state the device is not in; the user                      did not ask for that. Call the service that does what they said (turn_on                      with the attribute they named, turn_off, open, close)."
                ),
            ));
        }
        // The person's verb bounds the service: "lock it" never becomes an unlock.
        let against = state
            .caller
            .checks_verb()
            .then(|| state.said.against(&checked.service))
            .flatten();
        if let Some(asked) = against {
            return Some(refuse(
                state,
                format!("refused {call}: the user asked {asked}"),
                format!(
                    "Refused: {call} is the opposite of what the user asked ({asked}). Call the \
                     service that does what they said, or ask them."
                ),
            ));
        }
        if let Some((target, rivals)) = self.picked_among(checked, state) {
            return Some(refuse(
                state,
                format!("refused {call} on {target}: the words fit {rivals} as well"),
                format!(
                    "Refused: the user's words fit {rivals} as well as {target}, and they meant \
                     one device: only they can say which. Ask the user which one they mean."
                ),
            ));
        }
        let unnamed = self.unnamed_targets(checked, state)?;
        Some(refuse(
            state,
            format!("refused {call} on {unnamed}: nothing the user said points at it"),
            format!(
                "Refused: the user did not ask about {unnamed}; nothing they said names it, its \
                 room or its kind. Act only on what the user named. If nothing in the home \
                 matches, tell the user you could not find it, and that nothing was changed."
            ),
        ))
    }

    /// What a call that ran (or was refused) leaves in the run's record; the result as the
    /// model is shown it (cut to the limit).
    fn record(
        &self,
        call: &ToolCall,
        kind: ToolKind,
        normalised: &Value,
        output: &ToolOutput,
        state: &mut RunState,
    ) -> String {
        if output.performed.is_none() && !output.is_error {
            state.trace.push(format!("{} {normalised}: ok", call.name));
            if kind == ToolKind::GetState {
                state.reads += 1;
                state
                    .observed
                    .extend(Observed::from_result(&output.content));
            }
        }
        let limit = self
            .cfg
            .truncation
            .result_limit(self.cfg.context_window_tokens);
        let content = truncate(&output.content, limit);
        if is_empty_result(&content) {
            state.stats.empty_tool_results += 1;
        } else if !output.is_error {
            state.learned += 1;
        }
        content
    }
}

fn is_empty_result(content: &str) -> bool {
    match serde_json::from_str::<Value>(content) {
        Ok(Value::Object(map)) => map
            .values()
            .any(|v| v.as_array().is_some_and(Vec::is_empty)),
        Ok(Value::Null) => true,
        _ => content.trim().is_empty(),
    }
}

/// A dry run: what would be called is recorded and answered, nothing is sent.
fn dry_run(
    checked: &CheckedCall,
    targets: &[String],
    risk: Option<String>,
    state: &mut RunState,
) -> ToolOutput {
    state.trace.push(format!(
        "dry run: would call {}.{} on {:?}",
        checked.domain, checked.service, targets
    ));
    state
        .actions
        .push(ActionReport::held_back(PlannedCall::checked(
            checked, targets,
        )));
    ToolOutput {
        content: serde_json::json!({
            "dry_run": true,
            "would_call": format!("{}.{}", checked.domain, checked.service),
            "entity_id": targets,
            "data": checked.data,
            "needs_approval": risk,
        })
        .to_string(),
        is_error: false,
        performed: None,
    }
}

#[cfg(test)]
#[path = "execute_tests.rs"]
mod tests;

/// The first target of a call that exists in Home Assistant but is hidden from HomeClaw.
fn hidden_target(call: &ToolCall, registry: &Registry) -> Option<(Hidden, String)> {
    let ids = match call.arguments.get("entity_id")? {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    ids.into_iter()
        .find_map(|id| registry.hidden(id))
        .map(|(reason, name)| (reason, name.to_owned()))
}

/// A read of an id the home does not have, for a question: the entity of that kind nearest to
/// it that the question's own words name, when exactly one is ("sensor.outdoor_temperature"
/// for "how warm is it outside?" is the outside temperature). A read changes nothing, and the
/// answer says whose state it gives.
fn near_read(arguments: &Value, said: &Parsed, registry: &Registry) -> Option<String> {
    let id = arguments.get("entity_id")?.as_str()?;
    if !id.contains('.') || registry.get(id).is_some() || registry.hidden(id).is_some() {
        return None;
    }
    let near: Vec<&str> = super::tools::near_of_its_kind(id, registry)
        .iter()
        .filter_map(|id| registry.get(id))
        .filter(|e| said.points_at(e, registry))
        .map(|e| e.entity_id.as_str())
        .collect();
    match near.as_slice() {
        [one] => Some((*one).to_owned()),
        _ => None,
    }
}

/// A call a guard refused: counted, traced, and answered to the model with the reason.
fn refuse(state: &mut RunState, trace: String, message: String) -> ToolOutput {
    state.stats.rejected_tool_calls += 1;
    state.trace.push(trace);
    ToolOutput::error(message)
}

/// A validation message with only the suggested ids (`did you mean a, b?`) that `keep`
/// allows; the suggestion is dropped when none is.
fn keep_suggestions(message: &str, keep: impl Fn(&str) -> bool) -> String {
    const ASK: &str = "did you mean ";
    let Some(start) = message.find(ASK) else {
        return message.to_owned();
    };
    let list_start = start + ASK.len();
    let Some(end) = message[list_start..].find('?').map(|e| e + list_start) else {
        return message.to_owned();
    };
    let kept: Vec<&str> = message[list_start..end]
        .split(", ")
        .filter(|id| keep(id.trim()))
        .collect();
    if kept.is_empty() {
        // "unknown entity x (did you mean y?)" → "unknown entity x"; "…; did you mean y? (use
        // search_entities when unsure)" → "…; use search_entities".
        let before = message[..start].trim_end_matches([' ', '(', ';']);
        let after = message[end + 1..].trim_start_matches(')').trim();
        return if after.is_empty() {
            before.to_owned()
        } else {
            format!(
                "{before}; {}",
                after.trim_start_matches('(').trim_end_matches(')')
            )
        };
    }
    format!(
        "{}{}{}",
        &message[..list_start],
        kept.join(", "),
        &message[end..]
    )
}

#[cfg(test)]
mod suggestion_tests {
    use super::keep_suggestions;

    #[test]
    fn only_suggestions_the_words_allow_reach_the_model() {
        let m = "unknown entity light.kitchen (did you mean light.kitchen_lights, light.hall?)";
        assert_eq!(
            keep_suggestions(m, |id| id == "light.hall"),
            "unknown entity light.kitchen (did you mean light.hall?)"
        );
        assert_eq!(
            keep_suggestions(m, |_| false),
            "unknown entity light.kitchen"
        );
        let tool = "unknown entity fan.x; did you mean fan.y? (use search_entities when unsure)";
        assert_eq!(
            keep_suggestions(tool, |_| false),
            "unknown entity fan.x; use search_entities when unsure"
        );
        assert_eq!(keep_suggestions("no hint here", |_| false), "no hint here");
    }
}
