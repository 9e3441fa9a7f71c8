//! MQTT-triggered commands (rumqttc, MQTT v5).
//!
//! Invariants:
//! - The event loop is polled continuously; commands run in their own tasks so a slow agent
//!   run never stalls keep-alives or other commands.
//! - Every payload gets a reply: the result, or an error that says what was wrong. The client
//!   never stops on bad input, and reconnects (with backoff) when the broker goes away.
//! - On every (re)connection the command topic is subscribed again, `online` is published
//!   retained (with a retained `offline` last will), and discovery configs are re-published.
//! - A redelivered command with a known `request_id` is answered from the first result without
//!   running again (the same store as HTTP `Idempotency-Key`).

pub mod discovery;
pub mod payload;
pub mod tls_relay;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{LastWill, Packet, Publish, PublishProperties};
use rumqttc::v5::{AsyncClient, Event, MqttOptions};
use serde_json::{Value, json};
use tracing::{Instrument, info, info_span, warn};

use crate::backoff::Backoff;
use crate::command::activity::Source;
use crate::command::{CommandRequest, Commands, ErrorKind, IdempotencyKey};
use crate::config::MqttConfig;

/// rumqttc's options; `relay` is the TLS relay's socket when the broker speaks TLS.
fn options(cfg: &MqttConfig, host: &str, relay: Option<&std::path::Path>) -> MqttOptions {
    let mut opts = match relay {
        Some(socket) => {
            let mut opts =
                MqttOptions::new(cfg.client_id.clone(), socket.to_string_lossy(), cfg.port);
            opts.set_transport(rumqttc::Transport::Unix);
            opts
        }
        None => MqttOptions::new(cfg.client_id.clone(), host, cfg.port),
    };
    opts.set_keep_alive(Duration::from_secs(30));
    // Replies are small and awaited one by one: no Nagle delay on top of the broker's.
    let mut network = opts.network_options();
    network.set_tcp_nodelay(true);
    opts.set_network_options(network);
    opts.set_max_packet_size(Some(
        (cfg.max_payload_bytes as u32).saturating_mul(4).max(65_536),
    ));
    if let Some(user) = &cfg.username {
        let pass = cfg
            .password
            .as_ref()
            .map(|p| p.expose().to_owned())
            .unwrap_or_default();
        opts.set_credentials(user.clone(), pass);
    }
    opts.set_last_will(LastWill::new(
        cfg.status_topic.clone(),
        "offline",
        QoS::AtLeastOnce,
        true,
        None,
    ));
    opts
}

/// Why the bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum MqttError {
    #[error("mqtt.ca_file: {0}")]
    Tls(#[from] crate::tls::TlsError),
    #[error("cannot start the MQTT TLS relay: {0}")]
    Relay(std::io::Error),
}

/// A running MQTT bridge.
pub struct MqttBridge {
    client: AsyncClient,
    status_topic: String,
    task: tokio::task::JoinHandle<()>,
    /// Carries the connection over TLS when `mqtt.tls` is on; stopped with the bridge.
    relay: Option<tls_relay::TlsRelay>,
}

impl MqttBridge {
    /// Connects (in the background, with reconnects) and starts answering commands; `None`
    /// when no broker is configured.
    pub fn start(cfg: MqttConfig, commands: Arc<Commands>) -> Result<Option<Self>, MqttError> {
        let Some(host) = cfg.host.clone() else {
            return Ok(None);
        };
        let relay = if cfg.tls {
            let config = match &cfg.ca_file {
                Some(ca) => crate::tls::client_config_with_ca(ca)?,
                None => crate::tls::client_config(),
            };
            Some(tls_relay::TlsRelay::start(&host, cfg.port, config).map_err(MqttError::Relay)?)
        } else {
            None
        };
        let opts = options(&cfg, &host, relay.as_ref().map(|r| r.socket()));
        let (client, mut eventloop) = AsyncClient::new(opts, 256);
        let status_topic = cfg.status_topic.clone();
        let cfg = Arc::new(cfg);
        let loop_client = client.clone();
        let span = info_span!("mqtt", broker = %format!("{host}:{}", cfg.port));
        let task = tokio::spawn(
            async move {
                let backoff = Backoff {
                    initial: Duration::from_millis(200),
                    max: Duration::from_secs(30),
                };
                let mut failures: u32 = 0;
                loop {
                    match eventloop.poll().await {
                        Ok(Event::Incoming(Packet::ConnAck(_))) => {
                            failures = 0;
                            info!("Connected to the MQTT broker");
                            on_connect(&loop_client, &cfg).await;
                        }
                        Ok(Event::Incoming(Packet::Publish(publish))) => {
                            if publish.topic.as_ref() == cfg.command_topic.as_bytes() {
                                let (client, cfg, commands) =
                                    (loop_client.clone(), cfg.clone(), commands.clone());
                                tokio::spawn(
                                    async move { handle(&client, &cfg, &commands, publish).await }
                                        .in_current_span(),
                                );
                            }
                        }
                        Ok(_) => {}
                        Err(e) => {
                            let delay = backoff.next_delay(failures);
                            failures = failures.saturating_add(1);
                            warn!(error = %e, ?delay, "MQTT connection problem; reconnecting");
                            tokio::time::sleep(delay).await;
                        }
                    }
                }
            }
            .instrument(span),
        );
        Ok(Some(Self {
            client,
            status_topic,
            task,
            relay,
        }))
    }

