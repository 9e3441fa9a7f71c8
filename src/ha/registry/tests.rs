//! The registry built from recorded Home Assistant shapes: snapshots, events, exposure,
//! search and services.

use super::*;
use crate::config::ExposureConfig;
use pretty_assertions::assert_eq;
use serde_json::json;

pub(super) fn state(id: &str, st: &str, name: &str, updated: &str) -> StateObject {
    StateObject {
        entity_id: id.into(),
        state: st.into(),
        attributes: json!({"friendly_name": name}).as_object().unwrap().clone(),
        last_changed: updated.into(),
        last_updated: updated.into(),
    }
}

pub(super) fn home() -> Registry {
    let snapshot = Snapshot {
        ha_version: "2025.4.4".into(),
        time_zone: Some("Europe/Warsaw".into()),
        states: vec![
            state(
                "light.kitchen_lights",
                "on",
                "Kitchen Lights",
                "2026-01-01T00:00:01",
            ),
            state("light.bed_light", "off", "Bed Light", "2026-01-01T00:00:01"),
            state(
                "cover.kitchen_window",
                "closed",
                "Kitchen Window",
                "2026-01-01T00:00:01",
            ),
            state(
                "lock.front_door",
                "locked",
                "Front Door",
                "2026-01-01T00:00:01",
            ),
            state("update.core", "off", "Core update", "2026-01-01T00:00:01"),
            state("switch.gone", "off", "Disabled", "2026-01-01T00:00:01"),
        ],
        entity_registry: vec![
            EntityRegistryEntry {
                entity_id: "light.kitchen_lights".into(),
                device_id: Some("dev-k".into()),
                ..Default::default()
            },
            EntityRegistryEntry {
                entity_id: "lock.front_door".into(),
                area_id: Some("hall".into()),
                device_id: Some("dev-k".into()),
                ..Default::default()
            },
            EntityRegistryEntry {
                entity_id: "cover.kitchen_window".into(),
                options: Some(json!({"conversation": {"should_expose": true}})),
                ..Default::default()
            },
            EntityRegistryEntry {
                entity_id: "switch.gone".into(),
                disabled_by: Some("user".into()),
                ..Default::default()
            },
        ],
        devices: vec![DeviceEntry {
            id: "dev-k".into(),
            area_id: Some("kitchen".into()),
            ..Default::default()
        }],
        areas: vec![
            Area {
                area_id: "kitchen".into(),
                name: "Kitchen".into(),
                aliases: vec!["Kuchnia".into()],
                floor_id: None,
            },
            Area {
                area_id: "hall".into(),
                name: "Hall".into(),
                aliases: vec![],
                floor_id: None,
            },
        ],
        floors: Vec::new(),
        services: serde_json::from_value(json!({
            "light": {"turn_on": {"fields": {"brightness_pct": {"required": false}}}},
            "homeassistant": {"restart": {}}
        }))
        .unwrap(),
        assist: AssistExposure::Known(HashMap::from([("light.bed_light".into(), true)])),
        location_name: Some("Test Home".into()),
    };
    Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig::default()),
        None,
    )
}

#[test]
fn area_comes_from_the_entity_else_its_device() {
    let r = home();
    assert_eq!(
        r.get("light.kitchen_lights").unwrap().area_id.as_deref(),
        Some("kitchen")
    );
    assert_eq!(
        r.get("lock.front_door").unwrap().area_id.as_deref(),
        Some("hall")
    );
    assert_eq!(r.get("light.bed_light").unwrap().area_id, None);
}

/// An area's aliases name what is in it, as its name does: "Lösch ds Liecht im Schlofzimmer"
/// is the bedroom's light where "Schlofzimmer" is an alias of the "Schlafzimmer".
#[test]
fn an_areas_alias_names_what_is_in_it() {
    let r = home();
    assert!(r.matches_word("kuchnia"));
    let found: Vec<String> = r
        .search("kuchnia", Some("light"), None, 5)
        .into_iter()
        .map(|c| c.entity_id)
        .collect();
    assert_eq!(found, ["light.kitchen_lights"]);
}

