//! Bearer-token checks: constant-time comparison, and a lockout for clients that keep failing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Constant-time equality of the presented token and the configured one.
pub fn token_matches(presented: &str, expected: &str) -> bool {
    crate::secret::constant_time_eq(presented, expected)
}

/// Counts failed attempts per client address; too many in a window locks the address out.
#[derive(Debug)]
pub struct AuthLimiter {
    max_failures: u32,
    window: Duration,
    failures: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl AuthLimiter {
    pub fn new(max_failures: u32, window: Duration) -> Self {
        Self {
            max_failures: max_failures.max(1),
            window,
            failures: Mutex::new(HashMap::new()),
        }
    }

    pub fn locked_out(&self, ip: IpAddr) -> bool {
        let failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        failures
            .get(&ip)
            .is_some_and(|(n, since)| *n >= self.max_failures && since.elapsed() < self.window)
    }

    pub fn failed(&self, ip: IpAddr) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let window = self.window;
        failures.retain(|_, (_, since)| since.elapsed() < window);
        let entry = failures.entry(ip).or_insert((0, Instant::now()));
        entry.0 += 1;
    }

    pub fn succeeded(&self, ip: IpAddr) {
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&ip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_exactly() {
        assert!(token_matches("abcdefghijklmnop", "abcdefghijklmnop"));
        assert!(!token_matches("abcdefghijklmnoq", "abcdefghijklmnop"));
        assert!(!token_matches("abcdefghijklmno", "abcdefghijklmnop"));
        assert!(!token_matches("abcdefghijklmnop\0", "abcdefghijklmnop"));
        assert!(!token_matches("", "abcdefghijklmnop"));
    }

    #[test]
    fn repeated_failures_lock_an_address_out_and_success_clears_it() {
        let limiter = AuthLimiter::new(3, Duration::from_secs(60));
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        for _ in 0..3 {
            assert!(!limiter.locked_out(ip));
            limiter.failed(ip);
        }
        assert!(limiter.locked_out(ip));
        assert!(!limiter.locked_out(other));
        limiter.succeeded(ip);
        assert!(!limiter.locked_out(ip));
    }
}
