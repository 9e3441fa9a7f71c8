//! The loop driven by scripted model replies against the in-memory home: every guard path.

use serde_json::json;

use super::*;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::act::tools::ToolRegistry;
use crate::agent::sim::{
    MemoryHome, ScriptedModel, calls_reply, service_reply, synthetic_home, text_reply,
};
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

#[tokio::test]
async fn a_call_on_a_device_nobody_named_is_refused_and_nothing_changes() {
    let home = MemoryHome::new(synthetic_home(20));
    // What a small model held to real ids does for a device the home does not have.
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "switch", "service": "turn_on",
                       "entity_id": "switch.decorative_lights"}),
            )],
        ),
        text_reply("There is no sauna in your home; nothing was changed."),
        // Asked once for a corrected call, it says the same.
        text_reply("There is no sauna in your home; nothing was changed."),
    ]);
    let mut history = vec![Message::user("turn on the sauna")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(home.calls().is_empty(), "{:?}", home.calls());
    let refusal = &tool_results(&history)[0];
    assert!(
        refusal.contains("did not ask about switch.decorative_lights"),
        "{refusal}"
    );
    assert!(result.actions.is_empty());
    assert_eq!(result.stats.rejected_tool_calls, 1);
    assert_eq!(result.reply, "I did not change anything.");

    // "Turn it off" names what the command before it named.
    let model = ScriptedModel::new(vec![
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "switch", "service": "turn_off",
                       "entity_id": "switch.decorative_lights"}),
            )],
        ),
        text_reply("Turned off."),
    ]);
    let mut history = vec![
        Message::user("are the decorative lights on?"),
        Message::assistant("Yes, they are on."),
        Message::user("turn them off please"),
    ];
    run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(home.calls().len(), 1, "{history:?}");
}

#[tokio::test]
async fn an_action_on_something_the_home_does_not_have_is_answered_without_the_model() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![]);
    let cfg = AgentConfig::default();
    let mut history = vec![Message::user("turn on the sauna")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert!(
        matches!(result.status, RunStatus::Failed(_)),
        "{:?}",
        result.trace
    );
    assert!(model.requests().is_empty());
    assert!(home.calls().is_empty());
    assert_eq!(
        result.reply,
        "I found nothing in Home Assistant that \"sauna\" could mean, so I did not change anything."
    );
    // Without named targets the model might find a use for the words: it is asked.
    let model = ScriptedModel::new(vec![text_reply("There is no sauna here.")]);
    let cfg = AgentConfig {
        named_targets: false,
        ..AgentConfig::default()
    };
    let mut history = vec![Message::user("turn on the sauna")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(result.stats.rounds, 1, "{:?}", result.trace);
}

#[tokio::test]
async fn a_reply_saying_the_opposite_of_a_read_is_answered_from_the_read() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "off");
    let read = || {
        calls_reply(
            "1",
            &[("get_state", json!({"entity_id": "light.kitchen_lights"}))],
        )
    };
    let model = ScriptedModel::new(vec![read(), text_reply("The kitchen lights are on.")]);
    let mut history = vec![Message::user("are the kitchen lights on?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.reply, "No: Kitchen Lights is off.");
    // The read is what was asked about: the model is not asked for words nobody would hear.
    assert_eq!(model.request_count(), 1, "{:?}", result.trace);
    assert!(
        result
            .trace
            .iter()
            .any(|t| t == "answered from the reads: no second model request")
    );
    // In the person's language; a reply that agrees with the read is said from the read too.
    let model = ScriptedModel::new(vec![read(), text_reply("Ja, das Licht ist an.")]);
    let mut history = vec![Message::user("Ist das Küchenlicht an?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.reply, "Nein: Kitchen Lights ist aus.");
    let model = ScriptedModel::new(vec![read(), text_reply("No, the kitchen lights are off.")]);
    let mut history = vec![Message::user("are the kitchen lights on?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.reply, "No: Kitchen Lights is off.");
    // Read off, then turned on: the read is stale and the verified action speaks.
    let model = ScriptedModel::new(vec![
        read(),
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        text_reply("The kitchen lights are on now."),
    ]);
    let mut history = vec![Message::user("check the kitchen lights and turn them on")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(
        result.reply, "Turned on Kitchen Lights.",
        "{:?}",
        result.trace
    );
}

/// "Can you lock the front door?" answered by the model with an unlock: refused with what was
/// asked, so nothing is unlocked (nor held for an approval of the opposite); the model's next,
/// right call runs.
#[tokio::test]
async fn the_person_s_verb_bounds_the_service_the_model_may_call() {
    let home = MemoryHome::new(synthetic_home(50));
    let lock = "lock.front_door";
    home.set_state(lock, "unlocked");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "lock", "service": "unlock", "entity_id": lock}),
            )],
        ),
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "lock", "service": "lock", "entity_id": lock}),
            )],
        ),
        text_reply("Locked."),
    ]);
    let mut history = vec![Message::user("Can you lock the front door lock?")];
    let cfg = AgentConfig {
        named_targets: false,
        ..cfg()
    };
    let result = run_with(&model, &home, &cfg, &mut history).await;
    let results = tool_results(&history);
    assert!(
        results[0].contains("Refused") && results[0].contains("to lock something"),
        "{}",
        results[0]
    );
    assert!(result.approval.is_none(), "{result:?}");
    assert_eq!(home.state(lock).as_deref(), Some("locked"));
    assert_eq!(result.actions.len(), 1);
    assert_eq!(result.actions[0].service, "lock");
}

