#!/usr/bin/env bash
# test_get.sh - agentctl get / describe / delete / cancel / logs / wait /
# version and the usage paths, against a specs directory whose status the
# test writes by hand (as the controller will).
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
mkdir -p "$S"
ctl() { "$A" --specs "$S" "$@"; }
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\n  labels: {team: web}\nspec:\n  vendor: fake\n  phase: execute\n' "$1"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: 60\n  attempt: a1\n'
}

check_eq "version" "agentctl version 0.1.0" "$("$A" version)"
rc=0; "$A" >/dev/null 2>&1 || rc=$?
check_eq "no command: usage" 2 "$rc"
rc=0; "$A" frobnicate >/dev/null 2>&1 || rc=$?
check_eq "unknown command: usage" 2 "$rc"
rc=0; "$A" get >/dev/null 2>&1 || rc=$?
check_eq "no store given: usage" 2 "$rc"
rc=0; out=$("$A" --etcd http://127.0.0.1:1 get 2>&1) || rc=$?
check_eq "--etcd with no etcd there: exit 1" 1 "$rc"
check_match "--etcd with no etcd there: says where and why" \
    "etcd http://127.0.0.1:1: connection refused" "$out"
rc=0; "$A" --etcd http://127.0.0.1:1 --specs "$TEST_TMP" get >/dev/null 2>&1 || rc=$?
check_eq "--etcd and --specs: usage" 2 "$rc"
for c in validate apply diff get describe delete cancel logs wait version; do
    out=$("$A" $c --help)
    check_match "$c --help" "^usage: agentctl $c" "$out"
done

out=$(ctl get 2>&1)
check_eq "empty store" "No resources found" "$out"

spec web | ctl apply -f - >/dev/null
spec api | ctl apply -f - >/dev/null
printf 'apiVersion: [\n' >"$S/broken.yaml"   # hand-dropped, invalid
out=$(ctl get)
check_match "table header" "^NAME +PHASE +ATTEMPT +STOP +AGE$" "$(head -1 <<<"$out")"
# ATTEMPT is the CRD's printer column, .status.attempt: none before the
# controller captured one (spec.attempt a1 only asks for it)
check_match "pending row: no attempt captured yet" $'\nweb +Pending +<none> +<none> +[0-9]+s' "$out"
check_match "invalid file row" $'\nbroken +Invalid ' "$out"
out=$(AGENTCTL_SPECS=$S "$A" get -o wide)
check_match "wide header (env store)" "VENDOR +IMAGE +CONTROLLER" "$out"
check_match "wide row" "fake +agentctl/demo-agent:0.1.0 +<none>" "$out"

# status written by the controller shows up
printf '{"phase":"Running","attempt":"a1","controller":"host-1","resources":{"agent":{"id":"abc123","name":"agentctl-web-1234"}},"conditions":[{"type":"BoundaryVerified","status":"True","reason":"Probed","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}' \
    >"$S/.agentctl/status/web.json"
printf '{"time":"2026-01-01T00:00:00Z","type":"Normal","reason":"Started","message":"agent started","count":3}\n' \
    >"$S/.agentctl/events/web.jsonl"
check_match "status phase in table" $'\nweb +Running +a1' "$(ctl get)"
# a new spec.attempt asked for while a1 is what ran: ATTEMPT stays a1
printf '{"phase":"Succeeded","attempt":"a1"}' >"$S/.agentctl/status/api.json"
sed 's/^  attempt: a1$/  attempt: a2/' "$S/api.yaml" >"$S/api.tmp" && mv "$S/api.tmp" "$S/api.yaml"
check "control: the spec now asks for a2" grep -q '^  attempt: a2$' "$S/api.yaml"
check_match "ATTEMPT is status.attempt, not spec.attempt" $'\napi +Succeeded +a1 ' "$(ctl get)"
crd_path=$(awk '/- name: Attempt$/ { getline; getline; print $2; exit }' "$ROOT/crds/agentinvocations.agentctl.dev.yaml")
check_eq "the CRD's printer column reads .status.attempt" ".status.attempt" "$crd_path"
check_eq "ATTEMPT agrees with the CRD's column for every row" \
    "$(ctl get -o custom-columns="N:.metadata.name,A:$crd_path" --no-headers | awk '$1 != "<none>" {print $1, $2}')" \
    "$(ctl get --no-headers | awk '$1 != "broken" {print $1, $3}')"
out=$(ctl get web -o json)
check_match "json: whole resource" '"apiVersion": "agentctl.dev/v1alpha1"' "$out"
check_match "json: uid" '"uid": "[0-9a-f]{8}-[0-9a-f]{4}-4' "$out"
check_match "json: status" '"phase": "Running"' "$out"
out=$(ctl get web -o yaml)
check_match "yaml: generation" $'\n  generation: 1\n' "$out"
check_match "yaml: quoted timestamp" 'creationTimestamp: "20' "$out"
check_match "yaml: status" $'\nstatus:\n' "$out"
out=$(ctl get -o json)
check_match "list" '"kind": "List"' "$out"

rc=0; out=$(ctl get nope 2>&1) || rc=$?
check_eq "not found: exit 1" 1 "$rc"
check_eq "not found message" 'Error from server (NotFound): agentinvocations.agentctl.dev "nope" not found' "$out"

out=$(ctl describe web)
check_match "describe name" "^Name: +web" "$out"
check_match "describe labels" "Labels: +team=web" "$out"
check_match "describe spec" "Command: +demo-agent" "$out"
check_match "describe status" "Phase: +Running" "$out"
check_match "describe resources" "agent +abc123 +agentctl-web-1234" "$out"
check_match "describe conditions" "BoundaryVerified +True" "$out"
check_match "describe events" "Normal +Started +[0-9]+d \(x3 over [0-9]+d\) +agent started" "$out"
out=$(ctl describe broken)
check_match "describe invalid" "Phase: +Invalid" "$out"

# logs and wait read what the controller records
printf 'hello\nworld\n' >"$S/.agentctl/output/web.log"
check_eq "logs" $'hello\nworld' "$(ctl logs web)"
rc=0; ctl wait web --for=phase=Running --timeout=2s >/dev/null || rc=$?
check_eq "wait: met" 0 "$rc"
rc=0; out=$(ctl wait web --for=phase=Succeeded --timeout=0.3s 2>&1) || rc=$?
check_eq "wait: timeout exit 1" 1 "$rc"
check_match "wait: timeout message" "timed out" "$out"
( sleep 0.5; printf '{"phase":"Succeeded"}' >"$S/.agentctl/status/web.tmp" &&
  mv "$S/.agentctl/status/web.tmp" "$S/.agentctl/status/web.json" ) &
rc=0; ctl wait web --for=phase=Succeeded --timeout=20s >/dev/null || rc=$?
check_eq "wait: met after a change" 0 "$rc"
wait
printf 'more\n' >>"$S/.agentctl/output/web.log"
check_eq "logs -f stops at a terminal phase" $'hello\nworld\nmore' "$(ctl logs -f web)"

# cancel rewrites the spec atomically
out=$(ctl cancel web)
check_eq "cancel" "agentinvocation.agentctl.dev/web cancelled" "$out"
check "cancel: true on disk" grep -q '^  cancel: true$' "$S/web.yaml"
check "cancelled spec validates" "$A" validate -f "$S/web.yaml"
check_match "generation advanced" $'\n  generation: 2\n' "$(ctl get web -o yaml)"

# delete
check_eq "delete" 'agentinvocation.agentctl.dev "api" deleted' "$(ctl delete api)"
check "file gone" test ! -e "$S/api.yaml"
# its (hand-made) status stays until a controller's cleanup removes it:
# Terminating, and deleted again it is done already, as in kubectl
check_match "deleted, its status kept: Terminating" $'\napi +Terminating ' "$(ctl get)"
check_eq "delete again while Terminating: deleted" 'agentinvocation.agentctl.dev "api" deleted' "$(ctl delete api)"
rm "$S/.agentctl/status/api.json" # what the cleanup's end does
rc=0; ctl delete api >/dev/null 2>&1 || rc=$?
check_eq "delete again once gone: not found" 1 "$rc"
{ spec one; echo '---'; spec two; } >"$S/pair.yaml"
rc=0; out=$(ctl delete one 2>&1) || rc=$?
check_eq "delete from a multi-document file: refused" 1 "$rc"
check_match "says why" "holds 2 documents" "$out"
check "pair.yaml untouched" test -e "$S/pair.yaml"
