//! "Here": the room the person speaks in. "Zgaś wszystkie lampy tutaj" said to the bedroom's
//! satellite means the bedroom's lamps — as Home Assistant reads it — never every lamp of the
//! home: the words "here", "in this room", "hier", "ici", "tutaj", "w tym pokoju" … become the
//! speaking device's area, named as the person would name it ("in Bedroom"), so that every
//! later step (the fast path, what the words point at, the model's candidates and the check of
//! its calls) holds the command to that room like any room said aloud. Where HomeClaw cannot
//! tell the room (no speaking device, or one in no area), a command saying "here" acts on
//! nothing and says so.

use crate::ha::registry::Registry;
use crate::lang::{LEXICONS, Lang, Phrases};
use crate::text::fold;

/// "Here" in the languages HomeClaw answers through Home Assistant's recogniser alone (no
/// lexicon of its own): the language, the preposition that names a room there, the phrases.
/// Said in another language (Portuguese "aqui", which Home Assistant's Portuguese sentences
/// read themselves), they are not "here" to HomeClaw.
const ELSEWHERE: &[(&str, &str, Phrases)] = &[
    (
        "nl",
        "in",
        &[
            &["in", "deze", "kamer"],
            &["in", "deze", "ruimte"],
            &["hierbinnen"],
        ],
    ),
    (
        "es",
        "en",
        &[
            &["en", "esta", "habitacion"],
            &["en", "este", "cuarto"],
            // "la luz de aquí": the "de" goes with it, or Home Assistant hears "la luz de".
            &["de", "aqui"],
            &["aqui"],
            &["de", "aca"],
            &["aca"],
        ],
    ),
];

/// What the words say of the room the person is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Here {
    /// They do not say "here".
    Unsaid,
    /// "Here", put as the speaking device's area: the words with "in <area>" in its place, and
    /// the area's id; and the words without it (`unsaid`), for Home Assistant's recogniser,
    /// which reads "here" as no room named and takes the speaking device's (a room "here" in
    /// its sentences would be an unknown area).
    Placed {
        words: String,
        area: String,
        unsaid: String,
    },
    /// "Here", but HomeClaw cannot tell the room: nothing may be acted on. The language of
    /// the words, when HomeClaw has a lexicon for it.
    Unplaced(Option<Lang>),
}

/// Finds "here" in `text` (raw words, as the fast path reads them) and puts the area of
/// `device_id` in its place. `tag`, the request's language when it says one, keeps another
/// language's words for "here" out.
pub fn place(text: &str, registry: &Registry, device_id: Option<&str>, tag: Option<&str>) -> Here {
    let raw: Vec<&str> = text.split_whitespace().collect();
    // Each folded word with the raw word it came from ("l'entrée" is two folded words).
    let folded: Vec<(usize, String)> = raw
        .iter()
        .enumerate()
        .flat_map(|(i, w)| {
            fold(w)
                .split(' ')
                .filter(|f| !f.is_empty())
                .map(|f| (i, f.to_owned()))
                .collect::<Vec<_>>()
        })
        .collect();
    let Some((start, len, lang, preposition)) = find(&folded, tag) else {
        return Here::Unsaid;
    };
    let Some(area) = device_id
        .and_then(|d| registry.device_area(d))
        .and_then(|a| registry.area(a))
    else {
        return Here::Unplaced(lang);
    };
    let (first, last) = (folded[start].0, folded[start + len - 1].0);
    // Punctuation that ended the phrase ends the room ("… here?" asks about the room).
    let tail: String = raw[last]
        .chars()
        .rev()
        .take_while(|c| !c.is_alphanumeric())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let before: Vec<String> = raw[..first].iter().map(|w| (*w).to_owned()).collect();
    let after = raw[last + 1..].iter().map(|w| (*w).to_owned());
    let mut out = before.clone();
    out.push(preposition.to_owned());
    out.push(format!("{}{tail}", area.name));
    out.extend(after.clone());
    let mut unsaid = before;
    if let Some(word) = unsaid.last_mut() {
        word.push_str(&tail);
    }
    unsaid.extend(after);
    Here::Placed {
        words: out.join(" "),
        area: area.area_id.clone(),
        unsaid: unsaid.join(" "),
    }
}

