//! HomeClaw benchmarks: commands that print a table. Speed and memory goals live here, never in
//! timed tests.
//!
//!   cargo run --release --bin homeclaw-bench -- registry [--entities 10000] [--runs 10]
//!   cargo run --release --bin homeclaw-bench -- agent [--entities 5000] [--runs 2000]
//!   cargo run --release --bin homeclaw-bench -- tokens
//!   cargo run --release --bin homeclaw-bench -- load [--sessions 200] [--commands 5]
//!   cargo run --release --bin homeclaw-bench -- soak [--seconds 60] [--clients 8]
//!   cargo run --release --bin homeclaw-bench -- assist --dataset DIR [--agent both] --config FILE

use std::time::{Duration, Instant};

use std::sync::{Mutex, PoisonError};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use futures_util::future::BoxFuture;
use homeclaw::agent::approval::ApprovalStore;
use homeclaw::agent::sim::{MemoryHome, ScriptedModel, calls_reply, synthetic_home, text_reply};
use homeclaw::agent::truncate::CHARS_PER_TOKEN;
use homeclaw::agent::{Agent, AgentConfig, RunStatus, ToolRegistry};
use homeclaw::config::ExposureConfig;
use homeclaw::ha::exposure::{AssistExposure, ExposurePolicy};
use homeclaw::ha::protocol::{Incoming, parse_frame};
use homeclaw::ha::registry::{Registry, Snapshot, StateObject};
use homeclaw::llm::{ChatModel, ChatRequest, ChatResponse, LlmError, Message, ToolChoice};
use serde_json::{Value, json};

#[path = "bench/assist/mod.rs"]
mod assist;
#[path = "bench/soak.rs"]
mod soak;

#[derive(Parser)]
#[command(name = "homeclaw-bench")]
struct Cli {
    #[command(subcommand)]
    bench: Bench,
}

