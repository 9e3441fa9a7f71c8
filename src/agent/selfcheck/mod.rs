//! Built-in guard checks that need no LLM and no Home Assistant: run by `GET /api/self-check`
//! so a user can see that the guardrails of *this* build work on *this* machine.

pub mod home;

use serde::Serialize;
use serde_json::json;

use crate::agent::act::guards::{LoopDetector, Verdict};
use crate::agent::act::normalize::{call_hash, normalise_args};
use crate::agent::act::tools::{ToolKind, ToolRegistry};
use crate::agent::model::repair::repair;
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::config::{Detectors, LoopDetectionConfig};
use crate::llm::fallback::{TextCall, parse_text_call};
use crate::llm::{Message, ToolCall};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

fn check(name: &str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        name: name.to_owned(),
        ok,
        detail: detail.into(),
    }
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args,
        provider_data: None,
    }
}

fn fallback_checks() -> Vec<Check> {
    let tools = ["get_state", "call_service"];
    let cases: [(&str, &str, bool); 4] = [
        (
            "fallback: a whole JSON object is a call",
            r#"{"name": "get_state", "arguments": {"entity_id": "light.x"}}"#,
            true,
        ),
        (
            "fallback: a fenced block is a call",
            "```json\n{\"name\": \"get_state\", \"arguments\": {}}\n```",
            true,
        ),
        (
            "fallback: JSON inside prose is not a call",
            r#"I would call {"name": "get_state", "arguments": {}} here."#,
            false,
        ),
        (
            "fallback: plain text is not a call",
            "The light is on.",
            false,
        ),
    ];
    let mut out: Vec<Check> = cases
        .iter()
        .map(|(name, text, is_call)| {
            let got = parse_text_call(text, &tools);
            let ok = matches!(got, TextCall::Call { .. }) == *is_call;
            check(name, ok, format!("{got:?}"))
        })
        .collect();
    let unknown = parse_text_call(r#"{"name": "unlock_all", "arguments": {}}"#, &tools);
    out.push(check(
        "fallback: an unknown tool is rejected, not called",
        matches!(unknown, TextCall::Rejected(_)),
        format!("{unknown:?}"),
    ));
    out
}

fn normalisation_checks() -> Vec<Check> {
    let registry = synthetic_home(20);
    let a = normalise_args(&json!({"entity_id": " Light.Kitchen_Lights "}), &registry);
    let b = normalise_args(&json!({"entity_id": "light.kitchen_lights"}), &registry);
    let c = normalise_args(&json!({"entity_id": "Kitchen Lights"}), &registry);
    vec![check(
        "normalisation: sloppy ids, friendly names and clean ids hash the same",
        call_hash("get_state", &a) == call_hash("get_state", &b) && a == c,
        format!("{a} / {b} / {c}"),
    )]
}

fn detector_checks() -> Vec<Check> {
    let quiet_global = || LoopDetectionConfig {
        global_circuit_breaker_threshold: 1000,
        ..LoopDetectionConfig::default()
    };
    let mut out = Vec::new();

    let mut d = LoopDetector::new(quiet_global());
    let verdicts: Vec<Verdict> = (0..20)
        .map(|i| {
            let v = d.before_call("call_service", 1, false);
            d.after_call(i);
            v
        })
        .collect();
    out.push(check(
        "loop detection: genericRepeat warns at 10, blocks at 20",
        matches!(verdicts[9], Verdict::Warn(_)) && matches!(verdicts[19], Verdict::Block(_)),
        format!("{:?}", (&verdicts[9], &verdicts[19])),
    ));

    let mut d = LoopDetector::new(quiet_global());
    let mut last = Verdict::Allow;
    for _ in 0..20 {
        d.before_call("get_state", 2, true);
        last = d.after_call(7);
    }
    out.push(check(
        "loop detection: knownPollNoProgress stops polling an unchanged state",
        matches!(last, Verdict::Critical(_)),
        format!("{last:?}"),
    ));

    let mut d = LoopDetector::new(LoopDetectionConfig {
        detectors: Detectors {
            generic_repeat: false,
            known_poll_no_progress: false,
            ..Default::default()
        },
        ..quiet_global()
    });
    let mut tenth = Verdict::Allow;
    for i in 0..10 {
        let v = d.before_call(if i % 2 == 0 { "a" } else { "b" }, i % 2, true);
        d.after_call(i);
        tenth = v;
    }
    out.push(check(
        "loop detection: pingPong warns on A,B,A,B…",
        matches!(tenth, Verdict::Warn(_)),
        format!("{tenth:?}"),
    ));

    let mut d = LoopDetector::new(LoopDetectionConfig::default());
    let mut unknown = Verdict::Allow;
    for _ in 0..10 {
        unknown = d.unknown_tool("nope");
    }
    out.push(check(
        "loop detection: 10 unknown tools stop the run",
        matches!(unknown, Verdict::Critical(_)),
        format!("{unknown:?}"),
    ));

    let mut d = LoopDetector::new(LoopDetectionConfig::default());
    d.before_call("get_state", 3, true);
    d.after_call(9);
    d.arm_post_compaction();
    d.before_call("get_state", 3, true);
    let after = d.after_call(9);
    out.push(check(
        "loop detection: postCompactionGuard aborts a repeat after compaction",
        matches!(after, Verdict::Critical(_)),
        format!("{after:?}"),
    ));
    out
}

fn repair_checks() -> Vec<Check> {
    let names = ToolRegistry.names();
    let c = |id: &str| call(id, "get_state", json!({}));
    let cases: Vec<(&str, Vec<Message>, usize)> = vec![
        (
            "repair: a missing result gets a synthetic one",
            vec![Message::assistant_calls("", vec![c("a")])],
            2,
        ),
        (
            "repair: an orphan result is dropped",
            vec![
                Message::user("x"),
                Message::tool_result(&c("ghost"), "r", false),
            ],
            1,
        ),
        (
            "repair: a duplicate result is dropped",
            vec![
                Message::assistant_calls("", vec![c("a")]),
                Message::tool_result(&c("a"), "1", false),
                Message::tool_result(&c("a"), "2", false),
            ],
            2,
        ),
        (
            "repair: a call to an unknown tool is removed",
            vec![
                Message::user("x"),
                Message::assistant_calls("", vec![call("z", "rm_rf", json!({}))]),
            ],
            1,
        ),
    ];
    cases
        .into_iter()
        .map(|(name, mut history, expected_len)| {
            let report = repair(&mut history, &names);
            let again = repair(&mut history, &names);
            check(
                name,
                history.len() == expected_len && report.changes() > 0 && again.changes() == 0,
                format!("{} messages after repair", history.len()),
            )
        })
        .collect()
}

async fn registry_checks() -> Vec<Check> {
    let home = MemoryHome::new(synthetic_home(20));
    let tools = ToolRegistry;
    let examples = [
        (ToolKind::GetState, json!({"entity_id": "light.bed_light"})),
        (
            ToolKind::CallService,
            json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
        ),
        (ToolKind::SearchEntities, json!({"query": "bed light"})),
        (ToolKind::ListAreas, json!({})),
    ];
    let definitions = crate::agent::home::with_registry(&home, |r| tools.definitions(r));
    let mut out = Vec::new();
    for (kind, args) in examples {
        let defined = definitions.iter().any(|d| {
            d.name == kind.name()
                && d.parameters["required"].as_array().is_none_or(|req| {
                    req.iter()
                        .all(|k| args.get(k.as_str().unwrap_or("")).is_some())
                })
        });
        let valid = crate::agent::home::with_registry(&home, |r| {
            tools.validate(&call("c", kind.name(), args.clone()), r)
        });
        let (dispatched, detail) = match &valid {
            Ok(v) => {
                let output = tools.dispatch(v, &home).await;
                (!output.is_error, output.content.chars().take(120).collect())
            }
            Err(e) => (false, e.clone()),
        };
        out.push(check(
            &format!(
                "tool registry: {} schema, validator and dispatcher agree",
                kind.name()
            ),
            defined && valid.is_ok() && dispatched,
            detail,
        ));
    }
    out.push(check(
        "tool registry: the whitelist is exactly the defined tools",
        definitions
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            == tools.names(),
        tools.names().join(", "),
    ));
    out
}

/// Every check, in a stable order.
pub async fn run_all() -> Vec<Check> {
    let mut out = fallback_checks();
    out.extend(normalisation_checks());
    out.extend(detector_checks());
    out.extend(repair_checks());
    out.extend(registry_checks().await);
    out
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn every_built_in_check_passes() {
        let checks = super::run_all().await;
        assert!(checks.len() >= 15, "{}", checks.len());
        let failed: Vec<_> = checks.iter().filter(|c| !c.ok).collect();
        assert!(failed.is_empty(), "{failed:#?}");
    }
}
