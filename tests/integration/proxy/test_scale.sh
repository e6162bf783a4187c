#!/usr/bin/env bash
# test_scale.sh - 1,000 concurrent tunnels through one proxy, each one
# echoing; then --max-conns overflow answered 503 while the rest work,
# also past the 64 answers that may linger (a flood still gets 503s, not
# bare closes).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

ulimit -n 8192 2>/dev/null || skip "cannot raise the open-file limit"
start_upstream echo echo
ECHO=$UP_PORT

start_proxy --allow "127.0.0.1:$ECHO" --allow-private --max-conns 2000
probe many "$PX_PORT" "127.0.0.1:$ECHO" 1000 1500 >"$TEST_TMP/many" &
mpid=$!
wait_for "$TEST_TMP/many" '200='
check_eq "1000 concurrent tunnels all up and echoing" \
    "200=1000 503=0 other=0 echoed=1000" "$(cat "$TEST_TMP/many")"
open=$(ls "/proc/$PX_PID/fd" | wc -l)
check "proxy holds 2000+ sockets while they are open ($open fds)" \
    test "$open" -ge 2000
rss=$(rss_kb "$PX_PID")
echo "proxy RSS with 1000 open tunnels: ${rss} KiB"
wait "$mpid"
stop_proxy

start_proxy --allow "127.0.0.1:$ECHO" --allow-private --max-conns 100
check_eq "130 at once with --max-conns 100: 100 tunnels, 30 answered 503" \
    "200=100 503=30 other=0 echoed=100" \
    "$(probe many "$PX_PORT" "127.0.0.1:$ECHO" 130 0)"
stop_proxy

start_proxy --allow "127.0.0.1:$ECHO" --allow-private --max-conns 2
check_eq "300 at once with --max-conns 2: 2 tunnels, 298 answered 503" \
    "200=2 503=298 other=0 echoed=2" \
    "$(probe many "$PX_PORT" "127.0.0.1:$ECHO" 300 0)"
stop_proxy
n=$(grep -c '"status":503.*"reason":"over --max-conns; answered without lingering"' \
    "$TEST_TMP/proxy.log" || true)
echo "503 answers past the lingering cap: $n"
check "some went past the 64 lingering answers (stateless 503, logged)" \
    test "$n" -ge 1
