//! Floors: "the lights upstairs" are the lights in the rooms of the floor the words name.

use super::tests::home_on_floors;
use super::*;
use crate::agent::understand::target;
use crate::config::ExposureConfig;

const LIGHTS: [(&str, &str, &str); 5] = [
    ("light.kitchen_light", "Kitchen Light", "kitchen"),
    (
        "light.living_room_light",
        "Living Room Light",
        "living_room",
    ),
    ("light.bedroom_1_light", "Bedroom 1 Light", "bedroom_1"),
    ("light.bedroom_2_light", "Bedroom 2 Light", "bedroom_2"),
    ("light.bedroom_3_light", "Bedroom 3 Light", "bedroom_3"),
];

/// Floors named as the Home LLM Leaderboard's homes name them, without levels.
fn named_floors() -> Registry {
    home_on_floors(
        &LIGHTS,
        &[
            ("Ground", None, &["kitchen", "living_room", "bedroom_1"]),
            ("Upstairs", None, &["bedroom_2", "bedroom_3"]),
        ],
        ExposureConfig::default(),
    )
}

/// Floors named by number, with the levels Home Assistant lets a user set.
fn numbered_floors() -> Registry {
    home_on_floors(
        &LIGHTS,
        &[
            ("Ground floor", Some(0), &["kitchen", "living_room"]),
            ("First", Some(1), &["bedroom_1", "bedroom_2", "bedroom_3"]),
        ],
        ExposureConfig::default(),
    )
}

fn acted(text: &str, registry: &Registry) -> (String, Vec<String>) {
    match plan(text, registry) {
        Plan::Act { calls, .. } => {
            assert_eq!(calls.len(), 1, "{text}: {calls:?}");
            let mut ids = calls[0].entity_ids.clone();
            ids.sort();
            (format!("{}.{}", calls[0].domain, calls[0].service), ids)
        }
        other => panic!("{text}: expected an action, got {other:?}"),
    }
}

#[test]
fn a_floor_the_words_name_is_every_room_on_it() {
    let upstairs = ["light.bedroom_2_light", "light.bedroom_3_light"];
    let home = named_floors();
    for (text, service) in [
        ("Turn off the lights upstairs", "light.turn_off"),
        ("Lights off upstairs", "light.turn_off"),
        ("Shut off the upstairs lights please", "light.turn_off"),
        ("Turn on all the upstairs lights", "light.turn_on"),
        // "bedroom" is a room on that floor: Bedroom 1 is downstairs and stays as it is.
        ("Turn on all the bedroom lights upstairs", "light.turn_on"),
        ("wyłącz światła na górze", "light.turn_off"),
        ("schalte die Lichter oben aus", "light.turn_off"),
    ] {
        assert_eq!(
            acted(text, &home),
            (service.to_owned(), upstairs.map(String::from).to_vec()),
            "{text}"
        );
    }
}

#[test]
fn a_floors_level_gives_it_the_everyday_words() {
    let home = numbered_floors();
    assert_eq!(
        acted("turn off the lights upstairs", &home).1,
        [
            "light.bedroom_1_light",
            "light.bedroom_2_light",
            "light.bedroom_3_light"
        ]
    );
    assert_eq!(
        acted("turn on the downstairs lights", &home).1,
        ["light.kitchen_light", "light.living_room_light"]
    );
    assert_eq!(
        acted("turn on the lights on the first floor", &home).1,
        [
            "light.bedroom_1_light",
            "light.bedroom_2_light",
            "light.bedroom_3_light"
        ]
    );
    // Without levels nothing is "downstairs": the words name no floor, so no floor is chosen.
    assert!(!matches!(
        plan("turn on the downstairs lights", &named_floors()),
        Plan::Act { .. }
    ));
}

#[test]
fn rooms_of_one_name_on_two_floors_are_not_one_place() {
    // Three bedrooms on two floors: "the bedroom lights" is asked about, not all switched.
    assert!(matches!(
        plan("turn off the bedroom lights", &named_floors()),
        Plan::Ask { .. }
    ));
}

#[test]
fn a_model_call_on_another_floor_is_not_what_the_words_point_at() {
    let home = named_floors();
    let entity = |id: &str| home.get(id).expect(id).clone();
    let text = "turn on the lights upstairs";
    assert!(target::points_at(
        text,
        &entity("light.bedroom_2_light"),
        &home
    ));
    assert!(!target::points_at(
        text,
        &entity("light.kitchen_light"),
        &home
    ));
    assert!(!target::points_at(
        text,
        &entity("light.bedroom_1_light"),
        &home
    ));
}

#[test]
fn a_question_about_a_floor_reads_the_lights_on_it() {
    let Plan::Answer { text, .. } = plan("are the lights upstairs on?", &named_floors()) else {
        panic!("expected an answer from the registry");
    };
    assert!(
        text.contains("Bedroom 2 Light") && text.contains("Bedroom 3 Light"),
        "{text}"
    );
    assert!(
        !text.contains("Bedroom 1") && !text.contains("Kitchen"),
        "{text}"
    );
}
