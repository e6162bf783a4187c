#!/usr/bin/env bash
# run.sh - benchmark egress-proxy against tinyproxy, squid and a direct
# connection, side by side on loopback, and print one table:
#   CONNECT set-up latency p50/p99 over 2,000 sequential tunnels,
#   throughput of 1 tunnel and of 8 parallel tunnels (upstream -> client),
#   proxy CPU seconds per GB moved (over both throughput runs),
#   proxy RSS with 1,000 and ~10,000 idle tunnels, and KiB per tunnel.
# Not a test: numbers, no pass/fail. Installs tinyproxy and squid from
# Debian if missing (their services are not started), runs each on its own
# loopback port with the same one-entry allowlist, stops them at the end.
# Throughput is the best of BENCH_REPS rounds (default 3), each round
# every system in turn: on a shared machine the slower runs mostly
# measure the neighbours, and a change of load hits every row alike.
# With BENCH_BASE=COMMIT, egress-proxy as built from that commit (its
# sources from git archive, its own build directory) runs beside the one
# of this tree, as the row egress-base: the baseline in the same run.
# Env: BENCH_BYTES1 (default 2 GiB), BENCH_BYTES8 (per tunnel, 512 MiB),
#      BENCH_IDLE_BIG (default 9900: the proxy needs 2 fds per tunnel and
#      the hard open-file limit here may be 20000), BENCH_BASE (a commit),
#      BENCH_SYSTEMS (the rows, default all: direct egress-proxy
#      egress-base tinyproxy squid), BENCH_LAT_N (2000), BENCH_REPS (3).
# Method and the last tables: docs/bench-proxy.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/hack/bench/proxy
B=${BENCH_BUILD:-$ROOT/build-bench}
BYTES1=${BENCH_BYTES1:-$((2 * 1024 * 1024 * 1024))}
BYTES8=${BENCH_BYTES8:-$((512 * 1024 * 1024))}
IDLE_SMALL=1000
IDLE_BIG=${BENCH_IDLE_BIG:-9900}
LAT_N=${BENCH_LAT_N:-2000}
REPS=${BENCH_REPS:-3}
W=$(mktemp -d /tmp/pxbench.XXXXXX)
chmod 777 "$W"
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$W"
}
trap cleanup EXIT

# --- packages ---------------------------------------------------------
need=()
command -v tinyproxy >/dev/null || need+=(tinyproxy)
command -v squid >/dev/null || need+=(squid)
if [ "${#need[@]}" -gt 0 ]; then
    echo "installing ${need[*]} (Debian)" >&2
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${need[@]}" >/dev/null
    rm -f /usr/sbin/policy-rc.d
fi

# --- build --------------------------------------------------------------
cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$B" -j "$(nproc)" --target egress-proxy >/dev/null
BASE=${BENCH_BASE:-}
SYSTEMS=${BENCH_SYSTEMS:-direct egress-proxy egress-base tinyproxy squid}
if [ -n "$BASE" ]; then
    BB=$B-base
    SRC=$B-base.src # kept: the build directory remembers its source
    if [ "$(cat "$SRC.commit" 2>/dev/null)" != "$BASE" ]; then
        rm -rf "$SRC" "$BB"
        mkdir -p "$SRC"
        git -C "$ROOT" archive "$BASE" | tar -x -C "$SRC"
        echo "$BASE" >"$SRC.commit"
    fi
    cmake -S "$SRC" -B "$BB" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$BB" -j "$(nproc)" --target egress-proxy >/dev/null
