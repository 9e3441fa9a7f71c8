//! Reads a Home LLM Leaderboard task set (`assist-mini`, `assist`, `questions`) as upstream
//! writes it: one folder per home with `_fixtures.yaml`, task files, and other files of
//! upstream's own whose names start with `_` (`_home.yaml`: how the home was generated), which
//! are not tasks. Each sentence of each test is one task. A task file may start with comments
//! before its `---`, and its `category` is one name or a list of them.
//!
//! YAML is read with YAML 1.2 rules (`off` is a string); where a file writes a state as a
//! boolean it is mapped to the domain's word, as the home loader does for the fixtures.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// What an entity must look like (state and/or attributes), as a task writes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntityState {
    pub state: Option<String>,
    pub attributes: Map<String, Value>,
}

#[derive(Debug, Clone)]
pub struct Task {
    /// `<home>/<file>#<test>.<sentence>`: stable across runs, for `--only`.
    pub id: String,
    /// The first of the file's categories (the report's grouping).
    pub category: String,
    pub sentence: String,
    pub setup: BTreeMap<String, EntityState>,
    /// `None` or empty: nothing may change. Otherwise the changes that must happen.
    pub expect_changes: Option<BTreeMap<String, EntityState>>,
    pub ignore_changes: BTreeMap<String, BTreeSet<String>>,
    pub expect_response: Vec<String>,
    /// The device (the fixture's device id) the sentence is spoken to, as a voice satellite.
    pub context_device: Option<String>,
    /// The moment the sentence is spoken (`2025-04-02 08:30+10:00`): the home loader moves the
    /// set-up's calendar events so that this moment's day is today.
    pub context_now: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Home {
    pub name: String,
    pub fixture: PathBuf,
    /// The language its names and sentences are in (the fixture's top-level `language`, as
    /// upstream writes it; English when it says none): both agents are asked in it.
    pub language: String,
    /// The home's entity ids, in file order: the entities a diff looks at.
    pub entities: Vec<String>,
    pub tasks: Vec<Task>,
}

#[derive(Debug, Clone)]
pub struct TaskSet {
    pub name: String,
    pub homes: Vec<Home>,
    /// Runs of each sentence upstream makes (`count:` in `dataset_card.yaml`), when it says.
    pub card_count: Option<usize>,
}

impl TaskSet {
    pub fn task_count(&self) -> usize {
        self.homes.iter().map(|h| h.tasks.len()).sum()
    }
}

/// Reads the task set in `dir` (a folder of home folders).
pub fn load(dir: &Path) -> anyhow::Result<TaskSet> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("tasks")
        .to_owned();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the task set {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("_fixtures.yaml").is_file())
        .collect();
    folders.sort();
    if folders.is_empty() {
        bail!("{} holds no home (no <home>/_fixtures.yaml)", dir.display());
    }
    let homes = folders
        .iter()
        .map(|f| load_home(f))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let card = dir.join("dataset_card.yaml");
    let card_count = if card.is_file() {
        match &read_yaml(&card)?["count"] {
            Value::Null => None,
            Value::Number(n) => Some(
                n.as_u64()
                    .filter(|n| (1..=100).contains(n))
                    .with_context(|| format!("{}: count must be 1 to 100", card.display()))?
                    as usize,
            ),
            other => bail!("{}: count must be a number, not {other}", card.display()),
        }
    } else {
        None
    };
    Ok(TaskSet {
        name,
        homes,
        card_count,
    })
}

pub(crate) fn read_yaml(path: &Path) -> anyhow::Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    first_document(&text).with_context(|| format!("{} is not valid YAML", path.display()))
}

/// The file's document: comments before `---` make an empty document first, which is skipped.
fn first_document(text: &str) -> anyhow::Result<Value> {
    let docs = YamlLoader::load_from_str(text)?;
    Ok(docs
        .iter()
        .map(to_json)
        .find(|d| !d.is_null())
        .unwrap_or(Value::Null))
}

