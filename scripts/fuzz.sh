#!/usr/bin/env bash
# Runs every fuzz target (tests/fuzz.rs) for a fixed time each, one after the other, and prints
# the executions per target. Usage: scripts/fuzz.sh [seconds-per-target=60] [target]
# CI runs it with 30 seconds (scripts/test.sh). A failing input is shrunk by proptest and printed;
# add it to the target's unit tests as a regression test when fixing it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
target="${2:-}"
if [ -n "$target" ]; then
  export FUZZ_TARGET="$target"
fi
FUZZ_SECONDS="$seconds" cargo test --locked --test fuzz -- --nocapture --test-threads 1
