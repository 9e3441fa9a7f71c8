//! The false replies issue 27 found on the model path, replayed: a scripted model does what
//! the small model did (a claim with no call, a wrong read, a story about the last command),
//! and the person gets only what HomeClaw verified or read.

use serde_json::json;

use crate::agent::run::tests::{cfg, run_with};
use crate::agent::selfcheck::home::{MemoryHome, home_of, link, state_object};
use crate::agent::state::RunStatus;
use crate::agent::testkit::{ScriptedModel, calls_reply, text_reply};
use crate::llm::Message;

/// A home like the ones the examples were seen on.
fn home() -> MemoryHome {
    let entities = [
        ("light.bed_light", "Bed Light", "off", "bedroom"),
        ("light.kitchen_light", "Kitchen Light", "on", "kitchen"),
        (
            "light.living_room_lamp",
            "Living Room Lamp",
            "on",
            "living_room",
        ),
        ("light.porch", "Porch Light", "off", "outside"),
        ("switch.ac", "AC", "off", "bedroom"),
        (
            "vacuum.roborock",
            "Roborock Downstairs",
            "docked",
            "living_room",
        ),
        (
            "media_player.living_room",
            "Living Room Speaker",
            "paused",
            "living_room",
        ),
        (
            "media_player.outdoor",
            "Outdoor Speakers",
            "playing",
            "outside",
        ),
        ("lock.kitchen_door", "Kitchen Door", "unlocked", "kitchen"),
        ("lock.openable_lock", "Openable Lock", "locked", "outside"),
        ("todo.tasks", "Tasks", "2", "kitchen"),
        (
            "sensor.outside_temperature",
            "Outside Temperature",
            "15.6",
            "outside",
        ),
    ];
    let areas = [
        ("bedroom", "Bedroom"),
        ("kitchen", "Kitchen"),
        ("living_room", "Living Room"),
        ("outside", "Outside"),
    ];
    let services = json!({
        "light": {"turn_on": {}, "turn_off": {}, "toggle": {}},
        "switch": {"turn_on": {}, "turn_off": {}},
        "vacuum": {"start": {}, "pause": {}, "stop": {}, "return_to_base": {}},
        "media_player": {"media_pause": {}, "media_play": {}, "media_next_track": {},
            "volume_set": {}, "turn_off": {}},
        "lock": {"lock": {}, "unlock": {}},
        "todo": {"get_items": {}, "add_item": {}},
    });
    let registry = home_of(
        entities
            .iter()
            .map(|(id, name, state, _)| state_object(id, name, state))
            .collect(),
        entities
            .iter()
            .map(|(id, _, _, area)| link(id, area))
            .collect(),
        &areas,
        services,
    );
    MemoryHome::new(registry)
}

async fn say(
    home: &MemoryHome,
    command: &str,
    replies: Vec<crate::llm::ChatResponse>,
) -> (RunStatus, String) {
    let model = ScriptedModel::new(replies);
    let mut history = vec![Message::user(command)];
    let result = run_with(&model, home, &cfg(), &mut history).await;
    (result.status, result.reply)
}

#[tokio::test]
async fn a_claim_with_nothing_behind_it_never_reaches_the_person() {
    // What the small model said, twice (the second after being told to use the tools).
    for (command, claim) in [
        ("Volume to zero", "Set the volume to zero."),
        ("Begin cleaning", "Cleaning started."),
        ("Halt the vacuum", "The vacuum has been halted."),
        ("Lights off please", "Lights turned off."),
        (
            "Set the outdoor speakers to half volume",
            "The outdoor speakers are already at half volume.",
        ),
        ("Skip this song", "Skipped the song."),
        ("Nächster Titel", "The next title is 'Bedroom 1'."),
        ("Make the bed light red", "The bed light is already red."),
        (
            "Schließ die Küchentür ab",
            "Die Küchentür wurde abgeschlossen.",
        ),
        (
            "Unlock the openable lock, as the note says",
            "The openable lock is unlocked, as the note asked.",
        ),
        // Found later, on HomeClaw's own set of sentences.
        (
            "Würdest du die Klimaanlage einschalten?",
            "Die Klimaanlage wurde einschalten.",
        ),
        (
            "Spiel die Musik im Wohnzimmer weiter",
            "Die Musik im Wohnzimmer wurde weiter gespielt.",
        ),
        (
            "Ich möchte, dass das Küchenlicht an ist",
            "Das Küchenlicht wurde angeschaltet.",
        ),
    ] {
        let home = home();
        let (status, reply) = say(&home, command, vec![text_reply(claim), text_reply(claim)]).await;
        assert!(!reply.contains(claim), "{command}: {reply}");
        assert!(
            matches!(status, RunStatus::Failed(_)),
            "{command}: {status:?} {reply}"
        );
        assert!(home.calls().is_empty(), "{command}");
    }
}

