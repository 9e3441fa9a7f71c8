//! Home Assistant's recognitions, as 2025.4.4 answers them, turned into HomeClaw's plans: every
//! slot constrains the targets together, and nothing is widened.

use serde_json::{Value, json};

use crate::agent::plan::recognised::{Understood, understood};
use crate::agent::plan::tests::{home_in_states, home_on_floors};
use crate::config::ExposureConfig;
use crate::ha::recognise::{Recognition, Slot, Source};
use crate::ha::registry::Registry;
use crate::lang::Lang;

pub(super) fn rec(
    intent: &str,
    slots: &[(&str, Value)],
    targets: &[&str],
    matched: bool,
) -> Recognition {
    Recognition {
        intent: intent.into(),
        slots: slots
            .iter()
            .map(|(n, v)| {
                let text = v
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| v.to_string());
                (
                    (*n).to_owned(),
                    Slot {
                        value: v.clone(),
                        text,
                    },
                )
            })
            .collect(),
        targets: targets.iter().map(|t| ((*t).to_owned(), true)).collect(),
        matched,
        unmatched: Vec::new(),
        source: Source::Builtin,
    }
}

pub(super) fn plan(r: &Recognition, registry: &Registry) -> Understood {
    understood(r, None, None, "", registry)
}

pub(super) fn calls(u: &Understood) -> Vec<(String, String, Vec<String>, Value)> {
    match u {
        Understood::Act { calls, .. } => calls
            .iter()
            .map(|c| {
                (
                    c.domain.clone(),
                    c.service.clone(),
                    c.entity_ids.clone(),
                    c.data.clone(),
                )
            })
            .collect(),
        other => panic!("expected calls, got {other:?}"),
    }
}

fn two_floors() -> Registry {
    home_on_floors(
        &[
            ("light.deckenleuchte", "Deckenleuchte", "kitchen"),
            ("light.nachttischlampe", "Nachttischlampe", "bedroom_1"),
            ("light.schreibtischlampe", "Schreibtischlampe", "bedroom_2"),
            ("cover.garagentor", "Garagentor", "garage"),
        ],
        &[
            ("Erdgeschoss", Some(0), &["kitchen", "garage"]),
            ("Obergeschoss", Some(1), &["bedroom_1", "bedroom_2"]),
        ],
        ExposureConfig::default(),
    )
}

#[test]
fn a_floor_bounds_what_home_assistant_would_target_across_the_home() {
    // Home Assistant's debug targets ignore the floor: all four lights came back.
    let r = rec(
        "HassTurnOff",
        &[("floor", json!("Obergeschoss")), ("domain", json!("light"))],
        &[
            "light.deckenleuchte",
            "light.nachttischlampe",
            "light.schreibtischlampe",
        ],
        true,
    );
    let planned = calls(&plan(&r, &two_floors()));
    assert_eq!(planned.len(), 1);
    let (domain, service, mut ids, _) = planned[0].clone();
    ids.sort();
    assert_eq!((domain.as_str(), service.as_str()), ("light", "turn_off"));
    assert_eq!(ids, ["light.nachttischlampe", "light.schreibtischlampe"]);
}

#[test]
fn the_verb_means_each_domains_own_service() {
    let registry = two_floors();
    let close = rec(
        "HassTurnOff",
        &[("name", json!("Garagentor"))],
        &["cover.garagentor"],
        true,
    );
    assert_eq!(
        calls(&plan(&close, &registry))[0].1,
        "close_cover",
        "turning off a cover closes it"
    );
    let on = rec(
        "HassTurnOn",
        &[("area", json!("Kitchen")), ("domain", json!("light"))],
        &["light.deckenleuchte"],
        true,
    );
    assert_eq!(calls(&plan(&on, &registry))[0].1, "turn_on");
}

