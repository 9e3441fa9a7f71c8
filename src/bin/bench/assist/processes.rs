//! The processes a benchmark run drives: Home Assistant through the project's own script, and
//! the real `homeclaw serve` with the user's configuration and the benchmark's overrides.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// Where a benchmark's Home Assistant and HomeClaw come from (`assist` and `conformance`).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Setup {
    /// Port of the benchmark's own Home Assistant.
    #[arg(long, default_value_t = 18300)]
    pub(crate) ha_port: u16,
    /// The script that starts Home Assistant with a home loaded.
    #[arg(long, default_value = "scripts/ha-dev.sh")]
    pub(crate) ha_script: PathBuf,
    /// The homeclaw binary (default: next to this one).
    #[arg(long)]
    pub(crate) homeclaw_bin: Option<PathBuf>,
    /// Per-command limit for either agent.
    #[arg(long, default_value_t = 300)]
    pub(crate) command_timeout_secs: u64,
    /// Only what matches this regular expression: an assist task's id
    /// (`home/file#test.sentence`), a conformance case's (`<lang>/<file>#<block>.<sentence>`).
    #[arg(long)]
    pub(crate) only: Option<String>,
}

impl Setup {
    /// `--only`, compiled: a pattern that is no regular expression is an error before anything
    /// starts.
    pub(crate) fn only(&self) -> anyhow::Result<Option<regex::Regex>> {
        self.only
            .as_deref()
            .map(regex::Regex::new)
            .transpose()
            .context("--only is not a valid regular expression")
    }

    pub(crate) fn command_timeout(&self) -> Duration {
        Duration::from_secs(self.command_timeout_secs)
    }

    /// The benchmark's Home Assistant, its configuration cached per port.
    pub(crate) fn ha(&self) -> anyhow::Result<HaProcess> {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .context("neither XDG_CACHE_HOME nor HOME is set")?;
        Ok(HaProcess {
            script: self.ha_script.clone(),
            port: self.ha_port,
            config_dir: cache.join(format!("homeclaw/ha-bench-{}", self.ha_port)),
        })
    }

    pub(crate) fn homeclaw_bin(&self) -> anyhow::Result<PathBuf> {
        Ok(match &self.homeclaw_bin {
            Some(bin) => bin.clone(),
            None => std::env::current_exe()?.with_file_name("homeclaw"),
        })
    }

    /// A websocket client of the started Home Assistant, connected.
    pub(crate) async fn connect(
        &self,
        ha: &HaEndpoints,
        subscriptions: Vec<String>,
    ) -> anyhow::Result<homeclaw::ha::HaClient> {
        let client = homeclaw::ha::HaClient::spawn(homeclaw::ha::ClientSettings {
            url: ha.ws_url.clone(),
            token: homeclaw::secret::Secret::new(ha.token.clone()),
            connect_timeout: Duration::from_secs(10),
            request_timeout: self.command_timeout(),
            heartbeat_interval: Duration::from_secs(30),
            heartbeat_timeout: Duration::from_secs(10),
            backoff: homeclaw::backoff::Backoff {
                initial: Duration::from_millis(200),
                max: Duration::from_secs(2),
            },
            subscriptions,
        });
        client.wait_connected(Duration::from_secs(30)).await?;
        Ok(client)
    }
}

/// The benchmark's Home Assistant, started and stopped through the project's own script.
pub(crate) struct HaProcess {
    pub(crate) script: PathBuf,
    pub(crate) port: u16,
    pub(crate) config_dir: PathBuf,
}

pub(crate) struct HaEndpoints {
    pub(crate) ws_url: String,
    pub(crate) token: String,
}

impl HaProcess {
    fn command(&self, verb: &str) -> Command {
        let mut cmd = Command::new(&self.script);
        cmd.arg(verb)
            .env("HA_PORT", self.port.to_string())
            .env("HA_CONFIG_DIR", &self.config_dir)
            .stdin(Stdio::null());
        cmd
    }

