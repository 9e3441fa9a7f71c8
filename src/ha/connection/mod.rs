//! The Home Assistant websocket connection: one actor task owns the socket; callers hold a cheap
//! [`HaClient`] handle that sends commands over a channel and gets answers on a oneshot.
//!
//! Invariants (each one is a bug we refuse to ship):
//! - Ids strictly increase for the life of the client, across reconnects (HA answers `id_reuse`
//!   otherwise).
//! - The reader never waits on a consumer: events go to a broadcast channel, and a slow
//!   subscriber lags (and resyncs) instead of stalling the socket. HA drops clients that fall
//!   more than 1024 messages behind.
//! - No caller waits forever: a request made while disconnected fails at once with
//!   [`HaError::NotConnected`]; one in flight when the socket drops fails with
//!   [`HaError::ConnectionLost`]; one HA never answers fails with [`HaError::Timeout`].
//! - A dead connection is detected by an application-level ping that must be answered within
//!   the heartbeat timeout; then the actor reconnects with backoff and jitter, re-sends every
//!   subscription and announces [`ClientEvent::Connected`] so that state is resynced.
//! - Only text frames of valid JSON are sent: a non-JSON frame makes HA close the socket.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::protocol::{
    Command, EVENT_NOTIFICATION_ACTION, HaApiError, HaErrorCode, HaEvent, REGISTRY_EVENTS, RawJson,
};
use crate::backoff::Backoff;
use crate::config::{Config, ConfigError};
use crate::secret::Secret;

mod actor;

use actor::Actor;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// get_states of a large home is one frame of tens of MB.
const MAX_MESSAGE_BYTES: usize = 256 << 20;
const EVENT_BUFFER: usize = 8192;
const COMMAND_BUFFER: usize = 256;
/// Events of one streamed command a reader may fall behind by (a pipeline run sends a handful).
const STREAM_BUFFER: usize = 64;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HaError {
    /// No connection right now; retryable once it is back.
    #[error("not connected to Home Assistant ({0})")]
    NotConnected(String),
    /// The socket dropped while this command waited for its result; retryable, but the command
    /// may or may not have run.
    #[error("connection to Home Assistant lost while waiting for the {command} result")]
    ConnectionLost { command: String },
    /// Home Assistant did not answer in time; retryable, the command may still run.
    #[error("Home Assistant did not answer {command} within {timeout:?}")]
    Timeout { command: String, timeout: Duration },
    /// The token was refused. Not retryable without a new token.
    #[error("Home Assistant refused the access token: {0}")]
    Auth(String),
    /// Home Assistant ran the command and reported an error. Not retryable as is.
    #[error("Home Assistant error {}: {message}", code.as_str())]
    Api { code: HaErrorCode, message: String },
    /// The server could not be reached or did not speak the protocol. Retryable.
    #[error("cannot connect to Home Assistant at {url}: {reason}")]
    Connect { url: String, reason: String },
    /// A reply did not have the shape the command promises. Not retryable.
    #[error("unexpected reply from Home Assistant to {command}: {reason}")]
    Protocol { command: String, reason: String },
    /// The client was shut down. Not retryable.
    #[error("the Home Assistant client has shut down")]
    Closed,
}

