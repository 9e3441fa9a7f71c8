#!/usr/bin/env bash
# The Home LLM Leaderboard task sets (assist-mini, assist, questions) against HomeClaw on the local model
# (Qwen2.5-Coder-1.5B, as scripts/demo.sh configures it) and Home Assistant's own agent, in one
# run; each home is loaded into a real Home Assistant (scripts/ha-dev.sh HA_HOME=...).
#
#   scripts/bench-assist.sh [homeclaw-bench assist options]
#     e.g. --count card (each set's runs per sentence, as upstream), --agent homeclaw, --only 'lock',
#          --out docs/benchmarks-run.md --json /tmp/rows.jsonl
#
# Any other model: write a HomeClaw config with its `llm:` section and run
#   target/release/homeclaw-bench assist --dataset DIR --config FILE [--agent both]
# DATASETS (default ../shared/benchmarks/home-assistant-datasets/datasets) holds the sets; get
# them from github.com/allenporter/home-assistant-datasets (folder datasets/, commit d5ebbf0).
# SETS="eval/languages" runs other task sets instead (HomeClaw's own, one home per language).
set -euo pipefail
cd "$(dirname "$0")/.."
DATASETS="${DATASETS:-../shared/benchmarks/home-assistant-datasets/datasets}"
if [ -z "${SETS:-}" ]; then
  [ -d "$DATASETS/assist-mini" ] || { echo "no task sets in $DATASETS (set DATASETS)" >&2; exit 2; }
  SETS="$DATASETS/assist-mini $DATASETS/assist $DATASETS/questions"
fi
DATASET_ARGS=()
for set in $SETS; do DATASET_ARGS+=(--dataset "$set"); done

cargo build --release --quiet --features testkit --bin homeclaw --bin homeclaw-bench
eval "$(scripts/llm-dev.sh start)"
trap 'scripts/llm-dev.sh stop || true' EXIT

CONFIG="$(mktemp --suffix=.yaml)"
{ echo "ha:"; echo "  url: ws://127.0.0.1:1/api/websocket  # replaced by the runner"
  LLM_URL="$LLM_URL" LLM_MODEL="$LLM_MODEL" scripts/local-model-config.sh
  echo "log:"; echo "  level: warn"; } >"$CONFIG"

target/release/homeclaw-bench assist "${DATASET_ARGS[@]}" --config "$CONFIG" "$@"
