#!/usr/bin/env bash
# test_agentctl_kube.sh - agentctl against a real kube-apiserver
# (lib_kube.sh) with --kubeconfig: the store contract's spec cases
# (create-only, resourceVersion compare-and-swap on put and delete) and
# its --break control; apply creates AgentInvocation objects that kubectl
# sees, a second apply changes one (generation 2), specs written by
# kubectl read back through agentctl get, describe shows the API
# server's uid, status written to the status subresource shows in get,
# diff sees a change, delete removes the object. A spec the API server
# admits but agentctl's schema refuses (a CEL rule 1.20 does not
# evaluate) reads as invalid with the field named.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
start_kube
install_crd
A=$BUILD/cli/agentctl
K=$KUBECONFIG_FILE
unset AGENTCTL_SPECS AGENTCTL_ETCD AGENTCTL_KUBECONFIG AGENTCTL_KUBE_CONTEXT
export AGENTCTL_STATE=$TEST_TMP/state

out=$("$BUILD/tests/store_contract" kube "$K" "$TEST_TMP/contract" 2>&1) ||
    fail "the store contract failed on the API server store: $out"
check_match "store contract: the spec cases hold" "0 failure\(s\)" "$out"
rc=0
out=$("$BUILD/tests/store_contract" --break kube "$K" "$TEST_TMP/contract" 2>&1) || rc=$?
check "control: the contract reports a broken expectation" [ "$rc" -ge 1 ]

spec() { # NAME DEADLINE
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: %s\n  labels: {team: web}\nspec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n  deadlineSeconds: %s\n' "$1" "$2"
}
spec web 60 >"$TEST_TMP/web.yaml"
out=$("$A" --kubeconfig "$K" apply -f "$TEST_TMP/web.yaml" 2>&1) || fail "apply: $out"
check_match "apply creates" "agentinvocation.agentctl.dev/web created" "$out"
check_eq "kubectl sees the object apply made" "web 60 web" \
    "$(kubectl_t get ai web -o jsonpath='{.metadata.name} {.spec.deadlineSeconds} {.metadata.labels.team}')"
out=$("$A" --kubeconfig "$K" apply -f "$TEST_TMP/web.yaml" 2>&1)
check_match "the same apply again: unchanged" "web unchanged" "$out"

spec web 90 >"$TEST_TMP/web.yaml"
rc=0; out=$("$A" --kubeconfig "$K" diff -f "$TEST_TMP/web.yaml" 2>&1) || rc=$?
check_eq "diff: a change (exit 1)" 1 "$rc"
check_match "diff: shows the new deadline" '\+ +deadlineSeconds: 90' "$out"
out=$("$A" --kubeconfig "$K" apply -f "$TEST_TMP/web.yaml" 2>&1) || fail "apply: $out"
check_match "a changed apply configures" "web configured" "$out"
check_eq "the API server counted the change" "90 2" \
    "$(kubectl_t get ai web -o jsonpath='{.spec.deadlineSeconds} {.metadata.generation}')"

# a spec written by kubectl (a GitOps tool) reads through agentctl
spec gitops 30 | kubectl_t apply -f - >/dev/null
check_eq "agentctl get lists kubectl's object too" \
    "agentinvocation.agentctl.dev/gitops agentinvocation.agentctl.dev/web" \
    "$("$A" --kubeconfig "$K" get -o name | tr '\n' ' ' | sed 's/ $//')"
uid=$(kubectl_t get ai web -o jsonpath='{.metadata.uid}')
check_match "describe shows the API server's uid" "UID: +$uid" \
    "$("$A" --kubeconfig "$K" describe web)"
kubectl_t patch ai web --subresource status --type merge \
    -p '{"status":{"phase":"Running","attempt":"1"}}' >/dev/null
check_match "get shows the status subresource's phase" 'web +Running' \
    "$("$A" --kubeconfig "$K" get web)"

# admitted by 1.20 (its CEL rule is dropped), refused by agentctl
sed 's/name: web/name: both/' "$ROOT/tests/specs/invalid/runner-with-command.yaml" |
    kubectl_t apply -f - >/dev/null
check_match "an object 1.20 admitted but the schema forbids is Invalid" \
    'both +Invalid' "$("$A" --kubeconfig "$K" get both 2>&1)"
check_match "describe names the rule it breaks" \
    'agentinvocations/both:[0-9]+:[0-9]+: spec.runner: runner is for prompt specs' "$("$A" --kubeconfig "$K" describe both 2>&1)"

out=$("$A" --kubeconfig "$K" cancel gitops 2>&1) || fail "cancel: $out"
check_eq "cancel sets spec.cancel on the object" true \
    "$(kubectl_t get ai gitops -o jsonpath='{.spec.cancel}')"

out=$("$A" --kubeconfig "$K" delete web 2>&1) || fail "delete: $out"
check_match "delete" "\"web\" deleted" "$out"
rc=0; kubectl_t get ai web >/dev/null 2>&1 || rc=$?
check "the object is gone from the API server" [ $rc -ne 0 ]
echo "# $SECONDS s in all"
