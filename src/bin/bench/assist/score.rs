//! The upstream scoring rule, as pure functions (the task sets' `SOURCE.md`):
//! - a snapshot of every home entity (state and attributes, flattened) is taken after the set-up
//!   and again once states have settled after the sentence;
//! - the expected snapshot is the first one with `expect_changes` laid over it; every key that
//!   differs from the second one, and every key the second one has that the expected one lacks,
//!   is a difference, except `ignore_changes` and the attributes derived from a cover's or a
//!   valve's state (`is_closed`, `is_opening`, `is_closing`);
//! - a task that expects changes passes iff there is no difference and the reply does not say
//!   "Sorry"; a task that expects none passes iff nothing changed; where `expect_response` is
//!   given, the reply must also contain one of its words.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use super::dataset::Task;

/// An entity's state and attributes in one map (`state` under its own key).
pub type Flat = Map<String, Value>;
pub type Snapshot = BTreeMap<String, Flat>;

const DERIVED: [&str; 3] = ["is_closed", "is_opening", "is_closing"];

#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub entity: String,
    pub key: String,
    pub expected: Option<Value>,
    pub got: Option<Value>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".to_owned(), Value::to_string);
        write!(
            f,
            "{} {}: expected {}, got {}",
            self.entity,
            self.key,
            show(&self.expected),
            show(&self.got)
        )
    }
}

/// Flattens a Home Assistant state object (`{"state", "attributes"}`) the way the rule sees it.
pub fn flatten(state_object: &Value) -> Flat {
    let mut flat = state_object["attributes"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    flat.insert("state".into(), state_object["state"].clone());
    flat
}

/// Python's `str()` of a value, which the upstream comparison falls back to.
fn py_str(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        Value::Array(list) => format!(
            "[{}]",
            list.iter().map(py_str).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(_) => v.to_string(),
    }
}

/// Upstream's equivalence: equal values, equal numbers, or equal `str()` forms; lists compare
/// element by element; an absent key equals null.
pub fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    let a = a.unwrap_or(&Value::Null);
    let b = b.unwrap_or(&Value::Null);
    if a == b {
        return true;
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(Some(p), Some(q)))
        }
        _ => py_str(a) == py_str(b),
    }
}

