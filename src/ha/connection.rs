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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tracing::{Instrument, debug, info, info_span, warn};

use super::protocol::{
    self, Command, EVENT_NOTIFICATION_ACTION, HaApiError, HaErrorCode, HaEvent, Incoming,
    REGISTRY_EVENTS, RawJson, TYPE_PING,
};
use crate::backoff::Backoff;
use crate::config::{Config, ConfigError};
use crate::secret::Secret;

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
        let kind = command.kind().to_owned();
        let raw = self.request_raw_with_timeout(command, timeout).await?;
        serde_json::from_str(raw.get()).map_err(|e| HaError::Protocol {
            command: kind,
            reason: e.to_string(),
        })
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
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(HaError::Closed),
            Err(_) => Err(HaError::Timeout {
                command: kind,
                timeout,
            }),
        }
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

struct Pending {
    command: String,
    reply: oneshot::Sender<Result<RawJson, HaError>>,
}

enum SessionEnd {
    Lost(String),
    Shutdown,
}

enum ConnectFailure {
    Auth(String),
    Other(String),
}

struct Actor {
    settings: ClientSettings,
    cmd_rx: mpsc::Receiver<Cmd>,
    events: broadcast::Sender<ClientEvent>,
    state: watch::Sender<ConnectionState>,
    next_id: u64,
}

impl Actor {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    async fn run(mut self) {
        let span = info_span!("ha_connection", url = %self.settings.url);
        async move {
            let mut attempt: u32 = 0;
            loop {
                self.state
                    .send_replace(ConnectionState::Connecting { attempt });
                let connected = {
                    let connect = connect_and_auth(&self.settings);
                    tokio::pin!(connect);
                    loop {
                        tokio::select! {
                            outcome = &mut connect => break Some(outcome),
                            cmd = self.cmd_rx.recv() => match cmd {
                                Some(Cmd::Request { reply, .. }) => {
                                    let _ = reply.send(Err(HaError::NotConnected("connecting".into())));
                                }
                                Some(Cmd::Shutdown) | None => break None,
                            },
                        }
                    }
                };
                let failure = match connected {
                    None => break,
                    Some(Ok((socket, ha_version))) => {
                        attempt = 0;
                        info!(%ha_version, "Connected to Home Assistant");
                        match self.session(socket, ha_version).await {
                            SessionEnd::Shutdown => break,
                            SessionEnd::Lost(reason) => {
                                warn!(%reason, "Home Assistant connection lost");
                                let _ = self.events.send(ClientEvent::Disconnected {
                                    reason: reason.clone(),
                                });
                                ConnectFailure::Other(reason)
                            }
                        }
                    }
                    Some(Err(failure)) => failure,
                };
                let delay = self.settings.backoff.next_delay(attempt);
                attempt = attempt.saturating_add(1);
                match failure {
                    ConnectFailure::Auth(message) => {
                        warn!(%message, "Home Assistant refused the token");
                        self.state
                            .send_replace(ConnectionState::AuthFailed { message });
                    }
                    ConnectFailure::Other(reason) => {
                        debug!(%reason, ?delay, "Reconnecting later");
                        self.state.send_replace(ConnectionState::Disconnected {
                            reason,
                            retry_in: delay,
                        });
                    }
                }
                if !self.idle(delay).await {
                    break;
                }
            }
            self.state.send_replace(ConnectionState::Stopped);
            info!("Home Assistant client stopped");
        }
        .instrument(span)
        .await
    }