/// Home Assistant 2026's device registry names a device's parent; a device without an area of
/// its own (a satellite's microphone board inside a speaker) is where its parent is.
#[test]
fn a_device_without_an_area_is_where_its_parent_is() {
    let mut r = home();
    // As `config/device_registry/list` sends them (other fields left out).
    let devices: Vec<DeviceEntry> = serde_json::from_value(json!([
        {"id": "dev-k", "area_id": "kitchen", "name": "Kitchen speaker", "name_by_user": null,
         "parent_device_id": null, "via_device_id": null},
        {"id": "mic", "area_id": null, "name": "Satellite microphone", "parent_device_id": "dev-k"},
        {"id": "loop-a", "area_id": null, "parent_device_id": "loop-b"},
        {"id": "loop-b", "area_id": null, "parent_device_id": "loop-a"},
        {"id": "orphan", "area_id": null, "parent_device_id": "gone"},
    ]))
    .unwrap();
    r.set_devices(devices);
    assert_eq!(r.device_area("mic"), Some("kitchen"));
    assert_eq!(r.device_area("dev-k"), Some("kitchen"));
    assert_eq!(r.device_area("loop-a"), None, "a loop answers none");
    assert_eq!(r.device_area("orphan"), None);
    assert_eq!(r.device_area("unknown"), None);
}

#[test]
fn sloppy_ids_resolve_and_hidden_or_disabled_entities_do_not() {
    let r = home();
    assert_eq!(
        r.get(" Light.Kitchen_Lights ").unwrap().entity_id,
        "light.kitchen_lights"
    );
    assert_eq!(
        r.get("light.kitchen lights").unwrap().entity_id,
        "light.kitchen_lights"
    );
    assert!(
        r.get("update.core").is_none(),
        "update is not an Assist default domain"
    );
    assert!(
        r.get("switch.gone").is_none(),
        "disabled entities are skipped"
    );
    assert_eq!(r.len(), 4);
    assert_eq!(r.all_entity_count(), 5);
}

#[test]
fn domains_count_visible_entities() {
    let got: Vec<(String, usize)> = home().domains().clone().into_iter().collect();
    assert_eq!(
        got,
        vec![
            ("cover".to_string(), 1),
            ("light".to_string(), 2),
            ("lock".to_string(), 1)
        ]
    );
}

#[test]
fn events_update_add_and_remove_but_never_go_back_in_time() {
    let mut r = home();
    let newer = json!({"entity_id": "light.bed_light",
        "new_state": {"entity_id": "light.bed_light", "state": "on",
          "attributes": {"friendly_name": "Bed Light"}, "last_updated": "2026-01-01T00:00:05",
          "last_changed": "2026-01-01T00:00:05"}});
    assert_eq!(
        r.apply_state_changed(&newer),
        StateUpdate::Changed {
            entity_id: "light.bed_light".into(),
            state: "on".into()
        }
    );
    let older = json!({"entity_id": "light.bed_light",
        "new_state": {"entity_id": "light.bed_light", "state": "off",
          "last_updated": "2026-01-01T00:00:02"}});
    assert_eq!(r.apply_state_changed(&older), StateUpdate::Ignored);
    assert_eq!(r.get("light.bed_light").unwrap().state, "on");

    let added = json!({"entity_id": "light.new_lamp",
        "new_state": {"entity_id": "light.new_lamp", "state": "off", "last_updated": "x"}});
    assert!(matches!(
        r.apply_state_changed(&added),
        StateUpdate::Changed { .. }
    ));
    assert_eq!(r.get("light.new_lamp").unwrap().name, "new lamp");

    let removed = json!({"entity_id": "light.new_lamp", "new_state": null});
    assert!(matches!(
        r.apply_state_changed(&removed),
        StateUpdate::Removed { .. }
    ));
    assert!(r.get("light.new_lamp").is_none());
    assert_eq!(
        r.apply_state_changed(&json!({"nope": 1})),
        StateUpdate::Ignored
    );
}

