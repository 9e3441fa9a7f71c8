//! The table's own consistency: rows that agree with each other, and each direction
//! (words → call, Home Assistant's intent → call, call → reply) reading the same row.

use serde_json::json;

use super::*;
use crate::lang::HvacMode;

/// Rows of one service on one kind of device (the catch-alls aside) expect the same: which
/// row a call is read as must not change what verification waits for. A row that sets a
/// value checks that value besides ([`Expect::OnAtPercent`]), and is told by the data.
#[test]
fn rows_for_one_service_expect_the_same() {
    for a in CAPABILITIES {
        for domain in a.domains.iter().filter(|d| **d != "*") {
            let expected: Vec<_> = rows_of(domain, a.service)
                .filter(|c| !c.domains.contains(&"*"))
                .filter_map(|c| c.expect.as_ref())
                .filter(|e| !matches!(e, Expect::OnAtPercent { .. }))
                .collect();
            assert!(
                expected.windows(2).all(|w| w[0] == w[1]),
                "{domain}.{}: {expected:?}",
                a.service
            );
        }
    }
}

#[test]
fn everything_the_words_ask_for_is_checked_afterwards() {
    for row in CAPABILITIES.iter().filter(|c| !c.asks.is_empty()) {
        for domain in row.domains {
            assert!(
                expectation(domain, row.service).is_some(),
                "{domain}.{} is asked for by words but nothing checks it happened",
                row.service
            );
        }
    }
}

#[test]
fn a_row_heard_from_home_assistant_replies_as_it() {
    for row in CAPABILITIES {
        if let (Some((said, _)), false) = (row.ha_reply, row.heard.is_empty()) {
            assert!(row.heard.contains(&said), "{}: says {said}", row.service);
        }
    }
}

#[test]
fn a_row_with_a_value_gets_it_in_its_field() {
    let sample = |asks: Intent| match asks {
        Intent::Percent(_) => Intent::Percent(40),
        Intent::Degrees(_) => Intent::Degrees(215),
        Intent::Mode(_) => Intent::Mode(HvacMode::Heat),
        Intent::Color(_) => Intent::Color("red"),
        Intent::White(_) => Intent::White(2700),
        other => other,
    };
    for row in CAPABILITIES.iter().filter(|c| !c.asks.is_empty()) {
        for domain in row.domains {
            let intent = sample(row.asks[0]);
            let volume = row.about == About::Volume;
            let (service, data) = service_for(intent, domain, volume)
                .unwrap_or_else(|| panic!("{intent:?} on {domain}"));
            // An earlier row may take the intent for the domain; then this row is never reached.
            assert_eq!(
                service, row.service,
                "{intent:?} on {domain}: row unreachable"
            );
            match row.field {
                Some(field) => assert!(data.get(field).is_some(), "{service}: {data}"),
                None => assert_eq!(data, json!({})),
            }
            // And the call reads back as a row that verifies and replies alike (a step up
            // and a step down are one field, told apart by its sign).
            let back = of_call(domain, service, &data).unwrap();
            assert_eq!(
                (back.field, &back.expect, back.ha_reply, back.key),
                (row.field, &row.expect, row.ha_reply, row.key),
                "{service} {data}"
            );
        }
    }
}

#[test]
fn the_volume_is_only_a_media_players() {
    assert_eq!(
        service_for(Intent::Percent(30), "media_player", true),
        Some(("volume_set", json!({"volume_level": 0.3})))
    );
    assert_eq!(
        service_for(Intent::Percent(30), "media_player", false),
        None
    );
    assert_eq!(service_for(Intent::Percent(30), "light", true), None);
    assert_eq!(service_for(Intent::On, "media_player", true), None);
    assert_eq!(
        service_for(Intent::Mute, "media_player", true),
        service_for(Intent::Mute, "media_player", false)
    );
}

#[test]
fn a_humidifier_takes_a_target_humidity() {
    assert_eq!(
        service_for(Intent::Percent(45), "humidifier", false),
        Some(("set_humidity", json!({"humidity": 45})))
    );
    assert_eq!(
        expectation("humidifier", "set_humidity"),
        Some(&Expect::AttributeEqualsField {
            attribute: "humidity",
            field: "humidity"
        })
    );
    let row = heard("HassHumidifierSetpoint", "humidifier", |slot| {
        slot == "humidity"
    })
    .unwrap();
    assert_eq!(row.service, "set_humidity");
    assert_eq!(domains_heard("HassHumidifierSetpoint"), ["humidifier"]);
}

#[test]
fn home_assistants_intents_mean_a_kind_only_where_the_table_says() {
    assert_eq!(domains_heard("HassTurnOn"), Vec::<&str>::new());
    assert_eq!(domains_heard("HassLightSet"), ["light"]);
    assert_eq!(domains_heard("HassSetPosition"), ["cover", "valve"]);
    assert_eq!(
        heard("HassTurnOn", "valve", |_| false).map(|c| c.asks[0]),
        Some(Intent::Open)
    );
    assert_eq!(
        heard("HassTurnOff", "vacuum", |_| false).map(|c| c.service),
        Some("return_to_base")
    );
    // Brightness or colour, by the slot Home Assistant filled.
    assert_eq!(
        heard("HassLightSet", "light", |s| s == "color").map(|c| c.asks[0]),
        Some(COLOR)
    );
    // A scene or a script turned on is activated, as Home Assistant's handler does.
    assert_eq!(
        heard("HassTurnOn", "scene", |_| false).map(|c| c.service),
        Some("turn_on")
    );
    assert_eq!(heard("HassTurnOff", "scene", |_| false), None);
}

#[test]
fn undoing_what_was_asked_is_named() {
    assert_eq!(
        undoes(Intent::Off, "turn_on"),
        Some("to turn something off")
    );
    assert_eq!(undoes(Intent::Off, "turn_off"), None);
    assert_eq!(undoes(Intent::Percent(5), "turn_off"), None);
}

#[test]
fn a_script_run_by_its_own_service_is_a_script_run() {
    assert_eq!(
        of_call("script", "good_morning", &json!({})).and_then(|c| c.ha_reply),
        Some(("HassTurnOn", "script"))
    );
}

/// A player's verb means players by their state as Home Assistant's handlers do; read by
/// intent (the words, a recognition) and by call (a planned target) it is the same row.
#[test]
fn a_players_verb_means_players_by_their_state() {
    let by_intent = |i| by_state_of(i, "media_player").map(|b| (b.state, b.every));
    assert_eq!(by_intent(Pause), Some(("playing", true)));
    assert_eq!(by_intent(Resume), Some(("paused", true)));
    assert_eq!(by_intent(Next), Some(("playing", false)));
    assert_eq!(by_intent(Percent(40)), Some(("playing", false)));
    assert_eq!(by_intent(On), None);
    assert_eq!(by_state_of(Pause, "vacuum"), None);
    for (intent, service) in [(Pause, "media_pause"), (Previous, "media_previous_track")] {
        assert_eq!(
            by_state_of_call("media_player", service),
            by_state_of(intent, "media_player")
        );
    }
    assert_eq!(by_state_of_call("light", "turn_on"), None);
}
