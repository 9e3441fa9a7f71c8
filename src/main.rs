//! The `homeclaw` binary: configuration, wiring and exit codes. Logic lives in the library.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use homeclaw::api::auth::AuthLimiter;
use homeclaw::api::idempotency::IdempotencyStore;
use homeclaw::api::{ApiState, new_session_id, outcome_json};
use homeclaw::app::App;
use homeclaw::config::{Config, Sources};
use homeclaw::ha::registry::Registry;
use homeclaw::ha::summary;
use homeclaw::ha::{ClientSettings, ConnectionState, ExposurePolicy, HaClient};
use homeclaw::session::manager::CommandRequest;
use serde_json::Value;
use tracing::{info, warn};

/// Exit codes of `homeclaw ask` (and the failures every command shares).
mod exit {
    pub const FAILURE: u8 = 1;
    pub const CONFIG: u8 = 2;
    pub const CLARIFICATION: u8 = 21;
    pub const APPROVAL: u8 = 22;
    pub const UNVERIFIED: u8 = 23;
}

#[derive(Parser)]
#[command(
    name = "homeclaw",
    version,
    about = "A Home Assistant agent that does not make things up"
)]
struct Cli {
    /// Config file (.yaml, .toml or .json); also HOMECLAW_CONFIG.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Add-on options file (default /data/options.json when present); also HOMECLAW_OPTIONS_PATH.
    #[arg(long, global = true)]
    options: Option<PathBuf>,
    #[command(subcommand)]
    command: Commands,
}

#[derive(Subcommand)]
enum Commands {
    /// Connect to Home Assistant, print what HomeClaw sees, and exit (non-zero with the reason).
    Check,
    /// Run HomeClaw: the HTTP API until SIGINT or SIGTERM.
    Serve,
    /// Print the effective configuration as JSON (secrets as ***), then exit.
    Config,
    /// Send one command. Exit codes: 0 done, 21 clarification required, 22 approval required,
    /// 23 actions not verified, 1 other failure.
    Ask {
        /// What to do or ask, e.g. "turn on the kitchen light".
        text: String,
        /// Continue this session (default: a new one).
        #[arg(long)]
        session: Option<String>,
        /// Print the whole JSON result.
        #[arg(long)]
        json: bool,
        #[arg(long)]
        show_trace: bool,
        #[arg(long)]
        show_stats: bool,
        /// Plan and validate only; call no service.
        #[arg(long)]
        dry_run: bool,
        /// Run in this process instead of talking to a running server.
        #[arg(long)]
        local: bool,
        /// Server base URL (default: http:// + api.listen).
        #[arg(long)]
        url: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let cfg = match Config::load(&Sources::from_process(cli.config, cli.options)) {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return ExitCode::from(exit::CONFIG);
        }
    };
    let mut secrets = cfg.secrets();
    secrets.extend(std::env::var("SUPERVISOR_TOKEN").ok());
    homeclaw::telemetry::init(&cfg.log.level, secrets);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("homeclaw: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Commands::Check => check(&cfg).await,
            Commands::Serve => serve(cfg).await,
            Commands::Config => {
                println!("{}", serde_json::to_string_pretty(&cfg)?);
                Ok(ExitCode::SUCCESS)
            }
            Commands::Ask {
                text,
                session,
                json,
                show_trace,
                show_stats,
                dry_run,
                local,
                url,
            } => {
                let request = CommandRequest { text, dry_run };
                let show = Show {
                    json,
                    trace: show_trace,
                    stats: show_stats,
                };
                if local {
                    ask_local(cfg, session, request, show).await
                } else {
                    ask_remote(&cfg, session, request, show, url).await
                }
            }
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("homeclaw: {e:#}");
            ExitCode::from(exit::FAILURE)
        }
    }
}

