//! Which models of the chain are cooling down. A model that answered with an error that asking
//! again cannot fix (a 4xx other than 408/429: a wrong model name, a rejected parameter, a bad
//! key) is skipped for a while — growing with each such failure, capped — so that every round of
//! every run does not pay for it again before the fallback answers. `/api/health` shows each
//! model's state and last error.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::types::LlmError;

/// The first cooldown (longer than a run), doubling per failure up to the cap.
const BASE: Duration = Duration::from_secs(60);
const CAP: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, Default)]
struct Entry {
    failures: u32,
    until: Option<Instant>,
    last_error: Option<String>,
    prompt_cache: Option<&'static str>,
}

/// One model's health as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelHealth {
    pub name: String,
    /// `ok` or `cooling_down`.
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// How long it is still skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown_remaining_ms: Option<u64>,
    /// The start-up read of the prompt's fixed part (`warm_up`): `warming`, `warm` or
    /// `failed`; absent for a model that does not warm up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache: Option<&'static str>,
}

/// Whether an error means the model itself is broken for these requests.
pub fn breaks_model(error: &LlmError) -> bool {
    matches!(error, LlmError::Http { .. }) && !error.is_retryable()
}

/// The cooldown after `failures` consecutive breaking failures.
pub fn cooldown(failures: u32) -> Duration {
    BASE.saturating_mul(1 << failures.saturating_sub(1).min(10))
        .min(CAP)
}

#[derive(Debug)]
pub struct HealthBook {
    entries: Mutex<Vec<Entry>>,
}

impl HealthBook {
    pub fn new(models: usize) -> Self {
        Self {
            entries: Mutex::new(vec![Entry::default(); models]),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Vec<Entry>) -> T) -> T {
        f(&mut self.entries.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Model `index` is cooling down at `now`.
    pub fn cooling(&self, index: usize, now: Instant) -> bool {
        self.with(|e| e.get(index).and_then(|x| x.until).is_some_and(|u| u > now))
    }

    pub fn failed(&self, index: usize, error: &LlmError, now: Instant) {
        self.with(|entries| {
            let Some(entry) = entries.get_mut(index) else {
                return;
            };
            entry.last_error = Some(error.to_string());
            if breaks_model(error) {
                entry.failures += 1;
                entry.until = Some(now + cooldown(entry.failures));
            }
        });
    }

    pub fn succeeded(&self, index: usize) {
        self.with(|entries| {
            if let Some(entry) = entries.get_mut(index) {
                *entry = Entry {
                    prompt_cache: entry.prompt_cache,
                    ..Entry::default()
                };
            }
        });
    }

    /// How model `index`'s start-up warm-up stands (`warming`, `warm`, `failed`).
    pub fn prompt_cache(&self, index: usize, state: &'static str) {
        self.with(|entries| {
            if let Some(entry) = entries.get_mut(index) {
                entry.prompt_cache = Some(state);
            }
        });
    }

    pub fn report(&self, names: &[&str], now: Instant) -> Vec<ModelHealth> {
        self.with(|entries| {
            names
                .iter()
                .zip(entries.iter())
                .map(|(name, e)| {
                    let remaining = e.until.and_then(|u| u.checked_duration_since(now));
                    ModelHealth {
                        name: (*name).to_owned(),
                        state: if remaining.is_some() {
                            "cooling_down"
                        } else {
                            "ok"
                        },
                        last_error: e.last_error.clone(),
                        cooldown_remaining_ms: remaining.map(|d| d.as_millis() as u64),
                        prompt_cache: e.prompt_cache,
                    }
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> LlmError {
        LlmError::Http {
            model: "m".into(),
            status,
            body: "no".into(),
            retry_after: None,
        }
    }

    #[test]
    fn only_errors_asking_again_cannot_fix_cool_a_model_down_growing_and_capped() {
        assert!(breaks_model(&http(400)));
        assert!(breaks_model(&http(404)));
        assert!(!breaks_model(&http(429)));
        assert!(!breaks_model(&http(503)));
        assert_eq!(cooldown(1), Duration::from_secs(60));
        assert_eq!(cooldown(2), Duration::from_secs(120));
        assert_eq!(cooldown(30), CAP);
        let book = HealthBook::new(2);
        let now = Instant::now();
        book.failed(0, &http(503), now);
        assert!(!book.cooling(0, now));
        book.failed(0, &http(400), now);
        assert!(book.cooling(0, now));
        assert!(!book.cooling(0, now + Duration::from_secs(61)));
        let report = book.report(&["a", "b"], now);
        assert_eq!(report[0].state, "cooling_down");
        assert_eq!(report[0].cooldown_remaining_ms, Some(60_000));
        assert!(report[0].last_error.as_deref().unwrap().contains("no"));
        assert_eq!(report[1].state, "ok");
        book.prompt_cache(0, "warm");
        book.succeeded(0);
        assert!(!book.cooling(0, now));
        assert_eq!(book.report(&["a", "b"], now)[0].prompt_cache, Some("warm"));
        assert_eq!(book.report(&["a", "b"], now)[1].prompt_cache, None);
    }
}
