#!/usr/bin/env bash
# test_controller_kube.sh - agent-controller on the Kubernetes API server
# store (--kubeconfig), end to end on this machine's Docker daemon and a
# real kube-apiserver (lib_kube.sh): `kubectl apply -f` of the demo (the
# GitOps path) -> the controller sees it through its watch, the demo
# agent runs -> Succeeded, visible to `kubectl get ai` from the printer
# columns; its events are Kubernetes Events (`kubectl describe`); the
# output is read by `agentctl logs` from the controller's state dir;
# `agentctl wait` and `get` work against the API server. The controller
# runs as the service account of manifests/kubernetes-apiserver with
# exactly its RBAC (kubectl auth can-i: what it needs, nothing more);
# `kubectl
# delete` has the controller remove every Docker object of the attempt;
# delete of a running one is held by the controller's finalizer
# (Terminating) until its Docker objects are gone; a spec change by
# kubectl while running (spec.cancel) is acted on.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
source "$(dirname "$0")/../lib_demo.sh"

command -v jq >/dev/null || skip "jq not installed"
A=$BUILD/cli/agentctl

kube_demo_controller kube
SA=system:serviceaccount:agentctl:agent-controller
can() { kubectl_t auth can-i --as "$SA" "$@" 2>/dev/null || true; }
check_eq "RBAC: list, watch, get, patch (the finalizer) and update status; create events (in default)" \
    "yes yes yes yes yes yes" \
    "$(echo $(can list agentinvocations.agentctl.dev) $(can watch agentinvocations.agentctl.dev) \
        $(can patch agentinvocations.agentctl.dev) \
        $(can get agentinvocations.agentctl.dev) \
        $(can update agentinvocations.agentctl.dev --subresource status) \
        $(can create events -n default))"
check_eq "RBAC: get, create, update its Leases (its own and the claims, in agentctl)" \
    "yes yes yes" \
    "$(echo $(can get leases.coordination.k8s.io -n agentctl) \
        $(can create leases.coordination.k8s.io -n agentctl) \
        $(can update leases.coordination.k8s.io -n agentctl))"
check_eq "RBAC: nothing more (no spec writes, no deletes, no events elsewhere, no Lease list/delete or elsewhere)" \
    "no no no no no no no" \
    "$(echo $(can update agentinvocations.agentctl.dev) $(can delete agentinvocations.agentctl.dev) \
        $(can create agentinvocations.agentctl.dev) $(can create events -n agentctl) \
        $(can list leases.coordination.k8s.io -n agentctl) \
        $(can delete leases.coordination.k8s.io -n agentctl) \
        $(can update leases.coordination.k8s.io -n default))"

demo_spec "$TEST_TMP/in/demo.yaml"
check "kubectl apply of the demo" kubectl_t apply -f "$TEST_TMP/in/demo.yaml"
if ! "$A" wait "demo-$RUN" --for=phase=Succeeded --timeout=480s; then
    tail -n 30 "$TEST_TMP/controller.log" >&2
    fail "demo-$RUN did not succeed"
fi
check_match "kubectl get ai: Succeeded, attempt a1" "demo-$RUN +Succeeded +a1" \
    "$(kubectl_t get ai "demo-$RUN")"
check_eq "status names this controller" "$ID" \
    "$(kubectl_t get ai "demo-$RUN" -o jsonpath='{.status.controller}')"
check_match "kubectl describe shows the controller's events" \
    'Normal +[A-Za-z]+ +[0-9smh]+ +agent-controller' "$(kubectl_t describe ai "demo-$RUN")"
check_match "agentctl describe reads them back" \
    "Events:"$'\n'"  Type" "$("$A" describe "demo-$RUN")"
check_match "agentctl logs: the demo agent's output" "vendor_body: vendor-$RUN" \
    "$("$A" logs "demo-$RUN")"
check "kubectl delete" kubectl_t delete ai "demo-$RUN"
for _ in $(seq 600); do # until the controller removed the attempt's objects
    [ "$(docker_count_label "$MANAGED")" = 0 ] && break
    sleep 0.2
done
check_eq "delete: every Docker object of the attempt removed" 0 \
    "$(docker_count_label "$MANAGED")"

# kubectl delete of a running one: the finalizer holds the object
# (deletionTimestamp set) until the controller removed every Docker
# object of it, then it goes
sed -e "s/^  name: demo-$RUN$/  name: sleeper-$RUN/" \
    -e 's|command: \[/demo-agent, --write-work\]|command: [/demo-agent, --sleep, "300"]|' \
    "$TEST_TMP/in/demo.yaml" >"$TEST_TMP/in/sleeper.yaml"
# a spec change while running, as a GitOps tool makes it (kubectl, not
# agentctl): spec.cancel stops the attempt
sed "s/name: sleeper-$RUN/name: cancel-$RUN/" "$TEST_TMP/in/sleeper.yaml" |
    kubectl_t apply -f - >/dev/null
"$A" wait "cancel-$RUN" --for=phase=Running --timeout=300s >/dev/null ||
    fail "cancel-$RUN did not start: $(tail -n 5 "$TEST_TMP/controller.log")"
kubectl_t patch ai "cancel-$RUN" --type merge -p '{"spec":{"cancel":true}}' >/dev/null
check "a spec change by kubectl while running: spec.cancel -> Cancelled" \
    "$A" wait "cancel-$RUN" --for=phase=Cancelled --timeout=120s
check_eq "... with the API server's generation 2 observed" 2 \
    "$(kubectl_t get ai "cancel-$RUN" -o jsonpath='{.status.observedGeneration}')"

kubectl_t apply -f "$TEST_TMP/in/sleeper.yaml" >/dev/null
"$A" wait "sleeper-$RUN" --for=phase=Running --timeout=300s >/dev/null ||
    fail "sleeper-$RUN did not start: $(tail -n 5 "$TEST_TMP/controller.log")"
check_eq "the controller's finalizer is on the object" agentctl.dev/cleanup \
    "$(kubectl_t get ai "sleeper-$RUN" -o jsonpath='{.metadata.finalizers[0]}')"
kubectl_t delete ai "sleeper-$RUN" --wait=false >/dev/null
check_match "kubectl delete: the object stays, Terminating (deletionTimestamp)" '^[0-9]{4}-' \
    "$(kubectl_t get ai "sleeper-$RUN" -o jsonpath='{.metadata.deletionTimestamp}')"
# agentctl shows a deleted invocation whose cleanup is pending as
# Terminating, as on the other stores (or, once the finalizer is off
# already, not at all): never as the running invocation it was
check_match "agentctl get: Terminating (or gone already), no longer Running" \
    'Terminating|not found' "$("$A" get "sleeper-$RUN" --no-headers 2>&1 || true)"
kubectl_t wait --for=delete "ai/sleeper-$RUN" --timeout=180s >/dev/null ||
    fail "sleeper-$RUN was not released: $(tail -n 5 "$TEST_TMP/controller.log")"
check_eq "once the object is gone, so is every Docker object of it" 0 \
    "$(docker_count_label "agentctl.dev/invocation=sleeper-$RUN")"
check "the controller is still running" kill -0 "$CP"
echo "# $SECONDS s in all"
