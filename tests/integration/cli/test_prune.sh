#!/usr/bin/env bash
# test_prune.sh - apply --prune removes only what an earlier apply wrote
# and the input no longer has: never a hand-dropped file, never a file
# edited since apply wrote it.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
IN=$TEST_TMP/in
mkdir -p "$S" "$IN"
ctl() { "$A" --specs "$S" "$@"; }
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n  phase: execute\n' "$1"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: %s\n' "${2:-60}"
}

for n in a b c d; do spec $n >"$IN/$n.yaml"; done
ctl apply -f "$IN" >/dev/null
spec manual >"$S/manual.yaml"              # dropped in by hand
spec edited 5 >"$IN/edited.yaml"
ctl apply -f "$IN/edited.yaml" >/dev/null
sed -i 's/deadlineSeconds: 5/deadlineSeconds: 7/' "$S/edited.yaml" # hand edit

rm "$IN/b.yaml" "$IN/c.yaml" "$IN/edited.yaml"
out=$(ctl apply --prune --all --dry-run -f "$IN" 2>&1)
check_match "dry run names b" "b pruned \(dry run\)" "$out"
check "dry run removed nothing" test -e "$S/b.yaml" -a -e "$S/c.yaml"

out=$(ctl apply --prune --all -f "$IN" 2>"$TEST_TMP/err")
check_match "b pruned" "agentinvocation.agentctl.dev/b pruned" "$out"
check_match "c pruned" "agentinvocation.agentctl.dev/c pruned" "$out"
check "b and c removed" test ! -e "$S/b.yaml" -a ! -e "$S/c.yaml"
check "a and d kept" test -e "$S/a.yaml" -a -e "$S/d.yaml"
check "hand-dropped file kept" test -e "$S/manual.yaml"
check "hand-edited file kept" grep -q 'deadlineSeconds: 7' "$S/edited.yaml"
check_match "hand edit is warned about" 'not pruning "edited"' "$(cat "$TEST_TMP/err")"
check "manual never mentioned" bash -c "! grep -q manual <<<'$out'"

# Negative control: without --prune nothing is removed.
rm "$IN/d.yaml"
ctl apply -f "$IN" >/dev/null
check "without --prune d stays" test -e "$S/d.yaml"
# A cancel (a rewrite by agentctl) keeps the file prunable.
ctl cancel d >/dev/null
out=$(ctl apply --prune --all -f "$IN")
check_match "cancelled spec still pruned" "d pruned" "$out"
