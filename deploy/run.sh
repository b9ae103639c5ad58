#!/usr/bin/env bash
# detox-dashboard, quick start of a shared deployment on one machine, no root needed:
# DETOX_PROCESSES app processes (default 3) and an nginx in front of them on
# DETOX_PROXY_PORT (default 8080), all in the foreground. Ctrl-C or SIGTERM stops every
# process it started. An app process that exits is started again after 2 s (the browsers
# on it reconnect to another process meanwhile).
#
#   DETOX_DB_URL=postgresql+psycopg://detox:secret@127.0.0.1/detox \
#   DETOX_ORGANIZER_PASSWORD=... DETOX_PROCESSES=3 DETOX_PROXY_PORT=8080 deploy/run.sh
#
# Other settings it reads: DETOX_FIRST_APP_PORT (8601; the processes take the ports from
# there on, on 127.0.0.1), DETOX_RUN_DIR (data/run: nginx.conf, logs, pid files), DETOX_LOG_MB
# (20: each app log rotates past it, three old ones kept),
# DETOX_PYTHON (.venv/bin/python, made by `make setup data`), NGINX (nginx on the PATH,
# else /usr/sbin/nginx), and everything the app reads (README: Deploying for a shared task).
set -euo pipefail
cd "$(dirname "$0")/.."

N="${DETOX_PROCESSES:-3}"
PORT="${DETOX_PROXY_PORT:-8080}"
FIRST="${DETOX_FIRST_APP_PORT:-8601}"
RUN="${DETOX_RUN_DIR:-data/run}"
PY="${DETOX_PYTHON:-.venv/bin/python}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"

say() { echo "run.sh: $*" >&2; }
die() { say "$*"; exit 1; }

[[ "$N" =~ ^[0-9]+$ ]] && (( N >= 1 && N <= 64 )) || die "DETOX_PROCESSES must be a number from 1 to 64, not '$N'"
[[ "$PORT" =~ ^[0-9]+$ ]] || die "DETOX_PROXY_PORT must be a port number, not '$PORT'"
[ -x "$PY" ] || die "no Python environment at $PY: run 'make setup data' first (or set DETOX_PYTHON)"
[ -x "$NGINX" ] || die "nginx is not installed: 'sudo apt-get install nginx' (Debian, Ubuntu), or set NGINX to its path"

if [ -z "${DETOX_DB_URL:-}" ]; then
    say "WARNING: no DETOX_DB_URL: the processes share the SQLite file data/detox.sqlite. That holds for"
    say "         a few processes on one machine; past that, and for any real campaign, use PostgreSQL"
    say "         (README: Deploying for a shared task)."
fi
# Access settings that cannot be read (a broken secrets file, a short organizer password) stop
# here, naming the file and line, before any process starts: never read as "no password".
problem="$("$PY" -c 'from detox_core.ui.app.settings_check import settings_problem; print(settings_problem() or "")')" \
    || die "the access settings could not be checked (see above)"
[ -z "$problem" ] || die "the access settings cannot be read, so nothing starts: $problem"
if [ -z "${DETOX_ORGANIZER_PASSWORD:-}" ] && ! grep -qs "organizer_password" .streamlit/secrets.toml; then
    say "WARNING: no organizer password: the app is open, everyone who reaches port $PORT can use every page."
fi

# Every port free before anything starts (another deployment, a system nginx on the port).
busy="$("$PY" -c '
import socket, sys
for port in sys.argv[1:]:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("", int(port)))
        except OSError:
            print(port, end=" ")
' "$PORT" $(seq "$FIRST" $((FIRST + N - 1))))"
[ -z "$busy" ] || die "port(s) in use: ${busy% }. Stop what listens there, or choose DETOX_PROXY_PORT / DETOX_FIRST_APP_PORT."

