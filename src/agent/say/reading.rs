//! Answers written from reads: the open items of a to-do list, a calendar's events, the weather
//! now or tomorrow. Every sentence comes from what Home Assistant returned in this run (or the
//! live registry's state for the current weather), in the person's language; nothing is
//! inferred beyond counting and dating what was read.
//!
//! Dates: "today" and "tomorrow" are the home's, in Home Assistant's `time_zone` (from
//! `get_config`, followed on `core_config_updated`), DST included; event times are placed in
//! it whatever offset they were written in, and an all-day event (a bare date) is that date.
//! Only without a zone name does the offset of Home Assistant's own timestamps stand in.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::{Offset, TimeZone};
use serde_json::Value;

use crate::agent::plan::{Asked, Day};
use crate::agent::understand::Lang;
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
    let zone = home_zone(registry.time_zone(), responses);
    let today = today_in(&zone, now);
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
            when,
        } => calendars
            .iter()
            .map(|id| {
                events(
                    &name(id),
                    response(id).as_ref(),
                    *day,
                    counting.as_deref(),
                    *when,
                    lang,
                    (&zone, today),
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
        Asked::Weather { entity, tomorrow } => {
            let Some(state) = registry.get(entity) else {
                return unknown(entity, lang);
            };
            if *tomorrow {
                forecast_tomorrow(&state.name, response(entity).as_ref(), lang, (&zone, today))
            } else {
                weather_now(&state.name, &state.state, &state.attributes, lang)
            }
        }
    }
}

fn unknown(entity: &str, lang: Lang) -> String {
    lang.says().could_not_read(entity)
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
    lang.says().items(name, n, &joined)
}

/// A moment as Home Assistant writes it, placed in the home's time zone.
#[derive(Debug, Clone, Copy, PartialEq)]
struct When {
    date: Date,
    /// Minutes after midnight; `None` for a bare date (an all-day event).
    minute: Option<i64>,
}

/// The home's time zone: Home Assistant's `time_zone`. Without one (an older Home Assistant,
/// or a name this machine's zone database lacks), the offset Home Assistant's own timestamps
/// in `responses` carry, else UTC.
fn home_zone(name: Option<&str>, responses: &[Value]) -> TimeZone {
    if let Some(zone) = name.and_then(|n| TimeZone::get(n).ok()) {
        return zone;
    }
    let stamps = responses.iter().flat_map(|r| {
        r.as_object().into_iter().flat_map(|by_entity| {
            by_entity.values().flat_map(|read| {
                let events = read["events"].as_array().into_iter().flatten();
                let forecast = read["forecast"].as_array().into_iter().flatten();
                events
                    .filter_map(|e| e["start"].as_str())
                    .chain(forecast.filter_map(|f| f["datetime"].as_str()))
            })
        })
    });
    stamps
        .filter_map(offset_of)
        .next()
        .map_or(TimeZone::UTC, TimeZone::fixed)
}

/// The UTC offset a timestamp is written in ("…T19:00:00+10:00" → +10).
fn offset_of(text: &str) -> Option<Offset> {
    let text = text.trim();
    let instant: Timestamp = text.parse().ok()?;
    let wall: DateTime = text.get(..19)?.parse().ok()?;
    let wall = wall.to_zoned(TimeZone::UTC).ok()?.timestamp();
    let seconds = wall.as_second() - instant.as_second();
    Offset::from_seconds(i32::try_from(seconds).ok()?).ok()
}

/// A date ("2025-04-06"), an instant with its offset ("2025-04-02T19:00:00+10:00", placed in
/// `zone`), or a wall-clock time without one (taken as the home's).
fn parse_when(text: &str, zone: &TimeZone) -> Option<When> {
    let text = text.trim();
    let (date, time) = if text.len() == 10 {
        (text.parse::<Date>().ok()?, None)
    } else if let Ok(instant) = text.parse::<Timestamp>() {
        let here = instant.to_zoned(zone.clone());
        (here.date(), Some(here.time()))
    } else {
        let wall: DateTime = text.parse().ok()?;
        (wall.date(), Some(wall.time()))
    };
    Some(When {
        date,
        minute: time.map(|t| i64::from(t.hour()) * 60 + i64::from(t.minute())),
    })
}

/// The home's date at `now` (seconds since the Unix epoch).
fn today_in(zone: &TimeZone, now: i64) -> Date {
    Timestamp::from_second(now)
        .unwrap_or(Timestamp::UNIX_EPOCH)
        .to_zoned(zone.clone())
        .date()
}

/// The day before: an exclusive end date's last day.
fn day_before(date: Date) -> Date {
    date.yesterday().unwrap_or(date)
}

/// "today", "tomorrow", or "Saturday 5 Apr" in the person's language.
fn day_label(date: Date, today: Date, lang: Lang) -> String {
    let says = lang.says();
    if date == today {
        says.today().into()
    } else if today.tomorrow().ok() == Some(date) {
        says.tomorrow().into()
    } else {
        let weekday = says.weekday(date.weekday().to_monday_zero_offset() as usize);
        let month = says.month((date.month() - 1) as usize);
        says.date(weekday, i64::from(date.day()), month)
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
    when: bool,
    lang: Lang,
    (zone, today): (&TimeZone, Date),
) -> String {
    let Some(list) = response.and_then(|r| r["events"].as_array()) else {
        return unknown(name, lang);
    };
    let mut read: Vec<Event> = list
        .iter()
        .filter_map(|e| {
            Some(Event {
                start: parse_when(e["start"].as_str()?, zone)?,
                end: e["end"].as_str().and_then(|t| parse_when(t, zone)),
                summary: e["summary"].as_str().unwrap_or(""),
                location: e["location"].as_str().filter(|l| !l.trim().is_empty()),
            })
        })
        .collect();
    let wanted = match day {
        Some(Day::Today) => Some(today),
        Some(Day::Tomorrow) => today.tomorrow().ok(),
        None => None,
    };
    // An event belongs to a day it covers (a running or all-day one to every day it spans).
    read.retain(|e| {
        wanted.is_none_or(|d| {
            let last = match (e.end, e.start.minute) {
                // A bare end date is exclusive; a timed end at midnight ends the day before.
                (Some(end), None) => day_before(end.date),
                (Some(end), Some(_)) if end.minute == Some(0) => day_before(end.date),
                (Some(end), _) => end.date,
                (None, _) => e.start.date,
            };
            e.start.date <= d && d <= last.max(e.start.date)
        })
    });
    let says = lang.says();
    let window = match day {
        Some(Day::Today) => says.rest_of_today(),
        Some(Day::Tomorrow) => says.tomorrow(),
        None => says.next_7_days(),
    };
    if read.is_empty() {
        return says.nothing_on(name, window);
    }
    let line = |e: &Event| {
        let label = day_label(e.start.date, today, lang);
        let at = e
            .location
            .map(|place| says.at_place(place))
            .unwrap_or_default();
        match e.start.minute {
            Some(start) => {
                let until = e
                    .end
                    .and_then(|end| end.minute.filter(|_| end.date == e.start.date))
                    .map(|m| format!("–{}", clock(m)))
                    .unwrap_or_default();
                format!("{label} {}{until} {}{at}", clock(start), e.summary)
            }
            None => {
                format!("{label} ({}) {}{at}", says.all_day(), e.summary)
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
            return says.events_counted(k, name, window, &lines);
        }
        // "What time is the dentist?" and no event says "dentist": not on this calendar.
        if when {
            return says.could_not_answer().to_owned();
        }
    }
    let lines = read.iter().map(line).collect::<Vec<_>>().join("; ");
    format!("{name}, {window}: {lines}.")
}

/// Home Assistant's condition words in the person's language.
fn condition(word: &str, lang: Lang) -> String {
    lang.says().condition(word).unwrap_or(word).to_owned()
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
        parts.push(lang.says().humidity(&h));
    }
    if let Some(w) = attr("wind_speed") {
        let unit = attr("wind_speed_unit").unwrap_or_default();
        let wind = lang.says().wind();
        parts.push(format!("{wind} {w} {unit}").trim_end().to_owned());
    }
    format!("{name}: {}.", parts.join(", "))
}

fn forecast_tomorrow(
    name: &str,
    response: Option<&Value>,
    lang: Lang,
    (zone, today): (&TimeZone, Date),
) -> String {
    let entries = response
        .and_then(|r| r["forecast"].as_array())
        .cloned()
        .unwrap_or_default();
    let dated: Vec<(When, &Value)> = entries
        .iter()
        .filter_map(|f| Some((parse_when(f["datetime"].as_str()?, zone)?, f)))
        .collect();
    let tomorrow = today.tomorrow().ok();
    let Some((_, entry)) = dated.iter().find(|(w, _)| Some(w.date) == tomorrow) else {
        return lang.says().no_forecast(name);
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
        parts.push(lang.says().chance_of_rain(&p));
    }
    let when = lang.says().tomorrow();
    format!("{name}, {when}: {}.", parts.join(", "))
}

#[cfg(test)]
#[path = "reading_tests.rs"]
mod tests;
