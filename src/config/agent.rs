//! How a run behaves: its budget of rounds and context, the loop guards (OpenClaw's
//! `tools.loopDetection` settings, under snake_case keys with the camelCase names accepted),
//! how tool results are cut, how long to wait for a state change, and which actions wait for
//! approval.

use serde::Deserialize;

use super::{ConfigError, invalid};
use crate::glob::validate_glob;
use crate::secret::Secret;

/// Characters per token for budgeting (a conservative average for JSON and English).
pub const CHARS_PER_TOKEN: usize = 4;

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    pub max_iterations: u32,
    /// Rounds of calls that taught the run nothing new (an error, a refusal, a repeat) after
    /// which it ends and HomeClaw says what was done and read; 0 leaves it to the loop guards
    /// and `max_iterations`. A small model that failed twice mostly repeats itself, at seconds
    /// a round on a small machine.
    pub max_stalled_rounds: u32,
    /// The model's effective context window, in tokens.
    pub context_window_tokens: usize,
    pub loop_detection: LoopDetectionConfig,
    pub truncation: TruncationConfig,
    /// How long to wait for the state change a service implies.
    pub verify_timeout_ms: u64,
    /// Run commands that resolve unambiguously (one intent, one target set) without the model.
    pub fast_path: bool,
    /// When the command asked for one action and the model's calls were verified, write the
    /// reply from the verification instead of asking the model again (one round trip).
    pub answer_from_verification: bool,
    /// List the entities the command's words point at (id, name, area, state, services) in the
    /// prompt, so the model picks instead of inventing.
    pub grounding: bool,
    /// A model's service call must act on something the person's words point at (its name,
    /// area or kind, en/pl/de; this command or the one before it): a small model held to real
    /// ids otherwise acts on a real but unrelated device for one the home does not have.
    pub named_targets: bool,
    /// Home Assistant's own sentence recogniser, asked after the fast path and before the
    /// model (`conversation/agent/homeassistant/debug`).
    pub ha_recogniser: RecogniserConfig,
    pub approval: ApprovalConfig,
}

/// How HomeClaw stands on Home Assistant's recogniser: what it understands (in every language
/// Home Assistant ships, with the household's aliases and custom sentences) never goes to the
/// model.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecogniserConfig {
    pub enabled: bool,
    /// How long a command waits for Home Assistant's recognition; a slower answer is treated as
    /// none (the command goes on as without it: the fast path's own reading stands, or the
    /// model is asked). Every command HomeClaw reads itself waits, so that Home Assistant's
    /// reading can be compared with its own (issue 47). On a 2-core machine a full match takes 5–90 ms and the closest partial match up
    /// to ~350 ms; what it saves is the model's 2–20 s. In a language HomeClaw has no lexicon
    /// for (where the recogniser is the only deterministic reader) it waits three times as long.
    pub budget_ms: u64,
    /// Hand what HomeClaw does not run itself (timers, broadcasts, the household's own
    /// sentences and sentence triggers) to Home Assistant's agent.
    pub hand_off: bool,
}

impl Default for RecogniserConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            budget_ms: 300,
            hand_off: true,
        }
    }
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_iterations: 8,
            max_stalled_rounds: 2,
            context_window_tokens: 100_000,
            loop_detection: LoopDetectionConfig::default(),
            truncation: TruncationConfig::default(),
            verify_timeout_ms: 3_000,
            fast_path: true,
            grounding: true,
            answer_from_verification: true,
            named_targets: true,
            ha_recogniser: RecogniserConfig::default(),
            approval: ApprovalConfig::default(),
        }
    }
}

