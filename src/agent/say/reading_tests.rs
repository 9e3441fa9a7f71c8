//! Answers written from reads (to-do items, calendar events, the weather), from the responses
//! Home Assistant's services give, in every lexicon's language and the home's time zone.

use super::*;
use serde_json::json;

/// 2025-04-02 08:30 at +10:00, in seconds since the epoch.
const NOW: i64 = 1_743_546_600;

fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap()
}

/// Brisbane: UTC+10 all year, the home of the calendar fixtures.
fn brisbane() -> (TimeZone, Date) {
    let zone = zone("Australia/Brisbane");
    let today = today_in(&zone, NOW);
    (zone, today)
}

fn date(y: i16, m: i8, d: i8) -> Date {
    jiff::civil::date(y, m, d)
}

#[test]
fn dates_are_placed_in_the_home_s_zone_and_name_their_weekday() {
    let (z, today) = brisbane();
    assert_eq!(today, date(2025, 4, 2));
    assert_eq!(day_label(today, today, Lang::En), "today");
    assert_eq!(day_label(date(2025, 4, 3), today, Lang::De), "morgen");
    assert_eq!(day_label(date(2025, 4, 6), today, Lang::En), "Sunday 6 Apr");
    assert_eq!(
        day_label(date(2025, 4, 6), today, Lang::Pl),
        "niedziela 6 kwietnia"
    );
    let w = parse_when("2025-04-02T19:00:00+10:00", &z).unwrap();
    assert_eq!((w.date, w.minute), (today, Some(19 * 60)));
    // The same instant written in UTC is the same wall-clock time at home.
    assert_eq!(parse_when("2025-04-02T09:00:00Z", &z), Some(w));
    assert_eq!(parse_when("2025-04-06", &z).unwrap().minute, None);
    assert_eq!(
        offset_of("2025-04-02T01:00:00-05:30"),
        Offset::from_seconds(-19_800).ok()
    );
    // Without a zone name, the offset Home Assistant wrote its times in stands in.
    let read = json!({"calendar.x": {"events": [{"start": "2025-04-02T19:00:00+10:00"}]}});
    assert_eq!(today_in(&home_zone(None, &[read]), NOW), date(2025, 4, 2));
    assert_eq!(
        today_in(&home_zone(Some("Nowhere/Else"), &[]), NOW),
        date(2025, 4, 1)
    );
}

/// All-day events only: nothing carries an offset, so only the home's zone can say which
/// day "today" is.
fn holidays() -> Value {
    calendar(json!([
        {"start": "2025-04-01", "end": "2025-04-02", "summary": "Bin day"},
        {"start": "2025-04-02", "end": "2025-04-03", "summary": "School holidays start"}
    ]))
}

/// "What's on today" in a home in `zone` at `now`.
fn todays_events(read: &Value, zone_name: &str, now: i64) -> String {
    let z = zone(zone_name);
    let here = (&z, today_in(&z, now));
    events(
        "Family",
        Some(read),
        Some(Day::Today),
        None,
        false,
        Lang::En,
        here,
    )
}

#[test]
fn today_is_the_home_s_day_in_a_utc_plus_10_home_with_only_all_day_events() {
    // 08:00 on 2 April in Brisbane is still 1 April in UTC.
    let today = todays_events(&holidays(), "Australia/Brisbane", NOW - 30 * 60);
    assert_eq!(
        today,
        "Family, for the rest of today: today (all day) School holidays start."
    );
}

#[test]
fn today_is_the_home_s_day_in_a_utc_minus_8_home() {
    // 20:00 on 1 April in Los Angeles (PDT, −7) / 18:00 on 26 Nov (PST, −8) is the next
    // day in UTC.
    let z = zone("America/Los_Angeles");
    let evening = 1_743_562_800; // 2025-04-02T03:00:00Z
    assert_eq!(today_in(&z, evening), date(2025, 4, 1));
    let winter = 1_764_208_800; // 2025-11-27T02:00:00Z, 18:00 PST on the 26th
    assert_eq!(today_in(&z, winter), date(2025, 11, 26));
    let read = calendar(json!([
        {"start": "2025-11-26", "end": "2025-11-27", "summary": "Thanksgiving prep"},
        {"start": "2025-11-27T03:30:00Z", "end": "2025-11-27T05:00:00Z", "summary": "Dinner"},
        {"start": "2025-11-27", "end": "2025-11-28", "summary": "Thanksgiving"}
    ]));
    let today = todays_events(&read, "America/Los_Angeles", winter);
    assert_eq!(
        today,
        "Family, for the rest of today: today (all day) Thanksgiving prep; today 19:30–21:00 \
         Dinner."
    );
    let forecast = json!({"forecast": [
        {"datetime": "2025-11-27T08:00:00+00:00", "condition": "sunny", "temperature": 18},
        {"datetime": "2025-11-28T08:00:00+00:00", "condition": "rainy", "temperature": 12}]});
    assert_eq!(
        forecast_tomorrow(
            "Weather",
            Some(&forecast),
            Lang::En,
            (&z, today_in(&z, winter))
        ),
        "Weather, tomorrow: sunny, 18°."
    );
}

fn calendar(events: Value) -> Value {
    json!({"events": events})
}

