//! The question back when the words fit several devices: one text for every path (the fast
//! path, the model's own question, a to-do list), in the person's language.

use crate::ha::registry::{Entity, Registry};
use crate::lang::Lang;

/// Names in a "which one" question: more would not be read to the end.
pub const MAX_NAMED: usize = 6;

/// The question back between `candidates` ("Which one do you mean: A, B or C?"), in the
/// person's language: the one "which one" every path asks. Devices with the same name are
/// told apart by their room, no text is listed twice, and past [`MAX_NAMED`] the list ends
/// with "another one".
pub fn which_one(candidates: &[&Entity], registry: &Registry, lang: Lang) -> String {
    let says = lang.says();
    let room = |e: &Entity| {
        e.area_id
            .as_deref()
            .and_then(|a| registry.area(a))
            .map(|a| a.name.clone())
    };
    let mut names: Vec<String> = Vec::new();
    for e in candidates {
        let twin = candidates
            .iter()
            .any(|o| o.entity_id != e.entity_id && o.name == e.name);
        let name = match room(e).filter(|_| twin) {
            Some(area) => says.in_room(&e.name, &area),
            None => e.name.clone(),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.len() > MAX_NAMED {
        names.truncate(MAX_NAMED);
        names.push(says.another().to_owned());
    }
    match names.as_slice() {
        [] => says.which_device().into(),
        [one] => says.do_you_mean(one),
        [first @ .., last] => says.which_of(&first.join(", "), last),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn which_one_tells_twins_apart_by_room_lists_no_text_twice_and_stops_at_the_cap() {
        use crate::agent::selfcheck::home::{home_of, link, state_object};
        let ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let mut states = vec![
            state_object("media_player.speaker_1", "Smart Speaker", "playing"),
            state_object("media_player.speaker_2", "Smart Speaker", "idle"),
            state_object("media_player.speaker_3", "Smart Speaker", "idle"),
        ];
        states.extend(
            ids.iter()
                .map(|i| state_object(&format!("light.{i}"), i, "on")),
        );
        let links = vec![
            link("media_player.speaker_1", "kitchen"),
            link("media_player.speaker_2", "study"),
            link("media_player.speaker_3", "study"),
        ];
        let home = home_of(
            states,
            links,
            &[("kitchen", "Kitchen"), ("study", "Study")],
            json!({}),
        );
        let get =
            |ids: &[&str]| -> Vec<&Entity> { ids.iter().map(|id| home.get(id).unwrap()).collect() };
        let speakers = get(&[
            "media_player.speaker_1",
            "media_player.speaker_2",
            "media_player.speaker_3",
        ]);
        assert_eq!(
            which_one(&speakers, &home, Lang::En),
            "Which one do you mean: Smart Speaker in the Kitchen or Smart Speaker in the Study?"
        );
        assert_eq!(
            which_one(&speakers[..2], &home, Lang::Pl),
            "Które masz na myśli: Smart Speaker (Kitchen) czy Smart Speaker (Study)?"
        );
        let lights: Vec<String> = ids.iter().map(|i| format!("light.{i}")).collect();
        let lights: Vec<&str> = lights.iter().map(String::as_str).collect();
        assert_eq!(
            which_one(&get(&lights), &home, Lang::En),
            "Which one do you mean: a, b, c, d, e, f or another one?"
        );
        assert_eq!(
            which_one(&get(&lights[..1]), &home, Lang::De),
            "Meinst du a?"
        );
        assert_eq!(
            which_one(&[], &home, Lang::Fr),
            "Quel appareil voulez-vous dire ?"
        );
    }
}
