//! The loop driven by scripted model replies against the in-memory home: every guard path.

use serde_json::json;

use super::*;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::act::tools::ToolRegistry;
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{ScriptedModel, calls_reply, text_reply};
use crate::config::AgentConfig;

/// The model's loop: these tests script what the model says, so nothing takes the fast path
/// and the model writes every reply.
pub(crate) fn cfg() -> AgentConfig {
    AgentConfig {
        fast_path: false,
        answer_from_verification: false,
        ..AgentConfig::default()
    }
}

pub(crate) async fn run_with(
    model: &ScriptedModel,
    home: &MemoryHome,
    cfg: &AgentConfig,
    history: &mut Vec<Message>,
) -> RunResult {
    run_at(model, home, cfg, history, None).await
}

/// [`run_with`], said to `device` (a voice satellite).
pub(crate) async fn run_at(
    model: &ScriptedModel,
    home: &MemoryHome,
    cfg: &AgentConfig,
    history: &mut Vec<Message>,
    device: Option<&str>,
) -> RunResult {
    let tools = ToolRegistry;
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let mut agent = Agent::new(model, home, &tools, cfg, &approvals);
    agent.device_id = device.map(str::to_owned);
    agent.run(history).await
}

pub(crate) fn tool_results(history: &[Message]) -> Vec<String> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn turn_on_the_kitchen_light_end_to_end() {
    let home = MemoryHome::new(synthetic_home(50));
    home.set_state("light.kitchen_lights", "off");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[("search_entities", json!({"query": "kitchen light"}))],
        ),
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        text_reply("The kitchen light is on."),
    ]);
    let mut history = vec![Message::user("turn on the kitchen light")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.status, RunStatus::Done);
    // HomeClaw says what it verified; the model's sentence stays in the trace.
    assert_eq!(result.reply, "Turned on Kitchen Lights.");
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
    assert_eq!(result.actions.len(), 1);
    assert_eq!(result.stats.rounds, 3);
    assert_eq!(result.stats.tool_calls, 2);
    let results = tool_results(&history);
    assert!(
        results[0].contains("light.kitchen_lights"),
        "{}",
        results[0]
    );
    // The second request carried the first call and its result, in order.
    let requests = model.requests();
    let second = &requests[1].messages;
    assert!(
        matches!(&second[1], Message::Assistant { tool_calls, .. } if tool_calls[0].name == "search_entities")
    );
    assert!(matches!(&second[2], Message::Tool { tool_call_id, .. } if tool_call_id == "call_1_0"));
    assert_eq!(requests[0].tools.len(), 4);
    // An action command starts with a required tool call; later rounds are free.
    assert_eq!(requests[0].tool_choice, ToolChoice::Required);
    assert_eq!(requests[1].tool_choice, ToolChoice::Auto);
    assert_eq!(result.stats.verified_actions, 1);
    assert!(result.actions[0].verified);
    assert_eq!(
        result.actions[0].observed_state["light.kitchen_lights"],
        "on"
    );
}

#[tokio::test]
async fn small_talk_starts_without_forcing_a_tool() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![text_reply("Hello! How can I help?")]);
    let mut history = vec![Message::user("hello there")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.status, RunStatus::Done);
    assert_eq!(model.requests()[0].tool_choice, ToolChoice::Auto);
}

#[tokio::test]
async fn a_hallucinated_claim_is_retried_into_a_real_call() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        text_reply("I've turned on the bed light."),
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply("The bed light is on now."),
    ]);
    let mut history = vec![Message::user("bed light on")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.status, RunStatus::Done);
    assert_eq!(result.stats.hallucination_retries, 1);
    assert_eq!(home.state("light.bed_light").as_deref(), Some("on"));
    let retry = &model.requests()[1];
    assert_eq!(retry.tool_choice, ToolChoice::Required);
    assert!(
        matches!(retry.messages.last(), Some(Message::User { content }) if content == CORRECTIVE_NOTE)
    );
}

