//! Layered configuration: built-in defaults < config file (`--config`) < the add-on's
//! `/data/options.json` < `HOMECLAW_*` environment variables.
//!
//! Invariants:
//! - Loading never reads the process environment itself; callers pass the variables in, so tests
//!   never mutate global state and the add-on detection (`SUPERVISOR_TOKEN`) is testable.
//! - Every value is validated before anything starts; an error names the key, the offending value
//!   and what is allowed.
//! - Unknown keys are errors: a typo in a setting must not silently fall back to a default.
//! - Secrets are [`Secret`]s from the moment they are read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use config::{Environment, File, FileFormat};
use serde::Deserialize;

use crate::agent::AgentConfig;
use crate::ha::exposure::validate_glob;
use crate::secret::Secret;
use crate::session::manager::SessionConfig;

/// Where the Supervisor mounts the add-on's options.
pub const DEFAULT_OPTIONS_PATH: &str = "/data/options.json";
/// Home Assistant as seen from inside an add-on container.
pub const SUPERVISOR_WS_URL: &str = "ws://supervisor/core/websocket";
/// Where sessions live inside the add-on (persistent across restarts and updates).
pub const ADDON_SESSION_DIR: &str = "/data/sessions";
const ENV_PREFIX: &str = "HOMECLAW";
/// Variables with the prefix that select sources rather than set values.
const ENV_META: [&str; 2] = ["HOMECLAW_CONFIG", "HOMECLAW_OPTIONS_PATH"];

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A source could not be read or parsed, or a value has the wrong type. Not retryable.
    #[error("configuration: {0}")]
    Load(String),
    /// A value parsed but is not allowed. Not retryable.
    #[error("configuration: {key} = {value:?} is not allowed: {allowed}")]
    Invalid {
        key: &'static str,
        value: String,
        allowed: String,
    },
    /// A file named explicitly does not exist or cannot be read. Not retryable.
    #[error("configuration: cannot read {what} {path}: {reason}")]
    Unreadable {
        what: &'static str,
        path: PathBuf,
        reason: String,
    },
}

/// Where configuration comes from; the environment is passed in, never read here.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    pub file: Option<PathBuf>,
    /// `None` means the default add-on path, which may be absent.
    pub options_json: Option<PathBuf>,
    pub env: HashMap<String, String>,
}

impl Sources {
    /// Sources as the binary sees them: explicit paths plus the process environment.
    pub fn from_process(file: Option<PathBuf>, options_json: Option<PathBuf>) -> Self {
        let env: HashMap<String, String> = std::env::vars().collect();
        let file = file.or_else(|| env.get("HOMECLAW_CONFIG").map(PathBuf::from));
        let options_json =
            options_json.or_else(|| env.get("HOMECLAW_OPTIONS_PATH").map(PathBuf::from));
        Self {
            file,
            options_json,
            env,
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub ha: HaConfig,
    #[serde(default)]
    pub exposure: ExposureConfig,
    #[serde(default)]
    pub llm: LlmConfig,
    #[serde(default)]
    pub agent: AgentConfig,
    #[serde(default)]
    pub session: SessionConfig,
    #[serde(default)]
    pub api: ApiConfig,
    #[serde(default)]
    pub mqtt: crate::mqtt::MqttConfig,
    #[serde(default)]
    pub wyoming: WyomingConfig,
    #[serde(default)]
    pub log: LogConfig,
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct WyomingConfig {
    /// Offer the Wyoming handle service (Home Assistant's Wyoming integration).
    pub enabled: bool,
    /// Loopback unless configured (`0.0.0.0:10700` in the add-on).
    pub listen: String,
    /// Languages announced to Home Assistant.
    pub languages: Vec<String>,
}

impl Default for WyomingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            listen: "127.0.0.1:10700".into(),
            languages: vec!["en".into(), "pl".into(), "de".into()],
        }
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
            max_body_bytes: 64 * 1024,
            idempotency_ttl_secs: 24 * 3600,
            idempotency_capacity: 10_000,
            auth_failures_before_lockout: 10,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible Chat Completions (OpenAI, Groq, Ollama, llama.cpp, vLLM, OpenRouter).
    Openai,
    Anthropic,
    Gemini,
}

impl serde::Serialize for Provider {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        })
    }
}