async fn check(cfg: &Config) -> anyhow::Result<ExitCode> {
    let settings = match ClientSettings::from_config(cfg) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return Ok(ExitCode::from(exit::CONFIG));
        }
    };
    let client = HaClient::spawn(settings);
    let code = match client.first_outcome().await {
        ConnectionState::Connected { .. } => {
            let snapshot = client
                .snapshot()
                .await
                .context("reading the registry from Home Assistant")?;
            let registry =
                Registry::from_snapshot(snapshot, ExposurePolicy::new(cfg.exposure.clone()), None);
            print!("{}", summary::render(&registry, &cfg.ha.url));
            ExitCode::SUCCESS
        }
        ConnectionState::AuthFailed { message } => {
            eprintln!(
                "homeclaw: Home Assistant at {} refused the access token ({message}); \
                 create a long-lived token under Profile > Security",
                cfg.ha.url
            );
            ExitCode::from(exit::FAILURE)
        }
        ConnectionState::Disconnected { reason, .. } => {
            eprintln!(
                "homeclaw: cannot reach Home Assistant at {}: {reason}",
                cfg.ha.url
            );
            ExitCode::from(exit::FAILURE)
        }
        other => {
            eprintln!("homeclaw: Home Assistant connection ended: {other:?}");
            ExitCode::from(exit::FAILURE)
        }
    };
    client.shutdown().await;
    Ok(code)
}

/// The idempotency journal lives beside the sessions (a leading dot keeps it out of the
/// session id space). If it cannot be opened the keys are kept in memory, and that is said.
fn open_idempotency(cfg: &Config) -> IdempotencyStore {
    let ttl = Duration::from_secs(cfg.api.idempotency_ttl_secs);
    let path = cfg.session.dir.join(".idempotency.jsonl");
    let _ = std::fs::create_dir_all(&cfg.session.dir);
    IdempotencyStore::open(&path, ttl, cfg.api.idempotency_capacity).unwrap_or_else(|e| {
        warn!(error = %e, "Idempotency keys are kept in memory only: a restart forgets them");
        IdempotencyStore::new(ttl, cfg.api.idempotency_capacity)
    })
}

async fn serve(cfg: Config) -> anyhow::Result<ExitCode> {
    let listen = cfg.api.listen.clone();
    let app = match App::start(cfg) {
        Ok(app) => Arc::new(app),
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return Ok(ExitCode::from(exit::CONFIG));
        }
    };
    let api = &app.cfg.api;
    if api.token.is_none() && !listen.starts_with("127.") && !listen.starts_with("[::1]") {
        warn!(%listen, "The API listens beyond loopback without a token: set api.token");
    }
    let state = Arc::new(ApiState {
        app: app.clone(),
        idempotency: open_idempotency(&app.cfg),
        limiter: AuthLimiter::new(api.auth_failures_before_lockout, Duration::from_secs(60)),
    });
    let mut mqtt = app.cfg.mqtt.clone();
    if mqtt.host.is_none()
        && mqtt.enabled != Some(false)
        && let Ok(token) = std::env::var("SUPERVISOR_TOKEN")
        && let Some(service) =
            homeclaw::supervisor::mqtt_service(&homeclaw::secret::Secret::new(token)).await
    {
        info!(host = %service.host, "Using the Supervisor's MQTT broker");
        homeclaw::supervisor::apply_mqtt_service(&mut mqtt, service);
    }
    let bridge = if mqtt.active() {
        homeclaw::mqtt::MqttBridge::start(mqtt, state.clone())
    } else {
        None
    };
    let wyoming = if app.cfg.wyoming.enabled {
        let (addr, task) = homeclaw::wyoming::start(
            &app.cfg.wyoming.listen,
            state.clone(),
            app.cfg.wyoming.languages.clone(),
        )
        .await
        .with_context(|| {
            format!(
                "cannot listen on {} (wyoming.listen)",
                app.cfg.wyoming.listen
            )
        })?;
        println!("HOMECLAW_WYOMING={addr}");
        if let Ok(token) = std::env::var("SUPERVISOR_TOKEN") {
            let hostname = std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".into());
            let token = homeclaw::secret::Secret::new(token);
            match homeclaw::supervisor::announce_wyoming(&token, &hostname, addr.port()).await {
                Ok(()) => info!(%hostname, "Announced the Wyoming service to Home Assistant"),
                Err(e) => warn!(error = %e, "Could not announce the Wyoming service"),
            }
        }
        Some(task)
    } else {
        None
    };
    let listener = tokio::net::TcpListener::bind(&listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    let bound = listener.local_addr()?;
    info!(%bound, models = ?app.model_names, "HomeClaw serving");
    // A machine-readable line for scripts and tests that start us on port 0.
    println!("HOMECLAW_LISTENING={bound}");
    let _ = std::io::stdout().flush();
    homeclaw::api::serve(state, listener, shutdown_signal()).await?;
    info!("Stopped accepting requests; finishing runs in flight");
    if let Some(task) = wyoming {
        task.abort();
    }
    if let Some(bridge) = bridge {
        bridge.shutdown().await;
    }
    app.shutdown().await;
    info!("Shut down cleanly");
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = ctrl_c => {},
                _ = term.recv() => {},
            }
        }
        Err(_) => {
            let _ = ctrl_c.await;
        }
    }
}

