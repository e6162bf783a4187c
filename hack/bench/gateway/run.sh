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
#               side by side show what reading the usage costs;
#   100k, 1m  - the request row with a 100 KiB and a 1 MiB body.
# Three sides: direct (curl to the vendor over TLS), gateway (no request
# policy) and policy (the gateway with --body-policy anthropic, which
# reads each model request's body whole and judges it before any of it
# goes: issue 35). Every request is sent without "Expect: 100-continue"
# (the test vendor does not answer it, and curl would wait 1 s for it on
# the direct side at 1 MiB). First, before the rows: the burst rounds
# (below; the first is the gateway's 64 connections at once, curl
# --parallel, each posting a 1 KiB body), then 64 with 1 KiB and 64 with
# 100 KiB through the policy gateway: the peak RSS after each (a judged
# body is held whole: 64 x 100 KiB is 6.4 MiB of bodies).
# Bursts (the last table): BENCH_BURSTS rounds (default 5) of 64
# connections at once, each posting a 1 KiB body, through two gateways
# side by side: this tree's and a "before" one (BENCH_BASE_GW, a built
# agent-gateway; else built here from the git revision BENCH_BASE_REV,
# default main), with the peak RSS of each round (VmHWM reset before it
# through /proc/PID/clear_refs) and 1.5 s between rounds, as after a
# burst of an agent's requests (the gateway gives freed memory back a
# second after connections close). A third column: this tree's static
# binary, the one the image runs (build-static/, built here as
# hack/images.sh does), whose RSS holds only the library code it links
# (the dynamic build's holds some 5.5 MiB of shared libraries' pages).
# Latencies are curl's own (-w time_starttransfer / time_total), p50 and
# p99 over BENCH_N requests (default 300) per row, the rows interleaved in
# BENCH_REPS rounds (default 3) so a load change on a shared machine hits
# both sides alike. Also the gateway's peak RSS and CPU seconds.
# Not a test: numbers, no pass/fail. Only loopback is used: the vendor is
# on 127.0.0.1 and the gateway dials it through --connect-to.
# Env: BENCH_N, BENCH_REPS, BENCH_BUILD (a built tree, default build/),
# BENCH_BURSTS, BENCH_BASE_GW, BENCH_BASE_REV.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=${BENCH_BUILD:-$ROOT/build}
N=${BENCH_N:-300}
REPS=${BENCH_REPS:-3}
HOST=llm.vendor.test
VPORT=${BENCH_VENDOR_PORT:-18643}
GPORT=${BENCH_GATEWAY_PORT:-18680}
PPORT=${BENCH_POLICY_PORT:-18681}
BPORT=${BENCH_BASE_PORT:-18682}
BURSTS=${BENCH_BURSTS:-5}
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

# The "before" gateway of the burst rounds: given, or built from a
# revision of this repository (only its agent-gateway target).
BASE_GW=${BENCH_BASE_GW:-}
if [ -z "$BASE_GW" ]; then
    mkdir -p "$W/base/src"
    git -C "$ROOT" archive "${BENCH_BASE_REV:-main}" | tar -x -C "$W/base/src"
    cmake -S "$W/base/src" -B "$W/base/build" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$W/base/build" -j2 --target agent-gateway >/dev/null
    BASE_GW=$W/base/build/proxy/agent-gateway
fi

# shellcheck source=../../images/lib.sh
source "$ROOT/hack/images/lib.sh"
static_build agent-gateway >/dev/null 2>&1
STATIC_GW=$(static_bin agent-gateway)
SPORT=${BENCH_STATIC_PORT:-18683}

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
"$BASE_GW" --listen "127.0.0.1:$BPORT" --upstream "$HOST:443" \
    --connect-to "$HOST:443=127.0.0.1:$VPORT" --ca-file "$W/ca.pem" \
    --key-file "$W/key" --allow 'POST /v1/messages' \
    >/dev/null 2>"$W/base.err" &
