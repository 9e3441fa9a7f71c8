//! Tracing set-up. Logs go to stderr so that stdout stays for command output (`check`'s table).

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. `RUST_LOG`, when set, wins over the configured level so a
/// developer can turn up one module without touching the config.
pub fn init(level: &str) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
