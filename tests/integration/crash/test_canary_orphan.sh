#!/usr/bin/env bash
# test_canary_orphan.sh - a canary container created just before a
# controller crash, on an attempt that is no longer Running when the next
# controller starts (issue 34). The test-hooks controller kills itself
# right after Docker created the canary (created:canary: the name is in
# status.canaryPending, the ID never recorded); while no controller runs
# the invocation is cancelled. The next controller must find the canary by
# the recorded name, check it is this attempt's (labels, the recorded
# agent's namespace), remove it by ID at cleanup and leave nothing behind:
# no stand-in reported, canaryPending cleared.
#
# Negative control (test-hooks build, AGENTCTL_TEST_DISABLE=canary-cleanup:
# cleanup leaves the pending name alone, as before the fix): the sweep
# takes the orphan for a stand-in (StandInFound) and it stays on the
# daemon - the bug.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
echo "probeInterval: 2s" >>"$CONFIG"
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")

# orphan_of NAME: the canary container of NAME on the daemon (full ID)
orphan_of() {
    docker ps -aq --no-trunc --filter "label=agentctl.dev/uid=$(inv_uid "$1")" \
        --filter label=agentctl.dev/role=probe --filter "name=-canary"
}

# crashed NAME: NAME Running, the controller killed at created:canary,
# then NAME cancelled while no controller runs; echoes the orphan's ID
crashed() {
    apply_spec "$1" execute "${SLEEP[@]}"
    ctl_crash_at created:canary "$1" >&2
    actl cancel "$1" >/dev/null || fail "$1: cancel failed"
    orphan_of "$1"
}

# ev NAME REASON: the messages of NAME's events with REASON
ev() {
    jq -r --arg r "$2" 'select(.reason == $r) | .message' \
        "$STATE/events/$1.jsonl" 2>/dev/null
}

# ---- the fix: adopted by the recorded name, removed at cleanup ----
orphan=$(crashed gone)
check "gone: the killed controller left its canary (${orphan:0:12})" \
    test -n "$orphan"
check_match "gone: its name was recorded before the create" '-canary$' \
    "$(status_field gone .canaryPending)"
ctl_start
check_eq "gone: Cancelled" Cancelled "$(wait_terminal gone 120)"
check_no_objects "gone: nothing of it left" \
    "agentctl.dev/uid=$(inv_uid gone)" 120
check "gone: the orphan canary was removed" not quiet docker inspect "$orphan"
check_match "gone: an Adopted event names the canary" 'canary .* adopted' \
    "$(ev gone Adopted)"
check_eq "gone: no stand-in reported" "" "$(ev gone StandInFound)"
check_eq "gone: no stand-in recorded" "" "$(status_field gone '.standIns')"
check_eq "gone: canaryPending cleared" "" "$(status_field gone .canaryPending)"
check_eq "gone: cleanedUp" true "$(status_field gone .cleanedUp)"
ctl_stop

# ---- control: the pending name left to the sweep -> a stand-in, left ----
orphan=$(crashed ctrl)
check "ctrl: the killed controller left its canary" test -n "$orphan"
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=canary-cleanup ctl_start
check_eq "ctrl: Cancelled" Cancelled "$(wait_terminal ctrl 120)"
for _ in $(seq 1 240); do # until cleanup is over
    [ "$(status_field ctrl .cleanedUp)" == true ] && break
    sleep 0.25
done
check_match "ctrl: without the fix the sweep calls it a stand-in" \
    "${orphan:0:12}.*stand-in" "$(ev ctrl StandInFound)"
check "ctrl: without the fix the orphan stays on the daemon" \
    quiet docker inspect "$orphan"
docker rm -f "$orphan" >/dev/null 2>&1 || true
ctl_finish
echo "# $CHECKS checks passed"
