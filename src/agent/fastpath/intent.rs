//! Reading a command: its words, its intent and the language it is in.

use serde_json::{Value, json};

use crate::ha::search::domain_of_word;
use crate::text::fold;

/// The language a command was recognised in; replies are written in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Pl,
    De,
}

impl Lang {
    /// The language of a tag such as `pl` or `de-DE`; English for anything else.
    pub fn from_tag(tag: &str) -> Self {
        match tag.get(..2).map(str::to_ascii_lowercase).as_deref() {
            Some("pl") => Self::Pl,
            Some("de") => Self::De,
            _ => Self::En,
        }
    }

    /// This language's word of the three.
    pub fn pick<T>(self, en: T, pl: T, de: T) -> T {
        match self {
            Self::En => en,
            Self::Pl => pl,
            Self::De => de,
        }
    }

    /// The language a tag names, when HomeClaw has words for it.
    pub fn known(tag: &str) -> Option<Self> {
        match tag.get(..2).map(str::to_ascii_lowercase).as_deref() {
            Some("en") => Some(Self::En),
            Some("pl") => Some(Self::Pl),
            Some("de") => Some(Self::De),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Intent {
    On,
    Off,
    Open,
    Close,
    Lock,
    Unlock,
    Start,
    Dock,
    Pause,
    Resume,
    Next,
    Mute,
    Toggle,
    Stop,
    Percent(u8),
    /// A target temperature, in the home's own unit.
    Degrees(u8),
    /// A climate device's HVAC mode.
    Mode(HvacMode),
    /// A light's colour, by the CSS name Home Assistant's `color_name` takes.
    Color(&'static str),
}

use Intent::*;

/// The HVAC modes a person names ("heat mode", "tryb chłodzenia", "auf Heizen").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HvacMode {
    Heat,
    Cool,
    Auto,
    Dry,
}

impl HvacMode {
    /// Home Assistant's name for the mode.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Heat => "heat",
            Self::Cool => "cool",
            Self::Auto => "auto",
            Self::Dry => "dry",
        }
    }
}

/// Words (folded, contiguous) that name an intent, per language.
pub(super) const PHRASES: &[(&[&str], Intent, Lang)] = &[
    (&["turn", "on"], On, Lang::En),
    (&["turning", "on"], On, Lang::En),
    (&["switching", "on"], On, Lang::En),
    (&["turning", "off"], Off, Lang::En),
    (&["switching", "off"], Off, Lang::En),
    (&["switch", "on"], On, Lang::En),
    (&["turn", "off"], Off, Lang::En),
    (&["switch", "off"], Off, Lang::En),
    (&["open"], Open, Lang::En),
    (&["close"], Close, Lang::En),
    (&["shut", "off"], Off, Lang::En),
    (&["kill"], Off, Lang::En),
    (&["shut"], Close, Lang::En),
    (&["unlock"], Unlock, Lang::En),
    (&["lock"], Lock, Lang::En),
    (&["start"], Start, Lang::En),
    (&["vacuum"], Start, Lang::En),
    (&["clean"], Start, Lang::En),
    (&["water"], Open, Lang::En),
    (&["return"], Dock, Lang::En),
    (&["send"], Dock, Lang::En),
    (&["dock"], Dock, Lang::En),
    (&["unpause"], Resume, Lang::En),
    (&["pause"], Pause, Lang::En),
    (&["resume"], Resume, Lang::En),
    (&["skip"], Next, Lang::En),
    (&["next", "track"], Next, Lang::En),
    (&["next", "song"], Next, Lang::En),
    (&["mute"], Mute, Lang::En),
    (&["toggle"], Toggle, Lang::En),
    (&["stop"], Stop, Lang::En),
    // Before "to heat": "to heat mode" leaves "to", a filler, not "mode".
    (&["heat", "mode"], Mode(HvacMode::Heat), Lang::En),
    (&["heating", "mode"], Mode(HvacMode::Heat), Lang::En),
    (&["cool", "mode"], Mode(HvacMode::Cool), Lang::En),
    (&["cooling", "mode"], Mode(HvacMode::Cool), Lang::En),
    (&["auto", "mode"], Mode(HvacMode::Auto), Lang::En),
    (&["dry", "mode"], Mode(HvacMode::Dry), Lang::En),
    (&["to", "heat"], Mode(HvacMode::Heat), Lang::En),
    (&["to", "cool"], Mode(HvacMode::Cool), Lang::En),
    (&["tryb", "grzania"], Mode(HvacMode::Heat), Lang::Pl),
    (&["na", "grzanie"], Mode(HvacMode::Heat), Lang::Pl),
    (&["tryb", "chlodzenia"], Mode(HvacMode::Cool), Lang::Pl),
    (&["na", "chlodzenie"], Mode(HvacMode::Cool), Lang::Pl),
    (&["heizmodus"], Mode(HvacMode::Heat), Lang::De),
    (&["auf", "heizen"], Mode(HvacMode::Heat), Lang::De),
    (&["kuhlmodus"], Mode(HvacMode::Cool), Lang::De),
    (&["auf", "kuhlen"], Mode(HvacMode::Cool), Lang::De),
    (&["wlacz"], On, Lang::Pl),
    (&["zapal"], On, Lang::Pl),
    (&["wylacz"], Off, Lang::Pl),
    (&["zgas"], Off, Lang::Pl),
    // "otwórz zamek": opening a lock is unlocking it.
    (&["otworz", "zamek"], Unlock, Lang::Pl),
    (&["otworz"], Open, Lang::Pl),
    (&["podlej"], Open, Lang::Pl),
    (&["zamknij"], Close, Lang::Pl),
    (&["zablokuj"], Lock, Lang::Pl),
    (&["odblokuj"], Unlock, Lang::Pl),
    (&["uruchom"], Start, Lang::Pl),
    (&["wstrzymaj"], Pause, Lang::Pl),
    (&["wznow"], Resume, Lang::Pl),
    (&["wycisz"], Mute, Lang::Pl),
    (&["przelacz"], Toggle, Lang::Pl),
    (&["zatrzymaj"], Stop, Lang::Pl),
    // Infinitives, as a polite request says them ("czy możesz wyłączyć światło?").
    (&["wlaczyc"], On, Lang::Pl),
    (&["zapalic"], On, Lang::Pl),
    (&["wylaczyc"], Off, Lang::Pl),
    (&["zgasic"], Off, Lang::Pl),
    (&["otworzyc"], Open, Lang::Pl),
    (&["zamknac"], Close, Lang::Pl),
    (&["zablokowac"], Lock, Lang::Pl),
    (&["odblokowac"], Unlock, Lang::Pl),
    (&["uruchomic"], Start, Lang::Pl),
    (&["wstrzymac"], Pause, Lang::Pl),
    (&["wznowic"], Resume, Lang::Pl),
    (&["wyciszyc"], Mute, Lang::Pl),
    (&["zatrzymac"], Stop, Lang::Pl),
    (&["einschalten"], On, Lang::De),
    (&["ausschalten"], Off, Lang::De),
    (&["offne"], Open, Lang::De),
    (&["oeffne"], Open, Lang::De),
    (&["giesse"], Open, Lang::De),
    (&["bewassere"], Open, Lang::De),
    (&["schliesse"], Close, Lang::De),
    (&["schliess"], Close, Lang::De),
    (&["verriegle"], Lock, Lang::De),
    (&["entriegle"], Unlock, Lang::De),
    (&["entsperre"], Unlock, Lang::De),
    (&["sperre"], Lock, Lang::De),
    (&["starte"], Start, Lang::De),
    (&["pausiere"], Pause, Lang::De),
    (&["umschalten"], Toggle, Lang::De),
    // Separable verbs said whole, as an infinitive ends a request ("kannst du das Licht
    // ausmachen?").
    (&["anmachen"], On, Lang::De),
    (&["ausmachen"], Off, Lang::De),
    (&["aufmachen"], Open, Lang::De),
    (&["zumachen"], Close, Lang::De),
    (&["abschliessen"], Lock, Lang::De),
    (&["zuschliessen"], Lock, Lang::De),
    (&["aufschliessen"], Unlock, Lang::De),
    (&["aufsperren"], Unlock, Lang::De),
    (&["pausieren"], Pause, Lang::De),
    (&["fortsetzen"], Resume, Lang::De),
    (&["weiterspielen"], Resume, Lang::De),
    (&["stoppe"], Stop, Lang::De),
    (&["stopp"], Stop, Lang::De),
];

/// Separable verbs: the verb, then its particle anywhere later ("schalte das Licht ein",
/// "schließ die Tür ab", "spiel die Musik weiter", "turn everything off in the bedroom"); the
/// particle says what the verb does.
/// A separable verb's forms, its particles with what each makes it mean, and its language.
type Separable = (
    &'static [&'static str],
    &'static [(&'static str, Intent)],
    Lang,
);

