#!/usr/bin/env bash
# test_concurrent_apply.sh - two applies of different content to the same
# name, 20 rounds in parallel: the file always parses and equals what one
# of the two inputs produces; no temp files are left behind.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
mkdir -p "$S" "$TEST_TMP/x.in" "$TEST_TMP/y.in" "$TEST_TMP/x.out" "$TEST_TMP/y.out"
for v in x y; do
    d=$([ $v = x ] && echo 100 || echo 200)
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: race\nspec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent, %s]\n  deadlineSeconds: %s\n' $v $d >"$TEST_TMP/$v.in/race.yaml"
    # what apply writes for each input alone
    "$A" --specs "$TEST_TMP/$v.out" apply -f "$TEST_TMP/$v.in/race.yaml" >/dev/null
done
sx=$(sha256sum <"$TEST_TMP/x.out/race.yaml")
sy=$(sha256sum <"$TEST_TMP/y.out/race.yaml")
check "the two inputs differ" test "$sx" != "$sy"

for round in $(seq 20); do
    pids=()
    for v in x y x y; do
        "$A" --specs "$S" apply -f "$TEST_TMP/$v.in/race.yaml" >/dev/null 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || fail "round $round: an apply failed"; done
    s=$(sha256sum <"$S/race.yaml")
    [ "$s" = "$sx" ] || [ "$s" = "$sy" ] || fail "round $round: mixed file"
    "$A" validate -f "$S/race.yaml" >/dev/null || fail "round $round: does not parse"
done
check "20 rounds: always one whole input" true
check_eq "no temp files" "" "$(find "$S" -maxdepth 1 -name '.*tmp*')"
