#!/usr/bin/env bash
# test_jsonschema.sh - the examples and the spec corpus checked against the
# CRD's openAPIV3Schema by an independent JSON-Schema validator (Debian's
# python3-jsonschema, hack/crd/validate-jsonschema.py), beside agentctl's
# own validator: every example and valid spec passes both; every invalid
# spec that the schema itself can refuse is refused by both, and the rest
# are listed below with where their rule lives. Negative controls: a
# mutated example is refused, and the validator finds a wrong bound.
source "$(dirname "$0")/../lib.sh"

VALIDATE=$ROOT/hack/crd/validate-jsonschema.py
CRD=$ROOT/crds/agentinvocations.agentctl.dev.yaml
AGENTCTL=$BUILD/cli/agentctl
/usr/bin/python3 -c 'import yaml, jsonschema' 2>/dev/null ||
    fail "python3-yaml and python3-jsonschema are needed (hack/setup.sh)"

mapfile -t examples < <(find "$ROOT/manifests/examples" -name '*.yaml' | sort)
check "there are examples (${#examples[@]})" test "${#examples[@]}" -ge 3
for f in "${examples[@]}" "$ROOT"/tests/specs/valid/*.yaml; do
    out=$("$VALIDATE" "$CRD" "$f") || fail "$f: $out"
    check "${f#"$ROOT"/}: valid for JSON Schema" true
    check "${f#"$ROOT"/}: valid for agentctl" \
        bash -c '"$1" validate -f "$2" >/dev/null 2>&1' _ "$AGENTCTL" "$f"
done

# Invalid specs whose rule a JSON-Schema validator cannot see, and why.
declare -A ELSEWHERE=(
    [anchor-alias.yaml]="agentctl's YAML reader refuses anchors"
    [duplicate-key.yaml]="duplicate keys: refused by agentctl's YAML reader and the API server's strict decoding"
    [empty-document.yaml]="an empty document: agentctl's input rule"
    [empty-file.yaml]="a file with no document: agentctl's input rule"
    [missing-name.yaml]="metadata is ObjectMeta: the API server requires the name itself"
    [quantity-overflow.yaml]="the CRD's CEL rule (quantity is too large)"
    [reserved-env-key.yaml]="the CRD's CEL rule on env keys"
    [quantity-below-minimum.yaml]="the CRD's CEL rule on the string form's value"
    [runner-with-command.yaml]="the CRD's CEL rule on runner"
    [deadline-leading-zero.yaml]="agentctl's input rule: 060 is ambiguous (kubectl reads octal)"
)
for f in "$ROOT"/tests/specs/invalid/*.yaml; do
    b=$(basename "$f") rc=0
    out=$("$VALIDATE" "$CRD" "$f") || rc=$?
    if [ -n "${ELSEWHERE[$b]:-}" ]; then
        check_eq "$b: passes JSON Schema (${ELSEWHERE[$b]})" 0 "$rc"
    else
        check "$b: refused by JSON Schema" test "$rc" -ne 0
    fi
done

# Negative controls: a broken example is refused, with the field named.
bad=$TEST_TMP/bad.yaml
sed 's/^\(\s*deadlineSeconds:\).*/\1 0/' "$ROOT/manifests/examples/demo.yaml" >"$bad"
rc=0
out=$("$VALIDATE" "$CRD" "$bad") || rc=$?
check_eq "control: deadlineSeconds 0 refused" 1 "$rc"
check_match "control: names the field" 'spec.deadlineSeconds: 0 is less than the minimum' "$out"
sed 's/memory: 2Gi/memory: lots/' "$ROOT/tests/specs/valid/full.yaml" >"$bad"
rc=0
out=$("$VALIDATE" "$CRD" "$bad") || rc=$?
check_eq "control: memory 'lots' refused" 1 "$rc"
printf '  colour: red\n' >>"$bad"
out=$("$VALIDATE" "$CRD" "$bad") || true
check_match "control: an unknown spec field is refused" "'colour' was unexpected" "$out"
sed 's/minimum: 8388608/minimum: 99999999999/' "$CRD" >"$TEST_TMP/crd.yaml"
rc=0
"$VALIDATE" "$TEST_TMP/crd.yaml" "$ROOT/tests/specs/valid/integer-quantities.yaml" >/dev/null || rc=$?
check_eq "control: a raised memory minimum refuses integer-quantities.yaml" 1 "$rc"