#[tokio::test]
async fn a_claim_that_stays_unbacked_is_reported_as_not_done() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        text_reply("Włączyłem światło w sypialni."),
        text_reply("Sprawdziłem, światło jest teraz włączone."),
    ]);
    let mut history = vec![Message::user("włącz światło w sypialni")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(matches!(result.status, RunStatus::Failed(_)));
    assert_eq!(result.reply, "Niczego nie zmieniłem.");
    assert!(!result.reply.contains("Włączyłem"));
    assert!(home.calls().is_empty());
    assert_eq!(home.state("light.bed_light").as_deref(), Some("off"));
}

#[tokio::test]
async fn a_clarification_round_trip_continues_in_the_same_history() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply("1", &[("search_entities", json!({"query": "light"}))]),
        text_reply(
            "Which light do you mean: the bed light, the kitchen lights or the ceiling lights?",
        ),
    ]);
    let mut history = vec![Message::user("turn on the light")];
    let first = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(first.status, RunStatus::ClarificationRequired);
    // HomeClaw asks, about the candidates the model named, in the order it named them.
    assert_eq!(
        first.reply,
        "Which one do you mean: Bed Light, Kitchen Lights or Ceiling Lights?"
    );

    history.push(Message::user("the bed one"));
    model.push(Ok(calls_reply(
        "2",
        &[(
            "call_service",
            json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
        )],
    )));
    model.push(Ok(text_reply("The bed light is on.")));
    let second = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(second.status, RunStatus::Done);
    assert_eq!(home.state("light.bed_light").as_deref(), Some("on"));
    // The model saw the whole exchange.
    let last = model.requests().pop().unwrap();
    assert!(
        last.messages
            .iter()
            .any(|m| matches!(m, Message::User { content } if content == "turn on the light"))
    );
}

#[tokio::test]
async fn an_approval_round_trip_executes_exactly_once() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![calls_reply(
        "1",
        &[(
            "call_service",
            json!({"domain": "lock", "service": "unlock", "entity_id": "lock.front_door"}),
        )],
    )]);
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let tools = ToolRegistry;
    let cfg = cfg();
    let mut agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
    agent.session_id = Some("s1".into());
    let mut history = vec![Message::user("unlock the front door")];
    let result = agent.run(&mut history).await;
    assert_eq!(result.status, RunStatus::ApprovalRequired);
    let pending = result.approval.clone().unwrap();
    assert_eq!(pending.session_id.as_deref(), Some("s1"));
    // The question names the door in words; the id is the API's field, not the sentence's.
    assert!(!result.reply.contains(&pending.id), "{}", result.reply);
    assert!(result.reply.contains("Front Door"), "{}", result.reply);
    assert!(home.calls().is_empty(), "nothing runs before approval");
    assert_eq!(home.state("lock.front_door").as_deref(), Some("locked"));

    let report = crate::agent::act::approval::execute_approved(
        &home,
        &approvals,
        &pending.id,
        std::time::Duration::from_secs(1),
    )
    .await
    .unwrap()
    .report;
    assert!(report.verified);
    assert_eq!(home.state("lock.front_door").as_deref(), Some("unlocked"));
    let again = crate::agent::act::approval::execute_approved(
        &home,
        &approvals,
        &pending.id,
        std::time::Duration::from_secs(1),
    )
    .await;
    assert!(matches!(
        again,
        Err(crate::agent::act::approval::ExecuteError::Approval(
            crate::agent::act::approval::ApprovalError::AlreadyUsed(_)
        ))
    ));
    assert_eq!(home.calls().len(), 1);
}

#[tokio::test]
async fn after_max_iterations_homeclaw_says_what_was_done_without_asking_the_model() {
    let home = MemoryHome::new(synthetic_home(50));
    let model = ScriptedModel::default();
    for i in 0..8 {
        let id = if i % 2 == 0 {
            "light.bed_light"
        } else {
            "light.ceiling_lights"
        };
        model.push(Ok(calls_reply(
            &i.to_string(),
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": id,
                "data": {"brightness_pct": 10 + i}}),
            )],
        )));
    }
    model.push(Ok(text_reply(
        "I changed the lights several times; the bed light is on.",
    )));
    let mut history = vec![Message::user("make the lights dance")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(result.stats.max_iterations_reached);
    // No ninth request: HomeClaw says what the eight rounds did, from what it verified.
    assert_eq!(result.stats.rounds, 8);
    assert_eq!(model.requests().len(), 8);
    assert_eq!(result.actions.len(), 8);
    assert!(result.reply.contains("Bed Light"), "{}", result.reply);
    assert!(!result.reply.contains("several times"), "{}", result.reply);
}

