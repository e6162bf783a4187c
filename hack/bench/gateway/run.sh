#!/usr/bin/env bash
# run.sh - benchmark agent-gateway against a direct TLS connection to the
# TLS test vendor, side by side in one run on loopback, and print one
# markdown table (docs/gateway.md "Benchmark"):
#   request   - POST /v1/messages (JSON answer) on one kept-alive
#               connection: the gateway's added latency per request;
#   cold      - the same with "Connection: close": a new connection per
#               request (direct: TCP + TLS handshake to the vendor;
#               gateway: TCP to the gateway, which does TCP + TLS to the
#               vendor);
#   stream    - POST /v1/messages with "stream": true (SSE) kept-alive:
#               time to the first byte and to the end of the stream;
#   big       - the same with a 100 KiB streamed answer (a tool call whose
#               input is 100 KiB);
#   streamraw, bigraw - the same two through the gateway's usage reader
#               switched off: the path /raw/v1/messages, which the test
#               vendor serves as /v1/messages and the gateway does not
#               read (only the exact model paths are read), so the rows
#               side by side show what reading the usage costs.
# Latencies are curl's own (-w time_starttransfer / time_total), p50 and
# p99 over BENCH_N requests (default 300) per row, the rows interleaved in
# BENCH_REPS rounds (default 3) so a load change on a shared machine hits
# both sides alike. Also the gateway's peak RSS and CPU seconds.
# Not a test: numbers, no pass/fail. Only loopback is used: the vendor is
# on 127.0.0.1 and the gateway dials it through --connect-to.
# Env: BENCH_N, BENCH_REPS, BENCH_BUILD (a built tree, default build/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=${BENCH_BUILD:-$ROOT/build}
N=${BENCH_N:-300}
REPS=${BENCH_REPS:-3}
HOST=llm.vendor.test
VPORT=${BENCH_VENDOR_PORT:-18643}
GPORT=${BENCH_GATEWAY_PORT:-18680}
W=$(mktemp -d /tmp/gwbench.XXXXXX)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$W"
}
trap cleanup EXIT

GW_BIN=$B/proxy/agent-gateway
VENDOR_BIN=$(find "$B/tests" -maxdepth 2 -type f -name tls-vendor | head -n 1)
if [ ! -x "$GW_BIN" ] || [ -z "$VENDOR_BIN" ]; then
    cmake --build "$B" -j2 --target agent-gateway tls-vendor >/dev/null
    VENDOR_BIN=$(find "$B/tests" -maxdepth 2 -type f -name tls-vendor | head -n 1)
fi

# --- a CA, the vendor's certificate, the key ----------------------------
(
    cd "$W"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
        -days 2 -subj "/CN=gateway bench CA" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey rsa:2048 -nodes -keyout vendor.key -out vendor.csr \
        -subj "/CN=$HOST"
    printf '%s\n' "subjectAltName=DNS:$HOST" "basicConstraints=CA:FALSE" \
        "extendedKeyUsage=serverAuth" >ext
    openssl x509 -req -in vendor.csr -CA ca.pem -CAkey ca.key \
        -CAcreateserial -out vendor.pem -days 2 -extfile ext
) >/dev/null 2>&1
printf 'sk-bench-%s\n' "$(openssl rand -hex 16)" >"$W/key"
chmod 0400 "$W/key"

"$VENDOR_BIN" --cert "$W/vendor.pem" --key "$W/vendor.key" --port "$VPORT" \
    >/dev/null 2>"$W/vendor.err" &
PIDS+=($!)
"$GW_BIN" --listen "127.0.0.1:$GPORT" --upstream "$HOST:443" \
    --connect-to "$HOST:443=127.0.0.1:$VPORT" --ca-file "$W/ca.pem" \
    --key-file "$W/key" --allow 'POST /v1/messages' --allow 'POST /raw' \
    >/dev/null 2>"$W/gw.err" &
GW_PID=$!
PIDS+=($GW_PID)
for _ in $(seq 1 50); do
    grep -q listening "$W/gw.err" && grep -q listening "$W/vendor.err" && break
    sleep 0.1
done

