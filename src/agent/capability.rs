//! What HomeClaw can do, one row per capability: which words ask for it (the intent), on which
//! kind of device, by which service and data field, what Home Assistant's recogniser calls
//! it, what the state shows once it is done, and how the reply names it. Every stage reads
//! this table (the own reading's calls, the recogniser stage, the guards, verification and
//! the reply); no other file knows which service an intent means.
//!
//! A row the person's words never ask for (`asks` empty) is a service only the model calls:
//! it is here so that verification and the reply know it too. Rows are tried in order; the
//! first that fits wins, so a kind of device with its own rule comes before the catch-all.

use std::collections::HashMap;
use std::mem::{Discriminant, discriminant};
use std::sync::LazyLock;

use serde_json::{Value, json};

use crate::ha::registry::Entity;
use crate::lang::Intent::{self, *};

/// What a service implies about its targets afterwards.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// The state is one of these.
    StateIn(&'static [&'static str]),
    /// The state is not one of these (e.g. a media player "on" may be playing or idle).
    StateNotIn(&'static [&'static str]),
    /// The state settles in `done`; `moving` (locking, opening, …) counts only if the entity is
    /// still moving when the wait ends, so a lock that goes locking → jammed is not verified.
    Settles {
        done: &'static [&'static str],
        moving: &'static [&'static str],
    },
    /// The state equals the value of this service-data field (as a string or number).
    StateEqualsField(&'static str),
    /// This attribute equals the value of the same-named (or given) service-data field.
    AttributeEqualsField {
        attribute: &'static str,
        field: &'static str,
    },
    /// On, with this attribute at the service-data field's percentage of `full` (a light's
    /// `brightness` 0–255 for `brightness_pct`), within a percent: "on" alone would verify a
    /// light left at 100% when 40% was asked.
    OnAtPercent {
        attribute: &'static str,
        field: &'static str,
        full: f64,
    },
    /// The state differs from before the call (toggle).
    StateChanged,
    /// The entity was updated after the call (scenes, buttons, scripts: their state is a time).
    Updated,
}

/// Which requests a row answers: about the device, about its volume ("set the volume to
/// 20%"), or either ("mute the TV" and "mute the volume" alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About {
    Device,
    Volume,
    Either,
}

/// What an entity's own attributes must offer before the capability is asked of it; the
/// service alone does not say (a light that only switches cannot be made red).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// The HVAC mode asked for, among its `hvac_modes`.
    HvacMode,
    /// A colour mode that shows colours.
    Colours,
    /// The `color_temp` colour mode.
    WhiteTemperature,
    /// A colour mode other than on/off.
    Dimming,
    /// ClimateEntityFeature.TARGET_TEMPERATURE (bit 1 of `supported_features`).
    TargetTemperature,
}

/// One capability. Build rows with [`row`] and the setters below, so a row reads as one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Capability {
    /// The kinds of intent that ask for it (each of any value), the first the one Home
    /// Assistant's recognition is read as.
    pub asks: &'static [Intent],
    /// The kinds of device it is for; `"*"` is any.
    pub domains: &'static [&'static str],
    pub service: &'static str,
    /// The service-data field that carries the intent's value.
    pub field: Option<&'static str>,
    pub about: About,
    pub needs: Needs,
    /// Home Assistant's intents that ask for it, and the slot holding their value.
    pub heard: &'static [&'static str],
    pub slot: Option<&'static str>,
    /// What the state shows once it is done; `None`: nothing to check, so never "verified".
    pub expect: Option<Expect>,
    /// Home Assistant's own reply for it: its intent and which of its sentences.
    pub ha_reply: Option<(&'static str, &'static str)>,
    /// The lexicon's key for what it did (`did_words`, `to_do`).
    pub key: &'static str,
    /// Which devices of several it means by their state, where it does.
    pub by_state: Option<ByState>,
}

/// Which devices a command means by their state, as Home Assistant's handlers read it (their
/// `required_states`): a pause is for the players that play, a resume for those paused, a
/// skip or a volume for the one playing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ByState {
    pub state: &'static str,
    /// Every device in that state (pausing all that play), or only one (skipping).
    pub every: bool,
}

const PLAYING_ONE: ByState = ByState {
    state: "playing",
    every: false,
};
const PLAYING_ALL: ByState = ByState {
    state: "playing",
    every: true,
};
const PAUSED_ALL: ByState = ByState {
    state: "paused",
    every: true,
};