#[tokio::test]
async fn a_final_answer_without_text_still_says_what_happened() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply(""),
    ]);
    let cfg = AgentConfig {
        max_iterations: 1,
        ..cfg()
    };
    let mut history = vec![Message::user("bed light on")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(result.reply, "Turned on Bed Light.");
}

#[tokio::test]
async fn a_model_failure_fails_the_run_clearly() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::default();
    model.push(Err(crate::llm::LlmError::Exhausted { attempts: vec![] }));
    let mut history = vec![Message::user("hi")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(
        matches!(&result.status, RunStatus::ModelUnavailable(r) if r.contains("every model failed"))
    );
}

#[tokio::test]
async fn a_broken_history_is_repaired_before_sampling() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![text_reply("Hello again.")]);
    let orphan_call = crate::llm::ToolCall {
        id: "old".into(),
        name: "get_state".into(),
        arguments: json!({"entity_id": "light.bed_light"}),
        provider_data: None,
    };
    let mut history = vec![
        Message::user("earlier"),
        Message::assistant_calls("", vec![orphan_call]),
        Message::user("hello"),
    ];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.stats.repaired_messages, 1);
    let sent = &model.requests()[0].messages;
    assert!(
        matches!(&sent[2], Message::Tool { content, .. } if content == crate::agent::model::repair::RECOVERED)
    );
}

#[tokio::test]
async fn huge_results_are_truncated_to_the_window_share() {
    // A sensor with a huge attribute, as some integrations produce.
    let big: String = (0..5000).map(|i| format!("row {i}\n")).collect();
    let mut registry = synthetic_home(20);
    registry.apply_state_changed(&json!({"entity_id": "sensor.big", "new_state": {
        "entity_id": "sensor.big", "state": "ok", "attributes": {"rows": big}, "last_updated": "z"}}));
    let home = MemoryHome::new(registry);
    let model = ScriptedModel::new(vec![
        calls_reply("1", &[("get_state", json!({"entity_id": "sensor.big"}))]),
        text_reply("ok"),
    ]);
    let cfg = AgentConfig {
        context_window_tokens: 10_000,
        ..cfg()
    };
    let mut history = vec![Message::user("read the big sensor")];
    run_with(&model, &home, &cfg, &mut history).await;
    let result = &tool_results(&history)[0];
    assert!(
        result.chars().count() <= 12_000,
        "{}",
        result.chars().count()
    );
    assert!(result.contains("characters cut"));
}

#[tokio::test]
async fn rejected_text_calls_are_reported_back_and_the_run_goes_on() {
    let home = MemoryHome::new(synthetic_home(20));
    let mut rejected = text_reply("{\"name\": \"open_all\", \"arguments\": {}}");
    rejected.rejected.push(crate::llm::types::RejectedCall {
        name: "open_all".into(),
        reason: "unknown tool \"open_all\"".into(),
    });
    let model = ScriptedModel::new(vec![
        rejected,
        text_reply("I cannot do that."),
        // Asked once for a corrected call, it says the same.
        text_reply("I cannot do that."),
    ]);
    let mut history = vec![Message::user("open all")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    // An action was asked for and none ran: not "done", and the reply says so first.
    assert!(
        matches!(result.status, RunStatus::Failed(_)),
        "{:?}",
        result.status
    );
    assert_eq!(result.reply, "I did not change anything.");
    assert_eq!(result.stats.rejected_tool_calls, 1);
    let second = &model.requests()[1].messages;
    assert!(
        matches!(second.last(), Some(Message::User { content }) if content.contains("not run"))
    );
}

#[tokio::test]
async fn an_action_claim_after_a_failed_call_is_not_passed_on() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "media_player", "service": "turn_on", "entity_id": "media_player.garage_tv"}),
            )],
        ),
        text_reply("The TV in the garage has been turned on."),
        text_reply("The TV in the garage has been turned on."),
        text_reply("The TV in the garage has been turned on."),
    ]);
    let mut history = vec![Message::user("turn on the TV in the garage")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    // Told once to back its claim, once to correct the failed call.
    assert_eq!(result.stats.hallucination_retries, 2);
    assert!(matches!(result.status, RunStatus::Failed(_)));
    assert_eq!(result.reply, "I did not change anything.");
    assert!(home.calls().is_empty());
}

