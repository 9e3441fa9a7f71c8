//! Questions planned as a person means them: answered from the registry, or read through the
//! services that answer (to-do lists, the calendar, the weather).

use serde_json::json;

use super::tests::*;
use super::*;
use crate::agent::understand::*;
use crate::ha::registry::Registry;

#[test]
fn plain_questions_are_answered_from_the_registry() {
    let mut registry = sample();
    let answer = |text: &str, registry: &Registry| match plan(text, registry) {
        Plan::Answer { text, lang } => Some((text, lang)),
        _ => None,
    };
    assert_eq!(
        answer("is the smart lock locked?", &registry),
        Some(("No: Smart Lock is off.".into(), Lang::En))
    );
    registry.apply_state_changed(&json!({"entity_id": "lock.smart_lock",
        "new_state": {"entity_id": "lock.smart_lock", "state": "locked",
            "attributes": {"friendly_name": "Smart Lock"},
            "last_changed": "2026-01-01T00:00:01+00:00", "last_updated": "2026-01-01T00:00:01+00:00"}}));
    assert_eq!(
        answer("is the smart lock locked?", &registry),
        Some(("Yes: Smart Lock is locked.".into(), Lang::En))
    );
    assert_eq!(
        answer("czy Kitchen Light jest włączone?", &registry),
        Some(("Nie: Kitchen Light: wyłączone.".into(), Lang::Pl))
    );
    assert_eq!(
        answer("Ist das Garden Light an?", &registry),
        Some(("Nein: Garden Light ist aus.".into(), Lang::De))
    );
    // Not a question about a named thing, or not certain: the model answers.
    assert_eq!(answer("is it going to rain tomorrow?", &registry), None);
    assert_eq!(answer("what can you do?", &registry), None);
}

/// A home with a to-do list, a calendar and a weather entity beside its devices.
fn reading_home() -> Registry {
    home(&[
        ("todo.tasks", "Tasks", "kitchen"),
        ("calendar.personal", "Personal", "kitchen"),
        (
            "weather.weather_service",
            "Weather Service",
            "rooftop_terrace",
        ),
        ("light.bedroom_light", "Bedroom Light", "bedroom_1"),
    ])
}

fn asked(text: &str, registry: &Registry) -> Option<(Vec<PlannedCall>, Asked, Lang)> {
    match plan(text, registry) {
        Plan::Read { reads, asked, lang } => Some((reads, asked, lang)),
        _ => None,
    }
}

#[test]
fn questions_about_lists_read_the_list() {
    let r = reading_home();
    for text in [
        "How many items are on my task list?",
        "Who do I need to call?",
        "What chores around the house do I need to complete?",
        "What's on my list to buy at the grocery store?",
        "Co mam na liście zadań?",
        "Was steht auf meiner Einkaufsliste?",
    ] {
        let (reads, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            asked,
            Asked::Items {
                lists: vec!["todo.tasks".into()]
            },
            "{text}"
        );
        assert_eq!(reads[0].service, "get_items", "{text}");
    }
    // Adding is an action, not a read.
    assert!(asked("Add milk to my task list", &r).is_none());
}

