#!/usr/bin/env bash
# test_structural.sh - the CRD in crds/ is a structural schema an API
# server admits: hack/crd/check-structural.py applies the published
# apiextensions-apiserver rules to it. Negative controls: the CRD as it was
# before it was made structural (tests/crd/not-structural.yaml, 15
# violations) and one mutation per rule, each refused with the API
# server's message.
source "$(dirname "$0")/../lib.sh"

CHECK=$ROOT/hack/crd/check-structural.py
CRD=$ROOT/crds/agentinvocations.agentctl.dev.yaml
/usr/bin/python3 -c 'import yaml, jsonschema' 2>/dev/null ||
    fail "python3-yaml and python3-jsonschema are needed (hack/setup.sh)"

out=$("$CHECK" "$CRD") || fail "the CRD is refused: $out"
check_match "crds/ is structural" "structural, admitted" "$out"

rc=0
out=$("$CHECK" "$ROOT/tests/crd/not-structural.yaml") || rc=$?
check_eq "control: the old CRD is refused" 1 "$rc"
check_match "control: 15 violations" "refused: 15 errors" "$out"
check_match "control: typed anyOf branch" \
    'properties\[memory\]\.anyOf\[0\]\.type: Forbidden: must be empty to be structural' "$out"
check_match "control: root metadata required" \
    'properties\[metadata\]: Forbidden: must not specify anything other than name and generateName' "$out"

# mutate NAME PYTHON MESSAGE: apply PYTHON to the CRD (as `crd`, `s` is the
# openAPIV3Schema) and expect MESSAGE among the refusals.
mutate() {
    local name=$1 code=$2 want=$3 f=$TEST_TMP/$1.yaml rc=0
    /usr/bin/python3 - "$CRD" "$f" <<PY
import sys, yaml
crd = yaml.safe_load(open(sys.argv[1]))
s = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
spec = s["properties"]["spec"]["properties"]
$code
yaml.safe_dump(crd, open(sys.argv[2], "w"))
PY
    out=$("$CHECK" "$f") || rc=$?
    check_eq "control $name: refused" 1 "$rc"
    check "control $name: says $want" grep -qF -- "$want" <<<"$out"
}

mutate typed-any-of 'spec["resources"]["properties"]["pids"]["anyOf"] = [{"type": "integer", "minimum": 8}, {"type": "string"}]' \
    'properties[pids].anyOf[0].type: Forbidden: must be empty to be structural'
mutate description-in-any-of 'spec["output"]["properties"]["maxBytes"]["anyOf"][0]["description"] = "x"' \
    'anyOf[0].description: Forbidden: must be empty to be structural'
mutate metadata-required 's["properties"]["metadata"]["required"] = ["name"]' \
    'properties[metadata]: Forbidden: must not specify anything other than name and generateName'
mutate metadata-labels 's["properties"]["metadata"]["properties"]["labels"] = {"type": "object"}' \
    'properties[metadata]: Forbidden'
mutate root-additional 's["additionalProperties"] = {"type": "string"}' \
    'openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root'
mutate array-no-items 'del spec["command"]["items"]' \
    'properties[command].items: Required value: must be specified'
mutate field-no-type 'del spec["vendor"]["type"]' \
    'properties[vendor].type: Required value: must not be empty for specified object fields'
mutate incomplete 'spec["env"]["anyOf"] = [{"properties": {"nope": {"minLength": 1}}}]' \
    'properties[env].properties[nope]: Required value: because it is defined in'
mutate nested-cel 'spec["env"]["anyOf"] = [{"x-kubernetes-validations": [{"rule": "true"}]}]' \
    'anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural'
mutate rule-missing 'spec["env"]["x-kubernetes-validations"].append({"message": "m"})' \
    'x-kubernetes-validations[2].rule: Required value: rule is not specified'
mutate bad-default 'spec["resources"]["properties"]["pids"]["default"] = 1' \
    'properties[pids].default: Invalid value'
mutate format-on-quantity 'spec["output"]["properties"]["maxBytes"]["format"] = "quantity"' \
    'properties[maxBytes].default: Invalid value: "int64": in body must be of type quantity'
mutate unknown-key 'spec["vendor"]["x-agentctl-note"] = "x"' \
    'unknown field "x-agentctl-note"'
mutate bad-scope 'crd["spec"]["scope"] = "Global"' \
    'spec.scope: Unsupported value'
mutate bad-column 'crd["spec"]["versions"][0]["additionalPrinterColumns"][0]["type"] = "text"' \
    'additionalPrinterColumns[0].type: Invalid value'

# The shape agentctl relies on: no namespaces, wide columns at priority 1.
check_eq "scope is Cluster" Cluster "$(/usr/bin/python3 -c '
import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["scope"])' "$CRD")"
check_eq "-o wide columns have priority 1" "Vendor Image Controller" "$(/usr/bin/python3 -c '
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))["spec"]["versions"][0]["additionalPrinterColumns"]
print(" ".join(x["name"] for x in c if x.get("priority") == 1))' "$CRD")"


# The API server's own validation code, when hack/crd/apiserver-check.sh
# --build has made $BUILD/crdcheck (Debian's kubernetes 1.20 source): the
# same verdicts, and one our checker alone would miss (an integer default
# under an unknown format).
APICHECK=$ROOT/hack/crd/apiserver-check.sh
if [ -x "$BUILD/crdcheck" ]; then
    out=$(AGENTCTL_BUILD=$BUILD "$APICHECK" "$CRD") || fail "API server check: $out"
    check_match "API server code: crds/ admitted" "admitted by ValidateCustomResourceDefinition" "$out"
    rc=0; out=$(AGENTCTL_BUILD=$BUILD "$APICHECK" "$ROOT/tests/crd/not-structural.yaml") || rc=$?
    check_eq "API server code, control: the old CRD refused" 1 "$rc"
    check_match "API server code, control: 15 errors" "refused: 15 errors" "$out"
    /usr/bin/python3 - "$CRD" "$TEST_TMP/fmt.yaml" <<'PY'
import sys, yaml
crd = yaml.safe_load(open(sys.argv[1]))
s = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
s["output"]["properties"]["maxBytes"]["format"] = "quantity"
yaml.safe_dump(crd, open(sys.argv[2], "w"))
PY
    rc=0; out=$(AGENTCTL_BUILD=$BUILD "$APICHECK" "$TEST_TMP/fmt.yaml") || rc=$?
    check_eq "API server code, control: a format on an int-or-string refused" 1 "$rc"
else
    echo "# $BUILD/crdcheck not built: API-server check skipped (hack/crd/apiserver-check.sh --build)"
fi
