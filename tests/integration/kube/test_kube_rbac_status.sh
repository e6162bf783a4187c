#!/usr/bin/env bash
# test_kube_rbac_status.sh - a controller whose RBAC lacks the status verb
# (update on agentinvocations/status) says so instead of looping (issue
# 41), on a real kube-apiserver: the shipped ClusterRole minus that rule,
# a spec applied; then /readyz is not ready and names the verb and the
# resource, the log says it once (not once per pass), and the refused
# writes the API server saw (its audit log, this controller's account
# only) are a handful over 12 s with a 5 s resync, not a loop; nothing
# is started in Docker without a status. The rule granted again: /readyz
# ready, the invocation moves, the log says so once.
# Negative control: the same refusal with the check disabled
# (test-hooks build, AGENTCTL_TEST_DISABLE=state-check) leaves /readyz
# ready and the log silent about it.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
source "$(dirname "$0")/../lib_demo.sh"

command -v jq >/dev/null || skip "jq not installed"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "no test-hooks controller build"
C_BIN=$BUILD/controller/agent-controller
demo_setup kuberbac
kube_audit
start_kube
install_crd
kube_sa_kubeconfig "$TEST_TMP/controller.kubeconfig"
SA=system:serviceaccount:agentctl:agent-controller
kubectl_t patch clusterrole agent-controller --type json \
    -p '[{"op":"remove","path":"/rules/1"}]' >/dev/null ||
    fail "could not take the status rule out of the ClusterRole"
check_eq "the account may not update agentinvocations/status" no \
    "$(kubectl_t auth can-i --as "$SA" update agentinvocations.agentctl.dev --subresource status 2>/dev/null || true)"

unset AGENTCTL_SPECS AGENTCTL_ETCD AGENTCTL_KUBE_CONTEXT
export AGENTCTL_KUBECONFIG=$KUBECONFIG_FILE AGENTCTL_STATE=$TEST_TMP/state
LOG=$TEST_TMP/controller.log
# start_controller BINARY LOG: on the account's kubeconfig, --metrics on
# a free port (MET)
start_controller() {
    free_port
    MET=127.0.0.1:$FREE_PORT
    "$1" --kubeconfig "$TEST_TMP/controller.kubeconfig" --state "$AGENTCTL_STATE" \
        --config "$TEST_TMP/controller.yaml" --controller-id "$ID" --resync 5s \
        --metrics "$MET" >"$2" 2>&1 &
    CP=$!
}
readyz() { curl -s --max-time 5 "http://$MET/readyz" || true; }
ready_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$MET/readyz" || true; }
refused() { kube_requests "$SA" '.objectRef.subresource == "status" and .responseStatus.code == 403'; }
said() { grep -c "refuses the controller's status writes" "$1" || true; }

# negative control first: the check disabled, the same refusal
AGENTCTL_TEST_DISABLE=state-check start_controller "$TESTHOOKS" "$TEST_TMP/control.log"
demo_spec "$TEST_TMP/in/demo.yaml"
kubectl_t apply -f "$TEST_TMP/in/demo.yaml" >/dev/null || fail "kubectl apply of the demo failed"
for _ in $(seq 300); do [ "$(refused)" -ge 1 ] && break; sleep 0.1; done
check "control: the API server refuses its status writes" test "$(refused)" -ge 1
sleep 2
check_eq "control (check disabled): /readyz says ready all the same" 200 "$(ready_code)"
check_eq "control (check disabled): the log does not say it" 0 "$(said "$TEST_TMP/control.log")"
stop_controller

before=$(refused)
start_controller "$C_BIN" "$LOG"
for _ in $(seq 300); do [ "$(refused)" -gt "$before" ] && break; sleep 0.1; done
t0=$(refused)
sleep 12
n=$(($(refused) - t0))
echo "# refused status writes in 12 s: $n"
check_eq "/readyz: 503, not ready" 503 "$(ready_code)"
check_match "/readyz names the verb and the resource" \
    'status-writes.*refused \(kube\): forbidden: .*cannot update resource "agentinvocations/status"' \
    "$(readyz)"
check_eq "the log says it once, not once per pass" 1 "$(said "$LOG")"
check "no tight loop: at most 30 refused writes in 12 s (the step's back-off and the resync; a loop makes hundreds)" test "$n" -le 30
check_eq "nothing started in Docker without a status" 0 \
    "$(docker ps -aq --filter "label=$MANAGED" --filter label=agentctl.dev/role=agent | wc -l)"

kubectl_t apply --validate=false -k "$ROOT/manifests/kubernetes-apiserver" >/dev/null
for _ in $(seq 600); do [ "$(ready_code)" = 200 ] && break; sleep 0.1; done
check_eq "the verb granted again: /readyz ready (within the back-off, 30 s at most)" 200 "$(ready_code)"
check_match "... the invocation has a status" '^[A-Z][a-z]+$' \
    "$(kubectl_t get ai "demo-$RUN" -o jsonpath='{.status.phase}')"
check_eq "... and the log said so once" 1 "$(grep -c 'takes status writes again' "$LOG" || true)"
# deleted and waited for, so the controller removes what it made for it
# (a create it had in flight would outlive a sweep by label at exit)
kubectl_t delete ai "demo-$RUN" --timeout=180s >/dev/null ||
    fail "demo-$RUN was not released: $(tail -n 5 "$LOG")"
check_eq "deleted: every Docker object of it removed by the controller" 0 \
    "$(docker_count_label "$MANAGED")"
echo "# $SECONDS s in all"
