//! A kind of device the home has, singled out by a word that names nothing here ("the hallway
//! heater" with no hallway): said at once, never left for the model to pick another of the kind.

use serde_json::json;

use super::people_tests::people_home;
use super::tests::home_in_states;
use crate::agent::understand::mood::Reading;
use crate::agent::understand::{Unmatched, unmatched};
use crate::ha::registry::Registry;

fn unfound(text: &str, home: &Registry) -> Option<String> {
    match unmatched(&Reading::new(text), None, home) {
        Some(Unmatched::Nothing { words }) => Some(words),
        other => {
            assert_eq!(other, None, "{text}");
            None
        }
    }
}

/// A valve in the garden, a light at the entry, and a heater (a switch) in the garage.
fn garden_home() -> Registry {
    home_in_states(&[
        (
            "switch.garage_heater",
            "Garage Heater",
            "garage",
            "on",
            json!({}),
        ),
        (
            "valve.front_garden",
            "Front Garden",
            "garden",
            "closed",
            json!({"supported_features": 3}),
        ),
        ("light.porch", "Porch Light", "entry", "off", json!({})),
    ])
}

#[test]
fn a_word_naming_nothing_here_beside_a_kind_is_said_at_once() {
    let home = people_home();
    for (text, words) in [
        ("Turn off the hallway heater", "hallway heater"),
        ("Włącz ogrzewanie podłogowe", "ogrzewanie podłogowe"),
        ("Turn on the sauna heater", "sauna heater"),
        ("Otwórz drzwi do piwnicy", "drzwi do piwnicy"),
        ("Open the door to the basement", "door to the basement"),
        // The heat pump is here; one in the pool is not.
        ("włącz pompę w basenie", "pompę w basenie"),
    ] {
        assert_eq!(unfound(text, &home).as_deref(), Some(words), "{text}");
    }
    let home = garden_home();
    for (text, words) in [
        ("Hauptventil auf machen", "Hauptventil"),
        ("Mach das Hauptventil auf", "Hauptventil"),
        // A word of a device's name is as much a target as a kind word.
        ("Turn off the hallway heater", "hallway heater"),
    ] {
        assert_eq!(unfound(text, &home).as_deref(), Some(words), "{text}");
    }
}

#[test]
fn words_the_home_or_the_lexicons_know_are_no_missing_name() {
    let home = people_home();
    for text in [
        "Wyłącz ogrzewanie",
        "Wyłącz ogrzewanie w sypialni",
        "Close both windows",
        "Close the open windows",
        "Turn on the lights please",
        "Mach die Heizung aus",
        // A room said as an adjective is the room (issue 48's run found it missing).
        "Odblokuj drzwi kuchenne",
    ] {
        assert_eq!(unfound(text, &home), None, "{text}");
    }
    for text in [
        "Ventil auf machen",
        "Open the garden valve",
        "Gartenventil auf",
        "Turn off the garage heater",
    ] {
        assert_eq!(unfound(text, &garden_home()), None, "{text}");
    }
}

/// Watering said after another verb ("stop watering", "przestań podlewać") names the valve in
/// Polish and French, as English did.
#[test]
fn stopping_the_watering_closes_the_valve_in_polish_and_french_too() {
    let home = garden_home();
    for text in [
        "Stop watering the garden",
        "Przestań podlewać ogród",
        "Arrête d'arroser le jardin",
    ] {
        let (service, ids, _) = super::tests::one_call(text, &home);
        assert_eq!(
            (service.as_str(), ids.as_slice()),
            (
                "valve.close_valve",
                ["valve.front_garden".to_owned()].as_slice()
            ),
            "{text}"
        );
    }
}

/// A yes/no question about the state of something the home does not have is answered so at
/// once; one about something it has is left to be read.
#[test]
fn a_question_about_what_is_not_here_is_answered_at_once() {
    let home = people_home();
    for (text, words) in [
        ("Is guest mode on?", "guest mode"),
        ("Ist der Gastmodus an?", "Gastmodus"),
        ("Czy tryb gościa jest włączony?", "tryb gościa"),
    ] {
        assert_eq!(
            unmatched(&Reading::new(text), None, &home),
            Some(Unmatched::NothingAsked {
                words: words.into()
            }),
            "{text}"
        );
    }
    for text in [
        "Is the AC on?",
        "Is the front door locked?",
        "How are you?",
        "Czy klimatyzacja jest włączona?",
    ] {
        assert_eq!(unmatched(&Reading::new(text), None, &home), None, "{text}");
    }
}

/// "The brightness" is a light's: of the kitchen's light, window and player, the light.
#[test]
fn the_brightness_of_a_room_is_its_lights() {
    let home = home_in_states(&[
        (
            "light.kitchen_lights",
            "Kitchen Lights",
            "kitchen",
            "on",
            json!({"supported_color_modes": ["brightness"], "color_mode": "brightness"}),
        ),
        (
            "cover.kitchen_window",
            "Kitchen Window",
            "kitchen",
            "open",
            json!({"supported_features": 15, "current_position": 100}),
        ),
        (
            "media_player.kitchen",
            "Kitchen",
            "kitchen",
            "playing",
            json!({"supported_features": 4}),
        ),
    ]);
    for text in [
        "Set the kitchen light to 40%",
        "Set the kitchen brightness to 40%",
        "Règle la luminosité de la cuisine à 40 %",
        "Stelle die Helligkeit in der Küche auf 40 Prozent",
        "Ustaw jasność w kuchni na 40%",
    ] {
        let (service, ids, data) = super::tests::one_call(text, &home);
        assert_eq!(
            (service.as_str(), ids.as_slice(), &data),
            (
                "light.turn_on",
                ["light.kitchen_lights".to_owned()].as_slice(),
                &json!({"brightness_pct": 40})
            ),
            "{text}"
        );
    }
}

/// The noun for watering may be a device's name ("Arrosage", "Bewässerung"): a question about
/// it points at it (a run of this stop made "arrosage" a word that names nothing).
#[test]
fn a_device_named_by_the_noun_for_watering_is_asked_about() {
    for (name, question) in [
        ("Arrosage", "Est-ce que l'arrosage est en marche ?"),
        ("Bewässerung", "Ist die Bewässerung an?"),
        ("Podlewanie", "Czy podlewanie jest włączone?"),
    ] {
        let home = home_in_states(&[("switch.sprinklers", name, "garden", "on", json!({}))]);
        let sprinklers = home.get("switch.sprinklers").expect("in the home");
        assert!(
            crate::agent::understand::points_at(question, sprinklers, &home),
            "{question}"
        );
        assert_eq!(
            unmatched(&Reading::new(question), None, &home),
            None,
            "{question}"
        );
    }
}
