//! The model chain: which providers and models, in which order, and how patiently to retry.

use serde::Deserialize;

use super::{ConfigError, check_ranges, invalid};
use crate::secret::Secret;

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
    /// Ask for a streamed reply (OpenAI format with native tools): a provider that stalls is
    /// noticed after `llm.stream_idle_timeout_ms` of silence, not the whole request timeout.
    /// The reply is still used only when complete.
    #[serde(default)]
    pub stream: bool,
    /// Constrain a text model's reply to one JSON shape: a call of a listed tool on a real
    /// entity with a service its domain offers, or a final answer. `auto` asks for it and
    /// stops asking once the server rejects the parameter.
    #[serde(default)]
    pub structured_output: StructuredOutput,
    /// Send the fixed part of the prompt once when HomeClaw starts, so that a server with a
    /// prompt cache (llama.cpp's `cache_prompt`) has read it before the person's first command
    /// (about 11 s for Qwen2.5-1.5B on 2 cores). Unset: on for a text model (`native_tools:
    /// false`) of the OpenAI format, the local case; a hosted provider would bill it.
    #[serde(default)]
    pub warm_up: Option<bool>,
}

/// Whether to ask an OpenAI-compatible server (llama.cpp, Ollama, vLLM) to constrain a text
/// model's reply with `response_format` `json_schema`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// On for text models (`native_tools: false`) of the OpenAI format, until the server
    /// rejects it; off for the others.
    #[default]
    Auto,
    On,
    Off,
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

    /// Whether the prompt's fixed part is sent once at start (`warm_up`, see there).
    pub fn warms_up(&self) -> bool {
        self.warm_up
            .unwrap_or(!self.native_tools && self.provider == Provider::Openai)
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

impl LlmConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=20).contains(&self.max_attempts) {
            return Err(invalid(
                "llm.max_attempts",
                self.max_attempts.to_string(),
                "1 to 20",
            ));
        }
        check_ranges(&[
            (
                "llm.initial_backoff_ms",
                self.initial_backoff_ms,
                1,
                600_000,
            ),
            ("llm.max_backoff_ms", self.max_backoff_ms, 1, 3_600_000),
            (
                "llm.max_retry_after_ms",
                self.max_retry_after_ms,
                0,
                3_600_000,
            ),
            (
                "llm.connect_timeout_ms",
                self.connect_timeout_ms,
                100,
                600_000,
            ),
            (
                "llm.request_timeout_ms",
                self.request_timeout_ms,
                100,
                3_600_000,
            ),
            (
                "llm.stream_idle_timeout_ms",
                self.stream_idle_timeout_ms,
                100,
                3_600_000,
            ),
        ])?;
        self.models.iter().try_for_each(ModelConfig::validate)
    }
}

impl ModelConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.model.trim().is_empty() {
            return Err(invalid(
                "llm.models[].model",
                "",
                "the provider's model id, e.g. gpt-4o-mini",
            ));
        }
        let url = self.base_url();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(invalid(
                "llm.models[].base_url",
                url,
                "an http:// or https:// URL",
            ));
        }
        if let Some(t) = self.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(invalid(
                "llm.models[].temperature",
                t.to_string(),
                "0.0 to 2.0",
            ));
        }
        if self.structured_output == StructuredOutput::On
            && (self.native_tools || self.provider != Provider::Openai)
        {
            return Err(invalid(
                "llm.models[].structured_output",
                "on",
                "auto or off unless the model is `provider: openai` with `native_tools: false` \
                 (a native-tools model's calls are structured already)",
            ));
        }
        Ok(())
    }
}
