#!/usr/bin/env bash
# test_sigterm.sh - SIGTERM stops accepting, lets open tunnels run for
# --drain-timeout, then closes them and exits 0; with nothing open it
# exits at once. A connection still reading its header when SIGTERM comes
# never gets a tunnel: it is answered 503 (control: the same client
# without a SIGTERM gets 200).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT

# late TAG SIGNAL: a client that stops one CRLF short of its header; the
# proxy gets SIGNAL (or none) before the client finishes. Prints the status.
late() {
    local out=$TEST_TMP/late-$1.out go=$TEST_TMP/late-$1.go lpid
    probe late "$PX_PORT" "127.0.0.1:$ECHO" "$go" >"$out" &
    lpid=$!
    wait_for "$out" '^sent'
    if [ -n "$2" ]; then
        kill "-$2" "$PX_PID"
        wait_for "$TEST_TMP/proxy.log" '"draining'
    fi
    touch "$go"
    wait "$lpid"
    sed -n 2p "$out"
}
start_proxy --allow "127.0.0.1:$ECHO" --allow-private --drain-timeout 30
check_eq "control: a header finished without SIGTERM gets its tunnel" 200 \
    "$(late nosignal "")"
check_eq "a header still being read at SIGTERM gets 503, not a tunnel" 503 \
    "$(late sigterm TERM)"
rc=0
wait "$PX_PID" || rc=$?
check_eq "exit 0 once the refused client is answered" 0 "$rc"
check_eq "no tunnel was opened during the drain" 1 \
    "$(grep -c '"status":200' "$TEST_TMP/proxy.log")"

start_proxy --allow "127.0.0.1:$ECHO" --allow-private --drain-timeout 1
probe many "$PX_PORT" "127.0.0.1:$ECHO" 2 20000 >"$TEST_TMP/many" &
mpid=$!
on_cleanup "kill $mpid 2>/dev/null"
wait_for "$TEST_TMP/many" '200='
check_eq "two tunnels up" "200=2 503=0 other=0 echoed=2" "$(cat "$TEST_TMP/many")"
kill -TERM "$PX_PID"
wait_for "$TEST_TMP/proxy.log" '"draining'
refused() { ! probe status "$PX_PORT" "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\n\r\n" >/dev/null 2>&1; }
check "no new connections once draining" refused
rc=0
wait "$PX_PID" || rc=$?
check_eq "exit 0 after the drain timeout" 0 "$rc"
check_eq "both held tunnels logged as closed by the shutdown" 2 \
    "$(grep -c '"status":200.*"reason":"shutdown"' "$TEST_TMP/proxy.log")"

start_proxy --allow "127.0.0.1:$ECHO" --allow-private --drain-timeout 30
check_eq "a tunnel that ends by itself" "ok 10" \
    "$(probe echo "$PX_PORT" "127.0.0.1:$ECHO" 10)"
stop_proxy
check_eq "which was logged as done" 1 \
    "$(grep -c '"reason":"done"' "$TEST_TMP/proxy.log")"
