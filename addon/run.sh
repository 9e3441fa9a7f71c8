#!/bin/sh
# Add-on entry point: the Supervisor provides SUPERVISOR_TOKEN (HomeClaw then talks to Home
# Assistant through ws://supervisor/core/websocket) and the user's options in /data/options.json.
set -e
exec /usr/bin/homeclaw --options /data/options.json serve