impl AgentConfig {
    /// The parsed high-risk rules (invalid ones are rejected by config validation).
    pub fn high_risk_rules(&self) -> Vec<HighRiskRule> {
        self.approval
            .high_risk
            .iter()
            .filter_map(|r| HighRiskRule::parse(r).ok())
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopDetectionConfig {
    pub enabled: bool,
    #[serde(alias = "historySize")]
    pub history_size: usize,
    #[serde(alias = "warningThreshold")]
    pub warning_threshold: usize,
    #[serde(alias = "criticalThreshold")]
    pub critical_threshold: usize,
    #[serde(alias = "unknownToolThreshold")]
    pub unknown_tool_threshold: usize,
    #[serde(alias = "globalCircuitBreakerThreshold")]
    pub global_circuit_breaker_threshold: usize,
    pub detectors: Detectors,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Detectors {
    #[serde(alias = "genericRepeat")]
    pub generic_repeat: bool,
    #[serde(alias = "knownPollNoProgress")]
    pub known_poll_no_progress: bool,
    #[serde(alias = "pingPong")]
    pub ping_pong: bool,
    #[serde(alias = "postCompactionGuard")]
    pub post_compaction_guard: PostCompactionGuard,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PostCompactionGuard {
    pub enabled: bool,
    #[serde(alias = "windowSize")]
    pub window_size: usize,
}

impl Default for LoopDetectionConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            history_size: 30,
            warning_threshold: 10,
            critical_threshold: 20,
            // Well inside max_iterations: a model that keeps calling a tool that does not
            // exist is stopped after three tries, not after the whole budget.
            unknown_tool_threshold: 3,
            global_circuit_breaker_threshold: 30,
            detectors: Detectors::default(),
        }
    }
}

impl Default for Detectors {
    fn default() -> Self {
        Self {
            generic_repeat: true,
            known_poll_no_progress: true,
            ping_pong: true,
            post_compaction_guard: PostCompactionGuard::default(),
        }
    }
}

impl Default for PostCompactionGuard {
    fn default() -> Self {
        Self {
            enabled: true,
            window_size: 3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TruncationConfig {
    /// One result may take at most this share of the model's context window.
    pub result_share: f64,
    /// Never more than this many characters for one result, whatever the window.
    pub result_hard_max_chars: usize,
    /// Never cut a result below this many characters.
    pub result_min_chars: usize,
    /// Cap for a result when written to the session file.
    pub persist_max_chars: usize,
    /// All historical tool results together, in characters.
    pub history_budget_chars: usize,
}

impl Default for TruncationConfig {
    fn default() -> Self {
        Self {
            result_share: 0.30,
            result_hard_max_chars: 60_000,
            result_min_chars: 2_000,
            persist_max_chars: 20_000,
            history_budget_chars: 120_000,
        }
    }
}

impl TruncationConfig {
    /// The limit for one fresh result given the model's context window in tokens.
    pub fn result_limit(&self, context_tokens: usize) -> usize {
        let share = (context_tokens as f64 * self.result_share) as usize * CHARS_PER_TOKEN;
        share
            .min(self.result_hard_max_chars)
            .max(self.result_min_chars)
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApprovalConfig {
    /// `domain.service` globs, optionally `:device_class|device_class` to limit them to those
    /// device classes (e.g. `cover.open_cover:garage|door|gate`).
    pub high_risk: Vec<String>,
    /// How long an approval id stays valid.
    pub ttl_secs: u64,
    /// A held action may be approved or declined by answering in the same conversation ("yes,
    /// unlock it", "tak", "nein"): how voice users approve. Off unless turned on.
    pub confirm_in_conversation: bool,
    /// Digits (4 to 12) an approval in conversation must include ("yes, 4711"). Required where
    /// one session is shared by every satellite (Assist over Wyoming sends no conversation id).
    pub pin: Option<Secret>,
    /// A persistent notification in Home Assistant for each held action, dismissed when it is
    /// answered or expires.
    pub notify: bool,
    /// A `notify.*` service (e.g. `notify.mobile_app_phone`) that gets an actionable
    /// notification for each held action: its Approve and Deny buttons answer it.
    pub notify_service: Option<String>,
}

impl Default for ApprovalConfig {
    fn default() -> Self {
        Self {
            high_risk: vec![
                "lock.unlock".into(),
                "lock.open".into(),
                "alarm_control_panel.alarm_disarm".into(),
                "cover.open_cover:garage|door|gate".into(),
            ],
            ttl_secs: 600,
            confirm_in_conversation: false,
            pin: None,
            notify: true,
            notify_service: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighRiskRule {
    pub service_glob: String,
    pub device_classes: Vec<String>,
}

impl HighRiskRule {
    pub fn parse(text: &str) -> Result<Self, String> {
        let (glob, classes) = text.split_once(':').unwrap_or((text, ""));
        let glob = glob.trim().to_lowercase();
        validate_glob(&glob)?;
        if !glob.contains('.') {
            return Err("domain.service, e.g. lock.unlock".into());
        }
        Ok(Self {
            service_glob: glob,
            device_classes: classes
                .split('|')
                .map(|c| c.trim().to_lowercase())
                .filter(|c| !c.is_empty())
                .collect(),
        })
    }
}

impl AgentConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=50).contains(&self.max_iterations) {
            return Err(invalid(
                "agent.max_iterations",
                self.max_iterations.to_string(),
                "1 to 50",
            ));
        }
        if !(1_000..=10_000_000).contains(&self.context_window_tokens) {
            return Err(invalid(
                "agent.context_window_tokens",
                self.context_window_tokens.to_string(),
                "1000 to 10000000 tokens",
            ));
        }
        self.loop_detection.validate()?;
        if let Some(service) = &self.approval.notify_service {
            let object = service.strip_prefix("notify.").unwrap_or_default();
            if object.is_empty()
                || !object
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                return Err(invalid(
                    "agent.approval.notify_service",
                    service.as_str(),
                    "a notify service such as notify.mobile_app_phone",
                ));
            }
        }
        if let Some(pin) = &self.approval.pin {
            let pin = pin.expose();
            if !((4..=12).contains(&pin.len()) && pin.chars().all(|c| c.is_ascii_digit())) {
                // The value is a secret: the error names the rule, never the PIN.
                return Err(invalid("agent.approval.pin", "***", "4 to 12 digits"));
            }
        }
        for rule in &self.approval.high_risk {
            HighRiskRule::parse(rule)
                .map_err(|allowed| invalid("agent.approval.high_risk", rule.as_str(), allowed))?;
        }
        self.truncation.validate()
    }
}

impl LoopDetectionConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(self.warning_threshold < self.critical_threshold
            && self.critical_threshold < self.global_circuit_breaker_threshold)
        {
            return Err(invalid(
                "agent.loop_detection",
                format!(
                    "warning_threshold {} / critical_threshold {} / \
                     global_circuit_breaker_threshold {}",
                    self.warning_threshold,
                    self.critical_threshold,
                    self.global_circuit_breaker_threshold
                ),
                "warning_threshold < critical_threshold < global_circuit_breaker_threshold",
            ));
        }
        if self.history_size == 0 || self.warning_threshold == 0 {
            return Err(invalid(
                "agent.loop_detection.history_size",
                self.history_size.to_string(),
                "at least 1, with warning_threshold at least 1",
            ));
        }
        Ok(())
    }
}

impl TruncationConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(self.result_share > 0.0 && self.result_share <= 1.0) {
            return Err(invalid(
                "agent.truncation.result_share",
                self.result_share.to_string(),
                "a share above 0 and at most 1",
            ));
        }
        if self.result_min_chars > self.result_hard_max_chars || self.result_min_chars < 2_000 {
            return Err(invalid(
                "agent.truncation.result_min_chars",
                self.result_min_chars.to_string(),
                "at least 2000 and at most result_hard_max_chars",
            ));
        }
        Ok(())
    }
}
