//! What Home Assistant's recogniser understood, turned into HomeClaw's own plan: its calls run
//! through HomeClaw's validation, approval and verification, and HomeClaw speaks.
//!
//! Home Assistant says which intent the words are and which slots they fill (name, area,
//! floor, domain, device class, a value); HomeClaw picks the targets itself, from its own
//! registry, and every slot is a constraint they must all satisfy together: Home Assistant's
//! debug targets ignore the floor and a question's domain, and include entities Assist does not
//! expose. When the constraints select nothing, that is said; nothing is widened.
//!
//! Pure: a recognition and the registry in, an [`Understood`] out.

use serde_json::Value;

use super::recognised_names::{exactly_named, is_whole_name, names, says_the_name};
use super::recognised_reads::{answer, list_item};
pub use super::understood::Understood;
use super::{PlannedCall, add_call, allowed_service};
use crate::agent::capability::{self, About, carries_value};
use crate::agent::understand::parsed::Parsed;
use crate::ha::recognise::{Recognition, Source};
use crate::ha::registry::{Entity, Registry};
use crate::lang::{Intent, Lang};
use crate::text::fold;

/// Intents Home Assistant runs itself: HomeClaw has no tools for timers or broadcasts, and
/// the time of day is the home's (Home Assistant knows its time zone). Not the old shopping
/// list's intent: without that integration Home Assistant answers "Unknown intent", and the
/// item belongs on a to-do list HomeClaw can reach.
const HANDED_OFF: [&str; 13] = [
    "HassStartTimer",
    "HassCancelTimer",
    "HassCancelAllTimers",
    "HassIncreaseTimer",
    "HassDecreaseTimer",
    "HassPauseTimer",
    "HassUnpauseTimer",
    "HassTimerStatus",
    "HassBroadcast",
    "HassGetCurrentTime",
    "HassGetCurrentDate",
    "HassGetWeather",
    "HassRespond",
];

/// The domains an intent can only mean, whatever else the words say: a question's or a to-do
/// list's, or what the capability table says the intent is for.
fn domains_of(intent: &str) -> Vec<&'static str> {
    match intent {
        "HassClimateGetTemperature" => vec!["climate"],
        "HassListAddItem" | "HassListCompleteItem" => vec!["todo"],
        _ => capability::domains_heard(intent),
    }
}

/// The colours Home Assistant's `color` slot names, as `color_name` takes them.
const COLOURS: [&str; 12] = [
    "white",
    "black",
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "brown",
    "pink",
    "turquoise",
    "violet",
];

/// What an intent asks of an entity of `domain`: HomeClaw's own intent (and whether it is
/// about the volume), as the fast path would have read the words.
fn intent_for(rec: &Recognition, domain: &str) -> Option<(Intent, bool)> {
    let row = capability::heard(&rec.intent, domain, |slot| rec.slot(slot).is_some())?;
    let asks = row.asks[0];
    let intent = match row.slot.and_then(|slot| rec.slot(slot)) {
        None if carries_value(asks) => return None,
        None => asks,
        Some(slot) => match asks {
            Intent::Percent(_) => Intent::Percent(
                slot.number()
                    .filter(|n| (0.0..=100.0).contains(n))
                    .map(|n| n.round() as u8)?,
            ),
            Intent::Degrees(_) => {
                Intent::Degrees((slot.number()? * 10.0).round().clamp(0.0, 2550.0) as u16)
            }
            Intent::Color(_) => {
                let colour = slot.as_text().to_ascii_lowercase();
                Intent::Color(COLOURS.iter().find(|c| **c == colour)?)
            }
            other if carries_value(other) => return None,
            other => other,
        },
    };
    Some((intent, row.about == About::Volume))
}

/// Home Assistant's name slot for "all the lights" ("alle lichten", "todas las luces"):
/// every device of the domain, not a device named "all".
fn everything(name: &crate::ha::recognise::Slot) -> bool {
    name.as_text() == "all" && name.text.trim().is_empty()
}

/// The name Home Assistant heard, unless it is its "all" of a domain.
fn name_said(rec: &Recognition) -> Option<&crate::ha::recognise::Slot> {
    rec.slot("name").filter(|n| !everything(n))
}