/// What a row answers: an intent of this kind, whatever its value (the value is the words').
fn same_kind(a: Intent, b: Intent) -> bool {
    discriminant(&a) == discriminant(&b)
}

/// Whether an intent carries a value (a percentage, a temperature, a mode, a colour).
pub fn carries_value(intent: Intent) -> bool {
    matches!(
        intent,
        Percent(_) | Degrees(_) | Mode(_) | Color(_) | White(_)
    )
}

/// The table's intents that carry a value, each standing for any value of its kind.
const PERCENT: Intent = Percent(0);
const DEGREES: Intent = Degrees(0);
const MODE: Intent = Mode(crate::lang::HvacMode::Auto);
const COLOR: Intent = Color("");
const WHITE: Intent = White(0);

/// A row: these intents, on these kinds of device, by this service. The rest defaults to no
/// value, about the device, no needs, nothing heard, nothing to check, no reply of Home
/// Assistant's, the service's own name as the key.
const fn row(
    asks: &'static [Intent],
    domains: &'static [&'static str],
    service: &'static str,
) -> Capability {
    Capability {
        asks,
        domains,
        service,
        field: None,
        about: About::Device,
        needs: Needs::Nothing,
        heard: &[],
        slot: None,
        expect: None,
        ha_reply: None,
        key: service,
        by_state: None,
    }
}

impl Capability {
    const fn field(mut self, field: &'static str) -> Self {
        self.field = Some(field);
        self
    }
    const fn about(mut self, about: About) -> Self {
        self.about = about;
        self
    }
    const fn needs(mut self, needs: Needs) -> Self {
        self.needs = needs;
        self
    }
    const fn heard(mut self, intents: &'static [&'static str], slot: Option<&'static str>) -> Self {
        self.heard = intents;
        self.slot = slot;
        self
    }
    const fn expect(mut self, expect: Expect) -> Self {
        self.expect = Some(expect);
        self
    }
    const fn says(mut self, intent: &'static str, key: &'static str) -> Self {
        self.ha_reply = Some((intent, key));
        self
    }
    const fn key(mut self, key: &'static str) -> Self {
        self.key = key;
        self
    }
    const fn by_state(mut self, by_state: ByState) -> Self {
        self.by_state = Some(by_state);
        self
    }

    fn is_for(&self, domain: &str) -> bool {
        self.domains.iter().any(|d| *d == domain || *d == "*")
    }
}

use Expect::{AttributeEqualsField as Attr, Settles, StateChanged, StateEqualsField, StateIn};
use Expect::{OnAtPercent, StateNotIn, Updated};

const SWITCHED: &[&str] = &[
    "light",
    "switch",
    "fan",
    "input_boolean",
    "humidifier",
    "siren",
];
/// Devices whose "on" is one of several states (playing, idle, heating, …).
const ON_MANY_WAYS: &[&str] = &["media_player", "climate"];
const TOGGLED: &[&str] = &[
    "light",
    "switch",
    "fan",
    "input_boolean",
    "media_player",
    "cover",
];
const OPENED: Expect = Settles {
    done: &["open"],
    moving: &["opening"],
};
const CLOSED: Expect = Settles {
    done: &["closed"],
    moving: &["closing"],
};
const fn attr(field: &'static str) -> Expect {
    Attr {
        attribute: field,
        field,
    }
}
const fn armed(done: &'static [&'static str]) -> Expect {
    Settles {
        done,
        moving: &["arming", "pending"],
    }
}

