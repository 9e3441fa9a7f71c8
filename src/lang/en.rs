//! English.

use super::HvacMode::{Auto, Cool, Dry, Heat};
use super::Intent::*;
use super::{Claim, Lang, Lexicon, NotRun, Plural, Says, capitalised};

pub const LEXICON: Lexicon = Lexicon {
    lang: Lang::En,
    plural,
    tag: "en",
    intents: &[
        (&["warm", "white"], White(2700)),
        (&["soft", "white"], White(2700)),
        (&["cool", "white"], White(6500)),
        (&["cold", "white"], White(6500)),
        (&["daylight"], White(5000)),
        (&["brighter"], Brighter),
        (&["brighten"], Brighter),
        (&["dimmer"], Dimmer),
        (&["darker"], Dimmer),
        (&["dim"], Dimmer),
        (&["louder"], Louder),
        (&["quieter"], Quieter),
        (&["turn", "up"], Brighter),
        (&["turn", "down"], Dimmer),
        (&["turn", "on"], On),
        (&["activate"], On),
        (&["deactivate"], Off),
        (&["turning", "on"], On),
        (&["switching", "on"], On),
        (&["turning", "off"], Off),
        (&["switching", "off"], Off),
        (&["switch", "on"], On),
        (&["turn", "off"], Off),
        (&["switch", "off"], Off),
        (&["open"], Open),
        (&["close"], Close),
        // "Raise the blinds", "lower the shades": a cover's open and close (a value said with
        // them is what to set: "raise the temperature to 22 degrees").
        (&["raise"], Open),
        (&["lower"], Close),
        (&["shut", "off"], Off),
        (&["kill"], Off),
        (&["shut"], Close),
        (&["unlock"], Unlock),
        (&["lock"], Lock),
        (&["start"], Start),
        (&["begin"], Start),
        // "Run the Roborock": a robot's start (a script's "run" is the model's: no row has it).
        (&["run"], Start),
        (&["vacuum"], Start),
        (&["clean"], Start),
        (&["water"], Open),
        (&["return"], Dock),
        (&["send"], Dock),
        (&["dock"], Dock),
        (&["unpause"], Resume),
        (&["pause"], Pause),
        (&["resume"], Resume),
        (&["skip"], Next),
        (&["next", "track"], Next),
        (&["next", "song"], Next),
        (&["previous", "track"], Previous),
        (&["previous", "song"], Previous),
        (&["go", "back"], Previous),
        (&["last", "song"], Previous),
        (&["continue", "playing"], Resume),
        (&["keep", "playing"], Resume),
        (&["power", "off"], Off),
        (&["power", "on"], On),
        (&["illuminate"], On),
        (&["mute"], Mute),
        (&["toggle"], Toggle),
        (&["stop"], Stop),
        (&["halt"], Stop),
        // Before "to heat": "to heat mode" leaves "to", a filler, not "mode".
        (&["heat", "mode"], Mode(Heat)),
        (&["heating", "mode"], Mode(Heat)),
        (&["cool", "mode"], Mode(Cool)),
        (&["cooling", "mode"], Mode(Cool)),
        (&["auto", "mode"], Mode(Auto)),
        (&["dry", "mode"], Mode(Dry)),
        (&["to", "heat"], Mode(Heat)),
        (&["to", "cool"], Mode(Cool)),
    ],
    separable: &[(
        &["turn", "switch"],
        &[("on", On), ("off", Off), ("up", Brighter), ("down", Dimmer)],
    )],
    alone: &[
        ("next", Next),
        ("skip", Next),
        ("previous", Previous),
        ("back", Previous),
        ("pause", Pause),
        ("resume", Resume),
        ("continue", Resume),
    ],
    trailing: &[("on", On), ("off", Off)],
    trailing_verbs: &["switch"],
    after: &["please", "now", "thanks"],
    filler: &[
        // "the whole house": every area, said with the word for the home.
        "house",
        // "Set the target temperature to 22".
        "target",
        // "Send the vacuum home": where it goes, not what.
        "home",
        // "Turn off the fan in here": where the person speaks.
        "here",
        "set",
        "switching",
        "turning",
        "colour",
        "color",
        "mode",
        "degrees",
        "degree",
        "playing",
        "vacuuming",
        "cleaning",
        "water",
        "watering",
        // "Make the bed light 50% bright": the percentage says what to do.
        "bright",
        // "Play the next track": the verb of a skip, not a name.
        "play",
        "turn",
        "make",
        "to",
        "brightness",
        "percent",
        "volume",
        "song",
        "track",
        "base",
        "back",
        "down",
        "up",
        "again",
        "now",
        "the",
        "please",
        "can",
        "you",
        "could",
        "its",
    ],
    courtesy: &["please", "thanks", "thank", "you"],
    wrappers: &[
        &["would", "you", "mind"],
        &["do", "you", "mind"],
        &["can", "you"],
        &["could", "you"],
        &["would", "you"],
        &["will", "you"],
        &["can", "u"],
    ],
    please: &["please"],
    desires: &[
        &["i", "want"],
        &["i", "would", "like"],
        &["i", "d", "like"],
        &["make", "sure", "that"],
        &["make", "sure"],
        &["ensure", "that"],
        &["ensure"],
    ],
    be: &["be", "to", "is", "are"],
    asking: &["if", "whether", "know"],
    wished: &[
        ("on", "turn on"),
        ("off", "turn off"),
        ("open", "open"),
        ("closed", "close"),
        ("locked", "lock"),
        ("unlocked", "unlock"),
    ],
    joiners: &["and", "then", "also"],
    conditionals: &["if", "unless", "whenever"],
    if_words: &["if"],
    then_words: &["then"],
    above: &[
        "above", "over", "higher", "greater", "warmer", "more", "exceeds",
    ],
    below: &["below", "under", "lower", "less", "colder", "cooler"],
    both: &["both"],
    every: &["all", "every", "each", "whole", "entire"],
    any_room: &["room", "rooms"],
    everything: &["everything"],
    except: &["except", "but"],
    relatives: &["that", "which", "what"],
    with_a_key: &[],
    watering: &["water"],
    water: &["water", "watering"],
    water_appliances: &["heater", "heating", "boiler", "tank"],
    cleaning: &["vacuum", "vacuuming", "clean", "cleaning"],
    lighting: &["illuminate"],
    lit: &["lit"],
    joke_words: &["joke", "jokes", "funny"],
    jokes: &[
        "I asked the thermostat for a joke. It said it would warm up to it.",
        "Why did the lamp do so well at school? It was very bright.",
        "The robot vacuum never takes sides in an argument. It just goes around the problem.",
    ],
    level_of: &["volume", "brightness", "dim"],
    volume: &["volume"],
    levels: &[
        ("zero", 0),
        ("half", 50),
        ("full", 100),
        ("max", 100),
        ("maximum", 100),
    ],
    percent_units: &["percent"],
    degree_units: &["degrees", "degree", "celsius"],
    temperature_words: &["temperature"],
    temperature_verbs: &["heat", "warm", "cool", "up"],
    colours: &[
        ("red", &["red"]),
        ("blue", &["blue"]),
        ("green", &["green"]),
        ("yellow", &["yellow"]),
        ("orange", &["orange"]),
        ("purple", &["purple"]),
        ("pink", &["pink"]),
        ("white", &["white"]),
    ],
    speeds: &[("low", 33), ("medium", 66), ("high", 100)],
    speed_words: &["speed"],
    add_item: &[("add", &["to"]), ("put", &["on", "onto"])],
    list_filler: &["my", "the", "list", "todo", "to", "do"],
    kinds: &[
        ("light", &["light", "lights", "lamp", "lamps"]),
        ("switch", &["switch", "switches", "plug"]),
        (
            "cover",
            &[
                "cover", "blind", "blinds", "shutter", "shutters", "window", "windows", "curtain",
                "curtains", "awning", "garage",
            ],
        ),
        ("climate", &["thermostat", "heating", "climate", "hvac"]),
        ("lock", &["lock", "locks", "door"]),
        ("fan", &["fan", "fans"]),
        ("sensor", &["sensor", "temperature", "humidity"]),
        (
            "media_player",
            &[
                "speaker", "speakers", "tv", "player", "media", "music", "playback",
            ],
        ),
        ("vacuum", &["vacuum"]),
        ("humidifier", &["humidifier", "dehumidifier"]),
        ("valve", &["valve"]),
        ("scene", &["scene"]),
        ("script", &["script", "scripts"]),
    ],
    specific_kinds: &[
        ("blind", "blind"),
        ("blinds", "blind"),
        ("shade", "blind"),
        ("shades", "blind"),
        ("shutter", "shutter"),
        ("shutters", "shutter"),
        ("curtain", "curtain"),
        ("curtains", "curtain"),
        ("tv", "tv"),
        ("garage", "garage"),
        ("window", "window"),
        ("windows", "window"),
        ("plug", "outlet"),
        ("dehumidifier", "dehumidifier"),
    ],
    commanded_classes: &[],
    singular: &[
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
        // "The music" is what one player plays.
        "music",
        "playback",
    ],
    same_in_plural: &[],
    singular_articles: &[],
    translations: &[
        // The front door is where a home's entry is: "the front door lock" is the one there.
        ("entry", &["front", "entrance"]),
        ("outside", &["outdoor", "outdoors"]),
        ("outdoor", &["outside", "outdoors"]),
        ("window", &["windows"]),
    ],
    places: &[
        "kitchen",
        "bedroom",
        "living",
        "bathroom",
        "office",
        "hall",
        "garage",
        "upstairs",
        "downstairs",
        "garden",
        "dining",
        "entrance",
        "entry",
        "outside",
        "outdoor",
    ],
    here: &[&["in", "this", "room"], &["in", "here"], &["here"]],
    place_prepositions: &["in", "inside", "at"],
    articles: &["the"],
    floor_words: &["floor"],
    measures: &[
        ("carbon_dioxide", &["co2"]),
        ("power", &["power"]),
        ("energy", &["energy"]),
        ("battery", &["battery", "batteries", "charge"]),
        // "How warm is it outside?", "how humid is it?".
        ("temperature", &["warm", "cold", "hot"]),
        ("humidity", &["humid"]),
    ],
    question_openers: &["is", "are", "what", "which", "how", "does", "do", "did"],
    more_question_openers: &["who", "where", "when", "why"],
    yes_no_openers: &["is", "are", "does", "do", "did", "am"],
    state_verbs: &[],
    states: &[
        // "Is the AC running?", "are the sprinklers running?": on, or open for a valve.
        ("on", &["on", "running"]),
        ("off", &["off"]),
        ("open", &["open"]),
        ("closed", &["closed"]),
        ("locked", &["locked"]),
        ("unlocked", &["unlocked"]),
        ("playing", &["playing"]),
        ("paused", &["paused"]),
        // A player that stopped shows `idle` in Home Assistant.
        ("idle", &["stopped", "idle"]),
    ],
    question_filler: &[
        // "What is the living room player doing?" asks its state.
        "doing",
        "what",
        "whats",
        "s",
        "is",
        "are",
        "how",
        "high",
        "much",
        "which",
        "many",
        "currently",
        "right",
        "now",
        "please",
        "tell",
        "me",
        "answer",
        "yes",
        "no",
        "or",
        "level",
        "we",
        "using",
        "use",
        // "How much battery does the vacuum have left?"
        "does",
        "have",
        "has",
        "left",
    ],
    question_courtesy: &[
        &["please", "tell", "me"],
        &["can", "you", "tell", "me"],
        &["could", "you", "tell", "me"],
        &["tell", "me"],
        &["please"],
    ],
    how_many: &[&["how", "many"]],
    when_is: &[&["what", "time"], &["when"]],
    calendar_words: &["calendar", "calendars", "agenda"],
    which: &["which"],
    any: &["any", "some", "anything"],
    low: &["low"],
    yes: "Yes",
    no: "No",
    state_words: &[
        ("heat", "heating"),
        ("cool", "cooling"),
        ("heat_cool", "heating and cooling"),
        ("dry", "drying"),
        ("fan_only", "fan only"),
        ("returning", "returning to its dock"),
        ("not_home", "away"),
        ("armed_away", "armed (away)"),
        ("armed_home", "armed (home)"),
        ("armed_night", "armed (night)"),
    ],
    state_line: |name, value| format!("{name} is {value}"),
    counted: |n, total, state, listed| {
        format!(
            "{n} of {total} {} {state}{listed}.",
            plural(n as u64).of(["is", "are", "are"])
        )
    },
    set_to: "set to",
    currently: "currently",
    approve: &[
        "yes",
        "yeah",
        "yep",
        "sure",
        "ok",
        "okay",
        "confirm",
        "confirmed",
        "approve",
        "approved",
    ],
    decline: &["no", "nope", "cancel", "deny", "dont"],
    own_words: &[
        "the", "could", "not", "did", "was", "have", "has", "found", "find", "there", "named",
        "any", "with", "you", "this", "that", "is", "are", "no", "it",
    ],
    letters: "",
    stopwords: &[
        "the", "a", "an", "in", "on", "of", "at", "to", "my", "please", "all", "and", "is",
    ],
    stand_ins: &[
        "it",
        "them",
        "this",
        "that",
        "these",
        "those",
        "one",
        "everything",
        "all",
    ],
    about_kinds: &[
        ("light", &["brightness", "colour", "color"]),
        (
            "media_player",
            &["song", "songs", "track", "title", "volume", "playback"],
        ),
        (
            "todo",
            &["list", "chores", "chore", "tasks", "task", "todo"],
        ),
    ],
    unit_words: &[
        ("degrees", "°c"),
        ("degree", "°c"),
        ("celsius", "°c"),
        ("percent", "%"),
        ("watts", "w"),
        ("watt", "w"),
        ("kilowatt", "kw"),
    ],
    answer_lead: &["oh", "well", "please", "hey"],
    digits: &[
        ("zero", '0'),
        ("one", '1'),
        ("two", '2'),
        ("three", '3'),
        ("four", '4'),
        ("five", '5'),
        ("six", '6'),
        ("seven", '7'),
        ("eight", '8'),
        ("nine", '9'),
    ],
    claims: &[
        (
            Claim::Action,
            r"(?i)\bi(?:'ve| have|'ll have)?\s+(?:just\s+|now\s+|already\s+)?(?:turned|switched|set|locked|unlocked|opened|closed|started|stopped|restarted|rebooted|reloaded|activated|deactivated|dimmed|brightened|changed|adjusted|armed|disarmed|toggled|raised|lowered)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\bi(?:'ve| have)?\s+(?:just\s+|already\s+)?(?:checked|looked|verified|confirmed|read)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:is|are)\s+now\s+(?:on|off|open|closed|locked|unlocked|set|armed|disarmed|running|playing)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\bthe\s+(?:current\s+)?(?:temperature|humidity|state|status)\b[^.?!]{0,40}\b(?:is|reads|shows)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:has|have)\s+been\s+(?:turned|switched|set|locked|unlocked|opened|closed|activated|deactivated)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bi(?:'ve| have)?\s+(?:just\s+|already\s+)?(?:called|sent|executed|run|ran|triggered|issued)\s+(?:the\s+|a\s+)?(?:[\w.`]+\s+){0,2}(?:service|tool|command|call)\b",
        ),
        (
            Claim::Action,
            r"(?i)(?:^|[.!:]\s+)(?:turned|switched|added|removed|started|stopped|restarted|rebooted|reloaded|paused|resumed|muted|unmuted|locked|unlocked|opened|closed|dimmed|activated|deactivated)\s+\S",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:added|removed)\s+(?:to|from)\s+(?:the|your|my)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:has|have)\s+been\s+(?:added|removed|started|stopped|restarted|rebooted|reloaded|paused|resumed|muted|docked|returned|sent)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:has|have)\s+(?:now\s+|just\s+|already\s+)?(?:returned|docked|started|stopped|paused|resumed|finished|completed)\b",
        ),
        (
            Claim::Action,
            r"(?i)(?:(?:^|[.!:]\s+)|\bi(?:'m|\s+am)\s+(?:now\s+)?)(?:turning|switching|shutting|opening|closing|locking|unlocking|starting|stopping|restarting|rebooting|reloading|pausing|resuming|muting|dimming|adding|removing|setting)\s+\S",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:(?:has|have)\s+been|(?:is|are|was|were)(?:\s+now)?)\s+(?:updated|adjusted)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:is|are)\s+(?:now\s+)?(?:being\s+)?(?:restart|reboot|reload|shutting\s+down|turning\s+(?:on|off)|switching\s+(?:on|off))\w*",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:should|must|will)\s+(?:now\s+)?be\s+(?:on|off|open|closed|locked|unlocked|running|playing|paused)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\b(?:is|are)\s+(?:already\s+)?(?:on|off|open|closed|locked|unlocked|running|playing|paused|docked)\b",
        ),
    ],
    needs_tools: &[
        r"(?i)^\s*(?:please\s+)?(?:turn|switch|set|open|close|lock|unlock|dim|brighten|start|stop|activate|deactivate|arm|disarm|toggle|raise|lower|increase|decrease|play|pause|make)\b",
        r"(?i)\b(?:is|are)\s+(?:the|my|any|all)\b",
        r"(?i)\b(?:what(?:'s| is)|how)\s+(?:the\s+)?(?:temperature|humidity|warm|cold|hot|state|status)\b",
        r"(?i)\b(?:turn|turning|switch|switching)\s+(?:on|off)\b",
    ],
    advice_verbs: &["call", "use", "run", "invoke"],
    read_openers: &[
        "who", "whats", "when", "where", "will", "am", "have", "tell", "any",
    ],
    weather: &[
        "weather", "sunny", "cloudy", "rain", "raining", "rainy", "snow", "snowing", "forecast",
        "windy", "humid", "umbrella",
    ],
    outside: &["outside", "outdoors"],
    weather_measures: &["temperature", "warm", "cold", "hot"],
    lists: &[
        "list",
        "lists",
        "task",
        "tasks",
        "todo",
        "todos",
        "chores",
        "chore",
        "shopping",
        "groceries",
        "grocery",
    ],
    needs: &[
        "need", "needs", "buy", "call", "complete", "fix", "fixing", "repair",
    ],
    agenda: &[
        "calendar",
        "calendars",
        "schedule",
        "agenda",
        "plans",
        "events",
        "event",
        "appointment",
        "appointments",
        "meeting",
        "meetings",
        "visit",
        "visiting",
        "visitors",
        "today",
        "tonight",
        "tomorrow",
        "week",
        "weekend",
        "leaving",
        "classes",
    ],
    today_words: &["today", "tonight"],
    tomorrow_words: &["tomorrow"],
    count_aside: &[
        "how", "many", "much", "do", "does", "i", "we", "my", "our", "me", "need", "have", "to",
        "this", "next", "the", "a", "an", "are", "is", "there", "on", "in", "at", "of", "for",
        "nights", "days", "times", "night", "day",
    ],
    says: &SAYS,
};

