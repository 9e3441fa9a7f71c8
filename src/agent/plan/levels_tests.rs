//! A level said as a word: "to the max", "auf Maximum", "na maksa" are 100%, as Home
//! Assistant's sentences read them.

use serde_json::json;

use super::tests::home_in_states;
use super::*;

fn brightness_of(text: &str) -> Option<serde_json::Value> {
    let registry = home_in_states(&[(
        "light.bedroom_lamp",
        "Bedroom Lamp",
        "bedroom",
        "on",
        json!({"supported_color_modes": ["brightness"]}),
    )]);
    match plan(text, &registry) {
        Plan::Act { calls, .. } => calls[0].data().cloned(),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn the_maximum_is_a_hundred_percent_in_every_language() {
    for text in [
        "set the brightness of the bedroom lamp to the max",
        "set the bedroom lamp brightness to maximum",
        "Stelle die Helligkeit der Bedroom Lamp auf Maximum",
        "Ustaw jasność Bedroom Lamp na maksa",
    ] {
        assert_eq!(
            brightness_of(text),
            Some(json!({"brightness_pct": 100})),
            "{text}"
        );
    }
}

#[test]
fn a_bare_number_with_a_brightness_is_the_share_and_a_names_number_is_not() {
    for (text, pct) in [
        ("Dim the bedroom lamp to 11", 11),
        ("Dimme die Bedroom Lamp auf 11", 11),
        ("set the brightness of the bedroom lamp to 40", 40),
        ("Helligkeit der Bedroom Lamp auf 40 Prozent", 40),
    ] {
        assert_eq!(
            brightness_of(text),
            Some(json!({"brightness_pct": pct})),
            "{text}"
        );
    }
    let two = home_in_states(&[(
        "media_player.speaker_2",
        "Speaker 2",
        "kitchen",
        "playing",
        json!({"supported_features": 65535}),
    )]);
    match plan("Set the volume of speaker 2 to 30", &two) {
        Plan::Act { calls, .. } => {
            assert_eq!(calls[0].data().cloned(), Some(json!({"volume_level": 0.3})));
        }
        other => panic!("{other:?}"),
    }
}
