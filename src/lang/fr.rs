//! French (folded: "éteins" is "eteins", "l'entrée" is "l entree"). Names of homes set up in
//! English are found through [`Lexicon::translations`].

use super::HvacMode::{Auto, Cool, Dry, Heat};
use super::Intent::*;
use super::{Claim, Lang, Lexicon, NotRun, Plural, Says, capitalised};

pub const LEXICON: Lexicon = Lexicon {
    lang: Lang::Fr,
    plural,
    tag: "fr",
    intents: &[
        (&["blanc", "chaud"], White(2700)),
        (&["blanc", "froid"], White(6500)),
        (&["lumiere", "du", "jour"], White(5000)),
        (&["monte", "le", "son"], Louder),
        (&["baisse", "le", "son"], Quieter),
        (&["plus", "fort"], Louder),
        (&["moins", "fort"], Quieter),
        (&["plus", "clair"], Brighter),
        (&["plus", "sombre"], Dimmer),
        (&["coupe", "le", "son"], Mute),
        (&["mets", "en", "sourdine"], Mute),
        (&["sourdine"], Mute),
        (&["mets", "en", "pause"], Pause),
        (&["pause"], Pause),
        (&["mode", "chauffage"], Mode(Heat)),
        (&["mode", "chaud"], Mode(Heat)),
        (&["mode", "froid"], Mode(Cool)),
        (&["mode", "climatisation"], Mode(Cool)),
        (&["mode", "refroidissement"], Mode(Cool)),
        (&["mode", "automatique"], Mode(Auto)),
        (&["mode", "deshumidification"], Mode(Dry)),
        (&["passe", "l", "aspirateur"], Start),
        (&["allume"], On),
        (&["eclaire"], On),
        (&["illumine"], On),
        (&["allumer"], On),
        (&["allumez"], On),
        (&["active"], On),
        (&["activer"], On),
        (&["eteins"], Off),
        (&["eteindre"], Off),
        (&["eteignez"], Off),
        (&["desactive"], Off),
        (&["desactiver"], Off),
        (&["coupe"], Off),
        (&["couper"], Off),
        (&["ouvre"], Open),
        (&["ouvrir"], Open),
        (&["ouvrez"], Open),
        (&["ferme"], Close),
        (&["fermer"], Close),
        (&["fermez"], Close),
        (&["verrouille"], Lock),
        (&["verrouiller"], Lock),
        (&["verrouillez"], Lock),
        (&["deverrouille"], Unlock),
        (&["deverrouiller"], Unlock),
        (&["deverrouillez"], Unlock),
        (&["lance"], Start),
        (&["lancer"], Start),
        (&["demarre"], Start),
        (&["demarrer"], Start),
        (&["nettoie"], Start),
        (&["nettoyer"], Start),
        (&["renvoie"], Dock),
        (&["renvoyer"], Dock),
        (&["rentre"], Dock),
        (&["reprends"], Resume),
        (&["reprendre"], Resume),
        (&["relance"], Resume),
        (&["suivante"], Next),
        (&["suivant"], Next),
        (&["precedente"], Previous),
        (&["precedent"], Previous),
        (&["arrete"], Stop),
        (&["arreter"], Stop),
        (&["stoppe"], Stop),
        (&["bascule"], Toggle),
        (&["basculer"], Toggle),
        (&["arrose"], Open),
        (&["arroser"], Open),
    ],
    separable: &[],
    alone: &[
        ("suivant", Next),
        ("suivante", Next),
        ("precedent", Previous),
        ("precedente", Previous),
        ("pause", Pause),
        ("reprends", Resume),
        ("reprendre", Resume),
    ],
    trailing: &[],
    trailing_verbs: &[],
    after: &["merci", "maintenant"],
    filler: &[
        // "the whole house": every area, said with the word for the home.
        "maison",
        // Watering said as an infinitive after another verb says the kind (`water`), not a
        // name; the noun ("l'arrosage", "die Bewässerung") may be a device's name.
        "arroser",
        // "Éteins le ventilateur ici": where the person speaks.
        "ici",
        "mets",
        "mettre",
        "regle",
        "regler",
        "le",
        "la",
        "les",
        "l",
        "d",
        "du",
        "de",
        "des",
        "au",
        "aux",
        "en",
        "sur",
        "pour",
        "moi",
        "s",
        "il",
        "te",
        "vous",
        "plait",
        "svp",
        "stp",
        "merci",
        "couleur",
        "luminosite",
        "chanson",
        "piste",
        "morceau",
        "cent",
        "maintenant",
        "encore",
        "salle",
        "sa",
        "ses",
        "un",
        "peu",
        "degres",
    ],
    courtesy: &["s", "il", "te", "vous", "plait", "merci", "svp", "stp"],
    wrappers: &[
        &["est", "ce", "que", "tu", "peux"],
        &["est", "ce", "que", "vous", "pouvez"],
        &["peux", "tu"],
        &["pourrais", "tu"],
        &["tu", "peux"],
        &["tu", "pourrais"],
        &["pouvez", "vous"],
        &["pourriez", "vous"],
        &["vous", "pouvez"],
    ],
    please: &["svp", "stp"],
    desires: &[
        &["je", "veux", "que"],
        &["je", "voudrais", "que"],
        &["j", "aimerais", "que"],
        &["assure", "toi", "que"],
        &["assurez", "vous", "que"],
        &["fais", "en", "sorte", "que"],
    ],
    be: &["soit", "soient", "sois", "etre", "est", "sont"],
    asking: &["si", "savoir"],
    wished: &[
        ("on", "allume"),
        ("off", "éteins"),
        ("open", "ouvre"),
        ("closed", "ferme"),
        ("locked", "verrouille"),
        ("unlocked", "déverrouille"),
    ],
    joiners: &["et", "puis", "ensuite"],
    conditionals: &["si", "lorsque"],
    if_words: &["si"],
    then_words: &["alors"],
    above: &["dessus", "superieure", "superieur", "plus"],
    below: &["dessous", "inferieure", "inferieur", "moins"],
    both: &[],
    every: &["toutes", "tous", "toute"],
    any_room: &["pieces"],
    everything: &["tout"],
    except: &["sauf", "excepte"],
    relatives: &["qui", "que"],
    with_a_key: &["cle"],
    watering: &["arrose", "arroser"],
    water: &["arroser"],
    water_appliances: &[],
    cleaning: &["nettoie", "nettoyer", "aspirateur", "menage"],
    lighting: &["eclaire", "illumine"],
    lit: &[],
    joke_words: &["blague", "blagues", "drole"],
    jokes: &[
        "Pourquoi la lampe a-t-elle réussi son examen ? Parce qu'elle était très brillante.",
        "Que dit le thermostat au radiateur ? Calme-toi, tu chauffes trop !",
        "Pourquoi l'aspirateur robot ne se dispute jamais ? Il fait simplement le tour du problème.",
    ],
    level_of: &["volume", "luminosite", "son"],
    volume: &["volume", "son"],
    levels: &[("zero", 0), ("moitie", 50), ("fond", 100), ("maximum", 100)],
    percent_units: &["pourcent", "pourcents", "pour"],
    degree_units: &["degres", "degre"],
    temperature_words: &["temperature"],
    temperature_verbs: &["chauffe", "rechauffe", "refroidis"],
    colours: &[
        ("red", &["rouge", "rouges"]),
        ("blue", &["bleu", "bleue", "bleus", "bleues"]),
        ("green", &["vert", "verte", "verts", "vertes"]),
        ("yellow", &["jaune", "jaunes"]),
        ("orange", &["orange", "oranges"]),
        ("purple", &["violet", "violette", "violets", "violettes"]),
        ("pink", &["rose", "roses"]),
        ("white", &["blanc", "blanche", "blancs", "blanches"]),
    ],
    speeds: &[
        ("faible", 33),
        ("moyen", 66),
        ("moyenne", 66),
        ("fort", 100),
    ],
    speed_words: &["vitesse"],
    add_item: &[
        ("ajoute", &["a", "au", "sur", "dans"]),
        ("ajouter", &["a", "au", "sur", "dans"]),
    ],
    list_filler: &[
        "ma", "mes", "la", "le", "les", "liste", "de", "des", "du", "l",
    ],
    kinds: &[
        (
            "light",
            &[
                "lumiere",
                "lumieres",
                "lampe",
                "lampes",
                "eclairage",
                "luminaire",
                "luminaires",
            ],
        ),
        (
            "switch",
            &["interrupteur", "interrupteurs", "prise", "prises"],
        ),
        (
            "cover",
            &[
                "volet", "volets", "store", "stores", "fenetre", "fenetres", "rideau", "rideaux",
                "portail", "portails",
            ],
        ),
        (
            "climate",
            &[
                "thermostat",
                "chauffage",
                "climatisation",
                "clim",
                "climatiseur",
            ],
        ),
        (
            "lock",
            &[
                "serrure", "serrures", "verrou", "verrous", "porte", "portes",
            ],
        ),
        ("fan", &["ventilateur", "ventilateurs", "ventilo"]),
        ("sensor", &["capteur", "temperature", "humidite"]),
        (
            "media_player",
            &[
                "enceinte",
                "enceintes",
                "tele",
                "television",
                "lecteur",
                "musique",
                "lecture",
            ],
        ),
        ("vacuum", &["aspirateur", "aspirateurs", "robot"]),
        ("humidifier", &["humidificateur", "deshumidificateur"]),
        ("valve", &["vanne", "vannes", "robinet", "robinets"]),
        ("scene", &["scene"]),
        ("script", &["script", "scripts"]),
    ],
    specific_kinds: &[
        ("store", "blind"),
        ("stores", "blind"),
        ("volet", "shutter"),
        ("volets", "shutter"),
        ("rideau", "curtain"),
        ("rideaux", "curtain"),
        ("tele", "tv"),
        ("television", "tv"),
        ("fenetre", "window"),
        ("fenetres", "window"),
        ("prise", "outlet"),
        ("deshumidificateur", "dehumidifier"),
        ("humidificateur", "humidifier"),
    ],
    commanded_classes: &[],
    singular: &[
        "lumiere",
        "lampe",
        "ventilateur",
        "fenetre",
        "volet",
        "store",
        "porte",
        "serrure",
        "interrupteur",
        "prise",
        "aspirateur",
        "vanne",
        "musique",
    ],
    same_in_plural: &[],
    singular_articles: &[],
    translations: &[
        ("phone", &["telephone", "portable", "smartphone"]),
        ("kitchen", &["cuisine"]),
        ("bedroom", &["chambre", "chambres"]),
        ("living", &["salon", "sejour"]),
        ("room", &["salon", "sejour", "piece"]),
        ("bathroom", &["bain", "sdb"]),
        ("office", &["bureau"]),
        ("hall", &["couloir"]),
        ("upstairs", &["etage", "haut"]),
        ("downstairs", &["chaussee", "bas"]),
        ("garden", &["jardin"]),
        ("dining", &["manger"]),
        ("entrance", &["entree"]),
        ("entry", &["entree"]),
        ("front", &["entree", "principale"]),
        ("outside", &["dehors", "exterieur", "exterieure"]),
        ("outdoor", &["dehors", "exterieur", "exterieure"]),
        ("temperature", &["temperature"]),
        ("humidity", &["humidite"]),
        // A "plafonnier" is a ceiling light: it names both words of one.
        ("ceiling", &["plafond", "plafonnier"]),
        ("light", &["plafonnier"]),
        ("fan", &["ventilateur", "ventilateurs"]),
        ("window", &["fenetre", "fenetres"]),
        ("door", &["porte", "portes"]),
        ("gate", &["portail"]),
        (
            "decorative",
            &[
                "deco",
                "decoratif",
                "decorative",
                "decoratives",
                "decoratifs",
            ],
        ),
        ("ac", &["clim", "climatisation", "climatiseur"]),
        // "Pompe à chaleur" is "heat pump" word for word: both words name it.
        ("heatpump", &["pompe", "chaleur"]),
        ("pump", &["pompe"]),
        ("heat", &["chaleur"]),
        ("lock", &["serrure", "verrou"]),
        ("bed", &["lit"]),
        ("curtain", &["rideau", "rideaux"]),
    ],
    places: &[],
    here: &[&["dans", "cette", "piece"], &["ici"]],
    place_prepositions: &["dans", "au"],
    articles: &["la", "le", "les", "l"],
    floor_words: &["niveau"],
    measures: &[
        ("carbon_dioxide", &["dioxyde"]),
        (
            "power",
            &["puissance", "consommation", "electricite", "courant"],
        ),
        ("energy", &["energie"]),
        ("temperature", &["chaud", "froid"]),
        ("humidity", &["humide"]),
        ("battery", &["batterie"]),
    ],
    question_openers: &["est", "quelle", "quel", "quels", "quelles", "combien", "y"],
    more_question_openers: &["qui", "ou", "quand", "pourquoi", "quoi", "comment"],
    yes_no_openers: &["est", "y"],
    state_verbs: &["joue"],
    states: &[
        ("on", &["allume", "allumee", "allumees", "allumes"]),
        ("off", &["eteint", "eteinte", "eteintes", "eteints"]),
        ("open", &["ouvert", "ouverte", "ouverts", "ouvertes"]),
        ("closed", &["fermee", "fermees", "fermes"]),
        ("locked", &["verrouillee", "verrouillees", "verrouilles"]),
        (
            "unlocked",
            &["deverrouillee", "deverrouillees", "deverrouilles"],
        ),
        ("playing", &["joue"]),
        ("paused", &["pause"]),
        ("idle", &["arretee", "arretees"]),
    ],
    question_filler: &[
        "est",
        "ce",
        "que",
        "qu",
        "quelle",
        "quel",
        "quels",
        "quelles",
        "combien",
        "sont",
        "il",
        "elle",
        "elles",
        "ils",
        "y",
        "a",
        "t",
        "actuellement",
        "maintenant",
        "niveau",
        "taux",
        "valeur",
        "on",
        "consomme",
        "consommons",
        "nous",
        "en",
        "moment",
        "dis",
        "moi",
        "fait",
        "le",
        "la",
        "les",
        "l",
        "d",
        "de",
        "du",
        "des",
    ],
    question_courtesy: &[
        &["dis", "moi"],
        &["dites", "moi"],
        &["peux", "tu", "me", "dire"],
    ],
    how_many: &[&["combien"]],
    when_is: &[&["a", "quelle", "heure"], &["quand"]],
    calendar_words: &["agenda", "calendrier"],
    which: &[
        "quel",
        "quelle",
        "quels",
        "quelles",
        "lequel",
        "laquelle",
        "lesquels",
        "lesquelles",
    ],
    any: &[
        "une",
        "un",
        "des",
        "quelconque",
        "certaines",
        "certains",
        "quelque",
    ],
    low: &["faible", "basse"],
    yes: "Oui",
    no: "Non",
    state_words: &[
        ("on", "allumé"),
        ("off", "éteint"),
        ("open", "ouvert"),
        ("closed", "fermé"),
        ("locked", "verrouillé"),
        ("unlocked", "déverrouillé"),
        ("playing", "en lecture"),
        ("paused", "en pause"),
        ("heat", "chauffe"),
        ("cool", "refroidit"),
        ("heat_cool", "chauffe et refroidit"),
        ("dry", "déshumidifie"),
        ("fan_only", "ventilation seule"),
        ("auto", "automatique"),
        ("idle", "inactif"),
        ("docked", "sur sa base"),
        ("cleaning", "nettoie"),
        ("returning", "retourne à sa base"),
        ("unavailable", "indisponible"),
        ("unknown", "inconnu"),
        ("home", "à la maison"),
        ("not_home", "absent"),
        ("armed_away", "armé (absence)"),
        ("armed_home", "armé (présence)"),
        ("armed_night", "armé (nuit)"),
        ("disarmed", "désarmé"),
    ],
    // With a colon, so no gender has to agree with a name we do not know.
    state_line: |name, value| format!("{name} : {value}"),
    counted: |n, total, state, listed| format!("{n} sur {total} : {state}{listed}."),
    set_to: "réglé sur",
    currently: "actuellement",
    approve: &["oui", "ouais", "accord", "confirme", "valide", "vas"],
    decline: &["non", "annule", "annuler", "refuse"],
    own_words: &[
        "le", "la", "les", "des", "est", "je", "pas", "une", "que", "qui", "pour", "avec", "dans",
        "ce", "cette", "il", "elle", "ai", "suis", "ne", "rien", "et",
    ],
    letters: "àâæçéèêëîïôœùûÿ",
    stopwords: &[
        "le", "la", "les", "l", "de", "du", "des", "d", "au", "aux", "en", "un", "une", "dans",
        "sur", "et",
    ],
    stand_ins: &[
        "ca", "cela", "tout", "lui", "eux", "celle", "celui", "celles", "ceux",
    ],
    about_kinds: &[
        ("light", &["luminosite", "couleur"]),
        (
            "media_player",
            &["chanson", "chansons", "morceau", "piste", "titre", "volume"],
        ),
        ("todo", &["liste", "taches", "tache", "courses", "corvees"]),
    ],
    unit_words: &[
        ("degres", "°c"),
        ("degre", "°c"),
        ("pourcent", "%"),
        ("watts", "w"),
        ("watt", "w"),
    ],
    answer_lead: &["oh", "alors", "euh", "bon", "d"],
    digits: &[
        ("zero", '0'),
        ("un", '1'),
        ("deux", '2'),
        ("trois", '3'),
        ("quatre", '4'),
        ("cinq", '5'),
        ("six", '6'),
        ("sept", '7'),
        ("huit", '8'),
        ("neuf", '9'),
    ],
    claims: &[
        (
            Claim::Action,
            r"(?i)\bj['’]ai\s+(?:bien\s+|déjà\s+)?(?:allumé|éteint|ouvert|fermé|verrouillé|déverrouillé|lancé|démarré|arrêté|réglé|mis|activé|désactivé|changé|baissé|monté|coupé)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:a|ont)\s+été\s+(?:allumée?s?|éteinte?s?|ouverte?s?|fermée?s?|verrouillée?s?|déverrouillée?s?|lancée?s?|démarrée?s?|arrêtée?s?|réglée?s?|activée?s?|désactivée?s?)\b",
        ),
        (
            Claim::Action,
            r"(?i)\b(?:est|sont)\s+(?:maintenant|désormais|bien)\s+(?:allumée?s?|éteinte?s?|ouverte?s?|fermée?s?|verrouillée?s?|déverrouillée?s?)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\bj['’]ai\s+(?:vérifié|regardé|consulté)\b",
        ),
        (
            Claim::Observation,
            r"(?i)\bla\s+température\b[^.?!]{0,40}\b(?:est|de)\b",
        ),
    ],
    needs_tools: &[
        r"(?i)^\s*(?:allume|éteins|ouvre|ferme|verrouille|déverrouille|lance|démarre|arrête|règle|mets|active|désactive|baisse|monte|coupe)\b",
        r"(?i)^\s*(?:est-ce que|est ce que|quelle|quel|combien)\b",
    ],
    advice_verbs: &["appelle", "utilise"],
    read_openers: &["qui", "quoi", "quand", "ou", "qu", "y"],
    weather: &[
        "meteo",
        "temps",
        "soleil",
        "ensoleille",
        "nuageux",
        "pluie",
        "pleut",
        "pleuvoir",
        "neige",
        "previsions",
        "vent",
        "venteux",
        "parapluie",
    ],
    outside: &["dehors", "exterieur"],
    weather_measures: &["temperature", "chaud", "froid"],
    lists: &["liste", "listes", "taches", "tache", "courses", "corvees"],
    needs: &["acheter", "appeler", "faire", "dois", "faut", "reparer"],
    agenda: &[
        "calendrier",
        "agenda",
        "programme",
        "rendez",
        "reunion",
        "reunions",
        "evenement",
        "evenements",
        "aujourdhui",
        "soir",
        "demain",
        "semaine",
        "weekend",
    ],
    today_words: &["aujourdhui", "soir"],
    tomorrow_words: &["demain"],
    count_aside: &[
        "combien", "de", "fois", "jours", "nuits", "je", "dois", "nous", "on", "ai",
    ],
    says: &SAYS,
};

