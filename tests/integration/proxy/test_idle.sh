#!/usr/bin/env bash
# test_idle.sh - --idle-timeout closes a tunnel with no traffic either
# way, and the log says why; a tunnel that keeps talking is not closed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT
start_proxy --allow "127.0.0.1:$ECHO" --allow-private --idle-timeout 0.5
# one tunnel held silent for 3 s: closed by the proxy meanwhile
probe many "$PX_PORT" "127.0.0.1:$ECHO" 1 3000 >"$TEST_TMP/m"
check_eq "tunnel came up" "200=1 503=0 other=0 echoed=1" "$(cat "$TEST_TMP/m")"
check_match "closed for idleness" '"status":200,.*"reason":"idle timeout"' \
    "$(cat "$TEST_TMP/proxy.log")"
# negative control: 1 MiB echoed right away finishes as "done"
check_eq "a busy tunnel finishes" "ok 1048576" \
    "$(probe echo "$PX_PORT" "127.0.0.1:$ECHO" 1048576)"
check_eq "and is logged as done, not idle" 1 \
    "$(grep -c '"reason":"done"' "$TEST_TMP/proxy.log")"
stop_proxy