#[derive(Subcommand)]
enum Bench {
    /// Ingest a synthetic get_states frame into the registry: time and peak RSS.
    Registry {
        #[arg(long, default_value_t = 10_000)]
        entities: usize,
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
    /// Agent-side time per loop iteration with a zero-latency scripted model.
    Agent {
        #[arg(long, default_value_t = 5_000)]
        entities: usize,
        #[arg(long, default_value_t = 2_000)]
        runs: usize,
    },
    /// Input tokens of the first model request for "turn on the kitchen light".
    Tokens,
    /// The Home LLM Leaderboard task sets (assist-mini, assist) against HomeClaw and Home
    /// Assistant's own agent, each home loaded into a real Home Assistant, scored as upstream.
    Assist(assist::Args),
    /// Evaluation: natural-language cases against HomeClaw (a running server) and/or Home
    /// Assistant's own conversation agent, with the demo home reset per case (scripts/eval.sh).
    Eval {
        #[arg(long, default_value = "eval/cases.yaml")]
        cases: std::path::PathBuf,
        /// homeclaw, ha, or both.
        #[arg(long, default_value = "both")]
        agent: String,
        #[arg(long, default_value = "http://127.0.0.1:8099")]
        homeclaw_url: String,
        #[arg(long, default_value = "http://127.0.0.1:8123")]
        ha_url: String,
        #[arg(long)]
        ha_token_file: std::path::PathBuf,
        /// Also write the table as Markdown here.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Only the first N cases.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// HTTP load: concurrent sessions against a zero-latency model, through the real API,
    /// session workers and agent loop, with a real Home Assistant (start one with
    /// `scripts/ha-dev.sh start`).
    Load {
        #[arg(long, default_value_t = 200)]
        sessions: usize,
        #[arg(long, default_value_t = 5)]
        commands: usize,
        #[arg(long, default_value = "ws://127.0.0.1:8123/api/websocket")]
        ha_url: String,
        #[arg(long)]
        ha_token_file: Option<std::path::PathBuf>,
    },
    /// Soak: mixed HTTP + MQTT + Wyoming traffic for a set time against a zero-latency model,
    /// with a real Home Assistant and a Mosquitto broker it starts itself (Debian's
    /// `mosquitto`): throughput, p99, RSS growth, lost and crossed replies.
    Soak {
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Concurrent clients per transport.
        #[arg(long, default_value_t = 8)]
        clients: usize,
        /// The model's context window; small values make compaction part of the soak.
        #[arg(long)]
        context_tokens: Option<usize>,
        #[arg(long, default_value = "ws://127.0.0.1:8123/api/websocket")]
        ha_url: String,
        #[arg(long)]
        ha_token_file: Option<std::path::PathBuf>,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().bench {
        Bench::Registry { entities, runs } => registry(entities, runs.max(1)),
        Bench::Agent { entities, runs } => agent(entities, runs.max(1)),
        Bench::Tokens => tokens(),
        Bench::Assist(args) => assist::run(args),
        Bench::Eval {
            cases,
            agent,
            homeclaw_url,
            ha_url,
            ha_token_file,
            out,
            limit,
        } => eval(EvalArgs {
            cases,
            agent,
            homeclaw_url,
            ha_url,
            ha_token_file,
            out,
            limit,
        }),
        Bench::Load {
            sessions,
            commands,
            ha_url,
            ha_token_file,
        } => load(sessions, commands, ha_url, ha_token_file),
        Bench::Soak {
            seconds,
            clients,
            context_tokens,
            ha_url,
            ha_token_file,
        } => soak::run(
            seconds,
            clients.max(1),
            context_tokens,
            ha_url,
            ha_token_file,
        ),
    }
}

/// (VmRSS, VmHWM) in KiB from /proc/self/status.
fn rss_kib() -> anyhow::Result<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").context("read /proc/self/status")?;
    let field = |name: &str| -> anyhow::Result<u64> {
        let line = status
            .lines()
            .find(|l| l.starts_with(name))
            .with_context(|| format!("{name} missing"))?;
        Ok(line.split_whitespace().nth(1).context("value")?.parse()?)
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}

const DOMAINS: [&str; 8] = [
    "light",
    "switch",
    "sensor",
    "binary_sensor",
    "cover",
    "climate",
    "lock",
    "media_player",
];

/// A state object shaped like what Home Assistant sends for the domain.
fn synthetic_state(i: usize) -> Value {
    let domain = DOMAINS[i % DOMAINS.len()];
    let room = [
        "kitchen",
        "living_room",
        "bedroom",
        "office",
        "garage",
        "hall",
    ][i % 6];
    let entity_id = format!("{domain}.{room}_{i}");
    let mut attributes = json!({
        "friendly_name": format!("{} {} {i}", room.replace('_', " "), domain.replace('_', " ")),
        "supported_features": i % 64,
    });
    let extra = match domain {
        "light" => json!({"brightness": i % 256, "color_mode": "hs", "hs_color": [30.0, 60.5],
            "supported_color_modes": ["hs", "color_temp"], "min_color_temp_kelvin": 2000,
            "max_color_temp_kelvin": 6500}),
        "sensor" => json!({"unit_of_measurement": "°C", "device_class": "temperature",
            "state_class": "measurement"}),
        "climate" => {
            json!({"hvac_modes": ["off", "heat", "cool", "auto"], "current_temperature": 21.5,
            "temperature": 22, "min_temp": 7, "max_temp": 35})
        }
        "cover" => json!({"current_position": i % 100, "device_class": "window"}),
        _ => json!({"icon": "mdi:thing"}),
    };
    if let (Some(a), Some(e)) = (attributes.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    json!({
        "entity_id": entity_id,
        "state": if i % 2 == 0 { "on" } else { "off" },
        "attributes": attributes,
        "last_changed": "2026-11-23T09:27:09.224576+00:00",
        "last_reported": "2026-11-23T09:27:09.224576+00:00",
        "last_updated": "2026-11-23T09:27:09.224576+00:00",
        "context": {"id": format!("01JD{i:022}"), "parent_id": null, "user_id": null}
    })
}

/// The whole path a real get_states reply takes: frame text → messages → typed states →
/// registry.
fn ingest(frame: &str) -> anyhow::Result<Registry> {
    let mut messages = parse_frame(frame)?;
    let Some(Incoming::Result {
        outcome: Ok(result),
        ..
    }) = messages.pop()
    else {
        bail!("not a successful result frame");
    };
    let states: Vec<StateObject> = serde_json::from_str(result.get())?;
    let snapshot = Snapshot {
        ha_version: "2025.4.4".into(),
        states,
        assist: AssistExposure::Unsupported,
        ..Default::default()
    };
    Ok(Registry::from_snapshot(
        snapshot,
        ExposurePolicy::new(ExposureConfig::default()),
        None,
    ))
}

fn registry(entities: usize, runs: usize) -> anyhow::Result<()> {
    let (base_rss, _) = rss_kib()?;
    // Built entity by entity so that the generator's own garbage does not inflate the peak.
    let mut frame = String::from(r#"{"id":5,"type":"result","success":true,"result":["#);
    for i in 0..entities {
        if i > 0 {
            frame.push(',');
        }
        frame.push_str(&synthetic_state(i).to_string());
    }
    frame.push_str("]}");
    frame.shrink_to_fit();
    let (payload_rss, _) = rss_kib()?;
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut count = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let registry = ingest(&frame)?;
        times.push(start.elapsed());
        count = registry.len();
    }
    let (_, peak) = rss_kib()?;
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = times[times.len() / 2];
    let max = times[times.len() - 1];
    println!("registry ingest: synthetic get_states, {entities} entities, {runs} runs");
    println!("{:<34} {:>12}", "metric", "value");
    println!("{:<34} {:>12}", "entities in registry", count);
    println!(
        "{:<34} {:>9.1} MB",
        "payload size",
        frame.len() as f64 / 1_048_576.0
    );
    println!("{:<34} {:>9.1} ms", "ingest time min", ms(times[0]));
    println!("{:<34} {:>9.1} ms", "ingest time median", ms(median));
    println!("{:<34} {:>9.1} ms", "ingest time max", ms(max));
    println!(
        "{:<34} {:>9.1} MB",
        "RSS at start",
        base_rss as f64 / 1024.0
    );
    println!(
        "{:<34} {:>9.1} MB",
        "RSS with payload held",
        payload_rss as f64 / 1024.0
    );
    println!(
        "{:<34} {:>9.1} MB",
        "peak RSS (VmHWM), whole process",
        peak as f64 / 1024.0
    );
    let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
    println!(
        "target: median < 100 ms: {}; peak RSS < 40 MB: {}",
        verdict(ms(median) < 100.0),
        verdict(peak < 40 * 1024)
    );
    Ok(())
}

/// Records when each sampling starts; the gaps are the agent's own time (the model answers at
/// once).
struct TimedModel {
    inner: ScriptedModel,
    stamps: Mutex<Vec<Instant>>,
}

impl ChatModel for TimedModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        self.stamps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Instant::now());
        self.inner.chat(request)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn agent(entities: usize, runs: usize) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let home = MemoryHome::new(synthetic_home(entities));
    let model = TimedModel {
        inner: ScriptedModel::default(),
        stamps: Mutex::new(Vec::new()),
    };
    let tools = ToolRegistry;
    let cfg = AgentConfig::default();
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
    let mut iterations: Vec<Duration> = Vec::with_capacity(runs * 3);
    for i in 0..runs {
        model.inner.push(Ok(calls_reply(
            &format!("s{i}"),
            &[("search_entities", json!({"query": "kitchen light"}))],
        )));
        model.inner.push(Ok(calls_reply(
            &format!("c{i}"),
            &[(
                "call_service",
                json!({"domain": "light", "service": "toggle", "entity_id": "light.kitchen_lights"}),
            )],
        )));
        model.inner.push(Ok(text_reply("Done.")));
        model.inner.clear_requests();
        let start = Instant::now();
        let mut history = vec![Message::user("toggle the kitchen light")];
        let result = runtime.block_on(agent.run(&mut history));
        let end = Instant::now();
        if result.status != RunStatus::Done {
            bail!("run {i} ended {:?}", result.status);
        }
        let mut stamps =
            std::mem::take(&mut *model.stamps.lock().unwrap_or_else(PoisonError::into_inner));
        stamps.insert(0, start);
        stamps.push(end);
        iterations.extend(stamps.windows(2).map(|w| w[1] - w[0]));
    }
    iterations.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "agent loop: {entities} entities, {runs} runs x 3 samplings (search, call, answer), \
         zero-latency model"
    );
    println!("{:<34} {:>12}", "metric", "value");
    println!("{:<34} {:>12}", "iterations measured", iterations.len());
    println!(
        "{:<34} {:>9.1} us",
        "agent time p50",
        us(percentile(&iterations, 0.50))
    );
    println!(
        "{:<34} {:>9.1} us",
        "agent time p90",
        us(percentile(&iterations, 0.90))
    );
    println!(
        "{:<34} {:>9.1} us",
        "agent time p99",
        us(percentile(&iterations, 0.99))
    );
    println!(
        "{:<34} {:>9.1} us",
        "agent time max",
        us(percentile(&iterations, 1.0))
    );
    println!(
        "target: p99 < 2 ms: {}",
        if percentile(&iterations, 0.99) < Duration::from_millis(2) {
            "PASS"
        } else {
            "MISS"
        }
    );
    Ok(())
}

fn tokens() -> anyhow::Result<()> {
    println!("first request for \"turn on the kitchen light\" (OpenAI wire JSON, 4 chars/token)");
    println!("{:<10} {:>10} {:>14}", "entities", "chars", "est. tokens");
    let mut worst = 0;
    for entities in [116, 500, 1_000, 2_000] {
        let home = MemoryHome::new(synthetic_home(entities));
        let model = ScriptedModel::default();
        let tools = ToolRegistry;
        let cfg = AgentConfig::default();
        let approvals = ApprovalStore::new(Duration::from_secs(60));
        let agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
        let request = agent.build_request(
            &[Message::user("turn on the kitchen light")],
            ToolChoice::Auto,
        );
        let body = homeclaw::llm::openai::render(&request, "model", false).to_string();
        let est = body.chars().count() / CHARS_PER_TOKEN;
        worst = worst.max(est);
        println!("{:<10} {:>10} {:>14}", entities, body.chars().count(), est);
    }
    println!(
        "target: at most 3000 tokens, flat in the entity count: {}",
        if worst <= 3000 { "PASS" } else { "MISS" }
    );
    Ok(())
}

/// The server side of the load and soak benches, in this process: the real App (Home
/// Assistant connection, registry, sessions, agent) with the zero-latency echo model, and the
/// HTTP API on a free port.
struct Stack {
    app: std::sync::Arc<homeclaw::app::App>,
    state: std::sync::Arc<homeclaw::api::ApiState>,
    addr: std::net::SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn stack_config(
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
    ]);
    Ok(Config::load(&Sources {
        file: None,
        options_json: Some(write_empty_options(&dir)?),
        env,
    })?)
}

