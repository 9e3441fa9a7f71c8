//! `homeclaw-bench load`, and the in-process server stack it shares with the soak.

use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;

use crate::print_quantiles;

/// The server side of the load and soak benches, in this process: the service's own start-up
/// (Home Assistant connection, registry, sessions, agent, and the transports the configuration
/// turns on) with the zero-latency echo model, on free ports.
pub(crate) struct Stack {
    server: homeclaw::server::Server,
    pub(crate) addr: std::net::SocketAddr,
    pub(crate) wyoming: Option<std::net::SocketAddr>,
}

pub(crate) fn stack_config(
    ha_url: String,
    token_file: Option<std::path::PathBuf>,
) -> anyhow::Result<homeclaw::config::Config> {
    use homeclaw::config::{Config, Sources};
    let token_file = token_file.unwrap_or_else(|| {
        std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default())
            .join(".cache/homeclaw/ha-8123/token")
    });
    let dir = tempfile_dir()?;
    let env = std::collections::HashMap::from([
        ("HOMECLAW_HA__URL".to_string(), ha_url),
        (
            "HOMECLAW_HA__TOKEN_FILE".to_string(),
            token_file.display().to_string(),
        ),
        (
            "HOMECLAW_SESSION__DIR".to_string(),
            dir.join("sessions").display().to_string(),
        ),
        (
            "HOMECLAW_SESSION__QUEUE_CAPACITY".to_string(),
            "64".to_string(),
        ),
        ("HOMECLAW_LOG__LEVEL".to_string(), "warn".to_string()),
        (
            "HOMECLAW_API__LISTEN".to_string(),
            "127.0.0.1:0".to_string(),
        ),
        ("HOMECLAW_WYOMING__ENABLED".to_string(), "false".to_string()),
        ("HOMECLAW_PANEL__ENABLED".to_string(), "false".to_string()),
    ]);
    Ok(Config::load(&Sources {
        file: None,
        options_json: Some(write_empty_options(&dir)?),
        env,
    })?)
}

impl Stack {
    pub(crate) async fn start(cfg: homeclaw::config::Config) -> anyhow::Result<Self> {
        use homeclaw::app::App;
        use std::sync::Arc;
        let app = App::start_with_model(cfg, Arc::new(homeclaw::agent::testkit::EchoModel))?;
        if !app.wait_ready(Duration::from_secs(30)).await {
            bail!(
                "Home Assistant not reachable or registry not loaded (start it with scripts/ha-dev.sh start)"
            );
        }
        let server = homeclaw::server::Server::start(app).await?;
        Ok(Self {
            addr: server.http_addr,
            wyoming: server.wyoming_addr,
            server,
        })
    }

    pub(crate) async fn stop(self) {
        self.server.shutdown().await;
    }
}

pub fn run(
    sessions: usize,
    commands: usize,
    ha_url: String,
    token_file: Option<std::path::PathBuf>,
    ha_recogniser: bool,
) -> anyhow::Result<()> {
    let mut cfg = stack_config(ha_url, token_file)?;
    cfg.agent.ha_recogniser.enabled = ha_recogniser;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let stack = Stack::start(cfg).await?;
        let addr = stack.addr;
        let http = homeclaw::tls::http_client();
        let started = Instant::now();
        let mut tasks = Vec::new();
        for s in 0..sessions {
            let http = http.clone();
            tasks.push(tokio::spawn(async move {
                let mut latencies = Vec::new();
                let (mut lost, mut crossed) = (0usize, 0usize);
                for c in 0..commands {
                    let text = format!("session {s} command {c}");
                    let t0 = Instant::now();
                    let response = http
                        .post(format!("http://{addr}/api/command"))
                        .json(&json!({"text": text, "session_id": format!("load-{s}")}))
                        .send()
                        .await;
                    let body: Option<serde_json::Value> = match response {
                        Ok(r) if r.status().is_success() => r.json().await.ok(),
                        _ => None,
                    };
                    latencies.push(t0.elapsed());
                    match body {
                        None => lost += 1,
                        Some(b) => {
                            if b["reply"] != json!(format!("echo: {text}"))
                                || b["session_id"] != json!(format!("load-{s}"))
                            {
                                crossed += 1;
                            }
                        }
                    }
                }
                (latencies, lost, crossed)
            }));
        }
        let mut latencies = Vec::new();
        let (mut lost, mut crossed) = (0, 0);
        for t in tasks {
            let (l, lo, cr) = t.await?;
            latencies.extend(l);
            lost += lo;
            crossed += cr;
        }
        let elapsed = started.elapsed();
        stack.stop().await;
        latencies.sort();
        let total = latencies.len();
        println!(
            "HTTP load: {sessions} concurrent sessions x {commands} commands, zero-latency model, \
             Home Assistant's recogniser {}",
            if ha_recogniser { "asked" } else { "off" }
        );
        println!("{:<34} {:>12}", "metric", "value");
        println!("{:<34} {:>12}", "requests", total);
        println!("{:<34} {:>9.1} s", "wall time", elapsed.as_secs_f64());
        println!(
            "{:<34} {:>9.0} /s",
            "throughput",
            total as f64 / elapsed.as_secs_f64()
        );
        print_quantiles(
            "latency",
            &latencies,
            &[("p50", 0.50), ("p99", 0.99), ("max", 1.0)],
            "ms",
            1e3,
        );
        println!("{:<34} {:>12}", "lost replies", lost);
        println!("{:<34} {:>12}", "crossed replies", crossed);
        if lost + crossed > 0 {
            bail!("{lost} lost and {crossed} crossed replies");
        }
        Ok(())
    })
}

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("homeclaw-bench-{:016x}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn write_empty_options(dir: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    let path = dir.join("options.json");
    std::fs::write(&path, "{}")?;
    Ok(path)
}