pub(super) const SEPARABLE: [Separable; 5] = [
    (
        &["schalte", "schalt", "mach", "mache", "dreh", "drehe"],
        &[
            ("ein", On),
            ("an", On),
            ("aus", Off),
            ("auf", Open),
            ("zu", Close),
        ],
        Lang::De,
    ),
    (
        &["schliess", "schliesse", "sperr", "sperre"],
        &[("ab", Lock), ("zu", Lock), ("auf", Unlock)],
        Lang::De,
    ),
    (&["spiel", "spiele"], &[("weiter", Resume)], Lang::De),
    (&["stell", "stelle"], &[("ab", Off), ("an", On)], Lang::De),
    (&["turn", "switch"], &[("on", On), ("off", Off)], Lang::En),
];

/// A trailing word that alone says what to do, when no verb does: "kitchen light off",
/// "Garagentor zu", "Deko-Lichter an".
const TRAILING: [(&str, Intent, Lang); 7] = [
    ("on", On, Lang::En),
    ("off", Off, Lang::En),
    ("an", On, Lang::De),
    ("ein", On, Lang::De),
    ("aus", Off, Lang::De),
    ("zu", Close, Lang::De),
    ("auf", Open, Lang::De),
];

/// Words that carry the request's shape but name no device.
pub(super) const FILLER: [&str; 53] = [
    "set",
    "schalte",
    "schalt",
    "switching",
    "turning",
    "stell",
    "mal",
    "zmien",
    "zmienic",
    "mach",
    "mache",
    "colour",
    "color",
    "kolor",
    "mode",
    "degrees",
    "degree",
    "playing",
    "vacuuming",
    "cleaning",
    "water",
    "turn",
    "make",
    "dim",
    "to",
    "brightness",
    "percent",
    "procent",
    "prozent",
    "volume",
    "glosnosc",
    "lautstarke",
    "jasnosc",
    "helligkeit",
    "song",
    "track",
    "base",
    "back",
    "down",
    "up",
    "again",
    "now",
    "ustaw",
    "stelle",
    "setze",
    "auf",
    "na",
    "the",
    "please",
    "can",
    "you",
    "could",
    "its",
];