impl<'de> Deserialize<'de> for Provider {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Self::Openai),
            "anthropic" => Ok(Self::Anthropic),
            "gemini" => Ok(Self::Gemini),
            _ => Err(serde::de::Error::custom(format!(
                "provider {name:?} is not allowed: use openai (any OpenAI-compatible server), \
                 anthropic or gemini"
            ))),
        }
    }
}

impl Provider {
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Openai => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
            Self::Gemini => "https://generativelanguage.googleapis.com",
        }
    }
}

/// One model of the chain; the first configured model is the primary, the rest are fallbacks
/// in order.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Label in logs and results; defaults to `model`.
    #[serde(default)]
    pub name: Option<String>,
    pub provider: Provider,
    /// Defaults to the provider's public endpoint.
    #[serde(default)]
    pub base_url: Option<String>,
    pub model: String,
    #[serde(default)]
    pub api_key: Option<Secret>,
    /// Use the provider's structured tool calls; `false` switches to the validated text fallback.
    #[serde(default = "yes")]
    pub native_tools: bool,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Send at most this many tools: the core ones plus the best matches for the command.
    #[serde(default)]
    pub max_tools: Option<usize>,
    /// One-line tool descriptions that restate the required parameters (for weak models).
    #[serde(default)]
    pub short_descriptions: bool,
}

fn yes() -> bool {
    true
}

impl ModelConfig {
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.model)
    }

    pub fn base_url(&self) -> &str {
        self.base_url
            .as_deref()
            .unwrap_or(self.provider.default_base_url())
            .trim_end_matches('/')
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    pub models: Vec<ModelConfig>,
    /// Attempts per model (retryable failures only).
    pub max_attempts: u32,
    pub initial_backoff_ms: u64,
    pub max_backoff_ms: u64,
    /// A `Retry-After` longer than this moves on to the next model instead of waiting.
    pub max_retry_after_ms: u64,
    pub connect_timeout_ms: u64,
    pub request_timeout_ms: u64,
    /// Longest silence between two chunks of a streamed reply.
    pub stream_idle_timeout_ms: u64,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            models: Vec::new(),
            max_attempts: 8,
            initial_backoff_ms: 500,
            max_backoff_ms: 30_000,
            max_retry_after_ms: 60_000,
            connect_timeout_ms: 10_000,
            request_timeout_ms: 120_000,
            stream_idle_timeout_ms: 30_000,
        }
    }
}

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
    /// Added to the built-in deny list ([`crate::ha::exposure::BUILTIN_SERVICE_DENY`]).
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

/// Keys whose environment value is a comma-separated list.
const LIST_KEYS: [&str; 5] = [
    "exposure.entity_allow",
    "exposure.entity_deny",
    "exposure.service_allow",
    "exposure.service_deny",
    "exposure.service_allow_dangerous",
];

