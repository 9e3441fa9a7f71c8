//! What a test block's intent and slots mean in its home, and whether what an agent did
//! is that. A block's reading becomes effects on entities ("light.kitchen on", "cover.hall
//! at 40%"); HomeClaw's calls become effects the same way; a case passes when every expected
//! effect is among the ones made and no call reached a device the words did not name.
//! Home Assistant's agent is judged as its own tests judge it: its recognition must be the
//! block's intent with the block's slots.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::corpus::{Case, Entity, Home, same};
use homeclaw::ha::recognise::Recognition;

/// One change to one entity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    On,
    Off,
    Open,
    Close,
    Lock,
    Unlock,
    /// Percent, rounded.
    Brightness(i64),
    Color,
    ColorTemp,
    /// Tenths of a degree.
    Temperature(i64),
    Position(i64),
    Volume(i64),
    Pause,
    Play,
    Next,
    Previous,
    Clean,
    Dock,
    /// The item, lower case.
    Add(String),
}

pub type Effects = BTreeSet<(String, Effect)>;

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s
            .trim()
            .trim_end_matches('%')
            .trim()
            .replace(',', ".")
            .parse()
            .ok(),
        _ => None,
    }
}

fn words(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// The domains an intent acts on in Home Assistant.
fn intent_domains(intent: &str) -> &'static [&'static str] {
    match intent {
        "HassLightSet" => &["light"],
        "HassClimateSetTemperature" => &["climate"],
        "HassSetVolume" | "HassMediaPause" | "HassMediaUnpause" | "HassMediaNext"
        | "HassMediaPrevious" => &["media_player"],
        "HassVacuumStart" | "HassVacuumReturnToBase" => &["vacuum"],
        "HassSetPosition" => &["cover", "valve"],
        "HassListAddItem" => &["todo"],
        _ => &[
            "light",
            "switch",
            "fan",
            "cover",
            "valve",
            "lock",
            "media_player",
            "climate",
            "scene",
            "script",
            "input_boolean",
            "vacuum",
        ],
    }
}

/// The entities the block's slots name, as Home Assistant's matcher finds them: the name,
/// the area or floor, the domains and device classes; with none of name, area and floor, the
/// satellite's area where it has any; for a player's verb, only the players in the state
/// that verb changes.
pub fn targets<'h>(case: &Case, home: &'h Home) -> Vec<&'h Entity> {
    let slots = &case.slots;
    // A slot may list the forms a name is said in (`name: [Lampa v ložnici, Lampy …]`).
    let names = words(slots.get("name"));
    let name = names.first();
    let area = words(slots.get("area"))
        .iter()
        .find_map(|a| home.area_named(a));
    let floors = words(slots.get("floor"));
    if slots.get("area").is_some() && area.is_none() {
        return Vec::new();
    }
    let domains = words(slots.get("domain"));
    let classes = words(slots.get("device_class"));
    let allowed = intent_domains(&case.intent);
    let in_floor = |e: &Entity| {
        floors.is_empty()
            || e.area
                .as_deref()
                .and_then(|a| home.areas.iter().find(|x| x.id == a))
                .and_then(|a| a.floor.as_deref())
                .is_some_and(|x| floors.iter().any(|f| same(x, f)))
    };
    let mut found: Vec<&Entity> = home
        .entities
        .iter()
        .filter(|e| allowed.contains(&e.domain()))
        .filter(|e| names.is_empty() || names.iter().any(|n| called(e, n)))
        .filter(|e| area.is_none_or(|a| e.area.as_deref() == Some(a.id.as_str())))
        .filter(|e| in_floor(e))
        .filter(|e| domains.is_empty() || domains.iter().any(|d| d == e.domain()))
        .filter(|e| {
            classes.is_empty()
                || e.device_class
                    .as_deref()
                    .is_some_and(|c| classes.iter().any(|x| x == c))
        })
        .collect();
    let context = case
        .context_area
        .as_deref()
        .and_then(|a| home.area_named(a));
    let here = |found: &[&'h Entity]| -> Vec<&'h Entity> {
        context.map_or_else(Vec::new, |c| {
            found
                .iter()
                .copied()
                .filter(|e| e.area.as_deref() == Some(c.id.as_str()))
                .collect()
        })
    };
    if area.is_none() && floors.is_empty() && (name.is_none() || found.len() > 1) {
        let local = here(&found);
        if !local.is_empty() {
            found = local;
        }
    }
    // Home Assistant's own handlers act only on players in the state the verb changes
    // (`required_states` in its media_player intents: pausing, skipping and setting a volume
    // need one playing, resuming one paused), whatever the words name. A block whose players
    // are in no such state is one Home Assistant's agent refuses too: nothing to judge.
    let wanted = match case.intent.as_str() {
        "HassMediaPause" | "HassMediaNext" | "HassMediaPrevious" | "HassSetVolume" => {
            Some("playing")
        }
        "HassMediaUnpause" => Some("paused"),
        _ => None,
    };
    if let Some(state) = wanted {
        found.retain(|e| e.state.as_deref() == Some(state));
    }
    found
}

