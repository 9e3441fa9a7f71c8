//! Home Assistant's intent tests (`home-assistant/intents`, folder `tests/`) read as a
//! benchmark: a language's `_fixtures.yaml` becomes a home the project's loader
//! (`fixture_home`) builds in a real Home Assistant, and each sentence of each test block a
//! case whose intent and slots say what must follow.
//!
//! The fixtures describe what HA's recogniser needs (names, areas, device classes), not a
//! working home: an entity of a domain the loader does not model is left out (and every
//! case that needs it counted apart), and each kept entity gets the features its intents
//! need (a cover that can be set to a position, a player that can pause), as a real device of
//! that kind has them.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde_json::{Map, Value, json};

use crate::assist::dataset::read_yaml;

#[derive(Debug, Clone)]
pub struct Area {
    pub id: String,
    pub name: String,
    /// The other forms its fixture's template writes ("Kuchy(ň|ni|ně)": Kuchyni, Kuchyně).
    pub aliases: Vec<String>,
    /// The floor's name (the loader creates floors by name).
    pub floor: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Entity {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    /// The area's id.
    pub area: Option<String>,
    pub device_class: Option<String>,
    pub state: Option<String>,
}

impl Entity {
    pub fn domain(&self) -> &str {
        self.id.split('.').next().unwrap_or_default()
    }
}

/// One language's test home.
#[derive(Debug, Clone)]
pub struct Home {
    pub language: String,
    pub areas: Vec<Area>,
    pub entities: Vec<Entity>,
    /// Entities of the fixtures the loader cannot build (their ids).
    pub left_out: Vec<String>,
}

impl Home {
    pub fn area_named(&self, name: &str) -> Option<&Area> {
        self.areas
            .iter()
            .find(|a| same(&a.name, name) || a.aliases.iter().any(|x| same(x, name)))
    }

    /// The device a sentence said in `area` is spoken to (one satellite per area).
    pub fn satellite(area_id: &str) -> String {
        format!("satellite_{area_id}")
    }