/// A partial recognition whose only miss is a name Home Assistant cut short ("Maak de staande
/// lamp rood": it heard the name "staande" and took "lamp" for the kind): the one entity of the
/// intent's kind whose name starts with those words, as a complete recognition of it. `None`
/// when no single entity fits.
fn completed(rec: &Recognition, registry: &Registry) -> Option<Recognition> {
    let [(slot, said)] = rec.unmatched.as_slice() else {
        return None;
    };
    if slot != "name" || said.trim().chars().count() < 3 {
        return None;
    }
    let implied = domains_of(&rec.intent);
    if implied.is_empty() {
        return None;
    }
    let said = fold(said.trim());
    let fitting: Vec<&Entity> = registry
        .entities()
        .filter(|e| e.visible && implied.contains(&e.domain()))
        .filter(|e| {
            std::iter::once(&e.name).chain(&e.aliases).any(|name| {
                let name = fold(name);
                name == said || name.starts_with(&format!("{said} "))
            })
        })
        .collect();
    let [only] = fitting.as_slice() else {
        return None;
    };
    let mut complete = rec.clone();
    complete.unmatched.clear();
    complete.matched = true;
    complete.targets = vec![(only.entity_id.clone(), true)];
    complete.slots.push((
        "name".into(),
        crate::ha::recognise::Slot {
            value: Value::String(only.name.clone()),
            text: only.name.clone(),
        },
    ));
    Some(complete)
}

/// The name an action was asked of that no device, area or floor of the home has (not even
/// as a part of its name): Home Assistant could match nothing else of the sentence.
fn no_such_name(rec: &Recognition, registry: &Registry) -> Option<String> {
    let [(slot, said)] = rec.unmatched.as_slice() else {
        return None;
    };
    let said = said.trim();
    if rec.matched
        || slot != "name"
        || said.chars().count() < 3
        || HANDED_OFF.contains(&rec.intent.as_str())
    {
        return None;
    }
    let folded = fold(said);
    let words: Vec<&str> = folded.split_whitespace().collect();
    let mentioned = |name: &str| {
        let name = fold(name);
        words.iter().any(|w| w.len() >= 3 && name.contains(w))
    };
    let known = registry
        .entities()
        .any(|e| mentioned(&e.name) || e.aliases.iter().any(|a| mentioned(a)))
        || registry.areas().any(|a| mentioned(&a.name))
        || registry.floors().any(|f| mentioned(&f.name));
    (!known).then(|| said.to_owned())
}

/// Whether the entity satisfies every constraint the slots state: domain (and the intent's
/// own), device class, area, floor.
fn satisfies(rec: &Recognition, entity: &Entity, registry: &Registry) -> bool {
    let domain = entity.domain();
    let implied = domains_of(&rec.intent);
    if !implied.is_empty() && !implied.contains(&domain) {
        return false;
    }
    if let Some(domains) = rec.slot("domain")
        && !domains.values().iter().any(|d| d == domain)
    {
        return false;
    }
    // A class only Home Assistant's template implies (no word of it said) does not overrule a
    // device named: "zatiahni modrý záves" (a template for blinds) is the curtain so named.
    let named = name_said(rec).is_some();
    if let Some(classes) = rec.slot("device_class")
        && !(named && classes.text.trim().is_empty())
    {
        let class = entity
            .attributes
            .get("device_class")
            .and_then(Value::as_str);
        if !classes.values().iter().any(|c| Some(c.as_str()) == class) {
            return false;
        }
    }
    let area = entity.area_id.as_deref().and_then(|a| registry.area(a));
    if let Some(said) = rec.slot("area") {
        let in_it = area.is_some_and(|a| names(said, &a.name, &a.aliases));
        if !in_it {
            return false;
        }
    }
    if let Some(said) = rec.slot("floor") {
        let on_it = area
            .and_then(|a| registry.floor_of(a))
            .is_some_and(|f| names(said, &f.name, &f.aliases));
        if !on_it {
            return false;
        }
    }
    true
}

/// Home Assistant's intents that read states: nothing changes, so an unnamed device of the
/// intent's kind is every one of them, when they are few.
const READ_INTENTS: [&str; 2] = ["HassGetState", "HassClimateGetTemperature"];
/// How many devices an unnamed read answers of, at most.
const FEW_READ: usize = 6;