    /// Waits out a backoff delay, refusing requests meanwhile. `false` means shut down.
    async fn idle(&mut self, delay: Duration) -> bool {
        let sleep = tokio::time::sleep(delay);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => return true,
                cmd = self.cmd_rx.recv() => match cmd {
                    Some(Cmd::Request { reply, .. }) => {
                        let reason = self.state.borrow().label().to_owned();
                        let _ = reply.send(Err(HaError::NotConnected(reason)));
                    }
                    Some(Cmd::Shutdown) | None => return false,
                },
            }
        }
    }

    async fn session(&mut self, socket: Socket, ha_version: String) -> SessionEnd {
        let (mut sink, mut stream) = socket.split();
        let mut pending: HashMap<u64, Pending> = HashMap::new();
        // Commands that answer with their own events, by id, while someone reads them.
        let mut streams: HashMap<u64, mpsc::Sender<Value>> = HashMap::new();
        // Results of our own set-up commands: only failures are worth a log line.
        let mut internal: HashMap<u64, String> = HashMap::new();

        let mut setup = vec![Command::supported_features()];
        setup.extend(
            self.settings
                .subscriptions
                .iter()
                .map(|t| Command::subscribe_events(Some(t))),
        );
        for command in setup {
            let id = self.next_id();
            internal.insert(id, command.kind().to_owned());
            if let Err(e) = sink.send(Message::text(command.to_frame(id))).await {
                return SessionEnd::Lost(format!("sending {}: {e}", command.kind()));
            }
        }
        self.state.send_replace(ConnectionState::Connected {
            ha_version: ha_version.clone(),
        });
        let _ = self.events.send(ClientEvent::Connected { ha_version });

        let interval = self.settings.heartbeat_interval;
        let mut heartbeat = tokio::time::interval_at(Instant::now() + interval, interval);
        let mut ping: Option<(u64, Instant)> = None;

        let end = loop {
            let ping_deadline = ping.map(|(_, sent)| sent + self.settings.heartbeat_timeout);
            tokio::select! {
                cmd = self.cmd_rx.recv() => match cmd {
                    Some(Cmd::Request { command, reply, events }) => {
                        let id = self.next_id();
                        let frame = command.to_frame(id);
                        debug!(id, kind = command.kind(), "Sending command");
                        if let Err(e) = sink.send(Message::text(frame)).await {
                            let _ = reply.send(Err(HaError::ConnectionLost {
                                command: command.kind().to_owned(),
                            }));
                            break SessionEnd::Lost(format!("send failed: {e}"));
                        }
                        pending.insert(id, Pending { command: command.kind().to_owned(), reply });
                        if let Some(events) = events {
                            streams.insert(id, events);
                        }
                    }
                    Some(Cmd::Shutdown) | None => {
                        let _ = sink.send(Message::Close(None)).await;
                        break SessionEnd::Shutdown;
                    }
                },
                frame = stream.next() => match frame {
                    Some(Ok(Message::Text(text))) => {
                        self.dispatch(text.as_str(), &mut pending, &mut streams, &mut internal, &mut ping);
                    }
                    Some(Ok(Message::Close(close))) => {
                        break SessionEnd::Lost(format!("closed by Home Assistant ({close:?})"));
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => break SessionEnd::Lost(format!("read failed: {e}")),
                    None => break SessionEnd::Lost("socket closed".into()),
                },
                _ = heartbeat.tick() => {
                    pending.retain(|_, p| !p.reply.is_closed());
                    streams.retain(|_, events| !events.is_closed());
                    if ping.is_none() {
                        let id = self.next_id();
                        let frame = Command::new(TYPE_PING).to_frame(id);
                        if let Err(e) = sink.send(Message::text(frame)).await {
                            break SessionEnd::Lost(format!("ping failed: {e}"));
                        }
                        ping = Some((id, Instant::now()));
                    }
                },
                () = sleep_until_opt(ping_deadline) => {
                    break SessionEnd::Lost(format!(
                        "no pong within {:?}: connection is dead",
                        self.settings.heartbeat_timeout
                    ));
                }
            }
        };
        for (_, p) in pending.drain() {
            let err = match &end {
                SessionEnd::Shutdown => HaError::Closed,
                SessionEnd::Lost(_) => HaError::ConnectionLost { command: p.command },
            };
            let _ = p.reply.send(Err(err));
        }
        end
    }

    fn dispatch(
        &self,
        text: &str,
        pending: &mut HashMap<u64, Pending>,
        streams: &mut HashMap<u64, mpsc::Sender<Value>>,
        internal: &mut HashMap<u64, String>,
        ping: &mut Option<(u64, Instant)>,
    ) {
        let messages = match protocol::parse_frame(text) {
            Ok(m) => m,
            Err(e) => {
                warn!(error = %e, "Ignoring a frame Home Assistant sent");
                return;
            }
        };
        for message in messages {
            match message {
                Incoming::Result { id, outcome } => {
                    if outcome.is_err() {
                        streams.remove(&id);
                    }
                    if let Some(p) = pending.remove(&id) {
                        let _ = p.reply.send(outcome.map_err(HaError::from));
                    } else if let Some(kind) = internal.remove(&id) {
                        if let Err(e) = outcome {
                            warn!(command = %kind, code = e.code.as_str(), message = %e.message,
                                "Home Assistant refused a set-up command");
                        }
                    } else {
                        debug!(id, "Result for a request nobody waits for any more");
                    }
                }
                Incoming::Event { event, .. } => {
                    let _ = self.events.send(ClientEvent::Event(Arc::new(event)));
                }
                Incoming::Streamed { id, event } => {
                    // A reader that fell this far behind, or left, gets no more of them.
                    if streams.get(&id).is_some_and(|s| s.try_send(event).is_err()) {
                        streams.remove(&id);
                    }
                }
                Incoming::Pong { id } => {
                    if ping.is_some_and(|(sent, _)| sent == id) {
                        *ping = None;
                    }
                }
                other => debug!(?other, "Ignoring message"),
            }
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

async fn connect_and_auth(settings: &ClientSettings) -> Result<(Socket, String), ConnectFailure> {
    let timeout = settings.connect_timeout;
    match tokio::time::timeout(timeout, handshake(settings)).await {
        Ok(result) => result,
        Err(_) => Err(ConnectFailure::Other(format!(
            "no auth handshake within {timeout:?}"
        ))),
    }
}

async fn handshake(settings: &ClientSettings) -> Result<(Socket, String), ConnectFailure> {
    let mut ws_config = WebSocketConfig::default();
    ws_config.max_message_size = Some(MAX_MESSAGE_BYTES);
    ws_config.max_frame_size = Some(MAX_MESSAGE_BYTES);
    // `wss://` on HomeClaw's one TLS configuration (rustls, ring, Mozilla's roots).
    let connector = tokio_tungstenite::Connector::Rustls(crate::tls::client_config());
    let (mut socket, _) = tokio_tungstenite::connect_async_tls_with_config(
        &settings.url,
        Some(ws_config),
        false,
        Some(connector),
    )
    .await
    .map_err(|e| ConnectFailure::Other(e.to_string()))?;
    let mut version = None;
    loop {
        let frame = match socket.next().await {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(close))) => {
                return Err(ConnectFailure::Other(format!(
                    "closed during auth ({close:?})"
                )));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(ConnectFailure::Other(e.to_string())),
            None => return Err(ConnectFailure::Other("closed during auth".into())),
        };
        let messages = protocol::parse_frame(frame.as_str())
            .map_err(|e| ConnectFailure::Other(format!("not a Home Assistant server: {e}")))?;
        for message in messages {
            match message {
                Incoming::AuthRequired { ha_version } => {
                    version = ha_version;
                    socket
                        .send(Message::text(protocol::auth_message(&settings.token)))
                        .await
                        .map_err(|e| ConnectFailure::Other(e.to_string()))?;
                }
                Incoming::AuthOk { ha_version } => {
                    let v = ha_version.or(version).unwrap_or_else(|| "unknown".into());
                    return Ok((socket, v));
                }
                Incoming::AuthInvalid { message } => return Err(ConnectFailure::Auth(message)),
                other => {
                    return Err(ConnectFailure::Other(format!(
                        "unexpected message during auth: {other:?}"
                    )));
                }
            }
        }
    }
}
