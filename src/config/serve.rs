//! The running service: its HTTP API, Wyoming and MQTT fronts, where sessions live and what it
//! logs. Every listen address is loopback unless configured.

use std::net::SocketAddr;

use serde::Deserialize;

use super::{ConfigError, invalid};
use crate::secret::Secret;

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct WyomingConfig {
    /// Offer the Wyoming handle service (Home Assistant's Wyoming integration).
    pub enabled: bool,
    /// Loopback unless configured (`0.0.0.0:10700` in the add-on).
    pub listen: String,
    /// Languages announced to Home Assistant; empty (the default) announces every language
    /// Home Assistant recognises (HomeClaw's own lexicons, and its recogniser for the rest).
    pub languages: Vec<String>,
    /// When HomeClaw asks a question of a satellite it knows, the satellite listens for the
    /// answer without the wake word (`assist_satellite.start_conversation`).
    pub follow_up: bool,
}

impl Default for WyomingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            listen: "127.0.0.1:10700".into(),
            languages: Vec::new(),
            follow_up: true,
        }
    }
}

/// The panel Home Assistant shows in its sidebar (add-on ingress), or a browser tab elsewhere.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PanelConfig {
    /// Off unless configured, outside the add-on: a panel nobody asked for is a second door
    /// (and a second port that two instances on one machine would fight over). The add-on
    /// turns it on, behind ingress.
    pub enabled: bool,
    /// Loopback unless configured; the add-on listens on its ingress port (8100).
    pub listen: String,
    /// Addresses that may open the panel at all (in the add-on: only the Supervisor's ingress
    /// proxy).
    pub allowed_peers: Vec<String>,
    /// Who vouches for the person: `token` (the API's bearer token, typed into the page's
    /// login form) or `ingress` (a proxy among `allowed_peers` that has checked the user, as
    /// the Supervisor's does; the add-on's default).
    pub auth: PanelAuth,
}

/// How the panel knows that a request comes from someone allowed to command the home.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PanelAuth {
    /// The API's bearer token on every `api/*` request.
    Token,
    /// The peer address alone: only for a proxy that authenticates the user itself.
    Ingress,
}

impl Default for PanelConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            listen: "127.0.0.1:8100".into(),
            allowed_peers: vec!["127.0.0.1".into(), "::1".into()],
            auth: PanelAuth::Token,
        }
    }
}

impl PanelConfig {
    /// `api_token_set`: the panel in `token` mode asks for the API's token, so one must exist.
    pub(super) fn validate(&self, api_token_set: bool) -> Result<(), ConfigError> {
        check_listen("panel.listen", &self.listen, "127.0.0.1:8100")?;
        for peer in &self.allowed_peers {
            if peer.parse::<std::net::IpAddr>().is_err() {
                return Err(invalid(
                    "panel.allowed_peers",
                    peer.as_str(),
                    "IP addresses, e.g. 172.30.32.2 (the Supervisor's ingress proxy)",
                ));
            }
        }
        if self.enabled && self.auth == PanelAuth::Token && !api_token_set {
            return Err(invalid(
                "panel.enabled",
                "true",
                "only with api.token set (the panel asks for that token), or with panel.auth: \
                 ingress behind a proxy that checks the user",
            ));
        }
        Ok(())
    }