impl Stack {
    async fn start(cfg: homeclaw::config::Config) -> anyhow::Result<Self> {
        use homeclaw::api::ApiState;
        use homeclaw::api::auth::AuthLimiter;
        use homeclaw::api::idempotency::IdempotencyStore;
        use homeclaw::app::App;
        use std::sync::Arc;
        let app = Arc::new(App::start_with_model(
            cfg,
            Arc::new(homeclaw::agent::sim::EchoModel),
        )?);
        if !app.wait_ready(Duration::from_secs(30)).await {
            bail!(
                "Home Assistant not reachable or registry not loaded (start it with scripts/ha-dev.sh start)"
            );
        }
        let state = Arc::new(ApiState {
            app: app.clone(),
            idempotency: IdempotencyStore::new(Duration::from_secs(60), 10_000),
            limiter: AuthLimiter::new(10, Duration::from_secs(60)),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(homeclaw::api::serve(state.clone(), listener, async {
            let _ = stop_rx.await;
        }));
        Ok(Self {
            app,
            state,
            addr,
            stop,
            server,
        })
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.server.await;
        self.app.shutdown().await;
    }
}

fn load(
    sessions: usize,
    commands: usize,
    ha_url: String,
    token_file: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let cfg = stack_config(ha_url, token_file)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let stack = Stack::start(cfg).await?;
        let addr = stack.addr;
        let http = reqwest::Client::new();
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
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let total = latencies.len();
        println!(
            "HTTP load: {sessions} concurrent sessions x {commands} commands, zero-latency model"
        );
        println!("{:<34} {:>12}", "metric", "value");
        println!("{:<34} {:>12}", "requests", total);
        println!("{:<34} {:>9.1} s", "wall time", elapsed.as_secs_f64());
        println!(
            "{:<34} {:>9.0} /s",
            "throughput",
            total as f64 / elapsed.as_secs_f64()
        );
        println!(
            "{:<34} {:>9.1} ms",
            "latency p50",
            ms(percentile(&latencies, 0.50))
        );
        println!(
            "{:<34} {:>9.1} ms",
            "latency p99",
            ms(percentile(&latencies, 0.99))
        );
        println!(
            "{:<34} {:>9.1} ms",
            "latency max",
            ms(percentile(&latencies, 1.0))
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

struct EvalArgs {
    cases: std::path::PathBuf,
    agent: String,
    homeclaw_url: String,
    ha_url: String,
    ha_token_file: std::path::PathBuf,
    out: Option<std::path::PathBuf>,
    limit: Option<usize>,
}

#[derive(serde::Deserialize)]
struct EvalCases {
    cases: Vec<EvalCase>,
}

#[derive(serde::Deserialize, Clone)]
struct EvalCase {
    id: String,
    language: String,
    kind: String,
    text: String,
    #[serde(default)]
    setup: Vec<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    expect_states: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    expect_status: Option<String>,
    #[serde(default)]
    expect_reply_any: Vec<String>,
    #[serde(default)]
    expect_reply_state: Option<String>,
}

struct EvalRow {
    agent: &'static str,
    id: String,
    pass: bool,
    honest: bool,
    status: String,
    tool_calls: u64,
    guard_events: u64,
    latency: Duration,
    prompt_tokens: u64,
    reply: String,
}

struct Ha {
    http: reqwest::Client,
    url: String,
    token: String,
}

impl Ha {
    async fn service(
        &self,
        call: &serde_json::Map<String, serde_json::Value>,
    ) -> anyhow::Result<()> {
        let mut body = call.clone();
        let service = body
            .remove("service")
            .and_then(|v| v.as_str().map(str::to_owned))
            .context("setup step without service")?;
        let (domain, name) = service.split_once('.').context("service is domain.name")?;
        self.http
            .post(format!("{}/api/services/{domain}/{name}", self.url))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await?
            .error_for_status()?;
        Ok(())
    }

    async fn state(&self, entity: &str) -> String {
        let response = self
            .http
            .get(format!("{}/api/states/{entity}", self.url))
            .bearer_auth(&self.token)
            .send()
            .await;
        match response {
            Ok(r) => r
                .json::<serde_json::Value>()
                .await
                .ok()
                .and_then(|v| v["state"].as_str().map(str::to_owned))
                .unwrap_or_default(),
            Err(_) => String::new(),
        }
    }
}

async fn judge(ha: &Ha, case: &EvalCase, status: &str, reply: &str, claimed: bool) -> (bool, bool) {
    let mut states_ok = true;
    for (entity, wanted) in &case.expect_states {
        let got = ha.state(entity).await;
        states_ok &= wanted.split('|').any(|w| w == got);
    }
    let lower = reply.to_lowercase();
    let reply_ok = if let Some(entity) = &case.expect_reply_state {
        let state = ha.state(entity).await;
        !state.is_empty() && lower.contains(&state.to_lowercase())
    } else if !case.expect_reply_any.is_empty() {
        case.expect_reply_any
            .iter()
            .any(|w| lower.contains(&w.to_lowercase()))
    } else {
        true
    };
    let status_ok = case.expect_status.as_deref().is_none_or(|s| s == status);
    let pass = match case.kind.as_str() {
        "missing" => !claimed,
        _ => states_ok && reply_ok && status_ok,
    };
    // Dishonest: claims success while the expected outcome is not there.
    let honest = !(claimed && (!states_ok || case.kind == "missing"));
    (pass, honest)
}

fn eval(args: EvalArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.cases)?;
    let mut cases: EvalCases = config::Config::builder()
        .add_source(config::File::from_str(&text, config::FileFormat::Yaml))
        .build()?
        .try_deserialize()?;
    if let Some(n) = args.limit {
        cases.cases.truncate(n);
    }
    let token = std::fs::read_to_string(&args.ha_token_file)?
        .trim()
        .to_owned();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let ha = Ha {
            http: reqwest::Client::builder().timeout(Duration::from_secs(600)).build()?,
            url: args.ha_url.clone(),
            token: token.clone(),
        };
        let agents: Vec<&'static str> = match args.agent.as_str() {
            "homeclaw" => vec!["homeclaw"],
            "ha" => vec!["ha"],
            _ => vec!["homeclaw", "ha"],
        };
        // HA's own agent over the websocket (conversation/process).
        let client = homeclaw::ha::HaClient::spawn(homeclaw::ha::ClientSettings {
            url: format!("{}/api/websocket", args.ha_url.replacen("http", "ws", 1)),
            token: homeclaw::secret::Secret::new(token),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(30),
            heartbeat_timeout: Duration::from_secs(10),
            backoff: homeclaw::backoff::Backoff {
                initial: Duration::from_millis(200),
                max: Duration::from_secs(2),
            },
            subscriptions: vec![],
        });
        client.wait_connected(Duration::from_secs(30)).await?;
        let mut rows = Vec::new();
        for case in &cases.cases {
            for agent in &agents {
                for step in &case.setup {
                    ha.service(step).await?;
                }
                let started = Instant::now();
                let row = if *agent == "homeclaw" {
                    let body: serde_json::Value = ha
                        .http
                        .post(format!("{}/api/command", args.homeclaw_url))
                        .json(&json!({"text": case.text, "session_id": format!("eval-{}-{}", case.id, fastrand::u32(..)), "language": case.language}))
                        .send()
                        .await?
                        .json()
                        .await?;
                    let latency = started.elapsed();
                    let status = body["status"].as_str().unwrap_or("error").to_owned();
                    let reply = body["reply"].as_str().unwrap_or_default().to_owned();
                    // A claim of success (the unverified-action note is HomeClaw saying it is not).
                    let claimed = status == "done"
                        && homeclaw::agent::honesty::claims_action_or_observation(&reply)
                        && !reply.contains("could not confirm");
                    let (pass, honest) = judge(&ha, case, &status, &reply, claimed).await;
                    let stats = &body["stats"];
                    let n = |k: &str| stats[k].as_u64().unwrap_or(0);
                    EvalRow {
                        agent: "homeclaw",
                        id: case.id.clone(),
                        pass,
                        honest,
                        status,
                        tool_calls: n("tool_calls"),
                        guard_events: n("rejected_tool_calls") + n("breaker_hits") + n("loop_warnings")
                            + n("loop_blocks") + n("hallucination_retries") + n("unverified_actions"),
                        latency,
                        prompt_tokens: n("input_tokens"),
                        reply,
                    }
                } else {
                    let result = client
                        .request_with_timeout(
                            homeclaw::ha::protocol::Command::new("conversation/process")
                                .with("text", json!(case.text))
                                .with("language", json!(case.language))
                                .with("agent_id", json!("conversation.home_assistant")),
                            Duration::from_secs(60),
                        )
                        .await
                        .unwrap_or_default();
                    let latency = started.elapsed();
                    let kind = result["response"]["response_type"].as_str().unwrap_or("error").to_owned();
                    let reply = result["response"]["speech"]["plain"]["speech"].as_str().unwrap_or_default().to_owned();
                    let status = match kind.as_str() {
                        "action_done" | "query_answer" => "done",
                        _ => "failed",
                    }
                    .to_owned();
                    let claimed = kind == "action_done";
                    let (pass, honest) = judge(&ha, case, &status, &reply, claimed).await;
                    EvalRow {
                        agent: "ha",
                        id: case.id.clone(),
                        pass,
                        honest,
                        status: kind,
                        tool_calls: 0,
                        guard_events: 0,
                        latency,
                        prompt_tokens: 0,
                        reply,
                    }
                };
                eprintln!("{:<9} {:<24} {} {}", row.agent, row.id, if row.pass { "PASS" } else { "fail" }, row.reply.chars().take(80).collect::<String>());
                rows.push(row);
            }
        }
        let mut table = String::new();
        table.push_str("| case | agent | result | honest | status | tool calls | guard events | latency s | prompt tokens |\n|---|---|---|---|---|---|---|---|---|\n");
        for r in &rows {
            table.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {} |\n",
                r.id, r.agent, if r.pass { "pass" } else { "FAIL" }, if r.honest { "yes" } else { "NO" },
                r.status, r.tool_calls, r.guard_events, r.latency.as_secs_f64(), r.prompt_tokens
            ));
        }
        table.push_str("\n| agent | cases | success rate | honesty rate | p50 latency s | p95 latency s | mean prompt tokens |\n|---|---|---|---|---|---|---|\n");
        for agent in &agents {
            let mine: Vec<&EvalRow> = rows.iter().filter(|r| r.agent == *agent).collect();
            let n = mine.len().max(1) as f64;
            let mut lat: Vec<Duration> = mine.iter().map(|r| r.latency).collect();
            lat.sort();
            table.push_str(&format!(
                "| {} | {} | {:.0}% | {:.0}% | {:.1} | {:.1} | {:.0} |\n",
                agent,
                mine.len(),
                100.0 * mine.iter().filter(|r| r.pass).count() as f64 / n,
                100.0 * mine.iter().filter(|r| r.honest).count() as f64 / n,
                percentile(&lat, 0.5).as_secs_f64(),
                percentile(&lat, 0.95).as_secs_f64(),
                mine.iter().map(|r| r.prompt_tokens as f64).sum::<f64>() / n,
            ));
        }
        println!("{table}");
        if let Some(out) = args.out {
            std::fs::write(out, table)?;
        }
        anyhow::Ok(())
    })
}
