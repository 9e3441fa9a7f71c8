//! Executing calls, driven through whole runs with scripted model replies against the
//! in-memory home: verification, approval, policy, dry runs, the breaker and loop guards,
//! argument validation.

use serde_json::json;

use crate::agent::RunStatus;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::act::tools::ToolRegistry;
use crate::agent::model::repair::repair;
use crate::agent::run::tests::{cfg, run_with, tool_results};
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{ScriptedModel, calls_reply, text_reply};
use crate::agent::{Agent, AgentConfig};
use crate::llm::Message;

#[tokio::test]
async fn a_device_that_does_not_change_is_reported_honestly() {
    let home = MemoryHome::new(synthetic_home(20));
    home.stick("light.bed_light");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply("Done, the bed light is on."),
    ]);
    let mut history = vec![Message::user("turn on the bed light")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.stats.unverified_actions, 1);
    assert!(!result.actions[0].verified);
    assert_eq!(result.actions[0].observed_state["light.bed_light"], "off");
    assert!(
        result.reply.contains("could not confirm") && result.reply.contains("Bed Light: off"),
        "{}",
        result.reply
    );
    // The model was told plainly, too.
    assert!(tool_results(&history)[0].contains("NOT verified"));
}

/// The connection breaks after a call was sent: the call is not reported as failed (it may
/// have run) but verified like any other, and the model is told to check before calling again.
#[tokio::test]
async fn a_call_whose_answer_was_lost_is_verified_not_reported_as_failed() {
    for stuck in [false, true] {
        let home = MemoryHome::new(synthetic_home(20));
        home.lose_answers();
        if stuck {
            home.stick("light.bed_light");
        }
        let model = ScriptedModel::new(vec![
            calls_reply(
                "1",
                &[(
                    "call_service",
                    json!({"domain": "light", "service": "toggle", "entity_id": "light.bed_light"}),
                )],
            ),
            text_reply("The connection broke; I will check."),
        ]);
        let mut history = vec![Message::user("toggle the bed light")];
        let result = run_with(&model, &home, &cfg(), &mut history).await;
        assert_eq!(result.actions.len(), 1, "{:?}", result.trace);
        assert_eq!(result.actions[0].verified, !stuck);
        assert!(tool_results(&history)[0].contains("may or may not have run") || !stuck);
        if stuck {
            assert!(
                result.reply.contains("could not confirm"),
                "{}",
                result.reply
            );
        }
        assert_eq!(home.calls().len(), 1, "never retried blindly");
    }
}

#[tokio::test]
async fn denied_services_are_never_called() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "homeassistant", "service": "restart", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply("I cannot restart Home Assistant."),
    ]);
    let mut history = vec![Message::user("restart home assistant")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(home.calls().is_empty());
    assert!(tool_results(&history)[0].contains("denied"));
    assert!(result.actions.is_empty());
}

#[tokio::test]
async fn dry_runs_validate_and_plan_without_calling() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply("I would turn on the bed light."),
    ]);
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let tools = ToolRegistry;
    let cfg = cfg();
    let mut agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
    agent.dry_run = true;
    let mut history = vec![Message::user("turn on the bed light")];
    let result = agent.run(&mut history).await;
    assert!(home.calls().is_empty());
    assert!(result.actions[0].dry_run);
    assert_eq!(
        result.actions[0].observed_state["light.bed_light"],
        "dry run: not called"
    );
    // The API says so in the report it sends; a report of a real call does not carry it.
    let sent = serde_json::to_value(&result.actions[0]).unwrap();
    assert_eq!(sent["dry_run"], true);
    assert_eq!(sent["service"], "turn_on");
    assert!(sent.get("data").is_none());
}

#[test]
fn a_report_shows_what_was_set_and_never_a_code() {
    let report = |data: serde_json::Value| {
        serde_json::to_value(crate::agent::act::verify::ActionReport::held_back(
            crate::agent::act::call::PlannedCall {
                domain: "lock".into(),
                service: "unlock".into(),
                entity_ids: vec!["lock.front_door".into()],
                data,
            },
        ))
        .unwrap()
    };
    let sent = report(json!({"code": "1234", "brightness_pct": 40}));
    assert_eq!(sent["data"], json!({"brightness_pct": 40}));
    assert!(!sent.to_string().contains("1234"));
    // A code alone is not shown as an empty object either.
    assert!(report(json!({"code": "1234"})).get("data").is_none());
}

#[tokio::test]
async fn the_trace_never_shows_secrets() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[("get_state", json!({"entity_id": "light.hunter2secret"}))],
        ),
        text_reply("No such light."),
    ]);
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let tools = ToolRegistry;
    let cfg = cfg();
    let mut agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
    agent.secrets = vec!["hunter2secret".into()];
    let mut history = vec![Message::user("check light")];
    let result = agent.run(&mut history).await;
    assert!(!result.trace.is_empty());
    assert!(
        result.trace.iter().all(|l| !l.contains("hunter2secret")),
        "{:?}",
        result.trace
    );
    assert!(result.trace.iter().any(|l| l.contains("***")));
}

