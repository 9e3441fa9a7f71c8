//! German (folded: "Küche" is "kuche", "schließ" is "schliess"). Compounds a home does not
//! name whole are split into known words by the fast path.

use super::HvacMode::{Cool, Heat};
use super::Intent::*;
use super::{Claim, Lang, Lexicon, NotRun, Plural, Says, capitalised};

/// The covers that shade a window or a terrace, which German commands name alike.
const SHADING: &str = "blind|shade|shutter|curtain|awning";

pub const LEXICON: Lexicon = Lexicon {
    lang: Lang::De,
    plural,
    tag: "de",
    intents: &[
        (&["nachster", "titel"], Next),
        (&["nachstes", "lied"], Next),
        (&["nachster", "song"], Next),
        (&["vorheriger", "titel"], Previous),
        (&["vorheriges", "lied"], Previous),
        (&["letzter", "titel"], Previous),
        (&["letztes", "stuck"], Previous),
        (&["letztes", "lied"], Previous),
        (&["vorheriges", "stuck"], Previous),
        (&["nachstes", "stuck"], Next),
        (&["halte", "an"], Pause),
        (&["weiter", "machen"], Resume),
        (&["weitermachen"], Resume),
        (&["zur", "station"], Dock),
        (&["zur", "ladestation"], Dock),
        (&["warmweiss"], White(2700)),
        (&["warmes", "weiss"], White(2700)),
        (&["kaltweiss"], White(6500)),
        (&["kaltes", "weiss"], White(6500)),
        (&["tageslicht"], White(5000)),
        (&["heller"], Brighter),
        (&["dunkler"], Dimmer),
        (&["lauter"], Louder),
        (&["leiser"], Quieter),
        (&["heizmodus"], Mode(Heat)),
        (&["auf", "heizen"], Mode(Heat)),
        (&["kuhlmodus"], Mode(Cool)),
        (&["auf", "kuhlen"], Mode(Cool)),
        (&["einschalten"], On),
        (&["beleuchte"], On),
        (&["ausschalten"], Off),
        (&["offne"], Open),
        (&["oeffne"], Open),
        (&["giesse"], Open),
        (&["bewassere"], Open),
        (&["schliesse"], Close),
        (&["schliess"], Close),
        (&["verriegle"], Lock),
        (&["entriegle"], Unlock),
        (&["entsperre"], Unlock),
        (&["sperre"], Lock),
        (&["starte"], Start),
        (&["pausiere"], Pause),
        (&["umschalten"], Toggle),
        // Separable verbs said whole, as an infinitive ends a request ("kannst du das Licht
        // ausmachen?").
        (&["anmachen"], On),
        (&["ausmachen"], Off),
        (&["aufmachen"], Open),
        (&["zumachen"], Close),
        (&["hochmachen"], Open),
        (&["raufmachen"], Open),
        (&["runtermachen"], Close),
        (&["hochfahren"], Open),
        (&["rauffahren"], Open),
        (&["runterfahren"], Close),
        (&["abschliessen"], Lock),
        (&["absperren"], Lock),
        (&["verriegeln"], Lock),
        (&["verriegel"], Lock),
        (&["entriegeln"], Unlock),
        (&["entriegel"], Unlock),
        (&["zuschliessen"], Lock),
        (&["aufschliessen"], Unlock),
        (&["aufsperren"], Unlock),
        // The particle apart from its verb, as speech recognition often writes it ("Ventil
        // auf machen").
        (&["an", "machen"], On),
        (&["aus", "machen"], Off),
        (&["auf", "machen"], Open),
        (&["zu", "machen"], Close),
        (&["pausieren"], Pause),
        (&["fortsetzen"], Resume),
        (&["weiterspielen"], Resume),
        // A verb said last ("Alle Jalousien schließen", "Garagentor öffnen").
        (&["schliessen"], Close),
        (&["offnen"], Open),
        (&["stoppe"], Stop),
        (&["stopp"], Stop),
    ],
    separable: &[
        (
            &["schalte", "schalt", "schaltet", "dreh", "drehe"],
            &[
                ("ein", On),
                ("an", On),
                ("aus", Off),
                ("auf", Open),
                ("zu", Close),
            ],
        ),
        // A cover made or driven up or down ("mach das Rollo hoch", "fahre die Rollläden
        // runter"); "dreh die Musik hoch" is louder, so "dreh" is not here.
        (
            &["mach", "mache", "macht"],
            &[
                ("ein", On),
                ("an", On),
                ("aus", Off),
                ("auf", Open),
                ("zu", Close),
                ("hoch", Open),
                ("rauf", Open),
                ("herauf", Open),
                ("runter", Close),
                ("herunter", Close),
            ],
        ),
        (
            &["fahr", "fahre", "fahrt"],
            &[
                ("hoch", Open),
                ("rauf", Open),
                ("herauf", Open),
                ("hinauf", Open),
                ("runter", Close),
                ("herunter", Close),
                ("hinunter", Close),
            ],
        ),
        (
            &["schliess", "schliesse", "sperr", "sperre"],
            &[("ab", Lock), ("zu", Lock), ("auf", Unlock)],
        ),
        (&["spiel", "spiele"], &[("weiter", Resume)]),
        (&["setz", "setze"], &[("fort", Resume)]),
        // "Führe das Skript aus": a script run.
        (&["fuhre", "fuhr"], &[("aus", On)]),
        (&["stell", "stelle"], &[("ab", Off), ("an", On)]),
    ],
    alone: &[
        ("weiter", Next),
        ("nachster", Next),
        ("nachstes", Next),
        ("zuruck", Previous),
        ("vorheriger", Previous),
        ("pause", Pause),
        ("fortsetzen", Resume),
    ],
    trailing: &[
        ("an", On),
        ("ein", On),
        ("aus", Off),
        ("zu", Close),
        ("auf", Open),
    ],
    trailing_verbs: &[],
    after: &["bitte", "danke"],
    filler: &[
        // "Mach hier den Ventilator aus": here is where the person speaks.
        "hier",
        // Watering said as an infinitive after another verb says the kind (`water`), not a
        // name; the noun ("l'arrosage", "die Bewässerung") may be a device's name.
        "giessen",
        "schicke",
        "schick",
        "zuruck",
        "schalte",
        "schalt",
        "stell",
        // "Dimme das Licht auf 40 Prozent": the value says what to do.
        "dimme",
        "dimm",
        "mal",
        "mach",
        "mache",
        "macht",
        "schaltet",
        "fahr",
        "fahre",
        "fahrt",
        "prozent",
        "lautstarke",
        "helligkeit",
        // "Färbe die Lampe grün", "Stelle die Farbe auf blau": the colour says what to do.
        "farbe",
        "stelle",
        "setze",
        // A verb said last after a value ("Lautstärke auf 10 % setzen").
        "setzen",
        "stellen",
        "auf",
    ],
    courtesy: &["bitte", "danke"],
    wrappers: &[
        &["kannst", "du"],
        &["konntest", "du"],
        &["wurdest", "du"],
        &["wuerdest", "du"],
        &["konnen", "sie"],
    ],
    please: &["bitte"],
    desires: &[
        &["ich", "mochte", "dass"],
        &["ich", "will", "dass"],
        &["stell", "sicher", "dass"],
        &["stelle", "sicher", "dass"],
        &["sorg", "dafur", "dass"],
        &["sorge", "dafur", "dass"],
    ],
    be: &["ist", "sind", "wird"],
    asking: &["ob", "wissen"],
    wished: &[
        ("on", "einschalten"),
        ("off", "ausschalten"),
        ("open", "öffne"),
        ("closed", "schließe"),
        ("locked", "verriegle"),
        ("unlocked", "entriegle"),
    ],
    joiners: &["und"],
    conditionals: &["wenn", "falls", "sofern"],
    if_words: &["wenn", "falls", "sofern"],
    then_words: &["dann"],
    above: &[
        "uber", "ueber", "hoher", "hoeher", "mehr", "warmer", "waermer", "oberhalb",
    ],
    below: &[
        "unter",
        "niedriger",
        "weniger",
        "kalter",
        "kaelter",
        "unterhalb",
    ],
    both: &[],
    every: &[
        "alle",
        "allen",
        "aller",
        "samtliche",
        "samtlicher",
        "ganzen",
        "ganze",
        "gesamten",
    ],
    any_room: &["raume", "raumen", "zimmer", "zimmern"],
    everything: &["alles", "allem"],
    except: &["ausser", "bis"],
    relatives: &["was", "das", "die", "der"],
    with_a_key: &[],
    watering: &["giesse", "giess", "bewassere"],
    water: &["giessen"],
    water_appliances: &[],
    cleaning: &["sauge"],
    lighting: &["beleuchte"],
    lit: &["leuchtet", "leuchten"],
    joke_words: &["witz", "witze", "lustiges"],
    jokes: &[
        "Sagt die Lampe zum Schalter: Du machst mich einfach an.",
        "Was macht ein Thermostat auf einer Party? Es sorgt für Stimmung, aber höchstens bis 21 Grad.",
        "Warum streitet der Saugroboter nie? Er fährt einfach um jedes Problem herum.",
    ],
    level_of: &["lautstarke", "helligkeit", "dimme", "dimm"],
    volume: &["lautstarke"],
    levels: &[
        ("null", 0),
        ("halbe", 50),
        ("halb", 50),
        ("maximum", 100),
        ("max", 100),
        ("hochste", 100),
        ("maximale", 100),
        ("minimum", 1),
        ("minimale", 1),
        ("niedrigste", 1),
    ],
    percent_units: &["prozent"],
    degree_units: &["grad"],
    temperature_words: &["temperatur", "zieltemperatur", "solltemperatur"],
    temperature_verbs: &["heize", "warme", "kuhle"],
    colours: &[
        ("red", &["rot", "rote", "roten", "rotes"]),
        ("blue", &["blau", "blaue", "blauen", "blaues"]),
        ("green", &["grun", "grune", "grunen", "gruen"]),
        ("yellow", &["gelb", "gelbe", "gelben"]),
        ("orange", &["orange", "orangene", "orangen"]),
        ("purple", &["lila", "violett"]),
        ("pink", &["rosa"]),
        ("white", &["weiss", "weisse", "weissen"]),
    ],
    speeds: &[("niedrig", 33), ("mittel", 66), ("hoch", 100)],
    speed_words: &["stufe", "geschwindigkeit"],
    add_item: &[
        ("fuge", &["zu", "zur", "zum"]),
        ("fuege", &["zu", "zur", "zum"]),
        ("setze", &["auf"]),
    ],
    list_filler: &["liste", "meine", "meinen", "meiner", "hinzu", "die"],
    kinds: &[
        (
            "light",
            &[
                "licht",
                "lichter",
                "lampe",
                "lampen",
                "leuchte",
                "leuchten",
                "beleuchtung",
            ],
        ),
        ("switch", &["schalter", "steckdose"]),
        (
            "cover",
            &[
                "rollladen",
                "rolladen",
                "jalousie",
                "jalousien",
                "rollo",
                "rollos",
                "raffstore",
                "raffstores",
                "vorhang",
                "vorhange",
                "fenster",
                "tor",
                "tore",
                "garagentor",
                "garagentore",
                "abdeckung",
                "abdeckungen",
                "beschattung",
                "beschattungen",
                "markise",
                "markisen",
            ],
        ),
        ("climate", &["heizung", "klima"]),
        ("lock", &["schloss", "schlosser", "tur", "tuer"]),
        ("fan", &["ventilator", "ventilatoren", "lufter", "luefter"]),
        (
            "sensor",
            &["temperatur", "feuchtigkeit", "luftfeuchtigkeit"],
        ),
        (
            "media_player",
            &["musik", "wiedergabe", "lautsprecher", "fernseher"],
        ),
        ("vacuum", &["staubsauger"]),
        (
            "humidifier",
            &[
                "luftbefeuchter",
                "luftentfeuchter",
                "befeuchter",
                "entfeuchter",
            ],
        ),
        ("valve", &["ventil"]),
        ("scene", &["szene"]),
        ("script", &["skript", "skripte"]),
    ],
    specific_kinds: &[
        ("rollo", "blind"),
        ("rollos", "blind"),
        ("raffstore", "blind"),
        ("raffstores", "blind"),
        ("jalousie", "blind"),
        ("jalousien", "blind"),
        ("rollladen", "shutter"),
        ("rolladen", "shutter"),
        ("vorhang", "curtain"),
        ("vorhange", "curtain"),
        ("fernseher", "tv"),
        ("tor", "garage|gate"),
        ("tore", "garage|gate"),
        ("garagentor", "garage"),
        ("garagentore", "garage"),
        ("markise", "awning"),
        ("markisen", "awning"),
        ("beschattung", SHADING),
        ("beschattungen", SHADING),
        ("fenster", "window"),
        ("steckdose", "outlet"),
        ("luftentfeuchter", "dehumidifier"),
        ("entfeuchter", "dehumidifier"),
        ("luftbefeuchter", "humidifier"),
        ("befeuchter", "humidifier"),
    ],
    // Home Assistant's German commands move every shading cover by each of these words
    // ("öffne die Rollos im Wohnzimmer" opens the room's curtains and shutters too); its
    // questions tell Rollos apart ("sind irgendwelche Rollos offen?" asks about blinds).
    commanded_classes: &[
        ("rollo", SHADING),
        ("rollos", SHADING),
        ("jalousie", SHADING),
        ("jalousien", SHADING),
        ("rollladen", SHADING),
        ("rolladen", SHADING),
        ("vorhang", SHADING),
        ("vorhange", SHADING),
        ("raffstore", SHADING),
        ("raffstores", SHADING),
    ],
    singular: &[
        "licht",
        "lampe",
        "leuchte",
        "ventilator",
        "schloss",
        "steckdose",
        "tur",
        "musik",
    ],
    same_in_plural: &[
        "fenster",
        "schalter",
        "rollladen",
        "lautsprecher",
        "staubsauger",
        "fernseher",
    ],
    singular_articles: &["das", "den", "dem", "der", "ein", "einen"],
    translations: &[
        ("personal", &["personlich", "personliche", "personlichen"]),
        ("tasks", &["aufgaben"]),
        ("phone", &["handy", "telefon", "smartphone"]),
        ("kitchen", &["kuche", "kueche", "kuchen", "kuechen"]),
        ("bedroom", &["schlafzimmer"]),
        ("living", &["wohnzimmer"]),
        ("bathroom", &["badezimmer", "bad"]),
        ("office", &["buro", "bueros", "arbeitszimmer"]),
        ("hall", &["flur", "diele"]),
        ("garage", &["garagen", "garagentor"]),
        ("upstairs", &["oben", "obergeschoss"]),
        ("downstairs", &["unten", "erdgeschoss"]),
        ("garden", &["garten"]),
        ("dining", &["esszimmer"]),
        ("entrance", &["eingang", "eingangsbereich"]),
        ("entry", &["eingang", "eingangsbereich"]),
        ("outside", &["draussen", "aussen"]),
        ("outdoor", &["draussen", "aussen"]),
        ("temperature", &["temperatur"]),
        ("humidity", &["luftfeuchtigkeit", "feuchtigkeit"]),
        ("ceiling", &["decke", "decken"]),
        ("fan", &["ventilator", "ventilatoren"]),
        ("window", &["fenster"]),
        (
            "door",
            &["tur", "tuer", "ture", "turen", "tor", "garagentor"],
        ),
        ("gate", &["tor"]),
        ("front", &["haus", "vorder"]),
        ("decorative", &["deko", "dekorative", "dekorativen"]),
        ("ac", &["klimaanlage"]),
        ("heatpump", &["warmepumpe", "waermepumpe"]),
        ("pump", &["pumpe"]),
        ("lock", &["schloss"]),
        ("bed", &["bett"]),
        ("curtain", &["vorhang", "vorhange"]),
    ],
    places: &[],
    here: &[
        &["in", "diesem", "raum"],
        &["in", "diesem", "zimmer"],
        &["im", "raum"],
        &["hier", "drin"],
        &["hier"],
    ],
    place_prepositions: &["im"],
    articles: &["der", "dem", "die", "den"],
    floor_words: &["etage", "stock", "geschoss"],
    measures: &[
        ("carbon_dioxide", &["kohlendioxid"]),
        ("power", &["strom", "leistung", "stromverbrauch"]),
        ("energy", &["energie"]),
        ("battery", &["akku", "batterie", "akkustand", "ladestand"]),
        ("temperature", &["warm", "kalt"]),
        ("humidity", &["feucht"]),
    ],
    question_openers: &["ist", "sind", "welche", "wie", "gibt"],
    more_question_openers: &["wer", "wo", "wann", "was", "habe", "hab"],
    yes_no_openers: &["ist", "sind"],
    state_verbs: &["lauft", "laeuft", "laufen", "spielt", "brennt"],
    states: &[
        ("on", &["an", "eingeschaltet"]),
        ("off", &["aus", "ausgeschaltet"]),
        ("open", &["offen", "geoffnet"]),
        ("closed", &["geschlossen", "zu"]),
        ("locked", &["verriegelt", "abgeschlossen"]),
        ("unlocked", &["entriegelt"]),
        ("playing", &["spielt", "lauft", "laeuft"]),
        ("paused", &["pausiert"]),
        ("idle", &["gestoppt"]),
    ],
    question_filler: &[
        // "Wie voll ist der Akku vom Handy?"
        "voll",
        "vom",
        "von",
        "wie",
        "hoch",
        "ist",
        "sind",
        "welche",
        "viele",
        "stand",
        "viel",
        "verbrauchen",
        "wir",
        "gerade",
        "wert",
    ],
    question_courtesy: &[&["sag", "mir"], &["bitte"]],
    how_many: &[&["wie", "viele"]],
    when_is: &[&["um", "wie", "viel", "uhr"], &["wann"]],
    calendar_words: &["kalender", "terminkalender"],
    which: &["welche", "welcher", "welches"],
    any: &[
        "irgendein",
        "irgendeine",
        "irgendwelche",
        "irgendeinen",
        "einige",
        "irgendwas",
        "irgendetwas",
        "etwas",
    ],
    low: &["niedrig", "schwach"],
    yes: "Ja",
    no: "Nein",
    state_words: &[
        ("on", "an"),
        ("off", "aus"),
        ("open", "offen"),
        ("closed", "geschlossen"),
        ("locked", "verriegelt"),
        ("unlocked", "entriegelt"),
        ("playing", "spielt"),
        ("paused", "pausiert"),
        ("heat", "heizt"),
        ("cool", "kühlt"),
        ("heat_cool", "heizt und kühlt"),
        ("dry", "entfeuchtet"),
        ("fan_only", "nur Lüfter"),
        ("auto", "Automatik"),
        ("idle", "untätig"),
        ("docked", "in der Station"),
        ("cleaning", "saugt"),
        ("returning", "fährt zur Station"),
        ("unavailable", "nicht verfügbar"),
        ("unknown", "unbekannt"),
        ("home", "zu Hause"),
        ("not_home", "unterwegs"),
        ("armed_away", "scharf (abwesend)"),
        ("armed_home", "scharf (zu Hause)"),
        ("armed_night", "scharf (Nacht)"),
        ("disarmed", "unscharf"),
    ],
    // "spielt" is a verb: "Kitchen spielt", not "Kitchen ist spielt".
    state_line: |name, value| {
        if value == "spielt" {
            format!("{name} {value}")
        } else {
            format!("{name} ist {value}")
        }
    },
    counted: |n, total, state, listed| {
        format!(
            "{n} von {total} {} {state}{listed}.",
            plural(n as u64).of(["ist", "sind", "sind"])
        )
    },
    set_to: "eingestellt auf",
    currently: "aktuell",
    approve: &[
        "ja",
        "jawohl",
        "klar",
        "bestatige",
        "bestatigt",
        "genehmigt",
        "genehmige",
        "freigeben",
    ],
    decline: &["nein", "abbrechen", "ablehnen", "stopp"],
    own_words: &[
        "ich", "nicht", "habe", "der", "die", "das", "und", "ist", "kein", "keine", "konnte",
        "gefunden", "nichts", "ein", "eine", "den", "mit", "es",
    ],
    letters: "äöüß",
    stopwords: &[
        "der", "die", "das", "im", "in", "den", "dem", "auf", "bitte", "alle", "und",
    ],
    stand_ins: &["es", "sie", "ihn", "das", "alles", "die"],
    about_kinds: &[
        ("light", &["helligkeit", "farbe"]),
        (
            "media_player",
            &["titel", "lied", "lautstarke", "wiedergabe"],
        ),
        ("todo", &["liste", "aufgaben"]),
    ],
    unit_words: &[("grad", "°c"), ("prozent", "%")],
    answer_lead: &["bitte"],
    digits: &[
        ("null", '0'),
        ("eins", '1'),
        ("zwei", '2'),
        ("drei", '3'),
        ("vier", '4'),
        ("funf", '5'),
        ("sechs", '6'),
        ("sieben", '7'),
        ("acht", '8'),
        ("neun", '9'),
        ("zwo", '2'),
    ],
    claims: &[
        (
            Claim::Action,
            r"(?i)\bich\s+habe\b[^.?!]{0,60}\b(?:eingeschaltet|ausgeschaltet|angeschaltet|abgeschaltet|angemacht|ausgemacht|geöffnet|geschlossen|gesperrt|entsperrt|abgeschlossen|aufgeschlossen|eingestellt|gestartet|gestoppt|aktiviert|deaktiviert|gedimmt)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\bich\s+habe\b[^.?!]{0,60}\b(?:überprüft|geprüft|nachgesehen|nachgeschaut|kontrolliert)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:ist|sind)\s+(?:jetzt|nun)\s+(?:an|aus|eingeschaltet|ausgeschaltet|offen|geöffnet|geschlossen|gesperrt|entsperrt)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\bdie\s+(?:aktuelle\s+)?temperatur\b[^.?!]{0,40}\b(?:beträgt|ist|liegt)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bwurden?\s+(?:eingeschaltet|ausgeschaltet|geöffnet|geschlossen|gesperrt|entsperrt|eingestellt)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bich\s+habe\b(?:[^.?!]|\.\w){0,60}\b(?:aufgerufen|ausgeführt|gesendet)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:startet\s+(?:jetzt\s+|nun\s+|gerade\s+)?neu|wird\s+(?:jetzt\s+|nun\s+|gerade\s+)?neu\s+gestartet)\b",
        ),
        (
            Claim::Action,
            r"(?i)(?:^|[.!:]\s+)(?:eingeschaltet|ausgeschaltet|geöffnet|geschlossen|gesperrt|entsperrt|hinzugefügt|gestartet|gestoppt|pausiert|stummgeschaltet)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bwurden?\s+(?:\S+\s+){0,4}(?:hinzugefügt|entfernt|gestartet|gestoppt|pausiert|stummgeschaltet)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bsollten?\s+(?:jetzt\s+|nun\s+)?(?:an|aus|eingeschaltet|ausgeschaltet|offen|geöffnet|geschlossen|gesperrt|entsperrt)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\b(?:ist|sind)\s+(?:bereits\s+|schon\s+)?(?:an|aus|eingeschaltet|ausgeschaltet|offen|geöffnet|geschlossen|gesperrt|entsperrt)\b",
        ),
    ],
    needs_tools: &[
        r"(?i)^\s*(?:bitte\s+)?(?:schalte|schalt|mach|mache|öffne|schließe|schliess|stelle|stell|sperre|entsperre|starte|stoppe|aktiviere|deaktiviere|dimme)\b",
        r"(?i)^\s*(?:ist|sind)\s+\w+",
        r"(?i)\b(?:wie\s+(?:warm|kalt|ist)|welche\s+temperatur)\b",
        r"\b(?:ein|aus|an)\s*[.!]?\s*$",
    ],
    advice_verbs: &["rufe", "verwende"],
    read_openers: &["was", "wer", "wann", "wo", "habe", "hab", "gibt"],
    weather: &[
        "wetter",
        "sonnig",
        "bewolkt",
        "regen",
        "regnet",
        "regnen",
        "vorhersage",
        "schnee",
        "schneit",
        "windig",
        "regenschirm",
    ],
    outside: &["draussen"],
    weather_measures: &["temperatur"],
    lists: &[
        "liste",
        "aufgaben",
        "einkaufsliste",
        "einkaufen",
        "besorgungen",
    ],
    needs: &[
        "kaufen",
        "anrufen",
        "muss",
        "erledigen",
        "reparieren",
        "repariert",
    ],
    agenda: &[
        "kalender",
        "termin",
        "termine",
        "treffen",
        "besuch",
        "heute",
        "morgen",
        "woche",
        "wochenende",
        "abend",
    ],
    today_words: &["heute"],
    tomorrow_words: &["morgen"],
    count_aside: &["wie", "viele", "oft", "ich", "wir", "mal", "tage"],
    says: &SAYS,
};