/// The model's call refused by a guard, then its own account of a real device ("I could not
/// find the Front Door", which exists): failed, and HomeClaw says what did not happen instead.
#[tokio::test]
async fn a_refused_call_then_a_story_about_a_real_device_is_not_passed_on() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "lock", "service": "unlock", "entity_id": "lock.front_door"}),
            )],
        ),
        text_reply("I could not find the Front Door. Nothing was changed."),
        text_reply("I could not find the Front Door. Nothing was changed."),
    ]);
    let mut history = vec![Message::user("Lock the front door")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(home.calls().is_empty(), "{:?}", home.calls());
    assert!(
        matches!(result.status, RunStatus::Failed(_)),
        "{:?}",
        result.status
    );
    assert_eq!(result.reply, "I did not change anything.");
}

/// A small model often explains a failed call instead of correcting it: asked once, it makes
/// the corrected call, and the person hears what was verified.
#[tokio::test]
async fn a_failed_call_gets_one_round_to_be_corrected() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.bed_light", "off");
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bedroom"}),
            )],
        ),
        text_reply("The entity light.bedroom does not exist."),
        calls_reply(
            "2",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}),
            )],
        ),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user("turn on the bed light")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.reply, "Turned on Bed Light.");
    assert_eq!(home.state("light.bed_light").as_deref(), Some("on"));
    let retry = &model.requests()[2];
    assert_eq!(retry.tool_choice, ToolChoice::Required);
    assert!(
        matches!(retry.messages.last(), Some(Message::User { content }) if content == CALL_FAILED_NOTE)
    );
}

