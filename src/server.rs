//! One start-up and one shutdown for the whole service, used by `homeclaw serve` and the
//! benchmarks: the core ([`App`]), the command front door ([`Commands`]) and every transport
//! the configuration turns on — HTTP (always), Wyoming, MQTT, approval notifications.
//!
//! Shutdown order: stop taking requests on every transport, then let the core finish the runs
//! in flight and flush their sessions, then close the Home Assistant connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::api::ApiState;
use crate::api::auth::AuthLimiter;
use crate::app::App;
use crate::command::Commands;
use crate::command::activity::Activity;
use crate::command::idempotency::IdempotencyStore;
use crate::config::Config;
use crate::mqtt::MqttBridge;

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(
        "cannot listen on {listen} ({key}): {source}{}",
        listen_hint(key, source)
    )]
    Listen {
        key: &'static str,
        listen: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Mqtt(#[from] crate::mqtt::MqttError),
}

/// What to do about a port that is taken: the setting to change and, for what can be turned
/// off, the switch (a second HomeClaw on one machine needs other ports or fewer fronts).
fn listen_hint(key: &str, source: &std::io::Error) -> String {
    if source.kind() != std::io::ErrorKind::AddrInUse {
        return String::new();
    }
    let section = key.split('.').next().unwrap_or(key);
    let off = match section {
        "panel" | "wyoming" => format!(", or turn it off with {section}.enabled: false"),
        _ => String::new(),
    };
    format!(
        " — another program (or another HomeClaw) already listens there; set {key} to a free \
         address (port 0 picks one){off}"
    )
}

/// The running service.
pub struct Server {
    pub app: Arc<App>,
    pub commands: Arc<Commands>,
    pub http_addr: SocketAddr,
    pub wyoming_addr: Option<SocketAddr>,
    /// The panel's address (the add-on's ingress port), when the panel is on.
    pub panel_addr: Option<SocketAddr>,
    panel: Option<JoinHandle<std::io::Result<()>>>,
    stop: tokio::sync::watch::Sender<bool>,
    http: JoinHandle<std::io::Result<()>>,
    wyoming: Option<JoinHandle<()>>,
    bridge: Option<MqttBridge>,
    notifier: Option<JoinHandle<()>>,
    warm_up: JoinHandle<()>,
}

/// The idempotency journal lives beside the sessions (a leading dot keeps it out of the
/// session id space). If it cannot be opened the keys are kept in memory, and that is said.
fn open_idempotency(cfg: &Config) -> IdempotencyStore {
    let ttl = Duration::from_secs(cfg.api.idempotency_ttl_secs);
    let path = cfg.session.dir.join(".idempotency.jsonl");
    let _ = std::fs::create_dir_all(&cfg.session.dir);
    IdempotencyStore::open(&path, ttl, cfg.api.idempotency_capacity).unwrap_or_else(|e| {
        warn!(error = %e, "Idempotency keys are kept in memory only: a restart forgets them");
        IdempotencyStore::new(ttl, cfg.api.idempotency_capacity)
    })
}

/// A listener on `listen` (the setting `key` names, for the error) and the address it got.
async fn bind(
    key: &'static str,
    listen: &str,
) -> Result<(std::net::SocketAddr, tokio::net::TcpListener), ServerError> {
    tokio::net::TcpListener::bind(listen)
        .await
        .and_then(|l| Ok((l.local_addr()?, l)))
        .map_err(|source| ServerError::Listen {
            key,
            listen: listen.to_owned(),
            source,
        })
}

impl Server {
    /// Binds every configured transport and starts serving. `app.cfg.mqtt` is used as it is
    /// (the add-on fills in the Supervisor's broker before this).
    pub async fn start(app: App) -> Result<Self, ServerError> {
        let app = Arc::new(app);
        let cfg = &app.cfg;
        let listen = cfg.api.listen.clone();
        if cfg.api.token.is_none() && !listen.starts_with("127.") && !listen.starts_with("[::1]") {
            warn!(%listen, "The API listens beyond loopback without a token: set api.token");
        }
        let activity = Activity::open(&cfg.session.dir.join(".activity.jsonl"), cfg.secrets());
        let commands =
            Arc::new(Commands::new(app.clone(), open_idempotency(cfg)).with_activity(activity));
        let (http_addr, listener) = bind("api.listen", &listen).await?;
        let (wyoming_addr, wyoming) = if cfg.wyoming.enabled {
            let (addr, task) = crate::wyoming::start(
                &cfg.wyoming.listen,
                commands.clone(),
                cfg.wyoming.languages.clone(),
            )
            .await
            .map_err(|source| ServerError::Listen {
                key: "wyoming.listen",
                listen: cfg.wyoming.listen.clone(),
                source,
            })?;
            (Some(addr), Some(task))
        } else {
            (None, None)
        };
        let bridge = if cfg.mqtt.active() {
            MqttBridge::start(cfg.mqtt.clone(), commands.clone())?
        } else {
            None
        };
        let notifier = crate::notify::start(app.clone(), commands.clone());
        let warm_up = tokio::spawn({
            let app = app.clone();
            async move { app.warm_up().await }
        });
        let state = Arc::new(ApiState {
            commands: commands.clone(),
            api_port: http_addr.port(),
            limiter: AuthLimiter::new(
                cfg.api.auth_failures_before_lockout,
                Duration::from_secs(60),
            ),
        });
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let (panel_addr, panel) = if cfg.panel.enabled {
            let bound = bind("panel.listen", &cfg.panel.listen).await?;
            let mut stopped = stopped.clone();
            let task = tokio::spawn(crate::api::panel::serve(
                state.clone(),
                bound.1,
                async move {
                    let _ = stopped.wait_for(|s| *s).await;
                },
            ));
            (Some(bound.0), Some(task))
        } else {
            (None, None)
        };
        let mut http_stopped = stopped.clone();
        let http = tokio::spawn(crate::api::serve(state, listener, async move {
            let _ = http_stopped.wait_for(|s| *s).await;
        }));
        info!(%http_addr, ?wyoming_addr, ?panel_addr, models = ?app.model_names, "HomeClaw serving");
        Ok(Self {
            app,
            commands,
            http_addr,
            wyoming_addr,
            panel_addr,
            panel,
            stop,
            http,
            wyoming,
            bridge,
            notifier,
            warm_up,
        })
    }

    /// Stops taking requests, lets the runs in flight finish, and closes everything in order.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for (name, task) in
            std::iter::once(("HTTP API", self.http)).chain(self.panel.map(|p| ("panel", p)))
        {
            match task.await {
                Ok(Err(e)) => warn!(error = %e, "The {name} server ended with an error"),
                Err(e) => warn!(error = %e, "The {name} server task failed"),
                Ok(Ok(())) => {}
            }
        }
        info!("Stopped accepting requests; finishing runs in flight");
        if let Some(task) = self.wyoming {
            task.abort();
        }
        if let Some(task) = self.notifier {
            task.abort();
        }
        self.warm_up.abort();
        if let Some(bridge) = self.bridge {
            bridge.shutdown().await;
        }
        self.app.shutdown().await;
        // The activity of the last runs reaches the disk before the process ends.
        let commands = self.commands.clone();
        let _ = tokio::task::spawn_blocking(move || commands.activity().flush()).await;
        info!("Shut down cleanly");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_in_use_names_the_setting_and_the_way_out() {
        let taken = |key| ServerError::Listen {
            key,
            listen: "127.0.0.1:8100".into(),
            source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
        };
        let panel = taken("panel.listen").to_string();
        assert!(
            panel.contains("set panel.listen to a free address"),
            "{panel}"
        );
        assert!(panel.contains("panel.enabled: false"), "{panel}");
        let api = taken("api.listen").to_string();
        assert!(api.contains("set api.listen"), "{api}");
        assert!(!api.contains("enabled"), "{api}");
        let other = ServerError::Listen {
            key: "api.listen",
            listen: "10.9.9.9:1".into(),
            source: std::io::Error::from(std::io::ErrorKind::AddrNotAvailable),
        }
        .to_string();
        assert!(!other.contains("free address"), "{other}");
    }
}
