//! Questions in the forms people use, answered from the registry of Home Assistant's demo
//! home in the states the evaluation puts it in (see `people_tests`).

use serde_json::json;

use super::people_tests::{answered, people_home};
use super::*;

#[test]
fn which_and_any_questions_list_what_is_in_the_state_asked() {
    let home = people_home();
    for text in [
        "Which lights are on right now?",
        "Które światła są włączone?",
        "Welche Lichter sind an?",
    ] {
        let answer = answered(text, &home);
        assert!(answer.contains("Bed Light"), "{text}: {answer}");
        assert!(answer.contains("Ceiling Lights"), "{text}: {answer}");
        assert!(!answer.contains("Kitchen"), "{text}: {answer}");
    }
    let windows = answered("Which windows are open?", &home);
    assert!(
        windows.contains("Hall Window") && !windows.contains("Kitchen"),
        "{windows}"
    );
    let any = answered("Are any lights on in the living room?", &home);
    assert!(
        any.starts_with("Yes") && any.contains("Ceiling Lights"),
        "{any}"
    );
    let none = answered("Are any lights on in the kitchen?", &home);
    assert!(none.starts_with("No"), "{none}");
    let none = answered("Ist irgendein Fenster in der Küche offen?", &home);
    assert!(none.starts_with("Nein"), "{none}");
}

#[test]
fn measures_and_thermostats_are_answered_with_their_values() {
    let home = people_home();
    for (text, value) in [
        ("What's the CO2 level?", "54 ppm"),
        ("Wie hoch ist der CO2-Wert?", "54 ppm"),
        ("How much power are we using right now?", "100 W"),
        ("Jakie jest teraz zużycie prądu?", "100 W"),
        ("Wie viel Strom verbrauchen wir gerade?", "100 W"),
        ("What mode is the heat pump in?", "heat"),
        ("What temperature is the heat pump set to?", "22"),
        // "How much battery": the level sensor of the thing named, whatever its name says.
        ("How much battery does the robot vacuum have?", "81"),
        ("How much battery is left on the phone?", "37"),
        ("Wie voll ist der Akku vom Handy?", "37"),
        ("Ile baterii ma telefon?", "37"),
        ("Quel est le niveau de batterie du téléphone ?", "37"),
    ] {
        let answer = answered(text, &home);
        assert!(answer.contains(value), "{text}: {answer}");
    }
}

#[test]
fn yes_no_questions_in_everyday_words() {
    let home = people_home();
    for (text, starts) in [
        ("Läuft im Wohnzimmer Musik?", "Nein"),
        ("Ist das Garagentor zu?", "Ja"),
        ("Czy brama garażowa jest otwarta?", "Nie"),
        ("Czy drzwi wejściowe są zamknięte na klucz?", "Tak"),
        ("Czy światło w sypialni się świeci?", "Tak"),
        ("Is the music playing in the kitchen?", "Yes"),
    ] {
        let answer = answered(text, &home);
        assert!(answer.starts_with(starts), "{text}: {answer}");
    }
}

#[test]
fn asked_politely_or_by_kind_a_question_is_answered_from_the_registry() {
    let mut home = people_home();
    home.apply_state_changed(&json!({"entity_id": "media_player.lounge_room",
        "new_state": {"entity_id": "media_player.lounge_room", "state": "off",
            "attributes": {"friendly_name": "Lounge room", "device_class": "tv"},
            "last_changed": "2030-01-01T00:00:00+00:00", "last_updated": "2030-01-01T00:00:00+00:00"}}));
    // "Tell me …" asks; the TV is the player that is one, not the kitchen's.
    assert_eq!(
        answered("Tell me the outside temperature", &home),
        "Outside Temperature is 15.6 °C."
    );
    assert_eq!(answered("Is the TV on?", &home), "No: Lounge room is off.");
}

#[test]
fn state_questions_in_everyday_words_are_answered_from_the_registry() {
    let home = people_home();
    for (text, expected) in [
        // "Running" is on (a valve: open); "doing" asks the state; "warm" a temperature,
        // "it" beside it names nothing.
        ("Is the AC running?", "Yes: AC is on."),
        ("What is the living room player doing?", "Living Room is"),
        (
            "What's the kitchen window doing, is it open or closed?",
            "Kitchen Window is closed.",
        ),
        ("How warm is it outside?", "Outside Temperature is 15.6 °C."),
        (
            "Wie warm ist es draußen?",
            "Outside Temperature ist 15.6 °C.",
        ),
    ] {
        let answer = answered(text, &home);
        assert!(answer.starts_with(expected), "{text}: {answer}");
    }
    // "It" alone still needs the command before it: not a question the registry answers.
    assert_eq!(plan("Is it running?", &home), Plan::Model);
}
