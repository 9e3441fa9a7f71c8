#!/bin/sh
# App entry point. The Supervisor provides SUPERVISOR_TOKEN (HomeClaw then reaches Home
# Assistant through ws://supervisor/core/websocket, keeps sessions and the API's token in /data,
# takes the MQTT broker from the Supervisor and announces its Wyoming service) and the user's
# options in /data/options.json, which the binary reads and validates itself. Settings the
# options tab does not show go in the app's own folder (/config/homeclaw.yaml here,
# /addon_configs/<slug>/homeclaw.yaml on the host); the options tab's values win over it.
# ADDON_BIN, HOMECLAW_OPTIONS_PATH and HOMECLAW_APP_CONFIG exist so tests can run this script
# outside a container.
set -eu
BIN="${ADDON_BIN:-/usr/bin/homeclaw}"
OPTIONS="${HOMECLAW_OPTIONS_PATH:-/data/options.json}"
EXTRA="${HOMECLAW_APP_CONFIG:-/config/homeclaw.yaml}"
if [ "$#" -eq 0 ]; then set -- serve; fi
if [ -f "$EXTRA" ]; then set -- --config "$EXTRA" "$@"; fi
exec "$BIN" --options "$OPTIONS" "$@"
