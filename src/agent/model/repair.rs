//! Transcript repair before every sampling: providers reject histories where a tool call has no
//! result, a result has no call, or results are out of place, and a crash or a bug elsewhere
//! must never make a session unusable.
//!
//! Rules, in order:
//! 1. Calls to names not in the whitelist are removed, with a trace line; an answered one leaves
//!    a note in its result's place that names the real tools, so the model learns from its
//!    mistake instead of repeating it (providers refuse calls to tools they were not offered).
//! 2. A result with no call is dropped; a duplicate result (same call id) is dropped.
//! 3. Results move directly after the assistant message that made their call, in call order.
//! 4. A call with no result gets a synthetic error result, unless its turn was aborted: an
//!    aborted turn's unanswered calls never ran, so they are removed instead.
//! 5. An assistant message left with neither text nor calls is dropped.

use std::collections::{HashMap, HashSet};

use crate::llm::{Message, ToolCall};

pub const RECOVERED: &str = "tool result unavailable (recovered)";

/// Makes the ids of calls about to join `history` unique within it. Providers (and the fast
/// path) number calls per response ("call_0", "fast_1"), so the same id comes back in a later
/// turn of the same conversation; a second result for an id would then be dropped by repair as
/// a duplicate and refused by the session store, losing the exchange.
pub fn unique_call_ids(calls: &mut [ToolCall], history: &[Message]) {
    let mut taken: HashSet<String> = history
        .iter()
        .flat_map(|m| match m {
            Message::Assistant { tool_calls, .. } => {
                tool_calls.iter().map(|c| c.id.clone()).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    for call in calls {
        if taken.contains(&call.id) {
            let base = call.id.clone();
            call.id = (2..)
                .map(|n| format!("{base}_{n}"))
                .find(|id| !taken.contains(id))
                .unwrap_or(base);
        }
        taken.insert(call.id.clone());
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepairReport {
    pub synthetic_results: usize,
    pub orphan_results: usize,
    pub duplicate_results: usize,
    pub moved_results: usize,
    pub removed_calls: usize,
    pub aborted_calls_removed: usize,
    pub trace: Vec<String>,
}

impl RepairReport {
    /// Messages added, dropped or moved.
    pub fn changes(&self) -> usize {
        self.synthetic_results
            + self.orphan_results
            + self.duplicate_results
            + self.moved_results
            + self.removed_calls
            + self.aborted_calls_removed
    }
}

/// What stands in for the result of a call to a tool that does not exist.
pub fn unknown_tool_note(name: &str, whitelist: &[&str]) -> String {
    format!(
        "[HomeClaw] There is no tool {name:?}, so nothing was done. The tools are: {}.",
        whitelist.join(", ")
    )
}

pub fn repair(history: &mut Vec<Message>, whitelist: &[&str]) -> RepairReport {
    let mut report = RepairReport::default();
    let (known_calls, removed_ids) = drop_unknown_calls(history, whitelist, &mut report);
    let taken = take_results(history, &known_calls, &removed_ids, whitelist, &mut report);
    rebuild(history, taken, &mut report);
    if report.moved_results > 0 {
        report.trace.push(format!(
            "repair: moved {} result(s) next to their calls",
            report.moved_results
        ));
    }
    report
}

/// Removes calls to tools not in `whitelist`; the ids of the calls that remain, and of the
/// removed ones with their tool's name.
fn drop_unknown_calls(
    history: &mut [Message],
    whitelist: &[&str],
    report: &mut RepairReport,
) -> (HashSet<String>, HashMap<String, String>) {
    let mut known_calls: HashSet<String> = HashSet::new();
    let mut removed_ids: HashMap<String, String> = HashMap::new();
    for message in history.iter_mut() {
        if let Message::Assistant { tool_calls, .. } = message {
            tool_calls.retain(|c| {
                if whitelist.contains(&c.name.as_str()) {
                    known_calls.insert(c.id.clone());
                    true
                } else {
                    removed_ids.insert(c.id.clone(), c.name.clone());
                    report.removed_calls += 1;
                    report
                        .trace
                        .push(format!("repair: removed call to unknown tool {:?}", c.name));
                    false
                }
            });
        }
    }
    (known_calls, removed_ids)
}

/// The history taken apart: the first result of each known call (with where it stood), and
/// every other message with its position.
struct Taken {
    results: HashMap<String, Message>,
    result_position: HashMap<String, usize>,
    rest: Vec<(usize, Message)>,
    was_tool: Vec<bool>,
}

fn take_results(
    history: &mut Vec<Message>,
    known_calls: &HashSet<String>,
    removed_ids: &HashMap<String, String>,
    whitelist: &[&str],
    report: &mut RepairReport,
) -> Taken {
    let mut taken = Taken {
        results: HashMap::new(),
        result_position: HashMap::new(),
        rest: Vec::with_capacity(history.len()),
        was_tool: history
            .iter()
            .map(|m| matches!(m, Message::Tool { .. }))
            .collect(),
    };
    for (index, message) in history.drain(..).enumerate() {
        match &message {
            Message::Tool { tool_call_id, .. } => {
                if let Some(name) = removed_ids.get(tool_call_id) {
                    let note = Message::user(unknown_tool_note(name, whitelist));
                    taken.rest.push((index, note));
                    continue;
                }
                if !known_calls.contains(tool_call_id) {
                    report.orphan_results += 1;
                    report.trace.push(format!(
                        "repair: dropped result for unknown call {tool_call_id}"
                    ));
                } else if taken.results.contains_key(tool_call_id) {
                    report.duplicate_results += 1;
                    report.trace.push(format!(
                        "repair: dropped duplicate result for {tool_call_id}"
                    ));
                } else {
                    taken.result_position.insert(tool_call_id.clone(), index);
                    taken.results.insert(tool_call_id.clone(), message);
                }
            }
            _ => taken.rest.push((index, message)),
        }
    }
    taken
}

/// Puts the history back: each assistant message followed by its results in call order (a
/// synthetic one for a call left unanswered).
fn rebuild(history: &mut Vec<Message>, taken: Taken, report: &mut RepairReport) {
    let Taken {
        mut results,
        result_position,
        rest,
        was_tool,
    } = taken;
    for (index, message) in rest {
        let Message::Assistant {
            content,
            tool_calls,
            provider_data,
            aborted,
        } = message
        else {
            history.push(message);
            continue;
        };
        let mut calls = tool_calls;
        if aborted {
            let before = calls.len();
            calls.retain(|c| results.contains_key(&c.id));
            let removed = before - calls.len();
            if removed > 0 {
                report.aborted_calls_removed += removed;
                report.trace.push(format!(
                    "repair: removed {removed} unexecuted call(s) of an aborted turn"
                ));
            }
        }
        if content.is_empty() && calls.is_empty() {
            continue;
        }
        let ids: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
        let names: Vec<String> = calls.iter().map(|c| c.name.clone()).collect();
        history.push(Message::Assistant {
            content,
            tool_calls: calls,
            provider_data,
            aborted,
        });
        for (offset, (id, name)) in ids.iter().zip(names).enumerate() {
            match results.remove(id) {
                Some(result) => {
                    // In place means directly after the call's message, in call order, with
                    // only results in between.
                    let expected = index + 1 + offset;
                    let in_place = result_position.get(id) == Some(&expected)
                        && was_tool[index + 1..expected].iter().all(|&t| t);
                    if !in_place {
                        report.moved_results += 1;
                    }
                    history.push(result);
                }
                None => {
                    report.synthetic_results += 1;
                    report
                        .trace
                        .push(format!("repair: synthetic result for unanswered call {id}"));
                    history.push(Message::Tool {
                        tool_call_id: id.clone(),
                        name,
                        content: RECOVERED.to_owned(),
                        is_error: true,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const TOOLS: [&str; 2] = ["get_state", "call_service"];

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: json!({}),
            provider_data: None,
        }
    }

    fn result(id: &str, text: &str) -> Message {
        Message::tool_result(&call(id, "get_state"), text, false)
    }

    #[test]
    fn a_valid_history_is_left_alone() {
        let mut history = vec![
            Message::user("hi"),
            Message::assistant_calls("", vec![call("a", "get_state"), call("b", "get_state")]),
            result("a", "1"),
            result("b", "2"),
            Message::assistant("done"),
        ];
        let before = history.clone();
        let report = repair(&mut history, &TOOLS);
        assert_eq!(history, before);
        assert_eq!(report, RepairReport::default());
    }

    #[test]
    fn a_call_without_result_gets_a_synthetic_error_result() {
        let mut history = vec![
            Message::user("hi"),
            Message::assistant_calls("", vec![call("a", "get_state")]),
            Message::user("again"),
        ];
        let report = repair(&mut history, &TOOLS);
        assert_eq!(report.synthetic_results, 1);
        assert_eq!(
            history[2],
            Message::Tool {
                tool_call_id: "a".into(),
                name: "get_state".into(),
                content: RECOVERED.into(),
                is_error: true
            }
        );
        assert_eq!(history[3], Message::user("again"));
    }

    #[test]
    fn orphan_and_duplicate_results_are_dropped() {
        let mut history = vec![
            Message::user("hi"),
            result("ghost", "?"),
            Message::assistant_calls("", vec![call("a", "get_state")]),
            result("a", "first"),
            result("a", "second"),
        ];
        let report = repair(&mut history, &TOOLS);
        assert_eq!(report.orphan_results, 1);
        assert_eq!(report.duplicate_results, 1);
        assert_eq!(
            history,
            vec![
                Message::user("hi"),
                Message::assistant_calls("", vec![call("a", "get_state")]),
                result("a", "first"),
            ]
        );
    }

    #[test]
    fn misplaced_results_move_next_to_their_call_in_call_order() {
        let mut history = vec![
            Message::assistant_calls("", vec![call("a", "get_state"), call("b", "get_state")]),
            Message::user("interjection"),
            result("b", "2"),
            result("a", "1"),
        ];
        let report = repair(&mut history, &TOOLS);
        assert_eq!(report.moved_results, 2);
        assert_eq!(
            history,
            vec![
                Message::assistant_calls("", vec![call("a", "get_state"), call("b", "get_state")]),
                result("a", "1"),
                result("b", "2"),
                Message::user("interjection"),
            ]
        );
    }

    #[test]
    fn calls_to_unknown_tools_are_removed_and_an_answered_one_leaves_a_note() {
        let mut history = vec![
            Message::assistant_calls("", vec![call("x", "rm_rf"), call("a", "get_state")]),
            result("x", "?"),
            result("a", "1"),
            Message::assistant_calls("", vec![call("y", "rm_rf")]),
        ];
        let report = repair(&mut history, &TOOLS);
        assert_eq!(report.removed_calls, 2);
        assert!(report.trace[0].contains("rm_rf"));
        assert_eq!(
            history,
            vec![
                Message::assistant_calls("", vec![call("a", "get_state")]),
                result("a", "1"),
                Message::user(unknown_tool_note("rm_rf", &TOOLS)),
            ]
        );
        assert!(unknown_tool_note("rm_rf", &TOOLS).contains("get_state"));
        // Stable: the next repair changes nothing.
        let again = repair(&mut history, &TOOLS);
        assert_eq!(again.changes(), 0);
    }

    #[test]
    fn an_aborted_turn_gets_no_synthetic_results() {
        let mut history = vec![
            Message::user("hi"),
            Message::Assistant {
                content: "partial".into(),
                tool_calls: vec![call("a", "get_state"), call("b", "call_service")],
                provider_data: None,
                aborted: true,
            },
            result("a", "1"),
        ];
        let report = repair(&mut history, &TOOLS);
        assert_eq!(report.synthetic_results, 0);
        assert_eq!(report.aborted_calls_removed, 1);
        assert_eq!(
            history,
            vec![
                Message::user("hi"),
                Message::Assistant {
                    content: "partial".into(),
                    tool_calls: vec![call("a", "get_state")],
                    provider_data: None,
                    aborted: true,
                },
                result("a", "1"),
            ]
        );
        // Idempotent.
        let again = history.clone();
        assert_eq!(repair(&mut history, &TOOLS).changes(), 0);
        assert_eq!(history, again);
    }

    #[test]
    fn call_ids_already_in_the_conversation_get_a_suffix() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "get_state".into(),
            arguments: serde_json::json!({}),
            provider_data: None,
        };
        let history = vec![
            Message::assistant_calls("", vec![call("fast_1"), call("fast_1_2")]),
            Message::tool_result(&call("fast_1"), "ok", false),
        ];
        let mut new = [call("fast_1"), call("call_0"), call("call_0")];
        unique_call_ids(&mut new, &history);
        let ids: Vec<&str> = new.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, vec!["fast_1_3", "call_0", "call_0_2"]);
    }
}
