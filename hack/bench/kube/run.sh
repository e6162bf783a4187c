#!/usr/bin/env bash
# run.sh - a thousand AgentInvocations on the Kubernetes API server store,
# beside the same thousand on the etcd store, in one run (issue 41's
# benchmark). Not a test: numbers, no pass/fail (exit 1 only when the
# harness breaks). docs/benchmarks.md has a row of it.
#
# One private etcd and kube-apiserver on loopback (tests/integration/
# lib_kube.sh, with its audit log: every request, by client). Per rep:
#   watch:   the kube controller running on an empty API server, N
#            objects created by `kubectl create -f` (one POST each): the
#            seconds from the first create until the controller knows
#            all N (agentctl_invocations_known), and from the last
#            create (the watch's lag behind the writer);
#   list:    the same controller (its ID) restarted on those N, once it
#            had settled (one controller per API server until the
#            store has Leases: another ID would redo the clean-ups of
#            the first): seconds until
#            it knows all N (its first list)
#            (and its requests until then, by verb and resource), and
#            until its work queue is empty;
#   idle:    once its work queue is empty and 6 s more, 20 s with
#            nothing applied: that controller's requests per second to
#            the API server (its own client certificate, counted in the
#            audit log, by verb and resource; the watch itself is one
#            request when it ends);
#   RSS:     its VmRSS and VmHWM then;
#   cache:   the same restart with AGENTCTL_KUBE_CACHE=off (every read a
#            GET): seconds until all seen and its requests, beside the
#            cached restart above;
#   etcd:    the same N put by `agentctl apply` under a prefix of the
#            same etcd, an etcd controller started on them: seconds until
#            it knows all N, and its VmRSS and VmHWM once all are Failed.
# No agent runs: every spec names an image that is not on the daemon, so
# a controller admits it, gets a 404 for the image and writes Failed
# (docs/bench-store.md "What seen means").
#
# Env: BENCH_BUILD (the build dir, $ROOT/build), BENCH_N (1000),
# BENCH_REPS (1), BENCH_TIMEOUT (s per wait, 600), BENCH_OUT (also write
# the table there).
LIB_NO_CHECKS=1 # lib.sh: a benchmark, no "passed: N checks" line
source "$(cd "$(dirname "$0")/../../.." && pwd)/tests/integration/lib.sh"
source "$ROOT/tests/integration/lib_kube.sh"
source "$ROOT/tests/integration/store/etcd_absent_lib.sh" # absent_config, _specs
B=${BENCH_BUILD:-$ROOT/build}
N=${BENCH_N:-1000}
REPS=${BENCH_REPS:-1}
TIMEOUT=${BENCH_TIMEOUT:-600}
RUN=kbench-$(date +%H%M%S)-$$
ABSENT=agentctl/bench-scale-absent:0.0.0
ROWS=$TEST_TMP/rows
KUSER=bench-controller
declare -A CP=() MET=()

say() { echo "[$(date +%T)] $*" >&2; }
trap 'exit 130' INT TERM
stop_ctl() { # NAME
    [ -n "${CP[$1]:-}" ] || return 0
    kill -TERM "${CP[$1]}" 2>/dev/null || true
    wait "${CP[$1]}" 2>/dev/null || true
    CP[$1]=
}
stop_all() { local n; for n in "${!CP[@]}"; do stop_ctl "$n"; done; }
on_cleanup stop_all
sweep() { local n; for n in k1 k2 k3 e; do docker_cleanup_label "agentctl.dev/managed-by=$RUN-$n"; done; }
on_cleanup sweep

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
row() { echo "$1|$2" >>"$ROWS"; } # ROW-NAME VALUE
metric() { # NAME REGEX: the sum of that controller's series matching it
    curl -fsS --max-time 5 "http://${MET[$1]}/metrics" 2>/dev/null |
        awk -v re="^$2" '$0 ~ re { n += $NF } END { printf "%d\n", n }'
}
mib() { awk -v k="$(awk "/^$2/ { print \$2 }" "/proc/${CP[$1]}/status")" 'BEGIN { printf "%.1f", k / 1024 }'; }
failed() { grep -c '"msg":"phase".*"phase":"Failed"' "$TEST_TMP/ctl-$1.log" || true; }

