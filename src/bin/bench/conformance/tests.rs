use serde_json::{Value, json};

use super::corpus::{Area, Case, Entity, Home, Kind};
use super::judge::{self, Effect};

fn action(domain: &str, service: &str, ids: &[&str], data: Value) -> Value {
    json!({"domain": domain, "service": service, "entity_ids": ids, "data": data})
}

fn entity(id: &str, name: &str, area: &str, class: Option<&str>, state: &str) -> Entity {
    Entity {
        id: id.into(),
        name: name.into(),
        aliases: Vec::new(),
        area: Some(area.into()),
        device_class: class.map(str::to_owned),
        state: Some(state.into()),
    }
}

fn home() -> Home {
    let area = |id: &str, name: &str, floor: &str| Area {
        id: id.into(),
        name: name.into(),
        aliases: Vec::new(),
        floor: Some(floor.into()),
    };
    Home {
        language: "en".into(),
        areas: vec![
            area("kitchen_id", "Kitchen", "First Floor"),
            area("living_id", "Living Room", "First Floor"),
            area("bedroom_id", "Bedroom", "Second Floor"),
        ],
        entities: vec![
            entity("light.kitchen", "Kitchen Light", "kitchen_id", None, "off"),
            entity("light.living", "Living Room Lamp", "living_id", None, "off"),
            entity("light.bedroom", "Bedroom Lamp", "bedroom_id", None, "off"),
            entity(
                "cover.curtain",
                "Curtain Left",
                "living_id",
                Some("curtain"),
                "open",
            ),
            entity(
                "cover.blind",
                "Bedroom Blind",
                "bedroom_id",
                Some("blind"),
                "open",
            ),
            entity("media_player.tv", "TV", "living_id", None, "playing"),
            entity("media_player.radio", "Radio", "kitchen_id", None, "paused"),
            entity("lock.front", "Front Door", "living_id", None, "unlocked"),
        ],
        left_out: Vec::new(),
    }
}

fn case(intent: &str, slots: Value, context_area: Option<&str>) -> Case {
    let slots = slots.as_object().cloned().unwrap_or_default();
    Case {
        id: "t#0.0".into(),
        sentence: "…".into(),
        intent: intent.into(),
        stated: slots.clone(),
        slots,
        context_area: context_area.map(str::to_owned),
        kind: super::corpus::kind_of(intent),
    }
}

fn ids(case: &Case) -> Vec<String> {
    judge::targets(case, &home())
        .iter()
        .map(|e| e.id.clone())
        .collect()
}

#[test]
fn targets_follow_every_slot() {
    let lights_on = |slots: Value, here: Option<&str>| ids(&case("HassTurnOn", slots, here));
    assert_eq!(
        lights_on(json!({"area": "Kitchen", "domain": "light"}), None),
        ["light.kitchen"]
    );
    assert_eq!(
        lights_on(json!({"floor": "First Floor", "domain": "light"}), None),
        ["light.kitchen", "light.living"]
    );
    // No place said: the satellite's area.
    assert_eq!(
        lights_on(json!({"domain": "light"}), Some("Bedroom")),
        ["light.bedroom"]
    );
    assert_eq!(
        ids(&case(
            "HassTurnOff",
            json!({"domain": "cover", "device_class": "curtain"}),
            None
        )),
        ["cover.curtain"]
    );
    // An area the home does not have names nothing (not every light).
    assert!(lights_on(json!({"area": "Attic", "domain": "light"}), None).is_empty());
}

#[test]
fn a_players_verb_alone_means_the_player_in_that_state() {
    assert_eq!(
        ids(&case("HassMediaPause", json!({}), None)),
        ["media_player.tv"]
    );
    assert_eq!(
        ids(&case("HassMediaUnpause", json!({}), None)),
        ["media_player.radio"]
    );
    // Home Assistant's handlers need the state too when the player is named: skipping on a
    // paused radio is refused by Home Assistant's agent itself, so nothing is expected.
    assert!(ids(&case("HassMediaNext", json!({"name": "Radio"}), None)).is_empty());
    assert_eq!(
        ids(&case(
            "HassSetVolume",
            json!({"name": "TV", "volume_level": 50}),
            None
        )),
        ["media_player.tv"]
    );
}

