//! HomeClaw as a spawned binary (`homeclaw serve`), configured by a real config file, reached
//! over real HTTP. Readiness is the `HOMECLAW_LISTENING=` line on stdout, then
//! `/api/health?wait_ready_ms=…` (the server waits; the test never sleeps).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::ha::HaInstance;

pub const API_TOKEN: &str = "test-api-token-0123456789";

pub struct Homeclaw {
    child: Child,
    pub url: String,
    /// The Wyoming handle service's address.
    pub wyoming: Option<String>,
    /// The panel's `host:port`, when it listens.
    pub panel: Option<String>,
    pub config: PathBuf,
    pub stderr: PathBuf,
}

/// A config file for a server on a free port talking to `ha` and the scripted LLM at `llm_url`.
pub fn config_yaml(
    ha_ws_url: &str,
    ha_token: &str,
    llm_url: &str,
    session_dir: &Path,
    extra: &str,
) -> String {
    let llm = format!(
        "llm:\n  max_attempts: 2\n  initial_backoff_ms: 1\n  max_backoff_ms: 5\n  request_timeout_ms: 10000\n  models:\n\
         \x20   - name: scripted\n      provider: openai\n      base_url: {llm_url}\n      model: scripted\n      api_key: {LLM_KEY}\n"
    );
    config_with_llm(ha_ws_url, ha_token, &llm, session_dir, extra)
}

/// The API key the scripted model is configured with (a secret that must never leak).
pub const LLM_KEY: &str = "sk-test-llm-key-1234567890";

/// As [`config_yaml`] with a whole `llm:` section of the caller's. The fast path and the replies
/// from verification are off: these tests script what the model says (a test of either turns
/// it on).
pub fn config_with_llm(
    ha_ws_url: &str,
    ha_token: &str,
    llm: &str,
    session_dir: &Path,
    extra: &str,
) -> String {
    format!(
        "ha:\n  url: {ha_ws_url}\n  token: {ha_token}\n  reconnect_initial_ms: 100\n  reconnect_max_ms: 1000\n\
         {llm}\
         agent:\n  fast_path: false\n  answer_from_verification: false\n\
         session:\n  dir: {}\n\
         api:\n  listen: 127.0.0.1:0\n  token: {API_TOKEN}\n  max_body_bytes: 4096\n\
         wyoming:\n  listen: 127.0.0.1:0\n\
         panel:\n  listen: 127.0.0.1:0\n\
         log:\n  level: info\n{extra}",
        session_dir.display()
    )
}

/// The fast path off and the replies from verification off, as [`config_with_llm`] writes them.
const MODEL_ONLY: &str = "agent:\n  fast_path: false\n  answer_from_verification: false\n";

/// `config` (from [`config_with_llm`]) with the fast path and the replies from verification on,
/// as HomeClaw runs by default.
pub fn with_fast_path(config: &str) -> String {
    assert!(config.contains(MODEL_ONLY), "{config}");
    config.replace(
        MODEL_ONLY,
        "agent:\n  fast_path: true\n  answer_from_verification: true\n",
    )
}

pub fn config_for(ha: &HaInstance, llm_url: &str, session_dir: &Path) -> String {
    config_yaml(&ha.ws_url(), &ha.token, llm_url, session_dir, "")
}

impl Homeclaw {
    /// Writes `config` to `dir/homeclaw.yaml` and starts the server.
    pub fn spawn(dir: &Path, config: &str) -> Self {
        let path = dir.join("homeclaw.yaml");
        std::fs::write(&path, config).expect("write config");
        Self::spawn_with(&path, dir)
    }

    pub fn spawn_with(config: &Path, dir: &Path) -> Self {
        Self::spawn_env(config, dir, None)
    }

    /// As the add-on starts it: the Supervisor's token in the environment, which turns on the
    /// add-on's defaults (those the config file does not set).
    pub fn spawn_addon(dir: &Path, config: &str) -> Self {
        let path = dir.join("homeclaw.yaml");
        std::fs::write(&path, config).expect("write config");
        Self::spawn_env(&path, dir, Some("supervisor-test-token-0123456789"))
    }

    fn spawn_env(config: &Path, dir: &Path, supervisor: Option<&str>) -> Self {
        let options = dir.join("options.json");
        if !options.exists() {
            std::fs::write(&options, "{}").expect("write options");
        }
        let stderr = dir.join(format!("homeclaw-{}.log", fastrand::u32(..)));
        let mut command = Command::new(env!("CARGO_BIN_EXE_homeclaw"));
        command
            .args(["--config", config.to_str().expect("utf-8 path")])
            .args(["--options", options.to_str().expect("utf-8 path")])
            .arg("serve");
        match supervisor {
            Some(token) => command.env("SUPERVISOR_TOKEN", token),
            None => command.env_remove("SUPERVISOR_TOKEN"),
        };
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("log file"))
            .spawn()
            .expect("spawn homeclaw");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut wyoming = None;
        let mut panel = None;
        let addr = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(addr) = line.strip_prefix("HOMECLAW_WYOMING=") {
                        wyoming = Some(addr.to_owned());
                    }
                    if let Some(addr) = line.strip_prefix("HOMECLAW_PANEL=") {
                        panel = Some(addr.to_owned());
                    }
                    if let Some(addr) = line.strip_prefix("HOMECLAW_LISTENING=") {
                        break addr.to_owned();
                    }
                }
                _ => panic!(
                    "homeclaw exited before listening:\n{}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                ),
            }
        };
        Self {
            child,
            url: format!("http://{addr}"),
            wyoming,
            panel,
            config: config.to_owned(),
            stderr,
        }
    }

    /// Waits (server-side) until Home Assistant is connected and the registry loaded.
    pub async fn ready(&self) -> Value {
        let (status, body, _) = self
            .request("GET", "/api/health?wait_ready_ms=30000", None, &[])
            .await;
        assert_eq!(status, 200);
        body
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        headers: &[(&str, &str)],
    ) -> (u16, Value, HeaderMap) {
        let http = homeclaw::tls::http_client();
        let url = format!("{}{path}", self.url);
        let mut req = match method {
            "GET" => http.get(url),
            _ => http.post(url),
        };
        let mut has_auth = false;
        for (k, v) in headers {
            has_auth |= k.eq_ignore_ascii_case("authorization");
            req = req.header(*k, *v);
        }
        if !has_auth {
            req = req.bearer_auth(API_TOKEN);
        }
        if let Some(b) = body {
            req = req
                .header("content-type", "application/json")
                .body(b.to_owned());
        }
        let response = req.send().await.expect("request to homeclaw");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body, headers)
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        let (s, b, _) = self
            .request("POST", path, Some(&body.to_string()), &[])
            .await;
        (s, b)
    }

    /// `POST /api/command` with `text` in `session`.
    pub async fn command(&self, text: &str, session: &str) -> (u16, Value) {
        self.post_json(
            "/api/command",
            &serde_json::json!({"text": text, "session_id": session}),
        )
        .await
    }

    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then wait for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        self.child.wait().expect("wait for homeclaw")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Homeclaw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
