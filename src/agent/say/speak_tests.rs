//! The end of a model-path run composed from the record: what was done and read, never the
//! model's own sentence about the home.

use std::collections::BTreeMap;

use super::*;
use crate::agent::selfcheck::home::synthetic_home;

fn action(id: &str, service: &str, verified: bool, seen: &str) -> ActionReport {
    ActionReport {
        call: crate::agent::plan::PlannedCall {
            domain: id.split('.').next().unwrap().into(),
            service: service.into(),
            entity_ids: vec![id.into()],
            data: serde_json::Value::Null,
        },
        verified,
        observed_state: BTreeMap::from([(id.into(), seen.into())]),
        dry_run: false,
    }
}

/// The end of a run of `command` in the test home (parsed there, as a run parses it).
fn ending<'a>(command: &str, text: &'a str) -> Ending<'a> {
    let said = Box::leak(Box::new(Parsed::new(
        command,
        None,
        None,
        &synthetic_home(20),
    )));
    Ending {
        said,
        about_home: true,
        tried_a_change: false,
        text,
        actions: &[],
        reads: &[],
        hidden: None,
        candidates: &[],
    }
}

#[test]
fn what_was_done_is_said_from_verification_and_a_part_is_a_part() {
    let home = synthetic_home(20);
    let both = [
        action("light.kitchen_lights", "turn_off", true, "off"),
        action("switch.decorative_lights", "turn_off", false, "on"),
    ];
    let end = Ending {
        actions: &both,
        ..ending("turn off everything in the kitchen", "All done!")
    };
    let said = compose(&end, &home);
    assert!(matches!(said.status, RunStatus::Failed(_)), "{said:?}");
    assert!(
        said.reply.starts_with("Turned off Kitchen Lights."),
        "{said:?}"
    );
    assert!(
        said.reply.contains("could not confirm") && said.reply.contains("Decorative Lights: on"),
        "{said:?}"
    );
    assert!(!said.reply.contains("All done"));
    let one = [action("light.kitchen_lights", "turn_off", true, "off")];
    let end = Ending {
        actions: &one,
        ..ending("wyłącz światło w kuchni", "Gotowe, światło zgaszone.")
    };
    let said = compose(&end, &home);
    assert_eq!(said.status, RunStatus::Done);
    assert!(said.reply.contains("Kitchen Lights"), "{said:?}");
}

#[test]
fn a_question_is_answered_from_what_was_read_whatever_the_model_wrote() {
    let home = synthetic_home(20);
    let read = Observed {
        entity_id: "cover.garage_door".into(),
        name: "Garage Door".into(),
        state: "closed".into(),
        unit: None,
    };
    let reads = [&read];
    let end = Ending {
        reads: &reads,
        ..ending("is the garage door open?", "Yes, the garage door is open.")
    };
    let said = compose(&end, &home);
    assert_eq!(said.status, RunStatus::Done);
    assert_eq!(said.reply, "No: Garage Door is closed.");
    // Asked to act, only read: not done, and said so first.
    let end = Ending {
        reads: &reads,
        ..ending("open the garage door", "The garage door is now open.")
    };
    let said = compose(&end, &home);
    assert!(matches!(said.status, RunStatus::Failed(_)));
    assert_eq!(
        said.reply,
        "I did not change anything. Garage Door is closed."
    );
}

