//! Plans for commands in every lexicon's language against a small home built from Home
//! Assistant's own shapes.

use serde_json::json;

use super::*;
use crate::agent::sim::state_object;
use crate::agent::understand::target::split_compound;
use crate::agent::understand::*;
use crate::config::ExposureConfig;
use crate::ha::exposure::{AssistExposure, ExposurePolicy};
use crate::ha::registry::{Area, EntityRegistryEntry, Floor, Snapshot};

fn home(entities: &[(&str, &str, &str)]) -> Registry {
    home_with(entities, ExposureConfig::default())
}

fn home_with(entities: &[(&str, &str, &str)], exposure: ExposureConfig) -> Registry {
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
        "humidifier": {"turn_on": {}, "turn_off": {}},
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

fn sample() -> Registry {
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
fn act(text: &str) -> (String, Vec<String>, serde_json::Value, Lang) {
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
fn percentages_become_the_domains_own_fields() {
    let (s, _, data, _) = act("Set the living room light to 50% brightness");
    assert_eq!(
        (s.as_str(), data),
        ("light.turn_on", json!({"brightness_pct": 50}))
    );
    let (s, _, data, _) = act("set the irrigation valve to 50%");
    assert_eq!(
        (s.as_str(), data),
        ("valve.set_valve_position", json!({"position": 50}))
    );
    let (s, _, data, _) = act("Set the smart curtain to 30 percent");
    assert_eq!(
        (s.as_str(), data),
        ("cover.set_cover_position", json!({"position": 30}))
    );
    let (s, t, data, _) = act("Turn the volume down to 50%");
    assert_eq!(
        (s.as_str(), t, data),
        (
            "media_player.volume_set",
            vec!["media_player.outdoor_speakers".to_string()],
            json!({"volume_level": 0.5})
        )
    );
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
        Plan::Ask { question, lang } => {
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
fn an_item_goes_on_the_list_named_or_the_only_one() {
    let registry = home(&[
        ("todo.personal_tasks", "Personal Tasks", "kitchen"),
        ("todo.trader_joe_s", "Trader Joe'S", "kitchen"),
    ]);
    let planned = |text: &str| match plan(text, &registry) {
        Plan::Act { calls, lang } => {
            Some((calls[0].entity_ids[0].clone(), calls[0].data.clone(), lang))
        }
        _ => None,
    };
    assert_eq!(
        planned("add apples to my trader joe's list"),
        Some((
            "todo.trader_joe_s".into(),
            json!({"item": "apples"}),
            Lang::En
        ))
    );
    // Typed without the apostrophe, the name is the same name.
    assert_eq!(
        planned("put apples on the trader joes list").map(|p| p.0),
        Some("todo.trader_joe_s".into())
    );
    assert_eq!(
        planned("Put history homework on personal tasks list"),
        Some((
            "todo.personal_tasks".into(),
            json!({"item": "history homework"}),
            Lang::En
        ))
    );
    assert_eq!(
        planned("Add clean the kitchen to my tasks"),
        Some((
            "todo.personal_tasks".into(),
            json!({"item": "clean the kitchen"}),
            Lang::En
        ))
    );
    // A list named in another language's words for it ("persönliche Aufgaben").
    for text in [
        "Setze Milch auf meine persönlichen Aufgaben",
        "Füge Milch zu meinen persönlichen Aufgaben hinzu",
    ] {
        assert_eq!(
            planned(text).map(|p| p.0),
            Some("todo.personal_tasks".into()),
            "{text}"
        );
    }
    assert_eq!(
        planned("Dodaj mleko do listy Personal Tasks"),
        Some((
            "todo.personal_tasks".into(),
            json!({"item": "mleko"}),
            Lang::Pl
        ))
    );
    // Two lists and none named, or only words for a kind of list that name neither: which
    // one. A name that is no list's: the model decides.
    for text in ["put milk on the list", "put apples on the shopping list"] {
        assert_eq!(
            plan(text, &registry),
            Plan::Ask {
                question: "Which one do you mean: Personal Tasks or Trader Joe'S?".into(),
                lang: Lang::En
            },
            "{text}"
        );
    }
    assert_eq!(
        plan("put apples on the Costco list", &registry),
        Plan::Model
    );
    let one = home(&[("todo.personal_tasks", "Personal Tasks", "kitchen")]);
    assert!(matches!(
        plan("put milk on the list", &one),
        Plan::Act { .. }
    ));
}

#[test]
fn plain_questions_are_answered_from_the_registry() {
    let mut registry = sample();
    let answer = |text: &str, registry: &Registry| match plan(text, registry) {
        Plan::Answer { text, lang } => Some((text, lang)),
        _ => None,
    };
    assert_eq!(
        answer("is the smart lock locked?", &registry),
        Some(("No: Smart Lock is off.".into(), Lang::En))
    );
    registry.apply_state_changed(&json!({"entity_id": "lock.smart_lock",
        "new_state": {"entity_id": "lock.smart_lock", "state": "locked",
            "attributes": {"friendly_name": "Smart Lock"},
            "last_changed": "2026-01-01T00:00:01+00:00", "last_updated": "2026-01-01T00:00:01+00:00"}}));
    assert_eq!(
        answer("is the smart lock locked?", &registry),
        Some(("Yes: Smart Lock is locked.".into(), Lang::En))
    );
    assert_eq!(
        answer("czy Kitchen Light jest włączone?", &registry),
        Some(("Nie: Kitchen Light: wyłączone.".into(), Lang::Pl))
    );
    assert_eq!(
        answer("Ist das Garden Light an?", &registry),
        Some(("Nein: Garden Light ist aus.".into(), Lang::De))
    );
    // Not a question about a named thing, or not certain: the model answers.
    assert_eq!(answer("is it going to rain tomorrow?", &registry), None);
    assert_eq!(answer("what can you do?", &registry), None);
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
            "light.turn_on light.kitchen_light",
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

#[test]
fn vacuum_and_valve_verbs_and_outdoor_words_resolve() {
    assert_eq!(act("Start vacuuming").0, "vacuum.start");
    assert_eq!(act("Vacuum downstairs").0, "vacuum.start");
    // "Vacuum" opening the command addresses it when another verb says what to do.
    assert_eq!(
        act("Vacuum return to base"),
        (
            "vacuum.return_to_base".to_owned(),
            vec!["vacuum.roborock_downstairs".to_owned()],
            json!({}),
            Lang::En
        )
    );
    assert_eq!(act("water the front yard").0, "valve.open_valve");
    assert_eq!(act("podlej front yard").0, "valve.open_valve");
    // Only a valve waters: the garden light is not what "water the garden" points at.
    let garden = sample();
    let light = garden.get("light.garden_light").unwrap();
    assert!(!points_at("water the garden", light, &garden));
    assert!(points_at("turn on the garden light", light, &garden));
    // "The water" of a yard with a light and a valve in it is the valve's.
    let yard = home(&[
        ("light.garden_light", "Garden Light", "front_yard"),
        ("valve.irrigation_valve", "Irrigation Valve", "front_yard"),
        ("switch.water_heater", "Water Heater", "front_yard"),
    ]);
    let Plan::Act { calls, .. } = plan("turn off the water in the front yard", &yard) else {
        panic!("expected the valve to close");
    };
    assert_eq!(
        (calls[0].service.as_str(), calls[0].entity_ids.clone()),
        ("close_valve", vec!["valve.irrigation_valve".to_owned()])
    );
    let heater = yard.get("switch.water_heater").unwrap();
    assert!(points_at("turn off the water heater", heater, &yard));
    assert_eq!(
        act("turn off the water in the front yard").0,
        "valve.close_valve"
    );
    // A vacuum told to stop or turn off goes home; told to turn on, it cleans.
    for stop in [
        "Stop Roborock Downstairs",
        "Stop the vacuum",
        "Stop vacuuming",
        "Stop the downstairs vacuum",
        "Turn off the vacuum",
        "Zatrzymaj odkurzacz",
    ] {
        assert_eq!(
            act(stop).0,
            "vacuum.return_to_base",
            "{stop} sends the vacuum home"
        );
    }
    assert_eq!(act("Turn on the vacuum").0, "vacuum.start");
    assert_eq!(act("Stop the music").0, "media_player.media_stop");
    assert_eq!(act("Resume playing the music").0, "media_player.media_play");
    assert_eq!(act("Pause the music outside").0, "media_player.media_pause");
}

/// Home Assistant's demo home as the evaluation sees it: English names, Polish and German
/// speakers.
fn demo() -> Registry {
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

fn demo_act(text: &str) -> (Vec<String>, Vec<String>) {
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
        "is the sauna on?",
        "turn on the sauna and the kitchen light",
    ] {
        assert_eq!(unmatched(&said(&[text]), &registry), None, "{text}");
    }
    // "Now the sauna too" after the kitchen light: the model may still mean the light.
    assert_eq!(
        unmatched(
            &said(&["turn on the sauna", "turn on the kitchen light"]),
            &registry
        ),
        None
    );
    // A device Home Assistant has but HomeClaw may not use is named with the reason.
    let kept = home_with(
        &[
            ("switch.porch", "Porch Switch", "entry"),
            ("light.kitchen_light", "Kitchen Light", "kitchen"),
        ],
        ExposureConfig {
            entity_deny: vec!["switch.porch".into()],
            ..ExposureConfig::default()
        },
    );
    assert_eq!(
        unmatched(&said(&["turn on the porch switch"]), &kept),
        Some(Unmatched::Hidden {
            reason: crate::ha::registry::Hidden::Filtered,
            name: "Porch Switch".into()
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
            calls: vec![FastCall {
                domain: "climate".into(),
                service: "set_temperature".into(),
                entity_ids: vec!["climate.hvac".into()],
                data: json!({"temperature": 23}),
            }],
            lang: Lang::En
        }
    );
}

/// A home with a to-do list, a calendar and a weather entity beside its devices.
fn reading_home() -> Registry {
    home(&[
        ("todo.tasks", "Tasks", "kitchen"),
        ("calendar.personal", "Personal", "kitchen"),
        (
            "weather.weather_service",
            "Weather Service",
            "rooftop_terrace",
        ),
        ("light.bedroom_light", "Bedroom Light", "bedroom_1"),
    ])
}

fn asked(text: &str, registry: &Registry) -> Option<(Vec<FastCall>, Asked, Lang)> {
    match plan(text, registry) {
        Plan::Read { reads, asked, lang } => Some((reads, asked, lang)),
        _ => None,
    }
}

#[test]
fn questions_about_lists_read_the_list() {
    let r = reading_home();
    for text in [
        "How many items are on my task list?",
        "Who do I need to call?",
        "What chores around the house do I need to complete?",
        "What's on my list to buy at the grocery store?",
        "Co mam na liście zadań?",
        "Was steht auf meiner Einkaufsliste?",
    ] {
        let (reads, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            asked,
            Asked::Items {
                lists: vec!["todo.tasks".into()]
            },
            "{text}"
        );
        assert_eq!(reads[0].service, "get_items", "{text}");
    }
    // Adding is an action, not a read.
    assert!(asked("Add milk to my task list", &r).is_none());
}

#[test]
fn questions_about_the_agenda_read_the_calendar() {
    let r = reading_home();
    let cases = [
        ("What classes do I have today?", Some(Day::Today), false),
        ("Who am I meeting for dinner?", None, false),
        ("How many nights this week do I need to cook?", None, true),
        ("Is anyone coming to visit?", None, false),
        (
            "What's on my calendar tomorrow?",
            Some(Day::Tomorrow),
            false,
        ),
        ("Co mam jutro w kalendarzu?", Some(Day::Tomorrow), false),
        ("Was habe ich heute vor?", Some(Day::Today), false),
    ];
    for (text, want_day, counts) in cases {
        let (reads, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        let Asked::Events { day, counting, .. } = asked else {
            panic!("{text}: {asked:?}")
        };
        assert_eq!(day, want_day, "{text}");
        assert_eq!(counting.is_some(), counts, "{text}");
        assert_eq!(reads[0].service, "get_events", "{text}");
    }
    let (_, asked, _) = asked("How many nights this week do I need to cook?", &r).unwrap();
    assert!(matches!(asked, Asked::Events { counting: Some(w), .. } if w == ["cook"]));
}

#[test]
fn questions_about_the_weather_read_the_weather() {
    let r = reading_home();
    for (text, tomorrow) in [
        ("Is today sunny or cloudy?", false),
        ("What is the temperature outside?", false),
        ("Will it rain tomorrow?", true),
        ("Jaka jest pogoda?", false),
        ("Wie wird das Wetter morgen?", true),
    ] {
        let (reads, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            asked,
            Asked::Weather {
                entity: "weather.weather_service".into(),
                tomorrow
            },
            "{text}"
        );
        assert_eq!(reads.is_empty(), !tomorrow, "{text}");
    }
    // A device question is still the device's.
    assert!(asked("Is the bedroom light on?", &r).is_none());
    // A home without the entity plans no read.
    let bare = home(&[("light.bedroom_light", "Bedroom Light", "bedroom_1")]);
    assert!(asked("Is it sunny?", &bare).is_none());
    assert!(asked("What's on my calendar?", &bare).is_none());
}

fn answer_text(text: &str, registry: &Registry) -> String {
    match plan(text, registry) {
        Plan::Answer { text, .. } => text,
        other => panic!("{text}: {other:?}"),
    }
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

#[test]
fn questions_are_answered_as_a_person_means_them() {
    let r = home_in_states(&[
        (
            "light.bedroom_light",
            "Bedroom Light",
            "bedroom_1",
            "on",
            json!({}),
        ),
        (
            "light.balcony_light",
            "Balcony Light",
            "rooftop_terrace",
            "on",
            json!({}),
        ),
        (
            "light.kitchen_light",
            "Kitchen Light",
            "kitchen",
            "off",
            json!({}),
        ),
        (
            "valve.sprinklers",
            "Sprinklers",
            "backyard",
            "open",
            json!({}),
        ),
        (
            "switch.kitchen_plug",
            "Kitchen Plug",
            "kitchen",
            "on",
            json!({}),
        ),
        (
            "sensor.kitchen_plug_energy",
            "Kitchen Plug Energy",
            "kitchen",
            "1",
            json!({"unit_of_measurement": "kWh"}),
        ),
        (
            "media_player.samsung",
            "Samsung",
            "living_room",
            "paused",
            json!({}),
        ),
        (
            "sensor.sink_battery",
            "Sink Battery",
            "kitchen",
            "15",
            json!({"device_class": "battery", "unit_of_measurement": "%"}),
        ),
    ]);
    // Counted, with their names.
    assert_eq!(
        answer_text("How many lights are currently on?", &r),
        "2 of 3 are on: Balcony Light, Bedroom Light."
    );
    assert_eq!(
        answer_text("How many lights are on in the kitchen?", &r),
        "0 of 1 are on."
    );
    // An open valve is on; the question's device, not its energy sensor.
    assert_eq!(
        answer_text("Are the sprinklers on?", &r),
        "Yes: Sprinklers is open."
    );
    assert_eq!(
        answer_text("Is the kitchen plug on?", &r),
        "Yes: Kitchen Plug is on."
    );
    // A choice of states is answered with the state.
    assert_eq!(
        answer_text("Is the media player playing, paused, or stopped?", &r),
        "Samsung is paused."
    );
    assert_eq!(
        answer_text(
            "Is the bedroom light off? Please answer with \"yes\" or \"no\".",
            &r
        ),
        "No: Bedroom Light is on."
    );
    assert_eq!(
        answer_text("Is the sink battery low?", &r),
        "Yes: Sink Battery is 15%."
    );
}

#[test]
fn raising_and_lowering_a_cover_opens_and_closes_it_and_a_value_says_how_far() {
    let registry = home(&[
        ("cover.bedroom_blinds", "Bedroom Blinds", "bedroom"),
        ("light.bed_light", "Bed Light", "bedroom"),
    ]);
    let planned = |text: &str| match plan(text, &registry) {
        Plan::Act { calls, .. } => Some((
            format!("{}.{}", calls[0].domain, calls[0].service),
            calls[0].data.clone(),
        )),
        _ => None,
    };
    assert_eq!(
        planned("Raise the blinds in the bedroom"),
        Some(("cover.open_cover".into(), json!({})))
    );
    assert_eq!(
        planned("lower the bedroom blinds"),
        Some(("cover.close_cover".into(), json!({})))
    );
    assert_eq!(
        planned("raise the bedroom blinds to 50%"),
        Some(("cover.set_cover_position".into(), json!({"position": 50})))
    );
    // A light is neither raised nor lowered: the model, as before.
    assert_eq!(planned("lower the bed light"), None);
}

#[test]
fn the_verb_said_bounds_the_service() {
    for (text, domain, service, refused) in [
        ("Can you lock the front door?", "lock", "unlock", true),
        ("Lock the front door", "lock", "lock", false),
        ("Schließ die Küchentür ab", "lock", "unlock", true),
        ("Turn off the lights", "light", "turn_on", true),
        ("Turn off the lights", "light", "turn_off", false),
        ("Halt the vacuum", "vacuum", "start", false),
        ("Stop the vacuum", "vacuum", "start", true),
        ("What's the weather?", "light", "turn_on", false),
        // "Raise the blinds" opens them: a model's close is refused.
        (
            "Raise the blinds in the bedroom",
            "cover",
            "close_cover",
            true,
        ),
        (
            "Raise the blinds in the bedroom",
            "cover",
            "open_cover",
            false,
        ),
        ("Lower the shades", "cover", "open_cover", true),
    ] {
        assert_eq!(
            crate::agent::understand::capability::against_the_words(text, domain, service)
                .is_some(),
            refused,
            "{text}: {domain}.{service}"
        );
    }
}

#[test]
fn a_request_said_politely_is_a_request() {
    let r = home(&[
        ("fan.bedroom_fan", "Bedroom Fan", "bedroom_1"),
        ("light.kitchen_light", "Kitchen Light", "kitchen"),
    ]);
    for (text, entity, service) in [
        ("Can you turn the fan on?", "fan.bedroom_fan", "turn_on"),
        (
            "Could you please turn on the kitchen light?",
            "light.kitchen_light",
            "turn_on",
        ),
        (
            "Kannst du bitte das Küchenlicht einschalten?",
            "light.kitchen_light",
            "turn_on",
        ),
        (
            "Czy możesz wyłączyć światło w kuchni?",
            "light.kitchen_light",
            "turn_off",
        ),
    ] {
        match plan(text, &r) {
            Plan::Act { calls, .. } => {
                assert_eq!(calls[0].entity_ids, vec![entity.to_owned()], "{text}");
                assert_eq!(calls[0].service, service, "{text}");
            }
            other => panic!("{text}: {other:?}"),
        }
        assert!(is_action(text), "{text}");
    }
    // A question about ability with no request in it stays a question.
    assert!(crate::agent::understand::mood::unwrapped_request("Can you hear me?").is_none());
}

#[test]
fn switch_is_a_verb_when_it_leads_and_on_or_off_ends() {
    let r = home(&[
        ("light.kitchen_light", "Kitchen Light", "kitchen"),
        ("switch.coffee_maker", "Coffee Maker", "kitchen"),
    ]);
    match plan("Switch the kitchen light on", &r) {
        Plan::Act { calls, .. } => {
            assert_eq!(calls[0].entity_ids, vec!["light.kitchen_light".to_owned()]);
            assert_eq!(calls[0].service, "turn_on");
        }
        other => panic!("{other:?}"),
    }
    // A switch named as a kind still is one.
    match plan("Turn off the coffee maker switch", &r) {
        Plan::Act { calls, .. } => {
            assert_eq!(calls[0].entity_ids, vec!["switch.coffee_maker".to_owned()])
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_temperature_in_a_room_points_at_its_thermostat() {
    let r = home(&[
        (
            "climate.guest_room_thermostat",
            "Guest Room Thermostat",
            "bedroom_2",
        ),
        ("light.kitchen_light", "Kitchen Light", "kitchen"),
    ]);
    let thermostat = r.get("climate.guest_room_thermostat").unwrap();
    let light = r.get("light.kitchen_light").unwrap();
    let said = "Set the target temperature to 22 in bedroom 2 if it is above 23";
    assert!(points_at(said, thermostat, &r));
    assert!(!points_at(said, light, &r));
}

#[test]
fn courtesy_and_measures_are_read_as_a_person_means_them() {
    let r = home_in_states(&[
        (
            "valve.sprinklers",
            "Sprinklers",
            "backyard",
            "closed",
            json!({}),
        ),
        (
            "sensor.motion_sensor_battery",
            "Motion Sensor Battery",
            "rooftop_terrace",
            "55",
            json!({"device_class": "battery", "unit_of_measurement": "%"}),
        ),
        (
            "binary_sensor.motion_sensor_battery",
            "Motion Sensor Battery",
            "rooftop_terrace",
            "off",
            json!({"device_class": "battery"}),
        ),
    ]);
    assert_eq!(
        answer_text("Please tell me, are the sprinklers on?", &r),
        "No: Sprinklers is closed."
    );
    assert_eq!(
        answer_text("What is the battery level of the motion sensor?", &r),
        "Motion Sensor Battery is 55%."
    );
}

/// The demo home's media players and colour lights, with the attributes that decide.
fn with_attributes(entities: &[(&str, &str, &str, serde_json::Value)]) -> Registry {
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

fn one_call(text: &str, registry: &Registry) -> (String, Vec<String>, serde_json::Value) {
    match plan(text, registry) {
        Plan::Act { calls, .. } if calls.len() == 1 => (
            format!("{}.{}", calls[0].domain, calls[0].service),
            calls[0].entity_ids.clone(),
            calls[0].data.clone(),
        ),
        other => panic!("{text}: expected one call, got {other:?}"),
    }
}

#[test]
fn colours_volumes_in_words_and_a_tv_by_its_class_need_no_model() {
    let colour = json!({"supported_color_modes": ["hs", "color_temp"]});
    let r = with_attributes(&[
        ("light.bed_light", "Bed Light", "bedroom_1", colour.clone()),
        (
            "light.entrance",
            "Entrance Color White Lights",
            "entry",
            colour.clone(),
        ),
        (
            "light.porch",
            "Porch Light",
            "entry",
            json!({"supported_color_modes": ["onoff"]}),
        ),
        ("media_player.kitchen", "Kitchen", "kitchen", json!({})),
        (
            "media_player.lounge_room",
            "Lounge room",
            "living_room",
            json!({"device_class": "tv"}),
        ),
        ("media_player.walkman", "Walkman", "living_room", json!({})),
    ]);
    for text in [
        "Make the bed light red",
        "Zmień światło w sypialni na czerwone",
        "Mach das Licht im Schlafzimmer rot",
    ] {
        assert_eq!(
            one_call(text, &r),
            (
                "light.turn_on".into(),
                vec!["light.bed_light".into()],
                json!({"color_name": "red"})
            ),
            "{text}"
        );
    }
    // A colour before a kind word is a name, not a colour to set.
    assert_eq!(
        one_call("turn on the entrance color white lights", &r),
        (
            "light.turn_on".into(),
            vec!["light.entrance".into()],
            json!({})
        )
    );
    // A light that shows no colour is not given one.
    assert_eq!(plan("make the porch light blue", &r), Plan::Model);
    assert_eq!(
        one_call("Volume to zero in the kitchen", &r),
        (
            "media_player.volume_set".into(),
            vec!["media_player.kitchen".into()],
            json!({"volume_level": 0.0})
        )
    );
    assert_eq!(
        one_call("set the kitchen volume to half", &r),
        (
            "media_player.volume_set".into(),
            vec!["media_player.kitchen".into()],
            json!({"volume_level": 0.5})
        )
    );
    // "The TV" is the media player that is one.
    for (text, service) in [
        ("Pause the TV", "media_player.media_pause"),
        ("Turn off the TV", "media_player.turn_off"),
        ("Wyłącz telewizor", "media_player.turn_off"),
        ("Schalte den Fernseher aus", "media_player.turn_off"),
    ] {
        assert_eq!(
            one_call(text, &r),
            (
                service.into(),
                vec!["media_player.lounge_room".into()],
                json!({})
            ),
            "{text}"
        );
    }
    assert_eq!(
        one_call("Kill the lights in the bedroom", &r),
        (
            "light.turn_off".into(),
            vec!["light.bed_light".into()],
            json!({})
        )
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

/// Two windows among other covers: a garage door (by its class) and a roof.
fn windows_and_doors() -> Registry {
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

#[test]
fn a_courtesy_after_the_particle_leaves_it_the_intent() {
    // As "turn off all the lights" plans it (a switch named "… Lights" is one of them).
    assert_eq!(
        demo_act("All the lights off please"),
        demo_act("turn off all the lights")
    );
    assert_eq!(
        demo_act("Kitchen lights on please").1,
        ["light.kitchen_lights"]
    );
}

#[test]
fn how_many_windows_counts_the_windows() {
    let mut r = windows_and_doors();
    for (id, state) in [
        ("cover.hall_window", "open"),
        ("cover.kitchen_window", "closed"),
        ("cover.garage_door", "open"),
    ] {
        r.apply_state_changed(&json!({"entity_id": id,
            "new_state": {"entity_id": id, "state": state,
                "attributes": r.get(id).unwrap().attributes.clone(),
                "last_changed": "2026-01-01T00:00:02+00:00",
                "last_updated": "2026-01-01T00:00:02+00:00"}}));
    }
    assert_eq!(
        answer_text("Ile okien jest otwartych?", &r),
        "1 z 2: otwarte: Hall Window."
    );
    assert_eq!(
        answer_text("How many windows are open?", &r),
        "1 of 2 is open: Hall Window."
    );
}