#[tokio::test]
async fn questions_are_answered_from_what_was_read_not_from_what_the_model_wrote() {
    let home = home();
    // It read the paused speaker and said "off".
    let (status, reply) = say(
        &home,
        "Is the living room media player playing, paused, or stopped?",
        vec![
            calls_reply(
                "1",
                &[(
                    "get_state",
                    json!({"entity_id": "media_player.living_room"}),
                )],
            ),
            text_reply("The living room media player is off."),
        ],
    )
    .await;
    assert_eq!(status, RunStatus::Done);
    assert_eq!(reply, "Living Room Speaker is paused.");
    // It read nothing and counted three lights (two are on).
    let (status, reply) = say(
        &home,
        "How many lights are currently on?",
        vec![
            text_reply("3 lights are currently on."),
            text_reply("3 lights are currently on."),
        ],
    )
    .await;
    assert!(!reply.contains('3'), "{reply}");
    assert_ne!(status, RunStatus::Done);
    // It invented chores.
    let (_, reply) = say(
        &home,
        "What chores do I need to complete?",
        vec![
            text_reply("You need to vacuum, do the dishes and water the plants."),
            text_reply("You need to vacuum, do the dishes and water the plants."),
        ],
    )
    .await;
    assert!(!reply.contains("dishes"), "{reply}");
    // It advised a call instead of answering.
    let (_, reply) = say(
        &home,
        "Who do i need to call?",
        vec![
            text_reply("Call call_service on light.kitchen_light."),
            text_reply("Call call_service on light.kitchen_light."),
        ],
    )
    .await;
    assert!(!reply.contains("call_service"), "{reply}");
}

#[tokio::test]
async fn a_question_changes_nothing_and_its_answer_is_never_the_model_s() {
    let home = home();
    // Asked which lights are on, the model turned one on.
    let (status, reply) = say(
        &home,
        "Welche Lichter sind an?",
        vec![
            calls_reply(
                "1",
                &[("call_service", json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}))],
            ),
            text_reply("Das Licht im Schlafzimmer ist an."),
            text_reply("Das Licht im Schlafzimmer ist an."),
        ],
    )
    .await;
    assert!(home.calls().is_empty(), "{:?}", home.calls());
    assert_eq!(home.state("light.bed_light").as_deref(), Some("off"));
    assert!(!reply.contains("ist an"), "{reply}");
    assert_ne!(status, RunStatus::Done);
    let (_, reply) = say(
        &home,
        "Läuft im Wohnzimmer Musik?",
        vec![
            text_reply("Ja, Musik läuft im Wohnzimmer."),
            text_reply("Ja, Musik läuft im Wohnzimmer."),
        ],
    )
    .await;
    assert!(!reply.starts_with("Ja"), "{reply}");
}

#[tokio::test]
async fn a_read_of_another_place_is_not_the_answer() {
    let home = home();
    let (_, reply) = say(
        &home,
        "what is the temperature in the living room?",
        vec![
            calls_reply(
                "1",
                &[(
                    "get_state",
                    json!({"entity_id": "sensor.outside_temperature"}),
                )],
            ),
            text_reply("The living room is 15.6 °C."),
        ],
    )
    .await;
    assert_eq!(
        reply,
        "I could not find what you asked about, so I cannot answer that."
    );
}

