#!/usr/bin/env bash
# test_status_unreadable.sh - a status document that exists and cannot be
# read (truncated, corrupted) holds its invocation (issue 34): the
# controller does nothing for it and writes nothing over it, and its
# running box is no garbage; once the status can be read again the attempt
# goes on and ends, and its agent was started once.
#
#   held: Running; the controller stopped; its status truncated; the
#     controller started again: it says the status is unreadable, the
#     agent is not started again, the box stays (three resyncs of garbage
#     collection), the file is not written over; the status put back: the
#     attempt ends Succeeded, cleaned up, one agent start in all.
#   done: Succeeded and cleaned up, then its status cut short: held, its
#     attempt is not run again.
# Negative control (test-hooks build, AGENTCTL_TEST_DISABLE=status-hold):
#   the controller starts done afresh and runs its finished attempt again
#   (what the hold prevents).
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

# corrupt_while_stopped NAME: stop the controller, keep the status, write
# half of it back (a write cut short)
corrupt_while_stopped() {
    ctl_stop
    cp "$STATE/status/$1.json" "$TEST_TMP/$1.status"
    head -c 40 "$TEST_TMP/$1.status" >"$STATE/status/$1.json"
}

since=$(date +%s)
apply_spec held execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"sleep 8; echo HELD-DONE\"]"
wait_phase held Running 120
uid=$(status_field held .uid)
corrupt_while_stopped held
ctl_start
sleep 4 # four resyncs and garbage collections (--resync 1s)
check "held: the controller says the status is unreadable" \
    grep -q '"status unreadable: the invocation is held' "$CTL_LOG"
check_eq "held: the file was not written over" \
    "$(head -c 40 "$TEST_TMP/held.status")" "$(cat "$STATE/status/held.json")"
check_eq "held: the agent was started once" 1 "$(agent_starts "$uid" "$since")"
check "held: its box was not taken for garbage" \
    test -n "$(docker ps -aq --filter "label=agentctl.dev/uid=$uid" \
        --filter label=agentctl.dev/role=agent)"
cp "$TEST_TMP/held.status" "$STATE/status/held.json"
check_eq "held: the status put back, the attempt ends" Succeeded \
    "$(wait_terminal held 120)"
check_match "held: it ran to its end" HELD-DONE "$(agent_output held)"
check_eq "held: and its agent was started once in all" 1 \
    "$(agent_starts "$uid" "$since")"
check "held: the controller said so" \
    grep -q '"status readable again' "$CTL_LOG"

# done: finished and cleaned up, then its status cut short: a controller
# that started afresh would run attempt 1 again (its usedAttempts lost)
since=$(date +%s)
apply_spec done execute "image: $BOX_IMAGE" "command: [sh, -c, \"echo ONCE\"]"
check_eq "done: Succeeded" Succeeded "$(wait_terminal done 120)"
for _ in $(seq 1 240); do
    [ "$(status_field done .cleanedUp)" == true ] && break
    sleep 0.25
done
uid=$(status_field done .uid)
corrupt_while_stopped done
ctl_start
sleep 4
check_eq "done: held, its attempt is not run again" 1 \
    "$(agent_starts "$uid" "$since")"
ctl_stop

# the control: the hold off, the finished attempt runs again
CTL_LOG=$TEST_TMP/controller-hooked.log
CONTROLLER=$BUILD/controller/agent-controller-testhooks \
    AGENTCTL_TEST_DISABLE=status-hold ctl_start
for _ in $(seq 1 240); do
    [ "$(agent_starts "$uid" "$since")" -ge 2 ] && break
    sleep 0.25
done
check_eq "control: without the hold the finished attempt runs again" 2 \
    "$(agent_starts "$uid" "$since")"
ctl_finish
