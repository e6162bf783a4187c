#!/usr/bin/env bash
# test_limits.sh - header limits: a 9 KiB header gets 431 under the 8 KiB
# default, a header that never ends gets 408 or 431 and the proxy's RSS
# stays flat while ten clients stream megabytes of it.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT

start_proxy --allow "127.0.0.1:$ECHO" --allow-private
big=$(head -c 9216 /dev/zero | tr '\0' a)
check_eq "9 KiB header gets 431 (default limit 8192)" 431 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\nX: $big\r\n\r\n")"
# negative control: the same request with a 7 KiB header is admitted
check_eq "7 KiB header gets 200" 200 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\nX: ${big:0:7000}\r\n\r\n")"
# endless header at speed: 431 once past 8192 bytes
out=$(probe trickle "$PX_PORT" 1000 10 5)
check_match "endless fast header gets 431" '^431 ' "$out"
stop_proxy

# Largest limit, short timeout: ten clients stream 64 KiB every 10 ms for
# up to 4 s each. A proxy that buffered the header would grow by up to
# 1 MiB per client; this one must stay within 2 MiB of where it started.
start_proxy --allow "127.0.0.1:$ECHO" --allow-private \
    --header-limit 1048576 --header-timeout 2
before=$(rss_kb "$PX_PID")
pids=()
for i in $(seq 10); do
    probe trickle "$PX_PORT" 65536 10 4 >"$TEST_TMP/trickle.$i" &
    pids+=($!)
done
peak=$before
while kill -0 "${pids[0]}" 2>/dev/null; do
    r=$(rss_kb "$PX_PID")
    [ "$r" -gt "$peak" ] && peak=$r
    sleep 0.1
done
wait "${pids[@]}"
for i in $(seq 10); do
    check_match "endless streamed header $i gets 408 or 431" '^(408|431) ' \
        "$(cat "$TEST_TMP/trickle.$i")"
done
echo "proxy RSS: before ${before} KiB, peak ${peak} KiB"
check "RSS grew by less than 2 MiB while streaming" \
    test $((peak - before)) -lt 2048

# slow drip: never reaches the limit, times out
out=$(probe trickle "$PX_PORT" 10 200 6)
check_match "slow endless header gets 408" '^408 ' "$out"
stop_proxy
