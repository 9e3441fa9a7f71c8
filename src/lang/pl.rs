//! Polish (folded: "włącz" is "wlacz"). Names of homes set up in English are found through
//! [`Lexicon::translations`].

use super::HvacMode::{Cool, Heat};
use super::Intent::*;
use super::{Claim, Lang, Lexicon, NotRun, Plural, Says, capitalised};

pub const LEXICON: Lexicon = Lexicon {
    lang: Lang::Pl,
    plural,
    tag: "pl",
    intents: &[
        (&["nastepny", "utwor"], Next),
        (&["nastepna", "piosenka"], Next),
        (&["nastepny", "kawalek"], Next),
        (&["poprzedni", "utwor"], Previous),
        (&["poprzednia", "piosenka"], Previous),
        (&["poprzedni", "kawalek"], Previous),
        (&["do", "stacji"], Dock),
        (&["do", "bazy"], Dock),
        (&["cieple", "biale"], White(2700)),
        (&["cieply", "bialy"], White(2700)),
        (&["ciepla", "biel"], White(2700)),
        (&["zimne", "biale"], White(6500)),
        (&["zimny", "bialy"], White(6500)),
        (&["zimna", "biel"], White(6500)),
        (&["jasniej"], Brighter),
        (&["rozjasnij"], Brighter),
        (&["ciemniej"], Dimmer),
        (&["przyciemnij"], Dimmer),
        (&["glosniej"], Louder),
        (&["podglosnij"], Louder),
        (&["ciszej"], Quieter),
        (&["scisz"], Quieter),
        (&["tryb", "grzania"], Mode(Heat)),
        (&["na", "grzanie"], Mode(Heat)),
        (&["tryb", "chlodzenia"], Mode(Cool)),
        (&["na", "chlodzenie"], Mode(Cool)),
        (&["wlacz"], On),
        (&["zapal"], On),
        (&["oswietl"], On),
        (&["wylacz"], Off),
        (&["zgas"], Off),
        // "otwórz zamek": opening a lock is unlocking it.
        (&["otworz", "zamek"], Unlock),
        (&["otworz"], Open),
        (&["podlej"], Open),
        (&["zamknij"], Close),
        (&["zablokuj"], Lock),
        (&["odblokuj"], Unlock),
        (&["uruchom"], Start),
        (&["wstrzymaj"], Pause),
        (&["wznow"], Resume),
        (&["wycisz"], Mute),
        (&["przelacz"], Toggle),
        (&["zatrzymaj"], Stop),
        // "Przestań podlewać": stop doing it.
        (&["przestan"], Stop),
        // Infinitives, as a polite request says them ("czy możesz wyłączyć światło?").
        (&["wlaczyc"], On),
        (&["zapalic"], On),
        (&["wylaczyc"], Off),
        (&["zgasic"], Off),
        (&["otworzyc"], Open),
        (&["zamknac"], Close),
        (&["zablokowac"], Lock),
        (&["odblokowac"], Unlock),
        (&["uruchomic"], Start),
        (&["wstrzymac"], Pause),
        (&["wznowic"], Resume),
        (&["wyciszyc"], Mute),
        (&["zatrzymac"], Stop),
    ],
    separable: &[],
    alone: &[
        ("dalej", Next),
        ("nastepny", Next),
        ("nastepna", Next),
        ("poprzedni", Previous),
        ("poprzednia", Previous),
        ("wstecz", Previous),
        ("pauza", Pause),
        ("wznow", Resume),
    ],
    trailing: &[],
    trailing_verbs: &[],
    after: &["prosze", "teraz"],
    filler: &[
        // "the whole house": every area, said with the word for the home.
        "domu",
        // Watering said as an infinitive after another verb says the kind (`water`), not a
        // name; the noun ("l'arrosage", "die Bewässerung") may be a device's name.
        "podlewac",
        "zmien",
        "zmienic",
        "kolor",
        "procent",
        "glosnosc",
        "jasnosc",
        "ustaw",
        "na",
        "odeslij",
        "wyslij",
        // "do stacji dokującej": the dock, however it is called; "tutaj": where one speaks.
        "dokujacej",
        "ladujacej",
        "tutaj",
    ],
    courtesy: &["prosze", "dzieki", "dziekuje"],
    wrappers: &[
        &["czy", "mozesz"],
        &["czy", "moglbys"],
        &["czy", "mozna"],
        &["mozesz"],
        &["moglbys"],
    ],
    please: &["prosze"],
    desires: &[
        &["chce", "zeby"],
        &["chcialbym", "zeby"],
        &["chcialabym", "zeby"],
        &["upewnij", "sie", "ze"],
        &["dopilnuj", "zeby"],
        &["dopilnuj", "by"],
    ],
    be: &["bylo", "byly", "byl", "byla", "jest", "sa"],
    asking: &["czy", "wiedziec"],
    wished: &[
        ("on", "włącz"),
        ("off", "wyłącz"),
        ("open", "otwórz"),
        ("closed", "zamknij"),
        ("locked", "zablokuj"),
        ("unlocked", "odblokuj"),
    ],
    joiners: &["i", "oraz"],
    conditionals: &["jesli", "jezeli", "gdyby"],
    if_words: &["jesli", "jezeli"],
    then_words: &["to", "wtedy"],
    above: &["powyzej", "ponad", "wiecej", "wyzsza", "wyzej", "cieplej"],
    below: &["ponizej", "mniej", "nizsza", "nizej", "zimniej"],
    both: &[],
    every: &["wszystkie", "calym", "calej", "caly"],
    any_room: &["pokojach", "pomieszczeniach"],
    everything: &["wszystko"],
    except: &["oprocz", "poza", "procz"],
    relatives: &["co", "ktore", "ktory", "ktora"],
    with_a_key: &["klucz"],
    watering: &["podlej", "podlac", "podlewac", "podlewanie", "podlewaj"],
    // Watering said after another verb ("przestań podlewać").
    water: &["podlewac"],
    water_appliances: &[],
    cleaning: &["odkurz", "odkurzaj"],
    lighting: &["oswietl"],
    lit: &["swieci", "swieca"],
    joke_words: &["dowcip", "zart", "kawal", "smiesznego"],
    jokes: &[
        "Dlaczego lampa nigdy nie przegrywa kłótni? Bo zawsze ma jasne argumenty.",
        "Co mówi termostat do kaloryfera? Nie przegrzewaj się tak!",
        "Dlaczego odkurzacz jest dobrym kompanem? Bo zawsze wciągnie cię w rozmowę.",
    ],
    level_of: &["glosnosc", "jasnosc"],
    volume: &["glosnosc"],
    levels: &[
        ("polowe", 50),
        ("polowa", 50),
        ("pol", 50),
        ("maksa", 100),
        ("maksimum", 100),
        ("maksymalnie", 100),
    ],
    percent_units: &["procent"],
    degree_units: &["stopni", "stopnie", "stopnia"],
    temperature_words: &["temperature", "temperatura", "temperatury"],
    temperature_verbs: &["podgrzej", "ogrzej", "schlodz"],
    colours: &[
        (
            "red",
            &["czerwony", "czerwone", "czerwona", "czerwien", "czerwono"],
        ),
        (
            "blue",
            &["niebieski", "niebieskie", "niebieska", "niebiesko"],
        ),
        ("green", &["zielony", "zielone", "zielona", "zielono"]),
        ("yellow", &["zolty", "zolte", "zolta", "zolto"]),
        ("orange", &["pomaranczowy", "pomaranczowe", "pomaranczowa"]),
        ("purple", &["fioletowy", "fioletowe", "fioletowa"]),
        ("pink", &["rozowy", "rozowe", "rozowa"]),
        ("white", &["bialy", "biale", "biala", "bialo"]),
    ],
    speeds: &[
        ("niski", 33),
        ("nisko", 33),
        ("sredni", 66),
        ("srednio", 66),
        ("wysoki", 100),
        ("wysoko", 100),
    ],
    speed_words: &["predkosc", "bieg", "obroty"],
    add_item: &[("dodaj", &["do", "na"])],
    list_filler: &["lista", "listy", "liste", "liscie", "moja", "moje"],
    kinds: &[
        (
            "light",
            &[
                "swiatlo",
                "swiatla",
                "swiatel",
                "lampa",
                "lampy",
                "oswietlenie",
            ],
        ),
        (
            "switch",
            &["przelacznik", "przelaczniki", "gniazdko", "gniazdka"],
        ),
        (
            "cover",
            &[
                "roleta", "rolety", "okno", "okna", "okien", "brama", "brame", "bramy", "bramie",
                "zaluzje",
            ],
        ),
        (
            "climate",
            &["termostat", "termostaty", "ogrzewanie", "klimatyzacja"],
        ),
        ("lock", &["zamek", "zamki", "drzwi"]),
        ("fan", &["wentylator", "wentylatory", "wiatrak", "wiatraki"]),
        ("sensor", &["czujnik", "temperatura", "wilgotnosc"]),
        (
            "media_player",
            &[
                "glosnik",
                "glosniki",
                "muzyka",
                "muzyke",
                "muzyki",
                "muzyczka",
                "odtwarzanie",
                "telewizor",
            ],
        ),
        ("vacuum", &["odkurzacz", "odkurzacze"]),
        ("humidifier", &["nawilzacz", "osuszacz", "osuszacza"]),
        ("valve", &["zawor"]),
        ("scene", &["scena"]),
        ("script", &["skrypt", "skrypty"]),
    ],
    specific_kinds: &[
        ("roleta", "blind"),
        ("rolety", "blind"),
        ("rolet", "blind"),
        ("zaluzje", "blind"),
        ("zaslona", "curtain"),
        ("zaslony", "curtain"),
        ("telewizor", "tv"),
        ("brama", "garage"),
        ("brame", "garage"),
        ("bramy", "garage"),
        ("bramie", "garage"),
        ("okno", "window"),
        ("okna", "window"),
        ("okien", "window"),
        ("gniazdko", "outlet"),
        ("osuszacz", "dehumidifier"),
        ("osuszacza", "dehumidifier"),
        ("nawilzacz", "humidifier"),
    ],
    commanded_classes: &[],
    singular: &[
        // "Drzwi" is plural in form only: without "wszystkie" it is one door, as "the door" is.
        "drzwi",
        "swiatlo",
        "lampa",
        "wentylator",
        "okno",
        "roleta",
        "zamek",
        "przelacznik",
        "gniazdko",
        "odkurzacz",
        "muzyka",
        "muzyke",
        "muzyki",
    ],
    same_in_plural: &[],
    singular_articles: &[],
    translations: &[
        (
            "phone",
            &["telefon", "telefonu", "telefonie", "komorka", "komorki"],
        ),
        (
            "kitchen",
            &[
                "kuchnia",
                "kuchni",
                "kuchnie",
                // "drzwi kuchenne": the kitchen's, said as an adjective.
                "kuchenne",
                "kuchenny",
                "kuchenna",
                "kuchennej",
                "kuchennych",
                "kuchennym",
            ],
        ),
        ("bedroom", &["sypialnia", "sypialni", "sypialnie"]),
        ("living", &["salon", "salonie"]),
        (
            "bathroom",
            &[
                "lazienka",
                "lazience",
                "lazienkowe",
                "lazienkowy",
                "lazienkowa",
                "lazienkowej",
            ],
        ),
        ("office", &["biuro", "biurze"]),
        ("hall", &["korytarz", "korytarzu", "przedpokoj"]),
        (
            "garage",
            &["garaz", "garazu", "garazowa", "garazowej", "garazowe"],
        ),
        ("upstairs", &["gorze", "pietrze", "pietro"]),
        ("downstairs", &["dole", "parterze", "parter"]),
        ("garden", &["ogrod", "ogrodzie"]),
        ("dining", &["jadalnia", "jadalni"]),
        ("entrance", &["wejscie", "wejsciu"]),
        ("entry", &["wejscie", "wejsciu"]),
        ("outside", &["zewnatrz"]),
        ("outdoor", &["zewnatrz"]),
        ("temperature", &["temperatura"]),
        ("humidity", &["wilgotnosc"]),
        (
            "ceiling",
            &["sufit", "sufitowe", "sufitowy", "sufitowa", "sufitowych"],
        ),
        (
            "fan",
            &[
                "wentylator",
                "wentylatora",
                "wentylatory",
                "wiatrak",
                "wiatraka",
                "wiatraki",
            ],
        ),
        ("window", &["okno", "okna", "oknie", "okien"]),
        (
            "door",
            &["drzwi", "drzwiach", "brama", "brame", "bramy", "bramie"],
        ),
        ("gate", &["brama", "brame", "bramy", "bramie"]),
        (
            "front",
            &[
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
            &["dekoracyjne", "dekoracyjny", "dekoracyjnych"],
        ),
        (
            "ac",
            &[
                "klimatyzacja",
                "klimatyzacje",
                "klimatyzacji",
                "klimatyzator",
            ],
        ),
        // "Pompa ciepła" is "heat pump" word for word: both words name it.
        ("heatpump", &["pompa", "pompe", "pompy", "pompie", "ciepla"]),
        ("pump", &["pompa", "pompe", "pompy", "pompie"]),
        ("heat", &["ciepla", "cieplo"]),
        ("lock", &["zamek", "zamka"]),
        ("bed", &["lozko", "lozku"]),
        ("curtain", &["zaslona", "zaslony", "zaslone"]),
    ],
    places: &[],
    here: &[
        &["w", "tym", "pokoju"],
        &["w", "tym", "pomieszczeniu"],
        &["tutaj"],
    ],
    place_prepositions: &["w", "we"],
    articles: &[],
    floor_words: &[],
    measures: &[
        ("carbon_dioxide", &["dwutlenek"]),
        ("power", &["prad", "pradu", "moc"]),
        ("energy", &["energia", "energii"]),
        ("temperature", &["cieplo", "zimno"]),
        ("humidity", &["wilgotno"]),
        (
            "battery",
            &["bateria", "baterii", "akumulator", "akumulatora"],
        ),
    ],
    question_openers: &["czy", "jaki", "jaka", "jakie", "ile"],
    more_question_openers: &["kto", "gdzie", "kiedy", "co", "czemu", "czym"],
    yes_no_openers: &["czy"],
    state_verbs: &["gra", "swieci"],
    states: &[
        (
            "on",
            &["wlaczone", "wlaczony", "wlaczona", "swieci", "swieca"],
        ),
        ("off", &["wylaczone", "wylaczony", "wylaczona"]),
        (
            "open",
            &["otwarte", "otwarty", "otwarta", "otwartych", "otwartego"],
        ),
        (
            "closed",
            &["zamkniete", "zamkniety", "zamknieta", "zamknietych"],
        ),
        ("locked", &["zablokowane", "zablokowany"]),
        ("unlocked", &["odblokowane", "odblokowany"]),
        ("playing", &["gra"]),
        ("paused", &["wstrzymany", "wstrzymane"]),
        ("idle", &["zatrzymany", "zatrzymane"]),
    ],
    question_filler: &[
        "czy", "jaka", "jaki", "jest", "sa", "ile", "teraz", "poziom", "sie", "jakie", "zuzycie",
        // "Ile baterii ma telefon?"
        "ma",
    ],
    question_courtesy: &[&["powiedz", "mi"]],
    how_many: &[&["ile"]],
    when_is: &[&["o", "ktorej"], &["kiedy"]],
    calendar_words: &["kalendarz", "kalendarzu", "kalendarza"],
    which: &["ktore", "ktory", "ktora"],
    any: &[
        "jakies",
        "jakiekolwiek",
        "jakikolwiek",
        "jakas",
        "ktores",
        "cos",
        "cokolwiek",
    ],
    low: &["niski", "niska", "niskie", "slaba", "slaby", "slabe"],
    yes: "Tak",
    no: "Nie",
    state_words: &[
        ("on", "włączone"),
        ("off", "wyłączone"),
        ("open", "otwarte"),
        ("closed", "zamknięte"),
        ("locked", "zablokowane"),
        ("unlocked", "odblokowane"),
        ("playing", "gra"),
        ("paused", "wstrzymane"),
        ("heat", "grzanie"),
        ("cool", "chłodzenie"),
        ("heat_cool", "grzanie i chłodzenie"),
        ("dry", "osuszanie"),
        ("fan_only", "tylko wentylator"),
        ("auto", "tryb automatyczny"),
        ("idle", "bezczynny"),
        ("docked", "w stacji"),
        ("cleaning", "sprząta"),
        ("returning", "wraca do stacji"),
        ("unavailable", "niedostępne"),
        ("unknown", "nieznany"),
        ("home", "w domu"),
        ("not_home", "poza domem"),
        ("armed_away", "uzbrojony (poza domem)"),
        ("armed_home", "uzbrojony (w domu)"),
        ("armed_night", "uzbrojony (noc)"),
        ("disarmed", "rozbrojony"),
    ],
    // Without a verb, so no case or gender has to agree with a name we do not decline.
    state_line: |name, value| format!("{name}: {value}"),
    counted: |n, total, state, listed| format!("{n} z {total}: {state}{listed}."),
    set_to: "ustawione na",
    currently: "teraz",
    approve: &["tak", "potwierdzam", "zatwierdzam", "zgoda"],
    decline: &["nie", "anuluj", "odrzuc"],
    own_words: &[
        "nie",
        "sie",
        "jest",
        "ze",
        "nic",
        "niczego",
        "moglem",
        "moge",
        "znalazlem",
        "czy",
        "jak",
        "ale",
        "tego",
        "tej",
        "ten",
        "zadnego",
        "zadnej",
    ],
    letters: "ąćęłńóśźż",
    stopwords: &["w", "we", "na", "z", "do", "i", "prosze", "wszystkie"],
    stand_ins: &["je", "go", "ja", "to", "wszystko"],
    about_kinds: &[
        ("light", &["jasnosc", "kolor"]),
        ("media_player", &["utwor", "piosenka", "glosnosc"]),
        ("todo", &["lista", "zadania"]),
    ],
    unit_words: &[
        ("stopni", "°c"),
        ("stopnie", "°c"),
        ("procent", "%"),
        ("wat", "w"),
        ("watow", "w"),
    ],
    answer_lead: &["prosze"],
    digits: &[
        ("jeden", '1'),
        ("dwa", '2'),
        ("trzy", '3'),
        ("cztery", '4'),
        ("piec", '5'),
        ("szesc", '6'),
        ("siedem", '7'),
        ("osiem", '8'),
        ("dziewiec", '9'),
    ],
    claims: &[
        (
            Claim::Action,
            r"(?i)\b(?:włączył|wyłączył|zapalił|zgasił|zamknął|zamknęł|otworzył|ustawił|zablokował|odblokował|uruchomił|zatrzymał|przełączył|zmienił|podgłośnił|ściszył|uzbroił|rozbroił)(?:em|am|am\s+już)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\b(?:sprawdził|zweryfikował|odczytał|potwierdził)(?:em|am)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:jest|są)\s+(?:teraz\s+|już\s+)?(?:włączon|wyłączon|zamknięt|otwart|zablokowan|odblokowan)\w*",
        ),
        (
            Claim::Observation,
            r"(?i)\btemperatura\b[^.?!]{0,40}\b(?:wynosi|to|ma)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bzostał[aoy]?\s+(?:włączon|wyłączon|zamknięt|otwart|ustawion|zablokowan|odblokowan)\w*",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:wywołał|wysłał|wykonał)(?:em|am)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:zrestartował(?:em|am)|zrestartowano|przeładowano|restartuj(?:ę|e\s+się))\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:dodano|usunięto|włączono|wyłączono|otwarto|zamknięto|ustawiono|zablokowano|odblokowano|uruchomiono|zatrzymano|wstrzymano|wyciszono|dodał(?:em|am)|usunął(?:em)|usunęłam)\b",
        ),
        (
            Claim::Action,
            r"(?i)\bpowinn[oaiy]\w*\s+(?:już\s+|teraz\s+)?(?:być\s+)?(?:włączon|wyłączon|zamknięt|otwart|zablokowan|odblokowan)\w*",
        ),
    ],
    needs_tools: &[
        r"(?i)^\s*(?:proszę\s+)?(?:włącz|wyłącz|zapal|zgaś|otwórz|zamknij|ustaw|zablokuj|odblokuj|uruchom|zatrzymaj|przełącz|podnieś|opuść|ścisz|podgłośnij)\w*",
        r"(?i)\bczy\s+\w+",
        r"(?i)\b(?:jaka|jaki|jakie|ile)\s+(?:jest\s+)?(?:temperatura|wilgotność|stopni|stan)\w*",
    ],
    advice_verbs: &["wywołaj", "użyj"],
    read_openers: &["co", "kto", "kiedy", "gdzie", "jakie", "czym"],
    weather: &[
        "pogoda",
        "pogode",
        "slonecznie",
        "pochmurno",
        "deszcz",
        "pada",
        "padac",
        "prognoza",
        "snieg",
        "wietrznie",
        "parasol",
    ],
    outside: &["zewnatrz", "dworze"],
    weather_measures: &["temperatura", "cieplo", "zimno"],
    lists: &[
        "lista", "liscie", "liste", "zadania", "zadan", "zakupy", "zakupow",
    ],
    needs: &[
        "kupic",
        "zadzwonic",
        "musze",
        "zrobic",
        "trzeba",
        "naprawic",
    ],
    agenda: &[
        "kalendarz",
        "kalendarzu",
        "plany",
        "spotkanie",
        "spotkania",
        "wizyta",
        "dzis",
        "dzisiaj",
        "jutro",
        "tydzien",
        "tygodniu",
        "weekend",
        "wieczorem",
    ],
    today_words: &["dzis", "dzisiaj"],
    tomorrow_words: &["jutro"],
    count_aside: &["ile", "razy"],
    says: &SAYS,
};

