//! Where the person spoke from: "turn off the light" said to a satellite means the light in
//! its room, "set the volume" said to a speaker means that speaker.

use serde_json::json;

use super::*;
use crate::agent::selfcheck::home::state_object;
use crate::config::ExposureConfig;
use crate::ha::exposure::{AssistExposure, ExposurePolicy};
use crate::ha::registry::{Area, DeviceEntry, EntityRegistryEntry, Snapshot};

/// (entity id, name, area, device)
const ENTITIES: [(&str, &str, &str, Option<&str>); 6] = [
    (
        "light.living_room_light",
        "Living Room Light",
        "living_room",
        None,
    ),
    ("light.kitchen_light", "Kitchen Light", "kitchen", None),
    ("light.kitchen_strip", "Kitchen Strip", "kitchen", None),
    ("light.hall_light", "Hall Light", "hall", None),
    (
        "media_player.nest_hub",
        "Nest Hub",
        "kitchen",
        Some("nest_hub"),
    ),
    (
        "media_player.smart_speaker",
        "Smart Speaker",
        "living_room",
        Some("smart_speaker"),
    ),
];

fn home() -> Registry {
    let area = |id: &str, name: &str| Area {
        area_id: id.into(),
        name: name.into(),
        ..Default::default()
    };
    let device = |id: &str, area: &str| DeviceEntry {
        id: id.into(),
        area_id: Some(area.into()),
        name: Some(id.replace('_', " ")),
        ..Default::default()
    };
    let snapshot = Snapshot {
        states: ENTITIES
            .iter()
            .map(|(id, name, ..)| state_object(id, name, "on"))
            .collect(),
        entity_registry: ENTITIES
            .iter()
            .map(|(id, _, area, device)| EntityRegistryEntry {
                entity_id: (*id).into(),
                area_id: Some((*area).into()),
                device_id: device.map(str::to_owned),
                ..Default::default()
            })
            .collect(),
        devices: vec![
            device("nest_hub", "kitchen"),
            device("smart_speaker", "living_room"),
            device("satellite_living", "living_room"),
            device("satellite_kitchen", "kitchen"),
            device("satellite_attic", "attic"),
        ],
        areas: vec![
            area("living_room", "Living Room"),
            area("kitchen", "Kitchen"),
            area("hall", "Hall"),
            area("attic", "Attic"),
        ],
        services: serde_json::from_value(json!({
            "light": {"turn_on": {}, "turn_off": {}},
            "media_player": {"volume_set": {}, "volume_mute": {}, "media_pause": {}},
        }))
        .unwrap(),
        assist: AssistExposure::Unsupported,
        ..Default::default()
    };
    Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig::default()),
        None,
    )
}

fn acted(text: &str, device: Option<&str>) -> Option<(String, Vec<String>)> {
    match plan_from(text, &home(), device) {
        Plan::Act { calls, .. } => {
            assert_eq!(calls.len(), 1, "{text}: {calls:?}");
            let c = &calls[0];
            Some((format!("{}.{}", c.domain, c.service), c.entity_ids.clone()))
        }
        _ => None,
    }
}

#[test]
fn the_light_said_to_a_satellite_is_the_light_in_its_room() {
    assert_eq!(
        acted("Please turn off the light", Some("satellite_living")),
        Some((
            "light.turn_off".into(),
            vec!["light.living_room_light".into()]
        ))
    );
    // Without knowing where the person is, "the light" is asked about.
    assert!(matches!(
        plan("Please turn off the light", &home()),
        Plan::Ask { .. }
    ));
    // Two lights in the satellite's room: asked about, naming only those two.
    let Plan::Ask { question, .. } =
        plan_from("turn off the light", &home(), Some("satellite_kitchen"))
    else {
        panic!("expected a question");
    };
    assert!(
        question.contains("Kitchen Light") && question.contains("Kitchen Strip"),
        "{question}"
    );
    assert!(!question.contains("Hall"), "{question}");
    // "The lights" are the room's; "all the lights" are the home's.
    assert_eq!(
        acted("turn off the lights", Some("satellite_kitchen")).map(|a| a.1),
        Some(vec![
            "light.kitchen_light".into(),
            "light.kitchen_strip".into()
        ])
    );
    assert_eq!(
        acted("turn off all the lights", Some("satellite_kitchen")).map(|a| a.1.len()),
        Some(4)
    );
    // A room the words name wins over the satellite's.
    assert_eq!(
        acted("turn off the hall light", Some("satellite_kitchen")).map(|a| a.1),
        Some(vec!["light.hall_light".into()])
    );
    // A satellite in a room without lights changes nothing about the question.
    assert!(matches!(
        plan_from("turn off the light", &home(), Some("satellite_attic")),
        Plan::Ask { .. }
    ));
}

#[test]
fn the_volume_said_to_a_speaker_is_that_speakers() {
    for (device, target) in [
        ("nest_hub", "media_player.nest_hub"),
        ("smart_speaker", "media_player.smart_speaker"),
        // A satellite without a speaker of its own: the one in its room.
        ("satellite_living", "media_player.smart_speaker"),
    ] {
        assert_eq!(
            acted("Set the volume to 0%", Some(device)),
            Some(("media_player.volume_set".into(), vec![target.into()])),
            "{device}"
        );
    }
    // Two speakers and nobody knows which one is meant: which one, naming them.
    let Plan::Ask { question, .. } = plan("Set the volume to 0%", &home()) else {
        panic!("expected a question");
    };
    assert!(
        question.contains("Nest Hub") && question.contains("Smart Speaker"),
        "{question}"
    );
    assert!(matches!(
        plan_from("Set the volume to 0%", &home(), Some("satellite_attic")),
        Plan::Ask { .. }
    ));
}

/// "Here" is the satellite's room: every light there, none elsewhere; a room without the kind
/// acts on nothing; a satellite HomeClaw cannot place acts on nothing and says why.
#[test]
fn here_is_the_satellites_room_and_never_the_whole_home() {
    // Said to the kitchen's satellite, "here" reads as the kitchen said aloud.
    let here = acted("turn off all the lights in here", Some("satellite_kitchen"));
    assert_eq!(here, acted("turn off all the lights in the kitchen", None));
    assert!(
        here.as_ref()
            .is_some_and(|(_, ids)| ids.iter().all(|id| id.starts_with("light.kitchen"))),
        "{here:?}"
    );
    assert_eq!(
        acted("Zgaś wszystkie światła tutaj", Some("satellite_living")),
        Some((
            "light.turn_off".into(),
            vec!["light.living_room_light".into()]
        ))
    );
    assert_eq!(
        acted("Mach das Licht hier aus", Some("satellite_living")),
        Some((
            "light.turn_off".into(),
            vec!["light.living_room_light".into()]
        ))
    );
    // The attic has no light: nothing anywhere else is touched.
    let attic = plan_from(
        "turn off the lights in here",
        &home(),
        Some("satellite_attic"),
    );
    assert!(!matches!(attic, Plan::Act { .. }), "{attic:?}");
    // No satellite, or one HomeClaw cannot place: asked, nothing done.
    for device in [None, Some("no_such_device")] {
        let Plan::Ask { question, .. } = plan_from("turn off the lights in here", &home(), device)
        else {
            panic!("expected the room to be asked for");
        };
        assert!(question.contains("which room"), "{question}");
    }
}