/// What a call would do, after "pour" or "de".
fn to_do(key: &str, names: &str) -> String {
    let verb = match key {
        "turn_on" => "allumer",
        "turn_off" => "éteindre",
        "toggle" => "basculer",
        "open" => "ouvrir",
        "close" => "fermer",
        "lock" => "verrouiller",
        "unlock" => "déverrouiller",
        "start" => "démarrer",
        "pause" => "mettre en pause",
        "disarm" => "désarmer",
        "arm" => "armer",
        "run" => "lancer",
        _ => "modifier",
    };
    format!("{verb} {names}")
}

/// "de" before an infinitive phrase, elided before a vowel or a mute h ("d'ouvrir",
/// "d'allumer", "d'éteindre", "de fermer").
fn de(phrase: &str) -> String {
    let first = phrase
        .chars()
        .next()
        .map(|c| c.to_lowercase().next().unwrap_or(c));
    match first {
        Some(
            'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'h' | 'à' | 'â' | 'é' | 'è' | 'ê' | 'î' | 'ô' | 'û',
        ) => {
            format!("d'{phrase}")
        }
        _ => format!("de {phrase}"),
    }
}

/// French plural categories: "one" for 0 and 1 ("0 essai", "1,5 essai"), the rest "many".
fn plural(n: u64) -> Plural {
    if n <= 1 { Plural::One } else { Plural::Many }
}