BASE_PID=$!
PIDS+=($BASE_PID)
"$STATIC_GW" --listen "127.0.0.1:$SPORT" --upstream "$HOST:443" \
    --connect-to "$HOST:443=127.0.0.1:$VPORT" --ca-file "$W/ca.pem" \
    --key-file "$W/key" --allow 'POST /v1/messages' \
    >/dev/null 2>"$W/static.err" &
STATIC_PID=$!
PIDS+=($STATIC_PID)
"$GW_BIN" --listen "127.0.0.1:$PPORT" --upstream "$HOST:443" \
    --connect-to "$HOST:443=127.0.0.1:$VPORT" --ca-file "$W/ca.pem" \
    --key-file "$W/key" --allow 'POST /v1/messages' --allow 'POST /raw' \
    --body-policy anthropic \
    >/dev/null 2>"$W/policy.err" &
POLICY_PID=$!
PIDS+=($POLICY_PID)
for _ in $(seq 1 50); do
    grep -q listening "$W/gw.err" && grep -q listening "$W/policy.err" &&
        grep -q listening "$W/base.err" && grep -q listening "$W/static.err" &&
        grep -q listening "$W/vendor.err" && break
    sleep 0.1
done

# body STREAM [PAD-BYTES]: a Messages request, its one message padded
body() {
    printf '{"model":"bench","max_tokens":16,"stream":%s,"messages":[{"role":"user","content":"TASK bench %s"}]}' \
        "$1" "$(head -c "${2:-0}" /dev/zero | tr '\0' x)"
}
body false >"$W/json.body"
body true >"$W/sse.body"
body false $((100 * 1024)) >"$W/100k.body"
body false $((1024 * 1024)) >"$W/1m.body"
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
    policy) url=http://127.0.0.1:$PPORT$path ;;
    esac
    case $kind in
    cold) args+=(-H 'Connection: close' --data-binary "@$W/json.body") ;;
    request) args+=(--data-binary "@$W/json.body") ;;
    stream | streamraw) args+=(--data-binary "@$W/sse.body") ;;
    big | bigraw) args+=(--data-binary "@$W/big.body") ;;
    100k | 1m) args+=(--data-binary "@$W/$kind.body") ;;
    esac
    for ((i = 0; i < N; i++)); do
        printf 'url = "%s"\noutput = "/dev/null"\n' "$url"
    done >"$W/urls"
    curl -sS -K "$W/urls" -H 'content-type: application/json' -H 'Expect:' \
        -H 'x-api-key: direct-bench-key' "${args[@]}" \
        -w '%{time_starttransfer} %{time_total}\n' >>"$W/$side-$kind"
}

rss() { awk '/VmHWM/ { print $2 }' "/proc/$1/status"; }
# parallel PORT BODY: 64 connections at once, one request each; the
# answers' status counts go to $W/parallel.
parallel() {
    local i
    for ((i = 0; i < 64; i++)); do
        printf 'url = "http://127.0.0.1:%s/v1/messages"\noutput = "/dev/null"\n' \
            "$1"
    done >"$W/urls64"
    # --parallel-immediate: all 64 connections open at once (without it
    # curl waits for the first one before it opens more)
    curl -sS --parallel --parallel-immediate --parallel-max 64 \
        -K "$W/urls64" -H 'Expect:' -H 'content-type: application/json' \
        --data-binary "@$W/$2" -w '%{http_code}\n' >>"$W/parallel" 2>/dev/null
}
# burst_one PID PORT: 64 connections at once through one gateway, its
# peak RSS reset before; prints that peak.
burst_one() {
    echo 5 >"/proc/$1/clear_refs"
    parallel "$2" json.body
    rss "$1"
}
# burst ROUND: the "before" gateway, this one, this one's static binary;
# one "round before after static" line to $W/bursts.
burst() {
    echo "$1 $(burst_one "$BASE_PID" "$BPORT") $(burst_one "$GW_PID" "$GPORT")" \
        "$(burst_one "$STATIC_PID" "$SPORT")" >>"$W/bursts"
}
for ((r = 1; r <= BURSTS; r++)); do
    burst "$r"
    sleep 1.5