/// What a call would do, after "ich würde" or "kann ich".
fn to_do(key: &str, names: &str) -> String {
    let verb = match key {
        "turn_on" => "einschalten",
        "turn_off" => "ausschalten",
        "toggle" => "umschalten",
        "open" => "öffnen",
        "close" => "schließen",
        "lock" => "verriegeln",
        "unlock" => "entriegeln",
        "start" => "starten",
        "pause" => "pausieren",
        "disarm" => "unscharf schalten",
        "arm" => "scharf schalten",
        "run" => "ausführen",
        _ => "ändern",
    };
    format!("{names} {verb}")
}

/// German plural categories: "one" for 1 alone, the rest "many".
fn plural(n: u64) -> Plural {
    if n == 1 { Plural::One } else { Plural::Many }
}

const SAYS: Says = Says {
    conditional: "Diese Bedingung kann ich nicht vor dem Handeln prüfen, darum habe ich nichts geändert. Sag es ohne Bedingung oder lege eine Automatisierung in Home Assistant an.",
    condition_unmet: |seen| format!("{seen}, darum habe ich nichts geändert."),
    nothing_changed: "Ich habe nichts geändert.",
    no_room_here: "Ich weiß nicht, in welchem Raum du bist, deshalb habe ich nichts geändert. \
                   Nenne den Raum, zum Beispiel „Schalte das Licht in der Küche aus“.",
    nothing_matches: |words| {
        format!(
            "Ich habe in Home Assistant nichts gefunden, was „{words}“ sein könnte, und nichts \
             geändert."
        )
    },
    nothing_to_answer: |words| {
        format!(
            "Ich habe in Home Assistant nichts gefunden, was „{words}“ sein könnte, und kann es \
             nicht beantworten."
        )
    },
    not_exposed: |name| {
        format!(
            "{name} ist in Home Assistant nicht für Assist freigegeben (Einstellungen > \
             Sprachassistenten > Freigeben)."
        )
    },
    filtered_out: |name| format!("Die Einstellungen von HomeClaw halten {name} außer Reichweite."),
    did_words: &[
        ("turn_on", "Eingeschaltet"),
        ("turn_off", "Ausgeschaltet"),
        ("toggle", "Umgeschaltet"),
        ("open", "Geöffnet"),
        ("close", "Geschlossen"),
        ("lock", "Verriegelt"),
        ("unlock", "Entriegelt"),
        ("start", "Gestartet"),
        ("return_to_base", "Zur Station geschickt"),
        ("pause", "Pausiert"),
        ("media_play", "Fortgesetzt"),
        ("media_stop", "Gestoppt"),
        ("media_next_track", "Nächster Titel"),
        ("media_previous_track", "Vorheriger Titel"),
        ("volume_mute", "Stummgeschaltet"),
        ("brighten", "Heller gestellt"),
        ("dim", "Gedimmt"),
        ("volume_up", "Lauter gestellt"),
        ("volume_down", "Leiser gestellt"),
        ("disarm", "Unscharf geschaltet"),
        ("arm", "Scharf geschaltet"),
        ("press", "Gedrückt"),
        ("stop", "Gestoppt"),
        ("done", "Erledigt"),
    ],
    did: |words, names| format!("{words}: {names}."),
    set_value: |names, value| format!("{names} auf {value} eingestellt."),
    colour_names: &[
        ("warm_white", "Warmweiß"),
        ("cool_white", "Kaltweiß"),
        ("red", "rot"),
        ("blue", "blau"),
        ("green", "grün"),
        ("yellow", "gelb"),
        ("orange", "orange"),
        ("purple", "lila"),
        ("pink", "rosa"),
        ("white", "weiß"),
    ],
    mode_names: &[
        ("heat", "Heizen"),
        ("cool", "Kühlen"),
        ("dry", "Entfeuchten"),
        ("auto", "Automatik"),
        ("heat_cool", "Heizen und Kühlen"),
        ("fan_only", "nur Lüfter"),
        ("off", "Aus"),
    ],
    added: |item, list| format!("„{item}“ zu {list} hinzugefügt."),
    to_do,
    dry_run: |what| format!("Nur ein Test: Ich würde {what}; nichts wurde geändert."),
    not_confirmed: |names, seen| {
        format!(
            "Home Assistant hat den Befehl für {names} angenommen, aber ich kann nicht \
             bestätigen, dass er gewirkt hat ({seen})."
        )
    },
    unfinished_nothing_changed: "Ich konnte diese Anfrage nicht abschließen und habe nichts geändert.",
    unfinished: "Ich konnte diese Anfrage nicht abschließen.",
    stuck: "Ich bin bei dieser Anfrage hängen geblieben. Kannst du genauer sagen, was du \
            möchtest, zum Beispiel welches Gerät oder welcher Raum?",
    reset: "Entschuldigung, ich musste unser Gespräch neu beginnen, weil das Sprachmodell es \
            nicht mehr angenommen hat. Bitte wiederhole deine Anfrage.",
    ask_approval: |held, ways| {
        let place = if ways.phone {
            "in HomeClaw oder auf deinem Handy"
        } else {
            "in HomeClaw"
        };
        let how = if ways.by_voice {
            format!("sag ja oder tippe {place} auf „Freigeben“")
        } else {
            format!("tippe {place} auf „Freigeben“")
        };
        format!(
            "{}? Das braucht deine Freigabe — {how}.",
            capitalised(&to_do(held.key, held.names))
        )
    },
    approval_title: "HomeClaw: Freigabe nötig",
    approval_notice: |held, buttons| {
        let where_ = if buttons {
            "Freigeben oder Ablehnen"
        } else {
            "tippe im HomeClaw-Panel auf „Freigeben“ oder „Ablehnen“"
        };
        format!(
            "HomeClaw soll {}. Das braucht deine Freigabe: {where_}.",
            to_do(held.key, held.names)
        )
    },
    approval_buttons: ["Freigeben", "Ablehnen"],
    declined: |held| {
        let stays = if held.many { "bleiben" } else { "bleibt" };
        match held.key {
            "unlock" => format!("In Ordnung, {} {stays} verriegelt.", held.names),
            "open" => format!("In Ordnung, {} {stays} geschlossen.", held.names),
            "disarm" => format!("In Ordnung, {} {stays} scharf.", held.names),
            key => format!(
                "In Ordnung, abgelehnt: {}. Nichts wurde geändert.",
                to_do(key, held.names)
            ),
        }
    },
    pin_missing: |held| {
        format!(
            "Sag die PIN mit deinem Ja, dann kann ich {}.",
            to_do(held.key, held.names)
        )
    },
    pin_cancelled: |held| {
        format!(
            "Zu oft eine falsche PIN: „{}“ ist abgebrochen. Nichts wurde geändert.",
            capitalised(&to_do(held.key, held.names))
        )
    },
    pin_wrong: |held, left| {
        format!(
            "Die PIN stimmt nicht; mit der richtigen kann ich {} (noch {left} {}). Nichts wurde \
             geändert.",
            to_do(held.key, held.names),
            plural(left.into()).of(["Versuch", "Versuche", "Versuche"])
        )
    },
    pin_required_here: |held, phone| {
        format!(
            "Eine Freigabe per Sprache braucht hier eine PIN, weil alle Sprachgeräte dieses \
             Gespräch teilen. Tippe {} auf „Freigeben“, dann kann ich {}.",
            if phone {
                "in HomeClaw oder auf deinem Handy"
            } else {
                "in HomeClaw"
            },
            to_do(held.key, held.names)
        )
    },
    not_run: |why| match why {
        NotRun::Expired => "Diese Freigabe ist abgelaufen; nichts wurde ausgeführt.",
        NotRun::AlreadyAnswered => {
            "Diese Freigabe wurde schon beantwortet; nichts weiter wurde ausgeführt."
        }
        NotRun::Unknown => {
            "HomeClaw kennt diese Freigabe nicht (vielleicht von vor einem Neustart); nichts \
             wurde ausgeführt."
        }
        NotRun::Denied => {
            "HomeClaws Einstellungen verbieten diese Aktion jetzt; nichts wurde \
                           ausgeführt."
        }
        NotRun::Failed => "Home Assistant konnte es nicht ausführen.",
    },
    which_device: "Welches Gerät meinst du?",
    do_you_mean: |one| format!("Meinst du {one}?"),
    which_of: |first, last| format!("Welches meinst du: {first} oder {last}?"),
    another: "ein anderes",
    in_room: |name, area| format!("{name} ({area})"),
    could_not_answer: "Ich habe nicht gefunden, wonach du fragst, und kann es nicht beantworten.",
    could_not_read: |name| format!("Ich konnte {name} nicht lesen."),
    items: |name, n, items| match n {
        0 => format!("{name} ist leer."),
        _ => format!(
            "{name} hat {n} {}: {items}.",
            plural(n as u64).of(["Eintrag", "Einträge", "Einträge"])
        ),
    },
    weekdays: [
        "Montag",
        "Dienstag",
        "Mittwoch",
        "Donnerstag",
        "Freitag",
        "Samstag",
        "Sonntag",
    ],
    months: [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
    date: |weekday, d, month| format!("{weekday}, {d}. {month}"),
    today: "heute",
    tomorrow: "morgen",
    rest_of_today: "für den Rest des Tages",
    next_7_days: "in den nächsten 7 Tagen",
    nothing_on: |name, window| format!("Nichts im Kalender {name} {window}."),
    at_place: |place| format!(" ({place})"),
    all_day: "ganztägig",
    events_counted: |k, name, window, lines| format!("{k} im Kalender {name} {window}: {lines}."),
    conditions: &[
        ("clear-night", "klare Nacht"),
        ("cloudy", "bewölkt"),
        ("exceptional", "außergewöhnlich"),
        ("fog", "Nebel"),
        ("hail", "Hagel"),
        ("lightning", "Gewitter"),
        ("lightning-rainy", "Gewitter mit Regen"),
        ("partlycloudy", "teilweise bewölkt"),
        ("pouring", "Starkregen"),
        ("rainy", "regnerisch"),
        ("snowy", "Schnee"),
        ("snowy-rainy", "Schneeregen"),
        ("sunny", "sonnig"),
        ("windy", "windig"),
        ("windy-variant", "windig und bewölkt"),
    ],
    humidity: |h| format!("Luftfeuchtigkeit {h}%"),
    wind: "Wind",
    no_forecast: |name| format!("{name} hat keine Vorhersage für morgen."),
    chance_of_rain: |p| format!("Regenwahrscheinlichkeit {p}%"),
};
