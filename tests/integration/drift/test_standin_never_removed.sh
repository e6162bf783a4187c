#!/usr/bin/env bash
# test_standin_never_removed.sh - a stand-in that copied the labels is never
# removed: the proxy is removed and recreated under its name with identical
# labels and attributes while the agent runs. The attempt fails closed, and
# then cleanup's sweep of unrecorded containers and garbage collection must
# leave the stand-in alone: labels stand only for a create whose ID never
# came back, and the proxy's create answered (status.progress.proxyCreated).
#
# The revalidation notes a stand-in it finds behind the recorded proxy's
# name (container.id) and nothing removes one it noted. The hole was the
# other order: a rule that reads the network first (network.endpoint-extra
# or -missing) fails the attempt before the proxy's name is inspected, and
# the sweep took the unnoted stand-in for a lost create of ours. So both
# runs switch container.id off (AGENTCTL_TEST_DISABLE_DRIFT_RULES): only
# the network's rules see the swap, as in that order.
#
#  - protected: Failed, boundary-drift, a Warning StandInFound from the
#    sweep naming the stand-in, no UnrecordedRemoved, the stand-in still
#    there after the volumes are gone and three resyncs (garbage
#    collection) ran;
#  - negative control: the same with the sweep's check switched off
#    (AGENTCTL_TEST_DISABLE=standin-sweep): the stand-in is removed
#    (UnrecordedRemoved names it), so the protected run's checks would fail.
#
# The stand-in holds the internal network (it is attached), so the
# network's removal waits until the test removes the stand-in by its ID.
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/lib_drift.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
on_cleanup remove_standins
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")

events() { # NAME REASON: the messages of NAME's events with that reason
    jq -r --arg r "$2" 'select(.reason == $r) | "\(.type): \(.message)"' \
        "$STATE/events/$1.jsonl" 2>/dev/null || true
}

# run_case NAME: start, swap the proxy for an identical stand-in while the
# controller is stopped (it sees only the end state), fail closed, wait
# until the sweep and the volumes are past (the network waits for the
# stand-in). Sets twin to the stand-in's ID.
run_case() {
    local n=$1 uid rule
    apply_spec "$n" execute "${SLEEP[@]}"
    wait_phase "$n" Running 240
    kill -STOP "$CTL_PID"
    mut_proxy_twin "$n" || fail "$n: the stand-in could not be made"
    kill -CONT "$CTL_PID"
    twin=$(tail -n 1 "$DRIFT_STANDINS")
    [ -n "$twin" ] || fail "$n: no stand-in recorded"
    echo "# $n: stand-in proxy ${twin:0:12}"
    check_eq "$n: Failed" Failed "$(wait_terminal "$n" 120)"
    check_eq "$n: stopReason boundary-drift" boundary-drift \
        "$(status_field "$n" .stopReason)"
    rule=$(condition_field "$n" Drifted reason)
    echo "# $n: Drifted $rule: $(condition_field "$n" Drifted message)"
    check_match "$n: caught by the network's rules" \
        '^network\.endpoint-(extra|missing)$' "$rule"
    uid=$(inv_uid "$n")
    for role in agent keeper workspace scratch; do
        check_no_objects "$n: its $role is removed" \
            "agentctl.dev/uid=$uid agentctl.dev/role=$role" 90
    done
    sleep 3 # three resyncs, each with garbage collection
}

# ---- protected ----
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE_DRIFT_RULES=container.id ctl_start
run_case s-kept
check_eq "s-kept: the stand-in is still there" "$twin" \
    "$(docker inspect -f '{{.Id}}' "$twin" 2>/dev/null)"
ev=$(events s-kept StandInFound)
echo "# s-kept: StandInFound: $ev"
check_match "s-kept: the sweep reports it (StandInFound)" \
    "^Warning: container ${twin:0:12} carries the labels of this attempt's proxy" \
    "$ev"
check_eq "s-kept: status.standIns holds it" proxy \
    "$(status_field s-kept ".standIns[\"$twin\"]")"
check_eq "s-kept: no UnrecordedRemoved" "" "$(events s-kept UnrecordedRemoved)"
remove_standins
check_no_objects "s-kept: nothing of it left once the stand-in is gone" \
    "agentctl.dev/uid=$(inv_uid s-kept)" 90
ctl_stop

# ---- negative control: the sweep's check switched off ----
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE_DRIFT_RULES=container.id \
    AGENTCTL_TEST_DISABLE=standin-sweep ctl_start
run_case s-swept
check "s-swept: without the check the stand-in is removed" not quiet \
    docker inspect "$twin"
ev=$(events s-swept UnrecordedRemoved)
echo "# s-swept: UnrecordedRemoved: $ev"
check_match "s-swept: by the sweep (UnrecordedRemoved)" \
    "container ${twin:0:12} \(proxy\)" "$ev"
remove_standins
check_no_objects "s-swept: nothing of it left" \
    "agentctl.dev/uid=$(inv_uid s-swept)" 90
ctl_stop
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
