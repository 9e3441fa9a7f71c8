//! Loading and validation, driven through [`Config::load`] as the binary uses it.

use super::ha::normalise_ws_url;
use super::serve::valid_log_filter;
use super::*;
use pretty_assertions::assert_eq;
use std::io::Write;

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn write(dir: &tempfile::TempDir, name: &str, body: &str) -> PathBuf {
    let path = dir.path().join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(body.as_bytes()).unwrap();
    path
}

fn no_options(dir: &tempfile::TempDir) -> Option<PathBuf> {
    // Point at an absent file explicitly only when a test wants the error; otherwise use a
    // real empty options file so that /data/options.json on the host never leaks in.
    Some(write(dir, "options.json", "{}"))
}

#[test]
fn defaults_are_loopback_and_deny_nothing_extra() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config::load(&Sources {
        options_json: no_options(&dir),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(cfg.ha.url, "ws://127.0.0.1:8123/api/websocket");
    assert!(cfg.ha.token.is_none());
    assert!(cfg.exposure.respect_assist);
    assert_eq!(cfg.exposure.entity_allow, vec!["*".to_string()]);
}

#[test]
fn layers_apply_in_order_file_then_options_then_env() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "homeclaw.yaml",
        "ha:\n  url: ws://file:8123/api/websocket\n  request_timeout_ms: 1111\n  \
         connect_timeout_ms: 2222\nlog:\n  level: debug\n",
    );
    let options = write(
        &dir,
        "options.json",
        r#"{"ha": {"request_timeout_ms": 3333, "heartbeat_timeout_ms": 4444}}"#,
    );
    let cfg = Config::load(&Sources {
        file: Some(file),
        options_json: Some(options),
        env: env(&[
            ("HOMECLAW_HA__HEARTBEAT_TIMEOUT_MS", "5555"),
            (
                "HOMECLAW_EXPOSURE__ENTITY_DENY",
                "lock.*,alarm_control_panel.*",
            ),
            ("UNRELATED", "x"),
        ]),
    })
    .unwrap();
    assert_eq!(cfg.ha.url, "ws://file:8123/api/websocket");
    assert_eq!(cfg.ha.connect_timeout_ms, 2222);
    assert_eq!(cfg.ha.request_timeout_ms, 3333);
    assert_eq!(cfg.ha.heartbeat_timeout_ms, 5555);
    assert_eq!(cfg.log.level, "debug");
    assert_eq!(
        cfg.exposure.entity_deny,
        vec!["lock.*".to_string(), "alarm_control_panel.*".to_string()]
    );
}