/// States a question may ask about (folded words, en/pl/de) and the state they mean.
pub(super) const STATE_WORDS: [(&str, &[&str]); 9] = [
    (
        "on",
        &[
            "on",
            "wlaczone",
            "wlaczony",
            "wlaczona",
            "swieci",
            "swieca",
            "an",
            "eingeschaltet",
        ],
    ),
    (
        "off",
        &[
            "off",
            "wylaczone",
            "wylaczony",
            "wylaczona",
            "aus",
            "ausgeschaltet",
        ],
    ),
    (
        "open",
        &[
            "open",
            "otwarte",
            "otwarty",
            "otwarta",
            "otwartych",
            "otwartego",
            "offen",
            "geoffnet",
        ],
    ),
    (
        "closed",
        &[
            "closed",
            "zamkniete",
            "zamkniety",
            "zamknieta",
            "zamknietych",
            "geschlossen",
            "zu",
        ],
    ),
    (
        "locked",
        &[
            "locked",
            "zablokowane",
            "zablokowany",
            "verriegelt",
            "abgeschlossen",
        ],
    ),
    (
        "unlocked",
        &["unlocked", "odblokowane", "odblokowany", "entriegelt"],
    ),
    ("playing", &["playing", "gra", "spielt", "lauft", "laeuft"]),
    (
        "paused",
        &["paused", "wstrzymany", "wstrzymane", "pausiert"],
    ),
    // A player that stopped shows `idle` in Home Assistant.
    (
        "idle",
        &["stopped", "idle", "zatrzymany", "zatrzymane", "gestoppt"],
    ),
];

/// The state a word says ("aus", "zamknięte" folded, "locked"), as Home Assistant writes it.
pub fn state_named(word: &str) -> Option<&'static str> {
    STATE_WORDS
        .iter()
        .find(|(_, forms)| forms.contains(&word))
        .map(|(state, _)| *state)
}