/// A block whose area slot lists several rooms (Croatian `area: [kuhinji, kuhinjske,
/// kupaonici]`: its sentences say the kitchen or the bathroom) is one reading per room; a
/// list of one room's forms stays one reading. A name slot listing several devices (Czech
/// `name: [Sprinkler, Sprinkleru, Hlavní uzávěr vody]`: each sentence names one valve) is
/// likewise one reading per device, as Home Assistant's own test takes any of the names. A
/// device class list is every class together (a fixed slot: "all window coverings") or any
/// one of them (Czech `rolety`, which Home Assistant reads as `blind` alone and acts on the
/// blinds only, while its test lists five classes): both readings are kept.
pub fn alternatives(case: &Case, home: &Home) -> Vec<Case> {
    let room = |said: &str| home.area_named(said).map(|a| a.id.clone());
    let device = |said: &str| {
        let ids: Vec<&str> = home
            .entities
            .iter()
            .filter(|e| called(e, said))
            .map(|e| e.id.as_str())
            .collect();
        (!ids.is_empty()).then(|| ids.join(" "))
    };
    let class = |said: &str| Some(said.to_owned());
    split(case.clone(), "area", room)
        .into_iter()
        .flat_map(|one| split(one, "name", device))
        .flat_map(|one| {
            let each = split(one.clone(), "device_class", class);
            let whole = (each.len() > 1).then_some(one);
            whole.into_iter().chain(each)
        })
        .collect()
}

/// The case once per distinct thing (by `key`) its `slot` list says, with the first words
/// that say it (only those the sentence says, where it says any); a list saying one thing
/// (or nothing this home has) leaves the case as it is.
fn split(case: Case, slot: &str, key: impl Fn(&str) -> Option<String>) -> Vec<Case> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for said in words(case.slots.get(slot)) {
        if let Some(k) = key(&said)
            && !seen.iter().any(|(known, _)| *known == k)
        {
            seen.push((k, said));
        }
    }
    if seen.len() < 2 {
        return vec![case];
    }
    // The ones the sentence says in its words are its own: "zatvori sva vrata u hodniku" is the
    // hallway of `area: [hodniku, dnevne sobe, …]`, not a room it does not say.
    let spoken = homeclaw::text::tokens(&case.sentence);
    let says = |said: &str| {
        let words = homeclaw::text::tokens(said);
        !words.is_empty()
            && spoken
                .windows(words.len())
                .any(|run| run == words.as_slice())
    };
    if seen.iter().any(|(_, said)| says(said)) {
        seen.retain(|(_, said)| says(said));
    }
    seen.into_iter()
        .map(|(_, said)| {
            let mut one = case.clone();
            one.slots.insert(slot.into(), Value::String(said));
            one
        })
        .collect()
}

/// Whether the entity is called `said` (its name or one of its forms).
fn called(e: &Entity, said: &str) -> bool {
    same(&e.name, said) || e.aliases.iter().any(|a| same(a, said))
}

