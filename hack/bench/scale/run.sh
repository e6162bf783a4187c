#!/usr/bin/env bash
# run.sh - ten thousand specs and three controllers on one etcd, this
# tree against a baseline build side by side in one run (issue 40 item
# 4). Not a test: numbers, no pass/fail (exit 1 only when the harness
# breaks). docs/bench-store.md "Ten thousand specs" has the method and
# the results.
#
# Per rep and per build (base first, then this tree's, alternating the
# order each rep), on a fresh etcd:
#   validate:  `agentctl validate -f` of the file of N documents;
#   apply:     `agentctl apply -f` of the same file into etcd, no
#              controller running (the client's cost alone);
#   seen/done: three controllers (IDs a, b, c; --resync 5s, the
#              defaults otherwise) started at once on those N specs: from
#              their start until every controller knows all N
#              (agentctl_invocations_known; "n/a" on a build without it)
#              and until all N are Failed, each by the controller that
#              claimed it (the "phase" lines of the three logs);
#   claims:    the share of the N each controller claimed and worked on
#              (its log's "phase" lines that say Failed);
#   idle:      10 s with nothing applied, once every controller's work
#              queue is empty and no Docker request is out (up to 60 s)
#              and 6 s more: each controller's etcd requests per second
#              (its /metrics, the watch excluded);
#   RSS:       each controller's VmRSS and VmHWM then;
#   latency:   S single specs applied one at a time with the N in the
#              store: from the spec's put to its first status, both seen
#              on one etcd watch stamped on arrival (hack/bench/store/
#              stwatch.c): the controllers' watch-to-reconcile time.
# No agent runs: every spec names an image that is not on the daemon, so
# a controller admits it, gets a 404 for the image, writes Failed and
# cleanedUp and releases its claim (docs/bench-store.md "What seen
# means").
#
# Env: BENCH_BASE (required: a build dir with the baseline's cli/agentctl
# and controller/agent-controller, e.g. main's sources built apart),
# BENCH_BUILD (this tree's build dir, $ROOT/build), BENCH_N (10000),
# BENCH_SAMPLES (S, 60), BENCH_REPS (3), BENCH_TIMEOUT (s per wait, 600),
# BENCH_OUT (also write the table there), BENCH_KEEP (copy logs there).
LIB_NO_CHECKS=1 # lib.sh: a benchmark, no "passed: N checks" line
source "$(cd "$(dirname "$0")/../../.." && pwd)/tests/integration/lib.sh"
source "$ROOT/tests/integration/store/etcd_lib.sh"
source "$ROOT/tests/integration/store/etcd_absent_lib.sh" # absent_config
BASE=${BENCH_BASE:?BENCH_BASE=<baseline build dir> is required}
NEW=${BENCH_BUILD:-$ROOT/build}
N=${BENCH_N:-10000}
SAMPLES=${BENCH_SAMPLES:-60}
REPS=${BENCH_REPS:-3}
TIMEOUT=${BENCH_TIMEOUT:-600}
RUN=scbench-$(date +%H%M%S)-$$
ABSENT_IMAGE=agentctl/bench-scale-absent:0.0.0
STWATCH=$TEST_TMP/stwatch
ROWS=$TEST_TMP/rows
CTLS=(a b c)
declare -A CP=() MET=()
WATCH_PID=

say() { echo "[$(date +%T)] $*" >&2; }
trap 'exit 130' INT TERM

stop_all() {
    local n
    [ -z "$WATCH_PID" ] || { kill "$WATCH_PID" 2>/dev/null; wait "$WATCH_PID" 2>/dev/null || true; }
    WATCH_PID=
    for n in "${!CP[@]}"; do
        [ -n "${CP[$n]}" ] || continue
        kill -TERM "${CP[$n]}" 2>/dev/null || true
        wait "${CP[$n]}" 2>/dev/null || true
        CP[$n]=
    done
}
on_cleanup stop_all
sweep() {
    local n
    for n in "${CTLS[@]}"; do docker_cleanup_label "agentctl.dev/managed-by=$RUN-$n"; done
}
on_cleanup sweep

