//! Home Assistant's recognitions whose words bound the target beyond its slots: "here", a
//! player's verb said of a room, a scene or script turned on, a name two kinds of device share.

use serde_json::json;

use super::recognised_tests::{calls, plan, rec};
use crate::agent::plan::recognised::{Understood, understood};
use crate::agent::plan::tests::home_in_states;

/// The home's satellite `sat_bedroom`, in the bedroom.
fn satellite_in_bedroom(registry: &mut crate::ha::registry::Registry) {
    registry.set_devices(vec![crate::ha::registry::DeviceEntry {
        id: "sat_bedroom".into(),
        area_id: Some("bedroom_1".into()),
        ..Default::default()
    }]);
}

/// "Aquí" in a language HomeClaw has no lexicon for: Home Assistant's recogniser matched the
/// fan by its name, but the fan is in the living room and the person speaks in the bedroom —
/// nothing is done. Without "here" the name stands; with "here" and no room known, nothing.
#[test]
fn here_holds_whatever_name_home_assistant_matched() {
    use crate::agent::understand::parsed::Parsed;
    let mut registry = home_in_states(&[
        (
            "fan.ventilador_de_techo",
            "Ventilador de techo",
            "living_room",
            "off",
            json!({}),
        ),
        ("light.lampara", "Lámpara", "bedroom_1", "off", json!({})),
    ]);
    satellite_in_bedroom(&mut registry);
    let r = rec(
        "HassTurnOn",
        &[("name", json!("ventilador"))],
        &["fan.ventilador_de_techo"],
        true,
    );
    let said = |text: &str, device: Option<&str>| Parsed::new(text, Some("es"), device, &registry);
    let here = said("Enciende el ventilador aquí", Some("sat_bedroom"));
    assert!(
        matches!(
            understood(&r, Some(&here), None, "", &registry),
            Understood::Nothing
        ),
        "the living room's fan is not here"
    );
    let plain = said("Enciende el ventilador", Some("sat_bedroom"));
    assert_eq!(
        calls(&understood(&r, Some(&plain), None, "", &registry)).len(),
        1
    );
    let nowhere = said("Enciende el ventilador aquí", None);
    assert!(matches!(
        understood(&r, Some(&nowhere), None, "", &registry),
        Understood::Nothing
    ));
}

/// "Pause" said to the living room's satellite: Home Assistant's debug targets list the
/// room's lamps and thermostat (its handler skips players by state), never the player; the
/// slots pick from the registry, and of the room's players the one playing, not the one off.
#[test]
fn a_players_verb_said_of_a_room_pauses_the_player_playing_there() {
    let registry = home_in_states(&[
        (
            "light.stehlampe",
            "Stehlampe",
            "living_room",
            "on",
            json!({}),
        ),
        ("media_player.tv", "TV", "living_room", "off", json!({})),
        (
            "media_player.speaker",
            "Speaker",
            "living_room",
            "playing",
            json!({}),
        ),
        (
            "media_player.b",
            "Speaker B",
            "kitchen",
            "playing",
            json!({}),
        ),
    ]);
    let pause = rec(
        "HassMediaPause",
        &[("area", json!("Living Room"))],
        &["light.stehlampe"],
        true,
    );
    assert_eq!(
        calls(&plan(&pause, &registry)),
        [(
            "media_player".into(),
            "media_pause".into(),
            vec!["media_player.speaker".to_owned()],
            json!({})
        )]
    );
    // Nothing playing there: the room's players, as asked (pausing what is off changes nothing).
    let resume = rec(
        "HassMediaUnpause",
        &[("area", json!("Living Room"))],
        &["light.stehlampe"],
        true,
    );
    let Understood::Act { calls, .. } = plan(&resume, &registry) else {
        panic!("expected calls");
    };
    let mut players: Vec<String> = calls.iter().flat_map(|c| c.entity_ids.clone()).collect();
    players.sort();
    assert_eq!(players, ["media_player.speaker", "media_player.tv"]);
}