/// Issue 27 item 5: a run ends when another request could only repeat what failed. A model
/// that invents an id, is told so, and writes the same call again is not asked a third time.
#[tokio::test]
async fn two_rounds_that_teach_nothing_end_the_run() {
    let home = MemoryHome::new(synthetic_home(20));
    let invented = || service_reply("x", "light", "turn_on", "light.sauna");
    let model = ScriptedModel::new(vec![invented(), invented(), invented(), invented()]);
    let mut history = vec![Message::user("turn on the sauna light")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(model.request_count(), 2, "{:?}", result.trace);
    assert!(home.calls().is_empty());
    assert!(
        matches!(result.status, RunStatus::Failed(_)),
        "{:?}",
        result.status
    );
    assert_eq!(result.reply, "I did not change anything.");
    assert!(
        result
            .trace
            .iter()
            .any(|t| t == "2 rounds taught nothing new: said what was done and read"),
        "{:?}",
        result.trace
    );
    // A round that found something is progress: the model gets its next round.
    let model = ScriptedModel::new(vec![
        invented(),
        calls_reply("s", &[("search_entities", json!({"query": "bed light"}))]),
        service_reply("b", "light", "turn_on", "light.bed_light"),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user("turn on the bed light")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(home.state("light.bed_light").as_deref(), Some("on"));
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
}

/// A question is answered once the model has read what it asks about; a read of something
/// else is not the answer, and the model gets its next round to read the right thing.
#[tokio::test]
async fn a_question_ends_at_the_read_of_what_it_asks_about() {
    let home = MemoryHome::new(synthetic_home(20));
    let read = |id: &str| calls_reply(id, &[("get_state", json!({"entity_id": id}))]);
    let model = ScriptedModel::new(vec![
        read("light.kitchen_lights"),
        read("lock.front_door"),
        text_reply("The front door is unlocked."),
    ]);
    let mut history = vec![Message::user("is the front door locked?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(model.request_count(), 2, "{:?}", result.trace);
    assert_eq!(result.reply, "Yes: Front Door is locked.");
    assert_eq!(result.status, RunStatus::Done);
}

/// A request the word tables do not understand is still one request: the model's verified
/// call answers it, and the model is not asked for a sentence nobody would hear.
#[tokio::test]
async fn one_request_ends_at_its_verified_call() {
    let home = MemoryHome::new(synthetic_home(20));
    let call = service_reply("1", "light", "turn_on", "light.bed_light");
    let model = ScriptedModel::new(vec![call, text_reply("The bed light is now on.")]);
    let cfg = AgentConfig {
        answer_from_verification: true,
        ..cfg()
    };
    let mut history = vec![Message::user("get the bed light going")];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(model.request_count(), 1, "{:?}", result.trace);
    assert_eq!(result.reply, "Turned on Bed Light.");
    // Two requests joined: the model may have more to do.
    let model = ScriptedModel::new(vec![
        service_reply("2", "light", "turn_off", "light.bed_light"),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user(
        "get the bed light dark and then the kitchen too",
    )];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert_eq!(model.request_count(), 2, "{:?}", result.trace);
}

/// A question's read of an id the home does not have is the one near it that the question
/// names: "how warm is it outside?" read as `sensor.outdoor_temperature` answers from the
/// outside temperature, at once; a near id the words do not name stays an error.
#[tokio::test]
async fn a_question_s_read_of_a_near_miss_id_reads_what_the_words_name() {
    let home = MemoryHome::new(synthetic_home(20));
    let read = |id: &str| calls_reply(id, &[("get_state", json!({"entity_id": id}))]);
    let model = ScriptedModel::new(vec![read("sensor.outdoor_temperature")]);
    let mut history = vec![Message::user("how warm is it outside?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(
        result.reply, "Outside Temperature is 12.5.",
        "{:?}",
        result.trace
    );
    assert_eq!(model.request_count(), 1);
    // The kitchen light is near `light.kitchen_light`, but the question names the bedroom's.
    let model = ScriptedModel::new(vec![read("light.kitchen_light"), text_reply("On.")]);
    let mut history = vec![Message::user("is the bedroom light on?")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(
        tool_results(&history)[0].contains("unknown entity"),
        "{:?}",
        result.trace
    );
}

/// "Heat pump to 20 please": the model's call on the device named "HeatPump" is on what the
/// person named, said as two words.
#[tokio::test]
async fn a_name_said_as_two_words_is_what_the_model_may_act_on() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "climate", "service": "set_temperature",
                       "entity_id": "climate.heatpump", "data": {"temperature": 20}}),
            )],
        ),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user("Heat pump to 20 please")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(home.calls().len(), 1, "{:?}", result.trace);
    assert_eq!(result.stats.rejected_tool_calls, 0, "{:?}", result.trace);
}

/// Issue 37: the small model set the thermostat and forgot "if it is above 23".
#[tokio::test]
async fn a_request_on_a_condition_changes_nothing_on_either_path() {
    let home = MemoryHome::new(synthetic_home(20));
    let call = calls_reply(
        "c",
        &[(
            "call_service",
            serde_json::json!({"domain": "light", "service": "turn_off",
            "entity_id": "light.kitchen_lights"}),
        )],
    );
    for fast_path in [true, false] {
        let model = ScriptedModel::new(vec![
            call.clone(),
            text_reply("Done."),
            text_reply("Done."),
            text_reply("Done."),
        ]);
        let cfg = AgentConfig {
            fast_path,
            ..AgentConfig::default()
        };
        // A condition HomeClaw cannot read: the weather, a person.
        let mut history = vec![Message::user(if fast_path {
            "Turn off the kitchen lights if it gets dark"
        } else {
            "If anyone is home then turn off the kitchen lights"
        })];
        let result = run_with(&model, &home, &cfg, &mut history).await;
        assert!(
            matches!(result.status, RunStatus::Failed(_)),
            "{fast_path}: {:?}",
            result.status
        );
        assert!(result.reply.contains("condition"), "{}", result.reply);
        assert!(home.calls().is_empty(), "{fast_path}: {:?}", home.calls());
    }
}

/// A condition on a device's state is read from the registry: when it holds the request runs
/// (verified like any call), when it does not nothing runs and the person hears the state.
#[tokio::test]
async fn a_condition_homeclaw_can_read_decides_whether_the_request_runs() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![]);
    let cfg = AgentConfig::default();
    let text = "Turn off the kitchen lights if the bed light is on";
    home.set_state("light.bed_light", "off");
    let result = run_with(&model, &home, &cfg, &mut vec![Message::user(text)]).await;
    assert_eq!(result.status, RunStatus::Done);
    assert_eq!(
        result.reply,
        "Bed Light is off, so I did not change anything."
    );
    assert!(home.calls().is_empty(), "{:?}", home.calls());
    home.set_state("light.bed_light", "on");
    let result = run_with(&model, &home, &cfg, &mut vec![Message::user(text)]).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    let calls = home.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(
        (calls[0].domain.as_str(), calls[0].service.as_str()),
        ("light", "turn_off")
    );
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert!(model.requests().is_empty());
}

