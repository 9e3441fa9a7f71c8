//! The Home Assistant Supervisor API, for what the add-on takes from it: the MQTT broker and
//! its credentials when the user did not configure one.

use serde::Deserialize;

use crate::config::MqttConfig;
use crate::secret::Secret;

pub const SUPERVISOR_URL: &str = "http://supervisor";

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MqttService {
    pub host: String,
    #[serde(default = "default_port")]
    pub port: u16,
    #[serde(default)]
    pub ssl: bool,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
}

fn default_port() -> u16 {
    1883
}

#[derive(Deserialize)]
struct Envelope<T> {
    data: T,
}

/// Parses the Supervisor's `GET /services/mqtt` answer.
pub fn parse_mqtt_service(body: &str) -> Option<MqttService> {
    serde_json::from_str::<Envelope<MqttService>>(body)
        .ok()
        .map(|e| e.data)
}

/// Asks the Supervisor for the MQTT service; `None` when there is none (or no Supervisor).
pub async fn mqtt_service(token: &Secret) -> Option<MqttService> {
    let response = crate::tls::http_client()
        .get(format!("{SUPERVISOR_URL}/services/mqtt"))
        .bearer_auth(token.expose())
        .timeout(std::time::Duration::from_secs(5))
        .send()
        .await
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    parse_mqtt_service(&response.text().await.ok()?)
}

/// Fills the broker settings from the Supervisor's service where the user left them unset.
pub fn apply_mqtt_service(cfg: &mut MqttConfig, service: MqttService) {
    if cfg.host.is_some() {
        return;
    }
    cfg.host = Some(service.host);
    cfg.port = service.port;
    cfg.tls = service.ssl;
    if cfg.username.is_none() {
        cfg.username = service.username;
        cfg.password = service.password.map(Secret::new);
    }
}

/// The discovery message that makes Home Assistant offer the Wyoming integration for us.
pub fn wyoming_discovery(hostname: &str, port: u16) -> serde_json::Value {
    serde_json::json!({"service": "wyoming", "config": {"uri": format!("tcp://{hostname}:{port}")}})
}

/// Announces the Wyoming service to Home Assistant through the Supervisor (add-on only).
pub async fn announce_wyoming(token: &Secret, hostname: &str, port: u16) -> Result<(), String> {
    let response = crate::tls::http_client()
        .post(format!("{SUPERVISOR_URL}/discovery"))
        .bearer_auth(token.expose())
        .json(&wyoming_discovery(hostname, port))
        .timeout(std::time::Duration::from_secs(5))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!("Supervisor answered {}", response.status()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_supervisor_mqtt_service_fills_unset_broker_settings() {
        let body = r#"{"result": "ok", "data": {"addon": "core_mosquitto", "host": "core-mosquitto",
            "port": 1883, "ssl": false, "protocol": "3.1.1", "username": "addons", "password": "pw"}}"#;
        let service = parse_mqtt_service(body).unwrap();
        let mut cfg = MqttConfig::default();
        apply_mqtt_service(&mut cfg, service.clone());
        assert_eq!(cfg.host.as_deref(), Some("core-mosquitto"));
        assert_eq!(cfg.username.as_deref(), Some("addons"));
        assert!(cfg.active());
        let mut mine = MqttConfig {
            host: Some("broker.lan".into()),
            ..MqttConfig::default()
        };
        apply_mqtt_service(&mut mine, service);
        assert_eq!(mine.host.as_deref(), Some("broker.lan"));
        assert!(parse_mqtt_service(r#"{"result": "error", "message": "no"}"#).is_none());
    }

    #[test]
    fn wyoming_discovery_names_a_tcp_uri() {
        assert_eq!(
            wyoming_discovery("a0d7b954-homeclaw", 10700),
            serde_json::json!({"service": "wyoming", "config": {"uri": "tcp://a0d7b954-homeclaw:10700"}})
        );
    }
}