body() {
    printf '{"model":"bench","max_tokens":16,"stream":%s,"messages":[{"role":"user","content":"TASK bench"}]}' "$1"
}
body false >"$W/json.body"
body true >"$W/sse.body"
python3 - "$W/big.body" <<'EOF2'
import json, sys
args = json.dumps({"data": "x" * 102400})
b = {"model": "bench", "max_tokens": 16, "stream": True,
     "tools": [{"name": "t", "input_schema": {"type": "object"}}],
     "messages": [{"role": "user", "content": "TASK bench\nCALL t " + args}]}
open(sys.argv[1], "w").write(json.dumps(b))
EOF2

# run SIDE KIND: N requests in one curl (kept alive unless cold), one
# "starttransfer total" line each, appended to $W/SIDE-KIND.
run() {
    local side=$1 kind=$2 url args=() i path=/v1/messages
    case $kind in *raw) path=/raw/v1/messages ;; esac
    case $side in
    direct)
        url=https://$HOST:$VPORT$path
        args=(--cacert "$W/ca.pem" --resolve "$HOST:$VPORT:127.0.0.1")
        ;;
    gateway) url=http://127.0.0.1:$GPORT$path ;;
    esac
    case $kind in
    cold) args+=(-H 'Connection: close' --data-binary "@$W/json.body") ;;
    request) args+=(--data-binary "@$W/json.body") ;;
    stream | streamraw) args+=(--data-binary "@$W/sse.body") ;;
    # no Expect: curl's 100-continue wait would be the "first byte"
    big | bigraw) args+=(-H 'Expect:' --data-binary "@$W/big.body") ;;
    esac
    for ((i = 0; i < N; i++)); do
        printf 'url = "%s"\noutput = "/dev/null"\n' "$url"
    done >"$W/urls"
    curl -sS -K "$W/urls" -H 'content-type: application/json' \
        -H 'x-api-key: direct-bench-key' "${args[@]}" \
        -w '%{time_starttransfer} %{time_total}\n' >>"$W/$side-$kind"
}

for ((r = 1; r <= REPS; r++)); do
    for kind in request cold stream streamraw big bigraw; do
        for side in direct gateway; do
            run "$side" "$kind"
        done
    done
done

# pct FILE COLUMN P: the P-th percentile of a column, in ms.
pct() {
    awk -v c="$2" '{ print $c * 1000 }' "$1" | sort -n |
        awk -v p="$3" '{ v[NR] = $1 } END {
            i = int(NR * p / 100 + 0.5); if (i < 1) i = 1; if (i > NR) i = NR
            printf "%.2f", v[i] }'
}
cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$GW_PID/stat")
rss=$(awk '/VmHWM/ { print $2 }' "/proc/$GW_PID/status")
total=$(grep -c . "$W"/gateway-* |
    awk -F: '{ s += $2 } END { print s }')

echo "| row | direct p50 | gateway p50 | added p50 | direct p99 | gateway p99 |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
row() { # NAME KIND COLUMN
    local d50 g50 d99 g99
    d50=$(pct "$W/direct-$2" "$3" 50)
    g50=$(pct "$W/gateway-$2" "$3" 50)
    d99=$(pct "$W/direct-$2" "$3" 99)
    g99=$(pct "$W/gateway-$2" "$3" 99)
    printf '| %s | %s ms | %s ms | %s ms | %s ms | %s ms |\n' "$1" "$d50" \
        "$g50" "$(awk -v a="$g50" -v b="$d50" 'BEGIN { printf "%.2f", a - b }')" \
        "$d99" "$g99"
}
row "request, kept alive (total)" request 2
row "request, new connection (total)" cold 2
row "SSE stream, first byte" stream 1
row "SSE stream, first byte, usage not read" streamraw 1
row "SSE stream, to the end" stream 2
row "SSE stream, to the end, usage not read" streamraw 2
# (no first-byte rows for it: with a 100 KiB upload curl's
# time_starttransfer is not the answer's first byte)
row "100 KiB SSE stream, to the end" big 2
row "100 KiB SSE stream, to the end, usage not read" bigraw 2
echo
echo "$((N * REPS)) requests per row; gateway: $total requests, $cpu s CPU" \
    "(user+system), peak RSS $rss KiB; $(nproc) cores, shared."
