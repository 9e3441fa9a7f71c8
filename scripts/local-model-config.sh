#!/usr/bin/env bash
# Prints HomeClaw's `llm:` settings for the local model that scripts/llm-dev.sh serves
# (LLM_URL and LLM_MODEL come from `eval "$(scripts/llm-dev.sh start)"`). One place for the
# demo, the evaluation and the leaderboard benchmark, so all three measure the same set-up.
#
# The model writes tool calls as bare JSON in its text, so it runs with `native_tools: false`:
# HomeClaw's own validated text fallback handles it.
set -euo pipefail
: "${LLM_URL:?start the model first: eval \"\$(scripts/llm-dev.sh start)\"}"
: "${LLM_MODEL:?start the model first}"
cat <<YAML
llm:
  request_timeout_ms: 180000
  models:
    - name: local-qwen
      provider: openai
      base_url: $LLM_URL
      model: $LLM_MODEL
      native_tools: false
      temperature: 0
      max_tokens: 256
      short_descriptions: true
YAML
