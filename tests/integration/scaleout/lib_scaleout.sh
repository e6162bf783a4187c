# shellcheck shell=bash
# lib_scaleout.sh - harness for the scale-out scenarios: controllers on a
# private etcd (loopback, started by the test), all on the one Docker
# daemon. Builds on lib_controller.sh (config, images, egress network,
# vendors, cleanup) and tests/integration/store/etcd_lib.sh (etcd).
#
#   sc_init                    ctl_init + etcd + prefix
#   sc_start N [ARGS...]       controller N (ID $CTL_ID-N) in the background
#   sc_kill N                  SIGKILL it (its lease is left to expire)
#   sc_stop N                  SIGTERM it
#   sc_apply NAME [SPEC-LINE...]   apply through agentctl --etcd
#   sc_status NAME [JQ]        the status document in etcd (or a field)
#   sc_wait NAME JQ-TEST TIMEOUT   until the status passes the jq test
#   sc_starts UID              Docker start events of UID's agent so far
#                              (streamed to a file from sc_init on: the
#                              daemon keeps only its last 256 events)
# AGENTCTL_KEEP_LOGS=DIR copies the controllers' logs there on exit.
# On exit every controller is killed, and every object labelled for any of
# this run's controller IDs is removed (a killed controller's leftovers
# included: see docs/store-etcd.md "Claims and leases").
source "$(dirname "${BASH_SOURCE[0]}")/../controller/lib_controller.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../store/etcd_lib.sh"

declare -A SC_PID=() SC_METRICS=()
SC_EVENTS_PID=

sc_init() {
    on_cleanup sc_kill_all # first: no controller outlives a failed run
    ctl_init
    start_etcd
    PFX=/sc-$CTL_RUN
    on_cleanup sc_teardown
    # Every agent start from now on, as its uid (one line per start).
    docker events --filter type=container --filter event=start \
        --filter label=agentctl.dev/role=agent \
        --format '{{index .Actor.Attributes "agentctl.dev/uid"}}' \
        >"$TEST_TMP/starts" 2>/dev/null &
    SC_EVENTS_PID=$!
}

sc_kill_all() {
    local n
    [ -z "${AGENTCTL_KEEP_LOGS:-}" ] ||
        cp "$TEST_TMP"/ctl-*.log "$AGENTCTL_KEEP_LOGS"/ 2>/dev/null
    [ -z "$SC_EVENTS_PID" ] || kill "$SC_EVENTS_PID" 2>/dev/null || true
    for n in "${!SC_PID[@]}"; do
        [ -n "${SC_PID[$n]}" ] || continue
        if [ "${rc:-0}" -ne 0 ] && [ "${rc:-0}" -ne 77 ]; then
            echo "----- controller $n log (last 40 lines)" >&2
            tail -n 40 "$TEST_TMP/ctl-$n.log" >&2
        fi
        kill -KILL "${SC_PID[$n]}" 2>/dev/null || true
        wait "${SC_PID[$n]}" 2>/dev/null || true
        SC_PID[$n]=
    done
}

sc_teardown() {
    local n
    for n in a b c; do
        docker_cleanup_label "agentctl.dev/managed-by=$CTL_ID-$n"
        docker_cleanup_label "agentctl.dev/managed-by=$CTL_ID-$n"
    done
}

sc_id() { echo "$CTL_ID-$1"; }

# sc_start N [ARGS...]: wait (bounded) for its /healthz to answer.
sc_start() {
    local n=$1 i
    shift
    SC_METRICS[$n]=127.0.0.1:$(pick_port)
    "$CONTROLLER" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
        --state "$TEST_TMP/state-$n" --config "$CONFIG" --resync 1s \
        --metrics "${SC_METRICS[$n]}" --controller-id "$(sc_id "$n")" "$@" \
        >>"$TEST_TMP/ctl-$n.log" 2>&1 &
    SC_PID[$n]=$!
    echo "# controller $n: pid ${SC_PID[$n]} id $(sc_id "$n") metrics ${SC_METRICS[$n]}"
    for i in $(seq 1 120); do
        kill -0 "${SC_PID[$n]}" 2>/dev/null ||
            fail "controller $n exited at start: $(tail -n 20 "$TEST_TMP/ctl-$n.log")"
        curl -fsS --max-time 2 -o /dev/null "http://${SC_METRICS[$n]}/healthz" \
            2>/dev/null && return 0
        sleep 0.25
    done
    fail "controller $n: /healthz never answered"
}

sc_alive() { [ -n "${SC_PID[$1]:-}" ] && kill -0 "${SC_PID[$1]}" 2>/dev/null; }

sc_kill() {
    kill -KILL "${SC_PID[$1]}" 2>/dev/null || true
    wait "${SC_PID[$1]}" 2>/dev/null || true
    SC_PID[$1]=
}

sc_stop() {
    kill -TERM "${SC_PID[$1]}" 2>/dev/null || true
    wait "${SC_PID[$1]}" 2>/dev/null || true
    SC_PID[$1]=
}

sctl() {
    "$AGENTCTL" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
        --state "$TEST_TMP/cli-state" "$@"
}

# sc_apply NAME [SPEC-LINE...]: an execute-phase spec through agentctl.
sc_apply() {
    local name=$1 f=$TEST_TMP/in/$1.yaml line
    shift
    {
        printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
        printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n' "$name"
        printf '  phase: execute\n  image: %s\n' "$DEMO_IMAGE"
        printf '  deadlineSeconds: 3600\n' # a busy daemon can take minutes
        for line in "$@"; do
            echo "  $line"
        done
    } >"$f"
    sctl apply -f "$f" >/dev/null || fail "agentctl --etcd apply -f $f failed"
}

ekey() { printf %s "$PFX/$1" | base64 -w0; }

# sc_status NAME [JQ]: from etcd directly ("" when absent or etcd down).
sc_status() {
    local doc
    doc=$(curl -fsS --max-time 3 "$ETCD_URL/v3/kv/range" \
        -d "{\"key\":\"$(ekey "status/$1")\"}" 2>/dev/null |
        jq -r '.kvs[0].value // empty' 2>/dev/null | base64 -d 2>/dev/null)
    [ -n "$doc" ] || return 0
    jq -r "(${2:-.}) | if . == null then empty elif type == \"string\" then . \
        else tojson end" <<<"$doc" 2>/dev/null || true
}

# sc_wait NAME JQ-TEST TIMEOUT-S: until the status makes JQ-TEST true.
sc_wait() {
    local end=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$end" ]; do
        [ "$(sc_status "$1" "$2")" == true ] && return 0
        sleep 0.25
    done
    fail "$1: status never made '$2' true within ${3}s: $(sc_status "$1" \
        '{phase,controller,stopReason}')"
}

# sc_starts UID: start events of the agent container of UID since sc_init.
sc_starts() {
    grep -cxF "$1" "$TEST_TMP/starts" || true
}

# sc_health N: the /healthz body of controller N.
sc_health() {
    curl -sS --max-time 3 "http://${SC_METRICS[$1]}/healthz" 2>/dev/null || true
}