start_ctl() { # NAME STORE-FLAGS...
    local name=$1
    shift
    free_port
    MET[$name]=127.0.0.1:$FREE_PORT
    "$B/controller/agent-controller" "$@" --state "$TEST_TMP/state-$name" \
        --config "$TEST_TMP/controller-$name.yaml" --controller-id "${CTL_ID:-$RUN-$name}" \
        --metrics "${MET[$name]}" >"$TEST_TMP/ctl-$name.log" 2>&1 &
    CP[$name]=$!
    for _ in $(seq 100); do # until it serves /metrics
        curl -fs --max-time 1 -o /dev/null "http://${MET[$name]}/metrics" && return
        sleep 0.1
    done
}
# until TEST NAME: until TEST NAME is true; the seconds since T0 on
# stdout ("timeout" after TIMEOUT)
until_true() {
    local end=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$end" ]; do
        "$1" "$2" && { elapsed "$T0" "$(now)"; return; }
        sleep 0.1
    done
    echo timeout
}
# settled NAME: its work queue empty (the Docker events stream stays in
# flight: not a measure of idleness)
settled() { [ "$(metric "$1" agentctl_workqueue_depth)" = 0 ]; }
# cleaned NAME: it wrote the clean-up of all N (nothing left to redo)
cleaned() {
    [ "$(grep -c '"msg":"every Docker object of attempt' "$TEST_TMP/ctl-$1.log" || true)" -ge "$N" ]
}
# requests_since N: the bench controller's requests after its first N in
# the audit log, counted by verb and resource ("none" if none)
requests_since() {
    jq -r --arg u "$KUSER" 'select(.user.username == $u and .stage != "ResponseStarted") |
        "\(.verb) \(.objectRef.resource // "-")\(if .objectRef.subresource then "/" + .objectRef.subresource else "" end)"' \
        "$KUBE_AUDIT" | tail -n +"$(($1 + 1))" | sort | uniq -c | sort -rn |
        awk '{ printf "%s%s %s %s", (NR > 1 ? ", " : ""), $1, $2, $3 } END { if (NR == 0) printf "none" }'
}
knows_all() { [ "$(metric "$1" agentctl_invocations_known)" -ge "$N" ]; }
all_failed() { [ "$(failed "$1")" -ge "$N" ]; }

one() { # REP
    local t seen last_create idle0 idle1
    say "rep $1: kube controller k1 on an empty API server, $N created by kubectl"
    kubectl_t delete ai --all --wait=false >/dev/null 2>&1 || true
    start_ctl k1 --kubeconfig "$TEST_TMP/bench.kubeconfig"
    T0=$(now)
    kubectl_t create -f "$TEST_TMP/all.yaml" >/dev/null || fail "kubectl create of $N failed"
    last_create=$(now)
    seen=$(until_true knows_all k1)
    row "kube: $N created by kubectl, first create to all seen by a running controller (s)" "$seen"
    row "kube: ... of which kubectl's creates (s)" "$(elapsed "$T0" "$last_create")"
    [ "$seen" = timeout ] ||
        row "kube: last create to all seen (the watch's lag) (s)" \
            "$(awk -v s="$seen" -v c="$(elapsed "$T0" "$last_create")" 'BEGIN { printf "%.3f", s - c }')"
    say "waiting until k1 has taken all $N to Failed"
    until_true all_failed k1 >/dev/null
    until_true cleaned k1 >/dev/null
    stop_ctl k1

    # one controller per API server (no Leases yet): the same one restarted
    say "kube controller k1 restarted (as k2) on the $N"
    idle0=$(kube_requests "$KUSER")
    T0=$(now)
    CTL_ID=$RUN-k1 start_ctl k2 --kubeconfig "$TEST_TMP/bench.kubeconfig"
    row "kube: the controller restarted on $N, start to all seen (its list) (s)" "$(until_true knows_all k2)"
    row "kube: ... its requests until then, by verb and resource" "$(requests_since "$idle0")"
    row "kube: ... start to its work queue empty (s)" "$(until_true settled k2)"
    sleep 6
    idle0=$(kube_requests "$KUSER")
    sleep 20
    idle1=$(kube_requests "$KUSER")
    row "kube: idle API requests per second, one controller (20 s)" \
        "$(awk -v a="$idle0" -v b="$idle1" 'BEGIN { printf "%.2f", (b - a) / 20 }')"
    row "kube: ... by verb and resource" "$(requests_since "$idle0")"
    row "kube: controller VmRSS with $N (MiB)" "$(mib k2 VmRSS)"
    row "kube: controller VmHWM with $N (MiB)" "$(mib k2 VmHWM)"
    stop_ctl k2

    # the informer cache's comparison: the same restart, every read a GET
    say "kube controller k1 restarted (as k3) with AGENTCTL_KUBE_CACHE=off"
    idle0=$(kube_requests "$KUSER")
    T0=$(now)
    AGENTCTL_KUBE_CACHE=off CTL_ID=$RUN-k1 start_ctl k3 --kubeconfig "$TEST_TMP/bench.kubeconfig"
    row "kube, cache off: the controller restarted on $N, start to all seen (s)" "$(until_true knows_all k3)"
    row "kube, cache off: ... its requests until then, by verb and resource" "$(requests_since "$idle0")"
    row "kube, cache off: ... start to its work queue empty (s)" "$(until_true settled k3)"
    row "kube, cache off: controller VmRSS with $N (MiB)" "$(mib k3 VmRSS)"
    stop_ctl k3

    say "etcd controller e on the same $N under a prefix of the same etcd"
    local pfx=/agentctl-bench-$1
    "$B/cli/agentctl" --etcd "$ETCD_URL" --etcd-prefix "$pfx" --state "$TEST_TMP/cli" \
        apply -f "$TEST_TMP/all.yaml" >/dev/null || fail "agentctl apply of $N into etcd failed"
    T0=$(now)
    start_ctl e --etcd "$ETCD_URL" --etcd-prefix "$pfx"
    row "etcd: a controller started on $N, start to all seen (s)" "$(until_true knows_all e)"
    until_true all_failed e >/dev/null
    sleep 5
    row "etcd: controller VmRSS with $N (MiB)" "$(mib e VmRSS)"
    row "etcd: controller VmHWM with $N (MiB)" "$(mib e VmHWM)"
    stop_ctl e
}

need_docker
command -v jq >/dev/null || fail "jq is needed"
! docker image inspect "$ABSENT" >/dev/null 2>&1 ||
    fail "$ABSENT exists on the daemon; the benchmark needs it absent"
kube_audit
start_kube
install_crd
kube_cert "$KUSER" "/O=system:masters/CN=$KUSER" "extendedKeyUsage=clientAuth"
kube_kubeconfig "$TEST_TMP/bench.kubeconfig" "$KUSER"
absent_config "$TEST_TMP/controller-k1.yaml" 10.218.0.0/16
cp "$TEST_TMP/controller-k1.yaml" "$TEST_TMP/controller-k2.yaml"
cp "$TEST_TMP/controller-k1.yaml" "$TEST_TMP/controller-k3.yaml"
absent_config "$TEST_TMP/controller-e.yaml" 10.219.0.0/16
absent_specs k- "$N" >"$TEST_TMP/all.yaml"
for r in $(seq "$REPS"); do one "$r"; done

{
    echo "kube-apiserver 1.20.2 and etcd $(etcd --version | awk 'NR == 1 { print $3 }') on loopback," \
        "$(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg), $N invocations, $REPS rep(s)"
    awk -F'|' '{ if (!($1 in v)) o[++k] = $1; v[$1] = v[$1] (v[$1] == "" ? "" : " ") $2 }
        END { for (i = 1; i <= k; i++) printf "| %s | %s |\n", o[i], v[o[i]] }' "$ROWS"
} | tee "${BENCH_OUT:-/dev/null}"