#[test]
fn a_resync_keeps_states_newer_than_its_snapshot() {
    let mut first = home();
    first.apply_state_changed(&json!({"entity_id": "light.bed_light",
        "new_state": {"entity_id": "light.bed_light", "state": "on",
          "last_updated": "2026-01-01T00:00:09"}}));
    let snapshot = Snapshot {
        states: vec![
            state("light.bed_light", "off", "Bed Light", "2026-01-01T00:00:03"),
            state(
                "light.kitchen_lights",
                "off",
                "Kitchen Lights",
                "2026-01-01T00:00:03",
            ),
        ],
        ..Default::default()
    };
    let policy = ExposurePolicy::new(ExposureConfig::default());
    let second = Registry::from_snapshot(snapshot, policy, Some(&first));
    assert_eq!(second.get("light.bed_light").unwrap().state, "on");
    assert_eq!(second.get("light.kitchen_lights").unwrap().state, "off");
}

#[test]
fn service_decisions_combine_existence_and_policy() {
    let r = home();
    assert_eq!(
        r.service_decision("light", "turn_on"),
        Some(ServiceDecision::Allowed)
    );
    assert!(matches!(
        r.service_decision("homeassistant", "restart"),
        Some(ServiceDecision::Denied(_))
    ));
    assert_eq!(r.service_decision("light", "explode"), None);
    assert_eq!(r.service_count(), 2);
}

#[test]
fn entity_ids_normalise() {
    assert_eq!(normalise_entity_id(" Light.Kitchen "), "light.kitchen");
    assert_eq!(
        normalise_entity_id("light.kitchen   lights"),
        "light.kitchen_lights"
    );
    assert_eq!(normalise_entity_id("\tLIGHT.X\n"), "light.x");
}

#[test]
fn a_floor_names_the_entities_of_its_areas() {
    // The shapes `config/floor_registry/list` and `config/area_registry/list` answer with.
    let floors: Vec<Floor> = serde_json::from_value(json!([
        {"aliases": ["Obergeschoss"], "created_at": 0.0, "floor_id": "first", "icon": null,
         "level": 1, "name": "First", "modified_at": 0.0},
        {"aliases": [], "created_at": 0.0, "floor_id": "ground", "icon": null, "level": null,
         "name": "Ground", "modified_at": 0.0}
    ]))
    .unwrap();
    let areas: Vec<Area> = serde_json::from_value(json!([
        {"aliases": [], "area_id": "bedroom", "floor_id": "first", "name": "Bedroom"},
        {"aliases": [], "area_id": "kitchen", "floor_id": null, "name": "Kitchen"}
    ]))
    .unwrap();
    assert_eq!(floors[0].words(), ["first", "obergeschoss", "upstairs"]);
    assert_eq!(floors[1].words(), ["ground"]);
    let snapshot = Snapshot {
        states: vec![
            state("light.bed", "off", "Bed", "t1"),
            state("light.stove", "off", "Stove", "t1"),
        ],
        entity_registry: vec![
            EntityRegistryEntry {
                entity_id: "light.bed".into(),
                area_id: Some("bedroom".into()),
                ..Default::default()
            },
            EntityRegistryEntry {
                entity_id: "light.stove".into(),
                area_id: Some("kitchen".into()),
                ..Default::default()
            },
        ],
        areas,
        floors,
        ..Default::default()
    };
    let r = Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig::default()),
        None,
    );
    let upstairs: Vec<String> = r
        .search("upstairs", None, None, 10)
        .into_iter()
        .map(|c| c.entity_id)
        .collect();
    assert_eq!(upstairs, ["light.bed"]);
    let bedroom = r.area("bedroom").unwrap();
    assert_eq!(r.floor_of(bedroom).map(|f| f.name.as_str()), Some("First"));
    assert_eq!(r.floor_of(r.area("kitchen").unwrap()), None);
}

pub(super) fn top(r: &Registry, query: &str) -> Option<String> {
    r.search(query, None, None, 1)
        .into_iter()
        .next()
        .map(|c| c.entity_id)
}

