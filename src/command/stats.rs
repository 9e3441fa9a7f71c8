//! The panel's Stats tab, summed up from the activity records: what a household asks of it —
//! how many commands, how many answered without the model, how long people waited, how they
//! ended, and which ones to look at.
//!
//! Invariants:
//! - Pure: records, the period's end and the home's time zone in, a summary out.
//! - Days are the home's days (Home Assistant's time zone, UTC without one), every day of the
//!   period present, an empty one as zero: a gap is a fact, not a missing point.
//! - Every command record of the period counts once, in exactly one outcome.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;

use super::activity::Record;

/// The periods the tab offers, in days.
pub const PERIODS: [u32; 3] = [1, 7, 30];

/// Upper bounds of the waiting-time buckets, in milliseconds; the last bucket is open.
pub const LATENCY_BOUNDS_MS: [u64; 7] = [100, 500, 1_000, 2_000, 5_000, 10_000, 30_000];

/// How many commands each list names.
const LISTED: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The period: its first day's start and its end, in milliseconds since the epoch.
    pub from_ms: u64,
    pub to_ms: u64,
    pub days: u32,
    pub time_zone: String,
    pub commands: usize,
    /// Answered without the model (see [`Day::without_model`]).
    pub without_model: usize,
    pub p50_ms: Option<u64>,
    pub p95_ms: Option<u64>,
    pub per_day: Vec<Day>,
    /// Commands per waiting-time bucket ([`LATENCY_BOUNDS_MS`], then the open one).
    pub latency: Vec<usize>,
    pub outcomes: Outcomes,
    /// The slowest commands, slowest first, and the newest failed ones.
    pub slowest: Vec<Listed>,
    pub failed: Vec<Listed>,
}

/// One day of the home's calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    /// `YYYY-MM-DD` in the home's time zone.
    pub date: String,
    pub commands: usize,
    /// Answered (done, asked back or held for approval) without a request to the model.
    pub without_model: usize,
    /// Failed or refused: no answer at all, with or without the model.
    pub unanswered: usize,
}

/// How commands ended; each command counts in exactly one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outcomes {
    /// Acted, and Home Assistant showed every change.
    pub verified: usize,
    /// Answered without acting: a question, a reading, chit-chat.
    pub answered: usize,
    /// Ended with a question back.
    pub asked_back: usize,
    pub waiting_for_approval: usize,
    /// Turned away before anything ran: a denied service, input HomeClaw does not take.
    pub refused: usize,
    /// Failed, or acted without the change being seen.
    pub failed: usize,
}

/// A command worth a look, with what finds it in the activity list (`at_ms`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listed {
    pub at_ms: u64,
    pub text: String,
    pub status: String,
    pub latency_ms: u64,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Verified,
    Answered,
    AskedBack,
    WaitingForApproval,
    Refused,
    Failed,
}

/// The outcome of one command record.
pub fn outcome_of(record: &Record) -> Outcome {
    match record.status.as_str() {
        "done" if record.actions.is_empty() => Outcome::Answered,
        "done" if record.actions.iter().all(|a| a.verified) => Outcome::Verified,
        "clarification_required" => Outcome::AskedBack,
        "approval_required" => Outcome::WaitingForApproval,
        "denied"
        | "invalid_fields"
        | "too_long"
        | "invalid_session_id"
        | "idempotency_key_reused"
        | "invalid_call" => Outcome::Refused,
        _ => Outcome::Failed,
    }
}

