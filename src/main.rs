//! The `homeclaw` binary: configuration, wiring and exit codes. Logic lives in the library.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use homeclaw::api::access;
use homeclaw::app::App;
use homeclaw::command::{CommandOutcome, CommandRequest, Status};
use homeclaw::config::{Config, Sources};
use homeclaw::ha::registry::Registry;
use homeclaw::ha::summary;
use homeclaw::ha::{ClientSettings, ConnectionState, ExposurePolicy, HaClient};
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
        /// The Home Assistant device id the person spoke to: "the light" means its room's.
        #[arg(long)]
        device: Option<String>,
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
    let mut cfg = match Config::load(&Sources::from_process(cli.config, cli.options)) {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return ExitCode::from(exit::CONFIG);
        }
    };
    // Before the secrets are collected for redaction: a made or kept token is one of them.
    let serving = matches!(cli.command, Commands::Serve);
    let token = match access::resolve(&mut cfg.api, serving) {
        Ok(origin) => origin,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return ExitCode::from(exit::CONFIG);
        }
    };
    let mut secrets = cfg.secrets();
    secrets.extend(std::env::var("SUPERVISOR_TOKEN").ok());
    homeclaw::telemetry::init(&cfg.log.level, secrets);
    if serving {
        log_token_origin(&token);
    }
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
                device,
                local,
                url,
            } => {
                let request = CommandRequest {
                    text,
                    session_id: session,
                    language: None,
                    device_id: device,
                    satellite_id: None,
                    dry_run,
                    shared_session: false,
                    source: homeclaw::command::activity::Source::Cli,
                };
                let show = Show {
                    json,
                    trace: show_trace,
                    stats: show_stats,
                };
                if local {
                    ask_local(cfg, request, show).await
                } else {
                    ask_remote(&cfg, request, show, url).await
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

async fn serve(mut cfg: Config) -> anyhow::Result<ExitCode> {
    let supervisor = std::env::var("SUPERVISOR_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .map(homeclaw::secret::Secret::new);
    if let Some(token) = &supervisor
        && cfg.mqtt.host.is_none()
        && cfg.mqtt.enabled != Some(false)
        && let Some(service) = homeclaw::supervisor::mqtt_service(token).await
    {
        info!(host = %service.host, "Using the Supervisor's MQTT broker");
        homeclaw::supervisor::apply_mqtt_service(&mut cfg.mqtt, service);
    }
    let app = match App::start(cfg) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return Ok(ExitCode::from(exit::CONFIG));
        }
    };
    let server = homeclaw::server::Server::start(app).await?;
    if let Some(addr) = server.wyoming_addr {
        println!("HOMECLAW_WYOMING={addr}");
        if let Some(token) = &supervisor {
            let hostname = std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".into());
            match homeclaw::supervisor::announce_wyoming(token, &hostname, addr.port()).await {
                Ok(()) => info!(%hostname, "Announced the Wyoming service to Home Assistant"),
                Err(e) => warn!(error = %e, "Could not announce the Wyoming service"),
            }
        }
    }
    // A machine-readable line for scripts and tests that start us on port 0.
    if let Some(addr) = server.panel_addr {
        println!("HOMECLAW_PANEL={addr}");
    }
    println!("HOMECLAW_LISTENING={}", server.http_addr);
    let _ = std::io::stdout().flush();
    shutdown_signal().await;
    server.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// Says at start-up where the API's token came from, never the token itself (an API without
/// one is warned about where it listens, by the server).
fn log_token_origin(origin: &access::TokenOrigin) {
    match origin {
        access::TokenOrigin::Made { path, replaced } => info!(
            file = %path.display(),
            replaced,
            "Made the API's token (no api.token set); the panel shows it under Connect"
        ),
        access::TokenOrigin::Kept(path) => {
            info!(file = %path.display(), "The API answers only with the kept token")
        }
        access::TokenOrigin::Configured => info!("The API answers only with api.token"),
        access::TokenOrigin::Open => {}
    }
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
fn report(outcome: &CommandOutcome, show: Show) -> ExitCode {
    if show.json {
        println!(
            "{}",
            serde_json::to_string_pretty(outcome).unwrap_or_default()
        );
    } else {
        println!("{}", outcome.reply);
        for action in &outcome.actions {
            println!(
                "  {} {}.{} {:?} -> {:?}",
                if action.verified { "✓" } else { "✗" },
                action.call.domain,
                action.call.service,
                action.call.entity_ids,
                action.observed_state
            );
        }
        if let Some(id) = &outcome.approval_id {
            println!("  approval id: {id}");
        }
        if show.trace {
            for line in &outcome.trace {
                println!("  trace: {line}");
            }
        }
        if show.stats {
            println!(
                "  stats: {}",
                serde_json::to_string(&outcome.stats).unwrap_or_default()
            );
        }
        println!("  session: {}", outcome.session_id);
    }
    match outcome.status {
        // An action Home Assistant took but that did not show its effect: the run is failed
        // (not everything asked was confirmed), and the code says why.
        Status::Done | Status::Failed if outcome.has_unverified_action() => {
            ExitCode::from(exit::UNVERIFIED)
        }
        Status::Done => ExitCode::SUCCESS,
        Status::ClarificationRequired => ExitCode::from(exit::CLARIFICATION),
        Status::ApprovalRequired => ExitCode::from(exit::APPROVAL),
        Status::Failed => ExitCode::from(exit::FAILURE),
    }
}

async fn ask_remote(
    cfg: &Config,
    request: CommandRequest,
    show: Show,
    url: Option<String>,
) -> anyhow::Result<ExitCode> {
    let base = url.unwrap_or_else(|| format!("http://{}", cfg.api.listen));
    let mut post = homeclaw::tls::http_client()
        .post(format!("{}/api/command", base.trim_end_matches('/')))
        .json(&request);
    if let Some(token) = &cfg.api.token {
        post = post.bearer_auth(token.expose());
    }
    let response = post.send().await.with_context(|| {
        format!("cannot reach HomeClaw at {base} (is `homeclaw serve` running?)")
    })?;
    let status = response.status();
    let text = response.text().await.context("reading HomeClaw's answer")?;
    match serde_json::from_str::<CommandOutcome>(&text) {
        Ok(outcome) => Ok(report(&outcome, show)),
        Err(_) => {
            let message = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "request failed".into());
            eprintln!("homeclaw: {message} ({status})");
            Ok(ExitCode::from(exit::FAILURE))
        }
    }
}

async fn ask_local(cfg: Config, request: CommandRequest, show: Show) -> anyhow::Result<ExitCode> {
    let app = match App::start(cfg) {
        Ok(app) => Arc::new(app),
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return Ok(ExitCode::from(exit::CONFIG));
        }
    };
    let connect = Duration::from_millis(app.cfg.ha.connect_timeout_ms);
    let not_ready = match app.client.wait_connected(connect).await {
        Err(e) => Some(e.to_string()),
        Ok(_) if !app.wait_ready(connect).await => {
            Some("the registry did not load from Home Assistant in time".to_owned())
        }
        Ok(_) => None,
    };
    if let Some(reason) = not_ready {
        eprintln!("homeclaw: {reason}");
        app.shutdown().await;
        return Ok(ExitCode::from(exit::FAILURE));
    }
    // No keys on the command line: the in-memory store is never consulted.
    let idempotency = homeclaw::command::idempotency::IdempotencyStore::new(Duration::ZERO, 1);
    let commands = homeclaw::command::Commands::new(app.clone(), idempotency);
    let answer = commands.submit(request, None).await;
    app.shutdown().await;
    match answer.result {
        Ok(outcome) => Ok(report(&outcome, show)),
        Err(e) => {
            eprintln!("homeclaw: {e}");
            Ok(ExitCode::from(exit::FAILURE))
        }
    }
}
