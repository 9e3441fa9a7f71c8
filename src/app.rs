//! Wiring: builds every part from the configuration, and shuts them down in order.
//!
//! Order matters at shutdown: stop taking requests, let session workers finish their runs and
//! flush, then close the Home Assistant connection.

use std::sync::Arc;
use std::time::Duration;

use crate::agent::act::approval::ApprovalStore;
use crate::agent::{Agent, LiveHome, ToolRegistry};
use crate::config::Config;
use crate::ha::{ClientSettings, ConnectionState, ExposurePolicy, HaClient, LiveRegistry};
use crate::llm::{ChatModel, LlmChain, Message, ToolChoice};
use crate::session::manager::{AgentDeps, SessionManager};
use crate::session::store::SessionStore;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),
}

pub struct App {
    pub cfg: Config,
    pub client: HaClient,
    pub home: Arc<LiveHome>,
    pub sessions: SessionManager,
    pub approvals: Arc<ApprovalStore>,
    pub model_names: Vec<String>,
    /// The model chain, for its health.
    pub model: Arc<dyn ChatModel>,
    /// The pipelines last seen letting Home Assistant answer before HomeClaw (by name), so the
    /// log says so once per change rather than on every read.
    prefer_local_seen: std::sync::Mutex<Option<Vec<String>>>,
}

impl App {
    /// Starts the Home Assistant connection and the registry, and prepares the agent. The LLM
    /// is not contacted until the first command.
    pub fn start(cfg: Config) -> Result<Self, AppError> {
        let model = LlmChain::from_config(&cfg.llm)?;
        Self::start_with_model(cfg, Arc::new(model))
    }

    /// As [`Self::start`], with any model (benchmarks and tests use scripted ones).
    pub fn start_with_model(cfg: Config, model: Arc<dyn ChatModel>) -> Result<Self, AppError> {
        let settings = ClientSettings::from_config(&cfg)?;
        let client = HaClient::spawn(settings);
        let registry =
            LiveRegistry::spawn(client.clone(), ExposurePolicy::new(cfg.exposure.clone()));
        let recogniser = &cfg.agent.ha_recogniser;
        let home = Arc::new(LiveHome::new(
            client.clone(),
            registry,
            recogniser
                .enabled
                .then(|| Duration::from_millis(recogniser.budget_ms)),
        ));
        if recogniser.enabled {
            // The household's language is loaded in Home Assistant before the first command,
            // so that its first sentence is recognised within the budget.
            let home = home.clone();
            tokio::spawn(async move {
                if home
                    .client
                    .wait_connected(Duration::from_secs(3600))
                    .await
                    .is_ok()
                    && let Ok(config) = home.client.get_config().await
                    && let Some(language) = config.language
                {
                    home.prepare(&language);
                }
            });
        }
        let approvals = Arc::new(ApprovalStore::new(Duration::from_secs(
            cfg.agent.approval.ttl_secs,
        )));
        let model_names = cfg
            .llm
            .models
            .iter()
            .map(|m| m.label().to_owned())
            .collect();
        let deps = AgentDeps {
            model: model.clone(),
            home: home.clone(),
            tools: ToolRegistry,
            cfg: cfg.agent.clone(),
            approvals: approvals.clone(),
            secrets: cfg.secrets(),
        };
        let store = SessionStore::new(
            cfg.session.dir.clone(),
            cfg.agent.truncation.persist_max_chars,
            cfg.session.max_message_chars.max(100_000),
        )
        .with_secrets(cfg.secrets());
        let sessions = SessionManager::new(deps, store, cfg.session.clone());
        Ok(Self {
            cfg,
            client,
            home,
            sessions,
            approvals,
            model_names,
            model,
            prefer_local_seen: std::sync::Mutex::new(None),
        })
    }

    /// The Assist pipelines whose agent is HomeClaw but that let Home Assistant answer the
    /// sentences it understands itself ("prefer handling commands locally"): those run without
    /// HomeClaw's approval, check or record. Read from Home Assistant each time (one request,
    /// at most `within`); `None` when it could not be read. A change is logged.
    pub async fn prefer_local_pipelines(&self, within: Duration) -> Option<Vec<String>> {
        // A request sent while Home Assistant is away would wait for it (and `/api/health`,
        // the watchdog's, with it): unknown until it is back.
        if !self.ha_state().is_connected() {
            return None;
        }
        let read = tokio::time::timeout(
            within,
            crate::ha::pipelines::homeclaw_preferring_local(&self.client),
        )
        .await;
        let names: Vec<String> = match read {
            Ok(Ok(pipelines)) => pipelines.into_iter().map(|p| p.name).collect(),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "Could not read the Assist pipelines");
                return None;
            }
            Err(_) => return None,
        };
        let mut seen = self
            .prefer_local_seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seen.as_ref() != Some(&names) {
            if names.is_empty() {
                tracing::info!("No Assist pipeline lets Home Assistant answer before HomeClaw");
            } else {
                tracing::warn!(
                    pipelines = ?names,
                    "These Assist pipelines prefer handling commands locally: Home Assistant \
                     runs the sentences it understands itself, without HomeClaw's approval, \
                     check or record. Untick \"Prefer handling commands locally\" in Settings > \
                     Voice assistants to let HomeClaw handle every command"
                );
            }
            *seen = Some(names.clone());
        }
        Some(names)
    }

    pub fn ha_state(&self) -> ConnectionState {
        self.client.current_state()
    }

    /// Whether the registry was filled from Home Assistant over the current connection.
    pub fn registry_ready(&self) -> bool {
        self.home.registry.is_current()
    }

    /// Waits (up to `timeout`) until Home Assistant is connected and the registry loaded:
    /// what a command needs. After a reconnect the registry already has a generation, so the
    /// connection is what is waited for.
    pub async fn wait_ready(&self, timeout: Duration) -> bool {
        let mut state = self.client.state();
        tokio::time::timeout(timeout, async {
            let _ = state.wait_for(ConnectionState::is_connected).await;
            self.home.registry.wait_current(timeout).await
        })
        .await
        .unwrap_or(false)
    }

    /// Once Home Assistant's registry is loaded, sends the models that warm up
    /// (`llm.models[].warm_up`) a request as an agent would build it for a command that names
    /// nothing: its fixed part (rules, home summary, tool catalogue) is every request's prefix,
    /// which a server's prompt cache then serves to the person's first command.
    pub async fn warm_up(&self) {
        if !self.wait_ready(Duration::from_secs(600)).await {
            return;
        }
        // Said in the log at start: which pipelines let Home Assistant answer first.
        let _ = self.prefer_local_pipelines(Duration::from_secs(10)).await;
        if !self.cfg.llm.models.iter().any(|m| m.warms_up()) {
            return;
        }
        let agent = Agent::new(
            self.model.as_ref(),
            self.home.as_ref(),
            &ToolRegistry,
            &self.cfg.agent,
            &self.approvals,
        );
        let request = agent.build_request(&[Message::user("hello")], ToolChoice::Auto);
        self.model.warm_up(&request).await;
    }

    pub async fn shutdown(&self) {
        self.sessions.shutdown().await;
        self.client.shutdown().await;
        let mut state = self.client.state();
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            state.wait_for(|s| matches!(s, ConnectionState::Stopped)),
        )
        .await;
    }
}