fn load_home(folder: &Path) -> anyhow::Result<Home> {
    let name = folder
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    let fixture = folder.join("_fixtures.yaml");
    let fixtures = read_yaml(&fixture)?;
    let entities: Vec<String> = fixtures["entities"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| e["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if entities.is_empty() {
        bail!("{} lists no entities", fixture.display());
    }
    let language = match &fixtures["language"] {
        Value::Null => "en".to_owned(),
        Value::String(tag) if !tag.trim().is_empty() => tag.trim().to_owned(),
        other => bail!(
            "{}: language must be a tag like \"de\", not {other}",
            fixture.display()
        ),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "yaml")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('_'))
        })
        .collect();
    files.sort();
    let mut tasks = Vec::new();
    for file in files {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let doc = read_yaml(&file)?;
        let prefix = format!("{name}/{stem}");
        tasks.extend(
            parse_tasks(&prefix, &doc, &entities)
                .with_context(|| format!("in {}", file.display()))?,
        );
    }
    Ok(Home {
        name,
        fixture: std::fs::canonicalize(&fixture)?,
        language,
        entities,
        tasks,
    })
}

/// The tasks of one task file. Every entity a task names must be one of the home's.
pub fn parse_tasks(prefix: &str, doc: &Value, entities: &[String]) -> anyhow::Result<Vec<Task>> {
    let category = match &doc["category"] {
        Value::String(c) => Some(c.clone()),
        Value::Array(list) => list.iter().find_map(|c| c.as_str().map(str::to_owned)),
        _ => None,
    }
    .filter(|c| !c.is_empty())
    .context("a task file needs a category (a name or a list of names)")?;
    let tests = doc["tests"].as_array().context("a task file needs tests")?;
    let mut tasks = Vec::new();
    for (t, test) in tests.iter().enumerate() {
        let setup = entity_states(&test["setup"], entities).context("setup")?;
        let expect_changes = match &test["expect_changes"] {
            Value::Null => None,
            v => Some(entity_states(v, entities).context("expect_changes")?),
        };
        let ignore_changes = ignore(&test["ignore_changes"]);
        // Words the reply must contain; upstream writes numbers bare (`- 30`), which count as
        // their text.
        let word = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let expect_response: Vec<String> = match &test["expect_response"] {
            Value::Array(list) => list.iter().filter_map(word).collect(),
            single => word(single).into_iter().collect(),
        };
        let context_device = match &test["context_device"] {
            Value::Null => None,
            Value::String(d) if !d.is_empty() => Some(d.clone()),
            other => bail!("context_device must be a device id, not {other}"),
        };
        let context_now = match &test["context_now"] {
            Value::Null => None,
            Value::String(t) if !t.trim().is_empty() => Some(t.trim().to_owned()),
            other => bail!("context_now must be a date and time, not {other}"),
        };
        let sentences = test["sentences"]
            .as_array()
            .context("a test needs sentences")?;
        for (s, sentence) in sentences.iter().enumerate() {
            tasks.push(Task {
                id: format!("{prefix}#{t}.{s}"),
                category: category.clone(),
                sentence: sentence
                    .as_str()
                    .context("a sentence is a string")?
                    .to_owned(),
                setup: setup.clone(),
                expect_changes: expect_changes.clone(),
                ignore_changes: ignore_changes.clone(),
                expect_response: expect_response.clone(),
                context_device: context_device.clone(),
                context_now: context_now.clone(),
            });
        }
    }
    Ok(tasks)
}

fn entity_states(
    value: &Value,
    entities: &[String],
) -> anyhow::Result<BTreeMap<String, EntityState>> {
    let Some(map) = value.as_object() else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for (entity_id, spec) in map {
        if !entities.iter().any(|e| e == entity_id) {
            bail!("{entity_id} is not an entity of this home");
        }
        let domain = entity_id.split('.').next().unwrap_or_default();
        out.insert(
            entity_id.clone(),
            EntityState {
                state: state_word(domain, &spec["state"]),
                attributes: spec["attributes"].as_object().cloned().unwrap_or_default(),
            },
        );
    }
    Ok(out)
}