/// Question openers: a question about the home is not an action.
pub(super) const QUESTION_WORDS: [&str; 16] = [
    "is", "are", "what", "which", "how", "does", "do", "did", "czy", "jaki", "jaka", "ile", "ist",
    "sind", "welche", "wie",
];

/// Whether the person asks rather than tells: a question mark, or a question word first.
pub fn is_question(text: &str) -> bool {
    const MORE: [&str; 14] = [
        "who", "where", "when", "why", "kto", "gdzie", "kiedy", "co", "jakie", "czemu", "wer",
        "wo", "wann", "was",
    ];
    if text.trim_end().ends_with('?') {
        return true;
    }
    let (words, _) = words_of(text);
    words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()) || MORE.contains(&w.as_str()))
}

/// The language a question is in, from its first word.
pub(super) fn question_lang(first: &str) -> Lang {
    match first {
        "czy" | "jaka" | "jaki" | "jakie" | "ile" | "ktore" | "ktory" | "ktora" => Lang::Pl,
        "ist" | "sind" | "wie" | "welche" | "welcher" | "welches" | "lauft" | "laeuft" | "gibt"
        | "brennt" => Lang::De,
        _ => Lang::En,
    }
}

/// Verbs for watering ("water the garden", "podlej ogród", "gieße den Garten"): the first
/// word of a command that only a valve answers.
pub(super) const WATERING: [&str; 6] =
    ["water", "podlej", "podlac", "giesse", "giess", "bewassere"];

/// Whether the command is about the water supply: it opens with a watering verb, or names
/// "the water" ("turn off the water in the front yard"), which only a valve answers — but not
/// the water heater.
pub(super) fn watering(words: &[String]) -> bool {
    let noun = words.iter().enumerate().skip(1).any(|(i, w)| {
        w == "water"
            && !words.get(i + 1).is_some_and(|next| {
                ["heater", "heating", "boiler", "tank"].contains(&next.as_str())
            })
    });
    noun || words
        .first()
        .is_some_and(|w| WATERING.contains(&w.as_str()))
}

/// Words for cleaning ("start vacuuming", "clean the living room"): only a vacuum cleans.
pub const CLEANING: [&str; 7] = [
    "vacuum",
    "vacuuming",
    "clean",
    "cleaning",
    "odkurz",
    "odkurzaj",
    "sauge",
];

/// Colour words (folded, any grammatical form people use) and the CSS colour they name.
pub(super) const COLOURS: [(&[&str], &str); 8] = [
    (
        &[
            "red", "czerwony", "czerwone", "czerwona", "czerwien", "rot", "rote", "roten", "rotes",
        ],
        "red",
    ),
    (
        &[
            "blue",
            "niebieski",
            "niebieskie",
            "niebieska",
            "blau",
            "blaue",
            "blauen",
            "blaues",
        ],
        "blue",
    ),
    (
        &[
            "green", "zielony", "zielone", "zielona", "grun", "grune", "grunen", "gruen",
        ],
        "green",
    ),
    (
        &[
            "yellow", "zolty", "zolte", "zolta", "gelb", "gelbe", "gelben",
        ],
        "yellow",
    ),
    (
        &["orange", "pomaranczowy", "pomaranczowe", "pomaranczowa"],
        "orange",
    ),
    (
        &[
            "purple",
            "fioletowy",
            "fioletowe",
            "fioletowa",
            "lila",
            "violett",
        ],
        "purple",
    ),
    (&["pink", "rozowy", "rozowe", "rozowa", "rosa"], "pink"),
    (
        &[
            "white", "bialy", "biale", "biala", "weiss", "weisse", "weissen",
        ],
        "white",
    ),
];

/// The colour the words name, and where. A colour before a kind word is part of a name
/// ("the white lights", "Entrance Color + White Lights"), not a colour to set.
fn colour(words: &[String]) -> Option<(&'static str, usize)> {
    words.iter().enumerate().find_map(|(i, w)| {
        if words
            .get(i + 1)
            .is_some_and(|next| domain_of_word(next).is_some())
        {
            return None;
        }
        COLOURS
            .iter()
            .find(|(forms, _)| forms.contains(&w.as_str()))
            .map(|(_, css)| (*css, i))
    })
}

/// Words that make a domain-only command mean every device of that kind.
pub(super) const EVERY: [&str; 5] = ["all", "every", "wszystkie", "alle", "samtliche"];

