#!/bin/sh
# Add-on entry point. The Supervisor provides SUPERVISOR_TOKEN (HomeClaw then reaches Home
# Assistant through ws://supervisor/core/websocket, keeps sessions in /data/sessions, takes the
# MQTT broker from the Supervisor and announces its Wyoming service) and the user's options in
# /data/options.json, which the binary reads and validates itself.
# ADDON_BIN and HOMECLAW_OPTIONS_PATH exist so tests can run this script outside a container.
set -eu
BIN="${ADDON_BIN:-/usr/bin/homeclaw}"
OPTIONS="${HOMECLAW_OPTIONS_PATH:-/data/options.json}"
if [ "$#" -eq 0 ]; then set -- serve; fi
exec "$BIN" --options "$OPTIONS" "$@"