    /// Whether `peer` may open the panel (an IPv4 peer may arrive IPv6-mapped).
    pub fn allows(&self, peer: std::net::IpAddr) -> bool {
        let peer = match peer {
            std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(peer, std::net::IpAddr::V4),
            v4 => v4,
        };
        self.allowed_peers
            .iter()
            .filter_map(|p| p.parse::<std::net::IpAddr>().ok())
            .any(|p| p == peer)
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApiConfig {
    /// Where the HTTP API listens; loopback unless configured (`0.0.0.0:8099` in the add-on).
    pub listen: String,
    /// Bearer token required on everything but `/api/health`; none means no auth (loopback only
    /// is then strongly advised).
    pub token: Option<Secret>,
    /// Where a token is kept when none is configured: read when the file exists, else made
    /// (256 bits from the system's CSPRNG) and written there, readable by its owner only. Unset
    /// outside the add-on (no token: the loopback default); the add-on keeps it in
    /// `/data/api-token`, so its port, open to the Supervisor's network, is closed by default.
    pub token_file: Option<std::path::PathBuf>,
    /// Request bodies above this size get 413.
    pub max_body_bytes: usize,
    /// How long an `Idempotency-Key` answer is kept.
    pub idempotency_ttl_secs: u64,
    /// How many `Idempotency-Key` answers are kept at most.
    pub idempotency_capacity: usize,
    /// Failed auth attempts per client address before it is refused for a minute.
    pub auth_failures_before_lockout: u32,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8099".into(),
            token: None,
            token_file: None,
            max_body_bytes: 64 * 1024,
            idempotency_ttl_secs: 24 * 3600,
            idempotency_capacity: 10_000,
            auth_failures_before_lockout: 10,
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MqttConfig {
    /// `true`/`false`; unset means on when a broker is configured (or offered by the
    /// Supervisor in the add-on).
    pub enabled: Option<bool>,
    pub host: Option<String>,
    pub port: u16,
    pub username: Option<String>,
    pub password: Option<Secret>,
    pub tls: bool,
    /// A PEM file of CA certificates trusted for the broker besides the public ones (a broker
    /// with a certificate of the household's own CA); only with `tls`.
    pub ca_file: Option<std::path::PathBuf>,
    pub client_id: String,
    pub command_topic: String,
    pub reply_topic: String,
    pub status_topic: String,
    /// Publish Home Assistant discovery configs (a `text` to type commands, a `sensor` with the
    /// last reply).
    pub discovery: bool,
    pub discovery_prefix: String,
    /// Node id in discovery topics and unique ids.
    pub node_id: String,
    /// Include the trace in replies (it can be long).
    pub include_trace: bool,
    pub max_payload_bytes: usize,
}

impl Default for MqttConfig {
    fn default() -> Self {
        Self {
            enabled: None,
            host: None,
            port: 1883,
            username: None,
            password: None,
            tls: false,
            ca_file: None,
            client_id: "homeclaw".into(),
            command_topic: "homeclaw/command".into(),
            reply_topic: "homeclaw/reply".into(),
            status_topic: "homeclaw/status".into(),
            discovery: true,
            discovery_prefix: "homeassistant".into(),
            node_id: "homeclaw".into(),
            include_trace: false,
            max_payload_bytes: 16 * 1024,
        }
    }
}

impl MqttConfig {
    pub fn active(&self) -> bool {
        self.enabled.unwrap_or(self.host.is_some()) && self.host.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionConfig {
    /// Where session files live (`/data/sessions` in the add-on).
    pub dir: std::path::PathBuf,
    /// Commands that may wait per session while one runs.
    pub queue_capacity: usize,
    /// A worker with nothing to do for this long exits (its session stays on disk).
    pub idle_timeout_secs: u64,
    /// Longest user message accepted, in characters.
    pub max_message_chars: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            dir: "sessions".into(),
            queue_capacity: 8,
            idle_timeout_secs: 600,
            max_message_chars: 20_000,
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// A `tracing` filter: a level (`info`) or directives (`homeclaw=debug,warn`).
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            level: "info".into(),
        }
    }
}

/// A level, or comma-separated `target=level` directives with targets made of
/// `[a-z0-9_:]`. Stricter than `EnvFilter`, which accepts almost any word as a target.
pub(super) fn valid_log_filter(filter: &str) -> bool {
    const LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];
    !filter.trim().is_empty()
        && filter.split(',').all(|directive| {
            let directive = directive.trim();
            match directive.split_once('=') {
                None => LEVELS.contains(&directive.to_ascii_lowercase().as_str()),
                Some((target, level)) => {
                    !target.is_empty()
                        && target
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                        && LEVELS.contains(&level.to_ascii_lowercase().as_str())
                }
            }
        })
}

fn check_listen(key: &'static str, value: &str, example: &str) -> Result<(), ConfigError> {
    match value.parse::<SocketAddr>() {
        Ok(_) => Ok(()),
        Err(_) => Err(invalid(
            key,
            value,
            format!("an address and port such as {example}"),
        )),
    }
}

impl ApiConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        check_listen("api.listen", &self.listen, "127.0.0.1:8099")?;
        if !(1024..=16 * 1024 * 1024).contains(&self.max_body_bytes) {
            return Err(invalid(
                "api.max_body_bytes",
                self.max_body_bytes.to_string(),
                "1024 to 16777216 bytes",
            ));
        }
        if self.token.as_ref().is_some_and(|t| t.expose().len() < 16) {
            return Err(invalid(
                "api.token",
                "***",
                "at least 16 characters (or no token at all)",
            ));
        }
        Ok(())
    }
}

