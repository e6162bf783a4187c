#!/usr/bin/env bash
# test_get_sort.sh - get --sort-by=JSONPATH (kubectl's: the field's value,
# numbers numerically, strings lexically, items without the field first,
# ties in the listing's order; -o name and the table alike) and
# --field-selector on metadata.name and status.phase (=, ==, !=, comma =
# and; the phase is the PHASE column's: Pending before a status, Invalid).
# Negative controls: numbers are not sorted as strings (20 < 100 < 300),
# an unsupported field is a usage error naming the supported ones, a
# malformed selector or a path with a wildcard is a usage error.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
mkdir -p "$S/.agentctl/status"
ctl() { "$A" --specs "$S" "$@"; }
names() { ctl get -o name "$@" | sed 's|^agentinvocation.agentctl.dev/||' | paste -sd' '; }
spec() { # NAME DEADLINE [EXTRA]
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: %s\n' "$1"
    printf 'spec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n'
    printf '  command: [demo-agent]\n  deadlineSeconds: %s\n%b' "$2" "${3:-}"
}
spec a 300 >"$S/a.yaml"
spec b 20 >"$S/b.yaml"
spec c 100 >"$S/c.yaml"
spec d 100 >"$S/d.yaml"
printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: zz\nspec: {}\n' >"$S/zz.yaml"
printf '{"phase":"Running"}' >"$S/.agentctl/status/c.json"
printf '{"phase":"Failed","exitCode":3}' >"$S/.agentctl/status/b.json"
printf '{"phase":"Succeeded","exitCode":0}' >"$S/.agentctl/status/d.json"

check_eq "--sort-by a number: numerically, ties in name order; zz (invalid) has none" "zz b c d a" \
    "$(names --sort-by=.spec.deadlineSeconds)"
check_eq "control: 20 < 100 < 300, not 100 < 20 < 300" "b" "$(names --sort-by=.spec.deadlineSeconds | cut -d' ' -f2)"
check_eq "--sort-by a string: lexically; without the field first" "a zz b c d" \
    "$(names --sort-by='{.status.phase}')"
check_eq "--sort-by exitCode: those without it first, then 0 < 3" "a c zz d b" \
    "$(names --sort-by=status.exitCode)"
check_eq "--sort-by an index" "zz a b c d" "$(names --sort-by=.spec.command[0])"
out=$(ctl get --sort-by=.spec.deadlineSeconds --no-headers | awk '{print $1}' | paste -sd' ')
check_eq "the table is sorted too (the invalid one has no field: first)" "zz b c d a" "$out"
rc=0; out=$(ctl get --sort-by='{.items[*].x}' 2>&1) || rc=$?
check_eq "control: a wildcard path: usage" 2 "$rc"
check_match "control: says it wants a field path" "couldn't parse --sort-by" "$out"

check_eq "--field-selector metadata.name=" "c" "$(names --field-selector metadata.name=c)"
check_eq "--field-selector status.phase==" "b" "$(names --field-selector status.phase==Failed)"
check_eq "status.phase=Pending: no status yet" "a" "$(names --field-selector status.phase=Pending)"
check_eq "status.phase=Invalid: the file that does not validate" "zz" "$(names --field-selector status.phase=Invalid)"
check_eq "!= and a comma (and)" "c d" "$(names --field-selector 'status.phase!=Pending,status.phase!=Failed,metadata.name!=zz')"
check_eq "with -l: both hold" "" "$(names -l team=none --field-selector metadata.name=c 2>/dev/null)"
rc=0; out=$(ctl get --field-selector metadata.name=nope 2>&1) || rc=$?
check_eq "nothing matches: exit 0" 0 "$rc"
check_eq "nothing matches: kubectl's line" "No resources found" "$out"
check_eq "with --sort-by: filtered, then sorted" "b c d a" "$(names --field-selector status.phase!=Invalid --sort-by=.spec.deadlineSeconds)"
rc=0; out=$(ctl get --field-selector spec.vendor=fake 2>&1) || rc=$?
check_eq "control: an unsupported field: usage" 2 "$rc"
check_match "control: names the supported fields" "field label not supported: spec.vendor \(supported: metadata.name, status.phase\)" "$out"
rc=0; out=$(ctl get --field-selector metadata.name 2>&1) || rc=$?
check_eq "control: no operator: usage" 2 "$rc"
check_match "control: says what it expects" 'invalid field selector "metadata.name"' "$out"
rc=0; ctl get pool --sort-by=.metadata.name >/dev/null 2>&1 || rc=$?
check_eq "control: not for get pool" 2 "$rc"
