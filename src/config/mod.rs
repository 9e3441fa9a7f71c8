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
//! - This module imports no other part of HomeClaw but the leaves `secret` and `glob`: every
//!   part reads its own section from here, and each section is validated next to its type.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use config::{Environment, File, FileFormat};
use serde::Deserialize;

use crate::secret::Secret;

mod agent;
mod ha;
mod llm;
mod serve;
#[cfg(test)]
mod tests;

pub use agent::{
    AgentConfig, ApprovalConfig, CHARS_PER_TOKEN, Detectors, HighRiskRule, LoopDetectionConfig,
    PostCompactionGuard, TruncationConfig,
};
pub use ha::{ExposureConfig, HaConfig};
pub use llm::{LlmConfig, ModelConfig, Provider, StructuredOutput};
pub use serve::{
    ApiConfig, LogConfig, MqttConfig, PanelAuth, PanelConfig, SessionConfig, WyomingConfig,
};

/// Where the Supervisor mounts the add-on's options.
pub const DEFAULT_OPTIONS_PATH: &str = "/data/options.json";
/// Home Assistant as seen from inside an add-on container.
pub const SUPERVISOR_WS_URL: &str = "ws://supervisor/core/websocket";
/// The add-on's ingress port (config.yaml's `ingress_port`) on every interface of the
/// container, and the one address allowed to use it: the Supervisor's ingress proxy.
const ADDON_PANEL_LISTEN: &str = "0.0.0.0:8100";
const INGRESS_PROXY: &str = "172.30.32.2";
/// Where sessions live inside the add-on (persistent across restarts and updates).
pub const ADDON_SESSION_DIR: &str = "/data/sessions";
/// Where the add-on keeps the API token it made when the user set none (`/data` survives
/// restarts and updates, and is in the add-on's backup).
pub const ADDON_API_TOKEN_FILE: &str = "/data/api-token";
const ENV_PREFIX: &str = "HOMECLAW";
/// Variables with the prefix that select sources rather than set values (the last one is the
/// add-on run script's, which passes that file as `--config`).
const ENV_META: [&str; 3] = [
    "HOMECLAW_CONFIG",
    "HOMECLAW_OPTIONS_PATH",
    "HOMECLAW_APP_CONFIG",
];

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
    pub mqtt: MqttConfig,
    #[serde(default)]
    pub wyoming: WyomingConfig,
    #[serde(default)]
    pub panel: PanelConfig,
    #[serde(default)]
    pub log: LogConfig,
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
                // The API's port is open to every container on the Supervisor's network: it
                // answers only with a token, made on the first start when the user set none.
                .and_then(|b| b.set_default("api.token_file", ADDON_API_TOKEN_FILE))
                // The ingress port, reachable only from the Supervisor's ingress proxy, which
                // has checked the Home Assistant user.
                .and_then(|b| b.set_default("panel.enabled", true))
                .and_then(|b| b.set_default("panel.auth", "ingress"))
                .and_then(|b| b.set_default("panel.listen", ADDON_PANEL_LISTEN))
                .and_then(|b| b.set_default("panel.allowed_peers", vec![INGRESS_PROXY]))
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
        self.ha.validate()?;
        self.llm.validate()?;
        self.agent.validate()?;
        self.api.validate()?;
        self.wyoming.validate()?;
        self.panel.validate(self.api.token.is_some())?;
        self.session.validate()?;
        self.mqtt.validate()?;
        self.exposure.validate()?;
        self.log.validate()
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
            self.agent
                .approval
                .pin
                .iter()
                .map(|t| t.expose().to_owned()),
        );
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

/// A value that parsed but is not allowed.
fn invalid(key: &'static str, value: impl Into<String>, allowed: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key,
        value: value.into(),
        allowed: allowed.into(),
    }
}

fn check_ranges(ranges: &[(&'static str, u64, u64, u64)]) -> Result<(), ConfigError> {
    for &(key, value, min, max) in ranges {
        if !(min..=max).contains(&value) {
            return Err(invalid(
                key,
                value.to_string(),
                format!("milliseconds from {min} to {max}"),
            ));
        }
    }
    Ok(())
}

fn read_file(what: &'static str, path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError::Unreadable {
        what,
        path: path.to_owned(),
        reason: e.to_string(),
    })
}
