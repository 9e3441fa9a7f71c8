//! Home Assistant MQTT discovery: a `text` entity to type commands into and a `sensor` holding
//! the last reply, so HomeClaw works from any dashboard or automation without code.

use serde_json::{Value, json};

use crate::config::MqttConfig;

/// (topic, retained config payload) for each discovered entity.
pub fn messages(cfg: &MqttConfig) -> Vec<(String, Value)> {
    let prefix = cfg.discovery_prefix.trim_end_matches('/');
    let node = &cfg.node_id;
    let device = json!({
        "identifiers": [format!("homeclaw_{node}")],
        "name": "HomeClaw",
        "manufacturer": "HomeClaw",
        "model": "HomeClaw agent",
        "sw_version": env!("CARGO_PKG_VERSION"),
    });
    let availability = json!([{"topic": cfg.status_topic, "payload_available": "online",
        "payload_not_available": "offline"}]);
    vec![
        (
            format!("{prefix}/text/{node}/command/config"),
            json!({
                "name": "Command",
                "unique_id": format!("{node}_command"),
                "object_id": format!("{node}_command"),
                "command_topic": cfg.command_topic,
                "max": 255,
                "mode": "text",
                "icon": "mdi:robot",
                "availability": availability,
                "device": device,
            }),
        ),
        (
            format!("{prefix}/sensor/{node}/last_reply/config"),
            json!({
                "name": "Last reply",
                "unique_id": format!("{node}_last_reply"),
                "object_id": format!("{node}_last_reply"),
                "state_topic": cfg.reply_topic,
                "value_template": "{{ (value_json.reply or (value_json.error.message if value_json.error is defined else '') or '') | truncate(250) }}",
                "json_attributes_topic": cfg.reply_topic,
                "json_attributes_template": "{{ {'status': value_json.status, 'session_id': value_json.session_id, 'request_id': value_json.request_id} | tojson }}",
                "icon": "mdi:robot-outline",
                "availability": availability,
                "device": device,
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_configs_name_the_topics_and_share_a_device() {
        let cfg = MqttConfig::default();
        let msgs = messages(&cfg);
        assert_eq!(msgs[0].0, "homeassistant/text/homeclaw/command/config");
        assert_eq!(msgs[0].1["command_topic"], "homeclaw/command");
        assert_eq!(msgs[1].0, "homeassistant/sensor/homeclaw/last_reply/config");
        assert_eq!(msgs[1].1["state_topic"], "homeclaw/reply");
        assert_eq!(msgs[0].1["device"], msgs[1].1["device"]);
        assert_eq!(msgs[0].1["availability"][0]["topic"], "homeclaw/status");
        for (_, payload) in msgs {
            assert!(payload["unique_id"].as_str().is_some());
        }
    }
}
