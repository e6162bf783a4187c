#!/usr/bin/env bash
# test_big_input.sh - validate and apply -f of an input over 1 MiB made of
# many small documents (a generated file of 10,000 specs, 2.4 MB): each
# document is bounded as a file of the watched directory (1 MiB, the node
# budgets), the whole input by 64 MiB and 100,000 documents. Errors name
# the line in the whole input, a name twice is found across documents,
# and stdin is read the same way; 100,000 documents, the limit, are read.
# Negative controls: one document over 1 MiB, more than 100,000
# documents, and stdin over 64 MiB are refused (stdin over the limit was
# silently cut at 1 MiB and checked as if whole).
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
B=$TEST_TMP/big.yaml
mkdir -p "$S"
# gen N [BAD]: N specs of 12 lines each (spec i starts at line 12*i+1);
# spec BAD gets deadlineSeconds: -1 (on its 12th line)
gen() {
    awk -v n="$1" -v bad="${2:--1}" 'BEGIN { for (i = 0; i < n; i++) {
        printf "---\napiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
        printf "metadata:\n  name: run-%05d\n  labels: {batch: gen}\nspec:\n", i
        printf "  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n"
        printf "  command: [demo-agent, --write-work]\n  deadlineSeconds: %d\n", i == bad ? -1 : 60
    } }'
}
gen 10000 >"$B"
check "the input is over 1 MiB" test "$(stat -c %s "$B")" -gt 1048576
check_eq "validate -f of 10,000 specs" "1 file(s), 10000 document(s): valid" "$("$A" validate -f "$B")"
check_eq "validate -f - (stdin) of the same" "1 file(s), 10000 document(s): valid" "$("$A" validate -f - <"$B")"
out=$("$A" --specs "$S" apply -f "$B")
check_eq "apply -f creates all 10,000" 10000 "$(grep -c ' created$' <<<"$out")"
check_eq "all 10,000 are stored" 10000 "$(find "$S" -maxdepth 1 -name 'run-*.yaml' | wc -l)"
check_eq "a second apply: all unchanged" 10000 "$("$A" --specs "$S" apply -f "$B" | grep -c ' unchanged$')"

# errors name the line of the whole input
gen 10000 7000 >"$TEST_TMP/bad.yaml"
rc=0; out=$("$A" validate -f "$TEST_TMP/bad.yaml" 2>&1) || rc=$?
check_eq "one invalid document of 10,000: exit 1" 1 "$rc"
check_match "its error is at its line in the input (12*7000+12)" "bad.yaml:84012:20: spec.deadlineSeconds: " "$out"
rc=0; "$A" --specs "$S" apply -f "$TEST_TMP/bad.yaml" >/dev/null 2>&1 || rc=$?
check_eq "apply of it writes nothing, exit 1" 1 "$rc"
{ gen 9000; gen 1; } >"$TEST_TMP/dup.yaml"
rc=0; out=$("$A" validate -f "$TEST_TMP/dup.yaml" 2>&1) || rc=$?
check_match "a name twice across documents is found" 'dup.yaml:108001:1: metadata.name: duplicate name "run-00000" \(also at line 1\)' "$out"

# the document limit itself: 100,000 specs (17 MB) are read, names
# checked for duplicates by sorting (pairwise was 5 * 10^9 strcmp)
gen 100000 >"$TEST_TMP/limit.yaml"
rc=0; out=$(timeout 60 "$A" validate -f "$TEST_TMP/limit.yaml" 2>&1) || rc=$?
check_eq "100,000 documents: valid, within 60 s" "0 1 file(s), 100000 document(s): valid" "$rc $out"

# controls: a document over 1 MiB, too many documents, stdin over 64 MiB
{ gen 100; printf -- '---\n# %s\n' "$(head -c 1100000 /dev/zero | tr '\0' x)"; gen 1; } >"$TEST_TMP/fat.yaml"
rc=0; out=$("$A" validate -f "$TEST_TMP/fat.yaml" 2>&1) || rc=$?
check_eq "control: a document over 1 MiB: exit 1" 1 "$rc"
check_match "control: it is named at its line" "fat.yaml:1201:1: document is [0-9]+ bytes, over the 1 MiB limit" "$out"
awk 'BEGIN { for (i = 0; i < 300000; i++) print "---" }' >"$TEST_TMP/many.yaml"
rc=0; out=$("$A" validate -f "$TEST_TMP/many.yaml" 2>&1) || rc=$?
check_eq "control: 300,000 documents: exit 1" 1 "$rc"
check_match "control: the document limit is named" "many.yaml:100001:1: input has more than 100000 documents" "$out"
rc=0; out=$(head -c 70000000 /dev/zero | tr '\0' '#' | "$A" validate -f - 2>&1) || rc=$?
check_eq "control: stdin over 64 MiB: exit 1" 1 "$rc"
check_match "control: the input limit is named" "<stdin>: input is over the 64 MiB limit" "$out"
