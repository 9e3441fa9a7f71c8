//! HomeClaw benchmarks: commands that print a table. Speed and memory goals live here, never in
//! timed tests.
//!
//!   cargo run --release --bin homeclaw-bench -- registry [--entities 10000] [--runs 10]
//!   cargo run --release --bin homeclaw-bench -- agent [--entities 5000] [--runs 2000]
//!   cargo run --release --bin homeclaw-bench -- tokens
//!   cargo run --release --bin homeclaw-bench -- load [--sessions 200] [--commands 5]
//!   cargo run --release --bin homeclaw-bench -- soak [--seconds 60] [--clients 8]
//!   cargo run --release --bin homeclaw-bench -- assist --dataset DIR [--agent both] --config FILE

use anyhow::Context;
use clap::{Parser, Subcommand};

#[path = "bench/agent.rs"]
mod agent;
#[path = "bench/assist/mod.rs"]
mod assist;
#[path = "bench/conformance/mod.rs"]
mod conformance;
#[path = "bench/eval/mod.rs"]
mod eval;
#[path = "bench/load.rs"]
mod load;
#[path = "bench/registry.rs"]
mod registry;
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
    /// Home Assistant's own intent tests, every language: each language's test home loaded
    /// into a real Home Assistant, every sentence asked of HomeClaw (a dry run, judged by its
    /// calls) and of Home Assistant's recogniser, in one run.
    Conformance(conformance::Args),
    /// Evaluation: natural-language cases against HomeClaw (a running server) and/or Home
    /// Assistant's own conversation agent, with the demo home reset per case (scripts/eval.sh).
    Eval(eval::Args),
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
        /// Also ask Home Assistant's sentence recogniser for every command (off: the bench
        /// measures HomeClaw's own path; on: Home Assistant's recognition of 200 sessions'
        /// chatter at once is in it too).
        #[arg(long)]
        ha_recogniser: bool,
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

/// An error is one line on stderr (its causes joined), and exit code 1.
fn main() -> std::process::ExitCode {
    match run(Cli::parse().bench) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("homeclaw-bench: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(bench: Bench) -> anyhow::Result<()> {
    match bench {
        Bench::Registry { entities, runs } => registry::run(entities, runs.max(1)),
        Bench::Agent { entities, runs } => agent::run(entities, runs.max(1)),
        Bench::Tokens => agent::tokens(),
        Bench::Assist(args) => assist::run(args),
        Bench::Conformance(args) => conformance::run(args),
        Bench::Eval(args) => eval::run(args),
        Bench::Load {
            sessions,
            commands,
            ha_url,
            ha_token_file,
            ha_recogniser,
        } => load::run(sessions, commands, ha_url, ha_token_file, ha_recogniser),
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
pub(crate) fn rss_kib() -> anyhow::Result<(u64, u64)> {
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

/// Metric-table rows (`<what> p50`, …) for sorted durations, in `unit` (`scale` per second).
pub(crate) fn print_quantiles(
    what: &str,
    sorted: &[std::time::Duration],
    quantiles: &[(&str, f64)],
    unit: &str,
    scale: f64,
) {
    for (name, p) in quantiles {
        let value = percentile(sorted, *p).as_secs_f64() * scale;
        println!("{:<34} {value:>9.1} {unit}", format!("{what} {name}"));
    }
}

/// The value at quantile `p` of sorted samples (index rounded from `(n - 1) * p`).
pub(crate) fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_round_the_rank_and_survive_no_samples() {
        let samples = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&samples, 0.5), 3.0);
        assert_eq!(percentile(&samples, 0.95), 5.0);
        assert_eq!(percentile(&samples, 0.0), 1.0);
        assert_eq!(percentile::<f64>(&[], 0.5), 0.0);
    }
}
