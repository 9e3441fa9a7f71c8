//! The deterministic fast path: a command that names one intent (on/off, open/close,
//! lock/unlock, start, dock, pause, resume, next, mute, toggle, a percentage, adding an item to
//! a to-do list) and resolves to one target set in the live registry runs without asking the
//! model at all. It is executed through
//! the same call path as a model's call (validation, policy, approval, verification), so the only
//! thing skipped is the guessing.
//!
//! Invariants: pure (the registry in, a plan out); anything uncertain — a question, no intent,
//! two intents, a word no target explains, several equally good targets of different kinds — is
//! [`Plan::Model`]; a single-device command with a few equally good targets of one kind asks
//! which, naming them.

use serde_json::{Value, json};

use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::{Entity, Registry};
use crate::ha::search::{Query, domain_of_word, word_score};
use crate::text::{fold, tokens};

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Intent {
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
    Percent(u8),
}

use Intent::*;

/// Words (folded, contiguous) that name an intent, per language.
const PHRASES: &[(&[&str], Intent, Lang)] = &[
    (&["turn", "on"], On, Lang::En),
    (&["switch", "on"], On, Lang::En),
    (&["turn", "off"], Off, Lang::En),
    (&["switch", "off"], Off, Lang::En),
    (&["open"], Open, Lang::En),
    (&["close"], Close, Lang::En),
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
    (&["wlacz"], On, Lang::Pl),
    (&["zapal"], On, Lang::Pl),
    (&["wylacz"], Off, Lang::Pl),
    (&["zgas"], Off, Lang::Pl),
    // "otwórz zamek": opening a lock is unlocking it.
    (&["otworz", "zamek"], Unlock, Lang::Pl),
    (&["otworz"], Open, Lang::Pl),
    (&["zamknij"], Close, Lang::Pl),
    (&["zablokuj"], Lock, Lang::Pl),
    (&["odblokuj"], Unlock, Lang::Pl),
    (&["uruchom"], Start, Lang::Pl),
    (&["wstrzymaj"], Pause, Lang::Pl),
    (&["wznow"], Resume, Lang::Pl),
    (&["wycisz"], Mute, Lang::Pl),
    (&["przelacz"], Toggle, Lang::Pl),
    (&["einschalten"], On, Lang::De),
    (&["ausschalten"], Off, Lang::De),
    (&["offne"], Open, Lang::De),
    (&["oeffne"], Open, Lang::De),
    (&["schliesse"], Close, Lang::De),
    (&["schliess"], Close, Lang::De),
    (&["verriegle"], Lock, Lang::De),
    (&["entriegle"], Unlock, Lang::De),
    (&["entsperre"], Unlock, Lang::De),
    (&["sperre"], Lock, Lang::De),
    (&["starte"], Start, Lang::De),
    (&["pausiere"], Pause, Lang::De),
    (&["umschalten"], Toggle, Lang::De),
];

/// German separable verbs: the verb, then its particle anywhere later ("schalte das Licht ein").
const SEPARABLE: [&str; 5] = ["schalte", "schalt", "mach", "mache", "dreh"];
const PARTICLES: [(&str, Intent); 5] = [
    ("ein", On),
    ("an", On),
    ("aus", Off),
    ("auf", Open),
    ("zu", Close),
];

