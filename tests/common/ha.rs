//! Real Home Assistant Core instances for integration tests, started by the project's own
//! `scripts/ha-dev.sh` (cached venv, demo home, token bootstrap).
//!
//! One shared instance serves tests that only read or that change entities no other test
//! touches; tests that stop Home Assistant get their own instance on their own port.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use homeclaw::ha::{ClientSettings, HaClient};
use homeclaw::secret::Secret;
use serde_json::Value;

/// Port of the shared instance; far from 8123 so a developer's own HA is not disturbed.
pub const SHARED_PORT: u16 = 18123;

pub struct HaInstance {
    pub port: u16,
    pub token: String,
    config_dir: PathBuf,
    venv: PathBuf,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cache_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    std::env::var_os("XDG_CACHE_HOME")
        .map_or_else(|| home.join(".cache"), PathBuf::from)
        .join("homeclaw")
}

/// Each test port has its own config dir (its token survives restarts).
fn config_dir(port: u16) -> PathBuf {
    cache_dir().join(format!("ha-test-{port}"))
}

/// `scripts/ha-dev.sh <verb>` for the instance on `port`.
fn ha_dev(verb: &str, port: u16) -> Command {
    let mut command = Command::new(repo_root().join("scripts/ha-dev.sh"));
    command
        .arg(verb)
        .env("HA_PORT", port.to_string())
        .env("HA_CONFIG_DIR", config_dir(port));
    command
}

