//! The API's bearer token where the user set none but gave a place to keep one: the add-on,
//! whose API port is open to every container on the Supervisor's network. There a port that
//! answered everyone would let a neighbour ask "open the garage door" and approve it too, so
//! the token is made on the first start, kept, and shown to the household in the panel (which
//! stays behind Home Assistant's own login).
//!
//! Invariants:
//! - A configured `api.token` always wins; the file is then neither read nor written.
//! - The token is 256 bits from the operating system's CSPRNG, written atomically to a file
//!   only its owner may read (0600), so a crash mid-write never leaves half a token.
//! - A kept token is used as it is on every later start: clients configured with it keep
//!   working across restarts and updates. A file that holds no usable token (empty, cut
//!   short, not text) is replaced, and the replacement says so in the log.
//! - Only `serve` makes a token; other commands (`ask`, `config`) read a kept one or go on
//!   without, so a typo on the command line never writes into `/data`.

use std::path::{Path, PathBuf};

use crate::config::ApiConfig;
use crate::secret::Secret;

/// Bytes of randomness in a made token (hex-encoded, 64 characters).
const TOKEN_BYTES: usize = 32;
/// The shortest kept token accepted (the configured one's minimum too).
const MIN_KEPT_LEN: usize = 16;

/// Where the API's token came from, for the start-up log and the panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenOrigin {
    /// `api.token` in the configuration.
    Configured,
    /// Read from the file made on an earlier start.
    Kept(PathBuf),
    /// Made now and written to the file; `replaced` when the file held no usable token.
    Made { path: PathBuf, replaced: bool },
    /// No token: the API answers every caller (the loopback default outside the add-on).
    Open,
}

#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// The file exists but cannot be read (permissions, a directory in its place).
    #[error("cannot read the API token file {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    /// The token could not be written; the API would otherwise answer without one.
    #[error("cannot write the API token file {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("the operating system gave no randomness for the API token: {0}")]
    NoRandomness(String),
}

/// Fills `api.token` from `api.token_file` when no token is configured: the kept token, or
/// (when `make` is set) a new one written there. Afterwards `api.token_file` is set only when
/// the token in use is the one kept there.
pub fn resolve(api: &mut ApiConfig, make: bool) -> Result<TokenOrigin, AccessError> {
    if api.token.is_some() {
        // The file keeps nothing in use, so nothing (the panel) points at it.
        api.token_file = None;
        return Ok(TokenOrigin::Configured);
    }
    let Some(path) = api.token_file.clone() else {
        return Ok(TokenOrigin::Open);
    };
    let kept = read_kept(&path)?;
    if let Some(token) = kept.as_deref().and_then(usable) {
        api.token = Some(Secret::new(token));
        return Ok(TokenOrigin::Kept(path));
    }
    if !make {
        return Ok(TokenOrigin::Open);
    }
    let token = new_token()?;
    let write = || {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        crate::journal::write_private(&path, format!("{token}\n").as_bytes())
    };
    write().map_err(|e| AccessError::Write {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    api.token = Some(Secret::new(token));
    Ok(TokenOrigin::Made {
        path,
        replaced: kept.is_some(),
    })
}

/// The file's text, `None` when there is no file.
fn read_kept(path: &Path) -> Result<Option<String>, AccessError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(AccessError::Read {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// A kept token as the bearer header carries it: one word of printable ASCII, long enough.
fn usable(text: &str) -> Option<&str> {
    let token = text.trim();
    (token.len() >= MIN_KEPT_LEN && token.chars().all(|c| c.is_ascii_graphic())).then_some(token)
}

fn new_token() -> Result<String, AccessError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| AccessError::NoRandomness(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn api(file: Option<PathBuf>) -> ApiConfig {
        ApiConfig {
            token_file: file,
            ..ApiConfig::default()
        }
    }

    #[test]
    fn a_token_is_made_once_kept_private_and_used_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data/api-token");
        let mut first = api(Some(path.clone()));
        let origin = resolve(&mut first, true).unwrap();
        assert_eq!(
            origin,
            TokenOrigin::Made {
                path: path.clone(),
                replaced: false
            }
        );
        let token = first.token.unwrap().expose().to_owned();
        assert_eq!(token.len(), 64);
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "only the owner may read the token");

        let mut second = api(Some(path.clone()));
        assert_eq!(
            resolve(&mut second, true).unwrap(),
            TokenOrigin::Kept(path.clone())
        );
        assert_eq!(second.token.unwrap().expose(), token);

        // Another start of the binary never makes the same token.
        let other = tempfile::tempdir().unwrap();
        let mut elsewhere = api(Some(other.path().join("api-token")));
        resolve(&mut elsewhere, true).unwrap();
        assert_ne!(elsewhere.token.unwrap().expose(), token);
    }

    #[test]
    fn a_configured_token_wins_and_the_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api-token");
        let mut cfg = api(Some(path.clone()));
        cfg.token = Some(Secret::new("configured-token-0123"));
        assert_eq!(resolve(&mut cfg, true).unwrap(), TokenOrigin::Configured);
        assert_eq!(cfg.token.unwrap().expose(), "configured-token-0123");
        assert!(!path.exists());
    }

    #[test]
    fn without_a_file_the_api_stays_open_and_only_serve_makes_one() {
        let mut open = api(None);
        assert_eq!(resolve(&mut open, true).unwrap(), TokenOrigin::Open);
        assert!(open.token.is_none());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api-token");
        let mut asking = api(Some(path.clone()));
        assert_eq!(resolve(&mut asking, false).unwrap(), TokenOrigin::Open);
        assert!(!path.exists(), "only serve writes the token");
    }

    #[test]
    fn a_damaged_file_is_replaced_and_an_unreadable_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api-token");
        for damaged in ["", "short\n", "two words in a token file\n"] {
            std::fs::write(&path, damaged).unwrap();
            let mut cfg = api(Some(path.clone()));
            assert_eq!(
                resolve(&mut cfg, true).unwrap(),
                TokenOrigin::Made {
                    path: path.clone(),
                    replaced: true
                },
                "{damaged:?}"
            );
            let kept = std::fs::read_to_string(&path).unwrap();
            assert_eq!(kept.trim(), cfg.token.unwrap().expose());
        }
        // A directory where the file should be: said, not papered over.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        let err = resolve(&mut api(Some(blocked.clone())), true).unwrap_err();
        assert!(matches!(err, AccessError::Read { .. }), "{err}");
        assert!(err.to_string().contains("blocked"), "{err}");
    }
}
