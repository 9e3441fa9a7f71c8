//! The `homeclaw` binary: configuration, wiring and exit codes. Logic lives in the library.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use homeclaw::config::{Config, Sources};
use homeclaw::ha::registry::Registry;
use homeclaw::ha::summary;
use homeclaw::ha::{ClientSettings, ConnectionState, ExposurePolicy, HaClient, LiveRegistry};
use tracing::info;

/// Exit code for a configuration that cannot be used.
const EXIT_CONFIG: u8 = 2;
/// Exit code for Home Assistant unreachable, or refusing the token.
const EXIT_HA: u8 = 1;

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
    /// Run HomeClaw: keep the registry live until SIGINT or SIGTERM.
    Serve,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let cfg = match Config::load(&Sources::from_process(cli.config, cli.options)) {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("homeclaw: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    homeclaw::telemetry::init(&cfg.log.level);
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
            Commands::Serve => serve(&cfg).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("homeclaw: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn settings(cfg: &Config) -> Result<ClientSettings, ExitCode> {
    ClientSettings::from_config(cfg).map_err(|e| {
        eprintln!("homeclaw: {e}");
        ExitCode::from(EXIT_CONFIG)
    })
}

async fn check(cfg: &Config) -> anyhow::Result<ExitCode> {
    let settings = match settings(cfg) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let client = HaClient::spawn(settings);
    let outcome = client.first_outcome().await;
    let code = match outcome {
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
            ExitCode::from(EXIT_HA)
        }
        ConnectionState::Disconnected { reason, .. } => {
            eprintln!(
                "homeclaw: cannot reach Home Assistant at {}: {reason}",
                cfg.ha.url
            );
            ExitCode::from(EXIT_HA)
        }
        other => {
            eprintln!("homeclaw: Home Assistant connection ended: {other:?}");
            ExitCode::from(EXIT_HA)
        }
    };
    client.shutdown().await;
    Ok(code)
}

async fn serve(cfg: &Config) -> anyhow::Result<ExitCode> {
    let settings = match settings(cfg) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let client = HaClient::spawn(settings);
    let registry = LiveRegistry::spawn(client.clone(), ExposurePolicy::new(cfg.exposure.clone()));
    info!(url = %cfg.ha.url, "HomeClaw serving");
    shutdown_signal().await;
    info!(entities = registry.read(Registry::len), "Shutting down");
    client.shutdown().await;
    // Give the actor a moment to send its close frame; nothing else is in flight yet.
    let mut state = client.state();
    let _ = tokio::time::timeout(
        Duration::from_secs(2),
        state.wait_for(|s| matches!(s, ConnectionState::Stopped)),
    )
    .await;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