/// The service (and its fields) an intent means for a domain, if it means one.
pub(super) fn service_for(
    intent: Intent,
    domain: &str,
    volume: bool,
) -> Option<(&'static str, Value)> {
    if volume && domain != "media_player" {
        // "volume" names what to change: only a media player has one.
        return None;
    }
    let none = || json!({});
    let pair = match (intent, domain) {
        (Percent(n), "media_player") if volume => {
            ("volume_set", json!({"volume_level": f64::from(n) / 100.0}))
        }
        (_, "media_player") if volume && !matches!(intent, Mute) => return None,
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
        (Degrees(n), "climate" | "water_heater") => ("set_temperature", json!({"temperature": n})),
        (Mode(mode), "climate") => ("set_hvac_mode", json!({"hvac_mode": mode.as_str()})),
        (Color(css), "light") => ("turn_on", json!({"color_name": css})),
        (Pause, "vacuum") => ("pause", none()),
        (Pause, "media_player") => ("media_pause", none()),
        (Resume | Start, "media_player") => ("media_play", none()),
        (Next, "media_player") => ("media_next_track", none()),
        (Mute, "media_player") => ("volume_mute", json!({"is_volume_muted": true})),
        _ => return None,
    };
    Some(pair)
}

/// A percentage in the words ("50%", "50 percent", "50 procent"), and the words it used.
/// `percent_at` is the word a `%` followed in the raw text (folding drops the sign).
pub(super) fn percentage(words: &[String], percent_at: Option<usize>) -> Option<(u8, Vec<usize>)> {
    // "Volume to zero", "half brightness", "Lautstärke auf null": a level said in words, when
    // the words say what the level is of.
    const LEVEL_OF: [&str; 6] = [
        "volume",
        "glosnosc",
        "lautstarke",
        "brightness",
        "jasnosc",
        "helligkeit",
    ];
    const LEVELS: [(&str, u8); 10] = [
        ("zero", 0),
        ("null", 0),
        ("half", 50),
        ("polowe", 50),
        ("polowa", 50),
        ("pol", 50),
        ("halbe", 50),
        ("halb", 50),
        ("full", 100),
        ("max", 100),
    ];
    if words.iter().any(|w| LEVEL_OF.contains(&w.as_str()))
        && let Some((i, n)) = words
            .iter()
            .enumerate()
            .find_map(|(i, w)| LEVELS.iter().find(|(l, _)| l == w).map(|(_, n)| (i, *n)))
    {
        return Some((n, vec![i]));
    }
    for (i, w) in words.iter().enumerate() {
        let Ok(n) = w.parse::<u8>() else {
            continue;
        };
        if n > 100 {
            continue;
        }
        let unit = words
            .get(i + 1)
            .is_some_and(|u| ["percent", "procent", "prozent"].contains(&u.as_str()));
        if unit {
            return Some((n, vec![i, i + 1]));
        }
        if percent_at == Some(i) {
            return Some((n, vec![i]));
        }
    }
    None
}

/// A temperature in the words ("21 degrees", "21 stopni", "21 Grad", "21°": [`words_of`]
/// writes a `°` as the word "degrees"), and the words it used.
pub(super) fn degrees(words: &[String]) -> Option<(u8, Vec<usize>)> {
    const UNITS: [&str; 7] = [
        "degrees", "degree", "stopni", "stopnie", "stopnia", "grad", "celsius",
    ];
    words.iter().enumerate().find_map(|(i, w)| {
        let n = w.parse::<u8>().ok()?;
        words
            .get(i + 1)
            .is_some_and(|u| UNITS.contains(&u.as_str()))
            .then(|| (n, vec![i, i + 1]))
    })
}

/// Verbs that only say which way a temperature goes.
const TEMPERATURE_VERBS: [&str; 10] = [
    "heat", "warm", "cool", "up", "podgrzej", "ogrzej", "schlodz", "heize", "warme", "kuhle",
];

/// The folded words, and the index of the word a raw `%` followed.
pub(super) fn words_of(text: &str) -> (Vec<String>, Option<usize>) {
    let mut words = Vec::new();
    let mut percent_at = None;
    for raw in text.split_whitespace() {
        let has_percent = raw.contains('%');
        for w in fold(raw).split(' ').filter(|w| !w.is_empty()) {
            words.push(w.to_owned());
        }
        if has_percent && !words.is_empty() {
            percent_at = Some(words.len() - 1);
        }
        if raw.contains('°') {
            words.push("degrees".to_owned());
        }
    }
    (words, percent_at)
}

