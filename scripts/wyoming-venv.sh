#!/usr/bin/env bash
# The Wyoming client Home Assistant 2026.11 pins (`wyoming` 1.10.2, pure Python), in a venv of
# its own under ~/.cache keyed by that pin, so the tests can speak to HomeClaw's Wyoming server
# exactly as Home Assistant of today does (Home Assistant 2025.4.4, which the tests run for real,
# bundles 1.5.4). Prints the venv's python on stdout.
#
#   scripts/wyoming-venv.sh          # install when missing, print the python
set -euo pipefail
PIN="wyoming==1.10.2"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/homeclaw"
VENV="$CACHE/wyoming-venv-$(echo "$PIN" | sha256sum | cut -c1-12)"
if ! "$VENV/bin/python" -c 'import wyoming.info' >/dev/null 2>&1; then
  mkdir -p "$CACHE"
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$PIN" >&2
fi
echo "$VENV/bin/python"
