#!/usr/bin/env bash
# HomeClaw in minutes, with no cloud account: a real Home Assistant with demo devices, a real
# local LLM (Qwen2.5-Coder-1.5B on CPU), and HomeClaw between them. Type commands at the
# prompt; each reply shows its actions, whether they were verified, and stats. Ctrl-C (or an
# empty line followed by Ctrl-D) stops everything this script started.
#
# The model writes tool calls as bare JSON in its text, so it runs with `native_tools: false`:
# HomeClaw's own validated text fallback handles it, and the whitelist, validation and
# verification turn its invented entity ids and wrong services into honest answers.
#
# `scripts/demo.sh --eval [homeclaw-bench eval options]` (what scripts/eval.sh runs) starts the
# same three parts and runs the evaluation suite instead of the prompt.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=prompt
if [ "${1:-}" = "--eval" ]; then MODE=eval; shift; fi

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/homeclaw"
DEMO="$CACHE/demo"
PORT="${DEMO_PORT:-8099}"
mkdir -p "$DEMO"

say() { echo "[demo] $*" >&2; }
SERVER_PID=""
cleanup() {
  say "stopping HomeClaw, the model and Home Assistant"
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  scripts/llm-dev.sh stop || true
  scripts/ha-dev.sh stop || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "building HomeClaw (first time: a few minutes)"
cargo build --release --quiet --features testkit --bin homeclaw --bin homeclaw-bench
BIN=target/release/homeclaw

say "starting Home Assistant (first time: about a minute)"
eval "$(scripts/ha-dev.sh start)"
say "starting the local model (first time: downloads about 1.1 GB)"
eval "$(scripts/llm-dev.sh start)"

{ cat <<YAML
ha:
  url: $HA_WS_URL
  token_file: $HA_TOKEN_FILE
YAML
  LLM_URL="$LLM_URL" LLM_MODEL="$LLM_MODEL" scripts/local-model-config.sh
  cat <<YAML
session:
  dir: $DEMO/sessions
api:
  listen: 127.0.0.1:$PORT
wyoming:
  enabled: false
log:
  level: warn
# One person at a terminal: "yes" after an approval question approves it (and "no" declines).
agent:
  approval:
    confirm_in_conversation: true
YAML
} >"$DEMO/homeclaw.yaml"

# Emptied before the server starts: the wait below must not read the last run's line (the
# server's own redirection may come after the first look).
: >"$DEMO/serve.out"
"$BIN" --config "$DEMO/homeclaw.yaml" serve >"$DEMO/serve.out" 2>"$DEMO/serve.log" &
SERVER_PID=$!
until grep -q '^HOMECLAW_LISTENING=' "$DEMO/serve.out" 2>/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$DEMO/serve.log" >&2; exit 1; }
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$PORT/api/health?wait_ready_ms=30000" >/dev/null
# HomeClaw has the model read its instructions once (llm.models[].warm_up); a first command
# sent before that ends would wait for it, so the demo and the evaluation start after it.
say "the model reads HomeClaw's instructions once (about 15 s on 2 cores)"
for _ in $(seq 1 240); do
  curl -fsS "http://127.0.0.1:$PORT/api/health" | grep -qE '"prompt_cache":"(warm|failed)"' && break
  sleep 0.5
done

if [ "$MODE" = eval ]; then
  target/release/homeclaw-bench eval --homeclaw-url "http://127.0.0.1:$PORT" --ha-url "$HA_URL" \
    --ha-token-file "$HA_TOKEN_FILE" "$@"
  exit 0
fi

SESSION="demo-$(date +%s)"
cat >&2 <<TXT

HomeClaw is ready. Home Assistant: $HA_URL (user homeclaw / homeclaw-dev-password)
Try: turn on the kitchen lights | is the front door locked? | włącz światło w sypialni |
     schalte den Deckenventilator ein | unlock the front door   (Ctrl-C to quit)
TXT
while IFS= read -r -e -p "homeclaw> " line; do
  [ -z "${line// }" ] && continue
  "$BIN" --config "$DEMO/homeclaw.yaml" ask --url "http://127.0.0.1:$PORT" \
    --session "$SESSION" --show-stats "$line" || true
done