/// The intent, its language and the word positions it used; `None` for none or two.
pub(super) fn intent(
    words: &[String],
    percent_at: Option<usize>,
) -> Option<(Intent, Lang, Vec<usize>)> {
    let mut found: Vec<(Intent, Lang, Vec<usize>)> = Vec::new();
    let mut used = vec![false; words.len()];
    for (phrase, intent, lang) in PHRASES {
        let n = phrase.len();
        if let Some(start) = (0..words.len().saturating_sub(n - 1))
            .find(|&s| !used[s] && (0..n).all(|k| words[s + k] == phrase[k]))
        {
            // A later "lock" in "unlock the smart lock" is the device, not a second intent;
            // "water" and "clean" are verbs only first ("turn off the water").
            if start > 0
                && n == 1
                && (domain_of_word(&words[start]).is_some()
                    || ["water", "clean"].contains(&phrase[0]))
            {
                continue;
            }
            (start..start + n).for_each(|k| used[k] = true);
            found.push((*intent, *lang, (start..start + n).collect()));
        }
    }
    if let Some((verb, particles, lang)) = words.iter().enumerate().find_map(|(i, w)| {
        SEPARABLE
            .iter()
            .find(|(verbs, ..)| verbs.contains(&w.as_str()))
            .map(|(_, particles, lang)| (i, *particles, *lang))
    }) && !found
        .iter()
        .any(|(_, _, at)| at.len() > 1 && at.contains(&verb))
        && let Some((at, particle)) = words
            .iter()
            .enumerate()
            .skip(verb + 1)
            .rev()
            .filter(|(i, _)| !used[*i])
            .find_map(|(i, w)| particles.iter().find(|(p, _)| p == w).map(|(_, x)| (i, *x)))
    {
        // The verb with its particle is one intent: "schließ … ab" locks, whatever "schließ"
        // alone would mean.
        found.retain(|(_, _, at)| !at.contains(&verb));
        found.push((particle, lang, vec![verb, at]));
    }
    // "kitchen light off", "all the lights off please": a trailing on/off is the intent.
    const AFTER: [&str; 7] = [
        "please", "prosze", "bitte", "now", "thanks", "teraz", "danke",
    ];
    let end = words
        .iter()
        .rposition(|w| !AFTER.contains(&w.as_str()))
        .map_or(0, |i| i + 1);
    if found.is_empty()
        && let Some(last) = words[..end].last()
        && let Some((_, i, lang)) = TRAILING.iter().find(|(w, ..)| w == last)
    {
        // "Switch the upstairs lights on": a leading "switch" is the verb, not a kind.
        let mut at = vec![end - 1];
        if words.len() > 2 && words[0] == "switch" {
            at.insert(0, 0);
        }
        found.push((*i, *lang, at));
    }
    // "zamknij drzwi na klucz": closed with a key is locked, opened with one unlocked.
    if let [(intent @ (Close | Open), _, at)] = found.as_mut_slice()
        && let Some(key) = words.iter().position(|w| w == "klucz")
    {
        *intent = if *intent == Close { Lock } else { Unlock };
        at.push(key);
    }
    // "Vacuum, return to base": a device word that could be a verb addresses the device when
    // another verb says what to do.
    let a_verb = |at: &[usize]| at.len() > 1 || domain_of_word(&words[at[0]]).is_none();
    if found.len() > 1 && found.iter().any(|(_, _, at)| a_verb(at)) {
        found.retain(|(_, _, at)| a_verb(at));
    }
    // "skip to the next track" says one thing twice.
    while found.len() > 1
        && found.iter().all(|f| f.0 == found[0].0)
        && let Some((_, _, more)) = found.pop()
    {
        found[0].2.extend(more);
    }
    // "Make the bed light red", "set the lights to blue", "turn the lamp on, red".
    if let Some((css, at)) = colour(words) {
        return match found.as_slice() {
            [] => Some((Color(css), Lang::En, vec![at])),
            [(On, lang, used)] => {
                let mut used = used.clone();
                used.push(at);
                Some((Color(css), *lang, used))
            }
            _ => None,
        };
    }
    let percent = percentage(words, percent_at);
    if let Some((n, at)) = degrees(words)
        && percent.is_none()
    {
        // "set the heating to 21 degrees", "ustaw termostat na 21 stopni": the number says what.
        // "Heat up the sauna to 90 degrees": with a temperature, a heating verb only says how.
        let mut at = at;
        at.extend(
            words
                .iter()
                .enumerate()
                .filter(|(_, w)| TEMPERATURE_VERBS.contains(&w.as_str()))
                .map(|(i, _)| i),
        );
        let unit = words[at[1]].as_str();
        let lang = match unit {
            "stopni" | "stopnie" | "stopnia" => Lang::Pl,
            "grad" => Lang::De,
            _ => Lang::En,
        };
        return match found.as_slice() {
            [] => Some((Degrees(n), lang, at)),
            [(On | Off, lang, used)] => {
                let mut used = used.clone();
                used.extend(at);
                Some((Degrees(n), *lang, used))
            }
            _ => None,
        };
    }
    match (found.len(), percent) {
        (0, Some((n, at))) => Some((Percent(n), Lang::En, at)),
        // "turn the volume down to 50%", "set it on 50%": the number says what.
        (1, Some((n, at))) if matches!(found[0].0, On | Off) => {
            let mut used = found[0].2.clone();
            used.extend(at);
            Some((Percent(n), found[0].1, used))
        }
        (1, None) => found.pop(),
        _ => None,
    }
}

