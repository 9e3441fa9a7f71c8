#!/usr/bin/env bash
# A real Home Assistant Core with demo devices on 127.0.0.1, for development and tests.
#
#   eval "$(scripts/ha-dev.sh start)"   # install (cached) + start + token; prints KEY=VALUE lines
#   scripts/ha-dev.sh stop              # SIGTERM, SIGKILL after 60 s
#   scripts/ha-dev.sh install           # only fill the venv cache
#
# The venv lives under ~/.cache keyed by the sha256 of the pin files, so a changed pin
# reinstalls and an unchanged one starts in seconds. Only KEY=VALUE lines go to stdout.
#
# Environment (all optional):
#   HA_PORT (8123)  HA_VENV (~/.cache/homeclaw/ha-venv-<pins>)  HA_CONFIG_DIR (~/.cache/homeclaw/ha-<port>)
#   HA_TOKEN_FILE ($HA_CONFIG_DIR/token)  HA_PYTHON (auto: 3.13 -> HA 2025.4.4, else 3.11 -> 2024.3.3)
#   HA_RESET=1 (wipe the config dir on start / after stop)  HA_START_TIMEOUT (300)
#   HA_FRONTEND=1: Home Assistant's web UI too (a test that looks at what it shows a person).
#   HA_HOME=/abs/path/_fixtures.yaml: instead of the demo, load that home (Home LLM Leaderboard
#     format) through the test-only fixture_home integration (scripts/ha/custom_components).
#     Starting a config dir with another home than last time wipes its registries first (the
#     token is kept).
#
#   scripts/ha-dev.sh check-home FILE   # exit 1 naming the entity the loader cannot represent
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ha"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/homeclaw"
HA_PORT="${HA_PORT:-8123}"
HA_CONFIG_DIR="${HA_CONFIG_DIR:-$CACHE/ha-$HA_PORT}"
HA_TOKEN_FILE="${HA_TOKEN_FILE:-$HA_CONFIG_DIR/token}"
PID_FILE="$HA_CONFIG_DIR/hass.pid"
LOG_FILE="$HA_CONFIG_DIR/home-assistant.log"
BASE="http://127.0.0.1:$HA_PORT"
export HA_PORT HA_START_TIMEOUT="${HA_START_TIMEOUT:-300}"

say() { echo "[ha-dev] $*" >&2; }
die() { say "error: $*"; exit 1; }

# Prints "<python> <pin-suffix>". pyenv shims of unselected versions refuse to run, so the
# version directories are probed directly.
pick_python() {
  local root cand minor
  root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
  local cands=("${HA_PYTHON:-}" python3.13 "$root"/versions/3.13*/bin/python3.13 /usr/bin/python3.13
               python3.11 "$root"/versions/3.11*/bin/python3.11 /usr/bin/python3.11)
  for cand in "${cands[@]}"; do
    [ -n "$cand" ] || continue
    minor="$("$cand" -c 'import sys, ssl, sqlite3, venv; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" || continue
    cand="$("$cand" -c 'import sys; print(sys.executable)')"
    case "$minor" in
      3.13) echo "$cand"; return 0 ;;
      3.11) echo "$cand -py311"; return 0 ;;
    esac
  done
  return 1
}

PICKED="$(pick_python)" || die "no Python 3.13 or 3.11 found; set HA_PYTHON"
read -r PY SUFFIX <<<"$PICKED"
REQ="$HERE/requirements$SUFFIX.txt"
CON="$HERE/constraints$SUFFIX.txt"
PINS="$(cat "$REQ" "$CON" | sha256sum | cut -c1-16)"
HA_VENV="${HA_VENV:-$CACHE/ha-venv-$PINS}"

install() {
  if [ -x "$HA_VENV/bin/hass" ] && [ -f "$HA_VENV/.installed" ]; then return 0; fi
  mkdir -p "$(dirname "$HA_VENV")"
  exec 8>"$HA_VENV.lock"
  flock 8
  if [ -x "$HA_VENV/bin/hass" ] && [ -f "$HA_VENV/.installed" ]; then return 0; fi
  say "installing $(grep '^homeassistant==' "$REQ") into $HA_VENV (about a minute)"
  local t0=$SECONDS
  rm -rf "$HA_VENV"
  "$PY" -m venv "$HA_VENV"
  "$HA_VENV/bin/python" -m pip install -q --disable-pip-version-check "$(grep '^uv==' "$CON")" >&2
  if [ -n "${PIP_INDEX_URL:-}" ] && [ -z "${UV_INDEX_URL:-}" ]; then export UV_INDEX_URL="$PIP_INDEX_URL"; fi
  # Byte-compile now: start-up halves, and PYTHONDONTWRITEBYTECODE may be set here.
  "$HA_VENV/bin/uv" pip install --quiet --python "$HA_VENV/bin/python" --compile-bytecode \
    -r "$REQ" -c "$CON" >&2
  touch "$HA_VENV/.installed"
  say "installed in $((SECONDS - t0)) s"
}

running_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid; pid="$(cat "$PID_FILE")"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "-c $HA_CONFIG_DIR " || return 1
  echo "$pid"
}

check_home() {
  install
  # -P: the folder must not shadow the standard library (its calendar.py is a platform).
  "$HA_VENV/bin/python" -P "$HERE/custom_components/fixture_home/home.py" "$1" >&2
}

