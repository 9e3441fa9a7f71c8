#!/usr/bin/env bash
# No Docker engine runs here, so CI checks the container build another way: every path the
# Dockerfile copies from the build context exists, its own `RUN cargo …` build commands run in
# the repository (same command, same flags), and the app's run script starts the built binary.
# The images themselves are built by .github/workflows/images.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
while read -r source; do
  [ -e "$source" ] || { echo "Dockerfile copies $source, which does not exist" >&2; exit 1; }
done < <(awk '/^COPY / && $2 !~ /^--/ { for (i = 2; i < NF; i++) print $i }' Dockerfile)
mapfile -t commands < <(sed -n 's/^RUN \(cargo .*\)$/\1/p' Dockerfile)
[ "${#commands[@]}" -gt 0 ] || { echo "no RUN cargo line in the Dockerfile" >&2; exit 1; }
for cmd in "${commands[@]}"; do
  echo "== $cmd"
  bash -c "$cmd"
done
ADDON_BIN=target/release/homeclaw HOMECLAW_APP_CONFIG=/nonexistent addon/run.sh --version