#[tokio::test]
async fn a_command_the_fast_path_resolves_runs_without_the_model_and_is_answered_from_verification()
{
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![]);
    let cfg = AgentConfig::default();
    let mut history = vec![Message::user("Wyłącz Kitchen Lights")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.stats.rounds, 0, "no model request");
    assert!(model.requests().is_empty());
    assert_eq!(result.actions.len(), 1);
    assert!(result.actions[0].verified);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert_eq!(result.reply, "Wyłączono: Kitchen Lights.");
    // The transcript is the one a model's call would leave: call, result, answer.
    assert!(matches!(&history[1], Message::Assistant { tool_calls, .. } if tool_calls.len() == 1));
    assert!(matches!(
        &history[2],
        Message::Tool {
            is_error: false,
            ..
        }
    ));
    assert_eq!(history[3], Message::assistant("Wyłączono: Kitchen Lights."));
}

#[tokio::test]
async fn a_fast_path_action_that_needs_approval_is_held_like_any_other() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![]);
    let cfg = AgentConfig::default();
    let mut history = vec![Message::user("unlock the front door")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(
        result.status,
        RunStatus::ApprovalRequired,
        "{:?}",
        result.trace
    );
    assert!(result.approval.is_some());
    assert!(home.calls().is_empty(), "nothing runs before approval");
    assert_eq!(home.state("lock.front_door").as_deref(), Some("locked"));
}

#[tokio::test]
async fn a_command_the_fast_path_cannot_resolve_goes_to_the_model() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![text_reply("Hello!")]);
    let cfg = AgentConfig::default();
    let mut history = vec![Message::user("hello there")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(result.reply, "Hello!");
    assert_eq!(result.stats.rounds, 1);
}

#[tokio::test]
async fn a_call_written_as_text_is_sent_back_once_then_the_real_call_runs() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "off");
    let model = ScriptedModel::new(vec![
        text_reply("To do that, call the `light.turn_on` service on light.kitchen_lights."),
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        text_reply("The kitchen lights are on."),
    ]);
    let mut history = vec![Message::user("turn on the kitchen lights")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.stats.hallucination_retries, 1);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
    assert!(!result.reply.contains("light.turn_on"), "{}", result.reply);
}

#[tokio::test]
async fn a_reply_that_echoes_a_guard_note_is_replaced_by_what_was_verified() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.bed_light", "off");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply(
            "[Note: you already made this exact call in this turn; this is its earlier result. \
             Do not call it again.]",
        ),
    ]);
    let mut history = vec![Message::user("make the bed light red")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.reply, "Turned on Bed Light.");
}

#[tokio::test]
async fn a_verified_single_action_is_answered_without_a_second_model_request() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "off");
    let model = ScriptedModel::new(vec![calls_reply(
        "1",
        &[(
            "call_service",
            json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights",
                "data": {"brightness_pct": 40}}),
        )],
    )]);
    let cfg = AgentConfig {
        fast_path: false,
        ..AgentConfig::default()
    };
    let mut history = vec![Message::user("set the kitchen lights to 40%")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.stats.rounds, 1);
    assert_eq!(result.reply, "Set Kitchen Lights to 40%.");
    // A question after the action still goes back to the model.
    let model = ScriptedModel::new(vec![
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_off", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        text_reply("Off; the bed light is still on."),
    ]);
    let mut history = vec![Message::user(
        "turn off the kitchen lights and tell me which lights are still on",
    )];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(result.stats.rounds, 2);
}

#[tokio::test]
async fn the_last_word_after_the_round_budget_is_held_to_the_same_rules() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply("1", &[("search_entities", json!({"query": "pool pump"}))]),
        text_reply("The pool pump is now on."),
    ]);
    let cfg = AgentConfig {
        max_iterations: 1,
        ..cfg()
    };
    let mut history = vec![Message::user("turn on the pool pump")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert!(
        matches!(result.status, RunStatus::Failed(_)),
        "{:?}",
        result.status
    );
    assert_eq!(result.reply, "I did not change anything.");
    assert!(home.calls().is_empty());
}