/// "Party mode on", "start the stealth mode script": Home Assistant's `HassTurnOn` of a scene
/// or a script is its activation, a run of HomeClaw's own.
#[test]
fn a_scene_or_script_turned_on_is_activated() {
    let registry = home_in_states(&[
        (
            "scene.party_mode",
            "Party Mode",
            "living_room",
            "2025-01-01T00:00:00+00:00",
            json!({}),
        ),
        (
            "script.stealth_mode",
            "Stealth Mode",
            "living_room",
            "off",
            json!({}),
        ),
    ]);
    for (name, id) in [
        ("Party Mode", "scene.party_mode"),
        ("Stealth Mode", "script.stealth_mode"),
    ] {
        let on = rec("HassTurnOn", &[("name", json!(name))], &[id], true);
        let made = calls(&plan(&on, &registry));
        assert_eq!(made.len(), 1);
        assert_eq!(
            (made[0].1.as_str(), made[0].2.clone()),
            ("turn_on", vec![id.to_owned()])
        );
    }
}

/// A name a lock and a cover share, recognised without a domain: locking the one would open
/// the other. Neither is acted on by HomeClaw's own calls, unless Home Assistant's value is
/// the one's name as written and not the other's (the sentence for locks matched the lock).
#[test]
fn a_name_of_two_kinds_of_device_is_not_acted_on_blindly() {
    // The door named as given, beside the lock "Ulazna vrata".
    let home = |door: &str| {
        home_in_states(&[
            (
                "lock.front_door",
                "Ulazna vrata",
                "entry",
                "unlocked",
                json!({}),
            ),
            ("cover.entrance_door", door, "entry", "closed", json!({})),
        ])
    };
    let registry = home("Ulazna vrata");
    let lock = rec("HassTurnOn", &[("name", json!("Ulazna vrata"))], &[], true);
    assert_eq!(plan(&lock, &registry), Understood::Unknown);
    let cased = home("ulazna vrata");
    let locked = calls(&plan(&lock, &cased));
    assert_eq!(
        (locked.len(), locked[0].1.as_str()),
        (1, "lock"),
        "{locked:?}"
    );
    // Said with its kind, it is that one.
    let cover = rec(
        "HassTurnOn",
        &[("name", json!("Ulazna vrata")), ("domain", json!("cover"))],
        &["cover.entrance_door"],
        true,
    );
    assert_eq!(calls(&plan(&cover, &registry))[0].1, "open_cover");
}

#[test]
fn a_name_of_a_light_and_a_switch_turns_both_on() {
    let registry = home_in_states(&[
        ("light.kitchen", "Kitchen", "kitchen", "off", json!({})),
        ("switch.kitchen", "Kitchen", "kitchen", "off", json!({})),
    ]);
    let on = rec("HassTurnOn", &[("name", json!("Kitchen"))], &[], true);
    assert_eq!(calls(&plan(&on, &registry)).len(), 2);
}

/// "Seteaza temperatura la 22 de grade" said to the bedroom's satellite in a home with two
/// thermostats: Home Assistant's debug answer names no area, its handler takes the bedroom's
/// radiator; so does HomeClaw. Said to no device, it is neither (which one is not said).
#[test]
fn a_change_said_to_a_satellite_is_its_rooms_only_device() {
    use crate::agent::understand::parsed::Parsed;
    let mut registry = home_in_states(&[
        (
            "climate.radiator",
            "Calorifer",
            "bedroom_1",
            "heat",
            json!({}),
        ),
        (
            "climate.thermostat",
            "Termostatul",
            "living_room",
            "heat",
            json!({}),
        ),
    ]);
    satellite_in_bedroom(&mut registry);
    let r = rec(
        "HassClimateSetTemperature",
        &[("temperature", json!(22))],
        &[],
        true,
    );
    let text = "seteaza temperatura la 22 de grade";
    let spoken = Parsed::new(text, Some("ro"), Some("sat_bedroom"), &registry);
    let set = calls(&understood(&r, Some(&spoken), None, text, &registry));
    assert_eq!(set.len(), 1, "{set:?}");
    assert_eq!(set[0].2, ["climate.radiator"], "{set:?}");
    let typed = Parsed::new(text, Some("ro"), None, &registry);
    assert!(!matches!(
        understood(&r, Some(&typed), None, text, &registry),
        Understood::Act { .. }
    ));
}

