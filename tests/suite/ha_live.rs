//! The client and registry against a real Home Assistant Core with the demo home.

use std::collections::BTreeMap;
use std::time::Duration;

use homeclaw::config::ExposureConfig;
use homeclaw::ha::protocol::{Command, HaErrorCode};
use homeclaw::ha::services::{CallError, ServiceCall};
use homeclaw::ha::{ConnectionState, ExposurePolicy, HaClient, HaError, LiveRegistry, Target};
use serde_json::json;

use crate::common::ha::{HaInstance, shared};

const WAIT: Duration = Duration::from_secs(30);

fn everything() -> ExposurePolicy {
    ExposurePolicy::new(ExposureConfig {
        respect_assist: false,
        ..Default::default()
    })
}

async fn live(ha: &HaInstance, policy: ExposurePolicy) -> (HaClient, LiveRegistry) {
    let client = ha.client();
    let registry = LiveRegistry::spawn(client.clone(), policy);
    assert!(
        registry.wait_synced_after(0, WAIT).await.is_some(),
        "no registry sync from {}",
        ha.ws_url()
    );
    (client, registry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_matches_what_home_assistant_reports() {
    let ha = shared();
    let (_client, registry) = live(ha, everything()).await;

    let (status, states) = ha.rest("GET", "/api/states", None).await;
    assert_eq!(status, 200);
    let rest: BTreeMap<String, String> = states
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["entity_id"].as_str().unwrap().to_owned(),
                s["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let ours: BTreeMap<String, String> = registry.read(|r| {
        r.entities()
            .map(|e| (e.entity_id.clone(), e.state.clone()))
            .collect()
    });
    // Other tests toggle a few entities concurrently; compare ids exactly, states for the
    // entities nobody touches.
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        rest.keys().collect::<Vec<_>>()
    );
    assert!(
        ours.len() >= 100,
        "demo home has ~116 entities, got {}",
        ours.len()
    );
    for id in [
        "binary_sensor.movement_backyard",
        "cover.garage_door",
        "sensor.outside_temperature",
    ] {
        assert_eq!(ours[id], rest[id], "{id}");
    }

    let (_, services) = ha.rest("GET", "/api/services", None).await;
    let rest_services: usize = services
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["services"].as_object().unwrap().len())
        .sum();
    assert_eq!(registry.read(|r| r.service_count()), rest_services);

    registry.read(|r| {
        assert_eq!(r.ha_version(), ha.version());
        let areas: Vec<&str> = r.areas().map(|a| a.area_id.as_str()).collect();
        assert_eq!(areas, vec!["bedroom", "kitchen", "living_room"]);
        // Area through the device (bootstrap puts the Kitchen Lights device in the kitchen)...
        assert_eq!(
            r.get("light.kitchen_lights").unwrap().area_id.as_deref(),
            Some("kitchen")
        );
        // ...and set on the entity itself.
        assert_eq!(
            r.get("switch.ac").unwrap().area_id.as_deref(),
            Some("bedroom")
        );
        assert_eq!(r.get(" Light.Bed_Light ").unwrap().name, "Bed Light");
        let top = r.search("kitchen light", None, None, 1);
        assert_eq!(top[0].entity_id, "light.kitchen_lights");
        let brightness = &r.service("light", "turn_on").unwrap().fields["brightness_pct"];
        assert!(!brightness.required);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assist_exposure_hides_what_home_assistant_does_not_expose() {
    let ha = shared();
    let (_client, registry) = live(ha, ExposurePolicy::new(ExposureConfig::default())).await;
    registry.read(|r| {
        assert!(r.get("light.kitchen_lights").is_some());
        // The demo script is marked "not exposed" in HA's entity registry options.
        assert!(r.get("script.all_lights_off").is_none());
        assert!(r.len() < r.all_entity_count());
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rest_service_call_reaches_the_registry_through_state_changed() {
    let ha = shared();
    let (_client, registry) = live(ha, everything()).await;
    // switch.decorative_lights belongs to this test alone.
    let before = registry.read(|r| r.get("switch.decorative_lights").unwrap().state.clone());
    let (service, expected) = if before == "on" {
        ("turn_off", "off")
    } else {
        ("turn_on", "on")
    };
    let (status, _) = ha
        .rest(
            "POST",
            &format!("/api/services/switch/{service}"),
            Some(json!({"entity_id": "switch.decorative_lights"})),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        registry
            .wait_until(WAIT, |r| r.get("switch.decorative_lights").unwrap().state
                == expected)
            .await,
        "state_changed never reached the registry"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checked_calls_refuse_unknown_entities_that_home_assistant_would_accept() {
    let ha = shared();
    let (client, registry) = live(ha, everything()).await;

    // Home Assistant itself says "success" for an entity that does not exist.
    let raw = client
        .call_service(
            "light",
            "turn_on",
            &Target::entities(["light.does_not_exist"]),
            None,
            false,
        )
        .await;
    assert!(raw.is_ok(), "{raw:?}");

    let call = ServiceCall {
        domain: "light".into(),
        service: "turn_on".into(),
        entity_ids: vec!["light.does_not_exist".into()],
        ..Default::default()
    };
    let err = registry.read(|r| call.check(r)).unwrap_err();
    assert!(matches!(err, CallError::UnknownEntity { .. }), "{err}");

    // A real call through the checked path changes the real state.
    let call = ServiceCall {
        domain: "Light".into(),
        service: "turn_on".into(),
        entity_ids: vec![" Light.Office_RGBW_Lights ".into()],
        data: Some(json!({"brightness_pct": 40})),
        ..Default::default()
    };
    let checked = registry.read(|r| call.check(r)).unwrap();
    checked.execute(&client).await.unwrap();
    assert!(
        registry
            .wait_until(WAIT, |r| {
                let e = r.get("light.office_rgbw_lights").unwrap();
                e.state == "on" && e.attributes.get("brightness") == Some(&json!(102))
            })
            .await
    );

    // Denied services never reach HA.
    let restart = ServiceCall {
        domain: "homeassistant".into(),
        service: "restart".into(),
        ..Default::default()
    };
    assert!(matches!(
        registry.read(|r| restart.check(r)),
        Err(CallError::Denied { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistant_errors_are_typed() {
    let ha = shared();
    let client = ha.client();
    client.wait_connected(WAIT).await.unwrap();
    let unknown = client
        .call_service(
            "light",
            "does_not_exist",
            &Target::entities(["light.bed_light"]),
            None,
            false,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, HaError::Api { code: HaErrorCode::NotFound, message }
            if message.contains("light.does_not_exist")),
        "{unknown:?}"
    );
    let bad_data = client
        .call_service(
            "light",
            "turn_on",
            &Target::entities(["light.bed_light"]),
            Some(json!({"brightness": "very"})),
            false,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            bad_data,
            HaError::Api {
                code: HaErrorCode::InvalidFormat,
                ..
            }
        ),
        "{bad_data:?}"
    );
    let unknown_command = client
        .request(Command::new("no/such/command"))
        .await
        .unwrap_err();
    assert!(matches!(
        unknown_command,
        HaError::Api {
            code: HaErrorCode::UnknownCommand,
            ..
        }
    ));
    // The connection survives all of these.
    assert!(!client.get_states().await.unwrap().is_empty());
    // return_response works where the service supports it.
    let forecast = client
        .call_service(
            "weather",
            "get_forecasts",
            &Target::entities(["weather.demo_weather_north"]),
            Some(json!({"type": "daily"})),
            true,
        )
        .await
        .unwrap();
    assert!(forecast["response"]["weather.demo_weather_north"]["forecast"].is_array());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_token_is_a_typed_auth_failure() {
    let ha = shared();
    let client = HaClient::spawn(ha.settings_with_token("not-a-token"));
    let outcome = client.first_outcome().await;
    assert!(
        matches!(&outcome, ConnectionState::AuthFailed { message } if message.contains("Invalid")),
        "{outcome:?}"
    );
    client.shutdown().await;
}

/// Home Assistant killed and restarted mid-session: the client reconnects and the registry
/// resyncs on its own, and live updates flow again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reconnects_and_resyncs_after_home_assistant_restarts() {
    let ha = HaInstance::start(18124);
    let (client, registry) = live(&ha, everything()).await;
    let first = registry.generation();
    let mut state = client.state();

    ha.kill();
    tokio::time::timeout(WAIT, state.wait_for(|s| !s.is_connected()))
        .await
        .expect("disconnect noticed")
        .unwrap();
    let err = client.get_states().await.unwrap_err();
    assert!(
        matches!(
            err,
            HaError::NotConnected(_) | HaError::ConnectionLost { .. }
        ),
        "{err:?}"
    );

    let ha = tokio::task::spawn_blocking(|| HaInstance::start(18124))
        .await
        .unwrap();
    assert!(
        registry
            .wait_synced_after(first, Duration::from_secs(60))
            .await
            .is_some(),
        "no resync after restart"
    );
    // Subscriptions were restored: a change made now arrives as an event.
    let (status, _) = ha
        .rest(
            "POST",
            "/api/services/input_boolean/toggle",
            Some(json!({"entity_id": "input_boolean.guest_mode"})),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        registry
            .wait_until(WAIT, |r| r.get("input_boolean.guest_mode").unwrap().state
                == "on")
            .await
    );
    client.shutdown().await;
}