/// The table.
#[rustfmt::skip]
pub const CAPABILITIES: &[Capability] = &[
    // Switching on and off.
    row(&[On], ON_MANY_WAYS, "turn_on").heard(&["HassTurnOn"], None).expect(StateNotIn(&["off", "unavailable"])).says("HassTurnOn", "default"),
    row(&[Off], ON_MANY_WAYS, "turn_off").heard(&["HassTurnOff"], None).expect(StateIn(&["off"])).says("HassTurnOff", "default"),
    row(&[On], SWITCHED, "turn_on").heard(&["HassTurnOn"], None).expect(StateIn(&["on"])).says("HassTurnOn", "default"),
    row(&[Off], SWITCHED, "turn_off").heard(&["HassTurnOff"], None).expect(StateIn(&["off"])).says("HassTurnOff", "default"),
    row(&[Toggle], TOGGLED, "toggle").expect(StateChanged),
    // Lights: brightness, colour, white, a step.
    row(&[PERCENT], &["light"], "turn_on").field("brightness_pct").heard(&["HassLightSet"], Some("brightness")).expect(OnAtPercent { attribute: "brightness", field: "brightness_pct", full: 255.0 }).says("HassLightSet", "brightness"),
    row(&[COLOR], &["light"], "turn_on").field("color_name").needs(Needs::Colours).heard(&["HassLightSet"], Some("color")).expect(StateIn(&["on"])).says("HassLightSet", "color"),
    row(&[WHITE], &["light"], "turn_on").field("color_temp_kelvin").needs(Needs::WhiteTemperature).expect(StateIn(&["on"])).says("HassTurnOn", "default"),
    row(&[Brighter], &["light"], "turn_on").field("brightness_step_pct").needs(Needs::Dimming).expect(StateIn(&["on"])).says("HassTurnOn", "default"),
    row(&[Dimmer], &["light"], "turn_on").field("brightness_step_pct").needs(Needs::Dimming).expect(StateIn(&["on"])).says("HassTurnOn", "default"),
    // Covers and valves.
    row(&[Open], &["cover"], "open_cover").heard(&["HassTurnOn"], None).expect(OPENED).says("HassTurnOn", "cover").key("open"),
    row(&[Close], &["cover"], "close_cover").heard(&["HassTurnOff"], None).expect(CLOSED).says("HassTurnOff", "cover").key("close"),
    row(&[PERCENT], &["cover"], "set_cover_position").field("position").heard(&["HassSetPosition"], Some("position")).expect(Attr { attribute: "current_position", field: "position" }).says("HassSetPosition", "default"),
    row(&[Open, On], &["valve"], "open_valve").heard(&["HassTurnOn"], None).expect(OPENED).says("HassTurnOn", "valve").key("open"),
    row(&[Close, Off, Stop], &["valve"], "close_valve").heard(&["HassTurnOff"], None).expect(CLOSED).says("HassTurnOff", "valve").key("close"),
    row(&[PERCENT], &["valve"], "set_valve_position").field("position").heard(&["HassSetPosition"], Some("position")).expect(Attr { attribute: "current_position", field: "position" }).says("HassSetPosition", "default"),
    // Locks.
    row(&[Lock], &["lock"], "lock").heard(&["HassTurnOn"], None).expect(Settles { done: &["locked"], moving: &["locking"] }).says("HassTurnOn", "lock"),
    row(&[Unlock], &["lock"], "unlock").heard(&["HassTurnOff"], None).expect(Settles { done: &["unlocked", "open"], moving: &["unlocking", "opening"] }).says("HassTurnOff", "lock"),
    row(&[], &["lock"], "open").expect(Settles { done: &["open", "unlocked"], moving: &["opening"] }),
    // Fans and humidifiers.
    row(&[Start], &["fan"], "turn_on").heard(&["HassTurnOn"], None).expect(StateIn(&["on"])).says("HassTurnOn", "default"),
    row(&[PERCENT], &["fan"], "set_percentage").field("percentage").heard(&["HassFanSetSpeed"], Some("percentage")).expect(attr("percentage")).says("HassFanSetSpeed", "default"),
    row(&[PERCENT], &["humidifier"], "set_humidity").field("humidity").heard(&["HassHumidifierSetpoint"], Some("humidity")).expect(attr("humidity")),
    // Climate and water heaters.
    row(&[DEGREES], &["climate"], "set_temperature").field("temperature").needs(Needs::TargetTemperature).heard(&["HassClimateSetTemperature"], Some("temperature")).expect(attr("temperature")).says("HassClimateSetTemperature", "default"),
    row(&[DEGREES], &["water_heater"], "set_temperature").field("temperature").expect(attr("temperature")),
    row(&[MODE], &["climate"], "set_hvac_mode").field("hvac_mode").needs(Needs::HvacMode).expect(StateEqualsField("hvac_mode")),
    // Vacuums: told to stop or turn off, a robot is done cleaning; left where it stopped it is
    // in the way and away from its charger, so it goes home (what the leaderboard expects too).
    row(&[Start, Resume, On], &["vacuum"], "start").heard(&["HassVacuumStart", "HassTurnOn"], None).expect(StateIn(&["cleaning"])).says("HassVacuumStart", "default"),
    row(&[Dock, Stop, Off], &["vacuum"], "return_to_base").heard(&["HassVacuumReturnToBase", "HassTurnOff"], None).expect(Settles { done: &["docked"], moving: &["returning"] }).says("HassVacuumReturnToBase", "default"),
    row(&[Pause], &["vacuum"], "pause").expect(StateIn(&["paused"])),
    row(&[], &["vacuum"], "stop").expect(StateNotIn(&["cleaning"])),
    // Media players.
    row(&[PERCENT], &["media_player"], "volume_set").field("volume_level").about(About::Volume).heard(&["HassSetVolume"], Some("volume_level")).expect(attr("volume_level")).says("HassSetVolume", "default").by_state(PLAYING_ONE),
    row(&[Mute], &["media_player"], "volume_mute").field("is_volume_muted").about(About::Either).expect(attr("is_volume_muted")).by_state(PLAYING_ONE),
    row(&[Louder], &["media_player"], "volume_up").about(About::Either).expect(Updated).by_state(PLAYING_ONE),
    row(&[Quieter], &["media_player"], "volume_down").about(About::Either).expect(Updated).by_state(PLAYING_ONE),
    row(&[Stop], &["media_player"], "media_stop").expect(StateIn(&["idle", "off", "paused"])).says("HassMediaPause", "default"),
    row(&[Pause], &["media_player"], "media_pause").heard(&["HassMediaPause"], None).expect(StateIn(&["paused", "idle", "off"])).says("HassMediaPause", "default").key("pause").by_state(PLAYING_ALL),
    row(&[Resume, Start], &["media_player"], "media_play").heard(&["HassMediaUnpause"], None).expect(StateIn(&["playing"])).says("HassMediaUnpause", "default").by_state(PAUSED_ALL),
    row(&[Next], &["media_player"], "media_next_track").heard(&["HassMediaNext"], None).expect(Updated).says("HassMediaNext", "default").by_state(PLAYING_ONE),
    row(&[Previous], &["media_player"], "media_previous_track").heard(&["HassMediaPrevious"], None).expect(Updated).says("HassMediaPrevious", "default").by_state(PLAYING_ONE),
    // What only the model calls.
    row(&[], &["input_number", "number"], "set_value").expect(StateEqualsField("value")),
    row(&[], &["input_select", "select"], "select_option").expect(StateEqualsField("option")),
    row(&[], &["input_text"], "set_value").expect(StateEqualsField("value")),
    row(&[], &["alarm_control_panel"], "alarm_disarm").expect(StateIn(&["disarmed"])).key("disarm"),
    row(&[], &["alarm_control_panel"], "alarm_arm_away").expect(armed(&["armed_away"])).key("arm"),
    row(&[], &["alarm_control_panel"], "alarm_arm_home").expect(armed(&["armed_home"])).key("arm"),
    row(&[], &["alarm_control_panel"], "alarm_arm_night").key("arm"),
    row(&[], &["alarm_control_panel"], "alarm_arm_vacation").key("arm"),
    row(&[], &["alarm_control_panel"], "alarm_arm_custom_bypass").key("arm"),
    row(&[], &["cover", "valve"], "set_cover_tilt_position").says("HassSetPosition", "default"),
    row(&[], &["cover"], "stop_cover").key("stop"),
    row(&[], &["valve"], "stop_valve").key("stop"),
    // A to-do list's state is its number of open items.
    row(&[], &["todo"], "add_item").expect(StateChanged).says("HassListAddItem", "item_added"),
    row(&[On], &["scene"], "turn_on").heard(&["HassTurnOn"], None).expect(Updated).says("HassTurnOn", "scene"),
    row(&[On], &["script"], "turn_on").heard(&["HassTurnOn"], None).expect(Updated).says("HassTurnOn", "script"),
    row(&[], &["button", "input_button"], "press").expect(Updated),
    row(&[], &["*"], "turn_on").heard(&["HassTurnOn"], None).expect(StateIn(&["on"])).says("HassTurnOn", "default"),
    row(&[], &["*"], "turn_off").heard(&["HassTurnOff"], None).expect(StateIn(&["off"])).says("HassTurnOff", "default"),
    row(&[], &["*"], "toggle").expect(StateChanged),
];