#[test]
fn a_call_is_judged_by_its_effects_and_its_targets() {
    let c = case(
        "HassLightSet",
        json!({"name": "Kitchen Light", "brightness": 40}),
        None,
    );
    let expected = judge::expected(&c, &home()).unwrap();
    assert!(expected.contains(&("light.kitchen".into(), Effect::Brightness(40))));
    let right = action(
        "light",
        "turn_on",
        &["light.kitchen"],
        json!({"brightness_pct": 40}),
    );
    assert_eq!(judge::homeclaw(&expected, &[right]), (true, vec![]));
    let rounded = action(
        "light",
        "turn_on",
        &["light.kitchen"],
        json!({"brightness_pct": 50}),
    );
    assert!(!judge::homeclaw(&expected, &[rounded]).0);
    let also = action(
        "light",
        "turn_on",
        &["light.kitchen", "light.living"],
        json!({"brightness_pct": 40}),
    );
    assert_eq!(
        judge::homeclaw(&expected, &[also]),
        (false, vec!["light.living".to_owned()])
    );
    // A lock is locked by HassTurnOn, a cover closed by HassTurnOff.
    let lock = judge::expected(
        &case("HassTurnOn", json!({"name": "Front Door"}), None),
        &home(),
    );
    assert!(
        judge::homeclaw(
            &lock.unwrap(),
            &[action("lock", "lock", &["lock.front"], json!({}))]
        )
        .0
    );
    let temp = case(
        "HassClimateSetTemperature",
        json!({"temperature": 19.5}),
        None,
    );
    assert_eq!(
        judge::call_effects(&action(
            "climate",
            "set_temperature",
            &["climate.x"],
            json!({"temperature": 19.5})
        )),
        [("climate.x".to_owned(), Effect::Temperature(195))].into()
    );
    assert_eq!(temp.kind, Kind::Act);
}

#[test]
fn home_assistant_is_judged_on_the_blocks_intent_and_slots() {
    use homeclaw::ha::recognise::{Recognition, Slot, Source};
    let slot = |v: Value| Slot {
        value: v,
        text: String::new(),
    };
    let c = case(
        "HassTurnOn",
        json!({"area": "Kitchen", "domain": "light"}),
        None,
    );
    let mut r = Recognition {
        intent: "HassTurnOn".into(),
        slots: vec![
            ("area".into(), slot(json!("Kitchen"))),
            ("domain".into(), slot(json!("light"))),
        ],
        targets: Vec::new(),
        matched: true,
        unmatched: Vec::new(),
        source: Source::Builtin,
    };
    assert!(judge::ha(&c, Some(&r)));
    r.slots[0].1 = slot(json!("Living Room"));
    assert!(!judge::ha(&c, Some(&r)));
    assert!(!judge::ha(&c, None));
}

#[test]
fn a_fixtures_name_template_is_every_form_it_writes() {
    let (name, aliases) = super::corpus::forms("(Lamp(a|y)|světlo) v ložnici");
    assert_eq!(name, "Lampa v ložnici");
    assert_eq!(aliases, ["Lampy v ložnici", "světlo v ložnici"]);
    let (name, aliases) = super::corpus::forms("Obývací[m] pokoj[i]");
    assert_eq!(name, "Obývací pokoj");
    assert_eq!(aliases.len(), 3);
    assert_eq!(super::corpus::forms("Kitchen").0, "Kitchen");
}

#[test]
fn a_slot_listing_a_names_forms_names_the_device() {
    let mut home = home();
    home.entities[0].aliases = vec!["Kuchyňské světlo".into()];
    let c = case(
        "HassTurnOn",
        json!({"name": ["Kuchyňské světlo", "Kuchyňská světla"]}),
        None,
    );
    let found: Vec<&str> = judge::targets(&c, &home)
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(found, ["light.kitchen"]);
}