/// The entities the recognition means: Home Assistant's targets (which know the household's
/// aliases), or, when it listed none, the home's entities the slots describe; either way only
/// those HomeClaw may see that satisfy every slot. Without a name, area, floor, domain or
/// device class, the one device the intent can mean, or for a read, the few, preferring
/// those of `room`, the one the person spoke in.
pub(super) fn targets<'r>(
    rec: &Recognition,
    sentence: &str,
    room: Option<&str>,
    registry: &'r Registry,
) -> Vec<&'r Entity> {
    let described = ["name", "area", "floor", "domain", "device_class"]
        .iter()
        .any(|s| rec.slot(s).is_some());
    if !described {
        // "Set the temperature to 21": the one device the intent can mean, when the home has
        // exactly one (Home Assistant's agent asks otherwise).
        let implied = domains_of(&rec.intent);
        let only: Vec<&Entity> = registry
            .entities()
            .filter(|e| e.visible && implied.contains(&e.domain()))
            .collect();
        // Those in the room the person speaks in, which Home Assistant prefers.
        let preferred = rec
            .slot("preferred_area_id")
            .map(|a| a.as_text())
            .or_else(|| room.map(str::to_owned));
        let here: Vec<&Entity> = only
            .iter()
            .copied()
            .filter(|e| preferred.is_some() && e.area_id == preferred)
            .collect();
        // "What is the temperature?": a read changes nothing, so every such device is read
        // (a few), those of the room where any is.
        if READ_INTENTS.contains(&rec.intent.as_str()) && (2..=FEW_READ).contains(&only.len()) {
            return if here.is_empty() { only } else { here };
        }
        // A change: the home's only one, else the room's only one ("set the temperature to
        // 22" said in the bedroom is its radiator, not the living room's thermostat).
        return match (only.len(), here.len()) {
            (1, _) => only,
            (_, 1) => here,
            _ => Vec::new(),
        };
    }
    let fits = |e: &&Entity| e.visible && satisfies(rec, e, registry);
    let from_ha: Vec<&Entity> = rec
        .targets
        .iter()
        .filter_map(|(id, _)| registry.get(id))
        .filter(fits)
        .collect();
    // A name said is a constraint too: of Home Assistant's targets, the ones so named where
    // any is ("Žaluzie ložnice", not the room's other blind), else all of them (an alias
    // HomeClaw does not know).
    let name = name_said(rec);
    if let Some(name) = name {
        let so_named: Vec<&Entity> = from_ha
            .iter()
            .copied()
            .filter(|e| names(name, &e.name, &e.aliases))
            .collect();
        if !so_named.is_empty() {
            return exactly_named(name, so_named);
        }
        // The name said in another form ("zasłonę" of the curtain named "Zasłona", an alias
        // HomeClaw does not read): the targets whose name the words say word for word. Home
        // Assistant's debug targets for it list the room's other curtains too.
        let inflected: Vec<&Entity> = from_ha
            .iter()
            .copied()
            .filter(|e| says_the_name(name, &e.name))
            .collect();
        if !inflected.is_empty() {
            return inflected;
        }
    } else if from_ha.len() > 1 {
        // No name slot, but the words Home Assistant read as a kind and a place are a
        // device's whole name ("otevřít žaluzie ložnice": blinds + bedroom to one reading of
        // Home Assistant's, the blind named "Žaluzie ložnice" to its tests): the device so
        // named, before the others of its kind there.
        // Only words the sentence has: a satellite's room comes as an area slot too ("zatáhni
        // žaluzie" said in the bedroom is not the blind named "Žaluzie ložnice").
        let spoken = crate::text::tokens(sentence);
        let said: Vec<String> = rec
            .slots
            .iter()
            .flat_map(|(_, slot)| crate::text::tokens(&slot.text))
            .filter(|w| spoken.contains(w))
            .collect();
        let so_named: Vec<&Entity> = from_ha
            .iter()
            .copied()
            .filter(|e| is_whole_name(&said, &spoken, e))
            .collect();
        if !so_named.is_empty() {
            return so_named;
        }
    }
    if !from_ha.is_empty() {
        return from_ha;
    }
    // Home Assistant's debug targets leave out what its handler would skip by state ("pause"
    // in the living room lists the room's lamps, not its idle TV): the slots, every one a
    // constraint, pick from the registry instead.
    match name {
        Some(name) => exactly_named(
            name,
            registry
                .entities()
                .filter(|e| names(name, &e.name, &e.aliases))
                .filter(fits)
                .collect(),
        ),
        None => registry.entities().filter(fits).collect(),
    }
}

