#!/usr/bin/env bash
# What the test command needs beyond Rust and Python, installed when missing (Debian's packages;
# `apt-get` as root, as on a fresh Debian machine or in CI):
# - a real Mosquitto broker for the MQTT tests (the tests start their own);
# - a real headless Chromium for the panel tests;
# - apparmor_parser, which checks the add-on's AppArmor profile;
# - openssl, which makes the MQTT-over-TLS test's CA and broker certificate;
# - rustfmt and clippy for the format and lint checks.
# Home Assistant (a pinned venv under ~/.cache/homeclaw) is installed by scripts/ha-dev.sh.
set -euo pipefail

cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

missing=()
{ [ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1; } || missing+=(mosquitto)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -x /usr/sbin/apparmor_parser ] || missing+=(apparmor)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "[deps] installing ${missing[*]} (Debian packages)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