preflight() {
    need_docker
    command -v jq >/dev/null || fail "jq is needed"
    command -v etcd >/dev/null || fail "etcd is needed (Debian etcd-server)"
    ! docker image inspect "$ABSENT_IMAGE" >/dev/null 2>&1 ||
        fail "$ABSENT_IMAGE exists on the daemon; the benchmark needs it absent"
    local b
    for b in "$BASE" "$NEW"; do
        [ -x "$b/cli/agentctl" ] && [ -x "$b/controller/agent-controller" ] ||
            fail "$b has no cli/agentctl and controller/agent-controller"
    done
    cc -O2 -Wall -Wextra -Werror -o "$STWATCH" "$ROOT/hack/bench/store/stwatch.c"
    absent_config "$TEST_TMP/controller.yaml" 10.217.0.0/16
    spec_docs s- "$N" >"$TEST_TMP/all.yaml"
}

# spec_docs PREFIX COUNT [FROM]: invocation documents PREFIX<FROM>.. on
# stdout.
spec_docs() {
    awk -v p="$1" -v n="$2" -v from="${3:-0}" -v img="$ABSENT_IMAGE" 'BEGIN {
        for (i = from; i < from + n; i++)
            printf "---\napiVersion: agentctl.dev/v1alpha1\n" \
                "kind: AgentInvocation\nmetadata: {name: %s%d}\nspec:\n" \
                "  vendor: fake\n  phase: execute\n  image: %s\n" \
                "  command: [/demo-agent]\n  deadlineSeconds: 600\n", p, i, img
        }'
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
row() { echo "$1|$2|$3" >>"$ROWS"; } # ROW-NAME COLUMN VALUE

# metric N NAME-REGEX: the sum of controller N's series matching it.
metric() {
    curl -fsS --max-time 5 "http://${MET[$1]}/metrics" 2>/dev/null |
        awk -v re="^$2" '$0 ~ re { n += $NF } END { printf "%d\n", n }'
}

start_ctl() { # BUILD N
    free_port
    MET[$2]=127.0.0.1:$FREE_PORT
    "$1/controller/agent-controller" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
        --state "$TEST_TMP/state-$2" --config "$TEST_TMP/controller.yaml" \
        --controller-id "$RUN-$2" --metrics "${MET[$2]}" \
        >"$TEST_TMP/ctl-$2.log" 2>&1 &
    CP[$2]=$!
}

# wait_all TEST-FN: until TEST-FN N is true for every controller; the
# seconds since T0 on stdout ("timeout" after TIMEOUT).
wait_all() {
    local n ok end=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$end" ]; do
        ok=1
        for n in "${CTLS[@]}"; do "$1" "$n" || { ok=0; break; }; done
        [ "$ok" = 1 ] && { elapsed "$T0" "$(now)"; return; }
        sleep 0.2
    done
    echo timeout
}
knows_all() { [ "$(metric "$1" 'agentctl_invocations_known')" -ge "$N" ]; }
# worked: the specs controller N claimed and took to Failed (its log)
worked() { grep -c '"msg":"phase".*"phase":"Failed"' "$TEST_TMP/ctl-$1.log" || true; }
all_done() { # true (for any N) once the three together took all to Failed
    local n sum=0
    for n in "${CTLS[@]}"; do sum=$((sum + $(worked "$n"))); done
    [ "$sum" -ge "$N" ]
}

