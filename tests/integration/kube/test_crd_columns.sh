#!/usr/bin/env bash
# test_crd_columns.sh - the shipped CRD on a real kube-apiserver (1.20.2,
# lib_kube.sh): it is Established, `kubectl get ai` shows phase and
# attempt from its printer columns, status lives in the status
# subresource, and the server's structural validation refuses what the
# schema forbids. The limits of 1.20 (docs/store-kube.md) are asserted
# too, so a newer server that lifts them shows here: a CEL rule is not
# evaluated, an unknown field is pruned, kubectl 1.32 refuses the CRD
# unless --validate=false. Negative control: the same CRD under another
# group without its printer columns shows no PHASE column.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
start_kube
CRD=$ROOT/crds/agentinvocations.agentctl.dev.yaml

rc=0
out=$(kubectl_t apply -f "$CRD" 2>&1) || rc=$?
check "limit: kubectl 1.32's client-side check refuses the CRD on 1.20" [ $rc -ne 0 ]
check_match "limit: ... for x-kubernetes-validations" 'x-kubernetes-validations' "$out"
install_crd
check_eq "the CRD is Established" True \
    "$(kubectl_t get crd agentinvocations.agentctl.dev \
        -o jsonpath='{.status.conditions[?(@.type=="Established")].status}')"

kubectl_t apply -f "$ROOT/tests/specs/valid/minimal.yaml" >/dev/null ||
    fail "a valid AgentInvocation was refused"
kubectl_t patch ai minimal --subresource status --type merge \
    -p '{"status":{"phase":"Running","attempt":"3","controller":"node-a"}}' >/dev/null ||
    fail "the status subresource did not take a status"
out=$(kubectl_t get ai)
check_match "kubectl get ai: the printer columns" '^NAME +PHASE +ATTEMPT +STOP +AGE' "$out"
check_match "kubectl get ai: phase and attempt from .status" $'\nminimal +Running +3 +[0-9]+s' "$out"
out=$(kubectl_t get agentinvocations -o wide)
check_match "-o wide: vendor, image and controller" \
    'minimal +Running +3 +[0-9]+s +fake +agentctl/demo-agent:0.1.0 +node-a' "$out"

# status written through the main resource is ignored (subresources.status)
kubectl_t patch ai minimal --type merge -p '{"status":{"phase":"Failed"}}' >/dev/null
check_eq "status through the main resource is ignored" Running \
    "$(kubectl_t get ai minimal -o jsonpath='{.status.phase}')"
check_eq "the server applied the schema's defaults" 64Mi/1Gi \
    "$(kubectl_t get ai minimal -o jsonpath='{.spec.scratch.size}/{.spec.resources.memory}')"

# --validate=false: the server's check, not kubectl's (which may or may
# not have the CRD's published schema yet)
rc=0
out=$(kubectl_t apply --validate=false -f "$ROOT/tests/specs/invalid/missing-vendor.yaml" 2>&1) || rc=$?
check "a spec without vendor is refused by the server" [ $rc -ne 0 ]
check_match "... with the field named" 'spec.vendor: Required value' "$out"

# the limits of 1.20: CEL rules are not evaluated, unknown fields pruned
sed 's/name: web/name: cel/' "$ROOT/tests/specs/invalid/runner-with-command.yaml" |
    kubectl_t apply -f - >/dev/null 2>&1
check_eq "limit: a CEL rule (runner with command) is not evaluated" cel \
    "$(kubectl_t get ai cel -o jsonpath='{.metadata.name}' 2>/dev/null)"
sed 's/name: web/name: unknown/' "$ROOT/tests/specs/invalid/unknown-in-spec.yaml" |
    kubectl_t apply --validate=false -f - >/dev/null 2>&1
check_eq "limit: an unknown field is pruned, not refused" "" \
    "$(kubectl_t get ai unknown -o jsonpath='{.spec.priority}')"

# negative control: the columns come from the CRD
sed -e 's/agentctl\.dev/control.agentctl.dev/g' -e 's/shortNames: \[ai, ainv\]/shortNames: [aictl]/' \
    -e '/additionalPrinterColumns:/,/schema:/{/schema:/!d}' "$CRD" >"$TEST_TMP/bare.yaml"
kubectl_t apply --validate=false -f "$TEST_TMP/bare.yaml" >/dev/null ||
    fail "the control CRD was not admitted"
kubectl_t wait --for condition=Established --timeout 30s \
    crd/agentinvocations.control.agentctl.dev >/dev/null
sed 's#agentctl.dev/v1alpha1#control.agentctl.dev/v1alpha1#' "$ROOT/tests/specs/valid/minimal.yaml" |
    kubectl_t apply -f - >/dev/null
out=$(kubectl_t get aictl)
check_match "control: without printer columns, NAME and AGE only" '^NAME +AGE' "$out"
echo "# $SECONDS s in all"
