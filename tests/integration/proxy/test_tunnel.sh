#!/usr/bin/env bash
# test_tunnel.sh - bytes through a tunnel: header plus 16 KiB in one write
# arrive intact upstream, pipelined bytes are kept, half-close is passed on
# in both directions, big transfers survive back-pressure.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT
mkdir "$TEST_TMP/rec"
"$PROBE_BIN" serve record "$TEST_TMP/rec" &
on_cleanup "kill $! 2>/dev/null"
wait_for "$TEST_TMP/rec/port" '[0-9]'
REC=$(cat "$TEST_TMP/rec/port")
start_upstream greet greet
GREET=$UP_PORT

start_proxy --allow "127.0.0.1:$ECHO,127.0.0.1:$REC,127.0.0.1:$GREET" \
    --allow-private --header-limit 8192

# header + 16 KiB payload in one write, upstream records what it got
check_eq "header + 16 KiB in one write: 200, EOF passed on" "ok 16384" \
    "$(probe send "$PX_PORT" "127.0.0.1:$REC" 16384)"
wait_for "$TEST_TMP/rec/conn-0" ''
# the expected bytes: the same generator, via the echo path below
probe echo "$PX_PORT" "127.0.0.1:$ECHO" 16384 >/dev/null
check_eq "upstream got exactly 16384 bytes" 16384 \
    "$(stat -c %s "$TEST_TMP/rec/conn-0")"
check_eq "and not a byte of the CONNECT header" 0 \
    "$(grep -c CONNECT "$TEST_TMP/rec/conn-0" || true)"
check_eq "the bytes are the ones sent (pattern head)" "ahovcjqxel" \
    "$(head -c 10 "$TEST_TMP/rec/conn-0")"

# payload larger than --header-limit right behind the header is tunnelled
check_eq "pipelined 20 KiB after an 8 KiB limit echoed intact" "ok 20000" \
    "$(probe echo "$PX_PORT" "127.0.0.1:$ECHO" 20000)"
check_eq "pipelined single byte echoed" "ok 1" \
    "$(probe echo "$PX_PORT" "127.0.0.1:$ECHO" 1)"
# 8 MiB each way through 16 KiB pump buffers: back-pressure, no loss
check_eq "8 MiB echoed intact" "ok 8388608" \
    "$(probe echo "$PX_PORT" "127.0.0.1:$ECHO" 8388608)"

# half-close client -> upstream: echo test ends with EOF after our
# shutdown (checked inside px-probe echo). Upstream -> client: greet
check_eq "upstream EOF reaches the client, client can still send" "ok 3000" \
    "$(probe greet "$PX_PORT" "127.0.0.1:$GREET" 3000)"
wait_for "$TEST_TMP/greet.out" 'got'
check_eq "upstream got the client's bytes after its own half-close" \
    "got 3000" "$(cat "$TEST_TMP/greet.out")"

stop_proxy
check_match "log counts bytes both ways" '"status":200,"bytes_up":8388608,"bytes_down":8388608' \
    "$(grep 8388608 "$TEST_TMP/proxy.log")"