/// What the block asks of one of its targets; `None` when the slots say a change this
/// benchmark cannot name.
fn expected_effect(intent: &str, slots: &Map<String, Value>, e: &Entity) -> Option<Effect> {
    let domain = e.domain();
    let pct = |key: &str| slots.get(key).and_then(number).map(|n| n.round() as i64);
    Some(match intent {
        "HassTurnOn" => match domain {
            "cover" | "valve" => Effect::Open,
            "lock" => Effect::Lock,
            "vacuum" => Effect::Clean,
            _ => Effect::On,
        },
        "HassTurnOff" => match domain {
            "cover" | "valve" => Effect::Close,
            "lock" => Effect::Unlock,
            "vacuum" => Effect::Dock,
            _ => Effect::Off,
        },
        "HassLightSet" => {
            if let Some(b) = pct("brightness") {
                Effect::Brightness(b)
            } else if slots.contains_key("color") {
                Effect::Color
            } else if slots.contains_key("temperature") {
                Effect::ColorTemp
            } else {
                return None;
            }
        }
        "HassClimateSetTemperature" => {
            Effect::Temperature((slots.get("temperature").and_then(number)? * 10.0).round() as i64)
        }
        "HassSetPosition" => Effect::Position(pct("position")?),
        "HassSetVolume" => Effect::Volume(pct("volume_level")?),
        "HassMediaPause" => Effect::Pause,
        "HassMediaUnpause" => Effect::Play,
        "HassMediaNext" => Effect::Next,
        "HassMediaPrevious" => Effect::Previous,
        "HassVacuumStart" => Effect::Clean,
        "HassVacuumReturnToBase" => Effect::Dock,
        "HassListAddItem" => Effect::Add(slots.get("item")?.as_str()?.trim().to_lowercase()),
        _ => return None,
    })
}

/// The effects a block asks for in `home`; `None` when the words name nothing this home
/// has (a name only an alias has, an entity the loader left out): counted apart.
pub fn expected(case: &Case, home: &Home) -> Option<Effects> {
    let found = targets(case, home);
    if found.is_empty() {
        return None;
    }
    // "Set the temperature to 20" in a home of two thermostats, said nowhere in particular:
    // the block names no one device, so no call can be judged right (asking which is fair).
    let unnamed = ["name", "area", "floor"]
        .iter()
        .all(|k| !case.slots.contains_key(*k))
        && case.context_area.is_none();
    if case.intent == "HassClimateSetTemperature" && unnamed && found.len() > 1 {
        return None;
    }
    found
        .iter()
        .map(|e| Some((e.id.clone(), expected_effect(&case.intent, &case.slots, e)?)))
        .collect()
}