/// What a call would do, as an infinitive ("abym mógł …").
fn to_do(key: &str, names: &str) -> String {
    let verb = match key {
        "turn_on" => "włączyć",
        "turn_off" => "wyłączyć",
        "toggle" => "przełączyć",
        "open" => "otworzyć",
        "close" => "zamknąć",
        "lock" => "zablokować",
        "unlock" => "odblokować",
        "start" | "run" => "uruchomić",
        "pause" => "wstrzymać",
        "disarm" => "rozbroić",
        "arm" => "uzbroić",
        _ => "zmienić",
    };
    format!("{verb} {names}")
}

/// The same as a noun ("odblokowanie Front Door"): what a declined action was.
fn doing(key: &str, names: &str) -> String {
    let noun = match key {
        "turn_on" => "włączenie",
        "turn_off" => "wyłączenie",
        "toggle" => "przełączenie",
        "open" => "otwarcie",
        "close" => "zamknięcie",
        "lock" => "zablokowanie",
        "unlock" => "odblokowanie",
        "start" | "run" => "uruchomienie",
        "pause" => "wstrzymanie",
        "disarm" => "rozbrojenie",
        "arm" => "uzbrojenie",
        _ => "zmianę",
    };
    format!("{noun} {names}")
}

/// Polish plural categories: 1 / 2–4, 22–24, … (not 12–14) / the rest.
fn plural(n: u64) -> Plural {
    if n == 1 {
        Plural::One
    } else if (2..=4).contains(&(n % 10)) && !(12..=14).contains(&(n % 100)) {
        Plural::Few
    } else {
        Plural::Many
    }
}

