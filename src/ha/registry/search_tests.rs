//! The registry's ranked search and its word index, kept in step through every kind of change.

use super::tests::{home, top};
use super::*;
use crate::ha::search::Query;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn search_ranks_by_name_area_and_domain_words() {
    let r = home();
    let got: Vec<String> = r
        .search("kitchen light", None, None, 3)
        .into_iter()
        .map(|c| c.entity_id)
        .collect();
    assert_eq!(got[0], "light.kitchen_lights");
    assert!(got.contains(&"cover.kitchen_window".to_string()));

    let in_kitchen = r.search("", None, Some("kuchnia"), 10);
    assert_eq!(in_kitchen.len(), 1);
    assert_eq!(in_kitchen[0].entity_id, "light.kitchen_lights");
    assert!(r.search("", None, Some("attic"), 10).is_empty());

    let lights = r.search("lamp", Some("light"), None, 10);
    assert_eq!(lights.len(), 2);
    assert!(r.search("front door", Some("light"), None, 10).is_empty());
}

#[test]
fn a_new_friendly_name_is_found_by_search() {
    let mut r = home();
    let renamed = json!({"entity_id": "light.bed_light",
        "new_state": {"entity_id": "light.bed_light", "state": "off",
          "attributes": {"friendly_name": "Reading Lamp"}, "last_updated": "2026-01-01T00:00:09",
          "last_changed": "2026-01-01T00:00:01"}});
    assert!(r.names_word("bed"));
    r.apply_state_changed(&renamed);
    assert_eq!(r.get("light.bed_light").unwrap().name, "Reading Lamp");
    assert!(r.names_word("reading") && !r.names_word("bed"));
    assert_eq!(top(&r, "reading lamp").as_deref(), Some("light.bed_light"));
}

#[test]
fn searches_follow_every_change() {
    let mut r = home();
    // The index's ranked answers, against the rule run over every visible entity as it is.
    let check = |r: &Registry, step: &str| {
        for text in [
            "kitchen light",
            "lamp",
            "front door hall",
            "bed",
            "window kitchen",
        ] {
            let query = Query::new(text);
            let mut scanned: Vec<(String, u64)> = r
                .entities()
                .map(|e| (e.entity_id.clone(), e.haystack.score(&query)))
                .filter(|(_, s)| *s > 0.0)
                .map(|(id, s)| (id, s.to_bits()))
                .collect();
            scanned.sort();
            let mut found: Vec<(String, u64)> = r
                .search(text, None, None, usize::MAX)
                .into_iter()
                .map(|c| (c.entity_id, c.score.to_bits()))
                .collect();
            found.sort();
            assert_eq!(found, scanned, "{text} after {step}");
        }
    };
    check(&r, "the snapshot");
    // Renamed many times over: each rename leaves its words behind in the index's text, which
    // is built again once most of it is left behind.
    for i in 0..400 {
        r.apply_state_changed(&json!({"entity_id": "light.bed_light",
            "new_state": {"entity_id": "light.bed_light", "state": "on",
              "attributes": {"friendly_name": format!("Reading lamp number {i} by the bed")},
              "last_updated": format!("2026-01-02T00:{:02}:{:02}", i / 60, i % 60)}}));
    }
    check(&r, "renames");
    r.apply_state_changed(&json!({"entity_id": "light.hall_lamp",
        "new_state": {"entity_id": "light.hall_lamp", "state": "on",
          "attributes": {"friendly_name": "Hall Lamp"}, "last_updated": "z"}}));
    check(&r, "a new entity");
    r.set_entity_entry(
        "light.kitchen_lights",
        Some(EntityRegistryEntry {
            entity_id: "light.kitchen_lights".into(),
            area_id: Some("hall".into()),
            ..Default::default()
        }),
    );
    check(&r, "a move");
    r.set_entity_entry(
        "cover.kitchen_window",
        Some(EntityRegistryEntry {
            entity_id: "cover.kitchen_window".into(),
            disabled_by: Some("user".into()),
            ..Default::default()
        }),
    );
    check(&r, "a disabled entity");
    r.apply_state_changed(&json!({"entity_id": "light.hall_lamp", "new_state": null}));
    check(&r, "a removal");
    r.set_areas(Vec::new());
    check(&r, "the areas gone");
}