#[test]
fn an_entry_moved_to_another_area_moves_the_entity_and_its_search_words() {
    let mut r = home();
    assert_eq!(r.search("light", None, Some("hall"), 5), Vec::new());
    r.set_entity_entry(
        "light.kitchen_lights",
        Some(EntityRegistryEntry {
            entity_id: "light.kitchen_lights".into(),
            area_id: Some("hall".into()),
            device_id: Some("dev-k".into()),
            ..Default::default()
        }),
    );
    let moved = r.get("light.kitchen_lights").unwrap();
    assert_eq!(moved.area_id.as_deref(), Some("hall"));
    assert_eq!(moved.state, "on", "the state is kept");
    let in_hall: Vec<String> = r
        .search("light", None, Some("hall"), 5)
        .into_iter()
        .map(|c| c.entity_id)
        .collect();
    assert_eq!(in_hall, vec!["light.kitchen_lights"]);
}

#[test]
fn exposure_and_disabling_follow_the_entry() {
    let mut r = home();
    let entry = |options: Value, disabled: Option<&str>| EntityRegistryEntry {
        entity_id: "light.bed_light".into(),
        options: Some(options),
        disabled_by: disabled.map(str::to_owned),
        ..Default::default()
    };
    r.set_entity_entry(
        "light.bed_light",
        Some(entry(
            json!({"conversation": {"should_expose": false}}),
            None,
        )),
    );
    assert!(r.get("light.bed_light").is_none());
    assert_eq!(
        r.hidden("light.bed_light"),
        Some((Hidden::NotExposed, "Bed Light"))
    );
    assert_eq!(r.domains()["light"], 1, "counts follow visibility");
    let refusal = Hidden::NotExposed.explain("light.bed_light");
    assert!(refusal.contains("not exposed to Assist"), "{refusal}");

    r.set_entity_entry(
        "light.bed_light",
        Some(entry(
            json!({"conversation": {"should_expose": true}}),
            None,
        )),
    );
    assert_eq!(r.get("light.bed_light").unwrap().state, "off");
    assert_eq!(r.hidden("light.bed_light"), None);
    assert_eq!(r.domains()["light"], 2);

    r.set_entity_entry(
        "light.bed_light",
        Some(entry(
            json!({"conversation": {"should_expose": true}}),
            Some("user"),
        )),
    );
    assert!(r.get("light.bed_light").is_none());
    assert_eq!(
        r.hidden("light.bed_light"),
        None,
        "disabled: gone, not hidden"
    );
    assert_eq!(r.domains()["light"], 1);
}

#[test]
fn an_entity_outside_the_configured_filter_says_so() {
    let snapshot = Snapshot {
        states: vec![state("lock.front_door", "locked", "Front Door", "1")],
        ..Default::default()
    };
    let r = Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig {
            entity_deny: vec!["lock.*".into()],
            ..Default::default()
        }),
        None,
    );
    assert_eq!(
        r.hidden(" Lock.Front_Door ").map(|(h, _)| h),
        Some(Hidden::Filtered)
    );
    assert_eq!(r.hidden("lock.back_door"), None, "unknown is not hidden");
}

#[test]
fn renamed_areas_and_moved_devices_carry_their_entities() {
    let mut r = home();
    r.set_areas(vec![
        Area {
            area_id: "kitchen".into(),
            name: "Scullery".into(),
            ..Default::default()
        },
        Area {
            area_id: "hall".into(),
            name: "Hall".into(),
            ..Default::default()
        },
    ]);
    assert_eq!(
        top(&r, "scullery lights").as_deref(),
        Some("light.kitchen_lights")
    );
    assert_eq!(r.resolve_area("kuchnia"), None, "the old alias is gone");

    r.set_devices(vec![DeviceEntry {
        id: "dev-k".into(),
        area_id: Some("hall".into()),
        ..Default::default()
    }]);
    assert_eq!(
        r.get("light.kitchen_lights").unwrap().area_id.as_deref(),
        Some("hall"),
        "follows its device"
    );
    assert_eq!(
        r.get("lock.front_door").unwrap().area_id.as_deref(),
        Some("hall"),
        "its own area still wins"
    );

    r.set_floors(vec![Floor {
        floor_id: "ground".into(),
        name: "Ground".into(),
        level: Some(0),
        ..Default::default()
    }]);
    r.set_areas(vec![Area {
        area_id: "hall".into(),
        name: "Hall".into(),
        floor_id: Some("ground".into()),
        ..Default::default()
    }]);
    assert_eq!(
        top(&r, "front door downstairs").as_deref(),
        Some("lock.front_door")
    );
}

