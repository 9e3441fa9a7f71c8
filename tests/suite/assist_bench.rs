//! The leaderboard benchmark's parts against a real Home Assistant: the fixture-home loader
//! (every entity exists as the file says and answers its domain's services) and the runner
//! (`homeclaw-bench assist`) end to end with the scripted model, scored as upstream scores.
//! They run on the project's own task set in upstream's format
//! (`tests/homes/leaderboard/homeclaw-tasks`), so a fresh clone needs nothing else; the public
//! task sets are the benchmark's input (docs/benchmarks.md).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::ha::HaInstance;
use crate::common::homeclaw::config_yaml;
use crate::common::scripted_llm::{ScriptedLlm, openai_calls, openai_text};

const LOADER_PORT: u16 = 18128;
const RUNNER_PORT: u16 = 18129;
const CONTEXT_PORT: u16 = 18130;
const BROKEN_PORT: u16 = 18132;

/// The project's own task set (every domain the loader models, upstream's file forms).
fn own_tasks() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/homes/leaderboard/homeclaw-tasks")
}

async fn state(ha: &HaInstance, entity: &str) -> Value {
    let (status, body) = ha.rest("GET", &format!("/api/states/{entity}"), None).await;
    assert_eq!(status, 200, "{entity}: {body}");
    body
}

/// Calls a service and returns the entity's state afterwards (the fixture entities write their
/// state before the call returns, so no wait is needed).
async fn call(ha: &HaInstance, entity: &str, service: &str, data: Value) -> Value {
    let domain = entity.split('.').next().unwrap();
    let mut body = json!({"entity_id": entity});
    body.as_object_mut()
        .unwrap()
        .extend(data.as_object().cloned().unwrap_or_default());
    let (status, answer) = ha
        .rest(
            "POST",
            &format!("/api/services/{domain}/{service}"),
            Some(body),
        )
        .await;
    assert_eq!(status, 200, "{domain}.{service} on {entity}: {answer}");
    state(ha, entity).await
}

/// A service that answers (`?return_response`), and its whole answer.
async fn respond(ha: &HaInstance, domain: &str, service: &str, body: Value) -> Value {
    let (status, answer) = ha
        .rest(
            "POST",
            &format!("/api/services/{domain}/{service}?return_response"),
            Some(body),
        )
        .await;
    assert_eq!(status, 200, "{domain}.{service}: {answer}");
    answer
}