#[tokio::test]
async fn sloppy_duplicates_in_one_reply_hit_the_breaker() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[
                ("get_state", json!({"entity_id": " Light.Kitchen_Lights "})),
                ("get_state", json!({"entity_id": "light.kitchen_lights"})),
                ("get_state", json!({"entity_id": "Kitchen Lights"})),
            ],
        ),
        text_reply("It is on."),
    ]);
    let mut history = vec![Message::user("is the kitchen light on?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.stats.breaker_hits, 2);
    let results = tool_results(&history);
    assert_eq!(results.len(), 3);
    assert!(results[1].contains("you already made this exact call"));
    assert!(results[2].starts_with(&results[0]));
}

#[tokio::test]
async fn a_repeated_service_call_is_not_executed_twice() {
    let home = MemoryHome::new(synthetic_home(20));
    let toggle = json!({"domain": "light", "service": "toggle", "entity_id": "light.bed_light"});
    let model = ScriptedModel::new(vec![
        calls_reply("1", &[("call_service", toggle.clone())]),
        calls_reply("2", &[("call_service", toggle)]),
        text_reply("Toggled."),
    ]);
    let mut history = vec![Message::user("toggle the bed light")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(
        home.calls().len(),
        1,
        "the breaker kept the second toggle from running"
    );
    assert_eq!(home.state("light.bed_light").as_deref(), Some("on"));
    assert_eq!(result.stats.breaker_hits, 1);
}

#[tokio::test]
async fn repeating_one_call_warns_then_blocks_then_stops() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::default();
    for i in 0..40 {
        model.push(Ok(calls_reply(
            &i.to_string(),
            &[("get_state", json!({"entity_id": "light.bed_light"}))],
        )));
    }
    // The loop guards themselves: the run does not end at the first stalled rounds.
    let cfg = AgentConfig {
        max_iterations: 40,
        max_stalled_rounds: 0,
        ..cfg()
    };
    let mut history = vec![Message::user("watch the bed light")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    let results = tool_results(&history);
    assert!(!results[8].contains("Warning"));
    assert!(results[9].contains("Warning:"), "{}", results[9]);
    assert!(results[19].contains("Blocked:"), "{}", results[19]);
    assert_eq!(result.status, RunStatus::ClarificationRequired);
    // The guard's reason is the trace's; the person gets a question.
    assert!(
        result.trace.iter().any(|t| t.contains("no progress")),
        "{:?}",
        result.trace
    );
    assert!(!result.reply.contains("no progress"), "{}", result.reply);
    assert!(result.stats.loop_warnings >= 1 && result.stats.loop_blocks >= 1);
    assert!(
        results.len() <= 31,
        "stopped by the global breaker, got {}",
        results.len()
    );
    // Every call got exactly one result.
    assert_eq!(
        repair(&mut history.clone(), &ToolRegistry.names()).changes(),
        0
    );
}

#[tokio::test]
async fn unknown_tools_get_an_error_and_three_of_them_stop_the_run() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::default();
    for i in 0..12 {
        model.push(Ok(calls_reply(
            &i.to_string(),
            &[("unlock_all", json!({}))],
        )));
    }
    let cfg = AgentConfig {
        max_iterations: 20,
        max_stalled_rounds: 0,
        ..cfg()
    };
    let mut history = vec![Message::user("open everything")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert!(tool_results(&history)[0].contains("unknown tool \\\"unlock_all\\\""));
    assert_eq!(result.status, RunStatus::ClarificationRequired);
    assert!(
        result.trace.iter().any(|t| t.contains("3 calls")),
        "{:?}",
        result.trace
    );
    assert_eq!(result.stats.rejected_tool_calls, 3);
    assert_eq!(result.stats.rounds, 3, "stopped long before max_iterations");
    assert!(home.calls().is_empty());
}

#[tokio::test]
async fn invalid_arguments_come_back_as_explanations_the_model_can_fix() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "off");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[
                (
                    "call_service",
                    json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen"}),
                ),
                (
                    "call_service",
                    json!({"domain": "light", "service": "turn_on"}),
                ),
                (
                    "search_entities",
                    json!({"query": "x", "limit": "50", "colour": "red"}),
                ),
                ("get_state", json!("light.kitchen_lights")),
            ],
        ),
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "light", "service": "light.turn_on",
                "entity_id": ["light.kitchen_lights"]}),
            )],
        ),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user("kitchen light on")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    let results = tool_results(&history);
    assert!(
        results[0].contains("did you mean light.kitchen_lights"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("entity_id (one or a list) or area_id"),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains("unknown argument \\\"colour\\\""),
        "{}",
        results[2]
    );
    assert!(
        results[3].contains("must be a JSON object"),
        "{}",
        results[3]
    );
    assert_eq!(result.stats.rejected_tool_calls, 4);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
}

#[tokio::test]
async fn relaxed_arguments_are_accepted() {
    let home = MemoryHome::new(synthetic_home(200));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "search_entities",
                json!({"query": "light", "limit": "2", "area": "living room"}),
            )],
        ),
        text_reply("ok"),
    ]);
    let mut history = vec![Message::user("lights in the living room?")];
    run_with(&model, &home, &cfg(), &mut history).await;
    let results = tool_results(&history);
    let parsed: serde_json::Value = serde_json::from_str(&results[0]).unwrap();
    assert_eq!(parsed["candidates"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_denied_service_is_never_reported_as_happening() {
    let home = MemoryHome::new(synthetic_home(20));
    let restart = || {
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "homeassistant", "service": "restart"}),
            )],
        )
    };
    for claim in [
        "Home Assistant is restarting now.",
        "Home Assistant has been restarted.",
        "Restarting Home Assistant.",
    ] {
        let model = ScriptedModel::new(vec![restart(), text_reply(claim), text_reply(claim)]);
        let mut history = vec![Message::user("restart home assistant")];
        let result = run_with(&model, &home, &cfg(), &mut history).await;
        assert!(home.calls().is_empty());
        assert!(!result.reply.contains(claim), "{claim} → {}", result.reply);
        assert_ne!(
            result.status,
            RunStatus::Done,
            "{claim}: {:?}",
            result.trace
        );
    }
}