#[derive(Clone, Copy)]
struct Show {
    json: bool,
    trace: bool,
    stats: bool,
}

/// Prints a command result the way a person reads it, and picks the exit code.
fn report(body: &Value, show: Show) -> ExitCode {
    if show.json {
        println!("{}", serde_json::to_string_pretty(body).unwrap_or_default());
    } else {
        println!("{}", body["reply"].as_str().unwrap_or_default());
        for action in body["actions"].as_array().into_iter().flatten() {
            let verified = action["verified"].as_bool().unwrap_or(false);
            println!(
                "  {} {}.{} {} -> {}",
                if verified { "✓" } else { "✗" },
                action["domain"].as_str().unwrap_or_default(),
                action["service"].as_str().unwrap_or_default(),
                action["entity_ids"],
                action["observed_state"]
            );
        }
        if let Some(id) = body["approval_id"].as_str() {
            println!("  approval id: {id}");
        }
        if show.trace {
            for line in body["trace"].as_array().into_iter().flatten() {
                println!("  trace: {}", line.as_str().unwrap_or_default());
            }
        }
        if show.stats {
            println!("  stats: {}", body["stats"]);
        }
        println!(
            "  session: {}",
            body["session_id"].as_str().unwrap_or_default()
        );
    }
    let unverified = body["actions"]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x["verified"] == false));
    match body["status"].as_str() {
        Some("done") if unverified => ExitCode::from(exit::UNVERIFIED),
        Some("done") => ExitCode::SUCCESS,
        Some("clarification_required") => ExitCode::from(exit::CLARIFICATION),
        Some("approval_required") => ExitCode::from(exit::APPROVAL),
        _ => ExitCode::from(exit::FAILURE),
    }
}

async fn ask_remote(
    cfg: &Config,
    session: Option<String>,
    request: CommandRequest,
    show: Show,
    url: Option<String>,
) -> anyhow::Result<ExitCode> {
    let base = url.unwrap_or_else(|| format!("http://{}", cfg.api.listen));
    let mut body = serde_json::json!({"text": request.text, "dry_run": request.dry_run});
    if let Some(s) = session {
        body["session_id"] = Value::String(s);
    }
    let mut post = reqwest::Client::new()
        .post(format!("{}/api/command", base.trim_end_matches('/')))
        .json(&body);
    if let Some(token) = &cfg.api.token {
        post = post.bearer_auth(token.expose());
    }
    let response = post.send().await.with_context(|| {
        format!("cannot reach HomeClaw at {base} (is `homeclaw serve` running?)")
    })?;
    let status = response.status();
    let body: Value = response.json().await.context("reading HomeClaw's answer")?;
    if !status.is_success() {
        eprintln!(
            "homeclaw: {} ({})",
            body["error"]["message"]
                .as_str()
                .unwrap_or("request failed"),
            status
        );
        return Ok(ExitCode::from(exit::FAILURE));
    }
    Ok(report(&body, show))
}

async fn ask_local(
    cfg: Config,
    session: Option<String>,
    request: CommandRequest,
    show: Show,
) -> anyhow::Result<ExitCode> {
    let app = match App::start(cfg) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return Ok(ExitCode::from(exit::CONFIG));
        }
    };
    let connect = Duration::from_millis(app.cfg.ha.connect_timeout_ms);
    if let Err(e) = app.client.wait_connected(connect).await {
        eprintln!("homeclaw: {e}");
        return Ok(ExitCode::from(exit::FAILURE));
    }
    if app
        .home
        .registry
        .wait_synced_after(0, connect)
        .await
        .is_none()
    {
        eprintln!("homeclaw: the registry did not load from Home Assistant in time");
        return Ok(ExitCode::from(exit::FAILURE));
    }
    let session_id = session.unwrap_or_else(new_session_id);
    let outcome = app.sessions.submit(&session_id, request).await;
    app.shutdown().await;
    match outcome {
        Ok(outcome) => Ok(report(&outcome_json(&outcome), show)),
        Err(e) => {
            eprintln!("homeclaw: {e}");
            Ok(ExitCode::from(exit::FAILURE))
        }
    }
}