done

RSS_GW64=$(awk 'NR == 1 { print $3 }' "$W/bursts")
parallel "$PPORT" json.body
RSS_P64=$(rss "$POLICY_PID")
parallel "$PPORT" 100k.body
RSS_P64_100K=$(rss "$POLICY_PID")

# the peak RSS of the rows below is their own
echo 5 >"/proc/$GW_PID/clear_refs"
echo 5 >"/proc/$POLICY_PID/clear_refs"
for ((r = 1; r <= REPS; r++)); do
    for kind in request cold stream streamraw big bigraw 100k 1m; do
        for side in direct gateway policy; do
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
cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
total=$(cat "$W"/gateway-* | grep -c .)

echo "| row | direct p50 | gateway p50 | policy p50 | gateway - direct | policy - gateway | policy / gateway | direct p99 | gateway p99 | policy p99 |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
row() { # NAME KIND COLUMN
    local d50 g50 p50 d99 g99 p99
    d50=$(pct "$W/direct-$2" "$3" 50)
    g50=$(pct "$W/gateway-$2" "$3" 50)
    p50=$(pct "$W/policy-$2" "$3" 50)
    d99=$(pct "$W/direct-$2" "$3" 99)
    g99=$(pct "$W/gateway-$2" "$3" 99)
    p99=$(pct "$W/policy-$2" "$3" 99)
    printf '| %s | %s ms | %s ms | %s ms | %s ms | %s ms | %s | %s ms | %s ms | %s ms |\n' \
        "$1" "$d50" "$g50" "$p50" \
        "$(awk -v a="$g50" -v b="$d50" 'BEGIN { printf "%.2f", a - b }')" \
        "$(awk -v a="$p50" -v b="$g50" 'BEGIN { printf "%.2f", a - b }')" \
        "$(awk -v a="$p50" -v b="$g50" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')" \
        "$d99" "$g99" "$p99"
}
row "1 KiB request, kept alive (total)" request 2
row "1 KiB request, new connection (total)" cold 2
row "100 KiB request, kept alive (total)" 100k 2
row "1 MiB request, kept alive (total)" 1m 2
row "SSE stream, first byte" stream 1
row "SSE stream, first byte, usage not read" streamraw 1
row "SSE stream, to the end" stream 2
row "SSE stream, to the end, usage not read" streamraw 2
# (no first-byte rows for it: with a 100 KiB upload curl's
# time_starttransfer is not the answer's first byte)
row "100 KiB SSE stream, to the end" big 2
row "100 KiB SSE stream, to the end, usage not read" bigraw 2
echo
echo "$((N * REPS)) requests per row and side; gateway: $total requests," \
    "$(cpu "$GW_PID") s CPU (user+system), peak RSS $(rss "$GW_PID") KiB;" \
    "policy gateway: $(cpu "$POLICY_PID") s CPU, peak RSS $(rss "$POLICY_PID") KiB."
echo "64 connections at once, peak RSS: gateway $RSS_GW64 KiB (1 KiB bodies);" \
    "policy gateway $RSS_P64 KiB (1 KiB bodies), $RSS_P64_100K KiB (100 KiB" \
    "bodies); answers: $(sort "$W/parallel" | uniq -c |
        awk '{ printf "%s%s x %s", (NR > 1 ? ", " : ""), $1, $2 }'); $(nproc) cores, shared."
echo
echo "| burst of 64 connections | peak RSS, before ($(basename "${BENCH_BASE_GW:-${BENCH_BASE_REV:-main}}")) | peak RSS, this tree | this tree, static (the image's) |"
echo "| ---: | ---: | ---: | ---: |"
while read -r round before after static; do
    printf '| %s | %s KiB | %s KiB | %s KiB |\n' "$round" "$before" "$after" \
        "$static"
done <"$W/bursts"