    pub(crate) fn stop(&self) {
        let _ = self
            .command("stop")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// Restarts Home Assistant with `fixture` as its home.
    pub(crate) fn start(&self, fixture: &Path) -> anyhow::Result<HaEndpoints> {
        self.stop();
        let out = self
            .command("start")
            .env("HA_HOME", fixture)
            .stderr(Stdio::piped())
            .output()
            .with_context(|| format!("cannot run {}", self.script.display()))?;
        let messages = String::from_utf8_lossy(&out.stderr);
        eprint!("{messages}");
        if !out.status.success() {
            // The script's own last words say why (the loader names the entity it refused).
            let why: Vec<&str> = messages
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .rev()
                .take(2)
                .collect();
            bail!(
                "Home Assistant did not start with the home {}: {}",
                fixture.display(),
                why.into_iter().rev().collect::<Vec<_>>().join(" / ")
            );
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let var = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")))
                .map(str::to_owned)
                .with_context(|| format!("{} printed no {key}", self.script.display()))
        };
        let token_file = var("HA_TOKEN_FILE")?;
        Ok(HaEndpoints {
            ws_url: var("HA_WS_URL")?,
            token: std::fs::read_to_string(&token_file)
                .with_context(|| format!("cannot read {token_file}"))?
                .trim()
                .to_owned(),
        })
    }
}

#[derive(Default)]
pub(crate) struct Answer {
    pub(crate) reply: String,
    pub(crate) status: String,
    pub(crate) latency: Duration,
    pub(crate) llm_requests: Option<u64>,
    pub(crate) prompt_tokens: Option<u64>,
    pub(crate) needed_approval: bool,
    pub(crate) error: Option<String>,
    /// HomeClaw's trace of the run (guard decisions, tool results), for reading failures.
    pub(crate) trace: Vec<String>,
    /// HomeClaw's reports of the calls it made (or, in a dry run, planned).
    pub(crate) actions: Vec<Value>,
}

impl Answer {
    pub(crate) fn error(message: String) -> Self {
        Self {
            status: "error".into(),
            error: Some(message),
            ..Self::default()
        }
    }
}

/// The real `homeclaw serve`, with the user's configuration and the benchmark's overrides.
pub(crate) struct HomeClawProcess {
    child: Child,
    url: String,
    token: String,
}

impl HomeClawProcess {
    pub(crate) async fn start(
        bin: &Path,
        config: &Path,
        ha: &HaEndpoints,
        dir: &Path,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let api_token = format!("bench-{:016x}", fastrand::u64(..));
        let log = std::fs::File::create(dir.join("homeclaw.log"))?;
        let mut child = Command::new(bin)
            .arg("--config")
            .arg(config)
            .arg("serve")
            .env("HOMECLAW_HA__URL", &ha.ws_url)
            // Overrides a token in the user's file too (the environment layer wins).
            .env("HOMECLAW_HA__TOKEN", &ha.token)
            .env("HOMECLAW_API__LISTEN", "127.0.0.1:0")
            .env("HOMECLAW_API__TOKEN", &api_token)
            .env("HOMECLAW_SESSION__DIR", dir.join("sessions"))
            .env("HOMECLAW_WYOMING__ENABLED", "false")
            .env("HOMECLAW_PANEL__ENABLED", "false")
            .env("HOMECLAW_MQTT__ENABLED", "false")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start {}", bin.display()))?;
        let stdout = child.stdout.take().context("no stdout")?;
        let listening = tokio::task::spawn_blocking(move || {
            std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .find_map(|l| l.strip_prefix("HOMECLAW_LISTENING=").map(str::to_owned))
        })
        .await?;
        let Some(addr) = listening else {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(dir.join("homeclaw.log")).unwrap_or_default();
            bail!("homeclaw did not start: {}", log.trim());
        };
        let process = Self {
            child,
            url: format!("http://{addr}"),
            token: api_token,
        };
        let health = homeclaw::tls::http_client()
            .get(format!("{}/api/health?wait_ready_ms=30000", process.url))
            .send()
            .await?
            .json::<Value>()
            .await?;
        if health["registry"]["synced"] != json!(true) {
            bail!("homeclaw did not sync its registry with Home Assistant: {health}");
        }
        Ok(process)
    }

    async fn post(&self, http: &reqwest::Client, path: &str, body: Value) -> anyhow::Result<Value> {
        Ok(http
            .post(format!("{}{path}", self.url))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await?
            .json::<Value>()
            .await?)
    }

    pub(crate) async fn ask(
        &self,
        http: &reqwest::Client,
        sentence: &str,
        language: &str,
        device: Option<&str>,
        dry_run: bool,
    ) -> Answer {
        let started = Instant::now();
        let session = format!("bench-{:016x}", fastrand::u64(..));
        let mut body = json!({"text": sentence, "session_id": session, "language": language});
        if dry_run {
            body["dry_run"] = json!(true);
        }
        if let Some(device) = device {
            body["device_id"] = json!(device);
        }
        let result = self.post(http, "/api/command", body).await;
        let latency = started.elapsed();
        let body = match result {
            Ok(b) => b,
            Err(e) => {
                return Answer {
                    latency,
                    ..Answer::error(format!("POST /api/command failed: {e}"))
                };
            }
        };
        let stats = &body["stats"];
        let mut answer = Answer {
            reply: body["reply"].as_str().unwrap_or_default().to_owned(),
            status: body["status"]
                .as_str()
                .or_else(|| body["error"]["code"].as_str())
                .unwrap_or("error")
                .to_owned(),
            latency,
            llm_requests: stats["rounds"].as_u64(),
            prompt_tokens: stats["input_tokens"].as_u64(),
            trace: body["trace"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .filter_map(|l| l.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            actions: body["actions"].as_array().cloned().unwrap_or_default(),
            ..Answer::default()
        };
        if let Some(id) = body["approval_id"].as_str() {
            // The person approves, as they would from the reply.
            answer.needed_approval = true;
            match self
                .post(http, "/api/approve", json!({"approval_id": id}))
                .await
            {
                Ok(b) => {
                    let said = b["reply"]
                        .as_str()
                        .or_else(|| b["error"]["message"].as_str())
                        .unwrap_or_default();
                    answer.reply = format!("{} {said}", answer.reply);
                }
                Err(e) => answer.error = Some(format!("POST /api/approve failed: {e}")),
            }
        }
        answer
    }

    pub(crate) fn stop(mut self) {
        // SIGTERM would be kinder, but the process holds nothing the benchmark needs.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
