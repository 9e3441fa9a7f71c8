//! Where Home Assistant is and what of it the agent may see and call.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::{ConfigError, check_ranges, invalid};
use crate::glob::validate_glob;
use crate::secret::Secret;

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HaConfig {
    /// `ws(s)://host:port/api/websocket`, or an `http(s)://host:port` base that we turn into one.
    pub url: String,
    pub token: Option<Secret>,
    /// Read the token from this file (one line) when `token` is not set.
    pub token_file: Option<PathBuf>,
    pub connect_timeout_ms: u64,
    pub request_timeout_ms: u64,
    pub heartbeat_interval_ms: u64,
    pub heartbeat_timeout_ms: u64,
    pub reconnect_initial_ms: u64,
    pub reconnect_max_ms: u64,
}

impl Default for HaConfig {
    fn default() -> Self {
        Self {
            url: "ws://127.0.0.1:8123/api/websocket".into(),
            token: None,
            token_file: None,
            connect_timeout_ms: 10_000,
            request_timeout_ms: 10_000,
            heartbeat_interval_ms: 30_000,
            heartbeat_timeout_ms: 10_000,
            reconnect_initial_ms: 500,
            reconnect_max_ms: 30_000,
        }
    }
}

impl HaConfig {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExposureConfig {
    /// Honour Home Assistant's "exposed to Assist" settings.
    pub respect_assist: bool,
    /// Entity id globs (`*`, `?`) that may be seen; deny wins over allow.
    pub entity_allow: Vec<String>,
    pub entity_deny: Vec<String>,
    /// `domain.service` globs that may be called; deny wins over allow.
    pub service_allow: Vec<String>,
    /// Added to the built-in deny list (`homeassistant.stop`/`restart`, `hassio.*`,
    /// `shell_command.*`, `python_script.*`), which only `service_allow_dangerous` lifts.
    pub service_deny: Vec<String>,
    /// Lifts entries of the built-in deny list, one glob each, for users who really want them.
    pub service_allow_dangerous: Vec<String>,
}

impl Default for ExposureConfig {
    fn default() -> Self {
        Self {
            respect_assist: true,
            entity_allow: vec!["*".into()],
            entity_deny: Vec::new(),
            service_allow: vec!["*".into()],
            service_deny: Vec::new(),
            service_allow_dangerous: Vec::new(),
        }
    }
}

impl HaConfig {
    /// Normalises the URL in place; everything else is checked as given.
    pub(super) fn validate(&mut self) -> Result<(), ConfigError> {
        self.url = normalise_ws_url(&self.url)?;
        check_ranges(&[
            (
                "ha.connect_timeout_ms",
                self.connect_timeout_ms,
                100,
                300_000,
            ),
            (
                "ha.request_timeout_ms",
                self.request_timeout_ms,
                100,
                600_000,
            ),
            (
                "ha.heartbeat_interval_ms",
                self.heartbeat_interval_ms,
                100,
                3_600_000,
            ),
            (
                "ha.heartbeat_timeout_ms",
                self.heartbeat_timeout_ms,
                100,
                600_000,
            ),
            (
                "ha.reconnect_initial_ms",
                self.reconnect_initial_ms,
                10,
                600_000,
            ),
            ("ha.reconnect_max_ms", self.reconnect_max_ms, 10, 3_600_000),
        ])?;
        if self.reconnect_max_ms < self.reconnect_initial_ms {
            return Err(invalid(
                "ha.reconnect_max_ms",
                self.reconnect_max_ms.to_string(),
                format!(
                    "at least ha.reconnect_initial_ms ({})",
                    self.reconnect_initial_ms
                ),
            ));
        }
        if self.token.as_ref().is_some_and(Secret::is_empty) {
            return Err(invalid(
                "ha.token",
                "",
                "a long-lived access token (Profile > Security in Home Assistant)",
            ));
        }
        Ok(())
    }
}

impl ExposureConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let glob_lists: [(&'static str, &Vec<String>); 5] = [
            ("exposure.entity_allow", &self.entity_allow),
            ("exposure.entity_deny", &self.entity_deny),
            ("exposure.service_allow", &self.service_allow),
            ("exposure.service_deny", &self.service_deny),
            (
                "exposure.service_allow_dangerous",
                &self.service_allow_dangerous,
            ),
        ];
        for (key, globs) in glob_lists {
            for glob in globs {
                validate_glob(glob).map_err(|allowed| invalid(key, glob.as_str(), allowed))?;
            }
        }
        Ok(())
    }
}

/// Accepts `ws(s)://…` as given and turns an `http(s)://host:port` base into its websocket URL.
pub(super) fn normalise_ws_url(raw: &str) -> Result<String, ConfigError> {
    let url = raw.trim();
    let bad = |why: &str| {
        invalid(
            "ha.url",
            raw,
            format!(
                "{why}: ws://host:8123/api/websocket, wss://…, or an http(s)://host:8123 base URL"
            ),
        )
    };
    let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no scheme"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(bad("no host"));
    }
    match scheme.to_ascii_lowercase().as_str() {
        "ws" | "wss" => Ok(url.to_owned()),
        "http" | "https" => {
            let ws_scheme = if scheme.eq_ignore_ascii_case("https") {
                "wss"
            } else {
                "ws"
            };
            let base = rest.trim_end_matches('/');
            if base.ends_with("/api/websocket") {
                Ok(format!("{ws_scheme}://{base}"))
            } else {
                Ok(format!("{ws_scheme}://{base}/api/websocket"))
            }
        }
        _ => Err(bad("unsupported scheme")),
    }
}