/// Home Assistant's recognition of a Dutch "turn off the lights in the kitchen".
fn kitchen_lights_off() -> crate::ha::recognise::Recognition {
    use crate::ha::recognise::{Recognition, Slot, Source};
    let slot = |v: &str| Slot {
        value: json!(v),
        text: v.into(),
    };
    Recognition {
        intent: "HassTurnOff".into(),
        slots: vec![
            ("area".into(), slot("Kitchen")),
            ("domain".into(), slot("light")),
        ],
        targets: vec![("light.kitchen_lights".into(), true)],
        matched: true,
        ..recognised(Source::Builtin)
    }
}

/// A recognition with nothing in it but its source: each test sets what it is about.
fn recognised(source: crate::ha::recognise::Source) -> crate::ha::recognise::Recognition {
    crate::ha::recognise::Recognition {
        intent: String::new(),
        slots: Vec::new(),
        targets: Vec::new(),
        matched: false,
        unmatched: Vec::new(),
        source,
    }
}

async fn run_in(
    model: &ScriptedModel,
    home: &MemoryHome,
    language: &str,
    text: &str,
) -> (RunResult, Vec<Message>) {
    let tools = ToolRegistry;
    let cfg = AgentConfig::default();
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let mut agent = Agent::new(model, home, &tools, &cfg, &approvals);
    agent.language = Some(language.into());
    let mut history = vec![Message::user(text)];
    let result = agent.run(&mut history).await;
    (result, history)
}

#[tokio::test]
async fn what_home_assistant_recognises_in_dutch_runs_verified_and_is_said_in_dutch() {
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(kitchen_lights_off());
    let model = ScriptedModel::new(vec![]);
    let (result, _) = run_in(&model, &home, "nl", "Doe het licht in de keuken uit").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert!(model.requests().is_empty(), "no model request");
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert_eq!(result.reply, "Verlichting uitgezet");

    // Not seen to take effect: Home Assistant's own "something went wrong", never "done".
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(kitchen_lights_off());
    home.stick("light.kitchen_lights");
    let (result, _) = run_in(&model, &home, "nl", "Doe het licht in de keuken uit").await;
    assert_ne!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(result.reply, "Sorry, er is onverwacht iets misgegaan");
}

#[tokio::test]
async fn a_partial_recognition_keeps_the_model_to_its_kind_of_device() {
    use crate::ha::recognise::{Recognition, Slot, Source};
    let home = MemoryHome::new(synthetic_home(20));
    // "Zet het volume op 10": a volume, no player named; the model reaches for a light.
    home.recognise_as(Recognition {
        intent: "HassSetVolume".into(),
        slots: vec![(
            "volume_level".into(),
            Slot {
                value: json!(10.0),
                text: "10".into(),
            },
        )],
        ..recognised(Source::Builtin)
    });
    let model = ScriptedModel::new(vec![
        service_reply("v", "light", "turn_off", "light.kitchen_lights"),
        text_reply("Ik kon het volume niet instellen."),
    ]);
    let (result, history) = run_in(&model, &home, "nl", "Zet het volume op 10").await;
    assert!(home.calls().is_empty(), "{:?}", result.trace);
    assert!(
        tool_results(&history)
            .iter()
            .any(|r| r.contains("light.kitchen_lights")),
        "the refusal names the target: {:?}",
        tool_results(&history)
    );
}

