//! Plans for commands in every lexicon's language against a small home built from Home
//! Assistant's own shapes.

use serde_json::json;

use super::*;
use crate::agent::selfcheck::home::state_object;
use crate::agent::understand::*;
use crate::config::ExposureConfig;
use crate::ha::exposure::{AssistExposure, ExposurePolicy};
use crate::ha::registry::{Area, EntityRegistryEntry, Floor, Snapshot};

pub(super) fn home(entities: &[(&str, &str, &str)]) -> Registry {
    home_with(entities, ExposureConfig::default())
}

pub(super) fn home_with(entities: &[(&str, &str, &str)], exposure: ExposureConfig) -> Registry {
    home_on_floors(entities, &[], exposure)
}

/// The test home with some of its areas on floors: (floor name, level, area ids).
pub(crate) fn home_on_floors(
    entities: &[(&str, &str, &str)],
    floors: &[(&str, Option<i64>, &[&str])],
    exposure: ExposureConfig,
) -> Registry {
    let areas = [
        ("kitchen", "Kitchen"),
        ("living_room", "Living Room"),
        ("bedroom_1", "Bedroom 1"),
        ("bedroom_2", "Bedroom 2"),
        ("bedroom_3", "Bedroom 3"),
        ("garage", "Garage"),
        ("entry", "Entry"),
        ("front_yard", "Front yard"),
        ("backyard", "Backyard"),
        ("rooftop_terrace", "Rooftop Terrace"),
    ];
    let states = entities
        .iter()
        .map(|(id, name, _)| state_object(id, name, "off"))
        .collect();
    let entity_registry = entities
        .iter()
        .map(|(id, _, area)| EntityRegistryEntry {
            entity_id: (*id).into(),
            area_id: Some((*area).into()),
            ..Default::default()
        })
        .collect();
    let services = json!({
        "light": {"turn_on": {}, "turn_off": {}, "toggle": {}},
        "switch": {"turn_on": {}, "turn_off": {}, "toggle": {}},
        "fan": {"turn_on": {}, "turn_off": {}, "set_percentage": {}},
        "cover": {"open_cover": {}, "close_cover": {}, "set_cover_position": {}},
        "valve": {"open_valve": {}, "close_valve": {}, "set_valve_position": {}},
        "lock": {"lock": {}, "unlock": {}, "open": {}},
        "vacuum": {"start": {}, "pause": {}, "return_to_base": {}},
        "todo": {"add_item": {}},
        "scene": {"turn_on": {}},
        "script": {"turn_on": {}},
        "humidifier": {"turn_on": {}, "turn_off": {}, "set_humidity": {}},
        "climate": {"turn_on": {}, "turn_off": {}, "set_hvac_mode": {}, "set_temperature": {}},
        "media_player": {"media_play": {}, "media_pause": {}, "media_stop": {}, "media_next_track": {}, "media_previous_track": {},
            "volume_set": {}, "volume_mute": {}, "volume_up": {}, "volume_down": {},
            "turn_on": {}, "turn_off": {}},
    });
    Registry::from_snapshot(
        Snapshot {
            ha_version: "test".into(),
            location_name: None,
            time_zone: None,
            states,
            entity_registry,
            devices: Vec::new(),
            areas: areas
                .iter()
                .map(|(id, name)| Area {
                    area_id: (*id).into(),
                    name: (*name).into(),
                    aliases: Vec::new(),
                    floor_id: floors
                        .iter()
                        .find(|(_, _, on)| on.contains(id))
                        .map(|(floor, ..)| floor.to_lowercase()),
                })
                .collect(),
            floors: floors
                .iter()
                .map(|(name, level, _)| Floor {
                    floor_id: name.to_lowercase(),
                    name: (*name).into(),
                    aliases: Vec::new(),
                    level: *level,
                })
                .collect(),
            services: serde_json::from_value(services).unwrap(),
            assist: AssistExposure::Unsupported,
        },
        ExposurePolicy::new(exposure),
        None,
    )
}

pub(super) fn sample() -> Registry {
    home(&[
        ("light.kitchen_light", "Kitchen Light", "kitchen"),
        (
            "light.living_room_light",
            "Living Room Light",
            "living_room",
        ),
        ("light.garden_light", "Garden Light", "backyard"),
        ("light.ceiling", "Ceiling", "kitchen"),
        ("fan.bedroom_fan", "Bedroom Fan", "bedroom_1"),
        ("cover.garage_door_opener", "Garage Door Opener", "garage"),
        ("cover.smart_curtain", "Smart Curtain", "living_room"),
        ("valve.irrigation_valve", "Irrigation Valve", "front_yard"),
        ("lock.smart_lock", "Smart Lock", "entry"),
        (
            "vacuum.roborock_downstairs",
            "Roborock Downstairs",
            "living_room",
        ),
        (
            "media_player.outdoor_speakers",
            "Outdoor Speakers",
            "rooftop_terrace",
        ),
    ])
}

