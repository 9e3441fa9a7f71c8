//! Which devices a command's words name: device words and compounds in every language, the
//! kinds a specific word needs, places, and the bound the words put on a model's call.

use serde_json::json;

use super::tests::*;
use super::*;
use crate::agent::understand::target::split_compound;
use crate::agent::understand::*;
use crate::config::ExposureConfig;
use crate::ha::registry::Registry;

/// The words of `said` (the newest first, then the one before) that point at nothing.
fn unmatched(said: &[String], registry: &Registry) -> Option<Unmatched> {
    crate::agent::understand::unmatched::unmatched(
        &crate::agent::understand::mood::Reading::new(&said[0]),
        said.get(1).map(String::as_str),
        registry,
    )
}

#[test]
fn polish_and_german_device_words_and_compounds_find_english_names() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "schalte die Deckenleuchten ein",
            "light.turn_on",
            "light.ceiling_lights",
        ),
        (
            "schalte den Deckenventilator ein",
            "fan.turn_on",
            "fan.ceiling_fan",
        ),
        (
            "schalte die Dekobeleuchtung aus",
            "switch.turn_off",
            "switch.decorative_lights",
        ),
        (
            "öffne das Küchenfenster",
            "cover.open_cover",
            "cover.kitchen_window",
        ),
        ("włącz klimatyzację", "switch.turn_on", "switch.ac"),
        ("entsperre die Haustür", "lock.unlock", "lock.front_door"),
        // "Otwórz zamek" is unlocking: approval-gated like any unlock.
        (
            "otwórz zamek w drzwiach wejściowych",
            "lock.unlock",
            "lock.front_door",
        ),
    ];
    for (text, service, target) in cases {
        let (services, targets) = demo_act(text);
        assert_eq!(services, vec![(*service).to_owned()], "{text}");
        assert_eq!(targets, vec![(*target).to_owned()], "{text}");
    }
}

