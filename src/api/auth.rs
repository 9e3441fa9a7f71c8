//! Bearer-token checks: constant-time comparison, and a lockout for clients that keep failing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use subtle::ConstantTimeEq;

/// Constant-time equality of the presented token and the configured one. Lengths are compared
/// in constant time too (by hashing both to a fixed width first).
pub fn token_matches(presented: &str, expected: &str) -> bool {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let digest = |s: &str| {
        // Two independent hashes give a fixed 16-byte width; the real comparison below is of
        // the full strings, padded, so a hash collision cannot let a wrong token in.
        let mut a = DefaultHasher::new();
        s.hash(&mut a);
        let mut b = DefaultHasher::new();
        (s, 0x5bd1_e995_u32).hash(&mut b);
        [a.finish().to_le_bytes(), b.finish().to_le_bytes()].concat()
    };
    let width = presented.len().max(expected.len()).max(1);
    let pad = |s: &str| {
        let mut v = s.as_bytes().to_vec();
        v.resize(width, 0);
        v
    };
    let same_digest = digest(presented).ct_eq(&digest(expected));
    let same_bytes = pad(presented).ct_eq(&pad(expected));
    let same_len = (presented.len() as u64).ct_eq(&(expected.len() as u64));
    (same_digest & same_bytes & same_len).into()
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