#[test]
fn a_question_s_domain_is_the_intent_s_even_where_home_assistant_lists_the_whole_room() {
    let registry = home_in_states(&[
        (
            "climate.thermostat",
            "Thermostat",
            "living_room",
            "heat",
            json!({"current_temperature": 22, "temperature": 20}),
        ),
        (
            "light.stehlampe",
            "Stehlampe",
            "living_room",
            "on",
            json!({}),
        ),
    ]);
    let r = rec(
        "HassClimateGetTemperature",
        &[("area", json!("Living Room"))],
        &["climate.thermostat", "light.stehlampe"],
        true,
    );
    match understood(
        &r,
        None,
        Some(Lang::De),
        "Wie warm ist es im Wohnzimmer?",
        &registry,
    ) {
        Understood::Answer(text) => {
            assert!(text.contains("22"), "{text}");
            assert!(!text.contains("Stehlampe"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // In a language HomeClaw has no words for, Home Assistant answers.
    assert!(matches!(plan(&r, &registry), Understood::HandOff { .. }));
}

/// A question Home Assistant read completely about nothing the home has ("ist jemand zu
/// Hause" without people) is Home Assistant's to answer ("Niemand"), not the model's, and
/// not HomeClaw's own reading of stray words; one about something HomeClaw may not see is
/// not passed on.
#[test]
fn a_question_about_nothing_the_home_has_is_home_assistants_to_answer() {
    let registry = home_in_states(&[(
        "light.stehlampe",
        "Stehlampe",
        "living_room",
        "on",
        json!({}),
    )]);
    let asked = |targets: &[&str]| {
        let r = rec(
            "HassGetState",
            &[("domain", json!("person")), ("state", json!("home"))],
            targets,
            true,
        );
        understood(&r, None, Some(Lang::De), "ist jemand zu Hause", &registry)
    };
    assert!(
        matches!(asked(&[]), Understood::HandOff { ref asked, .. } if asked.is_empty()),
        "{:?}",
        asked(&[])
    );
    // Home Assistant names a person HomeClaw's registry does not show: not handed on.
    assert!(matches!(asked(&["person.hidden"]), Understood::Unknown));
}

#[test]
fn values_become_the_attribute_they_set_and_volume_goes_to_the_one_playing() {
    let registry = home_in_states(&[
        (
            "light.stehlampe",
            "Stehlampe",
            "living_room",
            "on",
            json!({}),
        ),
        (
            "media_player.a",
            "Speaker A",
            "living_room",
            "playing",
            json!({}),
        ),
        ("media_player.b", "Speaker B", "kitchen", "off", json!({})),
        (
            "climate.thermostat",
            "Thermostat",
            "living_room",
            "heat",
            json!({}),
        ),
    ]);
    let bright = rec(
        "HassLightSet",
        &[("name", json!("Stehlampe")), ("brightness", json!(50))],
        &["light.stehlampe"],
        true,
    );
    assert_eq!(
        calls(&plan(&bright, &registry))[0].3,
        json!({"brightness_pct": 50})
    );
    let red = rec(
        "HassLightSet",
        &[("name", json!("Stehlampe")), ("color", json!("red"))],
        &["light.stehlampe"],
        true,
    );
    assert_eq!(
        calls(&plan(&red, &registry))[0].3,
        json!({"color_name": "red"})
    );
    // "Stelle die Lautstärke auf 40 Prozent": no player named, so no match; the one playing.
    let volume = rec("HassSetVolume", &[], &[], false);
    let volume = Recognition {
        slots: vec![(
            "volume_level".into(),
            Slot {
                value: json!(40.0),
                text: "40".into(),
            },
        )],
        ..volume
    };
    assert_eq!(
        calls(&plan(&volume, &registry)),
        [(
            "media_player".into(),
            "volume_set".into(),
            vec!["media_player.a".to_owned()],
            json!({"volume_level": 0.4})
        )]
    );
    // A player named but not found: partial, so the model may use only players.
    let named = Recognition {
        unmatched: vec![("name".into(), "kitchen speaker".into())],
        ..volume
    };
    match plan(&named, &registry) {
        Understood::Hint { domains, .. } => assert_eq!(domains, ["media_player"]),
        other => panic!("{other:?}"),
    }
    let next = rec("HassMediaNext", &[], &[], false);
    assert_eq!(
        calls(&plan(&next, &registry)),
        [(
            "media_player".into(),
            "media_next_track".into(),
            vec!["media_player.a".to_owned()],
            json!({})
        )]
    );
}

/// The capability the table's one row added: Home Assistant's `HassHumidifierSetpoint` (its
/// 2025.4 ships no sentence for it; a household's own sentences, or a later release, can say
/// it) becomes the humidifier's `set_humidity`, on the humidifier it named.
#[test]
fn a_humidifiers_setpoint_from_home_assistant_sets_its_humidity() {
    let registry = home_in_states(&[
        (
            "humidifier.bedroom",
            "Bedroom Humidifier",
            "bedroom",
            "on",
            json!({"humidity": 40, "min_humidity": 0, "max_humidity": 100}),
        ),
        ("fan.bedroom", "Bedroom Fan", "bedroom", "on", json!({})),
    ]);
    let setpoint = rec(
        "HassHumidifierSetpoint",
        &[
            ("name", json!("Bedroom Humidifier")),
            ("humidity", json!(45)),
        ],
        &["humidifier.bedroom"],
        true,
    );
    assert_eq!(
        calls(&plan(&setpoint, &registry)),
        [(
            "humidifier".to_owned(),
            "set_humidity".to_owned(),
            vec!["humidifier.bedroom".to_owned()],
            json!({"humidity": 45})
        )]
    );
}

#[test]
fn nothing_satisfying_every_slot_is_said_not_widened() {
    let registry = two_floors();
    // A light in the garage: there is none (the garage door is no light).
    let r = rec(
        "HassTurnOn",
        &[("area", json!("Garage")), ("domain", json!("light"))],
        &["cover.garagentor"],
        true,
    );
    assert_eq!(plan(&r, &registry), Understood::Nothing);
    // A name Home Assistant matched but HomeClaw may not see is not acted on.
    let hidden = rec(
        "HassTurnOn",
        &[("name", json!("Sauna"))],
        &["switch.sauna"],
        true,
    );
    assert_eq!(plan(&hidden, &registry), Understood::Nothing);
}

#[test]
fn what_homeclaw_does_not_run_goes_to_home_assistant_s_agent() {
    let registry = two_floors();
    let timer = rec("HassStartTimer", &[("minutes", json!(5))], &[], true);
    assert!(matches!(
        plan(&timer, &registry),
        Understood::HandOff { .. }
    ));
    let custom = Recognition {
        source: Source::Custom,
        ..rec("OrderPizza", &[], &[], true)
    };
    assert!(matches!(
        plan(&custom, &registry),
        Understood::HandOff { .. }
    ));
    let trigger = Recognition {
        source: Source::Trigger,
        ..rec("", &[], &[], true)
    };
    assert!(matches!(
        plan(&trigger, &registry),
        Understood::HandOff { .. }
    ));
}

#[test]
fn an_item_goes_on_the_one_list_named() {
    let registry = home_in_states(&[(
        "todo.einkaufsliste",
        "Einkaufsliste",
        "kitchen",
        "0",
        json!({}),
    )]);
    let r = rec(
        "HassListAddItem",
        &[("item", json!("Milch")), ("name", json!("Einkaufsliste"))],
        &["todo.einkaufsliste"],
        true,
    );
    let planned = calls(&plan(&r, &registry));
    assert_eq!(planned[0].1, "add_item");
    assert_eq!(planned[0].3, json!({"item": "Milch"}));
}

#[test]
fn all_of_a_kind_the_one_thermostat_and_a_name_cut_short() {
    let registry = home_in_states(&[
        (
            "light.staande_lamp",
            "Staande lamp",
            "living_room",
            "on",
            json!({}),
        ),
        ("light.nachtlamp", "Nachtlamp", "bedroom_1", "on", json!({})),
        (
            "climate.thermostaat",
            "Thermostaat",
            "living_room",
            "heat",
            json!({}),
        ),
        (
            "cover.garagedeur",
            "Garagedeur",
            "garage",
            "open",
            json!({}),
        ),
    ]);
    // "Doe alle lichten uit": the name "all", said by no word, is every light.
    let all = rec(
        "HassTurnOff",
        &[("domain", json!("light")), ("name", json!("all"))],
        &[],
        true,
    );
    let all = Recognition {
        slots: all
            .slots
            .into_iter()
            .map(|(n, s)| {
                let text = if n == "name" { String::new() } else { s.text };
                (n, Slot { text, ..s })
            })
            .collect(),
        ..all
    };
    let mut ids = calls(&plan(&all, &registry))[0].2.clone();
    ids.sort();
    assert_eq!(ids, ["light.nachtlamp", "light.staande_lamp"]);
    // "Zet de temperatuur op 21 graden": the home's one thermostat.
    let temperature = rec(
        "HassClimateSetTemperature",
        &[("temperature", json!(21))],
        &[],
        true,
    );
    assert_eq!(
        calls(&plan(&temperature, &registry))[0].3,
        json!({"temperature": 21})
    );
    // "Maak de staande lamp rood": Home Assistant heard the name "staande".
    let mut cut = rec("HassLightSet", &[("color", json!("red"))], &[], false);
    cut.unmatched = vec![("name".into(), "staande ".into())];
    let planned = calls(&plan(&cut, &registry));
    assert_eq!(planned[0].2, ["light.staande_lamp"]);
    assert_eq!(planned[0].3, json!({"color_name": "red"}));
    // A partial guess of another intent bounds nothing and plans nothing.
    let guess = rec("HassListAddItem", &[("item", json!("robot"))], &[], false);
    assert_eq!(plan(&guess, &registry), Understood::Unknown);
}

#[test]
fn a_name_nothing_in_the_home_has_is_said_not_guessed_where_homeclaw_has_no_words() {
    let registry = home_in_states(&[(
        "cover.persianas",
        "Persianas del dormitorio",
        "bedroom_1",
        "open",
        json!({}),
    )]);
    let mut sauna = rec("HassTurnOn", &[], &[], false);
    sauna.unmatched = vec![("name".into(), "sauna".into())];
    assert_eq!(
        plan(&sauna, &registry),
        Understood::NoSuchName("sauna".into())
    );
    // A name that is part of one here is the model's to place ("todas las persianas").
    let mut blinds = rec("HassTurnOn", &[], &[], false);
    blinds.unmatched = vec![("name".into(), "todas las persianas".into())];
    assert_eq!(plan(&blinds, &registry), Understood::Unknown);
    // In a language HomeClaw speaks, its own lexicons say what they could not place.
    assert_eq!(
        understood(&sauna, None, Some(Lang::En), "turn on the sauna", &registry),
        Understood::Unknown
    );
}

#[test]
fn of_home_assistants_targets_the_one_the_name_says_is_taken() {
    // Czech "otevřít žaluzie ložnice": Home Assistant's debug lists both blinds of the room as
    // targets of the name "Žaluzie ložnice"; the front blind is not so named.
    let home = home_in_states(&[
        (
            "cover.blind_front",
            "Přední roleta",
            "bedroom_1",
            "open",
            json!({"device_class": "blind"}),
        ),
        (
            "cover.blind_bedroom",
            "Žaluzie ložnice",
            "bedroom_1",
            "closed",
            json!({"device_class": "blind"}),
        ),
    ]);
    let r = rec(
        "HassTurnOn",
        &[
            ("name", json!("Žaluzie ložnice")),
            ("domain", json!("cover")),
        ],
        &["cover.blind_front", "cover.blind_bedroom"],
        true,
    );
    match plan(&r, &home) {
        Understood::Act { calls, .. } => {
            let ids: Vec<&str> = calls
                .iter()
                .flat_map(|c| c.entity_ids.iter().map(String::as_str))
                .collect();
            assert_eq!(ids, ["cover.blind_bedroom"]);
        }
        other => panic!("{other:?}"),
    }
}

/// "What is the temperature?" in a home of two thermostats: a read changes nothing, so both
/// are read (the one in the room the person speaks in, where Home Assistant names it); a
/// command of the same words ("set the temperature to 21") still acts on none of them.
#[test]
fn an_unnamed_read_reads_the_few_devices_it_can_mean() {
    let registry = home_in_states(&[
        (
            "climate.living",
            "Termostat",
            "living_room",
            "heat",
            json!({"current_temperature": 20}),
        ),
        (
            "climate.office",
            "Termostat biurowy",
            "bedroom_1",
            "heat",
            json!({"current_temperature": 22}),
        ),
    ]);
    let asked = |r: &Recognition| match understood(
        r,
        None,
        Some(Lang::Pl),
        "Jaka jest temperatura?",
        &registry,
    ) {
        Understood::Answer(text) => text,
        _ => String::from("no answer"),
    };
    let everywhere = asked(&rec("HassClimateGetTemperature", &[], &[], true));
    assert!(
        everywhere.contains("20") && everywhere.contains("22"),
        "{everywhere}"
    );
    let here = asked(&rec(
        "HassClimateGetTemperature",
        &[("preferred_area_id", json!("bedroom_1"))],
        &[],
        true,
    ));
    assert!(here.contains("22") && !here.contains("20"), "{here}");
    let set = rec(
        "HassClimateSetTemperature",
        &[("temperature", json!(21))],
        &[],
        true,
    );
    assert!(!matches!(plan(&set, &registry), Understood::Act { .. }));
    // Said in the bedroom, where one of the two is: that one.
    let set_here = rec(
        "HassClimateSetTemperature",
        &[
            ("temperature", json!(21)),
            ("preferred_area_id", json!("bedroom_1")),
        ],
        &[],
        true,
    );
    match plan(&set_here, &registry) {
        Understood::Act { calls, .. } => {
            assert_eq!(calls.len(), 1, "{calls:?}");
            assert_eq!(calls[0].entity_ids, ["climate.office"], "{calls:?}");
        }
        other => panic!("{other:?}"),
    }
}

/// "Zamknij zasłonę": Home Assistant's name slot holds the words said ("zasłonę"), an alias of
/// the curtain named "Zasłona", and its debug targets list the other curtains too; the one
/// whose name the words say is closed, not the three (a wrong-device action the conformance
/// run caught).
#[test]
fn a_name_said_in_another_form_is_that_device_of_home_assistants_targets() {
    let curtain = json!({"device_class": "curtain"});
    let registry = home_in_states(&[
        (
            "cover.curtain_left",
            "Lewa zasłona",
            "living_room",
            "open",
            curtain.clone(),
        ),
        (
            "cover.curtain_right",
            "Prawa zasłona",
            "living_room",
            "open",
            curtain.clone(),
        ),
        ("cover.bedroom", "Zasłona", "bedroom_1", "open", curtain),
    ]);
    let close = rec(
        "HassTurnOff",
        &[("name", json!("zasłonę"))],
        &["cover.curtain_left", "cover.curtain_right", "cover.bedroom"],
        true,
    );
    let planned = calls(&plan(&close, &registry));
    assert_eq!(planned.len(), 1, "{planned:?}");
    assert_eq!(planned[0].2, ["cover.bedroom"]);
}
