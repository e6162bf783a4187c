#!/usr/bin/env bash
# test_emfile.sh - out of file descriptors on accept: the proxy stops
# accepting, retries from a timer, and serves the waiting clients once
# tunnels close (no lost clients: each gets 200, or 502 when the
# upstream socket could not be made), and works normally afterwards.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT
# start_proxy under a small descriptor limit (a subshell keeps ours)
: >"$TEST_TMP/proxy.log"
(ulimit -n 16 && exec "$PROXY_BIN" --listen 127.0.0.1:0 \
    --allow "127.0.0.1:$ECHO" --allow-private 2>"$TEST_TMP/proxy.log") &
PX_PID=$!
on_cleanup "kill $PX_PID 2>/dev/null"
wait_for "$TEST_TMP/proxy.log" '"listening"'
PX_PORT=$(sed -n 's/.*"addr":"127.0.0.1:\([0-9]*\)".*/\1/p' \
    "$TEST_TMP/proxy.log" | head -n 1)

pids=()
for i in $(seq 8); do # each holds its tunnel for 1.5 s
    probe many "$PX_PORT" "127.0.0.1:$ECHO" 1 1500 >"$TEST_TMP/m.$i" &
    pids+=($!)
done
wait "${pids[@]}"
for i in $(seq 8); do
    check_match "client $i got an answer" \
        '^(200=1 503=0 other=0 echoed=1|200=0 503=0 other=1 echoed=0)$' \
        "$(cat "$TEST_TMP/m.$i")"
done
check_match "the proxy ran out of descriptors and said so" \
    'accept: Too many open files' "$(cat "$TEST_TMP/proxy.log")"
check "every answer other than 200 was a logged 502" test \
    "$(grep -c '"status":502' "$TEST_TMP/proxy.log" || true)" -eq \
    "$(cat "$TEST_TMP"/m.* | grep -c other=1 || true)"
check_eq "afterwards a tunnel works again" "ok 100" \
    "$(probe echo "$PX_PORT" "127.0.0.1:$ECHO" 100)"
stop_proxy
