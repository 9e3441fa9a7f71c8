//! Home Assistant's recognitions inside a run: verified and said in the person's language,
//! a partial one keeping the model to its kind of device, a household's own sentence handed
//! to Home Assistant's agent.

use serde_json::json;

use super::tests::tool_results;
use super::*;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::act::tools::ToolRegistry;
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{ScriptedModel, service_reply, text_reply};
use crate::config::AgentConfig;

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

/// A model that never answers: whatever else comes, comes first.
struct Silent;

impl crate::llm::ChatModel for Silent {
    fn chat<'a>(
        &'a self,
        _request: &'a crate::llm::ChatRequest,
    ) -> futures_util::future::BoxFuture<'a, Result<crate::llm::ChatResponse, crate::llm::LlmError>>
    {
        Box::pin(std::future::pending())
    }
}

/// A model whose answer is not ready when first asked for.
struct Slow(ScriptedModel);

impl crate::llm::ChatModel for Slow {
    fn chat<'a>(
        &'a self,
        request: &'a crate::llm::ChatRequest,
    ) -> futures_util::future::BoxFuture<'a, Result<crate::llm::ChatResponse, crate::llm::LlmError>>
    {
        Box::pin(async move {
            tokio::task::yield_now().await;
            self.0.chat(request).await
        })
    }
}

async fn run_with_model(
    model: &dyn crate::llm::ChatModel,
    home: &MemoryHome,
    text: &str,
) -> RunResult {
    let tools = ToolRegistry;
    let cfg = AgentConfig::default();
    let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
    let mut agent = Agent::new(model, home, &tools, &cfg, &approvals);
    agent.language = Some("nl".into());
    agent.run(&mut vec![Message::user(text)]).await
}

/// A recognition that misses its budget is still taken when it comes before the model's
/// answer: run and said as one in time; the model's request is given up.
#[tokio::test]
async fn a_late_recognition_before_the_models_answer_is_taken() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "on");
    let recognised = home.recognise_late();
    recognised.send(kitchen_lights_off()).unwrap();
    let result = run_with_model(&Silent, &home, "Doe het licht in de keuken uit").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert_eq!(result.reply, "Verlichting uitgezet");
    let trace = result.trace.join("\n");
    assert!(trace.contains("no answer within its budget"), "{trace}");
    assert!(trace.contains("late: before the model's answer"), "{trace}");
}

/// The model's answer first: the late recognition is dropped, whatever it would have said;
/// and a recognition that never comes leaves the model to answer.
#[tokio::test]
async fn the_models_answer_first_or_no_recognition_leaves_the_model_to_answer() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "on");
    let recognised = home.recognise_late();
    let model = ScriptedModel::new(vec![text_reply("Ik weet het niet.")]);
    let result = run_with_model(&model, &home, "Vertel me iets").await;
    assert_eq!(model.requests().len(), 1);
    let model_answered = |result: &RunResult| {
        let trace = result.trace.join("\n");
        trace.contains("answer after 1 round(s)") && !trace.contains("late: before")
    };
    assert!(model_answered(&result), "{:?}", result.trace);
    // Too late: the run is over.
    assert!(recognised.send(kitchen_lights_off()).is_err());
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));

    // A model that takes a moment: the recognition, nothing, comes first, and the run waits
    // for the model.
    drop(home.recognise_late());
    let model = Slow(ScriptedModel::new(vec![text_reply("Ik weet het niet.")]));
    let result = run_with_model(&model, &home, "Vertel me iets").await;
    assert!(model_answered(&result), "{:?}", result.trace);
    assert!(
        result
            .trace
            .iter()
            .any(|l| l.contains("nothing recognised") && l.contains("late")),
        "{:?}",
        result.trace
    );
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
}

/// A model that fails at once (a provider down answers in a millisecond) does not throw
/// away the recognition still on its way: it is waited for, and taken.
#[tokio::test]
async fn a_failing_model_waits_for_the_late_recognition() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "on");
    let recognised = home.recognise_late();
    recognised.send(kitchen_lights_off()).unwrap();
    let down = ScriptedModel::new(vec![]);
    let result = run_with_model(&down, &home, "Doe het licht in de keuken uit").await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    assert_eq!(down.requests().len(), 1);
    let trace = result.trace.join("\n");
    assert!(trace.contains("late: after the model failed"), "{trace}");
}

/// Where HomeClaw's own words find nothing, the late recognition is waited for before saying
/// so: "I found nothing" only after Home Assistant's recogniser found nothing either.
#[tokio::test]
async fn nothing_found_waits_for_the_late_recognition() {
    let home = MemoryHome::new(synthetic_home(20));
    home.set_state("light.kitchen_lights", "on");
    let run_en = |model: &'static ScriptedModel, home: &'static MemoryHome| async move {
        let tools = ToolRegistry;
        let cfg = AgentConfig::default();
        let approvals = ApprovalStore::new(std::time::Duration::from_secs(60));
        let mut agent = Agent::new(model, home, &tools, &cfg, &approvals);
        agent.language = Some("en".into());
        agent
            .run(&mut vec![Message::user(
                "switch off the lights in the cooking corner",
            )])
            .await
    };
    let home: &'static MemoryHome = Box::leak(Box::new(home));
    let model: &'static ScriptedModel = Box::leak(Box::new(ScriptedModel::new(vec![])));
    // Home Assistant knows "cooking corner" (an area alias HomeClaw was not told of).
    let recognised = home.recognise_late();
    let mut heard = kitchen_lights_off();
    heard.slots[0].1.text = "cooking corner".into();
    recognised.send(heard).unwrap();
    let result = run_en(model, home).await;
    assert_eq!(result.status, RunStatus::Done, "{:?}", result.trace);
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("off"));
    let trace = result.trace.join("\n");
    assert!(
        trace.contains("late: before saying nothing was found"),
        "{trace}"
    );
    assert!(model.requests().is_empty());
    // It recognised nothing: now HomeClaw says what it could not place.
    home.set_state("light.kitchen_lights", "on");
    drop(home.recognise_late());
    let result = run_en(model, home).await;
    assert!(result.reply.starts_with("I found nothing"), "{:?}", result);
    assert!(
        result
            .trace
            .iter()
            .any(|l| l.contains("nothing recognised")),
        "{:?}",
        result.trace
    );
    assert_eq!(home.state("light.kitchen_lights").as_deref(), Some("on"));
    assert!(model.requests().is_empty());
}