/// Every difference between what the task expects and what happened.
pub fn differences(task: &Task, before: &Snapshot, after: &Snapshot) -> Vec<Difference> {
    let mut out = Vec::new();
    for (entity, old) in before {
        let mut expected = old.clone();
        if let Some(change) = task.expect_changes.as_ref().and_then(|c| c.get(entity)) {
            if let Some(state) = &change.state {
                expected.insert("state".into(), Value::String(state.clone()));
            }
            for (k, v) in &change.attributes {
                expected.insert(k.clone(), v.clone());
            }
        }
        let empty = Flat::new();
        let new = after.get(entity).unwrap_or(&empty);
        let ignored = |k: &str| {
            DERIVED.contains(&k)
                || task
                    .ignore_changes
                    .get(entity)
                    .is_some_and(|names| names.contains(k))
        };
        for (k, v) in &expected {
            if !ignored(k) && !same(Some(v), new.get(k)) {
                out.push(Difference {
                    entity: entity.clone(),
                    key: k.clone(),
                    expected: Some(v.clone()),
                    got: new.get(k).cloned(),
                });
            }
        }
        for (k, v) in new {
            if !ignored(k) && !expected.contains_key(k) {
                out.push(Difference {
                    entity: entity.clone(),
                    key: k.clone(),
                    expected: None,
                    got: Some(v.clone()),
                });
            }
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    /// Why it failed, for the report (empty when it passed).
    pub reason: String,
}

pub fn judge(task: &Task, diffs: &[Difference], reply: &str) -> Verdict {
    let expects_changes = task.expect_changes.as_ref().is_some_and(|c| !c.is_empty());
    let mut reasons: Vec<String> = diffs.iter().map(ToString::to_string).collect();
    if expects_changes && reply.contains("Sorry") {
        reasons.push("the reply apologises".into());
    }
    if !task.expect_response.is_empty() {
        let lower = reply.to_lowercase();
        if !task
            .expect_response
            .iter()
            .any(|w| lower.contains(&w.to_lowercase()))
        {
            reasons.push(format!(
                "the reply contains none of {:?}",
                task.expect_response
            ));
        }
    }
    Verdict {
        pass: reasons.is_empty(),
        reason: reasons.join("; "),
    }
}

/// Wilson score interval (95%) for `k` successes out of `n`, in percent.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.959_964_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / denom;
    (
        100.0 * (centre - half).max(0.0),
        100.0 * (centre + half).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::super::dataset::EntityState;
    use super::*;
    use serde_json::json;
    use std::collections::BTreeSet;

    fn task(expect: Option<Vec<(&str, &str, Value)>>, ignore: &[(&str, &str)]) -> Task {
        Task {
            id: "h/t#0.0".into(),
            category: "light".into(),
            sentence: "turn on the kitchen light".into(),
            setup: BTreeMap::new(),
            expect_changes: expect.map(|list| {
                list.into_iter()
                    .map(|(e, s, attrs)| {
                        (
                            e.to_owned(),
                            EntityState {
                                state: Some(s.to_owned()),
                                attributes: attrs.as_object().cloned().unwrap_or_default(),
                            },
                        )
                    })
                    .collect()
            }),
            ignore_changes: ignore
                .iter()
                .map(|(e, k)| (e.to_string(), BTreeSet::from([k.to_string()])))
                .collect(),
            expect_response: vec![],
            context_device: None,
            context_now: None,
        }
    }

    fn snap(entries: &[(&str, Value)]) -> Snapshot {
        entries
            .iter()
            .map(|(e, v)| (e.to_string(), flatten(v)))
            .collect()
    }

    #[test]
    fn the_expected_change_and_nothing_else_passes() {
        let t = task(
            Some(vec![(
                "light.k",
                "on",
                json!({"brightness": 0, "color_mode": "brightness"}),
            )]),
            &[],
        );
        let before = snap(&[
            (
                "light.k",
                json!({"state": "off", "attributes": {"brightness": null, "color_mode": null}}),
            ),
            ("light.d", json!({"state": "off", "attributes": {}})),
        ]);
        let after = snap(&[
            (
                "light.k",
                json!({"state": "on", "attributes": {"brightness": 0, "color_mode": "brightness"}}),
            ),
            ("light.d", json!({"state": "off", "attributes": {}})),
        ]);
        let diffs = differences(&t, &before, &after);
        assert_eq!(diffs, vec![]);
        assert!(judge(&t, &diffs, "Turned on the light").pass);
        assert!(!judge(&t, &diffs, "Sorry, I could not").pass);
    }

    #[test]
    fn the_wrong_entity_changing_fails_naming_both_entities() {
        let t = task(Some(vec![("light.k", "on", json!({}))]), &[]);
        let before = snap(&[
            ("light.k", json!({"state": "off", "attributes": {}})),
            ("light.d", json!({"state": "off", "attributes": {}})),
        ]);
        let after = snap(&[
            ("light.k", json!({"state": "off", "attributes": {}})),
            ("light.d", json!({"state": "on", "attributes": {}})),
        ]);
        let verdict = judge(&t, &differences(&t, &before, &after), "Done");
        assert!(!verdict.pass);
        assert!(
            verdict
                .reason
                .contains("light.k state: expected \"on\", got \"off\""),
            "{}",
            verdict.reason
        );
        assert!(
            verdict.reason.contains("light.d state"),
            "{}",
            verdict.reason
        );
    }

    #[test]
    fn new_attributes_count_unless_ignored_or_derived() {
        let t = task(
            Some(vec![("cover.g", "open", json!({}))]),
            &[("cover.g", "current_position")],
        );
        let before = snap(&[(
            "cover.g",
            json!({"state": "closed", "attributes": {"is_closed": true}}),
        )]);
        let after = snap(&[(
            "cover.g",
            json!({"state": "open", "attributes": {"is_closed": false, "current_position": 100}}),
        )]);
        assert_eq!(differences(&t, &before, &after), vec![]);
        let strict = task(Some(vec![("cover.g", "open", json!({}))]), &[]);
        let diffs = differences(&strict, &before, &after);
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].key, "current_position");
    }

    #[test]
    fn a_task_without_changes_passes_only_when_nothing_changed() {
        let t = task(None, &[]);
        let before = snap(&[("lock.a", json!({"state": "locked", "attributes": {}}))]);
        let changed = snap(&[("lock.a", json!({"state": "unlocked", "attributes": {}}))]);
        assert!(judge(&t, &differences(&t, &before, &before), "Sorry, which one?").pass);
        assert!(!judge(&t, &differences(&t, &before, &changed), "ok").pass);
    }

    #[test]
    fn numbers_and_their_text_compare_like_upstream() {
        assert!(same(Some(&json!(0.0)), Some(&json!(0))));
        assert!(same(Some(&json!("1")), Some(&json!(1))));
        assert!(same(Some(&json!(0.5)), Some(&json!("0.5"))));
        assert!(same(None, Some(&Value::Null)));
        assert!(!same(Some(&json!(128)), Some(&json!(127))));
        assert!(same(Some(&json!([0, 0, 0])), Some(&json!([0.0, 0, 0]))));
    }

    #[test]
    fn wilson_interval() {
        let (lo, hi) = wilson(31, 49);
        assert!(
            (lo - 49.3).abs() < 0.5 && (hi - 75.1).abs() < 0.5,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }
}
