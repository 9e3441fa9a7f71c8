//! Exponential backoff with jitter, as a pure function of the attempt and a random draw.
//!
//! Why jitter: after Home Assistant restarts, every client would otherwise reconnect in lock-step.
//! The random draw is passed in so the schedule is testable without a clock or an RNG.

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub initial: Duration,
    pub max: Duration,
}

impl Backoff {
    /// The ceiling for `attempt` (0-based): `initial * 2^attempt`, capped at `max`.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        self.initial.saturating_mul(factor).min(self.max)
    }

    /// "Equal jitter": half the ceiling fixed, half random (`unit` in `[0, 1)`), so a delay is
    /// never zero (no hot reconnect loop) and clients still spread out.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        let ceiling = self.ceiling(attempt);
        let half = ceiling / 2;
        half + half.mul_f64(unit.clamp(0.0, 1.0))
    }

    /// "Full jitter": anywhere from zero to the ceiling. Right for retrying a busy API, where
    /// spreading clients matters more than a minimum pause.
    pub fn full_jitter(&self, attempt: u32, unit: f64) -> Duration {
        self.ceiling(attempt).mul_f64(unit.clamp(0.0, 1.0))
    }

    /// [`Self::delay`] with a fresh random draw.
    pub fn next_delay(&self, attempt: u32) -> Duration {
        self.delay(attempt, fastrand::f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Backoff = Backoff {
        initial: Duration::from_millis(500),
        max: Duration::from_secs(30),
    };

    #[test]
    fn ceiling_doubles_and_caps() {
        assert_eq!(B.ceiling(0), Duration::from_millis(500));
        assert_eq!(B.ceiling(1), Duration::from_millis(1000));
        assert_eq!(B.ceiling(5), Duration::from_millis(16_000));
        assert_eq!(B.ceiling(6), Duration::from_secs(30));
        assert_eq!(B.ceiling(1000), Duration::from_secs(30));
    }

    #[test]
    fn delay_stays_between_half_and_full_ceiling() {
        for attempt in 0..12 {
            let low = B.delay(attempt, 0.0);
            let high = B.delay(attempt, 0.999_999);
            assert_eq!(low, B.ceiling(attempt) / 2);
            assert!(high <= B.ceiling(attempt) && high > low);
        }
        assert_eq!(B.delay(0, 7.0), B.ceiling(0));
    }

    #[test]
    fn full_jitter_spans_zero_to_the_ceiling() {
        assert_eq!(B.full_jitter(3, 0.0), Duration::ZERO);
        assert_eq!(B.full_jitter(3, 1.0), B.ceiling(3));
        assert_eq!(B.full_jitter(3, 0.5), B.ceiling(3) / 2);
    }
}
