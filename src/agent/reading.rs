//! Answers written from reads: the open items of a to-do list, a calendar's events, the weather
//! now or tomorrow. Every sentence comes from what Home Assistant returned in this run (or the
//! live registry's state for the current weather), in the person's language; nothing is
//! inferred beyond counting and dating what was read.
//!
//! Dates: Home Assistant returns event times in its own time zone with their offset
//! (`2025-04-02T19:00:00+10:00`), so "today" and "tomorrow" are that offset's days; an all-day
//! event (a bare date) is dated in the offset of the other events, else UTC.

use serde_json::Value;

use super::fastpath::{Asked, Day, Lang};
use crate::ha::registry::Registry;
use crate::text::fold;

/// The answer to `asked` from `responses` (one per read, each keyed by entity id), with `now`
/// in seconds since the Unix epoch.
pub fn compose(
    asked: &Asked,
    responses: &[Value],
    registry: &Registry,
    lang: Lang,
    now: i64,
) -> String {
    let name = |id: &str| {
        registry
            .get(id)
            .map_or_else(|| id.to_owned(), |e| e.name.clone())
    };
    let response = |id: &str| responses.iter().find_map(|r| r.get(id)).cloned();
    match asked {
        Asked::Items { lists } => lists
            .iter()
            .map(|id| items(&name(id), response(id).as_ref(), lang))
            .collect::<Vec<_>>()
            .join(" "),
        Asked::Events {
            calendars,
            day,
            counting,
        } => calendars
            .iter()
            .map(|id| {
                events(
                    &name(id),
                    response(id).as_ref(),
                    *day,
                    counting.as_deref(),
                    lang,
                    now,
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
        Asked::Weather { entity, tomorrow } => {
            let Some(state) = registry.get(entity) else {
                return unknown(entity, lang);
            };
            if *tomorrow {
                forecast_tomorrow(&state.name, response(entity).as_ref(), lang, now)
            } else {
                weather_now(&state.name, &state.state, &state.attributes, lang)
            }
        }
    }
}

fn unknown(entity: &str, lang: Lang) -> String {
    (lang.lexicon().says.could_not_read)(entity)
}

fn items(name: &str, response: Option<&Value>, lang: Lang) -> String {
    let Some(list) = response.and_then(|r| r["items"].as_array()) else {
        return unknown(name, lang);
    };
    let summaries: Vec<&str> = list
        .iter()
        .filter(|i| i["status"].as_str().is_none_or(|s| s == "needs_action"))
        .filter_map(|i| i["summary"].as_str())
        .collect();
    let n = summaries.len();
    let joined = summaries.join("; ");
    (lang.lexicon().says.items)(name, n, &joined)
}

/// A moment as Home Assistant writes it: a date, or a date and time with its offset.
#[derive(Debug, Clone, Copy, PartialEq)]
struct When {
    /// Days since 1970-01-01 in the moment's own offset.
    day: i64,
    /// Minutes after midnight; `None` for a bare date.
    minute: Option<i64>,
    offset_secs: Option<i64>,
}

fn number(text: &str) -> Option<i64> {
    text.parse().ok()
}

fn parse_when(text: &str) -> Option<When> {
    let text = text.trim();
    let date = text.get(..10)?;
    let mut parts = date.split('-');
    let (y, m, d) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    let day = days_from_civil(y, m, d);
    let rest = text.get(10..).unwrap_or("");
    if rest.is_empty() {
        return Some(When {
            day,
            minute: None,
            offset_secs: None,
        });
    }
    let rest = rest.strip_prefix(['T', ' '])?;
    let minute = number(rest.get(..2)?)? * 60 + number(rest.get(3..5)?)?;
    // The offset: the last `+hh:mm` / `-hh:mm`, or `Z`.
    let offset_secs = if rest.ends_with('Z') {
        Some(0)
    } else {
        rest.rfind(['+', '-']).filter(|at| *at >= 5).and_then(|at| {
            let sign = if rest[at..].starts_with('-') { -1 } else { 1 };
            let hh = number(rest.get(at + 1..at + 3)?)?;
            let mm = number(rest.get(at + 4..at + 6).unwrap_or("00")).unwrap_or(0);
            Some(sign * (hh * 3600 + mm * 60))
        })
    };
    Some(When {
        day,
        minute: Some(minute),
        offset_secs,
    })
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (month, day of month) of a day since 1970-01-01.
fn month_day(days: i64) -> (usize, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (m as usize, d)
}

/// "today", "tomorrow", or "Saturday 5 Apr" in the person's language.
fn day_label(day: i64, today: i64, lang: Lang) -> String {
    let says = lang.lexicon().says;
    match day - today {
        0 => says.today.into(),
        1 => says.tomorrow.into(),
        _ => {
            let weekday = says.weekdays[(day + 3).rem_euclid(7) as usize];
            let (month, d) = month_day(day);
            (says.date)(weekday, d, says.months[month - 1])
        }
    }
}

fn clock(minute: i64) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// One event read: its start and end, for dating and counting.
struct Event<'a> {
    start: When,
    end: Option<When>,
    summary: &'a str,
    location: Option<&'a str>,
}

fn events(
    name: &str,
    response: Option<&Value>,
    day: Option<Day>,
    counting: Option<&[String]>,
    lang: Lang,
    now: i64,
) -> String {
    let Some(list) = response.and_then(|r| r["events"].as_array()) else {
        return unknown(name, lang);
    };
    let mut read: Vec<Event> = list
        .iter()
        .filter_map(|e| {
            Some(Event {
                start: parse_when(e["start"].as_str()?)?,
                end: e["end"].as_str().and_then(parse_when),
                summary: e["summary"].as_str().unwrap_or(""),
                location: e["location"].as_str().filter(|l| !l.trim().is_empty()),
            })
        })
        .collect();
    // Home Assistant's day: the offset its timed events carry.
    let offset = read.iter().find_map(|e| e.start.offset_secs).unwrap_or(0);
    let today = (now + offset).div_euclid(86_400);
    let wanted = match day {
        Some(Day::Today) => Some(today),
        Some(Day::Tomorrow) => Some(today + 1),
        None => None,
    };
    // An event belongs to a day it covers (a running or all-day one to every day it spans).
    read.retain(|e| {
        wanted.is_none_or(|d| {
            let last = match (e.end, e.start.minute) {
                // A bare end date is exclusive; a timed end at midnight ends the day before.
                (Some(end), None) => end.day - 1,
                (Some(end), Some(_)) if end.minute == Some(0) => end.day - 1,
                (Some(end), _) => end.day,
                (None, _) => e.start.day,
            };
            e.start.day <= d && d <= last.max(e.start.day)
        })
    });
    let says = lang.lexicon().says;
    let window = match day {
        Some(Day::Today) => says.rest_of_today,
        Some(Day::Tomorrow) => says.tomorrow,
        None => says.next_7_days,
    };
    if read.is_empty() {
        return (says.nothing_on)(name, window);
    }
    let line = |e: &Event| {
        let label = day_label(e.start.day, today, lang);
        let at = e.location.map(says.at_place).unwrap_or_default();
        match e.start.minute {
            Some(start) => {
                let until = e
                    .end
                    .and_then(|end| end.minute.filter(|_| end.day == e.start.day))
                    .map(|m| format!("–{}", clock(m)))
                    .unwrap_or_default();
                format!("{label} {}{until} {}{at}", clock(start), e.summary)
            }
            None => {
                format!("{label} ({}) {}{at}", says.all_day, e.summary)
            }
        }
    };
    // "How many …": the events whose summary shares a word with the question.
    if let Some(words) = counting {
        let matching: Vec<&Event> = read
            .iter()
            .filter(|e| {
                let summary = fold(e.summary);
                summary.split(' ').any(|s| {
                    words
                        .iter()
                        .any(|w| s.len() > 2 && (s.starts_with(w.as_str()) || w.starts_with(s)))
                })
            })
            .collect();
        if !matching.is_empty() {
            let k = matching.len();
            let lines = matching
                .iter()
                .map(|e| line(e))
                .collect::<Vec<_>>()
                .join("; ");
            return (says.events_counted)(k, name, window, &lines);
        }
    }
    let lines = read.iter().map(line).collect::<Vec<_>>().join("; ");
    format!("{name}, {window}: {lines}.")
}

/// Home Assistant's condition words in the person's language.
fn condition(word: &str, lang: Lang) -> String {
    lang.lexicon()
        .says
        .conditions
        .iter()
        .find(|(ha, _)| *ha == word)
        .map_or(word, |(_, said)| said)
        .to_owned()
}

fn value(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

fn weather_now(
    name: &str,
    state: &str,
    attributes: &serde_json::Map<String, Value>,
    lang: Lang,
) -> String {
    let attr = |k: &str| attributes.get(k).and_then(value);
    let mut parts = vec![condition(state, lang)];
    if let Some(t) = attr("temperature") {
        let unit = attr("temperature_unit").unwrap_or_default();
        parts.push(format!("{t} {unit}").trim_end().to_owned());
    }
    if let Some(h) = attr("humidity") {
        parts.push((lang.lexicon().says.humidity)(&h));
    }
    if let Some(w) = attr("wind_speed") {
        let unit = attr("wind_speed_unit").unwrap_or_default();
        let wind = lang.lexicon().says.wind;
        parts.push(format!("{wind} {w} {unit}").trim_end().to_owned());
    }
    format!("{name}: {}.", parts.join(", "))
}

fn forecast_tomorrow(name: &str, response: Option<&Value>, lang: Lang, now: i64) -> String {
    let entries = response
        .and_then(|r| r["forecast"].as_array())
        .cloned()
        .unwrap_or_default();
    let dated: Vec<(When, &Value)> = entries
        .iter()
        .filter_map(|f| Some((parse_when(f["datetime"].as_str()?)?, f)))
        .collect();
    let offset = dated.iter().find_map(|(w, _)| w.offset_secs).unwrap_or(0);
    let tomorrow = (now + offset).div_euclid(86_400) + 1;
    let Some((_, entry)) = dated.iter().find(|(w, _)| w.day == tomorrow) else {
        return (lang.lexicon().says.no_forecast)(name);
    };
    let attr = |k: &str| value(&entry[k]);
    let mut parts = Vec::new();
    if let Some(c) = entry["condition"].as_str() {
        parts.push(condition(c, lang));
    }
    match (attr("temperature"), attr("templow")) {
        (Some(hi), Some(lo)) => parts.push(format!("{hi}/{lo}°")),
        (Some(hi), None) => parts.push(format!("{hi}°")),
        _ => {}
    }
    if let Some(p) = attr("precipitation_probability") {
        parts.push((lang.lexicon().says.chance_of_rain)(&p));
    }
    let when = lang.lexicon().says.tomorrow;
    format!("{name}, {when}: {}.", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 2025-04-02 08:30 at +10:00, in seconds since the epoch.
    const NOW: i64 = 1_743_546_600;

    #[test]
    fn dates_round_trip_and_name_their_weekday() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        let d = days_from_civil(2025, 4, 2);
        assert_eq!(month_day(d), (4, 2));
        assert_eq!(day_label(d, d, Lang::En), "today");
        assert_eq!(day_label(d + 1, d, Lang::De), "morgen");
        assert_eq!(day_label(d + 4, d, Lang::En), "Sunday 6 Apr");
        assert_eq!(day_label(d + 4, d, Lang::Pl), "niedziela 6 kwietnia");
        let w = parse_when("2025-04-02T19:00:00+10:00").unwrap();
        assert_eq!(
            (w.day, w.minute, w.offset_secs),
            (d, Some(19 * 60), Some(36_000))
        );
        assert_eq!(parse_when("2025-04-06").unwrap().minute, None);
        assert_eq!(
            parse_when("2025-04-02T01:00:00-05:30").unwrap().offset_secs,
            Some(-19_800)
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
    fn events_are_dated_in_home_assistant_s_offset_and_filtered_by_the_day_asked() {
        let all = events("Personal", Some(&loft()), None, None, Lang::En, NOW);
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
            Lang::En,
            NOW,
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
            Lang::De,
            NOW,
        );
        assert_eq!(tomorrow, "Nichts im Kalender Personal morgen.");
    }

    #[test]
    fn how_many_counts_the_events_the_question_names() {
        let words = vec!["cook".to_owned()];
        let counted = events("Personal", Some(&loft()), None, Some(&words), Lang::En, NOW);
        assert!(
            counted.starts_with("1 on Personal in the next 7 days: Friday"),
            "{counted}"
        );
        // Nothing named matches: every event is listed, uncounted.
        let words = vec!["swim".to_owned()];
        let listed = events("Personal", Some(&loft()), None, Some(&words), Lang::En, NOW);
        assert!(
            listed.starts_with("Personal, in the next 7 days:"),
            "{listed}"
        );
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
        // Polish counts take their plural form: 2–4 (not 12–14) and 22 alike, 5 another.
        let five =
            json!({"items": (0..5).map(|i| json!({"summary": i.to_string()})).collect::<Vec<_>>()});
        let twenty_two = json!({"items": (0..22).map(|i| json!({"summary": i.to_string()})).collect::<Vec<_>>()});
        assert!(items("Zakupy", Some(&five), Lang::Pl).starts_with("Zakupy: 5 pozycji:"));
        assert!(items("Zakupy", Some(&twenty_two), Lang::Pl).starts_with("Zakupy: 22 pozycje:"));
        assert_eq!(items("Tasks", None, Lang::En), "I could not read Tasks.");
    }

    #[test]
    fn the_weather_is_read_as_home_assistant_reports_it() {
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
            forecast_tomorrow("Weather", Some(&forecast), Lang::En, NOW),
            "Weather, tomorrow: rainy, 14/9°, chance of rain 80%."
        );
        assert_eq!(
            forecast_tomorrow("Weather", Some(&json!({"forecast": []})), Lang::En, NOW),
            "Weather has no forecast for tomorrow."
        );
    }
}