/// Each domain's services, with what must be true after each call.
async fn exercise(ha: &HaInstance, entity: &str) -> usize {
    let domain = entity.split('.').next().unwrap();
    let attrs = |s: &Value| s["attributes"].clone();
    let mut calls = 0;
    let mut check = |s: Value, want_state: &str, what: &str| {
        calls += 1;
        assert_eq!(s["state"], want_state, "{entity} after {what}: {s}");
        s
    };
    match domain {
        "light" => {
            let s = check(
                call(ha, entity, "turn_on", json!({})).await,
                "on",
                "turn_on",
            );
            let modes = attrs(&s)["supported_color_modes"].to_string();
            if modes.contains("brightness") || modes.contains("rgbw") {
                let s = check(
                    call(ha, entity, "turn_on", json!({"brightness": 128})).await,
                    "on",
                    "turn_on brightness",
                );
                assert_eq!(attrs(&s)["brightness"], 128, "{entity}");
            }
            if modes.contains("rgbw") {
                let s = check(
                    call(ha, entity, "turn_on", json!({"rgbw_color": [255, 0, 0, 0]})).await,
                    "on",
                    "turn_on colour",
                );
                assert_eq!(attrs(&s)["rgbw_color"], json!([255, 0, 0, 0]), "{entity}");
            }
            check(
                call(ha, entity, "turn_off", json!({})).await,
                "off",
                "turn_off",
            );
            check(call(ha, entity, "toggle", json!({})).await, "on", "toggle");
        }
        "switch" => {
            check(
                call(ha, entity, "turn_off", json!({})).await,
                "off",
                "turn_off",
            );
            check(
                call(ha, entity, "turn_on", json!({})).await,
                "on",
                "turn_on",
            );
            check(call(ha, entity, "toggle", json!({})).await, "off", "toggle");
        }
        "fan" => {
            let s = check(
                call(ha, entity, "turn_on", json!({})).await,
                "on",
                "turn_on",
            );
            assert_eq!(attrs(&s)["percentage"], 100, "{entity}");
            let s = check(
                call(ha, entity, "set_percentage", json!({"percentage": 30})).await,
                "on",
                "set_percentage",
            );
            assert_eq!(attrs(&s)["percentage"], 30, "{entity}");
            let s = check(
                call(ha, entity, "turn_off", json!({})).await,
                "off",
                "turn_off",
            );
            assert_eq!(attrs(&s)["percentage"], 0, "{entity}");
        }
        "cover" => {
            let s = check(
                call(ha, entity, "open_cover", json!({})).await,
                "open",
                "open",
            );
            check(
                call(ha, entity, "close_cover", json!({})).await,
                "closed",
                "close",
            );
            if attrs(&s)["supported_features"].as_u64().unwrap_or(0) & 4 != 0 {
                let s = check(
                    call(ha, entity, "set_cover_position", json!({"position": 40})).await,
                    "open",
                    "set_cover_position",
                );
                assert_eq!(attrs(&s)["current_position"], 40, "{entity}");
            }
        }
        "valve" => {
            let s = check(
                call(ha, entity, "open_valve", json!({})).await,
                "open",
                "open",
            );
            assert_eq!(attrs(&s)["current_position"], 100, "{entity}");
            let s = check(
                call(ha, entity, "close_valve", json!({})).await,
                "closed",
                "close",
            );
            assert_eq!(attrs(&s)["current_position"], 0, "{entity}");
            let s = check(
                call(ha, entity, "set_valve_position", json!({"position": 50})).await,
                "open",
                "set_valve_position",
            );
            assert_eq!(attrs(&s)["current_position"], 50, "{entity}");
        }
        "lock" => {
            check(
                call(ha, entity, "unlock", json!({})).await,
                "unlocked",
                "unlock",
            );
            check(call(ha, entity, "lock", json!({})).await, "locked", "lock");
        }
        "vacuum" => {
            check(
                call(ha, entity, "start", json!({})).await,
                "cleaning",
                "start",
            );
            check(
                call(ha, entity, "pause", json!({})).await,
                "paused",
                "pause",
            );
            check(
                call(ha, entity, "return_to_base", json!({})).await,
                "returning",
                "return",
            );
            check(call(ha, entity, "stop", json!({})).await, "idle", "stop");
        }
        "media_player" => {
            check(
                call(ha, entity, "media_pause", json!({})).await,
                "paused",
                "pause",
            );
            check(
                call(ha, entity, "media_play", json!({})).await,
                "playing",
                "play",
            );
            let before = attrs(&state(ha, entity).await)["media_track"]
                .as_u64()
                .unwrap_or(0);
            let s = check(
                call(ha, entity, "media_next_track", json!({})).await,
                "playing",
                "next",
            );
            assert_eq!(attrs(&s)["media_track"], before + 1, "{entity}");
            let s = check(
                call(ha, entity, "volume_set", json!({"volume_level": 0.3})).await,
                "playing",
                "volume_set",
            );
            assert_eq!(attrs(&s)["volume_level"], 0.3, "{entity}");
            let s = check(
                call(ha, entity, "volume_mute", json!({"is_volume_muted": true})).await,
                "playing",
                "volume_mute",
            );
            assert_eq!(attrs(&s)["is_volume_muted"], true, "{entity}");
            check(
                call(ha, entity, "media_stop", json!({})).await,
                "idle",
                "stop",
            );
            check(
                call(ha, entity, "turn_off", json!({})).await,
                "off",
                "turn_off",
            );
        }
        "todo" => {
            let before: u64 = state(ha, entity).await["state"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            let s = call(ha, entity, "add_item", json!({"item": "milk"})).await;
            calls += 1;
            assert_eq!(s["state"], (before + 1).to_string(), "{entity}: {s}");
        }
        "input_boolean" => {
            check(
                call(ha, entity, "turn_on", json!({})).await,
                "on",
                "turn_on",
            );
            check(call(ha, entity, "toggle", json!({})).await, "off", "toggle");
            check(call(ha, entity, "toggle", json!({})).await, "on", "toggle");
        }
        // Activating the scene puts the entities it names into its states.
        "scene" => {
            call(ha, "light.living_room_light", "turn_on", json!({})).await;
            let s = call(ha, entity, "turn_on", json!({})).await;
            calls += 1;
            assert_ne!(s["state"], "unknown", "{entity} was never activated: {s}");
            assert_eq!(state(ha, "light.living_room_light").await["state"], "off");
            assert_eq!(state(ha, "light.kitchen_light").await["state"], "off");
        }
        // The script's own service waits for it to finish; its sequence ran.
        "script" => {
            call(ha, "light.kitchen_light", "turn_off", json!({})).await;
            let object_id = entity.split('.').nth(1).unwrap();
            let (status, answer) = ha
                .rest(
                    "POST",
                    &format!("/api/services/script/{object_id}"),
                    Some(json!({})),
                )
                .await;
            assert_eq!(status, 200, "{entity}: {answer}");
            assert_eq!(state(ha, "light.kitchen_light").await["state"], "on");
            check(state(ha, entity).await, "off", "its run");
        }
        "climate" => {
            let s = check(
                call(ha, entity, "set_hvac_mode", json!({"hvac_mode": "heat"})).await,
                "heat",
                "set_hvac_mode",
            );
            if attrs(&s)["temperature"].is_number() {
                let s = check(
                    call(ha, entity, "set_temperature", json!({"temperature": 24})).await,
                    "heat",
                    "set_temperature",
                );
                assert_eq!(attrs(&s)["temperature"], 24.0, "{entity}");
            }
            check(
                call(ha, entity, "turn_off", json!({})).await,
                "off",
                "turn_off",
            );
        }
        // Read through services that answer (`return_response`), as HomeClaw reads them.
        "calendar" => {
            let events = respond(
                ha,
                "calendar",
                "get_events",
                json!({"entity_id": entity, "start_date_time": "2000-01-01 00:00:00",
                       "end_date_time": "2100-01-01 00:00:00"}),
            )
            .await;
            calls += 1;
            let events = events["service_response"][entity]["events"].clone();
            assert!(
                events.as_array().is_some_and(|e| !e.is_empty()),
                "{entity}: {events}"
            );
        }
        "weather" => {
            let s = state(ha, entity).await;
            assert!(s["attributes"]["temperature"].is_number(), "{entity}: {s}");
            let daily = respond(
                ha,
                "weather",
                "get_forecasts",
                json!({"entity_id": entity, "type": "daily"}),
            )
            .await;
            calls += 1;
            let forecast = daily["service_response"][entity]["forecast"].clone();
            assert!(
                forecast.as_array().is_some_and(|f| !f.is_empty()),
                "{entity}: {daily}"
            );
        }
        // Read-only: Home Assistant offers them no services; their state is what the file says.
        "sensor" | "binary_sensor" => {}
        other => panic!("{entity}: no check for the {other} domain"),
    }
    calls
}

/// Areas as Home Assistant has them, by entity: the entity's own or its device's.
async fn entity_areas(ha: &HaInstance) -> std::collections::BTreeMap<String, String> {
    let client = ha.client();
    client
        .wait_connected(std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let request = |kind: &str| {
        let client = client.clone();
        let kind = kind.to_owned();
        async move {
            client
                .request(homeclaw::ha::protocol::Command::new(&kind))
                .await
                .unwrap()
        }
    };
    let areas = request("config/area_registry/list").await;
    let devices = request("config/device_registry/list").await;
    let entities = request("config/entity_registry/list").await;
    client.shutdown().await;
    let area_name = |id: &Value| {
        areas
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["area_id"] == *id)
            .map(|a| a["name"].as_str().unwrap().to_owned())
    };
    let mut out = std::collections::BTreeMap::new();
    for e in entities.as_array().unwrap() {
        let device_area = devices
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == e["device_id"])
            .map(|d| d["area_id"].clone())
            .unwrap_or(Value::Null);
        let area = if e["area_id"].is_null() {
            device_area
        } else {
            e["area_id"].clone()
        };
        if let Some(name) = area_name(&area) {
            out.insert(e["entity_id"].as_str().unwrap().to_owned(), name);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loader_builds_a_home_and_every_entity_answers_its_services() {
    let sets = own_tasks();
    // The project's home holds every modelled domain and floors.
    let homes = ["flat-pl"];
    let mut domains = std::collections::BTreeSet::new();
    let mut total_calls = 0;
    let mut floors_checked = 0;
    for home in homes {
        let fixture = sets.join(home).join("_fixtures.yaml");
        let ha = tokio::task::spawn_blocking({
            let fixture = fixture.clone();
            move || HaInstance::start_home(LOADER_PORT, &fixture)
        })
        .await
        .unwrap();
        let text = std::fs::read_to_string(&fixture).unwrap();
        let doc = &yaml_rust2::YamlLoader::load_from_str(&text).unwrap()[0];
        let area_names: std::collections::BTreeMap<String, String> = doc["areas"]
            .as_vec()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["id"].as_str().unwrap().to_owned(),
                    a["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let areas = entity_areas(&ha).await;
        let first = doc["entities"][0]["id"].as_str().unwrap();
        let initial = state(&ha, first).await;
        for entity in doc["entities"].as_vec().unwrap() {
            let id = entity["id"].as_str().unwrap();
            let s = state(&ha, id).await;
            assert_eq!(
                s["attributes"]["friendly_name"],
                entity["name"].as_str().unwrap(),
                "{home}: {id}"
            );
            if let Some(area) = entity["area"].as_str() {
                assert_eq!(areas.get(id), area_names.get(area), "{home}: area of {id}");
            }
            domains.insert(id.split('.').next().unwrap().to_owned());
            total_calls += exercise(&ha, id).await;
        }
        // Reset puts the home back as the file has it; set_state refuses what it cannot model.
        let (status, _) = ha
            .rest("POST", "/api/services/fixture_home/reset", Some(json!({})))
            .await;
        assert_eq!(status, 200);
        let reset = state(&ha, first).await;
        assert_eq!(
            (&reset["state"], &reset["attributes"]),
            (&initial["state"], &initial["attributes"]),
            "{home}: {first} after reset"
        );
        // A helper through its own service, a counted list to its count.
        assert_eq!(state(&ha, "input_boolean.guest_mode").await["state"], "off");
        assert_eq!(state(&ha, "todo.chores").await["state"], "2");
        let client = ha.client();
        client
            .wait_connected(std::time::Duration::from_secs(10))
            .await
            .unwrap();
        let refused = client
            .request(
                homeclaw::ha::protocol::Command::new("call_service")
                    .with("domain", json!("fixture_home"))
                    .with("service", json!("set_state"))
                    .with(
                        "service_data",
                        json!({"entity_id": first, "attributes": {"warp_drive": 9}}),
                    ),
            )
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains(first) && refused.contains("warp_drive"),
            "{refused}"
        );
        // A helper is set through its own service, checked like any entity.
        let set_helper = |state: &str| {
            homeclaw::ha::protocol::Command::new("call_service")
                .with("domain", json!("fixture_home"))
                .with("service", json!("set_state"))
                .with(
                    "service_data",
                    json!({"entity_id": "input_boolean.guest_mode", "state": state}),
                )
        };
        client.request(set_helper("on")).await.unwrap();
        assert_eq!(state(&ha, "input_boolean.guest_mode").await["state"], "on");
        let refused = client
            .request(set_helper("ajar"))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("input_boolean.guest_mode") && refused.contains("ajar"),
            "{refused}"
        );
        // Floors reach HomeClaw's own registry: each area is on the floor the file names.
        let registry = homeclaw::ha::registry::Registry::from_snapshot(
            client.snapshot().await.unwrap(),
            homeclaw::ha::exposure::ExposurePolicy::new(Default::default()),
            None,
        );
        for area in doc["areas"].as_vec().unwrap() {
            let name = area["name"].as_str().unwrap();
            let found = registry.resolve_area(name).expect(name);
            let floor = registry.floor_of(found).map(|f| f.name.as_str());
            assert_eq!(floor, area["floor"].as_str(), "{home}: floor of {name}");
            floors_checked += usize::from(floor.is_some());
        }
        client.shutdown().await;
        ha.stop();
    }
    assert!(floors_checked > 0, "no home with floors was loaded");
    assert_eq!(
        domains.into_iter().collect::<Vec<_>>(),
        [
            "binary_sensor",
            "calendar",
            "climate",
            "cover",
            "fan",
            "input_boolean",
            "light",
            "lock",
            "media_player",
            "scene",
            "script",
            "sensor",
            "switch",
            "todo",
            "vacuum",
            "valve",
            "weather"
        ]
    );
    crate::common::report(&format!(
        "fixture homes: {total_calls} service calls checked"
    ));
}

#[test]
fn a_fixture_the_loader_cannot_represent_is_an_error_naming_the_entity() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("siren.alarm", "state: 'on'", "siren"),
        ("light.desk", "attributes: {warp_drive: 9}", "warp_drive"),
        ("lock.door", "state: ajar", "ajar"),
        ("todo.chores", "state: lots", "lots"),
        (
            "todo.chores",
            "state: '2'\n    attributes: {todo_items: [Milk]}",
            "open todo_items",
        ),
        (
            "scene.movie",
            "attributes: {entities: {light.nowhere: 'off'}}",
            "light.nowhere",
        ),
        (
            "fan.ceiling",
            "attributes: {supported_features: [fan.FanEntityFeature.HOVER]}",
            "HOVER",
        ),
    ];
    for (entity, extra, word) in cases {
        let path = dir.path().join("_fixtures.yaml");
        std::fs::write(
            &path,
            format!("areas: []\ndevices: []\nentities:\n  - name: Thing\n    id: {entity}\n    {extra}\n"),
        )
        .unwrap();
        let (accepted, stderr) = check_home(&path);
        assert!(!accepted, "{entity} was accepted: {stderr}");
        assert!(
            stderr.contains(entity) && stderr.contains(word),
            "{entity}: {stderr}"
        );
    }
    // Two devices under one id would be merged into one: refused, naming it.
    let path = dir.path().join("_fixtures.yaml");
    std::fs::write(
        &path,
        "language: de\nareas: []\ndevices:\n  - {name: Lampe, id: lampe}\n  - {name: Lampe 2, id: lampe}\nentities:\n  - {name: Lampe, id: light.lampe, device: lampe}\n",
    )
    .unwrap();
    let (accepted, stderr) = check_home(&path);
    assert!(!accepted, "a device defined twice was accepted");
    assert!(
        stderr.contains("lampe") && stderr.contains("twice"),
        "{stderr}"
    );
}