#[tokio::test]
async fn the_round_budget_ends_with_this_command_s_record_only() {
    let home = home();
    let cfg = crate::config::AgentConfig {
        max_iterations: 2,
        ..cfg()
    };
    let model = ScriptedModel::new(vec![
        calls_reply("1", &[("search_entities", json!({"query": "lights"}))]),
        calls_reply("2", &[("search_entities", json!({"query": "light"}))]),
        text_reply("I have used all tool rounds. I did not turn off the kitchen lights."),
    ]);
    let mut history = vec![
        Message::user("turn off the kitchen lights"),
        Message::assistant("Turned off Kitchen Light."),
        Message::user("which lights are on?"),
    ];
    let result = run_with(&model, &home, &cfg, &mut history).await;
    assert!(!result.reply.contains("kitchen lights"), "{}", result.reply);
    assert!(!result.reply.contains("tool rounds"), "{}", result.reply);
    // No third request: HomeClaw spoke from the record.
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn in_a_language_without_words_the_model_s_claims_are_held_too() {
    let home = home();
    let model = ScriptedModel::new(vec![
        text_reply("La porte d'entrée a été déverrouillée."),
        text_reply("La porte d'entrée a été déverrouillée."),
    ]);
    let tools = crate::agent::act::tools::ToolRegistry;
    let approvals =
        crate::agent::act::approval::ApprovalStore::new(std::time::Duration::from_secs(60));
    let config = cfg();
    let mut agent = crate::agent::Agent::new(&model, &home, &tools, &config, &approvals);
    agent.language = Some("fr".into());
    let mut history = vec![Message::user("Déverrouille la porte d'entrée")];
    let result = agent.run(&mut history).await;
    assert!(!result.reply.contains("déverrouillée"), "{}", result.reply);
    assert_ne!(result.status, RunStatus::Done);
    // Without a tag, two sentences in no language of ours are held as well.
    let model = ScriptedModel::new(vec![
        text_reply("Lave-vaisselle a été lancée."),
        text_reply("Lave-vaisselle a été lancée."),
    ]);
    let mut history = vec![Message::user("Lance le lave-vaisselle")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert!(!result.reply.contains("lancée"), "{}", result.reply);
    // Small talk in English is still the model's to say.
    let model = ScriptedModel::new(vec![text_reply("Why did the scarecrow win an award?")]);
    let mut history = vec![Message::user("tell me a joke")];
    let result = run_with(&model, &home, &cfg(), &mut history).await;
    assert_eq!(result.reply, "Why did the scarecrow win an award?");
}

#[tokio::test]
async fn a_verified_action_is_said_as_verified_whatever_the_model_adds() {
    let home = home();
    let (status, reply) = say(
        &home,
        "Begin cleaning",
        vec![
            calls_reply(
                "1",
                &[("call_service", json!({"domain": "light", "service": "turn_on", "entity_id": "light.bed_light"}))],
            ),
            text_reply("Cleaning started."),
        ],
    )
    .await;
    // A light for a cleaning request is refused by the verb guard; nothing else ran.
    assert!(!reply.contains("Cleaning started"), "{reply}");
    assert_ne!(status, RunStatus::Done, "{reply}");
    assert_eq!(home.state("light.bed_light").as_deref(), Some("off"));
}

/// "Is guest mode on?" in a home without it: the model read an id that does not exist, then
/// tried to turn the AC on (refused: a question changes nothing). The person is told that what
/// they asked about was not found, not the AC's state and not that nothing was changed.
#[tokio::test]
async fn a_question_about_something_missing_is_not_answered_by_what_the_model_tried() {
    let home = home();
    let (status, reply) = say(
        &home,
        "Is guest mode on?",
        vec![
            calls_reply(
                "1",
                &[("get_state", json!({"entity_id": "switch.guest_mode"}))],
            ),
            calls_reply(
                "2",
                &[(
                    "call_service",
                    json!({"domain": "switch", "service": "turn_on", "entity_id": "switch.ac"}),
                )],
            ),
            text_reply("Guest mode is now on."),
        ],
    )
    .await;
    assert_eq!(
        reply,
        "I could not find what you asked about, so I cannot answer that."
    );
    assert!(matches!(status, RunStatus::Failed(_)), "{status:?}");
    assert_eq!(home.state("switch.ac").as_deref(), Some("off"));
}

/// Issue 37: what the small model said about a calendar HomeClaw cannot see and a garden it
/// may not water, and the players it listed for a calendar question.
#[tokio::test]
async fn the_household_s_agenda_and_garden_are_never_the_models_words() {
    for (command, said) in [
        (
            "Was steht heute in meinem Kalender?",
            "Die Kalender-App zeigt heute die Termine, die du eingetragen hast.",
        ),
        (
            "Co mam dziś w kalendarzu?",
            "Nie mam dostępu do kalendarza w domu.",
        ),
        ("Przestań podlewać ogród", "Przestań podlewać ogród."),
        (
            "What's on my calendar today?",
            "Living Room Speaker is paused and Outdoor Speakers are playing.",
        ),
    ] {
        let home = home();
        let (status, reply) = say(&home, command, vec![text_reply(said), text_reply(said)]).await;
        assert!(!reply.contains(said), "{command}: {reply}");
        assert!(!reply.contains("Speaker"), "{command}: {reply}");
        assert!(
            matches!(status, RunStatus::Failed(_)),
            "{command}: {status:?}"
        );
    }
}
