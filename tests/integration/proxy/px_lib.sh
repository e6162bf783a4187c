# px_lib.sh - helpers for the egress-proxy scenarios (source after lib.sh).
#
# start_upstream MODE NAME: run px-probe serve MODE in the background and
# set UP_PORT. start_proxy ARGS...: run egress-proxy on 127.0.0.1:0 with
# ARGS, set PX_PID and PX_PORT (from its "listening" log line); its log is
# $TEST_TMP/proxy.log. Both are killed on exit.
PROBE_BIN=$BUILD/proxy/px-probe
PROXY_BIN=$BUILD/proxy/egress-proxy
[ -x "$PROBE_BIN" ] && [ -x "$PROXY_BIN" ] ||
    skip "egress-proxy or px-probe not built in $BUILD"

# probe ARGS...: a px-probe client, bounded so a misbehaving proxy fails
# the scenario instead of hanging it.
probe() {
    timeout 120 "$PROBE_BIN" "$@"
}

# wait_for FILE PATTERN: up to 10 s for PATTERN to appear in FILE.
wait_for() {
    local i
    for i in $(seq 100); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "timed out waiting for /$2/ in $1"
}

start_upstream() {
    local mode=$1 name=$2
    "$PROBE_BIN" serve "$mode" "$TEST_TMP/$name.port" >"$TEST_TMP/$name.out" &
    on_cleanup "kill $! 2>/dev/null"
    wait_for "$TEST_TMP/$name.port" '[0-9]'
    UP_PORT=$(cat "$TEST_TMP/$name.port")
}

start_proxy() {
    : >"$TEST_TMP/proxy.log"
    "$PROXY_BIN" --listen 127.0.0.1:0 "$@" 2>"$TEST_TMP/proxy.log" &
    PX_PID=$!
    on_cleanup "kill $PX_PID 2>/dev/null"
    wait_for "$TEST_TMP/proxy.log" '"listening"'
    PX_PORT=$(sed -n 's/.*"addr":"127.0.0.1:\([0-9]*\)".*/\1/p' \
        "$TEST_TMP/proxy.log" | head -n 1)
}

# stop_proxy: SIGTERM, expect exit 0.
stop_proxy() {
    local rc=0
    kill -TERM "$PX_PID"
    wait "$PX_PID" || rc=$?
    check_eq "proxy exits 0 on SIGTERM" 0 "$rc"
}

# status RAW: the status code the proxy answers to RAW.
status() {
    probe status "$PX_PORT" "$1"
}

# rss_kb PID: resident set size in KiB.
rss_kb() {
    awk '/^VmRSS:/ {print $2}' "/proc/$1/status"
}