/// Whether the intent moves these entities in different ways (a lock is locked, a cover
/// opened), not just several devices alike (a light and a switch both turned on).
fn moved_apart(rec: &Recognition, chosen: &[&Entity]) -> bool {
    let mut ways: Vec<Intent> = chosen
        .iter()
        .filter_map(|e| intent_for(rec, e.domain()).map(|(intent, _)| intent))
        .collect();
    ways.dedup();
    ways.windows(2).any(|w| w[0] != w[1])
}

/// A player's verb said of a place, not of a player ("pause in the living room"): the players
/// there in the state the verb changes, where any is (the playing speaker, not the TV that is
/// off); all of them otherwise.
fn by_state(intent: Intent, chosen: Vec<&Entity>) -> Vec<&Entity> {
    let Some(meant) = capability::by_state_of(intent, "media_player") else {
        return chosen;
    };
    let in_state: Vec<&Entity> = chosen
        .iter()
        .copied()
        .filter(|e| e.domain() == "media_player" && e.state == meant.state)
        .collect();
    if in_state.is_empty() {
        chosen
    } else {
        in_state
    }
}

/// A player chosen by its state, as a person means "pause" or "next" said to no player in
/// particular: pause what plays, resume what is paused, skip or set the volume of the one
/// playing. `None` when the state does not single them out.
fn players_by_state<'r>(intent: Intent, registry: &'r Registry) -> Option<Vec<&'r Entity>> {
    let meant = capability::by_state_of(intent, "media_player")?;
    let chosen: Vec<&'r Entity> = registry
        .entities()
        .filter(|e| e.visible && e.domain() == "media_player" && e.state == meant.state)
        .collect();
    (!chosen.is_empty() && (meant.every || chosen.len() == 1)).then_some(chosen)
}

/// The plan for what Home Assistant recognised. `said` is HomeClaw's own parse of the words
/// (its constraints apply on top where its lexicons read the language, and "here" — the room
/// the person speaks in — in every language); `lang` is the language HomeClaw answers in when
/// it has words for it.
pub(crate) fn understood(
    rec: &Recognition,
    said: Option<&Parsed>,
    lang: Option<Lang>,
    question: &str,
    registry: &Registry,
) -> Understood {
    let completed = (!rec.matched).then(|| completed(rec, registry)).flatten();
    let rec = completed.as_ref().unwrap_or(rec);
    // The room the person spoke in: Home Assistant's handler prefers it for a device the
    // words do not name, but its debug answer says so only for some intents.
    let room = said.and_then(Parsed::speaker_area);
    if lang.is_none()
        && let Some(name) = no_such_name(rec, registry)
    {
        return Understood::NoSuchName(name);
    }
    if rec.source != Source::Builtin {
        return Understood::hand_off("the household's own sentence");
    }
    if HANDED_OFF.contains(&rec.intent.as_str()) {
        return Understood::hand_off("an intent Home Assistant runs itself");
    }
    match rec.intent.as_str() {
        read if READ_INTENTS.contains(&read) => {
            return answer(rec, lang, question, targets(rec, question, room, registry));
        }
        "HassListAddItem" | "HassListCompleteItem" => {
            return list_item(rec, &targets(rec, question, room, registry), registry);
        }
        "HassNevermind" => return Understood::Unknown,
        _ => {}
    }
    // A partial match is the closest template, often another intent altogether ("Pon el
    // salón a 19 grados" came back a light's brightness): only a volume, whose templates all
    // say the word, bounds the model (a volume is a player's, never a thermostat's).
    let hint = || {
        if rec.intent == "HassSetVolume" {
            Understood::Hint {
                intent: rec.intent.clone(),
                domains: vec!["media_player".into()],
            }
        } else {
            Understood::Unknown
        }
    };
    let mut chosen = if rec.matched {
        targets(rec, question, room, registry)
    } else if rec.unmatched.is_empty()
        // Nothing said of which player: only the value ("Pon el volumen al 40 por ciento").
        && rec.slots.iter().all(|(name, _)| name == "volume_level")
        && let Some((intent, _)) = intent_for(rec, "media_player")
        && let Some(players) = players_by_state(intent, registry)
    {
        players
    } else {
        return hint();
    };
    // HomeClaw's own reading of the words, where it has one, constrains too ("the blinds" is
    // not the garage door): a name Home Assistant matched (an alias HomeClaw may not know)
    // stands on its own.
    if let Some(said) = said
        && lang.is_some()
        && rec.slot("name").is_none()
        && rec.matched
        && said.says_which(registry)
    {
        chosen.retain(|e| said.points_at(e, registry));
    }
    // Where HomeClaw has only kind words for the language, they hold Home Assistant's reading
    // too: "spegni in soggiorno il climatizzatore" read by a template for fans is no fan.
    let kinds = said
        .and_then(Parsed::tag)
        .filter(|_| lang.is_none() && name_said(rec).is_none())
        .map(|tag| crate::lang::kind_words::domains_named(tag, &crate::text::tokens(question)))
        .unwrap_or_default();
    if !kinds.is_empty() {
        chosen.retain(|e| kinds.contains(&e.domain()));
    }
    // "Here" is the room the person speaks in, whatever name Home Assistant matched.
    if let Some(said) = said {
        chosen.retain(|e| said.here_allows(e));
    }
    if rec.slot("name").is_none()
        && let Some((intent, _)) = intent_for(rec, "media_player")
    {
        chosen = by_state(intent, chosen);
    }
    // "Zaključaj ulazna vrata": a name a lock and a door (a cover) share, and Home Assistant's
    // sentence chose the lock by a context its answer does not carry. Turned on, the one is
    // locked and the other opened: HomeClaw acts on neither rather than on the wrong one.
    if rec.slot("name").is_some() && rec.slot("domain").is_none() && moved_apart(rec, &chosen) {
        return Understood::Unknown;
    }
    let mut calls: Vec<PlannedCall> = Vec::new();
    for entity in &chosen {
        if let Some((intent, volume)) = intent_for(rec, entity.domain())
            && let Some((service, data)) = allowed_service(intent, entity, volume, registry)
        {
            add_call(&mut calls, entity, service, data);
        }
    }
    if calls.is_empty() {
        return if rec.matched {
            Understood::Nothing
        } else {
            hint()
        };
    }
    act_on(rec, &chosen, calls)
}