/// "add X to L", "put X on L", "dodaj X do L", "füge X zu L hinzu", "setze X auf L": the verb,
/// the preposition before the list's name, and the language.
pub(super) const ADD_ITEM: [(&str, &[&str], Lang); 6] = [
    ("add", &["to"], Lang::En),
    ("put", &["on", "onto"], Lang::En),
    ("dodaj", &["do", "na"], Lang::Pl),
    ("fuge", &["zu", "zur", "zum"], Lang::De),
    ("fuege", &["zu", "zur", "zum"], Lang::De),
    ("setze", &["auf"], Lang::De),
];

/// Whether a command asks for an action (one intent, not a question), whatever its target.
pub fn is_action(text: &str) -> bool {
    if let Some(request) = unwrapped_request(text) {
        return is_action(&request);
    }
    let trimmed = text.trim();
    if trimmed.ends_with('?') {
        return false;
    }
    let (words, percent_at) = words_of(trimmed);
    let question = words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()));
    let adds = ADD_ITEM
        .iter()
        .any(|(verb, ..)| words.first().is_some_and(|w| w == verb));
    !question && (adds || intent(&words, percent_at).is_some())
}

/// Words that join two requests in one command.
pub(super) const JOINERS: [&str; 6] = ["and", "then", "also", "i", "oraz", "und"];

/// One action and nothing more: no second request joined on, no question.
pub fn is_single_action(text: &str) -> bool {
    let (words, _) = words_of(text);
    is_action(text) && !text.contains(',') && !words.iter().any(|w| JOINERS.contains(&w.as_str()))
}

/// A request said politely ("can you …", "could you please …", "kannst du …", "czy możesz
/// …"): the request itself, when the rest carries an intent; `None` otherwise (a question
/// about ability or state stays a question).
pub fn unwrapped_request(text: &str) -> Option<String> {
    const WRAPPERS: [&[&str]; 17] = [
        &["would", "you", "mind"],
        &["do", "you", "mind"],
        &["can", "you"],
        &["could", "you"],
        &["would", "you"],
        &["will", "you"],
        &["can", "u"],
        &["kannst", "du"],
        &["konntest", "du"],
        &["wurdest", "du"],
        &["wuerdest", "du"],
        &["konnen", "sie"],
        &["czy", "mozesz"],
        &["czy", "moglbys"],
        &["czy", "mozna"],
        &["mozesz"],
        &["moglbys"],
    ];
    const PLEASE: [&str; 3] = ["please", "bitte", "prosze"];
    let raw: Vec<&str> = text
        .trim()
        .trim_end_matches(['?', '.', '!'])
        .split_whitespace()
        .collect();
    let folded: Vec<String> = raw.iter().map(|w| crate::text::fold(w)).collect();
    let leads = |w: &[&str]| w.len() <= folded.len() && w.iter().zip(&folded).all(|(a, b)| a == b);
    if let Some(wish) = DESIRES.iter().find(|(w, _)| leads(w)) {
        return desired(&raw[wish.0.len()..], wish.1);
    }
    let skip = WRAPPERS.iter().find(|w| leads(w)).map(|w| w.len())?;
    let rest: Vec<&str> = raw[skip..]
        .iter()
        .zip(&folded[skip..])
        .filter(|(_, f)| !PLEASE.contains(&f.trim_matches(|c: char| !c.is_alphanumeric())))
        .map(|(r, _)| *r)
        .collect();
    let rest = rest.join(" ");
    let (words, percent_at) = words_of(&rest);
    intent(&words, percent_at).map(|_| rest)
}