/// The single call a command plans, as (domain.service, targets, data).
pub(super) fn act(text: &str) -> (String, Vec<String>, serde_json::Value, Lang) {
    match plan(text, &sample()) {
        Plan::Act { calls, lang } => {
            assert_eq!(calls.len(), 1, "{text}: {calls:?}");
            let c = &calls[0];
            (
                format!("{}.{}", c.domain, c.service),
                c.entity_ids.clone(),
                c.data.clone(),
                lang,
            )
        }
        other => panic!("{text}: expected an action, got {other:?}"),
    }
}

#[test]
fn single_device_commands_resolve_to_their_service_and_target() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "Please turn on the kitchen light",
            "light.turn_on",
            "light.kitchen_light",
        ),
        (
            "Turn on the Backyard light",
            "light.turn_on",
            "light.garden_light",
        ),
        ("Kitchen light off", "light.turn_off", "light.kitchen_light"),
        (
            "Close the garage door",
            "cover.close_cover",
            "cover.garage_door_opener",
        ),
        (
            "Open the living room curtains",
            "cover.open_cover",
            "cover.smart_curtain",
        ),
        ("Lock the entry lock", "lock.lock", "lock.smart_lock"),
        ("Unlock smart lock", "lock.unlock", "lock.smart_lock"),
        (
            "Start vacuum in the living room",
            "vacuum.start",
            "vacuum.roborock_downstairs",
        ),
        (
            "Return Roborock Downstairs to base",
            "vacuum.return_to_base",
            "vacuum.roborock_downstairs",
        ),
        (
            "open the front yard valve",
            "valve.open_valve",
            "valve.irrigation_valve",
        ),
        (
            "Turn on the bedroom 1 fan",
            "fan.turn_on",
            "fan.bedroom_fan",
        ),
        (
            "Pause the Rooftop Terrace music",
            "media_player.media_pause",
            "media_player.outdoor_speakers",
        ),
        (
            "Unpause Outdoor Speakers",
            "media_player.media_play",
            "media_player.outdoor_speakers",
        ),
        (
            "Skip to the next track on the outdoor speakers",
            "media_player.media_next_track",
            "media_player.outdoor_speakers",
        ),
        (
            "Mute the outdoor speakers",
            "media_player.volume_mute",
            "media_player.outdoor_speakers",
        ),
        (
            "Turn off the Outdoor Speakers",
            "media_player.turn_off",
            "media_player.outdoor_speakers",
        ),
    ];
    for (text, service, target) in cases {
        let (got, targets, _, lang) = act(text);
        assert_eq!(
            (got.as_str(), targets),
            (*service, vec![target.to_string()]),
            "{text}"
        );
        assert_eq!(lang, Lang::En, "{text}");
    }
}

#[test]
fn polish_and_german_commands_are_recognised_and_answered_in_their_language() {
    let (s, t, _, lang) = act("Wyłącz Kitchen Light");
    assert_eq!(
        (s.as_str(), t[0].as_str(), lang),
        ("light.turn_off", "light.kitchen_light", Lang::Pl)
    );
    let (s, t, _, lang) = act("Schalte das Garden Light ein");
    assert_eq!(
        (s.as_str(), t[0].as_str(), lang),
        ("light.turn_on", "light.garden_light", Lang::De)
    );
    let (s, _, _, lang) = act("Öffne das Garage Door Opener");
    assert_eq!((s.as_str(), lang), ("cover.open_cover", Lang::De));
    let (s, t, _, lang) = act("włącz światło w kuchni");
    assert_eq!(lang, Lang::Pl);
    assert_eq!(s, "light.turn_on");
    let mut t = t;
    t.sort();
    assert_eq!(
        t,
        vec!["light.ceiling", "light.kitchen_light"],
        "the kitchen's lights"
    );
    let (s, t, _, lang) = act("mach das Licht in der Küche aus");
    assert_eq!((s.as_str(), t.len(), lang), ("light.turn_off", 2, Lang::De));
    assert_eq!(Lang::from_tag("de-DE"), Lang::De);
    assert_eq!(Lang::from_tag("pl"), Lang::Pl);
    assert_eq!(Lang::from_tag("es"), Lang::En);
}