/// The summary of the `days` days that end with the day of `now`, from `records` (any order;
/// other kinds than commands are left out).
pub fn summarise(records: &[Record], now: Timestamp, days: u32, zone: &TimeZone) -> Summary {
    let days = days.max(1);
    let today = now.to_zoned(zone.clone()).date();
    let first = today
        .checked_sub(jiff::Span::new().days(i64::from(days) - 1))
        .unwrap_or(today);
    let from = first
        .to_zoned(zone.clone())
        .map_or(0, |z| z.timestamp().as_millisecond());
    let from_ms = u64::try_from(from).unwrap_or(0);
    let to_ms = u64::try_from(now.as_millisecond()).unwrap_or(0);
    let mut per_day: Vec<Day> = (0..days)
        .filter_map(|i| first.checked_add(jiff::Span::new().days(i64::from(i))).ok())
        .map(|date| Day {
            date: date.to_string(),
            commands: 0,
            without_model: 0,
            unanswered: 0,
        })
        .collect();
    let mut latency = vec![0; LATENCY_BOUNDS_MS.len() + 1];
    let mut outcomes = Outcomes::default();
    let mut waits = Vec::new();
    let mut listed = Vec::new();
    let in_period = records
        .iter()
        .filter(|r| r.kind == "command" && r.at_ms >= from_ms && r.at_ms <= to_ms);
    for record in in_period {
        let day = day_of(record.at_ms, zone);
        let outcome = outcome_of(record);
        let unanswered = matches!(outcome, Outcome::Failed | Outcome::Refused);
        if let Some(day) = per_day.iter_mut().find(|d| Some(&d.date) == day.as_ref()) {
            day.commands += 1;
            day.without_model += usize::from(record.llm_requests == 0 && !unanswered);
            day.unanswered += usize::from(unanswered);
        }
        let bucket = LATENCY_BOUNDS_MS
            .iter()
            .position(|bound| record.latency_ms < *bound)
            .unwrap_or(LATENCY_BOUNDS_MS.len());
        latency[bucket] += 1;
        waits.push(record.latency_ms);
        *outcomes.slot(outcome) += 1;
        listed.push(Listed {
            at_ms: record.at_ms,
            text: record.text.clone(),
            status: record.status.clone(),
            latency_ms: record.latency_ms,
            outcome,
        });
    }
    waits.sort_unstable();
    let commands = waits.len();
    let without_model = per_day.iter().map(|d| d.without_model).sum();
    let mut failed: Vec<Listed> = listed
        .iter()
        .filter(|l| l.outcome == Outcome::Failed)
        .cloned()
        .collect();
    failed.sort_by_key(|l| std::cmp::Reverse(l.at_ms));
    failed.truncate(LISTED);
    listed.sort_by_key(|l| (std::cmp::Reverse(l.latency_ms), std::cmp::Reverse(l.at_ms)));
    listed.truncate(LISTED);
    Summary {
        from_ms,
        to_ms,
        days,
        time_zone: zone.iana_name().unwrap_or("UTC").to_owned(),
        commands,
        without_model,
        p50_ms: quantile(&waits, 50),
        p95_ms: quantile(&waits, 95),
        per_day,
        latency,
        outcomes,
        slowest: listed,
        failed,
    }
}

impl Outcomes {
    fn slot(&mut self, outcome: Outcome) -> &mut usize {
        match outcome {
            Outcome::Verified => &mut self.verified,
            Outcome::Answered => &mut self.answered,
            Outcome::AskedBack => &mut self.asked_back,
            Outcome::WaitingForApproval => &mut self.waiting_for_approval,
            Outcome::Refused => &mut self.refused,
            Outcome::Failed => &mut self.failed,
        }
    }
}

/// The home's calendar day of a moment.
fn day_of(at_ms: u64, zone: &TimeZone) -> Option<String> {
    let at = Timestamp::from_millisecond(i64::try_from(at_ms).ok()?).ok()?;
    Some(at.to_zoned(zone.clone()).date().to_string())
}

