//! `homeclaw check` as a user runs it: output and exit codes.

use std::process::{Command, Output};

use crate::common::ha::shared;

fn check(url: &str, token: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let options = dir.path().join("options.json");
    std::fs::write(&options, "{}").unwrap();
    Command::new(env!("CARGO_BIN_EXE_homeclaw"))
        .args(["--options", options.to_str().unwrap(), "check"])
        .env("HOMECLAW_HA__URL", url)
        .env("HOMECLAW_HA__TOKEN", token)
        .env("HOMECLAW_HA__CONNECT_TIMEOUT_MS", "5000")
        .env("HOMECLAW_LOG__LEVEL", "warn")
        .output()
        .unwrap()
}

#[test]
fn check_prints_the_summary_against_real_home_assistant() {
    let ha = shared();
    let out = check(&ha.ws_url(), &ha.token);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with(&format!("Home Assistant {} at ", ha.version())),
        "{stdout}"
    );
    assert!(stdout.contains("Areas: 3: Bedroom"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("light ")), "{stdout}");
}

#[test]
fn check_fails_with_the_reason_for_a_bad_token_and_never_prints_it() {
    let ha = shared();
    let out = check(&ha.ws_url(), "definitely-wrong-token");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("refused the access token"), "{stderr}");
    assert!(!stderr.contains("definitely-wrong-token"));
}

#[test]
fn check_fails_with_the_reason_when_home_assistant_is_unreachable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = check(&format!("ws://127.0.0.1:{port}/api/websocket"), "x");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot reach Home Assistant"), "{stderr}");
    assert!(stderr.contains("Connection refused"), "{stderr}");
}

#[test]
fn check_rejects_a_bad_url_as_a_configuration_error() {
    let out = check("ftp://nowhere", "x");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ha.url = \"ftp://nowhere\" is not allowed"),
        "{stderr}"
    );
}