else
    SYSTEMS=${SYSTEMS//egress-base/}
fi
cc -O2 -Wall -o "$W/pxbench" "$HERE/pxbench.c"
PXB=$W/pxbench

ulimit -n "$(ulimit -Hn)"
FDS=$(ulimit -n)

wait_port() { # PORT: until something accepts on it
    local i
    for i in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listening on $1" >&2
    return 1
}

"$PXB" serve "$W/up.port" &
PIDS+=($!)
for i in $(seq 50); do [ -s "$W/up.port" ] && break; sleep 0.1; done
UP=$(cat "$W/up.port")
TARGET=127.0.0.1:$UP
P_EGRESS=18128 P_TINY=18129 P_SQUID=18130 P_BASE=18131

"$B/proxy/egress-proxy" --listen 127.0.0.1:$P_EGRESS --allow "$TARGET" \
    --allow-private --max-conns 20000 2>/dev/null &
PID_EGRESS=$!
PIDS+=($PID_EGRESS)
PID_BASE=
if [ -n "$BASE" ]; then
    "$BB/proxy/egress-proxy" --listen 127.0.0.1:$P_BASE --allow "$TARGET" \
        --allow-private --max-conns 20000 2>/dev/null &
    PID_BASE=$!
    PIDS+=($PID_BASE)
fi

cat >"$W/tinyproxy.conf" <<CONF
User nobody
Group nogroup
Port $P_TINY
Listen 127.0.0.1
Timeout 600
MaxClients 20000
Allow 127.0.0.1
ConnectPort $UP
LogFile "$W/tinyproxy.log"
LogLevel Critical
CONF
tinyproxy -d -c "$W/tinyproxy.conf" >/dev/null 2>&1 &
PID_TINY=$!
PIDS+=($PID_TINY)

mkdir -p "$W/squid"
chmod 777 "$W/squid"
cat >"$W/squid.conf" <<CONF
http_port 127.0.0.1:$P_SQUID
acl CONNECT method CONNECT
acl target_ip dst 127.0.0.1
acl target_port port $UP
http_access allow CONNECT target_ip target_port
http_access deny all
cache deny all
cache_mem 8 MB
access_log none
cache_log $W/squid/cache.log
pid_filename $W/squid/squid.pid
coredump_dir $W/squid
max_filedescriptors $FDS
shutdown_lifetime 1 seconds
client_lifetime 1 hour
read_timeout 1 hour
CONF
squid -N -f "$W/squid.conf" >/dev/null 2>&1 &
PID_SQUID=$!
PIDS+=($PID_SQUID)
for p in $P_EGRESS $P_TINY $P_SQUID ${PID_BASE:+$P_BASE}; do
    wait_port "$p"
done

# --- measurements -------------------------------------------------------
cpu_s() { # PID: user+system CPU seconds of a process and its children
    local t=0 p
    for p in $1 $(pgrep -P "$1" || true); do
        t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
    done
    awk -v t="$t" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }'
}
rss_kb() {
    local t=0 p
    for p in $1 $(pgrep -P "$1" || true); do
        t=$((t + $(awk '/^VmRSS:/ {print $2}' "/proc/$p/status")))
    done
    echo "$t"
}
idle_rss() { # PORT PID N: RSS (KiB) while N idle tunnels are open
    local port=$1 pid=$2 n=$3 rss
    coproc IDLE { "$PXB" idle "$port" "$TARGET" "$n"; }
    read -r _ _ <&"${IDLE[0]}" || { echo "fail"; return; }
    sleep 1
    rss=$(rss_kb "$pid")
    eval "exec ${IDLE[1]}>&-"
    wait "$IDLE_PID" 2>/dev/null || true
    sleep 2 # let the proxy close its side
    echo "$rss"
}

declare -A T1 T8 P50 P99 PER CPG R1 R10 C0 MOVED
pick() { # SYSTEM: its port, CONNECT target ("-": none) and proxy pid
    case $1 in
    direct) port=$UP tgt=- pid= ;;
    egress-proxy) port=$P_EGRESS tgt=$TARGET pid=$PID_EGRESS ;;
    egress-base) port=$P_BASE tgt=$TARGET pid=$PID_BASE ;;
    tinyproxy) port=$P_TINY tgt=$TARGET pid=$PID_TINY ;;
    squid) port=$P_SQUID tgt=$TARGET pid=$PID_SQUID ;;
    esac
}
# Set-up latency, then throughput in rounds (each round every system in
# turn, so a change of the machine's load hits all of them alike), then
# the idle tunnels.
for sys in $SYSTEMS; do
    pick "$sys"
    read -r P50[$sys] P99[$sys] < <("$PXB" latency "$port" "$tgt" "$LAT_N")
    T1[$sys]=0 T8[$sys]=0 MOVED[$sys]=0 C0[$sys]=0
    [ -n "$pid" ] && C0[$sys]=$(cpu_s "$pid")
