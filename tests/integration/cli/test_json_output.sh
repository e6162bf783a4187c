#!/usr/bin/env bash
# test_json_output.sh - the machine-readable output of the GitOps steps:
# validate -o json, diff -o json, and apply --prune -o json whose stdout
# stays one parseable document (pruned lines on stderr). Exit codes are
# the same as without -o json.
source "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip "jq not installed"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
IN=$TEST_TMP/in
mkdir -p "$S" "$IN"
ctl() { "$A" --specs "$S" "$@"; }
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n  phase: %s\n' "$1" "$3"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: %s\n' "$2"
}
# rc_of CMD...: the exit status, output discarded.
rc_of() {
    local rc=0
    "$@" >/dev/null 2>&1 || rc=$?
    echo "$rc"
}

spec web 60 execute >"$IN/web.yaml"
spec api 60 review >"$IN/api.yaml"

# validate -o json: valid
out=$(ctl validate -o json -f "$IN")
check_eq "validate json: valid" true "$(jq -r .valid <<<"$out")"
check_eq "validate json: names per file" "api web" \
    "$(jq -r '[.files[].names[]] | join(" ")' <<<"$out")"
check_eq "validate json: no errors" 0 "$(jq '.errors | length' <<<"$out")"
check_eq "validate json: exit 0 when valid" 0 \
    "$(rc_of ctl validate -o json -f "$IN")"

# validate -o json: invalid (negative control: errors are listed)
spec bad 60 deploy >"$IN/bad.yaml"
rc=0
out=$(ctl validate -o json -f "$IN" 2>/dev/null) || rc=$?
check_eq "validate json: exit 1 when invalid" 1 "$rc"
check_eq "validate json: not valid" false "$(jq -r .valid <<<"$out")"
check_eq "validate json: the bad field with its place" \
    "$IN/bad.yaml:7:10:spec.phase" \
    "$(jq -r '.errors[] | "\(.file):\(.line):\(.column):\(.field)"' <<<"$out")"
check_eq "validate json: the bad file is marked" false \
    "$(jq -r '.files[] | select(.path|endswith("bad.yaml")) | .valid' <<<"$out")"
check_eq "validate -o yaml is a usage error" 2 \
    "$(rc_of ctl validate -o yaml -f "$IN")"
rm "$IN/bad.yaml"

# diff -o json: everything new
rc=0
out=$(ctl diff -o json -f "$IN") || rc=$?
check_eq "diff json: exit 1 when different" 1 "$rc"
check_eq "diff json: changed" true "$(jq -r .changed <<<"$out")"
check_eq "diff json: both created" "api:create web:create" \
    "$(jq -r '[.items[] | "\(.name):\(.action)"] | join(" ")' <<<"$out")"
check_match "diff json: carries the unified diff" '^--- live/web' \
    "$(jq -r '.items[] | select(.name=="web") | .diff' <<<"$out")"

ctl apply -f "$IN" >/dev/null
spec web 90 execute >"$IN/web.yaml"
rc=0
out=$(ctl diff -o json -f "$IN") || rc=$?
check_eq "diff json: one update" "api:none web:update" \
    "$(jq -r '[.items[] | "\(.name):\(.action)"] | join(" ")' <<<"$out")"
check_match "diff json: the changed line" $'\n\\+  deadlineSeconds: 90\n' \
    "$(jq -r '.items[] | select(.name=="web") | .diff' <<<"$out")"
check_eq "diff json: an unchanged item has no diff" null \
    "$(jq -c '.items[] | select(.name=="api") | .diff' <<<"$out")"
ctl apply -f "$IN" >/dev/null
rc=0
out=$(ctl diff -o json -f "$IN") || rc=$?
check_eq "diff json: exit 0 when the same" 0 "$rc"
check_eq "diff json: not changed" false "$(jq -r .changed <<<"$out")"
check_eq "diff -o yaml is a usage error" 2 "$(rc_of ctl diff -o yaml -f "$IN")"
check_eq "diff on a store that cannot be opened: 2, not 'different'" 2 \
    "$(rc_of "$A" --specs "$TEST_TMP/nowhere" diff -f "$IN")"

# apply --prune -o json: stdout is the applied resources only
rm "$IN/api.yaml"
out=$(ctl apply --prune --all -o json -f "$IN" 2>"$TEST_TMP/err")
check_eq "apply --prune -o json: stdout parses, the applied one" web \
    "$(jq -r .metadata.name <<<"$out")"
check_match "apply --prune -o json: the pruned line on stderr" \
    'agentinvocation.agentctl.dev/api pruned' "$(cat "$TEST_TMP/err")"
check "api was pruned" test ! -e "$S/api.yaml"
