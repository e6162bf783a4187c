#!/usr/bin/env bash
# test_backpressure.sh - a peer that stops reading stalls the sender
# instead of filling the proxy: ten clients push for 3 s into upstreams
# that never read; the proxy's RSS stays within 1 MiB of where it was and
# each client could only push what the kernel buffers on the way hold
# (two send and two receive buffers at their autotuning maximum) plus the
# proxy's own bounded leftover: what the direction's pipe holds, at most
# its size (PX_PIPE_SIZE, 1 MiB, kernel memory outside the RSS), or a
# copied leftover when splicing is refused (16 KiB).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream hold hold
HOLD=$UP_PORT
start_proxy --allow "127.0.0.1:$HOLD" --allow-private
before=$(rss_kb "$PX_PID")
pids=()
for i in $(seq 10); do
    probe push "$PX_PORT" "127.0.0.1:$HOLD" 3 >"$TEST_TMP/push.$i" &
    pids+=($!)
done
peak=$before
sleep 2.5
r=$(rss_kb "$PX_PID")
[ "$r" -gt "$peak" ] && peak=$r
wait "${pids[@]}"
wmem=$(awk '{print $3}' /proc/sys/net/ipv4/tcp_wmem)
rmem=$(awk '{print $3}' /proc/sys/net/ipv4/tcp_rmem)
bound=$((2 * wmem + 2 * rmem + 1048576 + 16384))
for i in $(seq 10); do
    n=$(cat "$TEST_TMP/push.$i")
    check_match "client $i pushed some bytes" '^[1-9][0-9]*$' "$n"
    check "client $i stalled after $n bytes (bound $bound)" test "$n" -le "$bound"
done
echo "proxy RSS before ${before} KiB, peak ${peak} KiB"
check "proxy RSS grew by less than 1 MiB" test $((peak - before)) -lt 1024
stop_proxy