# latency COL: SAMPLES single specs one at a time; spec put -> first
# status on one stamped watch of specs/ .. status/.
latency() {
    local key end i name f skey t
    LOST=0
    key=$(printf '%s/specs/' "$PFX" | base64 -w0)
    end=$(printf '%s/status0' "$PFX" | base64 -w0)
    rm -f "$TEST_TMP/lat.fifo" && mkfifo "$TEST_TMP/lat.fifo"
    curl -sN "$ETCD_URL/v3/watch" >"$TEST_TMP/lat.fifo" \
        -d "{\"create_request\":{\"key\":\"$key\",\"range_end\":\"$end\"}}" &
    WATCH_PID=$!
    "$STWATCH" lines <"$TEST_TMP/lat.fifo" >"$TEST_TMP/lat" &
    STAMP_PID=$!
    sleep 0.5
    for i in $(seq 0 $((SAMPLES - 1))); do
        name=lat-$i
        f=$TEST_TMP/one.yaml
        spec_docs lat- 1 "$i" >"$f"
        # a loaded machine can starve etcd past agentctl's 2 s timeout:
        # that sample is dropped, and counted
        "$2/cli/agentctl" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
            --state "$TEST_TMP/cli" apply -f "$f" >/dev/null 2>&1 ||
            { LOST=$((LOST + 1)); continue; }
        skey=$(printf '%s/status/%s' "$PFX" "$name" | base64 -w0)
        t=$((SECONDS + 30))
        until grep -q "$skey" "$TEST_TMP/lat" || [ "$SECONDS" -ge "$t" ]; do
            sleep 0.01
        done
        sleep "0.0$((RANDOM % 9))" # the next 0-90 ms after: off the resync's beat
    done
    kill "$WATCH_PID" 2>/dev/null || true; wait "$WATCH_PID" 2>/dev/null || true; WATCH_PID=
    wait "$STAMP_PID" 2>/dev/null || true # ends with its input
    jq -r --arg p "$PFX/" '.ns as $t | .m.result.events[]? |
        (.kv.key | @base64d | ltrimstr($p)) as $k | "\($t) \($k)"' "$TEST_TMP/lat" |
        awk '{ split($2, k, "/"); if (k[2] !~ /^lat-/) next
               if (k[1] == "specs" && !(k[2] in s)) s[k[2]] = $1
               if (k[1] == "status" && !(k[2] in d)) d[k[2]] = $1 }
             END { for (n in s) if (n in d) printf "%.3f\n", (d[n] - s[n]) / 1e6 }' |
        sort -n >"$TEST_TMP/lat.ms"
    awk -v col="$1" '{ v[NR] = $1 } END {
        if (NR == 0) exit
        p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
        printf "one change, %d in the store: spec put to first status, p50 (ms)|%s|%.1f\n", '"$N"', col, p50
        printf "one change, %d in the store: spec put to first status, p99 (ms)|%s|%.1f\n", '"$N"', col, p99
        printf "one change: samples|%s|%d\n", col, NR }' "$TEST_TMP/lat.ms" >>"$ROWS"
    row "one change: samples whose apply failed (etcd timeout)" "$1" "$LOST"
}