/// Words that carry the request's shape but name no device.
const FILLER: [&str; 37] = [
    "set",
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

/// Question openers: a question about the home is not an action.
const QUESTION_WORDS: [&str; 16] = [
    "is", "are", "what", "which", "how", "does", "do", "did", "czy", "jaki", "jaka", "ile", "ist",
    "sind", "welche", "wie",
];

/// Words that make a domain-only command mean every device of that kind.
const EVERY: [&str; 5] = ["all", "every", "wszystkie", "alle", "samtliche"];

/// One service call the fast path makes.
#[derive(Debug, Clone, PartialEq)]
pub struct FastCall {
    pub domain: String,
    pub service: String,
    pub entity_ids: Vec<String>,
    pub data: Value,
}

impl FastCall {
    /// The `call_service` tool arguments for this call.
    pub fn arguments(&self) -> Value {
        let mut args = json!({
            "domain": self.domain,
            "service": self.service,
            "entity_id": self.entity_ids,
        });
        if self.data.as_object().is_some_and(|d| !d.is_empty()) {
            args["data"] = self.data.clone();
        }
        args
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// A question about the home answered from the live registry.
    Answer { text: String, lang: Lang },
    /// Run these calls (one per domain), then reply from their verification.
    Act { calls: Vec<FastCall>, lang: Lang },
    /// A few equally good targets for a single-device command: ask which.
    Ask { question: String, lang: Lang },
    /// Not certain: the model decides.
    Model,
}

/// The service (and its fields) an intent means for a domain, if it means one.
fn service_for(intent: Intent, domain: &str, volume: bool) -> Option<(&'static str, Value)> {
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
        (Start, "vacuum") | (Resume, "vacuum") => ("start", none()),
        (Dock, "vacuum") => ("return_to_base", none()),
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
fn percentage(words: &[String], percent_at: Option<usize>) -> Option<(u8, Vec<usize>)> {
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

/// The folded words, and the index of the word a raw `%` followed.
fn words_of(text: &str) -> (Vec<String>, Option<usize>) {
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
    }
    (words, percent_at)
}

/// The intent, its language and the word positions it used; `None` for none or two.
fn intent(words: &[String], percent_at: Option<usize>) -> Option<(Intent, Lang, Vec<usize>)> {
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
    if let Some(verb) = words.iter().position(|w| SEPARABLE.contains(&w.as_str()))
        && let Some((offset, particle)) = words[verb + 1..]
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, w)| PARTICLES.iter().find(|(p, _)| p == w).map(|(_, x)| (i, *x)))
    {
        found.push((particle, Lang::De, vec![verb, verb + 1 + offset]));
    }
    // "kitchen light off": a trailing on/off is the intent.
    if found.is_empty()
        && let Some(last) = words.last()
    {
        let trailing = match last.as_str() {
            "on" => Some(On),
            "off" => Some(Off),
            _ => None,
        };
        if let Some(i) = trailing {
            found.push((i, Lang::En, vec![words.len() - 1]));
        }
    }
    // "skip to the next track" says one thing twice.
    while found.len() > 1
        && found.iter().all(|f| f.0 == found[0].0)
        && let Some((_, _, more)) = found.pop()
    {
        found[0].2.extend(more);
    }
    let percent = percentage(words, percent_at);
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

/// Room, device and measure words in Polish and German (folded, common inflections, German
/// compound parts) and the English word a home set up in English names them with: "w kuchni"
/// finds the "Kitchen" area, "Deckenventilator" the "Ceiling Fan". A home named in Polish or
/// German matches its own words directly.
const WORDS: [(&str, &[&str]); 25] = [
    (
        "kitchen",
        &[
            "kuchnia", "kuchni", "kuchnie", "kuche", "kueche", "kuchen", "kuechen",
        ],
    ),
    (
        "bedroom",
        &["sypialnia", "sypialni", "sypialnie", "schlafzimmer"],
    ),
    ("living", &["salon", "salonie", "wohnzimmer"]),
    ("bathroom", &["lazienka", "lazience", "badezimmer", "bad"]),
    (
        "office",
        &["biuro", "biurze", "buro", "bueros", "arbeitszimmer"],
    ),
    (
        "hall",
        &["korytarz", "korytarzu", "przedpokoj", "flur", "diele"],
    ),
    ("garage", &["garaz", "garazu"]),
    ("garden", &["ogrod", "ogrodzie", "garten"]),
    ("dining", &["jadalnia", "jadalni", "esszimmer"]),
    ("entrance", &["wejscie", "wejsciu", "eingang"]),
    (
        "outside",
        &["zewnatrz", "draussen", "aussen", "outdoor", "outdoors"],
    ),
    (
        "outdoor",
        &["outside", "outdoors", "zewnatrz", "draussen", "aussen"],
    ),
    ("temperature", &["temperatura", "temperatur"]),
    (
        "humidity",
        &["wilgotnosc", "luftfeuchtigkeit", "feuchtigkeit"],
    ),
    (
        "ceiling",
        &[
            "decke",
            "decken",
            "sufit",
            "sufitowe",
            "sufitowy",
            "sufitowa",
            "sufitowych",
        ],
    ),
    (
        "fan",
        &[
            "ventilator",
            "ventilatoren",
            "wentylator",
            "wentylatora",
            "wentylatory",
        ],
    ),
    ("window", &["fenster", "okno", "okna", "oknie"]),
    (
        "door",
        &["tur", "tuer", "ture", "turen", "drzwi", "drzwiach"],
    ),
    (
        "front",
        &[
            "haus",
            "vorder",
            "wejsciowe",
            "wejsciowych",
            "wejsciowy",
            "wejsciowej",
            "frontowe",
            "frontowych",
        ],
    ),
    (
        "decorative",
        &[
            "deko",
            "dekorative",
            "dekorativen",
            "dekoracyjne",
            "dekoracyjny",
            "dekoracyjnych",
        ],
    ),
    (
        "ac",
        &[
            "klimaanlage",
            "klimatyzacja",
            "klimatyzacje",
            "klimatyzacji",
            "klimatyzator",
        ],
    ),
    ("heatpump", &["warmepumpe", "waermepumpe"]),
    ("lock", &["schloss", "zamek", "zamka"]),
    ("bed", &["bett", "lozko", "lozku"]),
    (
        "curtain",
        &["vorhang", "vorhange", "zaslona", "zaslony", "zaslone"],
    ),
];

/// A query word matches a name word, itself or as the English room word it translates to.
fn word_matches(query: &str, word: &str) -> bool {
    word_score(query, word) > 0.0
        || WORDS
            .iter()
            .filter(|(_, forms)| forms.contains(&query))
            .any(|(english, _)| word_score(english, word) > 0.0)
}

/// A word the tables know: a translated form, the English word it translates to, or a kind.
fn known_word(word: &str) -> bool {
    domain_of_word(word).is_some()
        || WORDS
            .iter()
            .any(|(english, forms)| *english == word || forms.contains(&word))
}

/// A German compound the home does not name as one word, split into two known words:
/// "deckenleuchten" is "decken leuchten", "haustur" is "haus tur". A home that names a device
/// with the compound itself ("Deckenleuchte") matches it whole and is never split.
fn split_compound(word: &str, registry: &Registry) -> Option<[String; 2]> {
    if word.len() < 7 || known_word(word) {
        return None;
    }
    let named_so = registry.entities().any(|e| {
        let hay = &e.haystack;
        hay.name
            .iter()
            .chain(&hay.object_id)
            .chain(&hay.area)
            .any(|w| word_score(word, w) > 0.0)
    });
    if named_so {
        return None;
    }
    (3..=word.len() - 3)
        .filter(|&i| word.is_char_boundary(i))
        .find_map(|i| {
            let (left, right) = word.split_at(i);
            (known_word(left) && known_word(right)).then(|| [left.to_owned(), right.to_owned()])
        })
}

/// The words left to name the target, German compounds split, as a search query.
fn query_of(rest: &[&str], registry: &Registry) -> Query {
    let words: Vec<String> = rest
        .iter()
        .flat_map(|w| split_compound(w, registry).map_or_else(|| vec![(*w).to_owned()], Vec::from))
        .collect();
    Query::new(&tokens(&words.join(" ")).join(" "))
}

/// Every query word is explained by this entity: a word of its name, id or area, or a word
/// for its kind.
fn covers(entity: &Entity, query: &Query) -> bool {
    let hay = &entity.haystack;
    query.words.iter().all(|q| {
        hay.name
            .iter()
            .chain(&hay.object_id)
            .chain(&hay.area)
            .any(|w| word_matches(q, w))
            || domain_of_word(q).is_some_and(|kind| {
                // "Beleuchtung" explains a switch named "Decorative Lights": its name says the
                // kind. It does not *name* it (a kind word never picks one device alone).
                kind == entity.domain() || hay.name.iter().any(|w| word_score(kind, w) > 0.0)
            })
    })
}

/// Every word of the entity's name is in the query.
fn named(entity: &Entity, query: &Query) -> bool {
    !entity.haystack.name.is_empty()
        && entity
            .haystack
            .name
            .iter()
            .all(|w| query.words.iter().any(|q| word_matches(q, w)))
}

/// "add X to L", "put X on L", "dodaj X do L", "füge X zu L hinzu", "setze X auf L": the verb,
/// the preposition before the list's name, and the language.
const ADD_ITEM: [(&str, &[&str], Lang); 6] = [
    ("add", &["to"], Lang::En),
    ("put", &["on", "onto"], Lang::En),
    ("dodaj", &["do", "na"], Lang::Pl),
    ("fuge", &["zu", "zur", "zum"], Lang::De),
    ("fuege", &["zu", "zur", "zum"], Lang::De),
    ("setze", &["auf"], Lang::De),
];

/// Words around a list's name that do not name it.
const LIST_FILLER: [&str; 15] = [
    "my", "the", "list", "todo", "to", "do", "lista", "listy", "liste", "liscie", "moja", "moje",
    "meine", "hinzu", "die",
];

/// Adding an item to a to-do list: the item is the person's own words, the list must be the one
/// named (or the only one).
fn add_item(text: &str, registry: &Registry) -> Option<Plan> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let folded: Vec<String> = raw.iter().map(|w| fold(w)).collect();
    let (_, preps, lang) = ADD_ITEM
        .iter()
        .find(|(verb, ..)| folded.first().is_some_and(|w| w == verb))?;
    let prep = folded.iter().rposition(|w| preps.contains(&w.as_str()))?;
    if prep < 2 {
        return None;
    }
    let item = raw[1..prep]
        .join(" ")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_owned();
    if item.is_empty() {
        return None;
    }
    let list_words: Vec<&str> = folded[prep + 1..]
        .iter()
        .flat_map(|w| w.split(' '))
        .filter(|w| !w.is_empty() && !LIST_FILLER.contains(w))
        .collect();
    let allowed = matches!(
        registry.service_decision("todo", "add_item"),
        Some(ServiceDecision::Allowed)
    );
    if !allowed {
        return None;
    }
    let lists: Vec<&Entity> = registry
        .entities()
        .filter(|e| e.domain() == "todo")
        .collect();
    let chosen: Vec<&Entity> = if list_words.is_empty() {
        lists
    } else {
        let query = Query::new(&list_words.join(" "));
        lists.into_iter().filter(|e| covers(e, &query)).collect()
    };
    let [list] = chosen.as_slice() else {
        return None;
    };
    Some(Plan::Act {
        calls: vec![FastCall {
            domain: "todo".into(),
            service: "add_item".into(),
            entity_ids: vec![list.entity_id.clone()],
            data: json!({"item": item}),
        }],
        lang: *lang,
    })
}

/// Whether a command asks for an action (one intent, not a question), whatever its target.
pub fn is_action(text: &str) -> bool {
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
const JOINERS: [&str; 6] = ["and", "then", "also", "i", "oraz", "und"];

/// One action and nothing more: no second request joined on, no question.
pub fn is_single_action(text: &str) -> bool {
    let (words, _) = words_of(text);
    is_action(text) && !text.contains(',') && !words.iter().any(|w| JOINERS.contains(&w.as_str()))
}

/// The language a command's intent words are in (English when none is recognised).
pub fn language_of(text: &str) -> Lang {
    let (words, percent_at) = words_of(text);
    if let Some((_, lang, _)) = intent(&words, percent_at) {
        return lang;
    }
    ADD_ITEM
        .iter()
        .find(|(verb, ..)| words.first().is_some_and(|w| w == verb))
        .map_or(Lang::En, |(_, _, lang)| *lang)
}

/// States a question may ask about (folded words, en/pl/de) and the state they mean.
const STATE_WORDS: [(&str, &[&str]); 8] = [
    (
        "on",
        &[
            "on",
            "wlaczone",
            "wlaczony",
            "wlaczona",
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
        &["open", "otwarte", "otwarty", "otwarta", "offen", "geoffnet"],
    ),
    (
        "closed",
        &[
            "closed",
            "zamkniete",
            "zamkniety",
            "zamknieta",
            "geschlossen",
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
    ("playing", &["playing", "gra", "spielt"]),
    ("paused", &["paused", "wstrzymany", "pausiert"]),
];

/// Question words and the verbs around them, which name nothing in the home.
const QUESTION_FILLER: [&str; 20] = [
    "what", "whats", "s", "is", "are", "how", "high", "much", "which", "czy", "jaka", "jaki",
    "jest", "sa", "ile", "wie", "hoch", "ist", "sind", "welche",
];

/// The language a question is in, from its first word.
fn question_lang(first: &str) -> Lang {
    match first {
        "czy" | "jaka" | "jaki" | "ile" | "ktore" => Lang::Pl,
        "ist" | "sind" | "wie" | "welche" | "welcher" => Lang::De,
        _ => Lang::En,
    }
}

/// A plain question about the state of named things, answered from the registry: "is the
/// front door locked?", "what is the outside temperature?", "czy światło w kuchni jest
/// włączone?". `None` when it is not such a question or the target is not certain.
fn answer(text: &str, registry: &Registry) -> Option<Plan> {
    let (words, _) = words_of(text);
    let first = words.first()?;
    if !(text.trim_end().ends_with('?') || QUESTION_WORDS.contains(&first.as_str())) {
        return None;
    }
    let lang = question_lang(first);
    let asked = words.iter().find_map(|w| {
        STATE_WORDS
            .iter()
            .find(|(_, forms)| forms.contains(&w.as_str()))
            .map(|(state, _)| *state)
    });
    let rest: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !QUESTION_FILLER.contains(w)
                && !FILLER.contains(w)
                && !STATE_WORDS.iter().any(|(_, forms)| forms.contains(w))
        })
        .collect();
    let query = query_of(&rest, registry);
    if query.is_empty() {
        return None;
    }
    let covering: Vec<&Entity> = registry.entities().filter(|e| covers(e, &query)).collect();
    let named: Vec<&Entity> = covering
        .iter()
        .copied()
        .filter(|e| named(e, &query))
        .collect();
    let specific = query.words.iter().any(|q| domain_of_word(q).is_none());
    let targets: Vec<&Entity> = if named.len() == 1 {
        named
    } else if covering.len() == 1
        || (specific && (2..=6).contains(&covering.len()) && same_area(&covering, &query, registry))
    {
        covering
    } else {
        return None;
    };
    let value = |e: &Entity| {
        let unit = e
            .attributes
            .get("unit_of_measurement")
            .and_then(serde_json::Value::as_str)
            .map(|u| format!(" {u}"))
            .unwrap_or_default();
        format!("{}{unit}", e.state)
    };
    let listed: Vec<String> = targets
        .iter()
        .map(|e| match lang {
            Lang::De => format!("{} ist {}", e.name, value(e)),
            Lang::Pl => format!("{}: {}", e.name, value(e)),
            Lang::En => format!("{} is {}", e.name, value(e)),
        })
        .collect();
    let listed = listed.join("; ");
    let text = match asked {
        Some(state) => {
            let yes = targets.iter().all(|e| e.state == state);
            let word = match (lang, yes) {
                (Lang::En, true) => "Yes",
                (Lang::En, false) => "No",
                (Lang::Pl, true) => "Tak",
                (Lang::Pl, false) => "Nie",
                (Lang::De, true) => "Ja",
                (Lang::De, false) => "Nein",
            };
            format!("{word}: {listed}.")
        }
        None => format!("{listed}."),
    };
    Some(Plan::Answer { text, lang })
}

/// All in one area the query names (the other words only name their kind or the measure).
fn same_area(entities: &[&Entity], query: &Query, registry: &Registry) -> bool {
    let Some(area_id) = entities[0].area_id.as_deref() else {
        return false;
    };
    if !entities
        .iter()
        .all(|e| e.area_id.as_deref() == Some(area_id))
    {
        return false;
    }
    let Some(area) = registry.area(area_id) else {
        return false;
    };
    let area_words = tokens(&area.name);
    query
        .words
        .iter()
        .all(|q| domain_of_word(q).is_some() || area_words.iter().any(|w| word_matches(q, w)))
}

/// The plan for a command: one request, or several joined by "and", "then" or commas
/// ("turn on the kitchen light and then turn off the living room light"). A part without its
/// own verb takes the one before ("turn on the kitchen light and the hall light"). Joined
/// requests run only when every part resolves; otherwise the model decides for the whole.
pub fn plan(text: &str, registry: &Registry) -> Plan {
    let parts = split_requests(text);
    if parts.len() < 2 {
        return plan_one(text, registry);
    }
    let mut calls: Vec<FastCall> = Vec::new();
    let mut first_lang = None;
    let mut verb: Option<String> = None;
    for part in &parts {
        let (words, percent_at) = words_of(part);
        let own = intent(&words, percent_at).is_some() || add_item(part, registry).is_some();
        let text = match (&verb, own) {
            (_, true) => {
                verb = leading_verb(part);
                part.clone()
            }
            (Some(v), false) => format!("{v} {part}"),
            (None, false) => return Plan::Model,
        };
        match plan_one(&text, registry) {
            Plan::Act { calls: more, lang } => {
                first_lang.get_or_insert(lang);
                calls.extend(more);
            }
            _ => return Plan::Model,
        }
    }
    Plan::Act {
        calls,
        lang: first_lang.unwrap_or(Lang::En),
    }
}

/// The parts of a command joined by "and", "then", "i", "und" or commas.
fn split_requests(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    for raw in text.split_inclusive([',', ' ']) {
        let word = fold(raw.trim_end_matches([',', ' ']));
        let ends_part = raw.ends_with(',');
        if word == "both" {
            // "both the kitchen light and the hall light": the "and" splits.
            continue;
        }
        if JOINERS.contains(&word.as_str()) {
            if !parts.last().is_some_and(|p| p.trim().is_empty()) {
                parts.push(String::new());
            }
            continue;
        }
        if let Some(last) = parts.last_mut() {
            last.push_str(raw.trim_end_matches(','));
            if ends_part {
                last.push(' ');
            }
        }
        if ends_part {
            parts.push(String::new());
        }
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The verb words a part starts with, for the parts after it that have none ("turn on").
fn leading_verb(part: &str) -> Option<String> {
    let raw: Vec<&str> = part.split_whitespace().collect();
    let (words, percent_at) = words_of(part);
    let (_, _, used) = intent(&words, percent_at)?;
    let last = *used.iter().max()?;
    (used.contains(&0) && last < 3 && last < raw.len()).then(|| raw[..=last].join(" "))
}

/// The plan for one request.
fn plan_one(text: &str, registry: &Registry) -> Plan {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Plan::Model;
    }
    if let Some(answer) = answer(trimmed, registry) {
        return answer;
    }
    if trimmed.ends_with('?') {
        return Plan::Model;
    }
    if let Some(plan) = add_item(trimmed, registry) {
        return plan;
    }
    let (words, percent_at) = words_of(trimmed);
    if words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()))
    {
        return Plan::Model;
    }
    let Some((intent, lang, used)) = intent(&words, percent_at) else {
        return Plan::Model;
    };
    let volume = words
        .iter()
        .any(|w| ["volume", "glosnosc", "lautstarke"].contains(&w.as_str()));
    let every = words.iter().any(|w| EVERY.contains(&w.as_str()));
    // "start vacuuming", "clean the living room": only a vacuum cleans.
    let cleaning = words.iter().any(|w| {
        [
            "vacuum",
            "vacuuming",
            "clean",
            "cleaning",
            "odkurz",
            "odkurzaj",
            "sauge",
        ]
        .contains(&w.as_str())
    });
    let rest: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| !used.contains(i) && !FILLER.contains(&w.as_str()))
        .map(|(_, w)| w.as_str())
        .filter(|w| !EVERY.contains(w))
        .collect();
    let query = query_of(&rest, registry);
    // Entities the intent can act on, with the service it means for each.
    let able: Vec<(&Entity, &'static str, Value)> = registry
        .entities()
        .filter(|e| !cleaning || e.domain() == "vacuum")
        .filter_map(|e| {
            let (service, data) = service_for(intent, e.domain(), volume)?;
            let allowed = matches!(
                registry.service_decision(e.domain(), service),
                Some(ServiceDecision::Allowed)
            );
            allowed.then_some((e, service, data))
        })
        .collect();
    let chosen: Vec<&(&Entity, &'static str, Value)> = if query.is_empty() {
        // Nothing named: only a lone device of a kind the request implies.
        if able.len() == 1
            && (volume || cleaning || matches!(intent, Dock | Next | Mute | Pause | Resume))
        {
            able.iter().collect()
        } else {
            return Plan::Model;
        }
    } else {
        let covering: Vec<_> = able.iter().filter(|(e, ..)| covers(e, &query)).collect();
        let specific = query.words.iter().any(|q| domain_of_word(q).is_none());
        let fully_named: Vec<_> = covering
            .iter()
            .copied()
            .filter(|(e, ..)| named(e, &query))
            .collect();
        let of_kind: Vec<_> = covering
            .iter()
            .copied()
            .filter(|(e, ..)| {
                query
                    .words
                    .iter()
                    .any(|q| domain_of_word(q) == Some(e.domain()))
            })
            .collect();
        if !specific {
            // "all lights": every one; "the lights" with one light: that one; "the light"
            // with several: which one.
            if every || covering.len() == 1 {
                covering
            } else if let Some(kind) = singular_kind(&words, &query) {
                return ask_which(&of_kind, kind, lang);
            } else {
                return Plan::Model;
            }
        } else if fully_named.len() == 1 {
            fully_named
        } else if covering.len() == 1
            || (covering.len() > 1 && area_command(&covering, &query, registry))
        {
            covering
        } else if !of_kind.is_empty() && area_command(&of_kind, &query, registry) {
            // "the lights in the living room" are its lights, not a switch named "… Lights".
            of_kind
        } else if (2..=4).contains(&covering.len())
            && covering
                .iter()
                .all(|(e, ..)| e.domain() == covering[0].0.domain())
        {
            let names: Vec<String> = covering.iter().map(|(e, ..)| e.name.clone()).collect();
            return Plan::Ask {
                question: which_question(&names, lang),
                lang,
            };
        } else {
            return Plan::Model;
        }
    };
    if chosen.is_empty() {
        return Plan::Model;
    }
    let mut calls: Vec<FastCall> = Vec::new();
    for (entity, service, data) in chosen {
        match calls
            .iter_mut()
            .find(|c| c.domain == entity.domain() && c.service == *service)
        {
            Some(call) => call.entity_ids.push(entity.entity_id.clone()),
            None => calls.push(FastCall {
                domain: entity.domain().to_owned(),
                service: (*service).to_owned(),
                entity_ids: vec![entity.entity_id.clone()],
                data: data.clone(),
            }),
        }
    }
    Plan::Act { calls, lang }
}

/// All the covering entities share one area the query names, and every other query word only
/// names their kind: "the kitchen lights" means every light in the kitchen.
fn area_command(covering: &[&(&Entity, &str, Value)], query: &Query, registry: &Registry) -> bool {
    // "Turn on the living room" names no kind: not everything in it.
    let kinds: Vec<&str> = query
        .words
        .iter()
        .filter_map(|q| domain_of_word(q))
        .collect();
    let entities: Vec<&Entity> = covering.iter().map(|(e, ..)| *e).collect();
    !kinds.is_empty()
        && entities.iter().all(|e| kinds.contains(&e.domain()))
        && same_area(&entities, query, registry)
}

/// Words for one device of a kind ("the light", "das Fenster", "wentylator"): with several
/// of that kind, the person meant one of them.
const SINGULAR: [&str; 30] = [
    "light",
    "lamp",
    "fan",
    "window",
    "blind",
    "curtain",
    "shutter",
    "door",
    "lock",
    "switch",
    "plug",
    "vacuum",
    "valve",
    "thermostat",
    "swiatlo",
    "lampa",
    "wentylator",
    "okno",
    "roleta",
    "zamek",
    "przelacznik",
    "gniazdko",
    "odkurzacz",
    "licht",
    "lampe",
    "leuchte",
    "ventilator",
    "schloss",
    "steckdose",
    "tur",
];

/// German words alike in both numbers: singular only after a singular article.
const SAME_IN_PLURAL: [&str; 4] = ["fenster", "schalter", "rollladen", "lautsprecher"];

/// The one kind word of a kind-only command when it names a single device.
fn singular_kind<'a>(words: &[String], query: &'a Query) -> Option<&'a str> {
    let [kind] = query.words.as_slice() else {
        return None;
    };
    if SINGULAR.contains(&kind.as_str()) {
        return Some(kind);
    }
    let at = words.iter().position(|w| w == kind)?;
    let article = at.checked_sub(1).map(|i| words[i].as_str());
    (SAME_IN_PLURAL.contains(&kind.as_str())
        && matches!(
            article,
            Some("das" | "den" | "dem" | "der" | "ein" | "einen")
        ))
    .then_some(kind.as_str())
}

