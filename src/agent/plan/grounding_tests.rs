//! What the model reads of the home for one command: the devices the words point at, before
//! any other of the room that ranks higher, and the services its calls could use.

use serde_json::json;

use super::people_tests::people_home;
use super::tests::home_in_states;
use crate::agent::model::prompt::grounding;
use crate::agent::understand::parsed::Parsed;
use crate::ha::registry::Registry;

fn grounded(text: &str, home: &Registry) -> String {
    let said = Parsed::new(text, Some("en"), None, home);
    let found = said.candidates(home).to_vec();
    grounding(home, &found, |service| said.shows_service(service)).unwrap_or_default()
}

#[test]
fn the_device_the_words_name_is_listed_before_others_of_its_room() {
    // Five things in the living room rank above its fan for "the fan in the living room".
    let mut devices = vec![(
        "fan.living_room_fan",
        "Living Room Fan",
        "living_room",
        "off",
        json!({}),
    )];
    for (id, name) in [
        ("light.living_1", "Living Room Lamp"),
        ("light.living_2", "Living Room Ceiling"),
        ("switch.living_3", "Living Room Plug"),
        ("sensor.living_4", "Living Room Temperature"),
        ("sensor.living_5", "Living Room Humidity"),
        ("sensor.living_6", "Living Room Power"),
    ] {
        devices.push((id, name, "living_room", "on", json!({})));
    }
    let home = home_in_states(&devices);
    let lines = grounded("Start the fan in the living room", &home);
    let listed: Vec<&str> = lines.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(listed.len(), 1, "{lines}");
    assert!(listed[0].starts_with("- fan.living_room_fan "), "{lines}");
}

#[test]
fn a_question_is_shown_no_services_and_a_request_none_that_undoes_it() {
    let home = people_home();
    let lines = grounded("Did I lock the front door?", &home);
    assert!(lines.contains("- lock.front_door "), "{lines}");
    assert!(!lines.contains("services:"), "{lines}");
    let lines = grounded("Lock the kitchen door", &home);
    let services = lines
        .lines()
        .find(|l| l.starts_with("lock services:"))
        .unwrap_or_default();
    assert!(services.contains("lock"), "{lines}");
    assert!(!services.contains("unlock"), "{lines}");
}