/// What a call would do, after "to" or "would".
fn to_do(key: &str, names: &str) -> String {
    let verb = match key {
        "turn_on" => "turn on",
        "turn_off" => "turn off",
        "toggle" => "toggle",
        "open" => "open",
        "close" => "close",
        "lock" => "lock",
        "unlock" => "unlock",
        "start" => "start",
        "pause" => "pause",
        "disarm" => "disarm",
        "arm" => "arm",
        "run" => "run",
        _ => "change",
    };
    format!("{verb} {names}")
}

/// English plural categories: "one" for 1 alone, the rest "many".
fn plural(n: u64) -> Plural {
    if n == 1 { Plural::One } else { Plural::Many }
}

const SAYS: Says = Says {
    conditional: "I cannot check that condition before acting, so I did not change anything. Say it without the condition, or make it an automation in Home Assistant.",
    condition_unmet: |seen| format!("{seen}, so I did not change anything."),
    nothing_changed: "I did not change anything.",
    no_room_here: "I can't tell which room you are in, so I did not change anything. Say \
                   the room, for example \"turn off the lights in the kitchen\".",
    nothing_matches: |words| {
        format!(
            "I found nothing in Home Assistant that \"{words}\" could mean, so I did not change \
             anything."
        )
    },
    nothing_to_answer: |words| {
        format!(
            "I found nothing in Home Assistant that \"{words}\" could mean, so I cannot answer that."
        )
    },
    not_exposed: |name| {
        format!(
            "{name} is not exposed to Assist in Home Assistant (Settings > Voice assistants > \
             Expose)."
        )
    },
    filtered_out: |name| format!("HomeClaw's settings keep {name} out of its reach."),
    did_words: &[
        ("turn_on", "Turned on"),
        ("turn_off", "Turned off"),
        ("toggle", "Toggled"),
        ("open", "Opened"),
        ("close", "Closed"),
        ("lock", "Locked"),
        ("unlock", "Unlocked"),
        ("start", "Started"),
        ("return_to_base", "Sent {} back to its dock"),
        ("pause", "Paused"),
        ("media_play", "Resumed"),
        ("media_stop", "Stopped"),
        ("media_next_track", "Skipped to the next track on"),
        ("media_previous_track", "Went back a track on"),
        ("volume_mute", "Muted"),
        ("brighten", "Brightened"),
        ("dim", "Dimmed"),
        ("volume_up", "Turned up the volume on"),
        ("volume_down", "Turned down the volume on"),
        ("disarm", "Disarmed"),
        ("arm", "Armed"),
        ("press", "Pressed"),
        ("stop", "Stopped"),
        ("done", "{}: done"),
    ],
    did: |words, names| match words.contains("{}") {
        true => format!("{}.", words.replacen("{}", names, 1)),
        false => format!("{words} {names}."),
    },
    set_value: |names, value| format!("Set {names} to {value}."),
    colour_names: &[
        ("warm_white", "warm white"),
        ("cool_white", "cool white"),
        ("red", "red"),
        ("blue", "blue"),
        ("green", "green"),
        ("yellow", "yellow"),
        ("orange", "orange"),
        ("purple", "purple"),
        ("pink", "pink"),
        ("white", "white"),
    ],
    mode_names: &[
        ("heat", "heating"),
        ("cool", "cooling"),
        ("dry", "drying"),
        ("auto", "auto"),
        ("heat_cool", "heating and cooling"),
        ("fan_only", "fan only"),
        ("off", "off"),
    ],
    added: |item, list| format!("Added \"{item}\" to {list}."),
    to_do,
    dry_run: |what| format!("Only a test: I would {what}; nothing was changed."),
    not_confirmed: |names, seen| {
        format!(
            "Home Assistant accepted the request for {names}, but I could not confirm it took \
             effect ({seen})."
        )
    },
    unfinished_nothing_changed: "I could not finish this request, and I made no changes.",
    unfinished: "I could not finish this request.",
    stuck: "I got stuck on this request. Could you tell me more precisely what you want, for \
            example the exact device or room?",
    reset: "Sorry, I had to start our conversation over because the language model would not \
            take it any more. Please repeat your request.",
    ask_approval: |held, ways| {
        let press = if ways.phone {
            "press Approve in HomeClaw or on your phone"
        } else {
            "press Approve in HomeClaw"
        };
        let how = if ways.by_voice {
            format!("say yes, or {press}")
        } else {
            press.to_owned()
        };
        format!(
            "{}? It needs your approval — {how}.",
            capitalised(&to_do(held.key, held.names))
        )
    },
    approval_title: "HomeClaw: approval needed",
    approval_notice: |held, buttons| {
        let where_ = if buttons {
            "Approve or Deny"
        } else {
            "press Approve or Deny in HomeClaw's panel"
        };
        format!(
            "HomeClaw was asked to {}. It needs your approval: {where_}.",
            to_do(held.key, held.names)
        )
    },
    approval_buttons: ["Approve", "Deny"],
    declined: |held| {
        let stays = if held.many { "stay" } else { "stays" };
        match held.key {
            "unlock" => format!("OK, {} {stays} locked.", held.names),
            "open" => format!("OK, {} {stays} closed.", held.names),
            "disarm" => format!("OK, {} {stays} armed.", held.names),
            key => format!(
                "OK, I will not {}. Nothing was changed.",
                to_do(key, held.names)
            ),
        }
    },
    pin_missing: |held| {
        format!(
            "Say the PIN with your yes to {}.",
            to_do(held.key, held.names)
        )
    },
    pin_cancelled: |held| {
        format!(
            "Wrong PIN too many times, so I will not {}. Nothing was changed.",
            to_do(held.key, held.names)
        )
    },
    pin_wrong: |held, left| {
        format!(
            "That PIN is not right; I still need it to {} ({left} {} left). Nothing was \
             changed.",
            to_do(held.key, held.names),
            plural(left.into()).of(["attempt", "attempts", "attempts"])
        )
    },
    pin_required_here: |held, phone| {
        format!(
            "Approving by voice here needs a PIN, because every voice device shares this \
             conversation. To {}, press Approve in HomeClaw{}.",
            to_do(held.key, held.names),
            if phone { " or on your phone" } else { "" }
        )
    },
    not_run: |why| match why {
        NotRun::Expired => "That approval expired; nothing was run.",
        NotRun::AlreadyAnswered => "That approval was already answered; nothing more was run.",
        NotRun::Unknown => {
            "HomeClaw does not know that approval (it may be from before a restart); nothing \
             was run."
        }
        NotRun::Denied => "HomeClaw's settings now deny that action; nothing was run.",
        NotRun::Failed => "Home Assistant could not run it.",
    },
    which_device: "Which device do you mean?",
    do_you_mean: |one| format!("Do you mean {one}?"),
    which_of: |first, last| format!("Which one do you mean: {first} or {last}?"),
    another: "another one",
    in_room: |name, area| format!("{name} in the {area}"),
    could_not_answer: "I could not find what you asked about, so I cannot answer that.",
    could_not_read: |name| format!("I could not read {name}."),
    items: |name, n, items| match n {
        0 => format!("{name} is empty."),
        _ => format!(
            "{name} has {n} {}: {items}.",
            plural(n as u64).of(["item", "items", "items"])
        ),
    },
    weekdays: [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ],
    months: [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ],
    date: |weekday, d, month| format!("{weekday} {d} {month}"),
    today: "today",
    tomorrow: "tomorrow",
    rest_of_today: "for the rest of today",
    next_7_days: "in the next 7 days",
    nothing_on: |name, window| format!("Nothing on {name} {window}."),
    at_place: |place| format!(" at {place}"),
    all_day: "all day",
    events_counted: |k, name, window, lines| format!("{k} on {name} {window}: {lines}."),
    conditions: &[
        ("clear-night", "clear night"),
        ("cloudy", "cloudy"),
        ("exceptional", "exceptional"),
        ("fog", "fog"),
        ("hail", "hail"),
        ("lightning", "thunderstorm"),
        ("lightning-rainy", "thunderstorm with rain"),
        ("partlycloudy", "partly cloudy"),
        ("pouring", "pouring rain"),
        ("rainy", "rainy"),
        ("snowy", "snowy"),
        ("snowy-rainy", "sleet"),
        ("sunny", "sunny"),
        ("windy", "windy"),
        ("windy-variant", "windy and cloudy"),
    ],
    humidity: |h| format!("humidity {h}%"),
    wind: "wind",
    no_forecast: |name| format!("{name} has no forecast for tomorrow."),
    chance_of_rain: |p| format!("chance of rain {p}%"),
};
