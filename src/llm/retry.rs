//! Retry policy as data: what to do after a failed attempt, decided by a pure function.

use std::time::Duration;

use super::types::LlmError;
use crate::backoff::Backoff;
use crate::config::LlmConfig;

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    pub max_attempts: u32,
    pub backoff: Backoff,
    /// A server asking us to wait longer than this is treated as unavailable.
    pub max_retry_after: Duration,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    RetryIn(Duration),
    /// Move on to the next model.
    NextModel,
}

impl RetryPolicy {
    pub fn from_config(cfg: &LlmConfig) -> Self {
        Self {
            max_attempts: cfg.max_attempts,
            backoff: Backoff {
                initial: Duration::from_millis(cfg.initial_backoff_ms),
                max: Duration::from_millis(cfg.max_backoff_ms),
            },
            max_retry_after: Duration::from_millis(cfg.max_retry_after_ms),
        }
    }

    /// After attempt number `attempt` (1-based) failed with `error`; `unit` is a random draw in
    /// `[0, 1)` for the jitter.
    pub fn decide(&self, error: &LlmError, attempt: u32, unit: f64) -> Decision {
        if !error.is_retryable() || attempt >= self.max_attempts {
            return Decision::NextModel;
        }
        match error.retry_after() {
            Some(wait) if wait > self.max_retry_after => Decision::NextModel,
            Some(wait) => Decision::RetryIn(wait),
            None => Decision::RetryIn(self.backoff.full_jitter(attempt - 1, unit)),
        }
    }
}

/// `Retry-After` as delta-seconds (HTTP dates are rare from APIs and fall back to backoff).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    v.parse::<u64>().map(Duration::from_secs).ok().or_else(|| {
        v.parse::<f64>()
            .ok()
            .filter(|s| *s >= 0.0 && s.is_finite())
            .map(Duration::from_secs_f64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 8,
            backoff: Backoff {
                initial: Duration::from_millis(500),
                max: Duration::from_secs(30),
            },
            max_retry_after: Duration::from_secs(60),
        }
    }

    fn http(status: u16, retry_after: Option<Duration>) -> LlmError {
        LlmError::Http {
            model: "m".into(),
            status,
            body: String::new(),
            retry_after,
        }
    }

    #[test]
    fn retryable_errors_back_off_until_the_attempts_run_out() {
        let p = policy();
        assert_eq!(
            p.decide(&http(503, None), 1, 1.0),
            Decision::RetryIn(Duration::from_millis(500))
        );
        assert_eq!(
            p.decide(&http(503, None), 3, 1.0),
            Decision::RetryIn(Duration::from_millis(2000))
        );
        assert_eq!(p.decide(&http(503, None), 8, 0.5), Decision::NextModel);
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_limit() {
        let p = policy();
        assert_eq!(
            p.decide(&http(429, Some(Duration::from_secs(2))), 1, 0.0),
            Decision::RetryIn(Duration::from_secs(2))
        );
        assert_eq!(
            p.decide(&http(429, Some(Duration::from_secs(3600))), 1, 0.0),
            Decision::NextModel
        );
    }

    #[test]
    fn client_errors_go_straight_to_the_next_model() {
        for status in [400, 401, 404] {
            assert_eq!(
                policy().decide(&http(status, None), 1, 0.5),
                Decision::NextModel
            );
        }
    }

    #[test]
    fn retry_after_parses_seconds() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after(" 0.25 "),
            Some(Duration::from_millis(250))
        );
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }
}
