#!/usr/bin/env bash
# run.sh - drift detection latency of agent-controller: from a
# mutation made behind its back to (a) the agent killed (Docker's first
# `kill` or `die` event for the agent container) and (b) phase Failed in
# the status document. Not a test: numbers, no pass/fail.
#
# Mutations: `docker update --restart=always` on the running proxy, and an
# extra container connected to the internal network. The mutation's time is
# Docker's own event for it (`update` on the proxy, `connect` on the
# network), so every time is the daemon's clock except "Failed", which is
# when a 20 ms poll of the status file first saw it.
#
# The controller follows Docker events; there is no switch to turn them
# off, so the resync-only path is shown by the same runs at two resync
# intervals (BENCH_RESYNCS, default "1s 5s"): a latency driven by events
# does not move with --resync, one driven by the timer would spread over
# the interval.
#
# Env: BENCH_N (10 repetitions per cell), BENCH_RESYNCS ("1s 5s"),
# BENCH_OUT (also write the table there). Uses the test harness
# (tests/integration/controller/lib_controller.sh) for the controller's
# config, egress network and cleanup: everything is labelled and removed.
source "$(cd "$(dirname "$0")/../../.." && pwd)/tests/integration/controller/lib_controller.sh"
N=${BENCH_N:-10}
RESYNCS=${BENCH_RESYNCS:-"1s 5s"}
EVLOG=$TEST_TMP/events.jsonl
ROWS=$TEST_TMP/rows
ctl_init
docker events --format '{{json .}}' >"$EVLOG" 2>/dev/null &
EV_PID=$!
on_cleanup "kill $EV_PID 2>/dev/null"

ms_now() { date +%s%3N; }

# ev_ms JQ-FILTER: the timeNano (as ms) of the first event matching.
ev_ms() {
    jq -r "select($1) | .timeNano" "$EVLOG" 2>/dev/null | head -n1 |
        awk '{ if ($1 != "") printf "%.0f\n", $1 / 1000000 }'
}

wait_failed() { # NAME: ms when the status first said Failed
    local f=$STATE/status/$1.json end=$((SECONDS + 120))
    while [ "$SECONDS" -lt "$end" ]; do
        grep -Eq '"phase": ?"Failed"' "$f" 2>/dev/null && {
            ms_now
            return 0
        }
        sleep 0.02
    done
    echo "bench: $1 never reached Failed" >&2
    return 1
}

# one NAME MUTATION: mutate, then the three times in ms: mutation kill failed
one() {
    local n=$1 kind=$2 agent proxy net stranger="" t_fail t_mut t_kill i sel
    agent=$(object_of "$n" agent)
    proxy=$(object_of "$n" proxy)
    net=$(object_of "$n" network network)
    if [ "$kind" = restart ]; then
        docker update --restart=always "$proxy" >/dev/null
        t_fail=$(wait_failed "$n")
        sel=".Type == \"container\" and .Action == \"update\" and .Actor.ID == \"$proxy\""
    else
        stranger=$(docker create --label "$TEST_LABEL" --network "$net" \
            "$BOX_IMAGE" sleep 600)
        docker start "$stranger" >/dev/null
        t_fail=$(wait_failed "$n")
        sel=".Type == \"network\" and .Action == \"connect\" and .Actor.ID == \"$net\" and .Actor.Attributes.container == \"$stranger\""
    fi
    for i in $(seq 1 50); do # the event stream may lag a little
        t_mut=$(ev_ms "$sel")
        t_kill=$(ev_ms ".Type == \"container\" and .Actor.ID == \"$agent\" and (.Action == \"kill\" or .Action == \"die\")")
        [ -z "$t_mut" ] || [ -z "$t_kill" ] || break
        sleep 0.1
    done
    [ -z "$stranger" ] || docker rm -f "$stranger" >/dev/null
    echo "$t_mut $t_kill $t_fail"
}

pct() { # P: the Pth percentile (nearest rank) of the numbers on stdin
    sort -n | awk -v p="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}

for resync in $RESYNCS; do
    ctl_start --resync "$resync"
    for kind in restart connect; do
        names=()
        for i in $(seq 1 "$N"); do
            names+=("b-${resync}-$kind-$i")
            apply_spec "b-${resync}-$kind-$i" execute \
                "command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600"
        done
        for n in "${names[@]}"; do wait_phase "$n" Running 300; done
        sleep 2 # let the start-up passes settle
        for n in "${names[@]}"; do
            read -r m k f < <(one "$n" "$kind")
            echo "$resync $kind $((k - m)) $((f - m))" | tee -a "$ROWS"
        done
        for n in "${names[@]}"; do
            wait_no_objects "agentctl.dev/uid=$(inv_uid "$n")" 120 >/dev/null ||
                echo "bench: objects of $n left" >&2
        done
    done
    ctl_stop
done

{
    echo "| mutation | --resync | n | to agent killed p50 / p90 (ms) | to phase Failed p50 / p90 (ms) |"
    echo "|---|---|---|---|---|"
    for resync in $RESYNCS; do
        for kind in restart connect; do
            sel=$(awk -v r="$resync" -v k="$kind" '$1 == r && $2 == k' "$ROWS")
            what="docker update --restart=always (proxy)"
            [ "$kind" = restart ] || what="extra container connected"
            echo "| $what | $resync | $(grep -c . <<<"$sel") |" \
                "$(awk '{print $3}' <<<"$sel" | pct 50) / $(awk '{print $3}' <<<"$sel" | pct 90) |" \
                "$(awk '{print $4}' <<<"$sel" | pct 50) / $(awk '{print $4}' <<<"$sel" | pct 90) |"
        done
    done
} | tee "$TEST_TMP/table.md"
[ -z "${BENCH_OUT:-}" ] || cp "$TEST_TMP/table.md" "$BENCH_OUT"
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