/// A state as the domain writes it: booleans become on/off (open/closed for covers and valves).
pub fn state_word(domain: &str, value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Bool(b) => Some(
            match (domain, b) {
                ("cover" | "valve", true) => "open",
                ("cover" | "valve", false) => "closed",
                (_, true) => "on",
                (_, false) => "off",
            }
            .to_owned(),
        ),
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// `ignore_changes` lists attribute names per entity (some files write a mapping: its keys).
fn ignore(value: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let Some(map) = value.as_object() else {
        return BTreeMap::new();
    };
    map.iter()
        .map(|(entity, names)| {
            let names: BTreeSet<String> = match names {
                Value::Array(list) => list
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                Value::Object(m) => m.keys().cloned().collect(),
                Value::String(s) => BTreeSet::from([s.clone()]),
                _ => BTreeSet::new(),
            };
            (entity.clone(), names)
        })
        .collect()
}

fn to_json(yaml: &Yaml) -> Value {
    match yaml {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(s.clone()), Value::Number),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(list) => Value::Array(list.iter().map(to_json).collect()),
        Yaml::Hash(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) | Yaml::Real(s) => s.clone(),
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Boolean(b) => b.to_string(),
                        _ => String::new(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(text: &str) -> Value {
        to_json(&YamlLoader::load_from_str(text).unwrap()[0])
    }

    #[test]
    fn every_sentence_is_a_task_with_its_tests_setup_and_expectations() {
        let doc = yaml(
            "category: lock\ntests:\n  - sentences: [Lock it, Lock the door]\n    context_device: hall_satellite\n    setup:\n      lock.door: {state: unlocked}\n    expect_changes:\n      lock.door: {state: locked}\n  - sentences: [Unlock it]\n    expect_changes: {}\n    ignore_changes:\n      lock.door: {brightness: 1}\n",
        );
        let tasks = parse_tasks("h/lock", &doc, &["lock.door".into()]).unwrap();
        assert_eq!(tasks.len(), 3);
        assert_eq!(tasks[1].id, "h/lock#0.1");
        assert_eq!(tasks[1].sentence, "Lock the door");
        assert_eq!(
            tasks[0].setup["lock.door"].state.as_deref(),
            Some("unlocked")
        );
        let expect = tasks[0].expect_changes.as_ref().unwrap();
        assert_eq!(expect["lock.door"].state.as_deref(), Some("locked"));
        assert_eq!(tasks[2].expect_changes, Some(BTreeMap::new()));
        assert!(tasks[2].ignore_changes["lock.door"].contains("brightness"));
        assert_eq!(tasks[1].context_device.as_deref(), Some("hall_satellite"));
        assert_eq!(tasks[2].context_device, None);
    }

    #[test]
    fn upstream_forms_read_as_written_comments_category_lists_and_context_now() {
        let doc = first_document(
            "# thought: what this file exercises\n---\ncategory:\n  - calendar\n  - question\ntests:\n  - sentences: [What classes do I have today?]\n    context_now: 2025-04-02 08:30+10:00\n    setup:\n      calendar.personal:\n        attributes:\n          events:\n            - summary: Chemistry class\n              start: 2025-04-02 11:00+10:00\n    expect_response: [chemistry]\n",
        )
        .unwrap();
        let tasks = parse_tasks("h/calendar", &doc, &["calendar.personal".into()]).unwrap();
        assert_eq!(tasks.len(), 1);
        assert_eq!(tasks[0].category, "calendar");
        assert_eq!(
            tasks[0].context_now.as_deref(),
            Some("2025-04-02 08:30+10:00")
        );
        assert_eq!(tasks[0].expect_response, vec!["chemistry".to_owned()]);
        let numbers = first_document(
            "category: weather\ntests:\n  - sentences: [How warm is it?]\n    expect_response:\n      - 30\n      - thirty\n",
        )
        .unwrap();
        let weather = parse_tasks("h/weather", &numbers, &[]).unwrap();
        assert_eq!(weather[0].expect_response, ["30", "thirty"]);
        assert_eq!(tasks[0].expect_changes, None);
        let events = &tasks[0].setup["calendar.personal"].attributes["events"];
        assert_eq!(events[0]["summary"], "Chemistry class");
        let none = first_document("category: []\ntests: []\n").unwrap();
        let err = parse_tasks("h/x", &none, &[]).unwrap_err().to_string();
        assert!(err.contains("category"), "{err}");
    }

    #[test]
    fn files_of_upstream_s_own_beside_the_tasks_are_not_tasks() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home-a");
        std::fs::create_dir(&home).unwrap();
        let write = |name: &str, text: &str| std::fs::write(home.join(name), text).unwrap();
        write(
            "_fixtures.yaml",
            "areas: []\ndevices: []\nentities:\n  - name: Lamp\n    id: light.lamp\n",
        );
        write("_home.yaml", "# thought: generated\n---\nname: A home\n");
        write(
            "light.yaml",
            "category: light\ntests:\n  - sentences: [Lamp on]\n    expect_changes:\n      light.lamp: {state: 'on'}\n",
        );
        let set = load(dir.path()).unwrap();
        assert_eq!(set.task_count(), 1);
        assert_eq!(set.card_count, None);
        std::fs::write(
            dir.path().join("dataset_card.yaml"),
            "---\nname: x\ncount: 4\n",
        )
        .unwrap();
        assert_eq!(load(dir.path()).unwrap().card_count, Some(4));
        assert_eq!(set.homes[0].tasks[0].id, "home-a/light#0.0");
        assert_eq!(set.homes[0].language, "en");
        write(
            "_fixtures.yaml",
            "language: de\nareas: []\ndevices: []\nentities:\n  - name: Lampe\n    id: light.lampe\n",
        );
        write(
            "light.yaml",
            "category: light\ntests:\n  - sentences: [Lampe an]\n    expect_changes:\n      light.lampe: {state: 'on'}\n",
        );
        assert_eq!(load(dir.path()).unwrap().homes[0].language, "de");
    }

    /// The public task sets, where they are beside the repository (`../shared` here; a fresh
    /// clone has them only when the user fetched them: then this says so and checks nothing).
    #[test]
    fn every_task_file_of_the_public_task_sets_reads_without_error() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/benchmarks/home-assistant-datasets/datasets");
        if !root.is_dir() {
            eprintln!("public task sets not found at {}: not read", root.display());
            return;
        }
        let mut counts = BTreeMap::new();
        for name in ["assist-mini", "assist", "questions"] {
            let set = load(&root.join(name)).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            counts.insert(name, set.task_count());
        }
        assert!(counts.values().all(|n| *n > 0), "{counts:?}");
        assert!(counts["questions"] >= 37, "{counts:?}");
    }

    #[test]
    fn a_task_naming_an_entity_outside_its_home_is_an_error() {
        let doc = yaml(
            "category: light\ntests:\n  - sentences: [x]\n    expect_changes:\n      light.nowhere: {state: 'on'}\n",
        );
        let err = parse_tasks("h/l", &doc, &["light.kitchen".into()]).unwrap_err();
        assert!(format!("{err:#}").contains("light.nowhere"), "{err:#}");
    }

    #[test]
    fn yaml_values_keep_their_types_and_booleans_become_state_words() {
        let v = yaml("a: 0.5\nb: 2\nc: null\nd: [1, x]\n");
        assert_eq!(v, json!({"a": 0.5, "b": 2, "c": null, "d": [1, "x"]}));
        assert_eq!(state_word("light", &json!(false)).as_deref(), Some("off"));
        assert_eq!(
            state_word("cover", &json!(false)).as_deref(),
            Some("closed")
        );
        assert_eq!(state_word("sensor", &json!(90)).as_deref(), Some("90"));
    }
}