/// The value under which `percent`% of the sorted values lie (nearest rank).
fn quantile(sorted: &[u64], percent: usize) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// The home's time zone by its name, UTC when it has none or the name is unknown here.
pub fn zone_named(name: Option<&str>) -> TimeZone {
    name.and_then(|n| TimeZone::get(n).ok())
        .unwrap_or(TimeZone::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::act::verify::ActionReport;
    use crate::command::activity::Source;

    const HOUR: u64 = 3_600_000;

    fn record(at_ms: u64, status: &str, latency_ms: u64, llm: u32, verified: &[bool]) -> Record {
        Record {
            at_ms,
            text: format!("command at {at_ms}"),
            latency_ms,
            llm_requests: llm,
            actions: verified
                .iter()
                .map(|v| ActionReport {
                    call: crate::agent::plan::PlannedCall {
                        domain: "light".into(),
                        service: "turn_on".into(),
                        entity_ids: vec!["light.x".into()],
                        data: serde_json::Value::Null,
                    },
                    verified: *v,
                    observed_state: Default::default(),
                    dry_run: false,
                })
                .collect(),
            ..Record::answer(Source::Panel, "command", "", status.into())
        }
    }

    #[test]
    fn days_are_the_homes_days_and_every_command_counts_once() {
        // 2026-11-26 10:00 UTC is 11:00 in Warsaw; 23:30 UTC on the 25th is already the 26th
        // there.
        let now: Timestamp = "2026-11-26T10:00:00Z".parse().unwrap();
        let now_ms = u64::try_from(now.as_millisecond()).unwrap();
        let late = now_ms - 10 * HOUR - HOUR / 2;
        let records = vec![
            record(now_ms - HOUR, "done", 40, 0, &[true]),
            record(now_ms - 2 * HOUR, "done", 3_200, 2, &[true, false]),
            record(late, "clarification_required", 900, 1, &[]),
            record(now_ms - 30 * HOUR, "approval_required", 120, 0, &[]),
            record(now_ms - 31 * HOUR, "denied", 5, 0, &[]),
            record(now_ms - 32 * HOUR, "llm_unavailable", 31_000, 1, &[]),
            record(now_ms - 33 * HOUR, "done", 60, 0, &[]),
            // Outside a 7-day period, and not a command.
            record(now_ms - 8 * 24 * HOUR, "done", 10, 0, &[]),
            Record {
                at_ms: now_ms - HOUR,
                ..Record::answer(Source::Panel, "approve", "appr_x", "done".into())
            },
        ];
        let warsaw = zone_named(Some("Europe/Warsaw"));
        let s = summarise(&records, now, 7, &warsaw);
        assert_eq!(s.days, 7);
        assert_eq!(s.time_zone, "Europe/Warsaw");
        assert_eq!(s.per_day.len(), 7);
        assert_eq!(s.per_day[0].date, "2026-11-20");
        assert_eq!(s.per_day[6].date, "2026-11-26");
        let day = |d: &Day| (d.commands, d.without_model, d.unanswered);
        assert_eq!(day(&s.per_day[6]), (3, 1, 1));
        // A refused or failed command was answered neither way.
        assert_eq!(day(&s.per_day[5]), (4, 2, 2));
        assert_eq!((s.commands, s.without_model), (7, 3));
        let o = &s.outcomes;
        assert_eq!(
            [
                o.verified,
                o.answered,
                o.asked_back,
                o.waiting_for_approval,
                o.refused,
                o.failed
            ],
            [1, 1, 1, 1, 1, 2]
        );
        assert_eq!(s.latency.iter().sum::<usize>(), 7);
        assert_eq!(s.latency, vec![3, 1, 1, 0, 1, 0, 0, 1]);
        assert_eq!(s.p50_ms, Some(120));
        assert_eq!(s.p95_ms, Some(31_000));
        assert_eq!(s.slowest[0].latency_ms, 31_000);
        assert_eq!(s.slowest.len(), 5);
        // Failed: the unconfirmed action (newest first), then the model that did not answer.
        assert_eq!(
            s.failed.iter().map(|l| l.latency_ms).collect::<Vec<_>>(),
            vec![3_200, 31_000]
        );
        // The same moment in UTC falls on another day.
        let utc = summarise(&records, now, 7, &zone_named(None));
        assert_eq!((utc.per_day[6].commands, utc.per_day[5].commands), (2, 5));
    }

    #[test]
    fn an_empty_period_is_all_days_at_zero() {
        let now: Timestamp = "2026-11-26T10:00:00Z".parse().unwrap();
        let s = summarise(&[], now, 30, &TimeZone::UTC);
        assert_eq!(s.per_day.len(), 30);
        assert!(s.per_day.iter().all(|d| d.commands == 0));
        assert_eq!((s.commands, s.p50_ms, s.p95_ms), (0, None, None));
        assert!(s.slowest.is_empty() && s.failed.is_empty());
        assert_eq!(zone_named(Some("Not/AZone")).iana_name(), Some("UTC"));
    }
}