/// Names shown in a "which one" question; more would not be read to the end.
const MAX_NAMED: usize = 6;

/// "Which one": among the devices of the kind, those whose name says the word ("Kitchen
/// Window" for "das Fenster", not the "Garage Door" cover), else all of the kind.
fn ask_which(of_kind: &[&(&Entity, &'static str, Value)], kind: &str, lang: Lang) -> Plan {
    let saying: Vec<&Entity> = of_kind
        .iter()
        .map(|(e, ..)| *e)
        .filter(|e| e.haystack.name.iter().any(|w| word_matches(kind, w)))
        .collect();
    let candidates: Vec<&Entity> = if saying.len() >= 2 {
        saying
    } else {
        of_kind.iter().map(|(e, ..)| *e).collect()
    };
    if candidates.len() < 2 {
        return Plan::Model;
    }
    let mut names: Vec<String> = candidates
        .iter()
        .take(MAX_NAMED)
        .map(|e| e.name.clone())
        .collect();
    if candidates.len() > MAX_NAMED {
        names.push("…".to_owned());
    }
    Plan::Ask {
        question: which_question(&names, lang),
        lang,
    }
}

fn which_question(names: &[String], lang: Lang) -> String {
    let list = names.join(", ");
    match lang {
        Lang::En => format!("Which one do you mean: {list}?"),
        Lang::Pl => format!("Które masz na myśli: {list}?"),
        Lang::De => format!("Welches meinst du: {list}?"),
    }
}

#[cfg(test)]
#[path = "fastpath_tests.rs"]
mod tests;