#[test]
fn fewer_of_the_asked_devices_is_narrower_not_wrong() {
    let c = case(
        "HassTurnOff",
        json!({"floor": "First Floor", "domain": "light"}),
        None,
    );
    let expected = judge::expected(&c, &home()).unwrap();
    let one = [action("light", "turn_off", &["light.kitchen"], json!({}))];
    assert_eq!(judge::homeclaw(&expected, &one), (false, vec![]));
    assert!(judge::narrower(&expected, &one));
    let other = [action("light", "turn_off", &["light.bedroom"], json!({}))];
    assert!(!judge::narrower(&expected, &other));
}

#[test]
fn a_block_naming_several_rooms_is_one_reading_per_room() {
    let c = case(
        "HassTurnOn",
        json!({"area": ["Kitchen", "Bedroom"], "domain": "light"}),
        None,
    );
    let readings = judge::alternatives(&c, &home());
    assert_eq!(readings.len(), 2);
    let bedroom = judge::expected(&readings[1], &home()).unwrap();
    let on = [action("light", "turn_on", &["light.bedroom"], json!({}))];
    assert!(judge::homeclaw(&bedroom, &on).0);
    // The room the sentence says is its reading, not another one the block lists.
    let said = Case {
        sentence: "turn on the lights in the bedroom".into(),
        ..c.clone()
    };
    let readings = judge::alternatives(&said, &home());
    assert_eq!(readings.len(), 1);
    assert_eq!(readings[0].slots["area"], json!("Bedroom"));
    // One room's forms stay one reading.
    let forms = case("HassTurnOn", json!({"area": ["Kitchen", "kitchen"]}), None);
    assert_eq!(judge::alternatives(&forms, &home()).len(), 1);
}

/// A block whose name slot lists two devices (each of its sentences names one) is a reading
/// per device: turning on the one a sentence names passes, and is not "narrower".
#[test]
fn a_block_naming_several_devices_is_one_reading_per_device() {
    let c = case(
        "HassTurnOn",
        json!({"name": ["Kitchen Light", "kitchen light", "Bedroom Lamp"], "domain": "light"}),
        None,
    );
    let readings = judge::alternatives(&c, &home());
    assert_eq!(readings.len(), 2);
    let on = [action("light", "turn_on", &["light.bedroom"], json!({}))];
    assert!(readings.iter().any(|r| {
        let expected = judge::expected(r, &home()).unwrap();
        judge::homeclaw(&expected, &on).0
    }));
    // Both at once strays from either reading.
    let both = [action(
        "light",
        "turn_on",
        &["light.bedroom", "light.kitchen"],
        json!({}),
    )];
    assert!(readings.iter().all(|r| {
        let expected = judge::expected(r, &home()).unwrap();
        !judge::homeclaw(&expected, &both).0
    }));
}

/// A device class list is every class together or any one of them: the blinds alone pass
/// (Home Assistant reads Czech "rolety" as `blind` and acts on the blinds only), and so do
/// all window coverings at once.
#[test]
fn a_device_class_list_is_all_of_them_or_any_one() {
    let c = case(
        "HassTurnOff",
        json!({"domain": "cover", "device_class": ["blind", "curtain"]}),
        None,
    );
    let readings = judge::alternatives(&c, &home());
    assert_eq!(readings.len(), 3);
    let passes = |ids: &[&str]| {
        let calls = [action("cover", "close_cover", ids, json!({}))];
        readings
            .iter()
            .any(|r| judge::expected(r, &home()).is_some_and(|e| judge::homeclaw(&e, &calls).0))
    };
    assert!(passes(&["cover.blind"]));
    assert!(passes(&["cover.blind", "cover.curtain"]));
    assert!(!passes(&["cover.blind", "cover.curtain", "light.kitchen"]));
}

/// A fixture's entity id is the one Home Assistant registers: its slugify's letters, in lower
/// case (an id with a capital stopped the loader, and every entity after it was left in no
/// room and unexposed).
#[test]
fn an_entity_id_is_the_one_home_assistant_registers() {
    use super::corpus::home_assistants_id;
    assert_eq!(
        home_assistants_id("sensor.price_per_kW"),
        "sensor.price_per_kw"
    );
    assert_eq!(
        home_assistants_id("light.yatakodası_lamba"),
        "light.yatakodasi_lamba"
    );
    assert_eq!(home_assistants_id("valve.zawór"), "valve.zawor");
}
