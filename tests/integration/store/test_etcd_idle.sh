#!/usr/bin/env bash
# test_etcd_idle.sh - the controller on etcd, idle with N specs in the
# store, asks etcd for no more than its lease keep-alive needs: every
# resync's pass (and its claim gate) reads the informer cache, not etcd.
# Counted by the controller's own /metrics (etcd requests by operation,
# the watch streams excluded) over a window of several resyncs: at most
# one request per second. Negative control: the testhooks build with
# AGENTCTL_TEST_DISABLE=etcd-cache reads etcd as before the cache (status
# and claim holder per unclaimed invocation per pass) and breaks the
# bound. Then a broken watch: etcd restarted while the controller is
# stopped, a spec added, one deleted and the store compacted meanwhile;
# the controller relists and converges on both.
#
# Every spec names an image that is not on the daemon: the controller
# admits it, gets a 404 for the image, records Failed/ImageNotFound,
# cleans up (nothing to remove) and releases its claim - nothing runs.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"

N=40        # specs in the store
WINDOW=8    # seconds counted, with --resync 1s: 8 passes over every spec
ABSENT=agentctl/test-etcd-idle-absent:0.0.0
source "$(dirname "$0")/etcd_absent_lib.sh"
start_etcd
absent_init idle
on_cleanup 'stop_controller; docker_cleanup_label "agentctl.dev/managed-by=$ID"'
specs() { absent_specs "$@"; }

# done_count REGEX: statuses of matching names that are cleaned up.
done_count() {
    status_json | jq -s --arg re "$1" \
        '[.[] | select((.name | test($re)) and .cleanedUp)] | length'
}

# wait_done REGEX COUNT SECONDS
wait_done() {
    local end=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$end" ]; do
        [ "$(done_count "$1")" -ge "$2" ] && return 0
        sleep 0.5
    done
    return 1
}

# etcd_requests: the controller's etcd requests so far (all operations).
etcd_requests() {
    curl -fsS --max-time 5 "http://$METRICS/metrics" |
        awk '/^agentctl_etcd_request_duration_seconds_count/ { n += $NF }
             END { printf "%d\n", n }'
}

# start_controller [ENV=VALUE...]
start_controller() {
    free_port
    METRICS=127.0.0.1:$FREE_PORT
    env "$@" "$C" --etcd "$ETCD_URL" --etcd-prefix "$AGENTCTL_ETCD_PREFIX" \
        --state "$TEST_TMP/state" --config "$TEST_TMP/controller.yaml" \
        --controller-id "$ID" --resync 1s --metrics "$METRICS" \
        >>"$TEST_TMP/controller.log" 2>&1 &
    CP=$!
    for _ in $(seq 120); do
        curl -fsS --max-time 2 -o /dev/null "http://$METRICS/healthz" 2>/dev/null &&
            return 0
        kill -0 "$CP" 2>/dev/null || break
        sleep 0.25
    done
    tail -n 20 "$TEST_TMP/controller.log" >&2
    fail "the controller did not start"
}

# idle_requests: etcd requests over WINDOW seconds, once every spec is
# done and two resyncs have passed.
idle_requests() {
    local a b
    sleep 2
    a=$(etcd_requests)
    sleep "$WINDOW"
    b=$(etcd_requests)
    echo $((b - a))
}

specs idle- "$N" >"$TEST_TMP/all.yaml"
check "apply $N specs" "$A" apply -f "$TEST_TMP/all.yaml"

start_controller
if ! wait_done '^idle-' "$N" 120; then
    tail -n 30 "$TEST_TMP/controller.log" >&2
    fail "only $(done_count '^idle-') of $N specs done"
fi
check_eq "every spec seen and done (Failed, cleaned up)" "$N" "$(done_count '^idle-')"
REQ=$(idle_requests)
echo "# idle, informer cache: $REQ etcd requests in ${WINDOW}s"
check "idle with $N specs: at most 1 etcd request per second ($REQ in ${WINDOW}s)" \
    test "$REQ" -le "$WINDOW"

# A broken watch: etcd goes away while the controller is stopped; what
# happens meanwhile (a new spec, a deleted one, a compaction past every
# revision the controller saw) reaches it by the relist.
kill -STOP "$CP"
restart_etcd
specs late- 1 | "$A" apply -f - >/dev/null
check "delete idle-0 while the controller is stopped" "$A" delete idle-0
REV=$(curl -fsS "$ETCD_URL/v3/kv/range" -d '{"key":"AA=="}' | jq -r .header.revision)
check "compact etcd at $REV" curl -fsS -o /dev/null "$ETCD_URL/v3/kv/compaction" \
    -d "{\"revision\":\"$REV\"}"
kill -CONT "$CP"
check "after the relist: the spec added meanwhile is done" wait_done '^late-0$' 1 60
gone=false
for _ in $(seq 120); do
    status_json | jq -e 'select(.name == "idle-0")' >/dev/null || { gone=true; break; }
    sleep 0.5
done
check "after the relist: the deleted spec is forgotten (its status gone)" $gone
check "the controller is still running" kill -0 "$CP"
stop_controller

# Negative control: the same controller reading etcd on every pass.
start_controller AGENTCTL_TEST_DISABLE=etcd-cache
wait_done '^idle-' $((N - 1)) 60 || fail "the control controller did not settle"
REQ=$(idle_requests)
echo "# idle, cache switched off (control): $REQ etcd requests in ${WINDOW}s"
check "control: with the cache off the same bound fails ($REQ in ${WINDOW}s)" \
    test "$REQ" -gt "$WINDOW"
stop_controller
