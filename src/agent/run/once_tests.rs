//! A command is read once, whichever path it takes: its words split once, its mood and its
//! language decided once (counted in test builds by `text::splits` and `mood::decisions`).

use serde_json::json;

use super::tests::{cfg, run_at, run_with};
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{ScriptedModel, calls_reply, text_reply};
use crate::agent::understand::mood::decisions;
use crate::config::AgentConfig;
use crate::llm::Message;

/// The command is read once: split into words once for the mood, the language, the guards
/// and the plan, whichever path it takes (counted by `text::splits` in test builds).
#[tokio::test]
async fn a_command_is_split_into_words_once() {
    let home = MemoryHome::new(synthetic_home(50));
    home.set_state("light.kitchen_lights", "on");
    // The fast path: HomeClaw's own reading plans the call.
    crate::text::splits::take();
    assert_eq!(
        without_a_model(&home, "turn off the kitchen lights").await,
        "Turned off Kitchen Lights."
    );
    assert_eq!(crate::text::splits::take(), 1);
    // The model's path: the guards check the model's call against the same reading.
    let model = ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                json!({"domain": "light", "service": "turn_on", "entity_id": "light.kitchen_lights"}),
            )],
        ),
        text_reply("On."),
    ]);
    let mut history = vec![Message::user("turn on the kitchen lights")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.reply, "Turned on Kitchen Lights.");
    assert_eq!(crate::text::splits::take(), 1);
}

/// Whether it asks and which language it is in are decided once per command (and its words
/// split once), by one rule,
/// whichever stages read them: the own reading, the questions answered from the registry, the
/// reads, the recogniser's language, the reply.
#[tokio::test]
async fn a_commands_mood_and_language_are_decided_once() {
    let home = MemoryHome::new(synthetic_home(50));
    home.set_state("light.kitchen_lights", "on");
    let fast = AgentConfig::default();
    let said = [
        ("turn off the kitchen lights", "Turned off Kitchen Lights."),
        ("is the kitchen lights on?", "No: Kitchen Lights is off."),
        ("Ist Kitchen Lights an?", "Nein"),
        ("who turned off the kitchen lights", ""),
    ];
    decisions::take();
    crate::text::splits::take();
    for (command, reply) in said {
        let mut history = vec![Message::user(command)];
        let model = ScriptedModel::new(vec![text_reply("I cannot tell.")]);
        let result = run_at(&model, &home, &fast, &mut history, None).await;
        if !reply.is_empty() {
            assert!(
                result.reply.starts_with(reply),
                "{command}: {}",
                result.reply
            );
        }
        assert_eq!(decisions::take(), [1, 1], "{command}");
        assert_eq!(crate::text::splits::take(), 1, "{command}");
    }
}

/// Without a language tag, a question in German is German on every path: the model's English
/// explanation never reaches the person, what they hear is in their language (issue 48: "Laufen
/// die Sprinkler?" was answered in English).
#[tokio::test]
async fn an_untagged_question_is_answered_in_its_own_language_on_the_models_path() {
    let home = MemoryHome::new(synthetic_home(50));
    for (command, lang) in [
        ("Laufen die Sprinkler?", crate::lang::Lang::De),
        ("Läuft der Fernseher im Keller?", crate::lang::Lang::De),
        ("Czy zraszacze są włączone?", crate::lang::Lang::Pl),
    ] {
        let model = ScriptedModel::new(vec![
            text_reply("I could not find any sprinklers."),
            text_reply("I could not find any sprinklers."),
        ]);
        let mut history = vec![Message::user(command)];
        let result = run_at(&model, &home, &AgentConfig::default(), &mut history, None).await;
        let says = lang.says();
        assert!(
            [
                says.could_not_answer().to_owned(),
                says.nothing_changed().to_owned(),
                says.nothing_to_answer("zraszacze"),
            ]
            .iter()
            .any(|s| result.reply.starts_with(s.as_str())),
            "{command}: {}",
            result.reply
        );
    }
}

/// A command of several requests is read once too: each request is a run of the command's
/// pieces, and the verb, kind or particle one lends the next is made of pieces, never of
/// text read again (issue 45: each part was split again, 1 + n times).
#[tokio::test]
async fn a_command_of_several_requests_is_split_into_words_once() {
    let home = MemoryHome::new(synthetic_home(50));
    home.set_state("light.kitchen_lights", "on");
    home.set_state("light.bed_light", "off");
    home.set_state("light.ceiling_lights", "on");
    for (command, reply) in [
        (
            "turn off the kitchen lights and turn on the bed light",
            "Turned off Kitchen Lights. Turned on Bed Light.",
        ),
        (
            "turn off the kitchen lights, the ceiling lights",
            "Turned off Kitchen Lights. Turned off Ceiling Lights.",
        ),
    ] {
        crate::text::splits::take();
        assert_eq!(without_a_model(&home, command).await, reply, "{command}");
        assert_eq!(crate::text::splits::take(), 1, "{command}");
    }
}

/// The reply to a command run on HomeClaw's own path (a model that is never asked).
async fn without_a_model(home: &MemoryHome, command: &str) -> String {
    let mut history = vec![Message::user(command)];
    run_with(
        &ScriptedModel::new(vec![]),
        home,
        &AgentConfig::default(),
        &mut history,
    )
    .await
    .reply
}
