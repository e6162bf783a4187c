#!/usr/bin/env bash
# test_etcd_stall.sh - the controller's loop keeps answering while etcd
# is stopped (SIGSTOP: connections are accepted, nothing is answered, as
# a hung or overloaded etcd): the lists that start its watches, its lease
# grant and the rest go without blocking (docs/store-etcd.md "Watch",
# "Claims and leases"), so /healthz answers and says the store is
# unreachable. Counted by the controller's own /metrics: etcd requests
# the loop waited for (agentctl_etcd_blocking_requests_total) stay at 0
# through a start under a stopped etcd and the specs' passes once it is
# back; a lease lost to a pause longer than its TTL is granted again with
# no grant or list waited for (an event of an invocation whose claim went
# with the lease is still written alone).
#
# Negative control: the testhooks build with
# AGENTCTL_TEST_DISABLE=etcd-loop-async makes the lists and the grant
# blocking requests again; the same start then leaves /healthz
# unanswered while each waits for its timeout, and the counter shows
# them. The liveness bound (a probe answered within 1.5 s) is generous:
# an answering loop replies in milliseconds.
#
# Every spec names an image that is not on the daemon: the controller
# admits it, gets a 404 for the image, records Failed/ImageNotFound and
# releases its claim - nothing runs.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"

N=20
PROBES=12 # /healthz probes while etcd is stopped, 0.5 s apart
ABSENT=agentctl/test-etcd-stall-absent:0.0.0
source "$(dirname "$0")/etcd_absent_lib.sh"
start_etcd
absent_init stall
etcd_go() { [ -z "${ETCD_PID:-}" ] || kill -CONT "$ETCD_PID" 2>/dev/null || true; }
etcd_halt() { kill -STOP "$ETCD_PID"; }
# etcd is let go first: a stopped etcd would hold the controller's exit
on_cleanup 'etcd_go; stop_controller; docker_cleanup_label "agentctl.dev/managed-by=$ID"'

# done_count: statuses under the prefix that are cleaned up.
done_count() { status_json | jq -s '[.[] | select(.cleanedUp)] | length'; }

wait_done() { # COUNT SECONDS
    local end=$((SECONDS + $2))
    while [ "$SECONDS" -lt "$end" ]; do
        [ "$(done_count)" -ge "$1" ] && return 0
        sleep 0.5
    done
    return 1
}

# blocking [OP-REGEX]: etcd requests the loop waited for so far (those
# operations, default all; each operation's count on stderr).
blocking() {
    curl -fsS --max-time 5 "http://$METRICS/metrics" |
        awk -v op="${1:-.*}" '/^agentctl_etcd_blocking_requests_total/ {
                print "# " $0 > "/dev/stderr"
                if ($0 ~ "operation=\"(" op ")\"") n += $NF }
             END { printf "%d\n", n }'
}

# start_under_stopped_etcd [ENV=VALUE...]: a fresh prefix with N specs,
# etcd stopped, then the controller started; probe /healthz PROBES times
# and leave the count answered in ANSWERED, the last body in BODY.
start_under_stopped_etcd() {
    export AGENTCTL_ETCD_PREFIX=/stall-$RUN-$1
    shift
    absent_specs s- "$N" | "$A" apply -f - >/dev/null || fail "apply of $N specs failed"
    free_port
    METRICS=127.0.0.1:$FREE_PORT
    etcd_halt
    env "$@" "$C" --etcd "$ETCD_URL" --etcd-prefix "$AGENTCTL_ETCD_PREFIX" \
        --state "$TEST_TMP/state-$RUN" --config "$TEST_TMP/controller.yaml" \
        --controller-id "$ID" --resync 1s --lease-ttl 3s --metrics "$METRICS" \
        >>"$TEST_TMP/controller.log" 2>&1 &
    CP=$!
    sleep 1 # its socket is bound before the loop runs
    ANSWERED=0
    BODY=
    for _ in $(seq "$PROBES"); do
        if b=$(curl -sS --max-time 1.5 "http://$METRICS/healthz" 2>/dev/null) &&
            [ -n "$b" ]; then
            ANSWERED=$((ANSWERED + 1))
            BODY=$b
        fi
        sleep 0.5
    done
    etcd_go
}

start_under_stopped_etcd run
echo "# etcd stopped at start: $ANSWERED of $PROBES /healthz probes answered"
check_eq "etcd stopped at start: every /healthz probe answered" "$PROBES" "$ANSWERED"
check_match "/healthz says etcd is unreachable" 'unreachable \(etcd\)' "$BODY"
if ! wait_done "$N" 120; then
    tail -n 30 "$TEST_TMP/controller.log" >&2
    fail "only $(done_count) of $N specs done once etcd is back"
fi
check_eq "etcd back: every spec seen and done" "$N" "$(done_count)"
check_eq "no etcd request the loop waited for (start, passes)" 0 "$(blocking)"

# A pause longer than the lease's TTL: etcd revokes the lease when it
# goes on, the controller learns it from its keep-alive and is granted a
# new one; the loop answers throughout.
etcd_halt
answered=0
for _ in $(seq "$PROBES"); do
    # answered: any body (503 while etcd cannot be reached)
    b=$(curl -sS --max-time 1.5 "http://$METRICS/healthz" 2>/dev/null) &&
        [ -n "$b" ] && answered=$((answered + 1))
    sleep 0.5
done
etcd_go
check_eq "etcd paused 6 s: every /healthz probe answered" "$PROBES" "$answered"
lost=false
for _ in $(seq 60); do
    grep -q 'etcd lease expired' "$TEST_TMP/controller.log" && { lost=true; break; }
    sleep 0.5
done
check "the lease was lost in the pause (the keep-alive says so)" $lost
absent_specs late- 1 | "$A" apply -f - >/dev/null
check "a spec applied after: claimed under the new lease, done" wait_done $((N + 1)) 60
# An event of an invocation this controller no longer holds (its claim
# went with the lease) is still written alone, a kv_txn
# (docs/store-etcd.md "What the loop waits for"): the grant and the lists
# are what this checks.
check_eq "no grant or list the loop waited for (the new lease)" 0 \
    "$(blocking 'lease_grant|kv_range')"
stop_controller

# Negative control: the lists and the grant the blocking way again.
start_under_stopped_etcd control AGENTCTL_TEST_DISABLE=etcd-loop-async
echo "# control (blocking): $ANSWERED of $PROBES /healthz probes answered"
check "control: a /healthz probe went unanswered ($ANSWERED of $PROBES)" \
    test "$ANSWERED" -lt "$PROBES"
wait_done "$N" 120 || fail "the control controller did not settle"
B=$(blocking 'lease_grant|kv_range')
echo "# control: $B grants and lists the loop waited for"
check "control: the counter shows them ($B)" test "$B" -gt 0
stop_controller