# Writes configuration.yaml for the demo or for HA_HOME. A config dir that last ran another
# home (or the demo) loses its registries and config entries, keeping auth and onboarding.
configure() {
  local profile="demo"
  [ -n "${HA_HOME:-}" ] && profile="home:$HA_HOME"
  [ "${HA_FRONTEND:-0}" = 1 ] && profile="$profile+frontend"
  local last=""
  [ -f "$HA_CONFIG_DIR/.profile" ] && last="$(cat "$HA_CONFIG_DIR/.profile")"
  if [ "$last" != "$profile" ]; then
    running_pid >/dev/null && die "running with ${last:-another profile}; stop it first"
    if [ -d "$HA_CONFIG_DIR/.storage" ]; then
      find "$HA_CONFIG_DIR/.storage" -mindepth 1 -maxdepth 1 \
        ! -name 'auth' ! -name 'auth_provider.homeassistant' ! -name 'onboarding' \
        ! -name 'core.uuid' -exec rm -rf {} +
    fi
    rm -rf "$HA_CONFIG_DIR/custom_components" "$HA_CONFIG_DIR/home-assistant_v2.db"*
  fi
  if [ -n "${HA_HOME:-}" ]; then
    case "$HA_HOME" in /*) ;; *) die "HA_HOME must be an absolute path" ;; esac
    check_home "$HA_HOME" || die "cannot load $HA_HOME"
    rm -rf "$HA_CONFIG_DIR/custom_components"
    mkdir -p "$HA_CONFIG_DIR/custom_components"
    cp -r "$HERE/custom_components/fixture_home" "$HA_CONFIG_DIR/custom_components/"
    rm -rf "$HA_CONFIG_DIR/custom_sentences"
    cp -r "$HERE/custom_sentences" "$HA_CONFIG_DIR/"
    # Scripts and input_booleans are configured in YAML, as a household does (home.py says how).
    { cat "$HERE/home-configuration.yaml"
      printf '\nfixture_home:\n  path: "%s"\n' "$HA_HOME"
      "$HA_VENV/bin/python" -P "$HERE/custom_components/fixture_home/home.py" "$HA_HOME" --helpers
    } >"$HA_CONFIG_DIR/configuration.yaml"
  else
    cp "$HERE/demo-configuration.yaml" "$HA_CONFIG_DIR/configuration.yaml"
  fi
  # Home Assistant's own web UI, for tests that look at what Home Assistant shows a person.
  [ "${HA_FRONTEND:-0}" = 1 ] && printf '\nfrontend:\n' >>"$HA_CONFIG_DIR/configuration.yaml"
  echo "$profile" >"$HA_CONFIG_DIR/.profile"
}

start() {
  install
  if [ "${HA_RESET:-0}" = 1 ]; then
    running_pid >/dev/null && die "HA_RESET=1 but Home Assistant is running; stop it first"
    rm -rf "$HA_CONFIG_DIR"
  fi
  mkdir -p "$HA_CONFIG_DIR"
  configure
  local fresh=0 pid
  [ -f "$HA_CONFIG_DIR/.storage/onboarding" ] || fresh=1
  if pid="$(running_pid)"; then
    say "already running (pid $pid)"
  else
    if (exec 3<>"/dev/tcp/127.0.0.1/$HA_PORT") 2>/dev/null; then
      die "127.0.0.1:$HA_PORT is taken by another process"
    fi
    # --skip-pip: everything is installed; Home Assistant must never install at run time.
    setsid "$HA_VENV/bin/hass" -c "$HA_CONFIG_DIR" --skip-pip --log-file "$LOG_FILE" \
      >"$HA_CONFIG_DIR/hass.out" 2>&1 </dev/null 8>&- &
    pid=$!
    echo "$pid" >"$PID_FILE"
    say "started hass (pid $pid) on $BASE"
  fi
  if ! HA_PID="$pid" "$HA_VENV/bin/python" "$HERE/bootstrap.py" "$BASE" "$HA_TOKEN_FILE" >&2; then
    tail -n 30 "$LOG_FILE" >&2 2>/dev/null || true
    die "Home Assistant did not become ready"
  fi
  if [ "$fresh" = 1 ]; then
    # HA writes its auth store with a delay: a crash right after onboarding would lose the new
    # token. One clean restart flushes it, so later kill -9 tests keep a valid token.
    say "first start of $HA_CONFIG_DIR: restarting once to persist the new token"
    stop
    start
    return
  fi
  echo "HA_URL=$BASE"
  echo "HA_WS_URL=ws://127.0.0.1:$HA_PORT/api/websocket"
  echo "HA_TOKEN_FILE=$HA_TOKEN_FILE"
  echo "HA_CONFIG_DIR=$HA_CONFIG_DIR"
  echo "HA_VENV=$HA_VENV"
}

stop() {
  local pid
  if pid="$(running_pid)"; then
    kill -TERM "$pid"
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    say "stopped pid $pid"
  fi
  rm -f "$PID_FILE"
  if [ "${HA_RESET:-0}" = 1 ]; then rm -rf "$HA_CONFIG_DIR"; fi
}

case "${1:-}" in
  install) install; echo "HA_VENV=$HA_VENV" ;;
  start) start ;;
  stop) stop ;;
  check-home) [ -n "${2:-}" ] || die "usage: $0 check-home FILE"; check_home "$2" ;;
  *) die "usage: $0 install|start|stop|check-home FILE" ;;
esac
