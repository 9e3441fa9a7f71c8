//! The words bound what a run does, on the fast path and the model's: a call on a device nobody
//! named, a verb's opposite, a story after a refusal, a condition, a question's read; and a
//! run that learns nothing ends.

use serde_json::json;

use super::tests::{cfg, run_with, tool_results};
use super::*;
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{ScriptedModel, calls_reply, service_reply, text_reply};
use crate::config::AgentConfig;

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
    assert_eq!(result.actions[0].call.service, "lock");
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