const SAYS: Says = Says {
    conditional: "Je ne peux pas vérifier cette condition avant d'agir, donc je n'ai rien changé. Dites-le sans condition, ou créez une automatisation dans Home Assistant.",
    condition_unmet: |seen| format!("{seen}, donc je n'ai rien changé."),
    nothing_changed: "Je n'ai rien changé.",
    no_room_here: "Je ne sais pas dans quelle pièce vous êtes, je n'ai donc rien changé. \
                   Dites la pièce, par exemple « éteins la lumière de la cuisine ».",
    nothing_matches: |words| {
        format!(
            "Je n'ai rien trouvé dans Home Assistant qui corresponde à « {words} », donc je n'ai \
             rien changé."
        )
    },
    nothing_to_answer: |words| {
        format!(
            "Je n'ai rien trouvé dans Home Assistant qui corresponde à « {words} », donc je ne \
             peux pas répondre."
        )
    },
    not_exposed: |name| {
        format!(
            "{name} n'est pas exposé à Assist dans Home Assistant (Paramètres > Assistants \
             vocaux > Exposer)."
        )
    },
    filtered_out: |name| format!("Les réglages de HomeClaw tiennent {name} hors de sa portée."),
    did_words: &[
        ("turn_on", "Allumé"),
        ("turn_off", "Éteint"),
        ("toggle", "Basculé"),
        ("open", "Ouvert"),
        ("close", "Fermé"),
        ("lock", "Verrouillé"),
        ("unlock", "Déverrouillé"),
        ("start", "Démarré"),
        ("return_to_base", "Renvoyé à sa base"),
        ("pause", "Mis en pause"),
        ("media_play", "Repris"),
        ("media_stop", "Arrêté"),
        ("media_next_track", "Morceau suivant"),
        ("media_previous_track", "Morceau précédent"),
        ("volume_mute", "Son coupé"),
        ("brighten", "Éclairci"),
        ("dim", "Assombri"),
        ("volume_up", "Son monté"),
        ("volume_down", "Son baissé"),
        ("disarm", "Désarmé"),
        ("arm", "Armé"),
        ("press", "Appuyé"),
        ("stop", "Arrêté"),
        ("done", "Fait"),
    ],
    did: |words, names| format!("{words} : {names}."),
    set_value: |names, value| format!("{names} réglé sur {value}."),
    colour_names: &[
        ("warm_white", "blanc chaud"),
        ("cool_white", "blanc froid"),
        ("red", "rouge"),
        ("blue", "bleu"),
        ("green", "vert"),
        ("yellow", "jaune"),
        ("orange", "orange"),
        ("purple", "violet"),
        ("pink", "rose"),
        ("white", "blanc"),
    ],
    mode_names: &[
        ("heat", "chauffage"),
        ("cool", "climatisation"),
        ("dry", "déshumidification"),
        ("auto", "automatique"),
        ("heat_cool", "chauffage et climatisation"),
        ("fan_only", "ventilation seule"),
        ("off", "arrêt"),
    ],
    added: |item, list| format!("« {item} » ajouté à {list}."),
    to_do,
    dry_run: |what| format!("Essai : il s'agissait de {what} ; rien n'a été changé."),
    not_confirmed: |names, seen| {
        format!(
            "Home Assistant a accepté la demande pour {names}, mais je n'ai pas pu confirmer \
             qu'elle a pris effet ({seen})."
        )
    },
    unfinished_nothing_changed: "Je n'ai pas pu terminer cette demande, et je n'ai rien changé.",
    unfinished: "Je n'ai pas pu terminer cette demande.",
    stuck: "Je suis bloqué sur cette demande. Pouvez-vous préciser ce que vous voulez, par \
            exemple l'appareil ou la pièce exacts ?",
    reset: "Désolé, j'ai dû recommencer notre conversation car le modèle de langage ne \
            l'acceptait plus. Merci de répéter votre demande.",
    ask_approval: |held, ways| {
        let press = if ways.phone {
            "appuyez sur « Approuver » dans HomeClaw ou sur votre téléphone"
        } else {
            "appuyez sur « Approuver » dans HomeClaw"
        };
        let how = if ways.by_voice {
            format!("dites oui ou {press}")
        } else {
            press.to_owned()
        };
        format!(
            "{} ? Il faut votre accord — {how}.",
            capitalised(&to_do(held.key, held.names))
        )
    },
    approval_title: "HomeClaw : accord nécessaire",
    approval_notice: |held, buttons| {
        let where_ = if buttons {
            "Approuver ou Refuser"
        } else {
            "appuyez sur « Approuver » ou « Refuser » dans le panneau de HomeClaw"
        };
        format!(
            "On a demandé à HomeClaw {}. Il faut votre accord : {where_}.",
            de(&to_do(held.key, held.names))
        )
    },
    approval_buttons: ["Approuver", "Refuser"],
    declined: |held| {
        format!(
            "D'accord, je ne vais pas {}. Rien n'a été changé.",
            to_do(held.key, held.names)
        )
    },
    pin_missing: |held| {
        format!(
            "Dites le code PIN avec votre oui pour {}.",
            to_do(held.key, held.names)
        )
    },
    pin_cancelled: |held| {
        format!(
            "Trop de codes PIN erronés : je ne vais pas {}. Rien n'a été changé.",
            to_do(held.key, held.names)
        )
    },
    pin_wrong: |held, left| {
        format!(
            "Ce code PIN n'est pas le bon ; il le faut pour {} (encore {left} {}). Rien n'a été \
             changé.",
            to_do(held.key, held.names),
            plural(left.into()).of(["essai", "essais", "essais"])
        )
    },
    pin_required_here: |held, phone| {
        format!(
            "Approuver à la voix demande ici un code PIN, car tous les appareils vocaux partagent \
             cette conversation. Pour {}, appuyez sur « Approuver » dans HomeClaw{}.",
            to_do(held.key, held.names),
            if phone {
                " ou sur votre téléphone"
            } else {
                ""
            }
        )
    },
    not_run: |why| match why {
        NotRun::Expired => "Cette approbation a expiré ; rien n'a été exécuté.",
        NotRun::AlreadyAnswered => {
            "Cette approbation a déjà reçu une réponse ; rien de plus n'a été exécuté."
        }
        NotRun::Unknown => {
            "HomeClaw ne connaît pas cette approbation (elle date peut-être d'avant un \
             redémarrage) ; rien n'a été exécuté."
        }
        NotRun::Denied => {
            "Les réglages de HomeClaw interdisent maintenant cette action ; rien \
                           n'a été exécuté."
        }
        NotRun::Failed => "Home Assistant n'a pas pu l'exécuter.",
    },
    which_device: "Quel appareil voulez-vous dire ?",
    do_you_mean: |one| format!("Voulez-vous dire {one} ?"),
    which_of: |first, last| format!("Lequel voulez-vous dire : {first} ou {last} ?"),
    another: "un autre",
    in_room: |name, area| format!("{name} ({area})"),
    could_not_answer: "Je n'ai pas trouvé ce que vous demandez, je ne peux donc pas répondre.",
    could_not_read: |name| format!("Je n'ai pas pu lire {name}."),
    items: |name, n, items| match n {
        0 => format!("{name} est vide."),
        _ => format!(
            "{name} contient {n} {} : {items}.",
            plural(n as u64).of(["élément", "éléments", "éléments"])
        ),
    },
    weekdays: [
        "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
    ],
    months: [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    date: |weekday, d, month| format!("{weekday} {d} {month}"),
    today: "aujourd'hui",
    tomorrow: "demain",
    rest_of_today: "pour le reste de la journée",
    next_7_days: "dans les 7 prochains jours",
    nothing_on: |name, window| format!("Rien dans {name} {window}."),
    at_place: |place| format!(" ({place})"),
    all_day: "toute la journée",
    events_counted: |k, name, window, lines| format!("{k} dans {name} {window} : {lines}."),
    conditions: &[
        ("clear-night", "nuit claire"),
        ("cloudy", "nuageux"),
        ("exceptional", "exceptionnel"),
        ("fog", "brouillard"),
        ("hail", "grêle"),
        ("lightning", "orage"),
        ("lightning-rainy", "orage et pluie"),
        ("partlycloudy", "partiellement nuageux"),
        ("pouring", "averses"),
        ("rainy", "pluvieux"),
        ("snowy", "neige"),
        ("snowy-rainy", "neige fondue"),
        ("sunny", "ensoleillé"),
        ("windy", "venteux"),
        ("windy-variant", "venteux et nuageux"),
    ],
    humidity: |h| format!("humidité {h} %"),
    wind: "vent",
    no_forecast: |name| format!("{name} n'a pas de prévision pour demain."),
    chance_of_rain: |p| format!("risque de pluie {p} %"),
};