/// The effects of one call as HomeClaw reports it (`domain`, `service`, `entity_ids`,
/// `data`).
pub fn call_effects(action: &Value) -> Effects {
    let domain = action["domain"].as_str().unwrap_or_default();
    let service = action["service"].as_str().unwrap_or_default();
    let data = &action["data"];
    let mut effects = Vec::new();
    let pct = |key: &str| data.get(key).and_then(number);
    match (domain, service) {
        ("cover", "open_cover") | ("valve", "open_valve") | ("lock", "open") => {
            effects.push(Effect::Open);
        }
        ("cover", "close_cover") | ("valve", "close_valve") => effects.push(Effect::Close),
        ("cover", "set_cover_position") | ("valve", "set_valve_position") => {
            if let Some(p) = pct("position") {
                effects.push(Effect::Position(p.round() as i64));
            }
        }
        ("lock", "lock") => effects.push(Effect::Lock),
        ("lock", "unlock") => effects.push(Effect::Unlock),
        ("climate", "set_temperature") => {
            if let Some(t) = pct("temperature") {
                effects.push(Effect::Temperature((t * 10.0).round() as i64));
            }
        }
        ("media_player", "media_pause" | "media_play_pause") => effects.push(Effect::Pause),
        ("media_player", "media_play") => effects.push(Effect::Play),
        ("media_player", "media_next_track") => effects.push(Effect::Next),
        ("media_player", "media_previous_track") => effects.push(Effect::Previous),
        ("media_player", "volume_set") => {
            if let Some(v) = pct("volume_level") {
                effects.push(Effect::Volume((v * 100.0).round() as i64));
            }
        }
        ("vacuum", "start") => effects.push(Effect::Clean),
        ("vacuum", "return_to_base") => effects.push(Effect::Dock),
        ("todo", "add_item") => {
            if let Some(item) = data["item"].as_str() {
                effects.push(Effect::Add(item.trim().to_lowercase()));
            }
        }
        (_, "turn_on") => {
            effects.push(Effect::On);
            if let Some(b) = pct("brightness_pct") {
                effects.push(Effect::Brightness(b.round() as i64));
            } else if let Some(b) = pct("brightness") {
                effects.push(Effect::Brightness((b * 100.0 / 255.0).round() as i64));
            }
            if ["color_name", "rgb_color", "hs_color", "xy_color"]
                .iter()
                .any(|k| data.get(k).is_some())
            {
                effects.push(Effect::Color);
            }
            if ["color_temp_kelvin", "kelvin", "color_temp"]
                .iter()
                .any(|k| data.get(k).is_some())
            {
                effects.push(Effect::ColorTemp);
            }
            if domain == "vacuum" {
                effects.push(Effect::Clean);
            }
        }
        (_, "turn_off") => effects.push(Effect::Off),
        _ => {}
    }
    action["entity_ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .flat_map(|id| effects.iter().map(move |e| (id.to_owned(), e.clone())))
        .collect()
}

/// Every call HomeClaw made is one the block asks for, but some it asks for were not made:
/// HomeClaw kept a word Home Assistant's reading drops ("das Rollo im Wohnzimmer" is the
/// room's Rollos to HomeClaw, every cover of the room to HA's German sentences). Counted
/// apart from a pass and from a wrong device.
pub fn narrower(expected: &Effects, actions: &[Value]) -> bool {
    let made: Effects = actions.iter().flat_map(call_effects).collect();
    !made.is_empty() && made.iter().all(|e| expected.contains(e)) && made.len() < expected.len()
}

/// HomeClaw's verdict: every expected effect made, and no call on an entity the words did
/// not name (`wrong`: those entities).
pub fn homeclaw(expected: &Effects, actions: &[Value]) -> (bool, Vec<String>) {
    let made: Effects = actions.iter().flat_map(call_effects).collect();
    let named: BTreeSet<&str> = expected.iter().map(|(id, _)| id.as_str()).collect();
    let wrong: BTreeSet<String> = actions
        .iter()
        .flat_map(|a| a["entity_ids"].as_array().cloned().unwrap_or_default())
        .filter_map(|id| id.as_str().map(str::to_owned))
        .filter(|id| !named.contains(id.as_str()))
        .collect();
    let all = expected.iter().all(|e| made.contains(e));
    (all && wrong.is_empty(), wrong.into_iter().collect())
}

fn slot_matches(expected: &Value, got: &[String]) -> bool {
    let wanted: Vec<String> = match expected {
        Value::Array(list) => list.iter().filter_map(plain).collect(),
        other => plain(other).into_iter().collect(),
    };
    let eq = |a: &str, b: &str| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => (x - y).abs() < 1e-6,
        _ => same(a, b),
    };
    !got.is_empty() && got.iter().all(|g| wanted.iter().any(|w| eq(w, g)))
}

fn plain(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Home Assistant's verdict, as its own tests judge it: the block's intent, every stated
/// slot recognised with its value, and no slot the block does not state.
pub fn ha(case: &Case, recognition: Option<&Recognition>) -> bool {
    let Some(r) = recognition else {
        return false;
    };
    if r.intent != case.intent {
        return false;
    }
    let stated_all = case.stated.iter().all(|(name, value)| {
        r.slot(name)
            .is_some_and(|slot| slot_matches(value, &slot.values()))
    });
    let no_extra = r
        .slots
        .iter()
        .all(|(name, _)| case.stated.contains_key(name) || name == "preferred_area_id");
    stated_all && no_extra
}