#[test]
fn a_compound_the_home_names_whole_is_not_split() {
    let home = home(&[
        ("light.deckenleuchte", "Deckenleuchte", "living_room"),
        ("light.ceiling", "Ceiling", "living_room"),
    ]);
    assert_eq!(split_compound("deckenleuchte", &home), None);
    match plan("schalte die Deckenleuchte ein", &home) {
        Plan::Act { calls, .. } => assert_eq!(calls[0].entity_ids, vec!["light.deckenleuchte"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_lights_of_a_room_are_its_lights_not_a_switch_named_lights() {
    let (services, mut targets) = demo_act("turn off the lights in the living room");
    targets.sort();
    assert_eq!(services, vec!["light.turn_off"]);
    assert_eq!(
        targets,
        vec!["light.ceiling_lights", "light.living_room_rgbww_lights"]
    );
}

#[test]
fn one_device_of_a_kind_with_several_asks_which_naming_those_the_word_fits() {
    let ask = |text: &str| match plan(text, &demo()) {
        Plan::Ask { question, .. } => question,
        other => panic!("{text}: expected a question, got {other:?}"),
    };
    let q = ask("turn on the light");
    for name in ["Bed Light", "Ceiling Lights", "Kitchen Lights"] {
        assert!(q.contains(name), "{q}");
    }
    assert!(!q.contains("Decorative"), "{q}");
    // The garage door is a cover too, but nobody calls it a window.
    assert_eq!(
        ask("öffne das Fenster"),
        "Welches meinst du: Hall Window oder Kitchen Window?"
    );
    assert!(ask("włącz wentylator").starts_with("Które masz na myśli:"));
    // Plural, or the same word in both numbers without a singular article: the model decides.
    assert_eq!(plan("turn on the lights", &demo()), Plan::Model);
    assert_eq!(plan("öffne die Fenster", &demo()), Plan::Model);
}

#[test]
fn a_model_may_act_only_on_what_the_words_point_at() {
    let home = demo();
    let entity = |id: &str| home.get(id).unwrap().clone();
    let yes = [
        ("turn on the kitchen lights", "light.kitchen_lights"),
        ("schalte die Küchenbeleuchtung ein", "light.kitchen_lights"),
        ("turn off everything in the kitchen", "cover.kitchen_window"),
        ("make it cooler with the AC", "switch.ac"),
        ("turn off the lights", "light.bed_light"),
        ("wyłącz światło w sypialni", "light.bed_light"),
        ("open the garage", "cover.garage_door"),
        ("lock the door", "lock.kitchen_door"),
    ];
    for (text, id) in yes {
        assert!(points_at(text, &entity(id), &home), "{text} -> {id}");
    }
    let no = [
        // A device the home does not have is not the nearest real one.
        ("turn on the sauna", "switch.ac"),
        ("włącz pompę w basenie", "light.kitchen_lights"),
        ("turn on the TV", "switch.decorative_lights"),
        // Named rooms bound a kind: the kitchen's lights are not the bedroom's.
        (
            "wyłącz wszystko w sypialni co świeci",
            "light.kitchen_lights",
        ),
        ("turn off the lights in the kitchen", "light.bed_light"),
        ("turn on the garage light", "cover.garage_door"),
    ];
    for (text, id) in no {
        assert!(!points_at(text, &entity(id), &home), "{text} -> {id}");
    }
}

#[test]
fn a_specific_kind_word_needs_that_sort_of_device() {
    let home = home(&[
        ("media_player.group", "Group", "living_room"),
        (
            "media_player.living_room_tv",
            "Living Room TV",
            "living_room",
        ),
    ]);
    let entity = |id: &str| home.get(id).unwrap().clone();
    assert!(!points_at(
        "turn on the TV",
        &entity("media_player.group"),
        &home
    ));
    assert!(points_at(
        "turn on the TV",
        &entity("media_player.living_room_tv"),
        &home
    ));
    assert!(points_at(
        "play music in the living room",
        &entity("media_player.group"),
        &home
    ));
    // A word that names another device here rules this one out: the desk lamp is not the
    // floor lamp, though both are lamps.
    let home = self::home(&[
        ("light.desk_lamp", "Desk Lamp", "living_room"),
        ("light.floor_lamp", "Floor Lamp", "living_room"),
    ]);
    let lamp = |id: &str| home.get(id).unwrap().clone();
    assert!(!points_at(
        "turn on the desk lamp",
        &lamp("light.floor_lamp"),
        &home
    ));
    assert!(points_at(
        "turn on the desk lamp",
        &lamp("light.desk_lamp"),
        &home
    ));
    assert!(points_at(
        "turn on the lamps",
        &lamp("light.floor_lamp"),
        &home
    ));
    // "Vacuuming" names the vacuum's kind.
    let home = self::home(&[(
        "vacuum.roborock_downstairs",
        "Roborock Downstairs",
        "living_room",
    )]);
    let vacuum = home.get("vacuum.roborock_downstairs").unwrap().clone();
    assert!(points_at("stop vacuuming", &vacuum, &home));
    assert!(!points_at("stop the music", &vacuum, &home));
}

#[test]
fn the_front_door_is_the_one_at_the_entry() {
    let home = home(&[
        ("lock.smart_lock", "Smart Lock", "entry"),
        ("lock.rear_door_lock", "Rear Door Lock", "garage"),
    ]);
    let Plan::Act { calls, .. } = plan("Lock the front door lock", &home) else {
        panic!("expected the entry's lock");
    };
    assert_eq!(calls[0].entity_ids, vec!["lock.smart_lock".to_owned()]);
    // Without a word for where, two locks are still two.
    assert!(matches!(plan("Lock the door", &home), Plan::Ask { .. }));
}

#[test]
fn an_action_on_nothing_in_the_home_names_the_words_or_why_a_device_is_kept_away() {
    let registry = sample();
    let said = |texts: &[&str]| -> Vec<String> { texts.iter().map(|t| (*t).to_owned()).collect() };
    let nothing = |words: &str| {
        Some(Unmatched::Nothing {
            words: words.to_owned(),
        })
    };
    assert_eq!(
        unmatched(&said(&["turn on the sauna"]), &registry),
        nothing("sauna")
    );
    assert_eq!(
        unmatched(&said(&["turn on the TV in the garage"]), &registry),
        nothing("TV in the garage")
    );
    assert_eq!(
        unmatched(&said(&["Włącz pompę w basenie!"]), &registry),
        nothing("pompę w basenie")
    );
    // Something is meant, or the words stand for something said before: not for this rule.
    for text in [
        "turn on the kitchen light",
        "turn it off",
        "turn off everything",
        "set the volume to 20%",
        "send a message to my phone",
        "turn on the sauna and the kitchen light",
        "is the kitchen light on?",
    ] {
        assert_eq!(unmatched(&said(&[text]), &registry), None, "{text}");
    }
    // A question about the state of what is not here is not read first (issue 48).
    assert_eq!(
        unmatched(&said(&["is the sauna on?"]), &registry),
        Some(Unmatched::NothingAsked {
            words: "sauna".into()
        })
    );
    // "Now the sauna too" after the kitchen light: the model may still mean the light.
    assert_eq!(
        unmatched(
            &said(&["turn on the sauna", "turn on the kitchen light"]),
            &registry
        ),
        None
    );
    // A device Home Assistant has but HomeClaw may not use is named with the reason.
    // The first entity is kept from HomeClaw, beside a kitchen light.
    let keeping = |id: &str, name: &str| {
        home_with(
            &[
                (id, name, "entry"),
                ("light.kitchen_light", "Kitchen Light", "kitchen"),
            ],
            ExposureConfig {
                entity_deny: vec![id.into()],
                ..ExposureConfig::default()
            },
        )
    };
    let kept = keeping("switch.porch", "Porch Switch");
    assert_eq!(
        unmatched(&said(&["turn on the porch switch"]), &kept),
        Some(Unmatched::Hidden {
            reason: crate::ha::registry::Hidden::Filtered,
            name: "Porch Switch".into()
        })
    );
    // One shared word is not the device: "Hause" is a word of the kept automation "Gute
    // Nacht Haus", but Thomas is not, and "not for Assist" would answer a question falsely.
    let kept = keeping("automation.gute_nacht_haus", "Gute Nacht Haus");
    for text in ["ist Thomas zu Hause", "hält sich Thomas zu Hause auf"] {
        let answer = unmatched(&said(&[text]), &kept);
        assert!(
            !matches!(answer, Some(Unmatched::Hidden { .. })),
            "{text}: {answer:?}"
        );
    }
    assert_eq!(
        unmatched(&said(&["schalte Gute Nacht Haus ein"]), &kept),
        Some(Unmatched::Hidden {
            reason: crate::ha::registry::Hidden::Filtered,
            name: "Gute Nacht Haus".into()
        })
    );
}

/// Home Assistant's demo thermostats, with the attributes that say what each can do.
fn thermostats() -> Registry {
    let mut registry = home(&[
        ("climate.heatpump", "HeatPump", "living_room"),
        ("climate.hvac", "Hvac", "kitchen"),
        ("climate.ecobee", "Ecobee", "bedroom_1"),
    ]);
    for (id, name, modes, features) in [
        ("climate.heatpump", "HeatPump", json!(["heat", "off"]), 385),
        (
            "climate.hvac",
            "Hvac",
            json!(["off", "heat", "cool", "auto", "dry", "fan_only"]),
            427,
        ),
        // A range (low/high), not one target temperature.
        (
            "climate.ecobee",
            "Ecobee",
            json!(["heat_cool", "cool", "heat"]),
            2,
        ),
    ] {
        registry.apply_state_changed(&json!({"entity_id": id,
            "new_state": {"entity_id": id, "state": "off",
                "attributes": {"friendly_name": name, "hvac_modes": modes,
                    "supported_features": features},
                "last_changed": "2026-01-01T00:00:01+00:00",
                "last_updated": "2026-01-01T00:00:01+00:00"}}));
    }
    registry
}

#[test]
fn thermostats_take_modes_they_list_and_temperatures_they_accept() {
    let registry = thermostats();
    let planned = |text: &str| match plan(text, &registry) {
        Plan::Act { calls, lang } => Some((
            format!("{}.{}", calls[0].domain, calls[0].service),
            calls[0].entity_ids.clone(),
            calls[0].data.clone(),
            lang,
        )),
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        planned("set the heatpump to heat mode"),
        Some((
            "climate.set_hvac_mode".into(),
            vec!["climate.heatpump".into()],
            json!({"hvac_mode": "heat"}),
            Lang::En
        ))
    );
    assert_eq!(
        planned("ustaw Hvac na chłodzenie").map(|p| (p.2, p.3)),
        Some((json!({"hvac_mode": "cool"}), Lang::Pl))
    );
    // The kind word that is one thermostat's whole name is that thermostat.
    assert_eq!(
        planned("turn off the hvac").map(|p| p.1),
        Some(vec!["climate.hvac".into()])
    );
    assert_eq!(
        planned("set the hvac to 21 degrees").map(|p| (p.0, p.2)),
        Some(("climate.set_temperature".into(), json!({"temperature": 21})))
    );
    assert_eq!(
        planned("stelle HeatPump auf 20 Grad").map(|p| (p.2, p.3)),
        Some((json!({"temperature": 20}), Lang::De))
    );
    assert_eq!(
        planned("Hvac 19°").map(|p| p.2),
        Some(json!({"temperature": 19}))
    );
    // Raised or lowered to a temperature: the number says what.
    assert_eq!(
        planned("raise the hvac to 23 degrees").map(|p| p.2),
        Some(json!({"temperature": 23}))
    );
    assert_eq!(
        planned("lower the hvac to 18 degrees").map(|p| p.2),
        Some(json!({"temperature": 18}))
    );
    // A half degree as said, with a point or a comma: never rounded (the reply would then say
    // a value the thermostat does not show).
    assert_eq!(
        planned("set the hvac to 19.5 degrees").map(|p| p.2),
        Some(json!({"temperature": 19.5}))
    );
    assert_eq!(
        planned("ustaw Hvac na 21,5 stopnia").map(|p| p.2),
        Some(json!({"temperature": 21.5}))
    );
    assert_eq!(
        planned("stelle HeatPump auf 20,5°").map(|p| p.2),
        Some(json!({"temperature": 20.5}))
    );
    // A mode the thermostat does not list, a single temperature for one that takes a range:
    // not planned, the model explains.
    assert_eq!(
        plan("set the heatpump to cool mode", &registry),
        Plan::Model
    );
    assert_eq!(plan("set the ecobee to 21 degrees", &registry), Plan::Model);
}

#[test]
fn a_place_after_in_and_a_heating_verb_do_not_stand_for_a_device() {
    let mut registry = home(&[
        ("media_player.lounge_tv", "Lounge Room", "living_room"),
        ("cover.garage_door", "Garage Door", "garage"),
    ]);
    for (id, name, class) in [
        ("media_player.lounge_tv", "Lounge Room", "tv"),
        ("cover.garage_door", "Garage Door", "garage"),
    ] {
        registry.apply_state_changed(&json!({"entity_id": id,
            "new_state": {"entity_id": id, "state": "off",
                "attributes": {"friendly_name": name, "device_class": class},
                "last_changed": "2026-01-01T00:00:01+00:00",
                "last_updated": "2026-01-01T00:00:01+00:00"}}));
    }
    let tv = registry.get("media_player.lounge_tv").unwrap().clone();
    assert!(points_at("turn on the TV", &tv, &registry));
    assert!(!points_at("turn on the TV in the garage", &tv, &registry));
    assert_eq!(
        unmatched(&["turn on the TV in the garage".to_owned()], &registry),
        Some(Unmatched::Nothing {
            words: "TV in the garage".into()
        })
    );
    assert_eq!(
        unmatched(
            &["heat up the sauna to 90 degrees".to_owned()],
            &thermostats()
        ),
        Some(Unmatched::Nothing {
            words: "sauna".into()
        })
    );
    assert_eq!(
        plan("warm up the Hvac to 23 degrees", &thermostats()),
        Plan::Act {
            calls: vec![PlannedCall {
                domain: "climate".into(),
                service: "set_temperature".into(),
                entity_ids: vec!["climate.hvac".into()],
                data: json!({"temperature": 23}),
            }],
            lang: Lang::En
        }
    );
}

#[test]
fn a_place_the_home_does_not_have_points_at_nothing() {
    let r = demo();
    let window = r.get("cover.kitchen_window").unwrap().clone();
    let light = r.get("light.ceiling_lights").unwrap().clone();
    assert!(!points_at("Open the bathroom window", &window, &r));
    assert!(!points_at("Turn on the garden lights", &light, &r));
    assert!(!points_at("Mach das Licht im Bad an", &light, &r));
    // A place it has, or no place at all, still points at its devices.
    assert!(points_at("Open the kitchen window", &window, &r));
    assert!(points_at("Turn on the lights", &light, &r));
    assert!(points_at("Open the window please", &window, &r));
}

#[test]
fn all_the_windows_are_the_windows_not_every_cover() {
    let r = windows_and_doors();
    for text in [
        "Can you close all the windows?",
        "Zamknij wszystkie okna",
        "Mach alle Fenster zu",
    ] {
        let (service, mut ids, _) = one_call(text, &r);
        ids.sort();
        assert_eq!(service, "cover.close_cover", "{text}");
        assert_eq!(ids, ["cover.hall_window", "cover.kitchen_window"], "{text}");
    }
}
