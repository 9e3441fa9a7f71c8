//! Test support: real Home Assistant instances and a scripted websocket server.

pub mod browser;
pub mod ha;
pub mod homeclaw;
pub mod mosquitto;
pub mod scripted_ha;
pub mod scripted_llm;

/// A line for the test log that the harness does not capture (counts the issues ask to see
/// printed): written to the stderr handle directly, which libtest's capture does not cover.
pub fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
