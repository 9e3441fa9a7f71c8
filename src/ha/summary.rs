//! The human-readable summary `homeclaw check` prints: a pure function of the registry.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::registry::Registry;

pub fn render(registry: &Registry, url: &str) -> String {
    let mut out = String::new();
    let domains = registry.domains();
    let services = registry.services();
    let location = registry
        .location_name()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    let total = registry.all_entity_count();
    let visible = registry.len();
    let _ = writeln!(
        out,
        "Home Assistant {} at {url}{location}",
        registry.ha_version()
    );
    let _ = writeln!(
        out,
        "Entities: {visible} visible to HomeClaw, {} hidden by exposure settings ({total} in all)",
        total - visible
    );
    let areas: Vec<String> = registry
        .areas()
        .map(|a| {
            let n = registry
                .entities()
                .filter(|e| e.area_id.as_deref() == Some(a.area_id.as_str()))
                .count();
            format!("{} ({n})", a.name)
        })
        .collect();
    let _ = writeln!(
        out,
        "Areas: {}: {}",
        areas.len(),
        if areas.is_empty() {
            "none".to_owned()
        } else {
            areas.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "Services: {} in {} domains",
        registry.service_count(),
        services.len()
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "{:<24} {:>8} {:>8}", "DOMAIN", "ENTITIES", "SERVICES");
    let names: BTreeSet<&String> = domains.keys().chain(services.keys()).collect();
    for name in names {
        let _ = writeln!(
            out,
            "{:<24} {:>8} {:>8}",
            name,
            domains.get(name).copied().unwrap_or(0),
            services.get(name).map_or(0, |s| s.len())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExposureConfig;
    use crate::ha::exposure::ExposurePolicy;
    use crate::ha::registry::{Area, Snapshot, StateObject};

    #[test]
    fn table_lists_versions_counts_areas_and_domains() {
        let snapshot = Snapshot {
            ha_version: "2025.4.4".into(),
            location_name: Some("Test Home".into()),
            time_zone: None,
            states: vec![StateObject {
                entity_id: "light.a".into(),
                state: "on".into(),
                attributes: Default::default(),
                last_changed: String::new(),
                last_updated: String::new(),
            }],
            areas: vec![Area {
                area_id: "kitchen".into(),
                name: "Kitchen".into(),
                aliases: vec![],
                floor_id: None,
            }],
            services: serde_json::from_str(r#"{"light": {"turn_on": {}, "turn_off": {}}}"#)
                .unwrap(),
            ..Default::default()
        };
        let registry = Registry::from_snapshot(
            snapshot,
            ExposurePolicy::new(ExposureConfig::default()),
            None,
        );
        let text = render(&registry, "ws://h/api/websocket");
        assert!(text.starts_with("Home Assistant 2025.4.4 at ws://h/api/websocket (Test Home)\n"));
        assert!(text.contains("Entities: 1 visible to HomeClaw, 0 hidden"));
        assert!(text.contains("Areas: 1: Kitchen (0)"));
        assert!(text.contains("Services: 2 in 1 domains"));
        assert!(text.contains(&format!("{:<24} {:>8} {:>8}", "light", 1, 2)));
    }
}