/// HomeClaw's calls for what Home Assistant recognised, with the keys of Home Assistant's own
/// sentence for it and the slots that fill it (the names of what was acted on first).
fn act_on(rec: &Recognition, chosen: &[&Entity], calls: Vec<PlannedCall>) -> Understood {
    let domain = calls[0].domain.as_str();
    let mut keys = sentence_keys(&rec.intent, domain, rec);
    // Many languages key their sentence by the domain ("light": "{name} se ha encendido").
    keys.extend(DOMAIN_KEYS.iter().find(|d| **d == domain));
    // The names of what was acted on come first: said as the home names them.
    let name_list: Vec<&str> = chosen.iter().map(|e| e.name.as_str()).collect();
    let slots: Vec<(String, String)> = std::iter::once(("name".to_owned(), name_list.join(", ")))
        .chain(
            rec.slots
                .iter()
                .map(|(n, s)| (n.clone(), s.text.trim().to_owned()))
                .filter(|(_, t)| !t.is_empty()),
        )
        .collect();
    Understood::Act {
        calls,
        intent: rec.intent.clone(),
        keys,
        slots,
    }
}

/// The domains Home Assistant's sentences may be keyed by.
const DOMAIN_KEYS: [&str; 8] = [
    "light",
    "fan",
    "cover",
    "switch",
    "lock",
    "valve",
    "climate",
    "media_player",
];

/// Which of Home Assistant's sentences for the intent fits what was done.
fn sentence_keys(intent: &str, domain: &str, rec: &Recognition) -> Vec<&'static str> {
    match (intent, domain) {
        ("HassTurnOn" | "HassTurnOff", "cover") => vec!["cover"],
        ("HassTurnOn" | "HassTurnOff", "lock") => vec!["lock"],
        ("HassTurnOn" | "HassTurnOff", "valve") => vec!["valve"],
        ("HassTurnOn", "scene") => vec!["scene"],
        ("HassTurnOn", "script") => vec!["script"],
        ("HassTurnOn" | "HassTurnOff", "light") if rec.slot("name").is_some_and(everything) => {
            vec!["light_all", "lights_all"]
        }
        ("HassTurnOn" | "HassTurnOff", "light") if rec.slot("area").is_some() => {
            vec!["lights_area"]
        }
        ("HassTurnOn" | "HassTurnOff", "fan") if rec.slot("area").is_some() => vec!["fans_area"],
        ("HassLightSet", _) if rec.slot("brightness").is_some() => vec!["brightness"],
        ("HassLightSet", _) => vec!["color"],
        _ => Vec::new(),
    }
}
