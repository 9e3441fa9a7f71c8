//! A device's names: the household's aliases (Home Assistant's entity aliases) name a device
//! as its name does, in HomeClaw's own reading and where Home Assistant's recogniser heard an
//! alias it could not place; words that are a device's whole name mean that device.

use serde_json::json;

use super::plan;
use super::recognised::{Understood, understood};
use super::recognised_tests::{calls, plan as plan_recognised, rec};
use super::tests::home_in_states;
use crate::agent::selfcheck::home::{home_of, link, state_object};
use crate::agent::testkit::planned_calls;
use crate::ha::recognise::{Recognition, Slot};
use crate::ha::registry::Registry;

/// A bedroom lamp the household also calls "night light", and a hall lamp.
fn home() -> Registry {
    let mut bedroom = link("light.bedroom_lamp", "bedroom");
    bedroom.aliases = vec!["Night Light".into(), "noćno svjetlo".into()];
    home_of(
        vec![
            state_object("light.bedroom_lamp", "Bedroom Lamp", "off"),
            state_object("light.hall_lamp", "Hall Lamp", "off"),
        ],
        vec![bedroom, link("light.hall_lamp", "hall")],
        &[("bedroom", "Bedroom"), ("hall", "Hall")],
        json!({"light": {"turn_on": {}, "turn_off": {}}}),
    )
}

#[test]
fn an_alias_names_its_device_in_homeclaws_own_reading() {
    let registry = home();
    let (said, ..) = planned_calls(plan("turn on the night light", &registry)).unwrap();
    assert_eq!(said, ["light.turn_on light.bedroom_lamp"]);
    // Its name still names it; the alias's words alone never name another device.
    let (said, ..) = planned_calls(plan("turn on the bedroom lamp", &registry)).unwrap();
    assert_eq!(said, ["light.turn_on light.bedroom_lamp"]);
    let entity = registry.get("light.bedroom_lamp").unwrap();
    assert_eq!(entity.aliases, ["Night Light", "noćno svjetlo"]);
    assert!(registry.matches_word("night"));
}

#[test]
fn an_alias_home_assistant_heard_but_could_not_place_is_its_device() {
    let registry = home();
    // "Postavi noćno svjetlo na najmanje": Home Assistant's sentence took the brightness
    // and left the alias unmatched.
    let mut low = rec("HassLightSet", &[("brightness", json!(1))], &[], false);
    low.unmatched = vec![("name".into(), "noćno svjetlo ".into())];
    let planned = calls(&plan_recognised(&low, &registry));
    assert_eq!(planned[0].2, ["light.bedroom_lamp"]);
    assert_eq!(planned[0].3, json!({"brightness_pct": 1}));
    // An alias is a name of the home: never "nothing here is called that".
    let mut on = rec("HassTurnOn", &[], &[], false);
    on.unmatched = vec![("name".into(), "night".into())];
    assert_ne!(
        plan_recognised(&on, &registry),
        Understood::NoSuchName("night".into())
    );
    // Of Home Assistant's targets for an alias, the one so called.
    let named = rec(
        "HassTurnOn",
        &[("name", json!("Night Light"))],
        &["light.bedroom_lamp", "light.hall_lamp"],
        true,
    );
    assert_eq!(
        calls(&plan_recognised(&named, &registry))[0].2,
        ["light.bedroom_lamp"]
    );
}

/// Home Assistant's reading of a cover command: each slot as (name, value, the words said
/// for it), and its domain slot, which says no words.
fn covers_read_as(intent: &str, targets: &[&str], slots: &[(&str, &str, &str)]) -> Recognition {
    let mut r = rec(intent, &[], targets, true);
    for (name, value, text) in std::iter::once(&("domain", "cover", "")).chain(slots) {
        let slot = Slot {
            value: json!(value),
            text: (*text).to_owned(),
        };
        r.slots.push(((*name).to_owned(), slot));
    }
    r
}

/// The entities the one call for `r` acts on, sorted.
fn ids_of(r: &Recognition, sentence: &str, registry: &Registry) -> Vec<String> {
    let mut ids = calls(&understood(r, None, None, sentence, registry))[0]
        .2
        .clone();
    ids.sort();
    ids
}

/// Where Home Assistant read a device's whole name as a kind and a place ("otevřít žaluzie
/// ložnice": blinds, bedroom), the device so named is meant, not every one of the kind there;
/// words that only describe ("the blinds in the bedroom") keep them all.
#[test]
fn words_read_as_kind_and_place_that_are_a_devices_name_mean_that_device() {
    let registry = home_in_states(&[
        (
            "cover.front",
            "Přední roleta",
            "bedroom_1",
            "closed",
            json!({"device_class": "blind"}),
        ),
        (
            "cover.bedroom",
            "Žaluzie ložnice",
            "bedroom_1",
            "closed",
            json!({"device_class": "blind"}),
        ),
    ]);
    let read_as = |slots| covers_read_as("HassTurnOn", &["cover.front", "cover.bedroom"], slots);
    let ids = |r: &Recognition, sentence: &str| ids_of(r, sentence, &registry);
    let named = read_as(&[
        ("device_class", "blind", "žaluzie"),
        ("area", "Bedroom 1", "ložnice"),
    ]);
    assert_eq!(ids(&named, "otevřít žaluzie ložnice"), ["cover.bedroom"]);
    let described = read_as(&[
        ("device_class", "blind", "blinds"),
        ("area", "Bedroom 1", "bedroom"),
    ]);
    assert_eq!(
        ids(&described, "open the blinds in the bedroom"),
        ["cover.bedroom", "cover.front"]
    );
    // Said in the bedroom: Home Assistant fills the area slot from the satellite's room with
    // the room's name as its words, which the sentence does not have. "The blinds here" are
    // both blinds, not the one whose name is "blinds" + the room's name (the same reading as
    // `named`, said without the room).
    assert_eq!(
        ids(&named, "zatáhni žaluzie"),
        ["cover.bedroom", "cover.front"]
    );
    // The name's words as a kind and a room, apart and in another order ("d Vorhäng im
    // Schlafzimmer": the curtains in the bedroom), are a description, not the name
    // "Schlafzimmer Vorhang" (said so, it is that one).
    let registry = home_in_states(&[
        (
            "cover.bedroom",
            "Schlafzimmer Vorhang",
            "bedroom_1",
            "open",
            json!({"device_class": "curtain"}),
        ),
        (
            "cover.left",
            "Vorhang links",
            "bedroom_1",
            "open",
            json!({"device_class": "curtain"}),
        ),
    ]);
    let curtains = covers_read_as(
        "HassTurnOff",
        &["cover.bedroom", "cover.left"],
        &[
            ("device_class", "curtain", "Vorhäng"),
            ("area", "Bedroom 1", "Schlafzimmer"),
        ],
    );
    let closed = |sentence: &str| ids_of(&curtains, sentence, &registry);
    assert_eq!(
        closed("Mach d Vorhäng im Schlafzimmer zue"),
        ["cover.bedroom", "cover.left"]
    );
    assert_eq!(closed("Mach Schlafzimmer Vorhang zue"), ["cover.bedroom"]);
}