impl Config {
    pub fn load(sources: &Sources) -> Result<Self, ConfigError> {
        let mut builder = config::Config::builder();
        // Add-on mode: Home Assistant is reached through the Supervisor proxy with its token,
        // and sessions live under /data, unless the user configured something else (later
        // layers override these defaults).
        if let Some(token) = sources
            .env
            .get("SUPERVISOR_TOKEN")
            .filter(|t| !t.is_empty())
        {
            builder = builder
                .set_default("ha.url", SUPERVISOR_WS_URL)
                .and_then(|b| b.set_default("ha.token", token.as_str()))
                .and_then(|b| b.set_default("session.dir", ADDON_SESSION_DIR))
                .map_err(|e| ConfigError::Load(e.to_string()))?;
        }
        if let Some(path) = &sources.file {
            let format = match path.extension().and_then(|e| e.to_str()) {
                Some("json") => FileFormat::Json,
                Some("toml") => FileFormat::Toml,
                Some("yaml" | "yml") => FileFormat::Yaml,
                _ => {
                    return Err(ConfigError::Invalid {
                        key: "--config",
                        value: path.display().to_string(),
                        allowed: "a .yaml, .yml, .toml or .json file".into(),
                    });
                }
            };
            let text = read_file("config file", path)?;
            builder = builder.add_source(File::from_str(&text, format));
        }
        let options_path = sources
            .options_json
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_OPTIONS_PATH));
        if sources.options_json.is_some() || options_path.exists() {
            let text = read_file("add-on options", &options_path)?;
            // Checked here so that the error names the file (the merged build would not).
            if let Err(e) =
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
            {
                return Err(ConfigError::Load(format!(
                    "add-on options {} are not a JSON object: {e}",
                    options_path.display()
                )));
            }
            builder = builder.add_source(File::from_str(&text, FileFormat::Json));
        }
        let env: HashMap<String, String> = sources
            .env
            .iter()
            .filter(|(k, _)| k.starts_with(ENV_PREFIX) && !ENV_META.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut env_source = Environment::with_prefix(ENV_PREFIX)
            .prefix_separator("_")
            .separator("__")
            .list_separator(",")
            .try_parsing(true)
            .source(Some(env));
        for key in LIST_KEYS {
            env_source = env_source.with_list_parse_key(key);
        }
        let merged = builder
            .add_source(env_source)
            .build()
            .map_err(|e| ConfigError::Load(e.to_string()))?;
        let mut cfg: Config = merged
            .try_deserialize()
            .map_err(|e| ConfigError::Load(e.to_string()))?;
        cfg.resolve_token_file()?;
        cfg.validate()?;
        Ok(cfg)
    }

    fn resolve_token_file(&mut self) -> Result<(), ConfigError> {
        if self.ha.token.is_none()
            && let Some(path) = &self.ha.token_file
        {
            self.ha.token = Some(Secret::new(read_file("token file", path)?.trim()));
        }
        Ok(())
    }

    /// Checks every value; the first failure names the key, the value and what is allowed.
    pub fn validate(&mut self) -> Result<(), ConfigError> {
        self.ha.url = normalise_ws_url(&self.ha.url)?;
        let ha = &self.ha;
        let ms_ranges: [(&'static str, u64, u64, u64); 6] = [
            ("ha.connect_timeout_ms", ha.connect_timeout_ms, 100, 300_000),
            ("ha.request_timeout_ms", ha.request_timeout_ms, 100, 600_000),
            (
                "ha.heartbeat_interval_ms",
                ha.heartbeat_interval_ms,
                100,
                3_600_000,
            ),
            (
                "ha.heartbeat_timeout_ms",
                ha.heartbeat_timeout_ms,
                100,
                600_000,
            ),
            (
                "ha.reconnect_initial_ms",
                ha.reconnect_initial_ms,
                10,
                600_000,
            ),
            ("ha.reconnect_max_ms", ha.reconnect_max_ms, 10, 3_600_000),
        ];
        check_ranges(&ms_ranges)?;
        if ha.reconnect_max_ms < ha.reconnect_initial_ms {
            return Err(ConfigError::Invalid {
                key: "ha.reconnect_max_ms",
                value: ha.reconnect_max_ms.to_string(),
                allowed: format!(
                    "at least ha.reconnect_initial_ms ({})",
                    ha.reconnect_initial_ms
                ),
            });
        }
        if ha.token.as_ref().is_some_and(Secret::is_empty) {
            return Err(ConfigError::Invalid {
                key: "ha.token",
                value: String::new(),
                allowed: "a long-lived access token (Profile > Security in Home Assistant)".into(),
            });
        }
        self.validate_llm()?;
        self.validate_agent()?;
        let exposure = &self.exposure;
        let glob_lists: [(&'static str, &Vec<String>); 5] = [
            ("exposure.entity_allow", &exposure.entity_allow),
            ("exposure.entity_deny", &exposure.entity_deny),
            ("exposure.service_allow", &exposure.service_allow),
            ("exposure.service_deny", &exposure.service_deny),
            (
                "exposure.service_allow_dangerous",
                &exposure.service_allow_dangerous,
            ),
        ];
        for (key, globs) in glob_lists {
            for glob in globs {
                validate_glob(glob).map_err(|allowed| ConfigError::Invalid {
                    key,
                    value: glob.clone(),
                    allowed,
                })?;
            }
        }
        if !valid_log_filter(&self.log.level) {
            return Err(ConfigError::Invalid {
                key: "log.level",
                value: self.log.level.clone(),
                allowed: "error, warn, info, debug, trace, or tracing directives such as \
                          homeclaw=debug,warn"
                    .into(),
            });
        }
        Ok(())
    }

    fn validate_agent(&self) -> Result<(), ConfigError> {
        let agent = &self.agent;
        let invalid = |key: &'static str, value: String, allowed: &str| ConfigError::Invalid {
            key,
            value,
            allowed: allowed.to_owned(),
        };
        if !(1..=50).contains(&agent.max_iterations) {
            return Err(invalid(
                "agent.max_iterations",
                agent.max_iterations.to_string(),
                "1 to 50",
            ));
        }
        if !(1_000..=10_000_000).contains(&agent.context_window_tokens) {
            return Err(invalid(
                "agent.context_window_tokens",
                agent.context_window_tokens.to_string(),
                "1000 to 10000000 tokens",
            ));
        }
        let loops = &agent.loop_detection;
        if !(loops.warning_threshold < loops.critical_threshold
            && loops.critical_threshold < loops.global_circuit_breaker_threshold)
        {
            return Err(invalid(
                "agent.loop_detection",
                format!(
                    "warningThreshold {} / criticalThreshold {} / globalCircuitBreakerThreshold {}",
                    loops.warning_threshold,
                    loops.critical_threshold,
                    loops.global_circuit_breaker_threshold
                ),
                "warningThreshold < criticalThreshold < globalCircuitBreakerThreshold",
            ));
        }
        if loops.history_size == 0 || loops.warning_threshold == 0 {
            return Err(invalid(
                "agent.loop_detection.historySize",
                loops.history_size.to_string(),
                "at least 1, with warningThreshold at least 1",
            ));
        }
        for rule in &agent.approval.high_risk {
            crate::agent::approval::HighRiskRule::parse(rule)
                .map_err(|allowed| invalid("agent.approval.high_risk", rule.clone(), &allowed))?;
        }
        if self.api.listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid(
                "api.listen",
                self.api.listen.clone(),
                "an address and port such as 127.0.0.1:8099",
            ));
        }
        if self.wyoming.listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid(
                "wyoming.listen",
                self.wyoming.listen.clone(),
                "an address and port such as 127.0.0.1:10700",
            ));
        }
        if !(1024..=16 * 1024 * 1024).contains(&self.api.max_body_bytes) {
            return Err(invalid(
                "api.max_body_bytes",
                self.api.max_body_bytes.to_string(),
                "1024 to 16777216 bytes",
            ));
        }
        if self
            .api
            .token
            .as_ref()
            .is_some_and(|t| t.expose().len() < 16)
        {
            return Err(invalid(
                "api.token",
                "***".into(),
                "at least 16 characters (or no token at all)",
            ));
        }
        if !(1..=1000).contains(&self.session.queue_capacity) {
            return Err(invalid(
                "session.queue_capacity",
                self.session.queue_capacity.to_string(),
                "1 to 1000",
            ));
        }
        if self.session.idle_timeout_secs == 0 {
            return Err(invalid(
                "session.idle_timeout_secs",
                "0".into(),
                "at least 1 second",
            ));
        }
        let t = &agent.truncation;
        if !(t.result_share > 0.0 && t.result_share <= 1.0) {
            return Err(invalid(
                "agent.truncation.result_share",
                t.result_share.to_string(),
                "a share above 0 and at most 1",
            ));
        }
        if t.result_min_chars > t.result_hard_max_chars || t.result_min_chars < 2_000 {
            return Err(invalid(
                "agent.truncation.result_min_chars",
                t.result_min_chars.to_string(),
                "at least 2000 and at most result_hard_max_chars",
            ));
        }
        Ok(())
    }

    fn validate_llm(&self) -> Result<(), ConfigError> {
        let llm = &self.llm;
        if !(1..=20).contains(&llm.max_attempts) {
            return Err(ConfigError::Invalid {
                key: "llm.max_attempts",
                value: llm.max_attempts.to_string(),
                allowed: "1 to 20".into(),
            });
        }
        let ms_ranges: [(&'static str, u64, u64, u64); 6] = [
            ("llm.initial_backoff_ms", llm.initial_backoff_ms, 1, 600_000),
            ("llm.max_backoff_ms", llm.max_backoff_ms, 1, 3_600_000),
            (
                "llm.max_retry_after_ms",
                llm.max_retry_after_ms,
                0,
                3_600_000,
            ),
            (
                "llm.connect_timeout_ms",
                llm.connect_timeout_ms,
                100,
                600_000,
            ),
            (
                "llm.request_timeout_ms",
                llm.request_timeout_ms,
                100,
                3_600_000,
            ),
            (
                "llm.stream_idle_timeout_ms",
                llm.stream_idle_timeout_ms,
                100,
                3_600_000,
            ),
        ];
        check_ranges(&ms_ranges)?;
        for model in &llm.models {
            if model.model.trim().is_empty() {
                return Err(ConfigError::Invalid {
                    key: "llm.models[].model",
                    value: String::new(),
                    allowed: "the provider's model id, e.g. gpt-4o-mini".into(),
                });
            }
            let url = model.base_url();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConfigError::Invalid {
                    key: "llm.models[].base_url",
                    value: url.to_owned(),
                    allowed: "an http:// or https:// URL".into(),
                });
            }
            if let Some(t) = model.temperature
                && !(0.0..=2.0).contains(&t)
            {
                return Err(ConfigError::Invalid {
                    key: "llm.models[].temperature",
                    value: t.to_string(),
                    allowed: "0.0 to 2.0".into(),
                });
            }
        }
        Ok(())
    }

    /// Every secret value, for redaction in traces and logs.
    pub fn secrets(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .ha
            .token
            .iter()
            .map(|t| t.expose().to_owned())
            .collect();
        out.extend(self.api.token.iter().map(|t| t.expose().to_owned()));
        out.extend(self.mqtt.password.iter().map(|t| t.expose().to_owned()));
        out.extend(
            self.llm
                .models
                .iter()
                .filter_map(|m| m.api_key.as_ref())
                .map(|k| k.expose().to_owned()),
        );
        out.retain(|s| !s.is_empty());
        out
    }

    /// The token, or an error that says every way to provide one.
    pub fn ha_token(&self) -> Result<&Secret, ConfigError> {
        self.ha.token.as_ref().ok_or_else(|| ConfigError::Invalid {
            key: "ha.token",
            value: String::new(),
            allowed: "a long-lived access token: set ha.token or ha.token_file in the config \
                      file, or HOMECLAW_HA__TOKEN (the add-on uses SUPERVISOR_TOKEN)"
                .into(),
        })
    }
}

