#!/usr/bin/env bash
# test_get_watch.sh - get -w prints a deleted invocation once more, as
# last seen, as kubectl -w prints a deleted object (without
# --output-watch-events, which agentctl does not have): the row, or the
# name with -o name; get -w NAME keeps watching quietly once NAME is gone
# (no NotFound every poll); with --field-selector, one that leaves the
# selection is printed once more too. Negative controls: an invocation
# that did not change is printed once, and a deleted one only once.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
mkdir -p "$S/.agentctl/status"
ctl() { "$A" --specs "$S" "$@"; }
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: %s\n' "$1"
    printf 'spec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n'
    printf '  command: [demo-agent]\n  deadlineSeconds: 60\n'
}
for n in x y z; do echo ---; spec $n; done >"$TEST_TMP/in.yaml"
ctl apply -f "$TEST_TMP/in.yaml" >/dev/null
printf '{"phase":"Running"}' >"$S/.agentctl/status/x.json"
# wait_lines FILE N: until FILE has N lines (10 s at most)
wait_lines() {
    for _ in $(seq 100); do [ "$(wc -l <"$1")" -ge "$2" ] && return 0; sleep 0.1; done
    return 1
}

ctl get -w --no-headers >"$TEST_TMP/all" 2>&1 &
w=$!
on_cleanup "kill $w 2>/dev/null || true"
wait_lines "$TEST_TMP/all" 3 || true
ctl delete x >/dev/null
# its status stays until a controller's cleanup removes it: Terminating
# (no controller here: the test removes it, as the cleanup's end does)
wait_lines "$TEST_TMP/all" 4 || true
rm "$S/.agentctl/status/x.json"
wait_lines "$TEST_TMP/all" 5 || true
sleep 0.6 # two more polls: a deletion is printed once
kill "$w"; wait "$w" || true
check_eq "-w: the three rows, then two more" 5 "$(wc -l <"$TEST_TMP/all")"
check_match "-w: deleted, its cleanup pending: Terminating" "^x +Terminating " "$(sed -n 4p "$TEST_TMP/all")"
check_match "-w: gone: the row once more, as last seen" "^x +Terminating " "$(sed -n 5p "$TEST_TMP/all")"
check_eq "control: y, unchanged, printed once" 1 "$(grep -c '^y ' "$TEST_TMP/all")"
check_eq "control: x printed three times (listed, Terminating, gone), not once per poll" 3 "$(grep -c '^x ' "$TEST_TMP/all")"

ctl get -w y -o name >"$TEST_TMP/named" 2>"$TEST_TMP/named.err" &
w=$!
on_cleanup "kill $w 2>/dev/null || true"
wait_lines "$TEST_TMP/named" 1 || true
ctl delete y >/dev/null
wait_lines "$TEST_TMP/named" 2 || true
sleep 0.6
kill "$w"; wait "$w" || true
check_eq "-w NAME -o name: the name again when it is deleted" \
    "$(printf 'agentinvocation.agentctl.dev/y\nagentinvocation.agentctl.dev/y')" "$(cat "$TEST_TMP/named")"
check_eq "-w NAME: no NotFound once it is gone" "" "$(cat "$TEST_TMP/named.err")"

ctl get -w --no-headers --field-selector status.phase=Pending >"$TEST_TMP/sel" 2>&1 &
w=$!
on_cleanup "kill $w 2>/dev/null || true"
wait_lines "$TEST_TMP/sel" 1 || true
printf '{"phase":"Running"}' >"$S/.agentctl/status/z.json"
wait_lines "$TEST_TMP/sel" 2 || true
kill "$w"; wait "$w" || true
check_match "--field-selector: first the Pending one" "^z +Pending " "$(sed -n 1p "$TEST_TMP/sel")"
check_match "--field-selector: printed once more when it leaves the selection" "^z +Running " "$(sed -n 2p "$TEST_TMP/sel")"
