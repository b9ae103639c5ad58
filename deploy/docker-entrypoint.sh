#!/bin/sh
# detox-dashboard: the container's entrypoint (deploy/Dockerfile).
#
#   serve [streamlit options]   the default: the data step when the data folder holds no
#                               lexicons yet, then the app's server on $PORT
#                               (default 8601) on every address of the container
#   prepare                     the data step only
#   anything else               run as a command (e.g. python -m detox_core health)
#
# The data step is the one of `make data`: fetch-data (which builds the lexicons), allowed to fail
# (the app still starts; it says what is missing; the embedded preset's heads ship in the
# image). Containers that share the data folder take turns: one runs it, the others wait and
# then find the data.
#
# With no STREAMLIT_SERVER_COOKIE_SECRET set, the server uses a random secret kept in
# <data folder>/run/cookie-secret, the same for every container of that data folder (a
# browser moved to another container after its first one stopped still uploads).
set -eu

DATA="${DETOX_DATA_DIR:-/app/data}"
PORT="${PORT:-8601}"

say() { echo "docker-entrypoint: $*" >&2; }

check_data_folder() {
    mkdir -p "$DATA/run" 2>/dev/null || true
    if [ ! -w "$DATA" ] || [ ! -w "$DATA/run" ]; then
        say "the data folder $DATA is not writable by uid $(id -u): mount a volume there, or a host folder owned by uid $(id -u)"
        exit 1
    fi
}

prepare_data() {
    # One container at a time: the lock is released when file descriptor 9 closes.
    exec 9>"$DATA/run/prepare.lock"
    if command -v flock >/dev/null 2>&1 && ! flock -n 9; then
        say "another container is preparing $DATA: waiting for it"
        flock 9
    fi
    if [ -f "$DATA/lexicons/sources.json" ]; then
        say "data and lexicons found in $DATA: no data step"
    else
        say "no lexicons in $DATA: fetching the data and building the lexicons (a minute or two)"
        python -m detox_core fetch-data --quiet \
            || say "fetch-data: some files are missing or the lexicons failed (see above); continuing without them. The next start tries again."
    fi
    exec 9>&-
}

cookie_secret() {
    [ -z "${STREAMLIT_SERVER_COOKIE_SECRET:-}" ] || return 0
    secret="$DATA/run/cookie-secret"
    if [ ! -s "$secret" ]; then
        exec 9>"$DATA/run/prepare.lock"
        if command -v flock >/dev/null 2>&1; then flock 9; fi
        if [ ! -s "$secret" ]; then
            (umask 077 && python -c "import secrets; print(secrets.token_hex(32))" >"$secret.tmp" && mv "$secret.tmp" "$secret")
        fi
        exec 9>&-
    fi
    STREAMLIT_SERVER_COOKIE_SECRET="$(cat "$secret")"
    export STREAMLIT_SERVER_COOKIE_SECRET
    say "no STREAMLIT_SERVER_COOKIE_SECRET set: using the one in $secret"
}

case "${1:-serve}" in
    serve)
        if [ $# -gt 0 ]; then shift; fi
        case "$PORT" in
            '' | *[!0-9]*) say "PORT must be a port number, not '$PORT'"; exit 1 ;;
        esac
        check_data_folder
        prepare_data
        cookie_secret
        exec python -m detox_core serve --server.port "$PORT" --server.address 0.0.0.0 --server.headless true "$@"
        ;;
    prepare)
        check_data_folder
        prepare_data
        ;;
    *)
        exec "$@"
        ;;
esac
