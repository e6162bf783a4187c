#!/usr/bin/env bash
# test_kube_cache.sh - the API server store's informer cache (issue 41,
# store_kube_cache.c) on a real kube-apiserver: a controller restarted on
# N AgentInvocations it had taken to Failed knows all N and empties its
# queue with (about) no GET of an object after its list: the metadata
# and status reads of each pass are answered from what the watch's list
# delivered (counted in the API server's audit log, this controller's
# account only). A stale cache must not hide a change: an object deleted
# meanwhile is forgotten (known drops, the finalizer is released and the
# object goes), and one created meanwhile is taken to Failed (a spec
# changed while running: kube/test_controller_kube.sh's spec.cancel).
# Negative control: the same restart with the cache turned off
# (AGENTCTL_KUBE_CACHE=off) makes a GET per object and more.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
source "$(dirname "$0")/../store/etcd_absent_lib.sh" # absent_config, _specs
need_docker
command -v jq >/dev/null || skip "jq not installed"
ABSENT=agentctl/kube-cache-absent:0.0.0
! docker image inspect "$ABSENT" >/dev/null 2>&1 || skip "$ABSENT exists on the daemon"
N=20
KUSER=cache-controller
RUN=kcache-$(printf '%s' "$TEST_RUN_ID" | sha256sum | cut -c1-10)
C_BIN=$BUILD/controller/agent-controller
kube_audit
start_kube
install_crd
kube_cert "$KUSER" "/O=system:masters/CN=$KUSER" "extendedKeyUsage=clientAuth"
kube_kubeconfig "$TEST_TMP/ctl.kubeconfig" "$KUSER"
absent_config "$TEST_TMP/controller.yaml" 10.217.0.0/16
absent_specs c- "$N" >"$TEST_TMP/all.yaml"
on_cleanup stop_controller
on_cleanup docker_cleanup_label "agentctl.dev/managed-by=$RUN"

LOG=$TEST_TMP/ctl.log
start_controller() { # [ENV=VALUE...]: one controller, same ID each time
    free_port
    MET=127.0.0.1:$FREE_PORT
    env "$@" "$C_BIN" --kubeconfig "$TEST_TMP/ctl.kubeconfig" --state "$TEST_TMP/state" \
        --config "$TEST_TMP/controller.yaml" --controller-id "$RUN" --metrics "$MET" \
        >>"$LOG" 2>&1 &
    CP=$!
}
metric() {
    curl -fsS --max-time 5 "http://$MET/metrics" 2>/dev/null |
        awk -v re="^$1" '$0 ~ re { n += $NF } END { printf "%d\n", n }'
}
# wait_for TEST...: until it holds (60 s)
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
known_is() { [ "$(metric agentctl_invocations_known)" = "$1" ]; }
settled() { [ "$(metric agentctl_workqueue_depth)" = 0 ] && [ -n "$(metric agentctl_workqueue_depth)" ]; }
failed() { [ "$(grep -c '"msg":"phase".*"phase":"Failed"' "$LOG" || true)" -ge "$1" ]; }
cleaned() { [ "$(grep -c '"msg":"every Docker object of attempt' "$LOG" || true)" -ge "$1" ]; }
gets() { kube_requests "$KUSER" '.verb == "get" and .objectRef.resource == "agentinvocations"'; }

start_controller
kubectl_t create -f "$TEST_TMP/all.yaml" >/dev/null || fail "kubectl create of $N failed"
check "the controller takes all $N to Failed (the image is absent)" wait_for failed "$N"
check "and cleans every one up" wait_for cleaned "$N"
stop_controller

# restart_gets COUNT [ENV=VALUE...]: a restart on COUNT objects, until
# all known and the queue empty (and 3 s more); GETS: the GETs of objects
# it made meanwhile
restart_gets() {
    local g0 count=$1
    shift
    g0=$(gets)
    start_controller "$@"
    wait_for known_is "$count" && wait_for settled || fail "the restarted controller did not settle"
    sleep 3
    GETS=$(($(gets) - g0))
}
restart_gets "$N"
cached=$GETS
echo "# GETs of objects after a restart on $N, cache on: $cached"
check "cache on: at most 2 GETs of an object after the list (the reads are the cache's)" \
    test "$cached" -le 2

# a stale cache must not hide a delete or a spec change
kubectl_t delete ai c-0 --wait=false >/dev/null
check "a deleted object is forgotten (known $((N - 1)))" wait_for known_is $((N - 1))
check "its finalizer released: the object is gone" \
    wait_for bash -c "! kubectl --kubeconfig '$KUBECONFIG_FILE' get ai c-0 >/dev/null 2>&1"
absent_specs new- 1 | kubectl_t create -f - >/dev/null
check "an object created meanwhile is known ($N)" wait_for known_is "$N"
check "and taken to Failed (its status read after its own writes)" \
    wait_for bash -c "[ \"\$(kubectl --kubeconfig '$KUBECONFIG_FILE' get ai new-0 -o jsonpath='{.status.phase}')\" = Failed ]"
wait_for cleaned $((N + 1)) || true
stop_controller

restart_gets "$N" AGENTCTL_KUBE_CACHE=off
uncached=$GETS
echo "# GETs of objects after a restart on $N, cache off: $uncached"
check "control (cache off): a GET per object or more ($N)" test "$uncached" -ge "$N"
stop_controller