const SAYS: Says = Says {
    conditional: "Nie umiem sprawdzić tego warunku przed działaniem, więc niczego nie zmieniłem. Powiedz to bez warunku albo utwórz automatyzację w Home Assistant.",
    condition_unmet: |seen| format!("{seen}, więc niczego nie zmieniłem."),
    nothing_changed: "Niczego nie zmieniłem.",
    no_room_here: "Nie wiem, w którym pomieszczeniu jesteś, więc niczego nie zmieniłem. \
                   Powiedz, o które chodzi, na przykład „wyłącz światło w kuchni”.",
    nothing_matches: |words| {
        format!(
            "Nie znalazłem w Home Assistant niczego, co pasuje do „{words}”, więc niczego nie \
             zmieniłem."
        )
    },
    nothing_to_answer: |words| {
        format!(
            "Nie znalazłem w Home Assistant niczego, co pasuje do „{words}”, więc nie mogę \
             odpowiedzieć."
        )
    },
    not_exposed: |name| {
        format!(
            "{name} nie jest udostępnione dla Assist w Home Assistant (Ustawienia > Asystenci \
             głosowi > Udostępnij)."
        )
    },
    filtered_out: |name| format!("Ustawienia HomeClaw nie pozwalają mi sięgnąć po: {name}."),
    did_words: &[
        ("turn_on", "Włączono"),
        ("turn_off", "Wyłączono"),
        ("toggle", "Przełączono"),
        ("open", "Otwarto"),
        ("close", "Zamknięto"),
        ("lock", "Zablokowano"),
        ("unlock", "Odblokowano"),
        ("start", "Uruchomiono"),
        ("return_to_base", "Odesłano do stacji"),
        ("pause", "Wstrzymano"),
        ("media_play", "Wznowiono"),
        ("media_stop", "Zatrzymano"),
        ("media_next_track", "Następny utwór"),
        ("media_previous_track", "Poprzedni utwór"),
        ("volume_mute", "Wyciszono"),
        ("brighten", "Rozjaśniono"),
        ("dim", "Przyciemniono"),
        ("volume_up", "Podgłośniono"),
        ("volume_down", "Ściszono"),
        ("disarm", "Rozbrojono"),
        ("arm", "Uzbrojono"),
        ("press", "Naciśnięto"),
        ("stop", "Zatrzymano"),
        ("done", "Zrobione"),
    ],
    did: |words, names| format!("{words}: {names}."),
    set_value: |names, value| format!("Ustawiono {names} na {value}."),
    colour_names: &[
        ("warm_white", "ciepła biel"),
        ("cool_white", "zimna biel"),
        ("red", "czerwony"),
        ("blue", "niebieski"),
        ("green", "zielony"),
        ("yellow", "żółty"),
        ("orange", "pomarańczowy"),
        ("purple", "fioletowy"),
        ("pink", "różowy"),
        ("white", "biały"),
    ],
    mode_names: &[
        ("heat", "grzanie"),
        ("cool", "chłodzenie"),
        ("dry", "osuszanie"),
        ("auto", "tryb automatyczny"),
        ("heat_cool", "grzanie i chłodzenie"),
        ("fan_only", "tylko wentylator"),
        ("off", "wyłączony"),
    ],
    added: |item, list| format!("Dodano „{item}” do {list}."),
    to_do,
    dry_run: |what| format!("Próba: miałem {what}, ale niczego nie zmieniono."),
    not_confirmed: |names, seen| {
        format!(
            "Home Assistant przyjął polecenie dla {names}, ale nie mogę potwierdzić, że \
             zadziałało ({seen})."
        )
    },
    unfinished_nothing_changed: "Nie udało mi się dokończyć tej prośby i niczego nie zmieniłem.",
    unfinished: "Nie udało mi się dokończyć tej prośby.",
    stuck: "Utknąłem przy tej prośbie. Czy możesz powiedzieć dokładniej, o co chodzi, na \
            przykład które urządzenie albo pomieszczenie?",
    reset: "Przepraszam, musiałem zacząć rozmowę od nowa, bo model językowy już jej nie \
            przyjmował. Powtórz proszę swoją prośbę.",
    ask_approval: |held, ways| {
        let press = if ways.phone {
            "naciśnij „Zatwierdź” w HomeClaw albo na telefonie"
        } else {
            "naciśnij „Zatwierdź” w HomeClaw"
        };
        let how = if ways.by_voice {
            format!("powiedz „tak” albo {press}")
        } else {
            press.to_owned()
        };
        format!(
            "{}? To wymaga Twojej zgody — {how}.",
            capitalised(&to_do(held.key, held.names))
        )
    },
    approval_title: "HomeClaw: potrzebna zgoda",
    approval_notice: |held, buttons| {
        let where_ = if buttons {
            "Zatwierdź albo Odrzuć"
        } else {
            "naciśnij „Zatwierdź” albo „Odrzuć” w panelu HomeClaw"
        };
        format!(
            "HomeClaw ma {}. To wymaga Twojej zgody: {where_}.",
            to_do(held.key, held.names)
        )
    },
    approval_buttons: ["Zatwierdź", "Odrzuć"],
    declined: |held| {
        format!(
            "Dobrze, anulowałem {}. Niczego nie zmieniłem.",
            doing(held.key, held.names)
        )
    },
    pin_missing: |held| {
        format!(
            "Powiedz PIN razem z „tak”, abym mógł {}.",
            to_do(held.key, held.names)
        )
    },
    pin_cancelled: |held| {
        format!(
            "Zbyt wiele błędnych PIN-ów: anulowałem {}. Niczego nie zmieniłem.",
            doing(held.key, held.names)
        )
    },
    pin_wrong: |held, left| {
        format!(
            "To nie jest właściwy PIN, a bez niego nie mogę {} ({} {left} {}). Niczego nie \
             zmieniłem.",
            to_do(held.key, held.names),
            plural(left.into()).of(["pozostała", "pozostały", "pozostało"]),
            plural(left.into()).of(["próba", "próby", "prób"])
        )
    },
    pin_required_here: |held, phone| {
        format!(
            "Zatwierdzanie głosem wymaga tu PIN-u, bo wszystkie urządzenia głosowe dzielą tę rozmowę. Aby \
             {}, naciśnij „Zatwierdź” w HomeClaw{}.",
            to_do(held.key, held.names),
            if phone { " albo na telefonie" } else { "" }
        )
    },
    not_run: |why| match why {
        NotRun::Expired => "Ta prośba o zgodę wygasła; niczego nie wykonano.",
        NotRun::AlreadyAnswered => "Na tę prośbę już odpowiedziano; nic więcej nie wykonano.",
        NotRun::Unknown => {
            "HomeClaw nie zna tej prośby (może jest sprzed ponownego uruchomienia); niczego nie \
             wykonano."
        }
        NotRun::Denied => {
            "Ustawienia HomeClaw zabraniają teraz tego działania; niczego nie \
                           wykonano."
        }
        NotRun::Failed => "Home Assistant nie mógł tego wykonać.",
    },
    which_device: "Które urządzenie masz na myśli?",
    do_you_mean: |one| format!("Czy chodzi o {one}?"),
    which_of: |first, last| format!("Które masz na myśli: {first} czy {last}?"),
    another: "inne",
    in_room: |name, area| format!("{name} ({area})"),
    could_not_answer: "Nie znalazłem tego, o co pytasz, więc nie mogę odpowiedzieć.",
    could_not_read: |name| format!("Nie udało się odczytać {name}."),
    items: |name, n, items| match n {
        // "Lista zakupów" is already a list: not "Lista Lista zakupów".
        0 if name.to_lowercase().starts_with("lista") => format!("{name} jest pusta."),
        0 => format!("Lista {name} jest pusta."),
        _ => format!(
            "{name}: {n} {}: {items}.",
            plural(n as u64).of(["pozycja", "pozycje", "pozycji"])
        ),
    },
    weekdays: [
        "poniedziałek",
        "wtorek",
        "środa",
        "czwartek",
        "piątek",
        "sobota",
        "niedziela",
    ],
    months: [
        "stycznia",
        "lutego",
        "marca",
        "kwietnia",
        "maja",
        "czerwca",
        "lipca",
        "sierpnia",
        "września",
        "października",
        "listopada",
        "grudnia",
    ],
    date: |weekday, d, month| format!("{weekday} {d} {month}"),
    today: "dziś",
    tomorrow: "jutro",
    rest_of_today: "do końca dnia",
    next_7_days: "w ciągu 7 dni",
    nothing_on: |name, window| format!("Nic w kalendarzu {name} {window}."),
    at_place: |place| format!(" ({place})"),
    all_day: "cały dzień",
    events_counted: |k, name, window, lines| format!("{k} w kalendarzu {name} {window}: {lines}."),
    conditions: &[
        ("clear-night", "bezchmurna noc"),
        ("cloudy", "pochmurno"),
        ("exceptional", "wyjątkowa pogoda"),
        ("fog", "mgła"),
        ("hail", "grad"),
        ("lightning", "burza"),
        ("lightning-rainy", "burza z deszczem"),
        ("partlycloudy", "częściowe zachmurzenie"),
        ("pouring", "ulewa"),
        ("rainy", "deszczowo"),
        ("snowy", "śnieg"),
        ("snowy-rainy", "śnieg z deszczem"),
        ("sunny", "słonecznie"),
        ("windy", "wietrznie"),
        ("windy-variant", "wietrznie i pochmurno"),
    ],
    humidity: |h| format!("wilgotność {h}%"),
    wind: "wiatr",
    no_forecast: |name| format!("{name} nie ma prognozy na jutro."),
    chance_of_rain: |p| format!("szansa opadów {p}%"),
};