    /// Publishes `offline` and disconnects.
    pub async fn shutdown(self) {
        let _ = self
            .client
            .publish(self.status_topic.clone(), QoS::AtLeastOnce, true, "offline")
            .await;
        let _ = self.client.disconnect().await;
        // Give the event loop a moment to flush the two packets, then stop it.
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while !self.task.is_finished() {
                tokio::task::yield_now().await;
            }
        })
        .await;
        self.task.abort();
        drop(self.relay);
    }
}

async fn on_connect(client: &AsyncClient, cfg: &MqttConfig) {
    if let Err(e) = client
        .subscribe(cfg.command_topic.clone(), QoS::AtLeastOnce)
        .await
    {
        warn!(error = %e, "Cannot subscribe to the command topic");
    }
    let _ = client
        .publish(cfg.status_topic.clone(), QoS::AtLeastOnce, true, "online")
        .await;
    if cfg.discovery {
        for (topic, config) in discovery::messages(cfg) {
            let _ = client
                .publish(topic, QoS::AtLeastOnce, true, config.to_string())
                .await;
        }
    }
}

async fn publish_reply(
    client: &AsyncClient,
    topic: String,
    body: &Value,
    correlation: Option<Bytes>,
) {
    let payload = body.to_string();
    let result = match correlation {
        Some(data) => {
            let properties = PublishProperties {
                correlation_data: Some(data),
                content_type: Some("application/json".into()),
                ..Default::default()
            };
            client
                .publish_with_properties(topic, QoS::AtLeastOnce, false, payload, properties)
                .await
        }
        None => {
            client
                .publish(topic, QoS::AtLeastOnce, false, payload)
                .await
        }
    };
    if let Err(e) = result {
        warn!(error = %e, "Cannot queue the MQTT reply");
    }
}

async fn handle(client: &AsyncClient, cfg: &MqttConfig, commands: &Commands, publish: Publish) {
    let properties = publish.properties.clone().unwrap_or_default();
    let correlation = properties.correlation_data.clone();
    let v5_topic = properties
        .response_topic
        .clone()
        .filter(|t| payload::valid_topic(t));
    let command = match payload::parse(&publish.payload, cfg.max_payload_bytes) {
        Ok(c) => c,
        Err(e) => {
            warn!(code = e.code, message = %e.message, "Bad MQTT command payload");
            let topic = e
                .reply_to
                .clone()
                .or(v5_topic)
                .unwrap_or_else(|| cfg.reply_topic.clone());
            publish_reply(client, topic, &payload::error_reply(&e), correlation).await;
            return;
        }
    };
    let topic = command
        .reply_to
        .clone()
        .or(v5_topic)
        .unwrap_or_else(|| cfg.reply_topic.clone());
    let request = CommandRequest {
        text: command.text.clone(),
        session_id: command.session_id.clone(),
        language: command.language.clone(),
        device_id: command.device_id.clone(),
        satellite_id: command.satellite_id.clone(),
        dry_run: false,
        shared_session: false,
        source: Source::Mqtt,
    };
    let key = command
        .request_id
        .clone()
        .map(|key| IdempotencyKey { scope: "mqtt", key });
    let mut body = match commands.submit(request, key).await.result {
        Ok(outcome) => serde_json::to_value(&outcome).unwrap_or(Value::Null),
        Err(e) if e.kind == ErrorKind::IdempotencyKeyReused => json!({"status": "failed",
            "error": {"code": "request_id_reused",
                "message": "this request_id was used for a different command"}}),
        Err(e) => json!({"status": "failed", "error": {"code": e.code(), "message": e.message}}),
    };
    if !cfg.include_trace
        && let Some(map) = body.as_object_mut()
    {
        map.remove("trace");
    }
    if let Some(id) = &command.request_id {
        body["request_id"] = json!(id);
    }
    publish_reply(client, topic, &body, correlation).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_is_on_only_with_a_broker() {
        let mut cfg = MqttConfig::default();
        assert!(!cfg.active());
        cfg.host = Some("127.0.0.1".into());
        assert!(cfg.active());
        cfg.enabled = Some(false);
        assert!(!cfg.active());
    }
}
