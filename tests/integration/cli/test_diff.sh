#!/usr/bin/env bash
# test_diff.sh - agentctl diff: 0 same, 1 different (with a unified diff
# of the canonical YAML), 2 on errors such as invalid input.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
mkdir -p "$S"
ctl() { "$A" --specs "$S" "$@"; }
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n  phase: execute\n' "$1"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: %s\n' "$2"
}

spec web 60 >"$TEST_TMP/web.yaml"
rc=0
out=$(ctl diff -f "$TEST_TMP/web.yaml") || rc=$?
check_eq "new resource: differs" 1 "$rc"
check_match "new resource: all lines added" $'\\+\\+\\+ input/web\n@@ -0,0 \\+1,[0-9]+ @@\n\\+apiVersion' "$out"

ctl apply -f "$TEST_TMP/web.yaml" >/dev/null
rc=0
out=$(ctl diff -f "$TEST_TMP/web.yaml") || rc=$?
check_eq "same: exit 0" 0 "$rc"
check_eq "same: no output" "" "$out"

spec web 90 >"$TEST_TMP/web.yaml"
rc=0
out=$(ctl diff -f "$TEST_TMP/web.yaml") || rc=$?
check_eq "changed: exit 1" 1 "$rc"
check_match "header" $'--- live/web\n\\+\\+\\+ input/web' "$out"
check_match "old line" $'\n-  deadlineSeconds: 60\n' "$out"
check_match "new line" $'\n\\+  deadlineSeconds: 90' "$out"
check_eq "only the changed line differs" 2 "$(grep -c '^[-+] ' <<<"$out")"
check "diff changed nothing" grep -q 'deadlineSeconds: 60' "$S/web.yaml"

spec web 0 >"$TEST_TMP/bad.yaml"
rc=0
ctl diff -f "$TEST_TMP/bad.yaml" >/dev/null 2>&1 || rc=$?
check_eq "invalid input: exit 2" 2 "$rc"
rc=0
ctl diff -f "$TEST_TMP/missing.yaml" >/dev/null 2>&1 || rc=$?
check_eq "missing input: exit 2" 2 "$rc"
rc=0
ctl diff >/dev/null 2>&1 || rc=$?
check_eq "no -f: exit 2" 2 "$rc"