mkdir -p "$RUN"
RUN="$(cd "$RUN" && pwd)"
# One secret for the processes' cookies (an upload after a reconnect to another process
# carries the cookie the first one set).
if [ -z "${STREAMLIT_SERVER_COOKIE_SECRET:-}" ]; then
    [ -s "$RUN/cookie-secret" ] || (umask 077; "$PY" -c "import secrets; print(secrets.token_hex(32))" >"$RUN/cookie-secret")
    STREAMLIT_SERVER_COOKIE_SECRET="$(cat "$RUN/cookie-secret")"
fi
export STREAMLIT_SERVER_COOKIE_SECRET

"$PY" -m detox_core deploy-nginx --processes "$N" --first-port "$FIRST" --listen "$PORT" --run-dir "$RUN" >/dev/null
"$NGINX" -t -q -p "$RUN" -c "$RUN/nginx.conf" -e stderr || die "nginx refused $RUN/nginx.conf (see above)"

children=()
stopping=0
stop() {  # every process started; exits with $1 (0: asked to stop)
    local code="${1:-0}"
    stopping=1
    trap - INT TERM
    say "stopping ${#children[@]} processes"
    for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    # 30 s to end gracefully, then killed (with an app process a supervisor was waiting on).
    local deadline=$((SECONDS + 30)) pid
    for pid in "${children[@]}"; do
        while kill -0 "$pid" 2>/dev/null && (( SECONDS < deadline )); do sleep 0.2; done
    done
    for f in "$RUN"/app-*.pid; do [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true; done
    for pid in "${children[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -f "$RUN"/app-*.pid
    exit "$code"
}
# HUP too: a closed terminal or SSH session stops everything (nginx would take HUP as "reload").
trap 'stop 0' INT TERM HUP

# One app process, started again when it exits (until run.sh stops).
supervise() {
    local k="$1" port="$2" child=""
    trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' TERM INT
    while :; do
        # The output through a rotating log: at most 4 x DETOX_LOG_MB megabytes per process.
        "$PY" -m detox_core serve --server.port "$port" --server.address 127.0.0.1 --server.headless true \
            > >("$PY" -m detox_core.deployment.logpipe "$RUN/app-$k.log" --max-mb "${DETOX_LOG_MB:-20}" --keep 3) 2>&1 &
        child=$!
        echo "$child" >"$RUN/app-$k.pid"
        wait "$child" && code=0 || code=$?
        echo "run.sh: app process $k (port $port) exited with status $code; starting it again in 2 s" >>"$RUN/app-$k.log"
        sleep 2
    done
}

for ((k = 1; k <= N; k++)); do
    supervise "$k" $((FIRST + k - 1)) &
    children+=($!)
done

# nginx once every process answers (at most 120 s; the models warm in the background).
deadline=$((SECONDS + 120))
for ((k = 1; k <= N; k++)); do
    until "$PY" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
            "http://127.0.0.1:$((FIRST + k - 1))/_stcore/health" 2>/dev/null; do
        (( SECONDS < deadline )) || { say "app process $k did not answer within 120 s: see $RUN/app-$k.log"; stop 1; }
        sleep 0.5
    done
done
"$NGINX" -p "$RUN" -c "$RUN/nginx.conf" -e stderr -g "daemon off;" &
children+=($!)
until "$PY" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
        "http://127.0.0.1:$PORT/_stcore/health" 2>/dev/null; do
    kill -0 "${children[-1]}" 2>/dev/null || { say "nginx did not start (see above and $RUN/nginx-error.log)"; stop 1; }
    sleep 0.3
done
say "detox-dashboard on http://$(hostname -f 2>/dev/null || hostname):$PORT/ ($N app processes on ports $FIRST-$((FIRST + N - 1)); logs in $RUN). Ctrl-C stops it."

# Until a signal, or until nginx exits.
wait "${children[-1]}" || true
(( stopping )) || { say "nginx exited (see $RUN/nginx-error.log)"; stop 1; }