#[test]
fn a_whole_area_of_one_kind_is_one_call_for_all_of_it() {
    match plan("turn off the kitchen lights", &sample()) {
        Plan::Act { calls, .. } => {
            assert_eq!(calls.len(), 1);
            // "Kitchen Light" is named outright: it alone.
            assert_eq!(calls[0].entity_ids, vec!["light.kitchen_light"]);
        }
        other => panic!("{other:?}"),
    }
    match plan("turn off the lamps in the kitchen", &sample()) {
        Plan::Act { calls, .. } => {
            let mut ids = calls[0].entity_ids.clone();
            ids.sort();
            assert_eq!(ids, vec!["light.ceiling", "light.kitchen_light"]);
        }
        other => panic!("{other:?}"),
    }
    match plan("turn on all lights", &sample()) {
        Plan::Act { calls, .. } => assert_eq!(calls[0].entity_ids.len(), 4),
        other => panic!("{other:?}"),
    }
}

#[test]
fn equally_good_targets_of_one_kind_are_asked_about_by_name_and_room() {
    let registry = home(&[
        ("light.bed_light", "Bed Light", "bedroom_1"),
        ("light.bed_light_2", "Bed Light", "living_room"),
    ]);
    match plan("turn on the bed light", &registry) {
        Plan::Ask { question, lang, .. } => {
            assert_eq!(lang, Lang::En);
            // Two of one name are told apart by their rooms, never listed as the same text.
            assert_eq!(
                question,
                "Which one do you mean: Bed Light in the Bedroom 1 or Bed Light in the Living Room?"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn anything_uncertain_goes_to_the_model() {
    for text in [
        "turn on the lights",
        "turn on the fridge",
        "turn on and off the kitchen light",
        "Add history homework to my personal tasks",
        "make it cosy",
        "",
        "open the smart lock",
        "set the kitchen light to 500%",
    ] {
        assert_eq!(plan(text, &sample()), Plan::Model, "{text:?}");
    }
}

#[test]
fn a_denied_service_is_never_planned() {
    let entities = [("lock.smart_lock", "Smart Lock", "entry")];
    assert!(matches!(
        plan("unlock the smart lock", &home(&entities)),
        Plan::Act { .. }
    ));
    let denied = home_with(
        &entities,
        ExposureConfig {
            service_deny: vec!["lock.unlock".into()],
            ..ExposureConfig::default()
        },
    );
    assert_eq!(plan("unlock the smart lock", &denied), Plan::Model);
}

#[test]
fn joined_requests_run_together_only_when_every_part_resolves() {
    let calls = |text: &str| match plan(text, &sample()) {
        Plan::Act { calls, .. } => calls
            .iter()
            .map(|c| format!("{}.{} {}", c.domain, c.service, c.entity_ids.join(",")))
            .collect::<Vec<_>>(),
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        calls("Turn on the kitchen light and then turn off the living room light"),
        vec![
            "light.turn_on light.kitchen_light",
            "light.turn_off light.living_room_light"
        ]
    );
    assert_eq!(
        calls("Turn on the light in the kitchen, then turn off the garden light"),
        vec![
            // The kitchen's lights, as Home Assistant reads a kind in a room said as a place.
            "light.turn_on light.ceiling,light.kitchen_light",
            "light.turn_off light.garden_light"
        ]
    );
    assert_eq!(
        calls("Turn on both the kitchen light and living room light"),
        vec![
            "light.turn_on light.kitchen_light",
            "light.turn_on light.living_room_light"
        ]
    );
    // "The living room and kitchen lights": the kind said last is every room's.
    assert_eq!(
        calls("Turn on the living room and kitchen lights"),
        vec![
            "light.turn_on light.living_room_light",
            "light.turn_on light.kitchen_light"
        ]
    );
    // A part that resolves alone keeps its own target.
    assert_eq!(
        calls("Turn off Roborock Downstairs and the kitchen lights"),
        vec![
            "vacuum.return_to_base vacuum.roborock_downstairs",
            "light.turn_off light.kitchen_light"
        ]
    );
    // One part the fast path cannot resolve: the model gets the whole command.
    assert_eq!(
        plan("turn on the kitchen light and make it cosy", &sample()),
        Plan::Model
    );
    // "the kitchen" names no kind: not everything in it, but which of its lights.
    assert!(matches!(
        plan("turn on the kitchen", &sample()),
        Plan::Ask { .. }
    ));
}

/// A registry where each entity has the state and attributes given.
pub(crate) fn home_in_states(entities: &[(&str, &str, &str, &str, serde_json::Value)]) -> Registry {
    let mut r = home(
        &entities
            .iter()
            .map(|(id, name, area, ..)| (*id, *name, *area))
            .collect::<Vec<_>>(),
    );
    for (id, _, _, state, attributes) in entities {
        let mut attrs = attributes.clone();
        attrs["friendly_name"] = json!(r.get(id).unwrap().name);
        r.apply_state_changed(&json!({
            "entity_id": id,
            "new_state": {"entity_id": id, "state": state, "attributes": attrs,
                "last_changed": "2030-01-01T00:00:00+00:00", "last_updated": "2030-01-01T00:00:00+00:00"}
        }));
    }
    r
}

/// The demo home's media players and colour lights, with the attributes that decide.
pub(super) fn with_attributes(entities: &[(&str, &str, &str, serde_json::Value)]) -> Registry {
    let mut registry = home(
        &entities
            .iter()
            .map(|(id, name, area, _)| (*id, *name, *area))
            .collect::<Vec<_>>(),
    );
    for (id, name, _, attributes) in entities {
        let mut attributes = attributes.clone();
        attributes["friendly_name"] = json!(name);
        registry.apply_state_changed(&json!({"entity_id": id,
            "new_state": {"entity_id": id, "state": "on", "attributes": attributes,
                "last_changed": "2026-01-01T00:00:01+00:00",
                "last_updated": "2026-01-01T00:00:01+00:00"}}));
    }
    registry
}

pub(super) fn one_call(
    text: &str,
    registry: &Registry,
) -> (String, Vec<String>, serde_json::Value) {
    match plan(text, registry) {
        Plan::Act { calls, .. } if calls.len() == 1 => (
            format!("{}.{}", calls[0].domain, calls[0].service),
            calls[0].entity_ids.clone(),
            calls[0].data.clone(),
        ),
        other => panic!("{text}: expected one call, got {other:?}"),
    }
}

/// Home Assistant's demo home as the evaluation sees it: English names, Polish and German
/// speakers.
pub(super) fn demo() -> Registry {
    home(&[
        ("light.bed_light", "Bed Light", "bedroom_1"),
        ("light.ceiling_lights", "Ceiling Lights", "living_room"),
        ("light.kitchen_lights", "Kitchen Lights", "kitchen"),
        (
            "light.living_room_rgbww_lights",
            "Living Room RGBWW Lights",
            "living_room",
        ),
        (
            "switch.decorative_lights",
            "Decorative Lights",
            "living_room",
        ),
        ("switch.ac", "AC", "bedroom_1"),
        ("fan.ceiling_fan", "Ceiling Fan", "garage"),
        ("fan.living_room_fan", "Living Room Fan", "garage"),
        ("cover.kitchen_window", "Kitchen Window", "kitchen"),
        ("cover.hall_window", "Hall Window", "entry"),
        ("cover.garage_door", "Garage Door", "garage"),
        ("lock.front_door", "Front Door", "entry"),
        ("lock.kitchen_door", "Kitchen Door", "kitchen"),
    ])
}

pub(super) fn demo_act(text: &str) -> (Vec<String>, Vec<String>) {
    match plan(text, &demo()) {
        Plan::Act { calls, .. } => (
            calls
                .iter()
                .map(|c| format!("{}.{}", c.domain, c.service))
                .collect(),
            calls.iter().flat_map(|c| c.entity_ids.clone()).collect(),
        ),
        other => panic!("{text}: expected an action, got {other:?}"),
    }
}

/// Two windows among other covers: a garage door (by its class) and a roof.
pub(super) fn windows_and_doors() -> Registry {
    with_attributes(&[
        ("cover.hall_window", "Hall Window", "entry", json!({})),
        (
            "cover.kitchen_window",
            "Kitchen Window",
            "kitchen",
            json!({}),
        ),
        (
            "cover.garage_door",
            "Garage Door",
            "garage",
            json!({"device_class": "garage"}),
        ),
        ("cover.pergola_roof", "Pergola Roof", "backyard", json!({})),
    ])
}

pub(super) fn answer_text(text: &str, registry: &Registry) -> String {
    match plan(text, registry) {
        Plan::Answer { text, .. } => text,
        other => panic!("{text}: {other:?}"),
    }
}