one() { # COLUMN BUILD
    local col=$1 b=$2 t n a z sum=0 share max=0 rss hwm
    say "$col: fresh etcd"
    kill_etcd
    rm -rf "$TEST_TMP/etcd"
    start_etcd
    PFX=/scale
    T0=$(now)
    "$b/cli/agentctl" validate -f "$TEST_TMP/all.yaml" >/dev/null ||
        fail "$col: validate failed"
    t=$(elapsed "$T0" "$(now)")
    row "\`agentctl validate -f\` of $N specs (s)" "$col" "$t"
    T0=$(now)
    "$b/cli/agentctl" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
        --state "$TEST_TMP/cli" apply -f "$TEST_TMP/all.yaml" >/dev/null ||
        { say "$col: apply failed (etcd starved?): once more, its time counted"
          "$b/cli/agentctl" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
              --state "$TEST_TMP/cli" apply -f "$TEST_TMP/all.yaml" >/dev/null ||
              fail "$col: apply failed twice"; }
    a=$(elapsed "$T0" "$(now)")
    row "\`agentctl apply -f\` of $N specs, no controller (s)" "$col" "$a"
    row "apply / validate (x)" "$col" "$(awk -v a="$a" -v v="$t" 'BEGIN { printf "%.1f", a / v }')"
    say "$col: three controllers on $N specs"
    T0=$(now)
    for n in "${CTLS[@]}"; do start_ctl "$b" "$n"; done
    for _ in $(seq 100); do # its /metrics, before asking what it has
        curl -fsS --max-time 1 -o /dev/null "http://${MET[a]}/metrics" 2>/dev/null && break
        sleep 0.1
    done
    if curl -fsS --max-time 5 "http://${MET[a]}/metrics" 2>/dev/null |
        grep -q '^# TYPE agentctl_invocations_known'; then
        row "three controllers started on $N: every one knows all (s)" "$col" "$(wait_all knows_all)"
    else
        row "three controllers started on $N: every one knows all (s)" "$col" "n/a"
    fi
    row "three controllers started on $N: all done, Failed by their claimer (s)" "$col" "$(wait_all all_done)"
    for n in "${CTLS[@]}"; do
        a=$(worked "$n")
        sum=$((sum + a))
        [ "$a" -gt "$max" ] && max=$a
        row "claims: share of controller $n (%)" "$col" "$(awk -v a="$a" -v n="$N" 'BEGIN { printf "%.1f", 100 * a / n }')"
    done
    row "claims: largest share (%)" "$col" "$(awk -v a="$max" -v n="$N" 'BEGIN { printf "%.1f", 100 * a / n }')"
    # idle: every controller's queue empty and no Docker request out (up
    # to 60 s: a loaded daemon answers the last lookups late), then a
    # resync and the last releases
    t=$((SECONDS + 60))
    for n in "${CTLS[@]}"; do
        until [ "$(metric "$n" 'agentctl_workqueue_depth')" = 0 ] &&
            [ "$(metric "$n" 'agentctl_docker_requests_in_flight')" = 0 ] ||
            [ "$SECONDS" -ge "$t" ]; do
            sleep 0.5
        done
    done
    sleep 6
    declare -A r0=()
    for n in "${CTLS[@]}"; do r0[$n]=$(metric "$n" 'agentctl_etcd_request_duration_seconds_count'); done
    sleep 10
    for n in "${CTLS[@]}"; do
        z=$(metric "$n" 'agentctl_etcd_request_duration_seconds_count')
        row "idle: etcd requests/s, controller $n" "$col" "$(awk -v a="${r0[$n]}" -v b="$z" 'BEGIN { printf "%.2f", (b - a) / 10 }')"
        rss=$(awk '/^VmRSS/ { print $2 }' "/proc/${CP[$n]}/status")
        hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/${CP[$n]}/status")
        row "RSS with $N, controller $n (MiB)" "$col" "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
        row "peak RSS (VmHWM), controller $n (MiB)" "$col" "$(awk -v k="$hwm" 'BEGIN { printf "%.1f", k / 1024 }')"
    done
    say "$col: $SAMPLES single changes"
    latency "$col" "$b"
    [ -z "${BENCH_KEEP:-}" ] || cp "$TEST_TMP"/ctl-*.log "$BENCH_KEEP/" 2>/dev/null
    stop_all
    sweep
}

# table: one row per measurement, one column per build and rep, then the
# median of the reps per build.
table() {
    awk -F'|' -v reps="$REPS" '
        { if (!($1 in seen)) { seen[$1] = 1; order[++nr] = $1 }
          v[$1, $2] = $3; cols[$2] = 1 }
        function med(r, b,   i, n, x, t, j) {
            n = 0
            for (i = 1; i <= reps; i++) if ((r, b "-" i) in v) x[++n] = v[r, b "-" i]
            if (n == 0) return ""
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                if (x[j] + 0 < x[i] + 0) { t = x[i]; x[i] = x[j]; x[j] = t }
            return x[int((n + 1) / 2)]
        }
        END {
            printf "| N = %s |", ENVIRON["N"]
            for (i = 1; i <= reps; i++) printf " base-%d | new-%d |", i, i
            printf " base (median) | new (median) |\n|---|"
            for (i = 1; i <= reps; i++) printf "---|---|"
            printf "---|---|\n"
            for (k = 1; k <= nr; k++) {
                r = order[k]; printf "| %s |", r
                for (i = 1; i <= reps; i++) printf " %s | %s |", v[r, "base-" i], v[r, "new-" i]
                printf " %s | %s |\n", med(r, "base"), med(r, "new")
            }
        }' "$ROWS"
}

preflight
export N
: >"$ROWS"
for rep in $(seq "$REPS"); do
    if [ $((rep % 2)) = 1 ]; then
        one "base-$rep" "$BASE"; one "new-$rep" "$NEW"
    else
        one "new-$rep" "$NEW"; one "base-$rep" "$BASE"
    fi
done
table | tee "${BENCH_OUT:-/dev/null}"
