# Sourced by the scripts that test a running tapster (scripts/schemathesis, scripts/openapi-clients):
# the binary, the bundled data, a key and a server on a free loopback port, stopped however the
# script ends.
#
# Before sourcing, the script sets ROOT (the repository) and TARGET (cargo's target dir), and
# `set -euo pipefail`. It then calls:
#   tapster_bin                  sets BIN: $TAPSTER_BIN if set, else `cargo build -p tapster-server`
#                                and target/debug/tapster.
#   serve_fixtures NAME PY [serve args...]
#                                imports fixtures/ into a temporary data dir, creates a key with
#                                limits no run reaches (account ci@example.com, key name NAME), serves
#                                on a free loopback port with the extra serve args, and waits (up to
#                                120 s) for a 200 from /healthz, using the python3 PY. Sets WORK (the
#                                temporary dir, removed on exit; serve.log is in it), D (data dir),
#                                KEY, PORT, BASE (http://127.0.0.1:PORT) and SERVER_PID, and traps
#                                EXIT to stop the server (TERM, then KILL after 5 s) and remove WORK.

log() { printf '== %s\n' "$*" >&2; }

tapster_bin() {
    if [[ -n "${TAPSTER_BIN:-}" ]]; then
        BIN="$(realpath "$TAPSTER_BIN")"
    else
        log "cargo build -p tapster-server"
        cargo build --quiet --locked -p tapster-server
        BIN="$TARGET/debug/tapster"
    fi
}

serve_fixtures() {
    local name="$1" py="$2"
    shift 2
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/tapster-$name.XXXXXX")"
    D="$WORK/data"
    SERVER_PID=""
    trap _serve_fixtures_cleanup EXIT
    trap 'exit 130' INT TERM

    log "importing fixtures into $D"
    "$BIN" import "$ROOT/fixtures" --data-dir "$D" >"$WORK/import.log" 2>&1 || { cat "$WORK/import.log" >&2; exit 1; }
    KEY="$("$BIN" keys create --account ci@example.com --name "$name" \
        --per-minute 1000000000 --burst 1000000000 --per-day 1000000000 --data-dir "$D" | tail -n1)"
    [[ "$KEY" == tap_* ]] || { echo "no key from keys create: $KEY" >&2; exit 1; }

    # A port the kernel just handed out and released; serve binds it right after.
    PORT="$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    BASE="http://127.0.0.1:$PORT"
    "$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$D" "$@" >"$WORK/serve.log" 2>&1 &
    SERVER_PID=$!
    log "tapster serve on $BASE (pid $SERVER_PID)"
    "$py" - "$BASE/healthz" "$SERVER_PID" <<'EOF' || { cat "$WORK/serve.log" >&2; exit 1; }
import os, sys, time, urllib.request
url, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("tapster serve exited before answering /healthz")
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit("no 200 from /healthz within 120 s")
EOF
}

_serve_fixtures_cleanup() {
    if [[ -n "${SERVER_PID:-}" ]]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