#[test]
fn the_visible_count_follows_every_change() {
    let mut r = home();
    // The count, and the name words kept for "is this a word of a name here": both as a walk
    // over the visible entities finds them, after every kind of change.
    let walked = |r: &Registry| {
        let named = |w: &str| r.entities().any(|e| e.haystack.name().any(|n| n == w));
        let words: Vec<String> = [
            "bed", "light", "lights", "kitchen", "new", "lamp", "ceiling",
        ]
        .iter()
        .map(|w| w.to_string())
        .chain(
            r.hidden_entities()
                .flat_map(|e| e.haystack.name().map(str::to_owned).collect::<Vec<_>>()),
        )
        .collect();
        for word in &words {
            assert_eq!(r.names_word(word), named(word), "{word}");
        }
        r.entities().count()
    };
    assert_eq!(r.len(), walked(&r));
    r.apply_state_changed(&serde_json::json!({"entity_id": "light.new_lamp",
        "new_state": {"entity_id": "light.new_lamp", "state": "on", "attributes": {},
        "last_updated": "z"}}));
    assert_eq!(r.len(), walked(&r));
    r.apply_state_changed(&serde_json::json!({"entity_id": "light.new_lamp", "new_state": null}));
    r.apply_state_changed(
        &serde_json::json!({"entity_id": "light.kitchen_lights", "new_state": null}),
    );
    assert_eq!(r.len(), walked(&r));
    r.set_entity_entries(Vec::new());
    assert_eq!(r.len(), walked(&r));
}

#[test]
fn a_satellite_names_where_a_person_speaks_though_it_is_not_exposed() {
    let mut r = home();
    r.apply_state_changed(&json!({"entity_id": "assist_satellite.kitchen",
        "new_state": {"entity_id": "assist_satellite.kitchen", "state": "idle",
          "attributes": {"friendly_name": "Kitchen satellite"},
          "last_updated": "2026-01-01T00:00:02"}}));
    r.set_entity_entry(
        "assist_satellite.kitchen",
        Some(EntityRegistryEntry {
            entity_id: "assist_satellite.kitchen".into(),
            device_id: Some("dev-k".into()),
            options: Some(json!({"conversation": {"should_expose": false}})),
            ..Default::default()
        }),
    );
    assert!(
        r.get("assist_satellite.kitchen").is_none(),
        "not for acting"
    );
    let speaker = r
        .speaker(" Assist_Satellite.Kitchen ")
        .expect("a place to speak");
    assert_eq!(speaker.device_id.as_deref(), Some("dev-k"));
    assert_eq!(
        r.satellite_of("dev-k").map(|e| e.entity_id.as_str()),
        Some("assist_satellite.kitchen")
    );
    assert_eq!(r.satellite_of("dev-other"), None);
    // A light's device is no satellite; a disabled entity names nothing.
    assert!(r.speaker("switch.gone").is_none());
}

/// Home Assistant's aliases are read as strings; anything else in the list (a newer
/// version's marker for "the entity's own name", an empty one) is no alias.
#[test]
fn aliases_are_read_as_strings_only() {
    let entry: EntityRegistryEntry = serde_json::from_value(json!({
        "entity_id": "light.a", "aliases": ["Night Light", null, "", 3]
    }))
    .unwrap();
    assert_eq!(entry.aliases, ["Night Light"]);
    let listed: EntityRegistryEntry =
        serde_json::from_value(json!({"entity_id": "light.a", "aliases": null})).unwrap();
    assert!(listed.aliases.is_empty());
    let listed: EntityRegistryEntry =
        serde_json::from_value(json!({"entity_id": "light.a"})).unwrap();
    assert!(listed.aliases.is_empty());
}