#[test]
fn supervisor_token_selects_the_proxy_unless_the_user_set_a_url() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config::load(&Sources {
        options_json: no_options(&dir),
        env: env(&[("SUPERVISOR_TOKEN", "sup-tok")]),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(cfg.ha.url, SUPERVISOR_WS_URL);
    assert_eq!(cfg.ha_token().unwrap().expose(), "sup-tok");
    assert_eq!(cfg.session.dir, PathBuf::from(ADDON_SESSION_DIR));
    // The add-on's API port is open to the Supervisor's network: closed by a kept token.
    assert_eq!(
        cfg.api.token_file,
        Some(PathBuf::from(ADDON_API_TOKEN_FILE))
    );
    assert!(cfg.api.token.is_none(), "made at serve, not at load");

    let options = write(
        &dir,
        "options2.json",
        r#"{"ha": {"url": "http://ha.lan:8123", "token": "user-tok"}}"#,
    );
    let cfg = Config::load(&Sources {
        options_json: Some(options),
        env: env(&[("SUPERVISOR_TOKEN", "sup-tok")]),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(cfg.ha.url, "ws://ha.lan:8123/api/websocket");
    assert_eq!(cfg.ha_token().unwrap().expose(), "user-tok");
}

#[test]
fn wrong_values_name_key_value_and_what_is_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "HOMECLAW_HA__URL",
            "ftp://x",
            "ha.url = \"ftp://x\" is not allowed: unsupported scheme",
        ),
        (
            "HOMECLAW_HA__REQUEST_TIMEOUT_MS",
            "5",
            "ha.request_timeout_ms = \"5\" is not allowed: milliseconds from 100",
        ),
        (
            "HOMECLAW_LOG__LEVEL",
            "loud!!",
            "log.level = \"loud!!\" is not allowed",
        ),
        (
            "HOMECLAW_EXPOSURE__SERVICE_DENY",
            "light.turn on",
            "exposure.service_deny = \"light.turn on\" is not allowed",
        ),
        (
            "HOMECLAW_MQTT__COMMAND_TOPIC",
            "homeclaw/+",
            "mqtt.command_topic = \"homeclaw/+\" is not allowed: a topic without wildcards",
        ),
        (
            "HOMECLAW_MQTT__REPLY_TOPIC",
            "homeclaw/command",
            "mqtt.reply_topic = \"homeclaw/command\" is not allowed: command, reply and status",
        ),
        (
            "HOMECLAW_MQTT__NODE_ID",
            "home claw",
            "mqtt.node_id = \"home claw\" is not allowed",
        ),
        (
            "HOMECLAW_MQTT__MAX_PAYLOAD_BYTES",
            "10",
            "mqtt.max_payload_bytes = \"10\" is not allowed",
        ),
        (
            "HOMECLAW_AGENT__LOOP_DETECTION__CRITICAL_THRESHOLD",
            "5",
            "warning_threshold < critical_threshold < global_circuit_breaker_threshold",
        ),
    ];
    for (key, value, expected) in cases {
        let err = Config::load(&Sources {
            options_json: no_options(&dir),
            env: env(&[(key, value)]),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains(expected), "{key}: got {err}");
    }
}

#[test]
fn type_errors_and_unknown_keys_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let err = Config::load(&Sources {
        options_json: no_options(&dir),
        env: env(&[("HOMECLAW_HA__REQUEST_TIMEOUT_MS", "soon")]),
        ..Default::default()
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("request_timeout_ms"), "{err}");

    let options = write(&dir, "typo.json", r#"{"ha": {"tokn": "x"}}"#);
    let err = Config::load(&Sources {
        options_json: Some(options),
        ..Default::default()
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("tokn"), "{err}");
}

#[test]
fn explicit_missing_files_are_errors_and_malformed_json_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let err = Config::load(&Sources {
        options_json: Some(dir.path().join("absent.json")),
        ..Default::default()
    })
    .unwrap_err();
    assert!(matches!(err, ConfigError::Unreadable { .. }), "{err}");

    let broken = write(&dir, "broken.json", "{\"ha\": ");
    let err = Config::load(&Sources {
        options_json: Some(broken),
        ..Default::default()
    })
    .unwrap_err();
    assert!(matches!(err, ConfigError::Load(_)), "{err}");
}

#[test]
fn token_file_is_read_and_the_token_never_shows_in_debug() {
    let dir = tempfile::tempdir().unwrap();
    let token = write(&dir, "token", "very-secret-token\n");
    let cfg = Config::load(&Sources {
        options_json: no_options(&dir),
        env: env(&[("HOMECLAW_HA__TOKEN_FILE", token.to_str().unwrap())]),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(cfg.ha_token().unwrap().expose(), "very-secret-token");
    assert!(!format!("{cfg:?}").contains("very-secret-token"));
}

#[test]
fn missing_token_error_says_how_to_set_one() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config::load(&Sources {
        options_json: no_options(&dir),
        ..Default::default()
    })
    .unwrap();
    let err = cfg.ha_token().unwrap_err().to_string();
    assert!(err.contains("HOMECLAW_HA__TOKEN"), "{err}");
}

#[test]
fn llm_models_load_from_a_file_with_defaults_and_hidden_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "models.yaml",
        "llm:\n  models:\n    - provider: openai\n      model: gpt-4o-mini\n      \
         api_key: sk-secret-value\n    - name: local\n      provider: openai\n      \
         base_url: http://127.0.0.1:8089/v1/\n      model: qwen\n      native_tools: false\n",
    );
    let cfg = Config::load(&Sources {
        file: Some(file),
        options_json: no_options(&dir),
        ..Default::default()
    })
    .unwrap();
    let models = &cfg.llm.models;
    assert_eq!(models[0].label(), "gpt-4o-mini");
    assert_eq!(models[0].base_url(), "https://api.openai.com/v1");
    assert!(models[0].native_tools);
    assert_eq!(models[1].label(), "local");
    assert_eq!(models[1].base_url(), "http://127.0.0.1:8089/v1");
    assert!(!models[1].native_tools);
    assert_eq!(cfg.llm.max_attempts, 8);
    assert!(!format!("{cfg:?}").contains("sk-secret-value"));

    let bad = write(
        &dir,
        "bad.yaml",
        "llm:\n  models:\n    - provider: mistral\n      model: x\n",
    );
    let err = Config::load(&Sources {
        file: Some(bad),
        options_json: no_options(&dir),
        ..Default::default()
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("mistral") && err.contains("openai"), "{err}");
}

#[test]
fn log_filters_are_levels_or_target_directives() {
    assert!(valid_log_filter("info"));
    assert!(valid_log_filter("homeclaw=debug,warn"));
    assert!(valid_log_filter("homeclaw::ha=TRACE"));
    assert!(!valid_log_filter("loud!!"));
    assert!(!valid_log_filter("verbose"));
    assert!(!valid_log_filter("homeclaw=chatty"));
}

#[test]
fn http_base_urls_become_websocket_urls() {
    assert_eq!(
        normalise_ws_url("https://ha.example:8123/").unwrap(),
        "wss://ha.example:8123/api/websocket"
    );
    assert_eq!(
        normalise_ws_url("http://10.0.0.2:8123/api/websocket").unwrap(),
        "ws://10.0.0.2:8123/api/websocket"
    );
    assert!(normalise_ws_url("ws:///api/websocket").is_err());
}

#[test]
fn loop_detection_keys_are_snake_case_and_accept_the_openclaw_camel_case_names() {
    let dir = tempfile::tempdir().unwrap();
    let load = |body: &str| {
        Config::load(&Sources {
            file: Some(write(&dir, "homeclaw.yaml", body)),
            options_json: no_options(&dir),
            ..Default::default()
        })
    };
    let snake = load(
        "agent:\n  loop_detection:\n    history_size: 12\n    warning_threshold: 4\n    \
         detectors:\n      ping_pong: false\n      post_compaction_guard:\n        \
         window_size: 5\n",
    )
    .unwrap();
    let camel = load(
        "agent:\n  loop_detection:\n    historySize: 12\n    warningThreshold: 4\n    \
         detectors:\n      pingPong: false\n      postCompactionGuard:\n        \
         windowSize: 5\n",
    )
    .unwrap();
    for cfg in [&snake, &camel] {
        let loops = &cfg.agent.loop_detection;
        assert_eq!(loops.history_size, 12);
        assert_eq!(loops.warning_threshold, 4);
        assert!(!loops.detectors.ping_pong);
        assert_eq!(loops.detectors.post_compaction_guard.window_size, 5);
    }
    let err = load("agent:\n  loop_detection:\n    historysize: 12\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("historysize"), "{err}");
}

#[test]
fn structured_output_defaults_to_auto_and_on_needs_an_openai_text_model() {
    let dir = tempfile::tempdir().unwrap();
    let load = |name: &str, model: &str| {
        let file = write(
            &dir,
            name,
            &format!("llm:\n  models:\n    - provider: openai\n      model: qwen\n{model}"),
        );
        Config::load(&Sources {
            file: Some(file),
            options_json: no_options(&dir),
            ..Default::default()
        })
    };
    let cfg = load("auto.yaml", "      native_tools: false\n").unwrap();
    assert_eq!(
        cfg.llm.models[0].structured_output,
        crate::config::StructuredOutput::Auto
    );
    let cfg = load(
        "on.yaml",
        "      native_tools: false\n      structured_output: on\n",
    )
    .unwrap();
    assert_eq!(
        cfg.llm.models[0].structured_output,
        crate::config::StructuredOutput::On
    );
    let err = load("native.yaml", "      structured_output: on\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("structured_output"), "{err}");
    assert!(err.contains("native_tools: false"), "{err}");
    let err = load("typo.yaml", "      structured_output: always\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("always"), "{err}");
}

#[test]
fn the_panel_is_off_outside_the_add_on_and_behind_ingress_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let load = |file: &str, env_pairs: &[(&str, &str)]| load_file(&dir, file, env_pairs);
    // Outside the add-on: no panel unless asked for.
    let cfg = load("{}\n", &[]).unwrap();
    assert!(!cfg.panel.enabled);
    assert_eq!(cfg.panel.auth, PanelAuth::Token);
    // Asked for without a token to ask for: refused, naming the way out.
    let err = load("panel:\n  enabled: true\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("panel.enabled") && err.contains("api.token"),
        "{err}"
    );
    assert!(err.contains("panel.auth: ingress"), "{err}");
    // With the API's token it is on and asks for it.
    let cfg = load(
        "panel:\n  enabled: true\napi:\n  token: abcdefghijklmnopqrstuvwx\n",
        &[],
    )
    .unwrap();
    assert!(cfg.panel.enabled);
    assert_eq!(cfg.panel.auth, PanelAuth::Token);
    // In the add-on: on, ingress only, on the ingress port.
    let cfg = load("{}\n", &[("SUPERVISOR_TOKEN", "sup-tok")]).unwrap();
    assert!(cfg.panel.enabled);
    assert_eq!(cfg.panel.auth, PanelAuth::Ingress);
    assert_eq!(cfg.panel.listen, ADDON_PANEL_LISTEN);
    assert_eq!(cfg.panel.allowed_peers, vec![INGRESS_PROXY.to_owned()]);
    // A typo in the mode is an error, not a silent default.
    let err = load("panel:\n  auth: cookie\n", &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("cookie"), "{err}");
}

#[test]
fn outside_the_add_on_the_api_keeps_its_loopback_default_and_no_token_file() {
    let dir = tempfile::tempdir().unwrap();
    let load = |file: &str, env_pairs: &[(&str, &str)]| load_file(&dir, file, env_pairs);
    let cfg = load("{}\n", &[]).unwrap();
    assert_eq!(cfg.api.listen, "127.0.0.1:8099");
    assert!(cfg.api.token.is_none());
    assert!(cfg.api.token_file.is_none());
    // A user may keep a made token anywhere, outside the add-on too.
    let cfg = load("api:\n  token_file: /var/lib/homeclaw/api-token\n", &[]).unwrap();
    assert_eq!(
        cfg.api.token_file,
        Some(PathBuf::from("/var/lib/homeclaw/api-token"))
    );
}

/// The configuration from a config file with `text`, no add-on options, and `env_pairs`.
fn load_file(
    dir: &tempfile::TempDir,
    text: &str,
    env_pairs: &[(&str, &str)],
) -> Result<Config, ConfigError> {
    let file = write(dir, "homeclaw.yaml", text);
    Config::load(&Sources {
        file: Some(file),
        options_json: no_options(dir),
        env: env(env_pairs),
    })
}