/// Slovak "zatiahni modrý záves": Home Assistant's template for it implies blinds, no word says
/// so, and the curtain is named. A class said in words still binds ("závesy" are curtains).
#[test]
fn a_class_only_the_template_implies_does_not_overrule_a_device_named() {
    let registry = home_in_states(&[
        (
            "cover.blue_curtain",
            "Modrý záves",
            "guest_room",
            "open",
            json!({"device_class": "curtain"}),
        ),
        (
            "cover.blind",
            "Roleta",
            "guest_room",
            "open",
            json!({"device_class": "blind"}),
        ),
    ]);
    let mut closed = rec(
        "HassTurnOff",
        &[
            ("name", json!("modrý záves")),
            ("domain", json!("cover")),
            ("device_class", json!("blind")),
        ],
        &[],
        true,
    );
    let unsaid = |r: &mut crate::ha::recognise::Recognition, text: &str| {
        for (name, slot) in &mut r.slots {
            if name == "device_class" {
                slot.text = text.into();
            }
        }
    };
    unsaid(&mut closed, "");
    let made = calls(&plan(&closed, &registry));
    assert_eq!(made.len(), 1, "{made:?}");
    assert_eq!(made[0].2, vec!["cover.blue_curtain".to_owned()]);
    // Said in words, the class binds: no blind is so named.
    unsaid(&mut closed, "rolety");
    assert_eq!(plan(&closed, &registry), Understood::Nothing);
}

/// Italian, a language HomeClaw has kind words for and no lexicon: Home Assistant 2025.4 reads
/// "spegni in soggiorno il climatizzatore" by a template for fans (its rules list the word for
/// both), and HomeClaw does not turn off the fan; read as the thermostats, they are turned off.
#[test]
fn kind_words_hold_home_assistants_reading_where_homeclaw_has_no_lexicon() {
    use crate::agent::understand::parsed::Parsed;
    let registry = home_in_states(&[
        (
            "fan.ventilatore",
            "Ventilatore",
            "living_room",
            "on",
            json!({}),
        ),
        (
            "climate.clima_soggiorno",
            "Condizionatore Soggiorno",
            "living_room",
            "cool",
            json!({"hvac_modes": ["off", "cool"]}),
        ),
    ]);
    let off = |domain: &str, ids: &[&str]| {
        rec(
            "HassTurnOff",
            &[("area", json!("Living Room")), ("domain", json!(domain))],
            ids,
            true,
        )
    };
    let said = |text: &str| Parsed::new(text, Some("it-IT"), None, &registry);
    let text = "spegni in soggiorno il climatizzatore";
    let fan = off("fan", &["fan.ventilatore"]);
    assert_eq!(
        understood(&fan, Some(&said(text)), None, text, &registry),
        Understood::Nothing
    );
    // Without the words' language it is Home Assistant's reading, as before.
    let theirs = understood(&fan, None, None, text, &registry);
    assert!(matches!(theirs, Understood::Act { .. }), "{theirs:?}");
    let text = "in soggiorno il climatizzatore spegni";
    let thermostat = off("climate", &["climate.clima_soggiorno"]);
    let made = calls(&understood(
        &thermostat,
        Some(&said(text)),
        None,
        text,
        &registry,
    ));
    assert_eq!(made[0].2, vec!["climate.clima_soggiorno".to_owned()]);
}
