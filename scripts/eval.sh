#!/usr/bin/env bash
# Evaluation harness: eval/cases.yaml against HomeClaw on the local model and against Home
# Assistant's own conversation agent, side by side (a command, not a CI test).
#   scripts/eval.sh [--agent homeclaw|ha|both] [--out docs/eval.md] [--limit N]
exec "$(dirname "$0")/demo.sh" --eval "$@"