/// "I want …", "chcę, żeby …", "ich möchte, dass …": a wish for a state, and the language of
/// the words that say it.
const DESIRES: [(&[&str], Lang); 8] = [
    (&["i", "want"], Lang::En),
    (&["i", "would", "like"], Lang::En),
    (&["id", "like"], Lang::En),
    (&["chce", "zeby"], Lang::Pl),
    (&["chcialbym", "zeby"], Lang::Pl),
    (&["chcialabym", "zeby"], Lang::Pl),
    (&["ich", "mochte", "dass"], Lang::De),
    (&["ich", "will", "dass"], Lang::De),
];

/// The request a wish for a state makes ("the kitchen light on", "światło w kuchni było
/// włączone", "das Küchenlicht an ist"): the state word becomes its verb in the wish's language;
/// `None` when the wish names no state we act on.
fn desired(rest: &[&str], lang: Lang) -> Option<String> {
    // Verbs of being that tie the wish to its state.
    const BE: [&str; 9] = [
        "be", "to", "bylo", "byly", "byl", "byla", "ist", "sind", "wird",
    ];
    // "I want to know if the lights are on" asks; it wishes for nothing.
    const ASKING: [&str; 7] = ["if", "whether", "know", "czy", "wiedziec", "ob", "wissen"];
    let folded: Vec<String> = rest.iter().map(|w| crate::text::fold(w)).collect();
    if folded.iter().any(|w| ASKING.contains(&w.as_str())) {
        return None;
    }
    // "I want to turn on the lights": the wish is already a request.
    let (words, percent_at) = words_of(&rest.join(" "));
    if intent(&words, percent_at).is_some() {
        return Some(rest.join(" "));
    }
    let (at, state) = folded
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, w)| state_named(w).map(|s| (i, s)))?;
    let verb = match (state, lang) {
        ("on", Lang::En) => "turn on",
        ("off", Lang::En) => "turn off",
        ("open", Lang::En) => "open",
        ("closed", Lang::En) => "close",
        ("locked", Lang::En) => "lock",
        ("unlocked", Lang::En) => "unlock",
        ("on", Lang::Pl) => "włącz",
        ("off", Lang::Pl) => "wyłącz",
        ("open", Lang::Pl) => "otwórz",
        ("closed", Lang::Pl) => "zamknij",
        ("locked", Lang::Pl) => "zablokuj",
        ("unlocked", Lang::Pl) => "odblokuj",
        ("on", Lang::De) => "einschalten",
        ("off", Lang::De) => "ausschalten",
        ("open", Lang::De) => "öffne",
        ("closed", Lang::De) => "schließe",
        ("locked", Lang::De) => "verriegle",
        ("unlocked", Lang::De) => "entriegle",
        _ => return None,
    };
    let target: Vec<&str> = rest
        .iter()
        .zip(&folded)
        .enumerate()
        .filter(|(i, (_, f))| *i != at && !BE.contains(&f.as_str()))
        .map(|(_, (r, _))| r.trim_end_matches(','))
        .collect();
    let request = format!("{verb} {}", target.join(" "));
    let (words, percent_at) = words_of(&request);
    intent(&words, percent_at).map(|_| request)
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

/// The language a command's question word or intent words are in (English when none is
/// recognised).
pub fn language_of(text: &str) -> Lang {
    let (words, percent_at) = words_of(text);
    if let Some(first) = words
        .first()
        .filter(|w| QUESTION_WORDS.contains(&w.as_str()))
    {
        return question_lang(first);
    }
    if let Some((_, lang, _)) = intent(&words, percent_at) {
        return lang;
    }
    ADD_ITEM
        .iter()
        .find(|(verb, ..)| words.first().is_some_and(|w| w == verb))
        .map_or(Lang::En, |(_, _, lang)| *lang)
}
