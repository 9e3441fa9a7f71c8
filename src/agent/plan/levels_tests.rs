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