    /// The home in the loader's format (`scripts/ha/custom_components/fixture_home`), with a
    /// voice satellite in every area.
    pub fn fixture(&self) -> Value {
        let areas: Vec<Value> = self
            .areas
            .iter()
            .map(|a| json!({"id": a.id, "name": a.name, "floor": a.floor, "aliases": a.aliases}))
            .collect();
        let devices: Vec<Value> = self
            .areas
            .iter()
            .map(|a| {
                json!({"id": Self::satellite(&a.id), "name": format!("Satellite {}", a.name),
                       "area": a.id})
            })
            .collect();
        let entities: Vec<Value> = self.entities.iter().map(fixture_entity).collect();
        json!({"language": self.language, "areas": areas, "devices": devices,
               "entities": entities})
    }
}

/// Names compare as Home Assistant's matcher compares them: case and outer spaces aside.
pub fn same(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// What each kept domain can do, as a real device of its kind does (enum names the loader
/// resolves in Home Assistant itself).
fn features(domain: &str) -> Value {
    let names: &[&str] = match domain {
        "cover" => &["OPEN", "CLOSE", "SET_POSITION", "STOP"],
        "valve" => &["OPEN", "CLOSE", "SET_POSITION", "STOP"],
        "media_player" => &[
            "PAUSE",
            "PLAY",
            "NEXT_TRACK",
            "PREVIOUS_TRACK",
            "VOLUME_SET",
            "VOLUME_STEP",
            "TURN_ON",
            "TURN_OFF",
            "STOP",
        ],
        "vacuum" => &["START", "RETURN_HOME", "STATE", "PAUSE", "STOP"],
        "climate" => &["TARGET_TEMPERATURE", "TURN_ON", "TURN_OFF"],
        "fan" => &["SET_SPEED", "TURN_ON", "TURN_OFF"],
        "todo" => &["CREATE_TODO_ITEM", "UPDATE_TODO_ITEM", "DELETE_TODO_ITEM"],
        _ => &[],
    };
    let class = match domain {
        "cover" => "cover.CoverEntityFeature",
        "valve" => "valve.ValveEntityFeature",
        "media_player" => "media_player.MediaPlayerEntityFeature",
        "vacuum" => "vacuum.VacuumEntityFeature",
        "climate" => "climate.ClimateEntityFeature",
        "fan" => "fan.FanEntityFeature",
        _ => "todo.TodoListEntityFeature",
    };
    Value::Array(
        names
            .iter()
            .map(|n| Value::String(format!("{class}.{n}")))
            .collect(),
    )
}

/// The states the loader takes per domain (`None`: any; empty: the domain's own).
fn states(domain: &str) -> Option<&'static [&'static str]> {
    Some(match domain {
        "light" | "switch" | "fan" | "binary_sensor" | "input_boolean" => &["on", "off"],
        "cover" | "valve" => &["open", "closed", "opening", "closing"],
        "lock" => &[
            "locked",
            "unlocked",
            "jammed",
            "open",
            "opening",
            "locking",
            "unlocking",
        ],
        "vacuum" => &["cleaning", "docked", "idle", "paused", "returning", "error"],
        "media_player" => &[
            "off",
            "on",
            "idle",
            "playing",
            "paused",
            "standby",
            "buffering",
        ],
        "climate" => &[
            "off",
            "heat",
            "cool",
            "heat_cool",
            "auto",
            "dry",
            "fan_only",
        ],
        "script" => &["off"],
        "sensor" => return None,
        _ => &[],
    })
}

/// The domains the loader builds.
const KEPT: [&str; 16] = [
    "light",
    "switch",
    "fan",
    "binary_sensor",
    "cover",
    "valve",
    "lock",
    "vacuum",
    "media_player",
    "climate",
    "todo",
    "scene",
    "script",
    "input_boolean",
    "sensor",
    "weather",
];

fn fixture_entity(e: &Entity) -> Value {
    let domain = e.domain();
    let mut attributes = Map::new();
    if let Some(class) = &e.device_class
        && matches!(
            domain,
            "switch" | "binary_sensor" | "cover" | "valve" | "media_player" | "sensor"
        )
    {
        attributes.insert("device_class".into(), json!(class));
    }
    let features = features(domain);
    if features.as_array().is_some_and(|f| !f.is_empty()) {
        attributes.insert("supported_features".into(), features);
    }
    match domain {
        "light" => {
            attributes.insert("supported_color_modes".into(), json!(["hs", "color_temp"]));
            attributes.insert("color_mode".into(), json!("hs"));
        }
        "climate" => {
            attributes.insert("hvac_modes".into(), json!(["off", "heat", "cool", "auto"]));
            attributes.insert("target_temperature".into(), json!(20));
            attributes.insert("current_temperature".into(), json!(20));
        }
        "valve" => {
            attributes.insert("reports_position".into(), json!(true));
        }
        _ => {}
    }
    let state = e.state.as_deref().filter(|s| match states(domain) {
        None => true,
        Some(allowed) => allowed.contains(s),
    });
    json!({"id": e.id, "name": e.name, "aliases": e.aliases, "area": e.area, "state": state,
           "attributes": attributes})
}

/// Every form a fixture's name template writes (`(Lamp(a|y)|světlo) v ložnici`, `obývák[u]`:
/// alternatives and optional parts, as HA's test harness expands them), the shortest-first
/// form as the name and the others as aliases; at most 64 forms.
pub fn forms(template: &str) -> (String, Vec<String>) {
    let chars: Vec<char> = template.chars().collect();
    let mut at = 0;
    let mut all: Vec<String> = Vec::new();
    for form in alternatives(&chars, &mut at) {
        let form = form.split_whitespace().collect::<Vec<_>>().join(" ");
        if !form.is_empty() && !all.contains(&form) {
            all.push(form);
        }
    }
    let mut all = all.into_iter();
    let name = all.next().unwrap_or_else(|| template.trim().to_owned());
    (name, all.collect())
}

const MAX_FORMS: usize = 64;

/// `a|b|c` up to the closing bracket (or the end).
fn alternatives(chars: &[char], at: &mut usize) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        out.extend(sequence(chars, at));
        match chars.get(*at) {
            Some('|') => *at += 1,
            _ => break,
        }
    }
    out.truncate(MAX_FORMS);
    out
}

fn sequence(chars: &[char], at: &mut usize) -> Vec<String> {
    let mut forms = vec![String::new()];
    while let Some(&c) = chars.get(*at) {
        let next: Vec<String> = match c {
            '|' | ')' | ']' => break,
            '(' | '[' => {
                *at += 1;
                let mut inner = alternatives(chars, at);
                *at += 1;
                if c == '[' {
                    inner.insert(0, String::new());
                }
                inner
            }
            other => {
                *at += 1;
                vec![other.to_string()]
            }
        };
        forms = forms
            .iter()
            .flat_map(|f| next.iter().map(move |n| format!("{f}{n}")))
            .take(MAX_FORMS)
            .collect();
    }
    forms
}

/// The id Home Assistant gives an entity whose fixture id it does not take ("light.yatakodası_lamba"
/// becomes "light.yatakodasi_lamba": letters as its slugify writes them, anything else `_`;
/// "sensor.price_per_kW" becomes "sensor.price_per_kw", and the loader, looking for the id the
/// file gave, stopped there: every entity after it kept no room and no Assist exposure).
pub(super) fn home_assistants_id(id: &str) -> String {
    const LETTERS: [(char, &str); 24] = [
        ('ı', "i"),
        ('ş', "s"),
        ('ğ', "g"),
        ('ç', "c"),
        ('ö', "o"),
        ('ø', "o"),
        ('ü', "u"),
        ('ä', "a"),
        ('å', "a"),
        ('æ', "ae"),
        ('é', "e"),
        ('è', "e"),
        ('ê', "e"),
        ('á', "a"),
        ('à', "a"),
        ('í', "i"),
        ('ó', "o"),
        ('ú', "u"),
        ('ñ', "n"),
        ('ł', "l"),
        ('ż', "z"),
        ('ś', "s"),
        ('ć', "c"),
        ('ß', "ss"),
    ];
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c.to_ascii_lowercase().to_string()
            } else {
                LETTERS
                    .iter()
                    .find(|(l, _)| *l == c)
                    .map_or_else(|| "_".to_owned(), |(_, s)| (*s).to_owned())
            }
        })
        .collect()
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "on" } else { "off" }.to_owned()),
        _ => None,
    }
}