impl WyomingConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        check_listen("wyoming.listen", &self.listen, "127.0.0.1:10700")
    }
}

impl SessionConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=1000).contains(&self.queue_capacity) {
            return Err(invalid(
                "session.queue_capacity",
                self.queue_capacity.to_string(),
                "1 to 1000",
            ));
        }
        if self.idle_timeout_secs == 0 {
            return Err(invalid(
                "session.idle_timeout_secs",
                "0",
                "at least 1 second",
            ));
        }
        Ok(())
    }
}

impl MqttConfig {
    /// Topics are used as given, so a wildcard or an empty level would subscribe or publish
    /// somewhere else than the user meant.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if let Some(host) = &self.host
            && (host.trim().is_empty() || host.contains(char::is_whitespace))
        {
            return Err(invalid(
                "mqtt.host",
                host.as_str(),
                "a host name or address",
            ));
        }
        if self.port == 0 {
            return Err(invalid("mqtt.port", "0", "1 to 65535"));
        }
        if let Some(ca) = &self.ca_file
            && !self.tls
        {
            return Err(invalid(
                "mqtt.ca_file",
                ca.display().to_string(),
                "only with mqtt.tls: true (the CA checks the broker's TLS certificate)",
            ));
        }
        if self.client_id.is_empty() || self.client_id.len() > 128 {
            return Err(invalid(
                "mqtt.client_id",
                self.client_id.as_str(),
                "1 to 128 characters",
            ));
        }
        let topics: [(&'static str, &str); 4] = [
            ("mqtt.command_topic", &self.command_topic),
            ("mqtt.reply_topic", &self.reply_topic),
            ("mqtt.status_topic", &self.status_topic),
            ("mqtt.discovery_prefix", &self.discovery_prefix),
        ];
        for (key, topic) in topics {
            if topic.is_empty()
                || topic.contains(['+', '#', '\0'])
                || topic.split('/').any(str::is_empty)
            {
                return Err(invalid(
                    key,
                    topic,
                    "a topic without wildcards (+, #) or empty levels, e.g. homeclaw/command",
                ));
            }
        }
        let distinct = [&self.command_topic, &self.reply_topic, &self.status_topic];
        if distinct[0] == distinct[1] || distinct[0] == distinct[2] || distinct[1] == distinct[2] {
            return Err(invalid(
                "mqtt.reply_topic",
                self.reply_topic.as_str(),
                "command, reply and status topics that differ from each other",
            ));
        }
        if self.node_id.is_empty()
            || !self
                .node_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(invalid(
                "mqtt.node_id",
                self.node_id.as_str(),
                "letters, digits, '_' or '-' (it is part of discovery topics)",
            ));
        }
        if !(256..=1024 * 1024).contains(&self.max_payload_bytes) {
            return Err(invalid(
                "mqtt.max_payload_bytes",
                self.max_payload_bytes.to_string(),
                "256 to 1048576 bytes",
            ));
        }
        Ok(())
    }
}

impl LogConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if valid_log_filter(&self.level) {
            return Ok(());
        }
        Err(invalid(
            "log.level",
            self.level.as_str(),
            "error, warn, info, debug, trace, or tracing directives such as homeclaw=debug,warn",
        ))
    }
}