fn loft() -> Value {
    calendar(json!([
        {"start": "2025-04-02T11:00:00+10:00", "end": "2025-04-02T11:55:00+10:00",
         "summary": "Chemistry class"},
        {"start": "2025-04-02T19:00:00+10:00", "end": "2025-04-02T20:30:00+10:00",
         "summary": "Dinner with Liza", "location": "Butcher's Prime Restaurant"},
        {"start": "2025-04-04T19:00:00+10:00", "end": "2025-04-04T20:30:00+10:00",
         "summary": "Cook dinner", "location": "Home"},
        {"start": "2025-04-06", "end": "2025-04-07", "summary": "Cynthia's Birthday"}
    ]))
}

#[test]
fn events_are_dated_in_the_home_s_zone_and_filtered_by_the_day_asked() {
    let (zone, today) = brisbane();
    let here = (&zone, today);
    let all = events("Personal", Some(&loft()), None, None, false, Lang::En, here);
    assert_eq!(
        all,
        "Personal, in the next 7 days: today 11:00–11:55 Chemistry class; today 19:00–20:30 \
         Dinner with Liza at Butcher's Prime Restaurant; Friday 4 Apr 19:00–20:30 Cook dinner \
         at Home; Sunday 6 Apr (all day) Cynthia's Birthday."
    );
    let today = events(
        "Personal",
        Some(&loft()),
        Some(Day::Today),
        None,
        false,
        Lang::En,
        here,
    );
    assert!(
        today.contains("Chemistry") && !today.contains("Cook"),
        "{today}"
    );
    let tomorrow = events(
        "Personal",
        Some(&loft()),
        Some(Day::Tomorrow),
        None,
        false,
        Lang::De,
        here,
    );
    assert_eq!(tomorrow, "Nichts im Kalender Personal morgen.");
}

#[test]
fn how_many_counts_the_events_the_question_names() {
    let (zone, today) = brisbane();
    let here = (&zone, today);
    // The events a question's word names: counted, or (`when`) the only answer.
    let named = |word: &str, when: bool| {
        let words = vec![word.to_owned()];
        events(
            "Personal",
            Some(&loft()),
            None,
            Some(&words),
            when,
            Lang::En,
            here,
        )
    };
    let asking = |word: &str| named(word, false);
    let counted = asking("cook");
    assert!(
        counted.starts_with("1 on Personal in the next 7 days: Friday"),
        "{counted}"
    );
    // Nothing named matches: every event is listed, uncounted.
    let listed = asking("swim");
    assert!(
        listed.starts_with("Personal, in the next 7 days:"),
        "{listed}"
    );
    // "When is …": the events named, and nothing else; none named, not found (never the
    // calendar's other events as if they answered).
    let when = |word: &str| named(word, true);
    let dinner = when("dinner");
    assert!(
        dinner.contains("19:00") && !dinner.contains("Chemistry"),
        "{dinner}"
    );
    assert_eq!(when("swim"), Lang::En.says().could_not_answer());
}

#[test]
fn a_list_is_read_as_its_open_items() {
    let read = json!({"items": [
        {"summary": "Call Liza", "status": "needs_action"},
        {"summary": "Old", "status": "completed"},
        {"summary": "Repair the terrace light fixture", "status": "needs_action"}]});
    assert_eq!(
        items("Tasks", Some(&read), Lang::En),
        "Tasks has 2 items: Call Liza; Repair the terrace light fixture."
    );
    assert_eq!(
        items("Zakupy", Some(&json!({"items": []})), Lang::Pl),
        "Lista Zakupy jest pusta."
    );
    assert_eq!(
        items("Lista zakupów", Some(&json!({"items": []})), Lang::Pl),
        "Lista zakupów jest pusta."
    );
    // Polish counts take their plural form: 2–4 (not 12–14) and 22 alike, 5 another.
    let five =
        json!({"items": (0..5).map(|i| json!({"summary": i.to_string()})).collect::<Vec<_>>()});
    let twenty_two =
        json!({"items": (0..22).map(|i| json!({"summary": i.to_string()})).collect::<Vec<_>>()});
    assert!(items("Zakupy", Some(&five), Lang::Pl).starts_with("Zakupy: 5 pozycji:"));
    assert!(items("Zakupy", Some(&twenty_two), Lang::Pl).starts_with("Zakupy: 22 pozycje:"));
    assert_eq!(items("Tasks", None, Lang::En), "I could not read Tasks.");
}

#[test]
fn the_weather_is_read_as_home_assistant_reports_it() {
    let (zone, today) = brisbane();
    let here = (&zone, today);
    let attributes = json!({"temperature": 16.7, "temperature_unit": "°C", "humidity": 60,
        "wind_speed": 8, "wind_speed_unit": "km/h"});
    assert_eq!(
        weather_now(
            "Weather Service",
            "cloudy",
            attributes.as_object().unwrap(),
            Lang::En
        ),
        "Weather Service: cloudy, 16.7 °C, humidity 60%, wind 8 km/h."
    );
    assert_eq!(
        weather_now("Pogoda", "partlycloudy", &serde_json::Map::new(), Lang::Pl),
        "Pogoda: częściowe zachmurzenie."
    );
    let forecast = json!({"forecast": [
        {"datetime": "2025-04-02T00:00:00+10:00", "condition": "sunny", "temperature": 20},
        {"datetime": "2025-04-03T00:00:00+10:00", "condition": "rainy", "temperature": 14,
         "templow": 9, "precipitation_probability": 80}]});
    assert_eq!(
        forecast_tomorrow("Weather", Some(&forecast), Lang::En, here),
        "Weather, tomorrow: rainy, 14/9°, chance of rain 80%."
    );
    assert_eq!(
        forecast_tomorrow("Weather", Some(&json!({"forecast": []})), Lang::En, here),
        "Weather has no forecast for tomorrow."
    );
}