/// The first "here" phrase (the longest one at the earliest word): where it starts, how many
/// folded words it has, whose language it is and that language's preposition for a room.
fn find(
    folded: &[(usize, String)],
    tag: Option<&str>,
) -> Option<(usize, usize, Option<Lang>, &'static str)> {
    let spoken = tag.map(crate::lang::primary_tag);
    let lists = LEXICONS
        .iter()
        .map(|l| {
            let preposition = l.place_prepositions.first().copied().unwrap_or("in");
            (l.here, Some(l.lang), preposition)
        })
        .chain(
            ELSEWHERE
                .iter()
                .filter(|(language, ..)| spoken.is_none_or(|s| s.eq_ignore_ascii_case(language)))
                .map(|(_, preposition, phrases)| (*phrases, None, *preposition)),
        );
    let mut best: Option<(usize, usize, Option<Lang>, &'static str)> = None;
    for (phrases, lang, preposition) in lists {
        for phrase in phrases {
            let n = phrase.len();
            let at = (0..folded.len().saturating_sub(n - 1)).find(|&i| {
                phrase
                    .iter()
                    .zip(&folded[i..i + n])
                    .all(|(p, (_, w))| p == w)
            });
            if let Some(at) = at {
                let better = best.is_none_or(|(s, l, ..)| at < s || (at == s && n > l));
                if better {
                    best = Some((at, n, lang, preposition));
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExposureConfig;
    use crate::ha::exposure::{AssistExposure, ExposurePolicy};
    use crate::ha::registry::{Area, DeviceEntry, Snapshot};

    fn home() -> Registry {
        let snapshot = Snapshot {
            devices: vec![
                DeviceEntry {
                    id: "sat_bedroom".into(),
                    area_id: Some("bedroom".into()),
                    ..Default::default()
                },
                DeviceEntry {
                    id: "sat_nowhere".into(),
                    ..Default::default()
                },
            ],
            areas: vec![Area {
                area_id: "bedroom".into(),
                name: "Sypialnia".into(),
                ..Default::default()
            }],
            assist: AssistExposure::Unsupported,
            ..Default::default()
        };
        Registry::from_snapshot(
            snapshot,
            ExposurePolicy::new(ExposureConfig::default()),
            None,
        )
    }

    fn placed(text: &str) -> Here {
        place(text, &home(), Some("sat_bedroom"), None)
    }

    #[test]
    fn here_is_the_speaking_devices_room_in_every_language() {
        let cases = [
            (
                "Zgaś wszystkie lampy tutaj",
                "Zgaś wszystkie lampy w Sypialnia",
            ),
            (
                "Ustaw jasność w tym pomieszczeniu na 50%",
                "Ustaw jasność w Sypialnia na 50%",
            ),
            (
                "set the color of all lights in here to red",
                "set the color of all lights in Sypialnia to red",
            ),
            (
                "shut the curtains in this room",
                "shut the curtains in Sypialnia",
            ),
            ("Mach das Licht hier an", "Mach das Licht im Sypialnia an"),
            (
                "ouvrir tous les rideaux dans cette pièce",
                "ouvrir tous les rideaux dans Sypialnia",
            ),
            (
                "Éteins le ventilateur ici.",
                "Éteins le ventilateur dans Sypialnia.",
            ),
            (
                "baja la luz aquí al 40 por ciento",
                "baja la luz en Sypialnia al 40 por ciento",
            ),
            (
                "Doe de lampen in deze kamer uit",
                "Doe de lampen in Sypialnia uit",
            ),
            ("is it warm here?", "is it warm in Sypialnia?"),
            (
                "ouvre les rideaux de cette pièce",
                "ouvre les rideaux dans Sypialnia",
            ),
        ];
        for (said, meant) in cases {
            match placed(said) {
                Here::Placed { words, area, .. } => {
                    assert_eq!(
                        (words.as_str(), area.as_str()),
                        (meant, "bedroom"),
                        "{said}"
                    );
                }
                other => panic!("{said}: {other:?}"),
            }
        }
        // Without the phrase, for Home Assistant's recogniser (the device says the room).
        for (said, unsaid) in [
            (
                "Zet het volume hier op 30 procent",
                "Zet het volume op 30 procent",
            ),
            (
                "Mets la luminosité ici à 50 pour cent",
                "Mets la luminosité à 50 pour cent",
            ),
            (
                "Pon el volumen aquí al 30 por ciento",
                "Pon el volumen al 30 por ciento",
            ),
            ("turn off all the lights in here", "turn off all the lights"),
            ("is it warm here?", "is it warm?"),
            ("apaga la luz de aquí", "apaga la luz"),
            ("desconecta la luz acá", "desconecta la luz"),
        ] {
            match placed(said) {
                Here::Placed { unsaid: got, .. } => assert_eq!(got, unsaid, "{said}"),
                other => panic!("{said}: {other:?}"),
            }
        }
    }

    /// Spanish "aquí" is "here" to HomeClaw in Spanish or an unsaid language; in
    /// Portuguese, whose sentences Home Assistant reads with their "aqui", it is left to it
    /// ("desliga todas as luzes" without it named an unknown device "todas as luzes").
    #[test]
    fn another_languages_here_is_left_alone() {
        let at = |tag| {
            place(
                "desliga todas as luzes aqui",
                &home(),
                Some("sat_bedroom"),
                tag,
            )
        };
        assert_eq!(at(Some("pt-BR")), Here::Unsaid);
        assert!(matches!(at(Some("es")), Here::Placed { .. }));
        assert!(matches!(at(None), Here::Placed { .. }));
        // HomeClaw's own languages' words stay whatever the tag.
        assert!(matches!(
            place(
                "Mach das Licht hier an",
                &home(),
                Some("sat_bedroom"),
                Some("de-CH")
            ),
            Here::Placed { .. }
        ));
    }

    #[test]
    fn without_a_room_here_places_nothing_and_other_words_are_left_alone() {
        let home = home();
        assert_eq!(
            place("turn off the lights in here", &home, None, None),
            Here::Unplaced(Some(Lang::En))
        );
        assert_eq!(
            place("Zgaś lampy tutaj", &home, Some("sat_nowhere"), None),
            Here::Unplaced(Some(Lang::Pl))
        );
        assert_eq!(
            place("Zgaś lampy tutaj", &home, Some("unknown"), None),
            Here::Unplaced(Some(Lang::Pl))
        );
        assert_eq!(
            place("apaga la luz aquí", &home, None, None),
            Here::Unplaced(None)
        );
        for plain in [
            "turn off the lights in the kitchen",
            "where is the hall light",
            "there",
        ] {
            assert_eq!(placed(plain), Here::Unsaid, "{plain}");
        }
    }
}
