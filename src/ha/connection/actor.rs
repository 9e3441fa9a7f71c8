//! The actor that owns the socket: it connects and authenticates, keeps the subscriptions,
//! answers pings, matches each result to its caller by id, sends events on, and reconnects
//! with backoff when the connection dies.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tracing::{Instrument, debug, info, info_span, warn};

use super::{
    ClientEvent, ClientSettings, Cmd, ConnectionState, HaError, MAX_MESSAGE_BYTES, Socket,
};
use crate::ha::protocol::{self, Command, Incoming, RawJson, TYPE_PING};

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

pub(super) struct Actor {
    pub(super) settings: ClientSettings,
    pub(super) cmd_rx: mpsc::Receiver<Cmd>,
    pub(super) events: broadcast::Sender<ClientEvent>,
    pub(super) state: watch::Sender<ConnectionState>,
    pub(super) next_id: u64,
}

impl Actor {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(super) async fn run(mut self) {
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