#[test]
fn questions_about_the_agenda_read_the_calendar() {
    let r = reading_home();
    let cases = [
        ("What classes do I have today?", Some(Day::Today), false),
        ("Who am I meeting for dinner?", None, false),
        ("How many nights this week do I need to cook?", None, true),
        ("Is anyone coming to visit?", None, false),
        (
            "What's on my calendar tomorrow?",
            Some(Day::Tomorrow),
            false,
        ),
        ("Co mam jutro w kalendarzu?", Some(Day::Tomorrow), false),
        ("Was habe ich heute vor?", Some(Day::Today), false),
    ];
    for (text, want_day, counts) in cases {
        let (reads, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        let Asked::Events { day, counting, .. } = asked else {
            panic!("{text}: {asked:?}")
        };
        assert_eq!(day, want_day, "{text}");
        assert_eq!(counting.is_some(), counts, "{text}");
        assert_eq!(reads[0].service, "get_events", "{text}");
    }
    let (_, asked, _) = asked("How many nights this week do I need to cook?", &r).unwrap();
    assert!(matches!(asked, Asked::Events { counting: Some(w), .. } if w == ["cook"]));
}

/// "What time is the dentist?" asks the calendar, in every language, for what the words name;
/// the clock's time and a time of the home's devices are not the calendar's.
#[test]
fn when_something_is_is_read_from_the_calendar_unless_it_is_the_homes() {
    let r = reading_home();
    for (text, about) in [
        ("What time is the dentist?", "dentist"),
        ("When is the dentist?", "dentist"),
        ("Um wie viel Uhr ist der Zahnarzt?", "zahnarzt"),
        ("Wann ist der Zahnarzt?", "zahnarzt"),
        ("O której jest dentysta?", "dentysta"),
        ("À quelle heure est le dentiste ?", "dentiste"),
    ] {
        let (_, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        let Asked::Events { counting, when, .. } = asked else {
            panic!("{text}: {asked:?}")
        };
        assert!(when, "{text}");
        assert_eq!(counting.unwrap_or_default(), [about], "{text}");
    }
    for text in [
        "What time is it?",
        "Wie viel Uhr ist es?",
        "When did the kitchen light turn on?",
    ] {
        assert!(asked(text, &r).is_none(), "{text}");
    }
}

#[test]
fn questions_about_the_weather_read_the_weather() {
    let r = reading_home();
    for (text, tomorrow) in [
        ("Is today sunny or cloudy?", false),
        ("What is the temperature outside?", false),
        ("Will it rain tomorrow?", true),
        ("Jaka jest pogoda?", false),
        ("Wie wird das Wetter morgen?", true),
    ] {
        let (reads, asked, _) = asked(text, &r).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            asked,
            Asked::Weather {
                entity: "weather.weather_service".into(),
                tomorrow
            },
            "{text}"
        );
        assert_eq!(reads.is_empty(), !tomorrow, "{text}");
    }
    // A device question is still the device's.
    assert!(asked("Is the bedroom light on?", &r).is_none());
    // A home without the entity plans no read.
    let bare = home(&[("light.bedroom_light", "Bedroom Light", "bedroom_1")]);
    assert!(asked("Is it sunny?", &bare).is_none());
    assert!(asked("What's on my calendar?", &bare).is_none());
}

#[test]
fn questions_are_answered_as_a_person_means_them() {
    let r = home_in_states(&[
        (
            "light.bedroom_light",
            "Bedroom Light",
            "bedroom_1",
            "on",
            json!({}),
        ),
        (
            "light.balcony_light",
            "Balcony Light",
            "rooftop_terrace",
            "on",
            json!({}),
        ),
        (
            "light.kitchen_light",
            "Kitchen Light",
            "kitchen",
            "off",
            json!({}),
        ),
        (
            "valve.sprinklers",
            "Sprinklers",
            "backyard",
            "open",
            json!({}),
        ),
        (
            "switch.kitchen_plug",
            "Kitchen Plug",
            "kitchen",
            "on",
            json!({}),
        ),
        (
            "sensor.kitchen_plug_energy",
            "Kitchen Plug Energy",
            "kitchen",
            "1",
            json!({"unit_of_measurement": "kWh"}),
        ),
        (
            "media_player.samsung",
            "Samsung",
            "living_room",
            "paused",
            json!({}),
        ),
        (
            "sensor.sink_battery",
            "Sink Battery",
            "kitchen",
            "15",
            json!({"device_class": "battery", "unit_of_measurement": "%"}),
        ),
    ]);
    // Counted, with their names.
    assert_eq!(
        answer_text("How many lights are currently on?", &r),
        "2 of 3 are on: Balcony Light, Bedroom Light."
    );
    assert_eq!(
        answer_text("How many lights are on in the kitchen?", &r),
        "0 of 1 are on."
    );
    // An open valve is on; the question's device, not its energy sensor.
    assert_eq!(
        answer_text("Are the sprinklers on?", &r),
        "Yes: Sprinklers is open."
    );
    assert_eq!(
        answer_text("Is the kitchen plug on?", &r),
        "Yes: Kitchen Plug is on."
    );
    // A choice of states is answered with the state.
    assert_eq!(
        answer_text("Is the media player playing, paused, or stopped?", &r),
        "Samsung is paused."
    );
    assert_eq!(
        answer_text(
            "Is the bedroom light off? Please answer with \"yes\" or \"no\".",
            &r
        ),
        "No: Bedroom Light is on."
    );
    assert_eq!(
        answer_text("Is the sink battery low?", &r),
        "Yes: Sink Battery is 15%."
    );
}

#[test]
fn how_many_windows_counts_the_windows() {
    let mut r = windows_and_doors();
    for (id, state) in [
        ("cover.hall_window", "open"),
        ("cover.kitchen_window", "closed"),
        ("cover.garage_door", "open"),
    ] {
        r.apply_state_changed(&json!({"entity_id": id,
            "new_state": {"entity_id": id, "state": state,
                "attributes": r.get(id).unwrap().attributes.clone(),
                "last_changed": "2026-01-01T00:00:02+00:00",
                "last_updated": "2026-01-01T00:00:02+00:00"}}));
    }
    assert_eq!(
        answer_text("Ile okien jest otwartych?", &r),
        "1 z 2: otwarte: Hall Window."
    );
    assert_eq!(
        answer_text("How many windows are open?", &r),
        "1 of 2 is open: Hall Window."
    );
}

/// A home without a calendar HomeClaw can read: "what's on my calendar?" is not found at once,
/// in the person's language, instead of a model round that has nothing to read either.
#[test]
fn the_calendar_asked_of_a_home_without_one_is_not_found_at_once() {
    let r = home(&[
        ("todo.tasks", "Tasks", "kitchen"),
        ("light.kitchen_light", "Kitchen Light", "kitchen"),
    ]);
    for (text, lang) in [
        ("What's on my calendar today?", Lang::En),
        ("Was steht heute in meinem Kalender?", Lang::De),
        ("Co mam dziś w kalendarzu?", Lang::Pl),
        ("Qu'est-ce que j'ai dans mon agenda aujourd'hui ?", Lang::Fr),
    ] {
        assert_eq!(
            plan(text, &r),
            Plan::Answer {
                text: lang.says().could_not_answer().to_owned(),
                lang
            },
            "{text}"
        );
    }
    // With a calendar, it is read.
    assert!(asked("What's on my calendar today?", &reading_home()).is_some());
}
