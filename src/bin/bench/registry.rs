//! `homeclaw-bench registry`: a synthetic get_states frame through the real parse path into the
//! registry, timed, with peak RSS.

use std::time::{Duration, Instant};

use anyhow::bail;
use homeclaw::config::ExposureConfig;
use homeclaw::ha::exposure::{AssistExposure, ExposurePolicy};
use homeclaw::ha::protocol::{Incoming, parse_frame};
use homeclaw::ha::registry::{Registry, Snapshot, StateObject};
use serde_json::{Value, json};

use crate::rss_kib;

const DOMAINS: [&str; 8] = [
    "light",
    "switch",
    "sensor",
    "binary_sensor",
    "cover",
    "climate",
    "lock",
    "media_player",
];

/// A state object shaped like what Home Assistant sends for the domain.
fn synthetic_state(i: usize) -> Value {
    let domain = DOMAINS[i % DOMAINS.len()];
    let room = [
        "kitchen",
        "living_room",
        "bedroom",
        "office",
        "garage",
        "hall",
    ][i % 6];
    let entity_id = format!("{domain}.{room}_{i}");
    let mut attributes = json!({
        "friendly_name": format!("{} {} {i}", room.replace('_', " "), domain.replace('_', " ")),
        "supported_features": i % 64,
    });
    let extra = match domain {
        "light" => json!({"brightness": i % 256, "color_mode": "hs", "hs_color": [30.0, 60.5],
            "supported_color_modes": ["hs", "color_temp"], "min_color_temp_kelvin": 2000,
            "max_color_temp_kelvin": 6500}),
        "sensor" => json!({"unit_of_measurement": "°C", "device_class": "temperature",
            "state_class": "measurement"}),
        "climate" => {
            json!({"hvac_modes": ["off", "heat", "cool", "auto"], "current_temperature": 21.5,
            "temperature": 22, "min_temp": 7, "max_temp": 35})
        }
        "cover" => json!({"current_position": i % 100, "device_class": "window"}),
        _ => json!({"icon": "mdi:thing"}),
    };
    if let (Some(a), Some(e)) = (attributes.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    json!({
        "entity_id": entity_id,
        "state": if i.is_multiple_of(2) { "on" } else { "off" },
        "attributes": attributes,
        "last_changed": "2026-11-23T09:27:09.224576+00:00",
        "last_reported": "2026-11-23T09:27:09.224576+00:00",
        "last_updated": "2026-11-23T09:27:09.224576+00:00",
        "context": {"id": format!("01JD{i:022}"), "parent_id": null, "user_id": null}
    })
}

/// The whole path a real get_states reply takes: frame text → messages → typed states →
/// registry.
fn ingest(frame: &str) -> anyhow::Result<Registry> {
    let mut messages = parse_frame(frame)?;
    let Some(Incoming::Result {
        outcome: Ok(result),
        ..
    }) = messages.pop()
    else {
        bail!("not a successful result frame");
    };
    let states: Vec<StateObject> = serde_json::from_str(result.get())?;
    // As `HaClient::get_states` does: the raw reply is gone before the registry is built.
    drop(result);
    let snapshot = Snapshot {
        ha_version: "2025.4.4".into(),
        states,
        assist: AssistExposure::Unsupported,
        ..Default::default()
    };
    Ok(Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig::default()),
        None,
    ))
}

pub fn run(entities: usize, runs: usize) -> anyhow::Result<()> {
    let (base_rss, _) = rss_kib()?;
    // Built entity by entity so that the generator's own garbage does not inflate the peak.
    let mut frame = String::from(r#"{"id":5,"type":"result","success":true,"result":["#);
    for i in 0..entities {
        if i > 0 {
            frame.push(',');
        }
        frame.push_str(&synthetic_state(i).to_string());
    }
    frame.push_str("]}");
    frame.shrink_to_fit();
    let (payload_rss, _) = rss_kib()?;
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut count = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let registry = ingest(&frame)?;
        times.push(start.elapsed());
        count = registry.len();
    }
    let (_, peak) = rss_kib()?;
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = times[times.len() / 2];
    let max = times[times.len() - 1];
    println!("registry ingest: synthetic get_states, {entities} entities, {runs} runs");
    println!("{:<34} {:>12}", "metric", "value");
    println!("{:<34} {:>12}", "entities in registry", count);
    println!(
        "{:<34} {:>9.1} MB",
        "payload size",
        frame.len() as f64 / 1_048_576.0
    );
    println!("{:<34} {:>9.1} ms", "ingest time min", ms(times[0]));
    println!("{:<34} {:>9.1} ms", "ingest time median", ms(median));
    println!("{:<34} {:>9.1} ms", "ingest time max", ms(max));
    println!(
        "{:<34} {:>9.1} MB",
        "RSS at start",
        base_rss as f64 / 1024.0
    );
    println!(
        "{:<34} {:>9.1} MB",
        "RSS with payload held",
        payload_rss as f64 / 1024.0
    );
    println!(
        "{:<34} {:>9.1} MB",
        "peak RSS (VmHWM), whole process",
        peak as f64 / 1024.0
    );
    let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
    println!(
        "target: median < 100 ms: {}; peak RSS < 40 MB: {}",
        verdict(ms(median) < 100.0),
        verdict(peak < 40 * 1024)
    );
    Ok(())
}