/// The rows an intent of this kind asks for, in the table's order: looked up once per kind,
/// as the own reading asks it of every entity of the home.
fn asking(intent: Intent) -> &'static [&'static Capability] {
    type ByKind = HashMap<Discriminant<Intent>, Vec<&'static Capability>>;
    static BY_KIND: LazyLock<ByKind> = LazyLock::new(|| {
        let mut by_kind = ByKind::new();
        for c in CAPABILITIES {
            for a in c.asks {
                by_kind.entry(discriminant(a)).or_default().push(c);
            }
        }
        by_kind
    });
    BY_KIND
        .get(&discriminant(&intent))
        .map_or(&[], Vec::as_slice)
}

/// The row `intent` means for a kind of device, if one does: `volume` when the words are about
/// the volume ("volume" names what to change: only a media player has one).
pub fn for_intent(intent: Intent, domain: &str, volume: bool) -> Option<&'static Capability> {
    asking(intent).iter().copied().find(|c| {
        c.is_for(domain)
            && match c.about {
                About::Device => !volume,
                About::Volume => volume,
                About::Either => true,
            }
    })
}

/// Which devices of `domain` an intent means by their state ([`ByState`]), if it does.
pub fn by_state_of(intent: Intent, domain: &str) -> Option<ByState> {
    asking(intent)
        .iter()
        .filter(|c| c.is_for(domain))
        .find_map(|c| c.by_state)
}

