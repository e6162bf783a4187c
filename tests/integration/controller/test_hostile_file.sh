#!/usr/bin/env bash
# test_hostile_file.sh - a hostile ~1 MiB file in the specs directory (21
# documents of a 9,999-key flow mapping: each within the per-document
# node budget, together far over the per-file one) is reported invalid
# with its one file:line:col error, and an invocation applied beside it
# still converges. Asserts results, not times (the cost is in
# hack/bench/parse/run.sh). Negative control: the parser whose budget
# reset at `---` reports a different first error (a missing apiVersion),
# which the exact match below refuses.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

bash "$ROOT/tests/specs/hostile/make.sh" "$TEST_TMP/hostile"
cp "$TEST_TMP/hostile/docs-21x9999-keys.yaml" "$SPECS/hostile.yaml"
ctl_start

apply_spec web execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"echo converged-beside-hostile\"]"
wait_phase web Succeeded 300
check_match "web: its own output" "^converged-beside-hostile$" \
    "$(agent_output web)"

out=$(actl get 2>&1)
check_match "the hostile file is listed as Invalid" $'(^|\n)hostile +Invalid ' "$out"
check_match "web is listed as Succeeded" $'(^|\n)web +Succeeded ' "$out"
rc=0
out=$(actl validate -f "$SPECS/hostile.yaml" 2>&1) || rc=$?
check_eq "validate: invalid" 1 "$rc"
check_eq "validate: the one error" \
    "$SPECS/hostile.yaml:7:1: file has too many nodes (limit 100000 in all its documents)" \
    "$(grep -v '^1 file(s): ' <<<"$out")"
ctl_finish
