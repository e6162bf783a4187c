#!/usr/bin/env bash
# test_spec_changes.sh - what a running attempt does when its spec changes:
#  - a changed spec (env) after capture is not applied: Warning event
#    SpecFrozen, the same agent keeps running;
#  - an invalid file is reported (condition Valid=False with
#    file:line:col) and never stops or alters the running attempt;
#  - a new attempt ID supersedes the running attempt (its objects go, the
#    new attempt runs and Succeeds), and a used attempt ID never runs again.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

LONG=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")
apply_spec frozen execute "${LONG[@]}" "attempt: a1"
wait_phase frozen Running 240
agent=$(object_of frozen agent)
check_match "frozen: agent container found" '^[0-9a-f]{64}$' "$agent"

# 1. a valid change after capture
apply_spec frozen execute "${LONG[@]}" "attempt: a1" "env: {CHANGED: \"yes\"}"
for i in $(seq 1 60); do
    grep -q SpecFrozen "$STATE/events/frozen.jsonl" 2>/dev/null && break
    sleep 0.5
done
check_match "frozen: Warning event SpecFrozen" '"type":"Warning"' \
    "$(grep SpecFrozen "$STATE/events/frozen.jsonl" 2>/dev/null | head -1 |
        jq -c '{type}' 2>/dev/null)"
sleep 2 # a couple of resyncs
check_eq "frozen: still Running" Running "$(status_field frozen .phase)"
check_eq "frozen: the same agent container runs" true \
    "$(docker inspect -f '{{.State.Running}}' "$agent" 2>/dev/null)"
check "frozen: the change did not reach the agent" not grep -q CHANGED= \
    <<<"$(docker inspect -f '{{json .Config.Env}}' "$agent")"

# 2. an invalid file (written by hand: agentctl would refuse it)
spec=$(grep -l 'name: frozen$' "$SPECS"/*.yaml | head -1)
check "frozen: its spec file is in the specs dir" test -f "$spec"
cp "$spec" "$TEST_TMP/frozen.good"
sed 's/^  phase: execute$/  phase: deploy/' "$TEST_TMP/frozen.good" \
    >"$SPECS/.frozen.tmp"
mv "$SPECS/.frozen.tmp" "$spec"
for i in $(seq 1 60); do
    [ "$(condition_field frozen Valid status)" == False ] && break
    sleep 0.5
done
check_eq "frozen: condition Valid=False" False \
    "$(condition_field frozen Valid status)"
check_match "frozen: the message points at file:line:col" \
    "$(basename "$spec"):[0-9]+:[0-9]+" "$(condition_field frozen Valid message)"
sleep 2
check_eq "frozen: still Running with an invalid file" Running \
    "$(status_field frozen .phase)"
check_eq "frozen: the same agent container still runs" true \
    "$(docker inspect -f '{{.State.Running}}' "$agent" 2>/dev/null)"
cp "$TEST_TMP/frozen.good" "$SPECS/.frozen.tmp"
mv "$SPECS/.frozen.tmp" "$spec"
for i in $(seq 1 60); do
    [ "$(condition_field frozen Valid status)" == True ] && break
    sleep 0.5
done
check_eq "frozen: Valid=True again once the file is fixed" True \
    "$(condition_field frozen Valid status)"

# 3. a new attempt ID supersedes the running one
apply_spec frozen execute "command: [/demo-agent]" "attempt: a2"
check_no_objects "frozen: attempt a1's objects are gone" \
    "$MANAGED agentctl.dev/attempt=a1" 120
wait_phase frozen Succeeded 240
check_eq "frozen: the status is attempt a2's" a2 \
    "$(status_field frozen .attempt)"
check "frozen: an event says a1 was superseded" \
    grep -qi superseded "$STATE/events/frozen.jsonl"

# 4. a used attempt ID never runs again
apply_spec frozen execute "command: [/demo-agent]" "attempt: a1"
sleep 3 # a few resyncs
check_eq "frozen: no object for the reused attempt a1" "" \
    "$(labelled_objects "$MANAGED agentctl.dev/attempt=a1")"
check "frozen: a1 did not run again (phase not Running/Preparing)" \
    not grep -qE '^(Running|Preparing)$' <<<"$(status_field frozen .phase)"
ctl_finish