/// Reads `dir/_fixtures.yaml`.
pub fn home(dir: &Path) -> anyhow::Result<Home> {
    let doc = read_yaml(&dir.join("_fixtures.yaml"))?;
    let language = doc["language"]
        .as_str()
        .context("_fixtures.yaml names no language")?
        .to_owned();
    let floors: BTreeMap<String, String> = doc["floors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| Some((text(&f["id"])?, forms(&text(&f["name"])?).0)))
        .collect();
    // Some fixtures define an id twice (Home Assistant's test harness reads them as lists):
    // the first definition is the one kept.
    let mut seen = std::collections::BTreeSet::new();
    let areas = doc["areas"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| text(&a["id"]).is_some_and(|id| seen.insert(id)))
        .filter_map(|a| {
            let floor = text(&a["floor"]).map(|f| floors.get(&f).cloned().unwrap_or(f));
            let (name, aliases) = forms(&text(&a["name"])?);
            Some(Area {
                id: text(&a["id"])?,
                name,
                aliases,
                floor,
            })
        })
        .collect();
    let mut entities = Vec::new();
    let mut left_out = Vec::new();
    for e in doc["entities"].as_array().into_iter().flatten() {
        let (Some(id), Some(name)) = (text(&e["id"]), text(&e["name"])) else {
            continue;
        };
        let (name, aliases) = forms(&name);
        let id = home_assistants_id(&id);
        let entity = Entity {
            name,
            aliases,
            area: text(&e["area"]),
            device_class: text(&e["attributes"]["device_class"])
                .or_else(|| text(&e["device_class"])),
            state: text(&e["state"]),
            id,
        };
        if entities.iter().any(|e: &Entity| e.id == entity.id) {
            continue;
        }
        if KEPT.contains(&entity.domain()) {
            entities.push(entity);
        } else {
            left_out.push(entity.id);
        }
    }
    Ok(Home {
        language,
        areas,
        entities,
        left_out,
    })
}

/// How a case is judged.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A change of the home: judged by the calls made.
    Act,
    /// A question about the home: answered, nothing changed.
    Question,
    /// What a home cannot show (timers, weather, the date…): counted apart.
    Apart,
}

pub fn kind_of(intent: &str) -> Kind {
    match intent {
        "HassTurnOn"
        | "HassTurnOff"
        | "HassLightSet"
        | "HassClimateSetTemperature"
        | "HassSetPosition"
        | "HassSetVolume"
        | "HassMediaPause"
        | "HassMediaUnpause"
        | "HassMediaNext"
        | "HassMediaPrevious"
        | "HassVacuumStart"
        | "HassVacuumReturnToBase"
        | "HassListAddItem" => Kind::Act,
        "HassGetState" | "HassClimateGetTemperature" => Kind::Question,
        _ => Kind::Apart,
    }
}

/// One sentence of one test block.
#[derive(Debug, Clone)]
pub struct Case {
    /// `<file>#<block>.<sentence>`.
    pub id: String,
    pub sentence: String,
    pub intent: String,
    /// The block's slots, with the matched words' context (`domain`, `device_class`) where
    /// the slots do not say them.
    pub slots: Map<String, Value>,
    /// Only the slots the block states (HA's recognition is judged against these).
    pub stated: Map<String, Value>,
    /// The area of the satellite the sentence is said to.
    pub context_area: Option<String>,
    pub kind: Kind,
}

/// Every sentence of every block of every test file in `dir`, files in name order.
pub fn cases(dir: &Path) -> anyhow::Result<Vec<Case>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "yaml")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('_'))
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let doc = read_yaml(&file)?;
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        for (b, block) in doc["tests"].as_array().into_iter().flatten().enumerate() {
            out.extend(block_cases(&stem, b, block));
        }
    }
    Ok(out)
}

fn block_cases(file: &str, b: usize, block: &Value) -> Vec<Case> {
    let intent = &block["intent"];
    let name = intent["name"].as_str().unwrap_or_default().to_owned();
    let stated = intent["slots"].as_object().cloned().unwrap_or_default();
    let context = intent["context"].as_object().cloned().unwrap_or_default();
    let mut slots = stated.clone();
    for key in ["domain", "device_class"] {
        if let (false, Some(v)) = (slots.contains_key(key), context.get(key)) {
            slots.insert(key.into(), v.clone());
        }
    }
    let context_area = context.get("area").and_then(text);
    block["sentences"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(s, sentence)| {
            Some(Case {
                id: format!("{file}#{b}.{s}"),
                sentence: text(sentence)?,
                intent: name.clone(),
                slots: slots.clone(),
                stated: stated.clone(),
                context_area: context_area.clone(),
                kind: kind_of(&name),
            })
        })
        .collect()
}
