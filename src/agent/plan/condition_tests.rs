//! Conditions read from the registry: a number compared, a state, the condition said first or
//! last, in every lexicon's language; one HomeClaw cannot read is left to the caller's refusal.

use serde_json::json;

use super::*;
use crate::agent::plan::tests::home_in_states;

fn home() -> Registry {
    home_in_states(&[
        (
            "sensor.terrace_temperature",
            "Terrace Temperature",
            "rooftop_terrace",
            "25",
            json!({"device_class": "temperature", "unit_of_measurement": "°C"}),
        ),
        (
            "climate.terrace_thermostat",
            "Terrace Thermostat",
            "rooftop_terrace",
            "cool",
            json!({"current_temperature": 25, "temperature": 26, "supported_features": 1}),
        ),
        (
            "climate.living_room_thermostat",
            "Living Room Thermostat",
            "living_room",
            "heat",
            json!({"current_temperature": 20, "temperature": 21, "supported_features": 1}),
        ),
        (
            "cover.garage_door",
            "Garage Door",
            "garage",
            "open",
            json!({"device_class": "garage"}),
        ),
        (
            "light.kitchen",
            "Kitchen Light",
            "kitchen",
            "off",
            json!({}),
        ),
    ])
}

fn held(text: &str, home: &Registry) -> Vec<String> {
    match checked(text, home, None) {
        Some(Checked::Holds(plan)) => crate::agent::testkit::planned_calls(plan)
            .map(|(calls, ..)| calls)
            .unwrap_or_else(|p| panic!("{text}: {p:?}")),
        other => panic!("{text}: {other:?}"),
    }
}

fn unmet(text: &str, home: &Registry) -> String {
    match checked(text, home, None) {
        Some(Checked::Unmet(text)) => text,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn a_number_in_the_condition_is_compared_with_what_the_room_measures() {
    let home = home();
    // The request names no room: it acts where the condition's devices are.
    assert_eq!(
        held(
            "If the temperature on the rooftop terrace is above 23 then set the target \
             temperature to 22",
            &home
        ),
        ["climate.set_temperature climate.terrace_thermostat"]
    );
    let said = unmet(
        "If the temperature on the rooftop terrace is below 23, set the thermostat to 24",
        &home,
    );
    assert_eq!(
        said,
        "Terrace Thermostat is 25°; Terrace Temperature is 25 °C, so I did not change anything."
    );
    assert_eq!(
        held(
            "Wenn die Temperatur im Wohnzimmer unter 21 Grad ist, stelle das Thermostat im \
             Wohnzimmer auf 22 Grad",
            &home
        ),
        ["climate.set_temperature climate.living_room_thermostat"]
    );
}

#[test]
fn a_state_in_the_condition_is_the_named_devices_or_the_requests_own() {
    let mut home = home();
    for text in [
        "Close the garage door if it's open",
        "If the garage door is open, close it",
        "Wenn das Garagentor offen ist, schließe es",
        "Jeśli brama garażowa jest otwarta, to ją zamknij",
        "Ferme la porte du garage si elle est ouverte",
    ] {
        assert_eq!(
            held(text, &home),
            ["cover.close_cover cover.garage_door"],
            "{text}"
        );
    }
    home.apply_state_changed(&json!({"entity_id": "cover.garage_door", "new_state": {
        "entity_id": "cover.garage_door", "state": "closed", "last_updated": "z",
        "attributes": {"friendly_name": "Garage Door", "device_class": "garage"}}}));
    let said = unmet("Close the garage door if it's open", &home);
    assert_eq!(said, "Garage Door is closed, so I did not change anything.");
}

#[test]
fn a_condition_homeclaw_cannot_read_is_not_decided() {
    let home = home();
    for text in [
        // Nothing to read: the weather, a person.
        "Turn on the kitchen light if it gets dark",
        "If anyone is home, turn on the kitchen light",
        // A room with nothing that measures.
        "If the temperature in the kitchen is above 20, turn on the kitchen light",
        // Not a condition at all.
        "Turn on the kitchen light",
        // Only "if" checks: "unless" reverses it.
        "Turn on the kitchen light unless the garage door is open",
    ] {
        assert_eq!(checked(text, &home, None), None, "{text}");
    }
}
