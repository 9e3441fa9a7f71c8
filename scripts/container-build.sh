#!/usr/bin/env bash
# No Docker engine runs here, so CI checks the container build another way: it runs the
# Dockerfile's own `RUN cargo …` build commands (same command, same flags) in the repository,
# then checks that the add-on's run script starts the built binary.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t commands < <(sed -n 's/^RUN \(cargo .*\)$/\1/p' Dockerfile)
[ "${#commands[@]}" -gt 0 ] || { echo "no RUN cargo line in the Dockerfile" >&2; exit 1; }
for cmd in "${commands[@]}"; do
  echo "== $cmd"
  bash -c "$cmd"
done
ADDON_BIN=target/release/homeclaw addon/run.sh --version