/// `scripts/ha-dev.sh check-home`: whether it accepts the file, and what it said.
fn check_home(path: &std::path::Path) -> (bool, String) {
    let out = std::process::Command::new(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/ha-dev.sh"),
    )
    .arg("check-home")
    .arg(path)
    .output()
    .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The calls a right answer makes for one task per category of assist-mini, in the order the
/// runner meets them (homes sorted, tasks in file order).
fn right_answers() -> Vec<(&'static str, &'static str, &'static str, Value)> {
    vec![
        (
            "flat-pl/cover#0\\.0",
            "cover",
            "close_cover",
            json!({"entity_id": "cover.garage_door"}),
        ),
        (
            "flat-pl/fan#0\\.0",
            "fan",
            "turn_on",
            json!({"entity_id": "fan.bedroom_fan"}),
        ),
        (
            "flat-pl/light#0\\.0",
            "light",
            "turn_on",
            json!({"entity_id": "light.kitchen_light"}),
        ),
        // Deliberately wrong: the kitchen light instead of the living room light.
        (
            "flat-pl/light#1\\.0",
            "light",
            "turn_on",
            json!({"entity_id": "light.kitchen_light"}),
        ),
        (
            "flat-pl/lock#0\\.0",
            "lock",
            "unlock",
            json!({"entity_id": "lock.front_door"}),
        ),
        (
            "flat-pl/media-player#0\\.0",
            "media_player",
            "media_pause",
            json!({"entity_id": "media_player.living_room_speaker"}),
        ),
        (
            "flat-pl/todo#0\\.0",
            "todo",
            "add_item",
            json!({"entity_id": "todo.shopping_list", "data": {"item": "bread"}}),
        ),
        (
            "flat-pl/vacuum#0\\.0",
            "vacuum",
            "start",
            json!({"entity_id": "vacuum.robot_vacuum"}),
        ),
        (
            "flat-pl/valve#0\\.0",
            "valve",
            "open_valve",
            json!({"entity_id": "valve.garden_sprinkler"}),
        ),
    ]
}

/// The HomeClaw configuration the runner is given, as `edit` changes the test default; its
/// Home Assistant part is replaced by the runner (its own instance).
fn bench_config(
    dir: &std::path::Path,
    llm: &ScriptedLlm,
    edit: impl FnOnce(String) -> String,
) -> PathBuf {
    let config = dir.join("homeclaw.yaml");
    let yaml = config_yaml(
        "ws://127.0.0.1:1/api/websocket",
        "unused",
        &llm.openai_url(),
        &dir.join("unused-sessions"),
        "",
    );
    std::fs::write(&config, edit(yaml)).unwrap();
    config
}

/// Runs the real `homeclaw-bench assist` (real HomeClaw, its own Home Assistant on `port`) on
/// the tasks `only` matches; its output and the result rows, after checking it succeeded.
async fn run_bench(
    dataset: &std::path::Path,
    agent: &str,
    only: &str,
    config: &std::path::Path,
    port: u16,
    extra: &[&str],
) -> (std::process::Output, Vec<Value>) {
    let results = config.with_file_name("results.jsonl");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_homeclaw-bench"))
        .args(["assist", "--agent", agent, "--only", only])
        .args(extra)
        .arg("--dataset")
        .arg(dataset)
        .arg("--config")
        .arg(config)
        .arg("--homeclaw-bin")
        .arg(env!("CARGO_BIN_EXE_homeclaw"))
        .args(["--ha-port", &port.to_string(), "--quiet-ms", "200"])
        .arg("--ha-script")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/ha-dev.sh"))
        .arg("--json")
        .arg(&results)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, rows)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_task_per_category_passes_end_to_end_and_a_wrong_answer_fails_naming_the_entity() {
    let sets = own_tasks();
    let llm = ScriptedLlm::start().await;
    let answers = right_answers();
    for (i, (_, domain, service, data)) in answers.iter().enumerate() {
        let mut args = data.clone();
        args["domain"] = json!(domain);
        args["service"] = json!(service);
        llm.push(openai_calls(&[(
            &format!("call_{i}"),
            "call_service",
            args,
        )]));
        // A call held for approval ends the run there: no second sampling.
        if *service != "unlock" {
            llm.push(openai_text("Done."));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    // The wrong answer below must reach Home Assistant for the scorer to name it: the guard
    // that refuses a call on a light nobody named is off here.
    let config = bench_config(dir.path(), &llm, |c| {
        c.replace(
            "answer_from_verification: false\n",
            "answer_from_verification: false\n  named_targets: false\n",
        )
    });
    let only = answers.iter().map(|a| a.0).collect::<Vec<_>>().join("|");
    let (out, rows) = run_bench(
        &sets,
        "homeclaw",
        &format!("^({only})$"),
        &config,
        RUNNER_PORT,
        &[],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(rows.len(), answers.len(), "{stderr}");
    let mut categories = std::collections::BTreeSet::new();
    for row in &rows {
        let task = row["task"].as_str().unwrap();
        if task == "flat-pl/light#1.0" {
            assert_eq!(row["pass"], false, "{row}");
            let why = row["reason"].as_str().unwrap();
            // The light that should have changed, and the one that did.
            assert!(why.contains("light.living_room_light state"), "{why}");
            assert!(why.contains("light.kitchen_light state"), "{why}");
            continue;
        }
        assert_eq!(row["pass"], true, "{row}\n{stderr}");
        // One request for the call and one for the answer; a held call ends the run at once.
        let held = task.contains("lock#");
        assert_eq!(row["llm_requests"], if held { 1 } else { 2 }, "{row}");
        categories.insert(row["category"].as_str().unwrap().to_owned());
        // Unlocking is held for approval and approved by the runner, as a person would.
        assert_eq!(row["needed_approval"], held, "{row}");
    }
    assert_eq!(categories.len(), 8, "{categories:?}");
    assert_eq!(llm.remaining(), 0);
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    // The report names each category and the published scores beside ours.
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("| media-player | HomeClaw | 1 | 100.0%"),
        "{report}"
    );
    assert!(
        report.contains("| HA built-in NLP agent (archived results) | 63.3% | 37.5% | – |"),
        "{report}"
    );
    assert!(
        report.contains("| qwen3.5-4b | 88.3% | 81.1% | 93.8% |"),
        "{report}"
    );
    assert!(report.contains("| HomeClaw | 88.9% (n=9) |"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sentence_spoken_to_a_device_acts_on_that_device_and_questions_are_answered_from_reads() {
    // "Pause the music" and "Set the volume to 20%" in a home with two speakers: which one is
    // meant is the device the person spoke to. The runner hands the task's context device to
    // HomeClaw as `device_id` (its fast path resolves it without asking the model); Home
    // Assistant's agent runs the same tasks through `conversation/process`, which takes no
    // device. Each sentence runs as often as the set's card says (`--count card`: 2).
    let sets = own_tasks();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = bench_config(dir.path(), &llm, |c| {
        c.replace("fast_path: false", "fast_path: true").replace(
            "answer_from_verification: false",
            "answer_from_verification: true",
        )
    });
    let (out, rows) = run_bench(
        &sets,
        "both",
        r"^flat-pl/(media-player#[01]|calendar#0|todo#1|weather#0)\.0$",
        &config,
        CONTEXT_PORT,
        &["--count", "card"],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Two device tasks and three questions (a calendar spoken at a given moment, a list, the
    // weather: read through Home Assistant's services and answered from the reads), two runs
    // each, for both agents.
    assert_eq!(rows.len(), 20, "{stderr}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("2 run(s) each: dataset_card.yaml, as upstream runs it"),
        "{report}"
    );
    for row in &rows {
        if row["agent"] == "HomeClaw" {
            assert_eq!(row["pass"], true, "{row}\n{stderr}");
            assert_eq!(row["llm_requests"], 0, "{row}");
        } else {
            // Answered (rightly or not), never a failed request.
            let reason = row["reason"].as_str().unwrap_or_default();
            assert!(!reason.contains("failed:"), "{row}");
        }
    }
    assert_eq!(llm.requests().len(), 0);
}

/// A task set with a home the loader cannot represent and a good one: the bad home's tasks are
/// failed rows naming why, the good home still runs, and the report is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_home_that_cannot_be_loaded_fails_its_tasks_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("mixed");
    let good = set.join("flat-pl");
    std::fs::create_dir_all(&good).unwrap();
    for entry in std::fs::read_dir(own_tasks().join("flat-pl")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, good.join(path.file_name().unwrap())).unwrap();
    }
    let broken = set.join("broken-home");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("_fixtures.yaml"),
        "areas: []\ndevices: []\nentities:\n  - name: Alarm\n    id: siren.alarm\n    state: 'off'\n",
    )
    .unwrap();
    std::fs::write(
        broken.join("siren.yaml"),
        "category: siren\ntests:\n  - sentences: [Sound the alarm]\n    expect_changes:\n      siren.alarm: {state: 'on'}\n",
    )
    .unwrap();
    let llm = ScriptedLlm::start().await;
    llm.push(openai_calls(&[(
        "call_0",
        "call_service",
        json!({"domain": "cover", "service": "close_cover", "entity_id": "cover.garage_door"}),
    )]));
    llm.push(openai_text("Done."));
    let config = bench_config(dir.path(), &llm, |c| c);
    let report = dir.path().join("report.md");
    let (out, rows) = run_bench(
        &set,
        "homeclaw",
        r"^(broken-home/siren#0\.0|flat-pl/cover#0\.0)$",
        &config,
        BROKEN_PORT,
        &["--out", report.to_str().unwrap()],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(rows.len(), 2, "{stderr}");
    let failed = &rows[0];
    assert_eq!(failed["task"], "broken-home/siren#0.0", "{rows:?}");
    assert_eq!(failed["pass"], false);
    let why = failed["reason"].as_str().unwrap();
    assert!(
        why.contains("could not be loaded") && why.contains("siren"),
        "{why}"
    );
    assert_eq!(rows[1]["pass"], true, "{}\n{stderr}", rows[1]);
    let written = std::fs::read_to_string(&report).unwrap();
    assert!(written.contains("| HomeClaw | 50.0% (n=2) |"), "{written}");
}