/// Which devices of `domain` a call of `service` means by their state, if it does.
pub fn by_state_of_call(domain: &str, service: &str) -> Option<ByState> {
    rows_of(domain, service).find_map(|c| c.by_state)
}

/// The service (and its fields) an intent means for a domain, if it means one.
pub fn service_for(intent: Intent, domain: &str, volume: bool) -> Option<(&'static str, Value)> {
    let row = for_intent(intent, domain, volume)?;
    let data = match row.field {
        Some(field) => json!({ field: value_of(intent, field) }),
        None => json!({}),
    };
    Some((row.service, data))
}

/// How much brighter or dimmer one step is, in percent of full brightness.
const STEP: i64 = 20;

/// A temperature in tenths as Home Assistant takes it: a whole number when it is one (21),
/// else the decimal (19.5).
fn degrees_value(tenths: u16) -> Value {
    if tenths.is_multiple_of(10) {
        json!(tenths / 10)
    } else {
        json!(f64::from(tenths) / 10.0)
    }
}

/// The value an intent gives its row's field.
fn value_of(intent: Intent, field: &str) -> Value {
    match intent {
        Percent(n) if field == "volume_level" => json!(f64::from(n) / 100.0),
        Percent(n) => json!(n),
        Degrees(n) => degrees_value(n),
        Mode(mode) => json!(mode.as_str()),
        Color(css) => json!(css),
        White(kelvin) => json!(kelvin),
        Brighter => json!(STEP),
        Dimmer => json!(-STEP),
        _ => json!(true),
    }
}

/// Whether the entity can do what the intent asks, as its own attributes say: an HVAC mode
/// it lists, a target temperature it takes. Other intents are settled by the domain's services.
pub fn supports(intent: Intent, entity: &Entity) -> bool {
    let needs = asking(intent)
        .iter()
        .find(|c| c.is_for(entity.domain()))
        .map_or(Needs::Nothing, |c| c.needs);
    let attribute = |name: &str| entity.attributes.get(name);
    let colour_modes = |fits: &dyn Fn(&str) -> bool| {
        attribute("supported_color_modes")
            .and_then(Value::as_array)
            .is_some_and(|modes| modes.iter().any(|m| m.as_str().is_some_and(fits)))
    };
    match (needs, intent) {
        (Needs::HvacMode, Mode(mode)) => attribute("hvac_modes")
            .and_then(Value::as_array)
            .is_some_and(|modes| modes.iter().any(|m| m.as_str() == Some(mode.as_str()))),
        (Needs::Colours, _) => {
            colour_modes(&|m| matches!(m, "hs" | "xy" | "rgb" | "rgbw" | "rgbww"))
        }
        (Needs::WhiteTemperature, _) => colour_modes(&|m| m == "color_temp"),
        (Needs::Dimming, _) => colour_modes(&|m| m != "onoff"),
        (Needs::TargetTemperature, _) => attribute("supported_features")
            .and_then(Value::as_u64)
            .is_some_and(|features| features & 1 == 1),
        _ => true,
    }
}

/// The rows a service call of `domain.service` is, most specific first.
fn rows_of<'a>(
    domain: &'a str,
    service: &'a str,
) -> impl Iterator<Item = &'static Capability> + 'a {
    CAPABILITIES
        .iter()
        .filter(move |c| c.service == service && c.is_for(domain))
}

/// The row a call is: of those for its service, the one whose field the data carries, else
/// the first. A script's own services (`script.good_morning`) are the script run.
pub fn of_call(domain: &str, service: &str, data: &Value) -> Option<&'static Capability> {
    let service = if domain == "script" {
        "turn_on"
    } else {
        service
    };
    rows_of(domain, service)
        .find(|c| c.field.is_some_and(|f| data.get(f).is_some()))
        .or_else(|| rows_of(domain, service).next())
}