#[test]
fn the_model_s_words_about_the_home_never_reach_the_person() {
    let home = synthetic_home(20);
    // Nothing ran; the model names a real device in any words.
    for (command, text) in [
        ("begin cleaning", "Cleaning started."),
        ("lights off please", "Lights turned off."),
        (
            "Schließ die Küchentür ab",
            "Die Küchentür wurde abgeschlossen.",
        ),
    ] {
        let said = compose(&ending(command, text), &home);
        assert_ne!(said.reply, text);
        assert_ne!(said.status, RunStatus::Done, "{command}: {said:?}");
    }
    // A language HomeClaw has no words for, after a call that was refused.
    let end = Ending {
        about_home: false,
        tried_a_change: true,
        ..ending(
            "Desbloquea la puerta de entrada",
            "La puerta de entrada fue desbloqueada.",
        )
    };
    let said = compose(&end, &home);
    assert!(!said.reply.contains("desbloqueada"), "{said:?}");
    assert_ne!(said.status, RunStatus::Done);
    // A question answered from the model's memory: the states are the registry's.
    let said = compose(
        &ending("which lights are on?", "The Bed Light is on."),
        &home,
    );
    assert_eq!(said.reply, "Bed Light is off.");
    // Small talk that names nothing of the home is the model's to say.
    let end = Ending {
        about_home: false,
        ..ending("tell me a joke", "Why did the scarecrow win an award?")
    };
    assert_eq!(
        compose(&end, &home).reply,
        "Why did the scarecrow win an award?"
    );
    assert_eq!(compose(&end, &home).status, RunStatus::Done);
    // But small talk that names a device is not.
    let end = Ending {
        about_home: false,
        ..ending(
            "tell me a story",
            "Once the Front Door was unlocked all night.",
        )
    };
    assert_ne!(compose(&end, &home).status, RunStatus::Done);
    // A question about a state of something HomeClaw does not see ("guest mode" is kept
    // from Assist): the model's "No" is a sentence about the home nobody read.
    let end = Ending {
        about_home: false,
        ..ending("Is guest mode on?", "No")
    };
    let said = compose(&end, &home);
    assert_ne!(said.reply, "No", "{said:?}");
    assert_ne!(said.status, RunStatus::Done);
}

#[test]
fn a_reading_the_model_made_up_is_held_in_any_words() {
    let mut home = synthetic_home(20);
    for (id, unit) in [
        ("sensor.outside_temperature", "°C"),
        ("sensor.co2", "ppm"),
        ("sensor.power", "W"),
    ] {
        home.apply_state_changed(&serde_json::json!({"entity_id": id,
            "new_state": {"entity_id": id, "state": "1",
                "attributes": {"friendly_name": id, "unit_of_measurement": unit},
                "last_changed": "2027-01-01T00:00:00+00:00",
                "last_updated": "2027-01-01T00:00:00+00:00"}}));
    }
    for text in [
        "The CO2 level is currently 450 ppm.",
        "It is 21.5°C outside.",
        "Zużycie wynosi 120 W.",
        "Die Temperatur ist 20 Grad.",
    ] {
        let end = Ending {
            about_home: false,
            ..ending("what's the level?", text)
        };
        let said = compose(&end, &home);
        assert_ne!(said.reply, text);
        assert_ne!(said.status, RunStatus::Done, "{text}");
    }
    // The one measuring candidate the model was shown answers, as the registry holds it.
    let candidates = [
        "sensor.outside_temperature".to_owned(),
        "sensor.power".to_owned(),
        "light.kitchen_lights".to_owned(),
    ];
    let end = Ending {
        about_home: false,
        candidates: &candidates,
        ..ending("How much power are we using?", "We are using 100 watts.")
    };
    let said = compose(&end, &home);
    assert_eq!(said.status, RunStatus::Done);
    assert_eq!(said.reply, "sensor.power is 1 W.");
    // A number that is no reading passes.
    let end = Ending {
        about_home: false,
        ..ending("how many legs does a spider have?", "A spider has 8 legs.")
    };
    assert_eq!(compose(&end, &home).reply, "A spider has 8 legs.");
}

#[test]
fn a_question_back_is_about_the_candidates_the_model_named() {
    let home = synthetic_home(20);
    let said = compose(
        &ending(
            "turn on the light",
            "Do you mean the kitchen lights or the bed light?",
        ),
        &home,
    );
    assert_eq!(said.status, RunStatus::ClarificationRequired);
    assert_eq!(
        said.reply,
        "Which one do you mean: Kitchen Lights or Bed Light?"
    );
    let said = compose(&ending("włącz światło", "Które światło?"), &home);
    assert_eq!(said.reply, "Które urządzenie masz na myśli?");
}
