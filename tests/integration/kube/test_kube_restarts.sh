#!/usr/bin/env bash
# test_kube_restarts.sh - the controller on the API server store survives
# restarts, of itself and of the API server, without losing or repeating
# work (issue 41), on a real kube-apiserver and this machine's Docker:
# - the controller killed (SIGKILL) while an agent runs, a spec applied
#   while it is down, the controller started again: the running agent is
#   adopted (same container, one run), the late spec runs once;
# - the API server killed and started again on the same etcd: the watch
#   comes back, a spec applied after the restart runs, nothing runs twice;
# - the API server killed, etcd compacted past the controller's watch
#   version, the API server started and a spec applied at once: the
#   controller's resume gets 410 Gone (control: the same resume by curl
#   is refused with 410), it lists again and the spec runs, once; the
#   periodic resync is an hour, so only the relist can have found it.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
source "$(dirname "$0")/../lib_demo.sh"

command -v jq >/dev/null || skip "jq not installed"
command -v etcdctl >/dev/null 2>&1 || skip "etcdctl is not installed (Debian etcd-client)"
A=$BUILD/cli/agentctl
C=$BUILD/controller/agent-controller
demo_setup kuberestart
start_kube
install_crd

unset AGENTCTL_SPECS AGENTCTL_ETCD AGENTCTL_KUBE_CONTEXT
export AGENTCTL_KUBECONFIG=$KUBECONFIG_FILE AGENTCTL_STATE=$TEST_TMP/state
start_controller() {
    "$C" --kubeconfig "$KUBECONFIG_FILE" --state "$AGENTCTL_STATE" \
        --config "$TEST_TMP/controller.yaml" --controller-id "$ID" --resync 1h \
        >>"$TEST_TMP/controller.log" 2>&1 &
    CP=$!
}
# spec NAME ARGS...: the demo named NAME-RUN running /demo-agent ARGS,
# applied
spec() { demo_named "$@" | kubectl_t apply -f - >/dev/null || fail "kubectl apply of $1 failed"; }
wait_phase() {
    "$A" wait "$1-$RUN" --for=phase="$2" --timeout="${3:-300}s" >/dev/null || {
        tail -n 20 "$TEST_TMP/controller.log" >&2
        fail "$1-$RUN did not reach $2"
    }
}
# runs NAME: how many times the demo agent ran for NAME (its report
# lines in the captured output)
runs() { "$A" logs "$1-$RUN" 2>/dev/null | grep -c '^demo-agent ' || true; }
# agents NAME: agent containers Docker created for NAME (the events of
# this controller's objects, recorded from the start: the daemon keeps
# only its last events)
agents() {
    jq -c --arg n "$1-$RUN" 'select(.Actor.Attributes["agentctl.dev/invocation"] == $n and
        .Actor.Attributes["agentctl.dev/role"] == "agent")' "$TEST_TMP/events.json" | wc -l
}
agent_id() { kubectl_t get ai "$1-$RUN" -o jsonpath='{.status.resources.agent.id}'; }
ectl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URL" "$@"; }

docker events --filter type=container --filter event=create --filter "label=$MANAGED" \
    --format '{{json .}}' >"$TEST_TMP/events.json" &
EVENTS=$!
on_cleanup 'kill $EVENTS 2>/dev/null'
start_controller
spec survivor --sleep 20
wait_phase survivor Running
agent=$(agent_id survivor)
check_match "survivor: the status records its agent container" '^[0-9a-f]{64}$' "$agent"
kill -KILL "$CP"
wait "$CP" 2>/dev/null || true
CP=
echo "# controller killed with SIGKILL"
spec latecomer
start_controller
wait_phase survivor Succeeded
check_eq "survivor: adopted, its agent ran once (one container, one report)" "1 1" \
    "$(agents survivor) $(runs survivor)"
wait_phase latecomer Succeeded
check_eq "latecomer (applied while the controller was down): ran once" 1 "$(runs latecomer)"

restart_kube
echo "# kube-apiserver restarted (same etcd)"
spec after
wait_phase after Succeeded
check_eq "after the API server restart: a new spec ran, once" 1 "$(runs after)"

old=$(kubectl_t get ai "after-$RUN" -o jsonpath='{.metadata.resourceVersion}')
kill_kube
ectl put /agentctl-test/bump 1 >/dev/null
ectl compact "$(ectl endpoint status -w json | jq '.[0].Status.header.revision')" >/dev/null
run_kube_apiserver
spec compacted # before the controller's resume (its back-off is >= 100 ms)
echo "# kube-apiserver restarted on a compacted etcd"
out=$(curl -sS --max-time 5 --cacert "$KUBE_PKI/ca.crt" --cert "$KUBE_PKI/admin.crt" \
    --key "$KUBE_PKI/admin.key" \
    "$KUBE_URL/apis/agentctl.dev/v1alpha1/agentinvocations?watch=1&resourceVersion=$old&timeoutSeconds=1" || true)
check_match "control: a resume from the controller's old version gets 410 Gone" '"code":410' "$out"
wait_phase compacted Succeeded
check_eq "after 410 Gone: the spec applied meanwhile ran, once" 1 "$(runs compacted)"
check_eq "nothing ran twice: agent containers (survivor latecomer after compacted)" \
    "1 1 1 1" "$(agents survivor) $(agents latecomer) $(agents after) $(agents compacted)"
check_eq "every invocation Succeeded, still attempt a1" \
    "Succeeded/a1 Succeeded/a1 Succeeded/a1 Succeeded/a1" \
    "$(echo $(for n in survivor latecomer after compacted; do
        kubectl_t get ai "$n-$RUN" -o jsonpath='{.status.phase}/{.spec.attempt}'
        echo
    done))"
check "the controller is still running" kill -0 "$CP"
echo "# $SECONDS s in all"