#[tokio::test]
async fn a_household_s_own_sentence_is_handed_to_home_assistant_s_agent() {
    use crate::ha::recognise::{Recognition, Source};
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(Recognition {
        matched: true,
        ..recognised(Source::Trigger)
    });
    let model = ScriptedModel::new(vec![]);
    let (result, _) = run_in(&model, &home, "de", "Gute Nacht Haus").await;
    assert_eq!(result.reply, "Home Assistant: Gute Nacht Haus");
    assert_eq!(home.handed_off(), ["Gute Nacht Haus"]);
    assert!(model.requests().is_empty());
    assert!(home.calls().is_empty(), "HomeClaw itself called nothing");
}

#[tokio::test]
async fn a_model_s_verified_action_in_a_language_without_a_lexicon_is_said_in_home_assistant_s_words()
 {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        service_reply("nl", "light", "turn_off", "light.kitchen_lights"),
        text_reply("Done, the kitchen lights are off."),
    ]);
    let (result, _) = run_in(&model, &home, "nl", "Doe de Kitchen Lights uit").await;
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert_eq!(result.reply, "Uitgezet", "{:?}", result.trace);
    // Nothing done: Home Assistant's "I did not understand", in Spanish.
    let model = ScriptedModel::new(vec![text_reply("No sé.")]);
    let (result, _) = run_in(&model, &home, "es", "Enciende la sauna").await;
    assert!(home.calls().len() == 1, "nothing more ran");
    assert!(
        result.reply.starts_with("Lo siento") || result.reply == "No sé.",
        "{}",
        result.reply
    );
}

#[tokio::test]
async fn a_question_home_assistant_half_understood_in_a_language_without_a_lexicon_is_its_to_answer()
 {
    use crate::ha::recognise::{Recognition, Source};
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(Recognition {
        intent: "HassTurnOn".into(),
        unmatched: vec![("area".into(), "encendida".into())],
        ..recognised(Source::Builtin)
    });
    let model = ScriptedModel::new(vec![]);
    let question = "¿Está encendida la lámpara de noche?";
    let (result, _) = run_in(&model, &home, "es", question).await;
    assert_eq!(home.handed_off(), [question]);
    assert!(model.requests().is_empty());
    // The same half-understood words as a request go to the model, not to Home Assistant.
    let model = ScriptedModel::new(vec![text_reply("No.")]);
    let home = MemoryHome::new(synthetic_home(20));
    home.recognise_as(Recognition {
        intent: "HassTurnOn".into(),
        unmatched: vec![("name".into(), "cosas de la kitchen".into())],
        ..recognised(Source::Builtin)
    });
    let (_, _) = run_in(&model, &home, "es", "Enciende las cosas de la kitchen").await;
    assert!(home.handed_off().is_empty());
    assert_eq!(model.requests().len(), 1, "{:?}", result.trace);
    // A name nothing here has: Home Assistant's own sentence, no model, nothing run.
    home.recognise_as(Recognition {
        intent: "HassTurnOn".into(),
        unmatched: vec![("name".into(), "sauna".into())],
        ..recognised(Source::Builtin)
    });
    let (result, _) = run_in(&model, &home, "es", "Enciende la sauna").await;
    assert_eq!(
        result.reply,
        "Lo siento, no conozco ningún dispositivo llamado sauna"
    );
    assert_eq!(model.requests().len(), 1, "the model was not asked again");
    assert!(home.calls().is_empty());
}

#[tokio::test]
async fn a_toggle_runs_only_when_the_person_asked_to_toggle() {
    let home = MemoryHome::new(synthetic_home(20));
    let model = ScriptedModel::new(vec![
        service_reply("t", "light", "toggle", "light.kitchen_lights"),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user("make Kitchen Lights red")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(home.calls().is_empty(), "{:?}", result.trace);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
    let model = ScriptedModel::new(vec![
        service_reply("t", "light", "toggle", "light.kitchen_lights"),
        text_reply("Done."),
    ]);
    let mut history = vec![Message::user("toggle Kitchen Lights")];
    run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
}
