#!/usr/bin/env bash
# Home Assistant's own intent tests, every language it ships, asked of HomeClaw and of Home
# Assistant's agent in one run (`homeclaw-bench conformance`; issue 47).
#
#   scripts/conformance.sh [homeclaw-bench conformance options]
#     e.g. --lang en,de --every 5 --out /tmp/conformance.md --json /tmp/rows.jsonl
#
# INTENTS (default ../shared/ha-intents/tests) is the `tests/` folder of
# github.com/home-assistant/intents. MODEL=local runs HomeClaw with the local model
# (scripts/llm-dev.sh); by default no model is reachable, which measures what HomeClaw
# answers without one (every sentence that would need the model counts as failed).
set -euo pipefail
cd "$(dirname "$0")/.."
INTENTS="${INTENTS:-../shared/ha-intents/tests}"
[ -d "$INTENTS" ] || { echo "no intent tests in $INTENTS (set INTENTS)" >&2; exit 2; }

cargo build --release --quiet --features testkit --bin homeclaw --bin homeclaw-bench
CONFIG="$(mktemp --suffix=.yaml)"
trap 'rm -f "$CONFIG"' EXIT
{ echo "ha:"; echo "  url: ws://127.0.0.1:1/api/websocket  # replaced by the runner"
  if [ "${MODEL:-none}" = local ]; then
    eval "$(scripts/llm-dev.sh start)"
    trap 'scripts/llm-dev.sh stop || true; rm -f "$CONFIG"' EXIT
    LLM_URL="$LLM_URL" LLM_MODEL="$LLM_MODEL" scripts/local-model-config.sh
  else
    # A port nothing listens on, tried once: a sentence HomeClaw cannot read without the
    # model ends at once, unanswered.
    LLM_URL="http://127.0.0.1:9/v1" LLM_MODEL="none" scripts/local-model-config.sh
    echo "  max_attempts: 1"
  fi
  echo "log:"; echo "  level: warn"; } >"$CONFIG"

target/release/homeclaw-bench conformance --intents "$INTENTS" --config "$CONFIG" "$@"
