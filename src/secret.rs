//! A string that must never reach a log line, a `Debug` dump or an error body.
//!
//! Tokens and API keys live in `Secret` from the moment they are read; the only way out is
//! [`Secret::expose`], so every place that sends a secret over the wire is easy to find.

use std::fmt;

use serde::{Deserialize, Deserializer};

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The raw value, for the one place that puts it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"***\"")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| Secret(s.trim().to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_hide_the_value() {
        let secret = Secret::new("abc.def.ghi");
        assert_eq!(format!("{secret:?}"), "\"***\"");
        assert_eq!(secret.to_string(), "***");
        assert_eq!(secret.expose(), "abc.def.ghi");
    }

    #[test]
    fn deserializing_trims_stray_whitespace_from_pasted_tokens() {
        let secret: Secret = serde_json::from_str("\"  tok\\n\"").unwrap();
        assert_eq!(secret.expose(), "tok");
    }
}