done
for r in $(seq "$REPS"); do
    for sys in $SYSTEMS; do
        pick "$sys"
        read -r x b < <("$PXB" throughput "$port" "$tgt" 1 "$BYTES1")
        [ "$x" -gt "${T1[$sys]}" ] && T1[$sys]=$x
        MOVED[$sys]=$((MOVED[$sys] + b))
        read -r x b < <("$PXB" throughput "$port" "$tgt" 8 "$BYTES8")
        [ "$x" -gt "${T8[$sys]}" ] && T8[$sys]=$x
        MOVED[$sys]=$((MOVED[$sys] + b))
    done
done
for sys in $SYSTEMS; do
    pick "$sys"
    CPG[$sys]=- R1[$sys]=- R10[$sys]=- PER[$sys]=-
    [ -n "$pid" ] || continue
    CPG[$sys]=$(awk -v a="${C0[$sys]}" -v b="$(cpu_s "$pid")" \
        -v n="${MOVED[$sys]}" 'BEGIN { printf "%.2f", (b - a) / (n / 1e9) }')
    base=$(rss_kb "$pid")
    R1[$sys]=$(idle_rss "$port" "$pid" "$IDLE_SMALL")
    R10[$sys]=$(idle_rss "$port" "$pid" "$IDLE_BIG")
    PER[$sys]=$(awk -v a="$base" -v b="${R10[$sys]}" -v n="$IDLE_BIG" \
        'BEGIN { printf "%.1f", (b - a) / n }')
done
printf '%-12s %9s %9s %10s %10s %9s %10s %10s %8s\n' system p50_us p99_us \
    1x_MB/s 8x_MB/s cpu_s/GB rss1k_KiB rss10k_KiB KiB/tun
for sys in $SYSTEMS; do
    printf '%-12s %9s %9s %10s %10s %9s %10s %10s %8s\n' "$sys" \
        "${P50[$sys]}" "${P99[$sys]}" "${T1[$sys]}" "${T8[$sys]}" \
        "${CPG[$sys]}" "${R1[$sys]}" "${R10[$sys]}" "${PER[$sys]}"
done
awk -v e1="${T1[egress-proxy]:-0}" -v e8="${T8[egress-proxy]:-0}" \
    -v t1="${T1[tinyproxy]:-0}" -v t8="${T8[tinyproxy]:-0}" \
    -v d1="${T1[direct]:-0}" -v d8="${T8[direct]:-0}" \
    -v b1="${T1[egress-base]:-0}" -v b8="${T8[egress-base]:-0}" \
    -v ep="${P50[egress-proxy]:-0}" -v dp="${P50[direct]:-0}" \
    -v ec="${CPG[egress-proxy]:-0}" -v bc="${CPG[egress-base]:-0}" \
    -v per="${PER[egress-proxy]:-0}" '
    function ratio(a, b) { return b > 0 ? sprintf("%.2fx", a / b) : "-" }
    BEGIN {
    printf "goals: throughput vs direct %s/%s (>= 0.9x), CPU per GB vs " \
        "base %s (<= 0.5x), set-up p50 vs direct %s (<= 2x), " \
        "%.1f KiB per idle tunnel (< 16); vs base throughput %s/%s, " \
        "vs tinyproxy %s/%s\n", ratio(e1, d1), ratio(e8, d8),
        ratio(ec, bc), ratio(ep, dp), per, ratio(e1, b1), ratio(e8, b8),
        ratio(e1, t1), ratio(e8, t8) }'
echo "(idle columns: $IDLE_SMALL and $IDLE_BIG tunnels; KiB/tun = (RSS at" \
    "$IDLE_BIG - RSS before) / $IDLE_BIG; throughput = upstream -> client;" \
    "1x: $BYTES1 bytes, 8x: 8 x $BYTES8 bytes, best of $REPS rounds;" \
    "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