/// The row whose value a call sets, and the value: the call's own row when the data carries
/// its field, else the row of another service of the domain whose field it carries (a model's
/// `fan.turn_on` with a `percentage` sets the speed).
pub fn setting<'d>(
    domain: &str,
    service: &str,
    data: &'d Value,
) -> Option<(&'static Capability, &'d Value)> {
    let carried = |c: &&'static Capability| c.field.and_then(|f| data.get(f)).is_some();
    let row = rows_of(domain, service).find(carried).or_else(|| {
        CAPABILITIES
            .iter()
            .filter(|c| c.is_for(domain))
            .find(carried)
    })?;
    Some((row, data.get(row.field?)?))
}

/// What a service implies about its targets afterwards, if anything is known.
pub fn expectation(domain: &str, service: &str) -> Option<&'static Expect> {
    rows_of(domain, service).find_map(|c| c.expect.as_ref())
}

/// What a call with this data must show: the row of the value it sets where it sets one (a
/// light's brightness, not only "on"), else the service's.
pub fn expectation_of(domain: &str, service: &str, data: &Value) -> Option<&'static Expect> {
    of_call(domain, service, data)
        .and_then(|c| c.expect.as_ref())
        .or_else(|| expectation(domain, service))
}

/// The lexicon's key for what a service does.
pub fn key_of(domain: &str, service: &str) -> Option<&'static str> {
    rows_of(domain, service).next().map(|c| c.key)
}

/// The kinds of device a Home Assistant intent can only mean (empty: any kind, or none of
/// HomeClaw's capabilities).
pub fn domains_heard(ha_intent: &str) -> Vec<&'static str> {
    let mut domains: Vec<&'static str> = Vec::new();
    for c in CAPABILITIES.iter().filter(|c| c.heard.contains(&ha_intent)) {
        if c.domains.contains(&"*") {
            return Vec::new();
        }
        for d in c.domains {
            if !domains.contains(d) {
                domains.push(d);
            }
        }
    }
    domains
}

/// The row a Home Assistant intent means for a kind of device, and whether it is about the
/// volume; `slot` tells whether the recognition fills a slot (a row that reads one is skipped
/// when it is empty: "HassLightSet" is brightness or colour, by which slot it filled).
pub fn heard(
    ha_intent: &str,
    domain: &str,
    has_slot: impl Fn(&str) -> bool,
) -> Option<&'static Capability> {
    CAPABILITIES.iter().find(|c| {
        !c.asks.is_empty()
            && c.heard.contains(&ha_intent)
            && c.is_for(domain)
            && c.slot.is_none_or(&has_slot)
    })
}

/// Services that undo what each intent asks (what the person said, for the refusal); a
/// service not listed is left to the other guards.
#[rustfmt::skip]
pub const OPPOSITES: &[(Intent, &str, &[&str])] = &[
    (On, "to turn something on", &["turn_off", "close_cover", "close_valve", "lock"]),
    (Off, "to turn something off", &["turn_on", "open_cover", "open_valve", "start", "unlock", "open"]),
    (Open, "to open something", &["close_cover", "close_valve", "lock", "turn_off"]),
    (Close, "to close something", &["open_cover", "open_valve", "unlock", "open", "turn_on"]),
    (Lock, "to lock something", &["unlock", "open", "open_cover", "open_valve"]),
    (Unlock, "to unlock something", &["lock", "close_cover", "close_valve"]),
    (Start, "to start something", &["return_to_base", "stop", "pause", "media_pause", "media_stop", "turn_off"]),
    (Dock, "to stop something", &["start", "media_play", "turn_on"]),
    (Stop, "to stop something", &["start", "media_play", "turn_on"]),
    (Pause, "to pause something", &["media_play", "start", "turn_on"]),
    (Resume, "to resume something", &["media_pause", "media_stop", "pause", "stop", "turn_off"]),
];

/// What the person asked (for the refusal) when `service` undoes what `intent` asks.
pub fn undoes(intent: Intent, service: &str) -> Option<&'static str> {
    OPPOSITES
        .iter()
        .find(|(a, ..)| same_kind(*a, intent))
        .filter(|(.., against)| against.contains(&service))
        .map(|(_, asked, _)| *asked)
}

#[cfg(test)]
#[path = "capability_tests.rs"]
mod tests;