fn stop(port: u16) {
    let output = ha_dev("stop", port)
        .output()
        .expect("run scripts/ha-dev.sh stop");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

impl HaInstance {
    /// Starts (or reuses) the instance on `port`; blocks until it runs with a valid token.
    pub fn start(port: u16) -> Self {
        Self::start_with(port, None, false)
    }

    /// As [`HaInstance::start`] (the demo home), with Home Assistant's own web UI served, for
    /// a test that looks at what Home Assistant shows a person.
    pub fn start_with_frontend(port: u16) -> Self {
        Self::start_with(port, None, true)
    }

    /// As [`HaInstance::start`], with a Home LLM Leaderboard home (`_fixtures.yaml`) loaded
    /// instead of the demo. The instance is restarted with fresh registries (auth is kept), so
    /// what an earlier run moved, renamed or unexposed is gone.
    pub fn start_home(port: u16, fixture: &std::path::Path) -> Self {
        stop(port);
        // scripts/ha-dev.sh wipes the registries when the profile it last ran differs.
        let _ = std::fs::remove_file(config_dir(port).join(".profile"));
        Self::start_with(port, Some(fixture), false)
    }

    fn start_with(port: u16, home: Option<&std::path::Path>, frontend: bool) -> Self {
        let config_dir = config_dir(port);
        let mut command = ha_dev("start", port);
        if let Some(fixture) = home {
            command.env("HA_HOME", fixture);
        }
        if frontend {
            command.env("HA_FRONTEND", "1");
        }
        let output = command.output().expect("run scripts/ha-dev.sh");
        assert!(
            output.status.success(),
            "scripts/ha-dev.sh start failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let venv = stdout
            .lines()
            .find_map(|l| l.strip_prefix("HA_VENV="))
            .map(PathBuf::from)
            .expect("HA_VENV line");
        let token = std::fs::read_to_string(config_dir.join("token"))
            .expect("token file")
            .trim()
            .to_owned();
        Self {
            port,
            token,
            config_dir,
            venv,
        }
    }

    pub fn venv(&self) -> &std::path::Path {
        &self.venv
    }

    /// The Home Assistant version installed in the venv (2025.4.4, or 2024.3.3 on the
    /// Python 3.11 fallback), read from the package itself.
    pub fn version(&self) -> String {
        let out = Command::new(self.venv.join("bin/python"))
            .args([
                "-c",
                "from homeassistant.const import __version__; print(__version__)",
            ])
            .output()
            .expect("venv python");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}/api/websocket", self.port)
    }

    pub fn http_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops hass through the script (SIGTERM, SIGKILL after 60 s); a stopped one is fine.
    pub fn stop(&self) {
        stop(self.port);
    }

    /// Kills hass with SIGKILL, as a crash would.
    pub fn kill(&self) {
        let pid = std::fs::read_to_string(self.config_dir.join("hass.pid")).expect("pid file");
        let status = Command::new("kill")
            .args(["-9", pid.trim()])
            .status()
            .expect("kill");
        assert!(status.success());
        // Block until the process is gone, so the port is free for the restart.
        let gone = Command::new("timeout")
            .args(["20", "tail", "--pid", pid.trim(), "-f", "/dev/null"])
            .status()
            .expect("tail --pid");
        assert!(gone.success(), "hass {} did not die", pid.trim());
    }

    pub fn settings(&self) -> ClientSettings {
        self.settings_with_token(&self.token)
    }

    pub fn settings_with_token(&self, token: &str) -> ClientSettings {
        ClientSettings {
            url: self.ws_url(),
            token: Secret::new(token),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(15),
            heartbeat_interval: Duration::from_secs(5),
            heartbeat_timeout: Duration::from_secs(5),
            backoff: homeclaw::backoff::Backoff {
                initial: Duration::from_millis(100),
                max: Duration::from_millis(1000),
            },
            // What `homeclaw serve` follows, so live-registry tests see what users get.
            subscriptions: homeclaw::ha::protocol::REGISTRY_EVENTS
                .map(str::to_owned)
                .to_vec(),
        }
    }

    pub fn client(&self) -> HaClient {
        HaClient::spawn(self.settings())
    }

    /// A REST call with the instance's token; returns status and JSON body (Null if not JSON).
    pub async fn rest(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let http = homeclaw::tls::http_client();
        let url = format!("{}{path}", self.http_url());
        let request = match method {
            "GET" => http.get(url),
            "DELETE" => http.delete(url),
            _ => http.post(url).json(&body.unwrap_or(Value::Null)),
        };
        let response = request
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("REST request");
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(Value::Null);
        (status, body)
    }
}

impl HaInstance {
    /// Replaces any existing `handler` integration with one set up through its config flow
    /// (one form step with `data`), as a person would in the UI.
    pub async fn add_integration(&self, handler: &str, data: Value) {
        let (_, entries) = self
            .rest(
                "GET",
                &format!("/api/config/config_entries/entry?domain={handler}"),
                None,
            )
            .await;
        for entry in entries.as_array().into_iter().flatten() {
            let id = entry["entry_id"].as_str().expect("entry id");
            self.rest(
                "DELETE",
                &format!("/api/config/config_entries/entry/{id}"),
                None,
            )
            .await;
        }
        let (status, flow) = self
            .rest(
                "POST",
                "/api/config/config_entries/flow",
                Some(serde_json::json!({"handler": handler})),
            )
            .await;
        assert_eq!(status, 200, "{flow}");
        let flow_id = flow["flow_id"].as_str().expect("flow id");
        let (status, done) = self
            .rest(
                "POST",
                &format!("/api/config/config_entries/flow/{flow_id}"),
                Some(data),
            )
            .await;
        assert_eq!(status, 200, "{done}");
        assert_eq!(done["type"], "create_entry", "{done}");
    }

    /// A live registry of this instance that sees every entity, synced once.
    pub async fn registry(&self) -> (HaClient, homeclaw::ha::LiveRegistry) {
        let client = self.client();
        let registry = homeclaw::ha::LiveRegistry::spawn(
            client.clone(),
            homeclaw::ha::ExposurePolicy::new(homeclaw::config::ExposureConfig {
                respect_assist: false,
                ..Default::default()
            }),
        );
        assert!(
            registry
                .wait_synced_after(0, std::time::Duration::from_secs(30))
                .await
                .is_some(),
            "no registry sync from {}",
            self.ws_url()
        );
        (client, registry)
    }
}

/// The shared instance, started once per test binary.
pub fn shared() -> &'static HaInstance {
    static SHARED: OnceLock<HaInstance> = OnceLock::new();
    SHARED.get_or_init(|| HaInstance::start(SHARED_PORT))
}

/// Creates an Assist pipeline as Home Assistant's UI does (Settings → Voice assistants → Add
/// assistant): text only, conversation agent `agent`, English; returns it as listed.
pub async fn create_pipeline(
    client: &HaClient,
    name: &str,
    agent: &str,
    prefer_local_intents: bool,
) -> Value {
    client
        .request(homeclaw::ha::pipelines::create_text_pipeline(
            name,
            "en",
            agent,
            prefer_local_intents,
        ))
        .await
        .expect("Home Assistant creates the pipeline")
}
