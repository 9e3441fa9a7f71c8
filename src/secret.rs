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

    /// Whether `presented` is this secret, compared in constant time.
    pub fn matches(&self, presented: &str) -> bool {
        constant_time_eq(presented, &self.0)
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

/// Serialises as `***`: a dumped configuration never carries the value.
impl serde::Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("***")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| Secret(s.trim().to_owned()))
    }
}

/// Constant-time equality of a presented secret (a bearer token, a spoken PIN) and the
/// configured one. Lengths are compared in constant time too (by hashing both to a fixed width
/// first).
pub fn constant_time_eq(presented: &str, expected: &str) -> bool {
    use std::hash::{DefaultHasher, Hash, Hasher};
    use subtle::ConstantTimeEq;
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

/// Replaces known secret values and anything shaped like a credential (bearer tokens, API
/// keys, JWTs) with `***`. For trace lines, error bodies and anything else a user may see.
pub fn redact(text: &str, secrets: &[String]) -> String {
    use std::sync::LazyLock;
    static SHAPES: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(sk-|xox[bp]-|AIza)[A-Za-z0-9_-]{8,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}",
        )
        .ok()
    });
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret.as_str(), "***");
    }
    if let Some(re) = SHAPES.as_ref() {
        out = re
            .replace_all(&out, |caps: &regex::Captures<'_>| {
                format!(
                    "{}{}***",
                    caps.get(1).map_or("", |m| m.as_str()),
                    caps.get(2).map_or("", |m| m.as_str())
                )
            })
            .into_owned();
    }
    out
}

/// [`redact`] applied to every string (keys stay) of a JSON document: for records written to
/// disk whose every field may carry what a person typed.
pub fn redact_json(value: &mut serde_json::Value, secrets: &[String]) {
    match value {
        serde_json::Value::String(text) => *text = redact(text, secrets),
        serde_json::Value::Array(items) => {
            items.iter_mut().for_each(|item| redact_json(item, secrets));
        }
        serde_json::Value::Object(fields) => {
            fields
                .values_mut()
                .for_each(|item| redact_json(item, secrets));
        }
        _ => {}
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
    fn redaction_removes_known_secrets_and_credential_shapes() {
        let text = "token abcd1234efgh, header Authorization: Bearer abc.def.ghi-123456, \
                    key sk-proj-ABCDEFGH12345678, jwt eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiIxMjM0NTY3OCJ9.sig12345";
        let got = redact(text, &["abcd1234efgh".to_string()]);
        assert_eq!(
            got,
            "token ***, header Authorization: Bearer ***, key sk-***, jwt ***"
        );
        assert_eq!(redact("nothing here", &[]), "nothing here");
    }

    #[test]
    fn deserializing_trims_stray_whitespace_from_pasted_tokens() {
        let secret: Secret = serde_json::from_str("\"  tok\\n\"").unwrap();
        assert_eq!(secret.expose(), "tok");
    }
}