impl From<HaApiError> for HaError {
    fn from(e: HaApiError) -> Self {
        HaError::Api {
            code: e.code,
            message: e.message,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ClientSettings {
    pub url: String,
    pub token: Secret,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub heartbeat_interval: Duration,
    pub heartbeat_timeout: Duration,
    pub backoff: Backoff,
    /// Event types subscribed on every connection (`None` would mean all events).
    pub subscriptions: Vec<String>,
}

impl ClientSettings {
    pub fn from_config(cfg: &Config) -> Result<Self, ConfigError> {
        let ha = &cfg.ha;
        Ok(Self {
            url: ha.url.clone(),
            token: cfg.ha_token()?.clone(),
            connect_timeout: Duration::from_millis(ha.connect_timeout_ms),
            request_timeout: ha.request_timeout(),
            heartbeat_interval: Duration::from_millis(ha.heartbeat_interval_ms),
            heartbeat_timeout: Duration::from_millis(ha.heartbeat_timeout_ms),
            backoff: Backoff {
                initial: Duration::from_millis(ha.reconnect_initial_ms),
                max: Duration::from_millis(ha.reconnect_max_ms),
            },
            subscriptions: subscriptions(cfg),
        })
    }
}

/// The live registry's events, and the companion app's button presses when approvals are
/// sent to a phone.
fn subscriptions(cfg: &Config) -> Vec<String> {
    let mut events: Vec<String> = REGISTRY_EVENTS.map(str::to_owned).to_vec();
    if cfg.agent.approval.notify_service.is_some() {
        events.push(EVENT_NOTIFICATION_ACTION.to_owned());
    }
    events
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionState {
    Connecting {
        attempt: u32,
    },
    Connected {
        ha_version: String,
    },
    Disconnected {
        reason: String,
        retry_in: Duration,
    },
    /// The token was refused; the actor keeps retrying slowly in case it is rotated.
    AuthFailed {
        message: String,
    },
    Stopped,
}

impl ConnectionState {
    pub fn is_connected(&self) -> bool {
        matches!(self, Self::Connected { .. })
    }

    pub fn label(&self) -> &'static str {
        match self {
            Self::Connecting { .. } => "connecting",
            Self::Connected { .. } => "connected",
            Self::Disconnected { .. } => "disconnected",
            Self::AuthFailed { .. } => "auth_failed",
            Self::Stopped => "stopped",
        }
    }
}

#[derive(Debug, Clone)]
pub enum ClientEvent {
    /// A connection is up and subscriptions are re-sent: consumers resync their state now.
    Connected {
        ha_version: String,
    },
    Disconnected {
        reason: String,
    },
    Event(Arc<HaEvent>),
}

enum Cmd {
    Request {
        command: Command,
        reply: oneshot::Sender<Result<RawJson, HaError>>,
        /// For a command that goes on answering with its own events after its result
        /// (`assist_pipeline/run`): where they go, until the receiver is dropped.
        events: Option<mpsc::Sender<Value>>,
    },
    Shutdown,
}

/// Cheap handle to the connection actor.
#[derive(Clone)]
pub struct HaClient {
    cmd_tx: mpsc::Sender<Cmd>,
    events: broadcast::Sender<ClientEvent>,
    state: watch::Receiver<ConnectionState>,
    request_timeout: Duration,
}

impl HaClient {
    /// Starts the actor; it connects in the background and keeps reconnecting until shut down.
    pub fn spawn(settings: ClientSettings) -> Self {
        let (cmd_tx, cmd_rx) = mpsc::channel(COMMAND_BUFFER);
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let (state_tx, state) = watch::channel(ConnectionState::Connecting { attempt: 0 });
        let request_timeout = settings.request_timeout;
        let actor = Actor {
            settings,
            cmd_rx,
            events: events.clone(),
            state: state_tx,
            next_id: 0,
        };
        tokio::spawn(actor.run());
        Self {
            cmd_tx,
            events,
            state,
            request_timeout,
        }
    }

    /// Sends a command and waits for its result, at most the configured request timeout.
    pub async fn request(&self, command: Command) -> Result<Value, HaError> {
        self.request_with_timeout(command, self.request_timeout)
            .await
    }

    pub async fn request_with_timeout(
        &self,
        command: Command,
        timeout: Duration,
    ) -> Result<Value, HaError> {
        self.send(command).await?.within(timeout).await
    }

    /// The result as raw JSON text, for callers that decode it straight into their own types.
    pub async fn request_raw(&self, command: Command) -> Result<RawJson, HaError> {
        self.request_raw_with_timeout(command, self.request_timeout)
            .await
    }

    pub async fn request_raw_with_timeout(
        &self,
        command: Command,
        timeout: Duration,
    ) -> Result<RawJson, HaError> {
        self.send(command).await?.raw_within(timeout).await
    }

    /// Sends a command; its result is waited for through the [`Pending`] answer, which a
    /// caller may keep past one timeout and still use (Home Assistant's recogniser past its
    /// budget, while the model is asked).
    pub async fn send(&self, command: Command) -> Result<Pending, HaError> {
        let kind = command.kind().to_owned();
        let (reply, rx) = oneshot::channel();
        self.cmd_tx
            .send(Cmd::Request {
                command,
                reply,
                events: None,
            })
            .await
            .map_err(|_| HaError::Closed)?;
        Ok(Pending { kind, rx })
    }

    /// Sends a command that answers with a stream of its own events after its result
    /// (`assist_pipeline/run`), and returns them once the result says it started. The stream
    /// ends (`None`) when the connection does; dropping the receiver stops the forwarding.
    pub async fn stream(
        &self,
        command: Command,
        timeout: Duration,
    ) -> Result<mpsc::Receiver<Value>, HaError> {
        let kind = command.kind().to_owned();
        let (reply, rx) = oneshot::channel();
        let (events, received) = mpsc::channel(STREAM_BUFFER);
        self.cmd_tx
            .send(Cmd::Request {
                command,
                reply,
                events: Some(events),
            })
            .await
            .map_err(|_| HaError::Closed)?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(_))) => Ok(received),
            Ok(Ok(Err(e))) => Err(e),
            Ok(Err(_)) => Err(HaError::Closed),
            Err(_) => Err(HaError::Timeout {
                command: kind,
                timeout,
            }),
        }
    }