fn check_ranges(ranges: &[(&'static str, u64, u64, u64)]) -> Result<(), ConfigError> {
    for &(key, value, min, max) in ranges {
        if !(min..=max).contains(&value) {
            return Err(ConfigError::Invalid {
                key,
                value: value.to_string(),
                allowed: format!("milliseconds from {min} to {max}"),
            });
        }
    }
    Ok(())
}

/// A level, or comma-separated `target=level` directives with targets made of
/// `[a-z0-9_:]`. Stricter than `EnvFilter`, which accepts almost any word as a target.
fn valid_log_filter(filter: &str) -> bool {
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

fn read_file(what: &'static str, path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError::Unreadable {
        what,
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

/// Accepts `ws(s)://…` as given and turns an `http(s)://host:port` base into its websocket URL.
fn normalise_ws_url(raw: &str) -> Result<String, ConfigError> {
    let url = raw.trim();
    let invalid = |why: &str| ConfigError::Invalid {
        key: "ha.url",
        value: raw.to_owned(),
        allowed: format!(
            "{why}: ws://host:8123/api/websocket, wss://…, or an http(s)://host:8123 base URL"
        ),
    };
    let (scheme, rest) = url.split_once("://").ok_or_else(|| invalid("no scheme"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(invalid("no host"));
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
        _ => Err(invalid("unsupported scheme")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::io::Write;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn write(dir: &tempfile::TempDir, name: &str, body: &str) -> PathBuf {
        let path = dir.path().join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(body.as_bytes()).unwrap();
        path
    }

    fn no_options(dir: &tempfile::TempDir) -> Option<PathBuf> {
        // Point at an absent file explicitly only when a test wants the error; otherwise use a
        // real empty options file so that /data/options.json on the host never leaks in.
        Some(write(dir, "options.json", "{}"))
    }

    #[test]
    fn defaults_are_loopback_and_deny_nothing_extra() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::load(&Sources {
            options_json: no_options(&dir),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(cfg.ha.url, "ws://127.0.0.1:8123/api/websocket");
        assert!(cfg.ha.token.is_none());
        assert!(cfg.exposure.respect_assist);
        assert_eq!(cfg.exposure.entity_allow, vec!["*".to_string()]);
    }

    #[test]
    fn layers_apply_in_order_file_then_options_then_env() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(
            &dir,
            "homeclaw.yaml",
            "ha:\n  url: ws://file:8123/api/websocket\n  request_timeout_ms: 1111\n  \
             connect_timeout_ms: 2222\nlog:\n  level: debug\n",
        );
        let options = write(
            &dir,
            "options.json",
            r#"{"ha": {"request_timeout_ms": 3333, "heartbeat_timeout_ms": 4444}}"#,
        );
        let cfg = Config::load(&Sources {
            file: Some(file),
            options_json: Some(options),
            env: env(&[
                ("HOMECLAW_HA__HEARTBEAT_TIMEOUT_MS", "5555"),
                (
                    "HOMECLAW_EXPOSURE__ENTITY_DENY",
                    "lock.*,alarm_control_panel.*",
                ),
                ("UNRELATED", "x"),
            ]),
        })
        .unwrap();
        assert_eq!(cfg.ha.url, "ws://file:8123/api/websocket");
        assert_eq!(cfg.ha.connect_timeout_ms, 2222);
        assert_eq!(cfg.ha.request_timeout_ms, 3333);
        assert_eq!(cfg.ha.heartbeat_timeout_ms, 5555);
        assert_eq!(cfg.log.level, "debug");
        assert_eq!(
            cfg.exposure.entity_deny,
            vec!["lock.*".to_string(), "alarm_control_panel.*".to_string()]
        );
    }

    #[test]
    fn supervisor_token_selects_the_proxy_unless_the_user_set_a_url() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::load(&Sources {
            options_json: no_options(&dir),
            env: env(&[("SUPERVISOR_TOKEN", "sup-tok")]),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(cfg.ha.url, SUPERVISOR_WS_URL);
        assert_eq!(cfg.ha_token().unwrap().expose(), "sup-tok");
        assert_eq!(cfg.session.dir, PathBuf::from(ADDON_SESSION_DIR));

        let options = write(
            &dir,
            "options2.json",
            r#"{"ha": {"url": "http://ha.lan:8123", "token": "user-tok"}}"#,
        );
        let cfg = Config::load(&Sources {
            options_json: Some(options),
            env: env(&[("SUPERVISOR_TOKEN", "sup-tok")]),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(cfg.ha.url, "ws://ha.lan:8123/api/websocket");
        assert_eq!(cfg.ha_token().unwrap().expose(), "user-tok");
    }

    #[test]
    fn wrong_values_name_key_value_and_what_is_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                "HOMECLAW_HA__URL",
                "ftp://x",
                "ha.url = \"ftp://x\" is not allowed: unsupported scheme",
            ),
            (
                "HOMECLAW_HA__REQUEST_TIMEOUT_MS",
                "5",
                "ha.request_timeout_ms = \"5\" is not allowed: milliseconds from 100",
            ),
            (
                "HOMECLAW_LOG__LEVEL",
                "loud!!",
                "log.level = \"loud!!\" is not allowed",
            ),
            (
                "HOMECLAW_EXPOSURE__SERVICE_DENY",
                "light.turn on",
                "exposure.service_deny = \"light.turn on\" is not allowed",
            ),
        ];
        for (key, value, expected) in cases {
            let err = Config::load(&Sources {
                options_json: no_options(&dir),
                env: env(&[(key, value)]),
                ..Default::default()
            })
            .unwrap_err()
            .to_string();
            assert!(err.contains(expected), "{key}: got {err}");
        }
    }

    #[test]
    fn type_errors_and_unknown_keys_name_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let err = Config::load(&Sources {
            options_json: no_options(&dir),
            env: env(&[("HOMECLAW_HA__REQUEST_TIMEOUT_MS", "soon")]),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("request_timeout_ms"), "{err}");

        let options = write(&dir, "typo.json", r#"{"ha": {"tokn": "x"}}"#);
        let err = Config::load(&Sources {
            options_json: Some(options),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("tokn"), "{err}");
    }

    #[test]
    fn explicit_missing_files_are_errors_and_malformed_json_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let err = Config::load(&Sources {
            options_json: Some(dir.path().join("absent.json")),
            ..Default::default()
        })
        .unwrap_err();
        assert!(matches!(err, ConfigError::Unreadable { .. }), "{err}");

        let broken = write(&dir, "broken.json", "{\"ha\": ");
        let err = Config::load(&Sources {
            options_json: Some(broken),
            ..Default::default()
        })
        .unwrap_err();
        assert!(matches!(err, ConfigError::Load(_)), "{err}");
    }

    #[test]
    fn token_file_is_read_and_the_token_never_shows_in_debug() {
        let dir = tempfile::tempdir().unwrap();
        let token = write(&dir, "token", "very-secret-token\n");
        let cfg = Config::load(&Sources {
            options_json: no_options(&dir),
            env: env(&[("HOMECLAW_HA__TOKEN_FILE", token.to_str().unwrap())]),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(cfg.ha_token().unwrap().expose(), "very-secret-token");
        assert!(!format!("{cfg:?}").contains("very-secret-token"));
    }

    #[test]
    fn missing_token_error_says_how_to_set_one() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::load(&Sources {
            options_json: no_options(&dir),
            ..Default::default()
        })
        .unwrap();
        let err = cfg.ha_token().unwrap_err().to_string();
        assert!(err.contains("HOMECLAW_HA__TOKEN"), "{err}");
    }

    #[test]
    fn llm_models_load_from_a_file_with_defaults_and_hidden_keys() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(
            &dir,
            "models.yaml",
            "llm:\n  models:\n    - provider: openai\n      model: gpt-4o-mini\n      \
             api_key: sk-secret-value\n    - name: local\n      provider: openai\n      \
             base_url: http://127.0.0.1:8089/v1/\n      model: qwen\n      native_tools: false\n",
        );
        let cfg = Config::load(&Sources {
            file: Some(file),
            options_json: no_options(&dir),
            ..Default::default()
        })
        .unwrap();
        let models = &cfg.llm.models;
        assert_eq!(models[0].label(), "gpt-4o-mini");
        assert_eq!(models[0].base_url(), "https://api.openai.com/v1");
        assert!(models[0].native_tools);
        assert_eq!(models[1].label(), "local");
        assert_eq!(models[1].base_url(), "http://127.0.0.1:8089/v1");
        assert!(!models[1].native_tools);
        assert_eq!(cfg.llm.max_attempts, 8);
        assert!(!format!("{cfg:?}").contains("sk-secret-value"));

        let bad = write(
            &dir,
            "bad.yaml",
            "llm:\n  models:\n    - provider: mistral\n      model: x\n",
        );
        let err = Config::load(&Sources {
            file: Some(bad),
            options_json: no_options(&dir),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("mistral") && err.contains("openai"), "{err}");
    }

    #[test]
    fn log_filters_are_levels_or_target_directives() {
        assert!(valid_log_filter("info"));
        assert!(valid_log_filter("homeclaw=debug,warn"));
        assert!(valid_log_filter("homeclaw::ha=TRACE"));
        assert!(!valid_log_filter("loud!!"));
        assert!(!valid_log_filter("verbose"));
        assert!(!valid_log_filter("homeclaw=chatty"));
    }

    #[test]
    fn http_base_urls_become_websocket_urls() {
        assert_eq!(
            normalise_ws_url("https://ha.example:8123/").unwrap(),
            "wss://ha.example:8123/api/websocket"
        );
        assert_eq!(
            normalise_ws_url("http://10.0.0.2:8123/api/websocket").unwrap(),
            "ws://10.0.0.2:8123/api/websocket"
        );
        assert!(normalise_ws_url("ws:///api/websocket").is_err());
    }
}