    /// How long a request waits for Home Assistant's answer.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    pub fn events(&self) -> broadcast::Receiver<ClientEvent> {
        self.events.subscribe()
    }

    pub fn state(&self) -> watch::Receiver<ConnectionState> {
        self.state.clone()
    }

    pub fn current_state(&self) -> ConnectionState {
        self.state.borrow().clone()
    }

    /// Waits until the first attempt settles: connected, or a clear reason why not.
    pub async fn first_outcome(&self) -> ConnectionState {
        let mut state = self.state.clone();
        let settled = state
            .wait_for(|s| !matches!(s, ConnectionState::Connecting { .. }))
            .await;
        match settled {
            Ok(s) => s.clone(),
            Err(_) => ConnectionState::Stopped,
        }
    }

    /// Waits until connected, or until `timeout` passes.
    pub async fn wait_connected(&self, timeout: Duration) -> Result<String, HaError> {
        let mut state = self.state.clone();
        let waited = tokio::time::timeout(timeout, state.wait_for(ConnectionState::is_connected));
        match waited.await {
            Ok(Ok(s)) => match &*s {
                ConnectionState::Connected { ha_version } => Ok(ha_version.clone()),
                other => Err(HaError::NotConnected(other.label().into())),
            },
            Ok(Err(_)) => Err(HaError::Closed),
            Err(_) => Err(HaError::NotConnected(format!(
                "still {} after {timeout:?}",
                self.current_state().label()
            ))),
        }
    }

    pub async fn shutdown(&self) {
        let _ = self.cmd_tx.send(Cmd::Shutdown).await;
    }
}

/// A sent command's result, on its way: dropping it gives the result up (Home Assistant's
/// answer, when it comes, is then dropped by the connection).
#[derive(Debug)]
pub struct Pending {
    kind: String,
    rx: oneshot::Receiver<Result<RawJson, HaError>>,
}

impl Pending {
    /// The result as raw JSON, if it comes within `timeout`; after [`HaError::Timeout`] the
    /// command is still pending and may be waited on again.
    pub async fn raw_within(&mut self, timeout: Duration) -> Result<RawJson, HaError> {
        match tokio::time::timeout(timeout, &mut self.rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(HaError::Closed),
            Err(_) => Err(HaError::Timeout {
                command: self.kind.clone(),
                timeout,
            }),
        }
    }

    /// [`Pending::raw_within`], decoded.
    pub async fn within(&mut self, timeout: Duration) -> Result<Value, HaError> {
        let raw = self.raw_within(timeout).await?;
        serde_json::from_str(raw.get()).map_err(|e| HaError::Protocol {
            command: self.kind.clone(),
            reason: e.to_string(),
        })
    }
}
