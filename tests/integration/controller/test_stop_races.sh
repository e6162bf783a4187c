#!/usr/bin/env bash
# test_stop_races.sh - when stop causes race, the first one is recorded
# first, against a real daemon. The order is made deterministic with
# the test-hooks controller, which kills itself right after it wrote a
# status of a given phase (AGENTCTL_TEST_CRASH_AT=recorded:<phase>): the
# stop is then recorded but still in flight (the attempt's objects are
# recorded, nothing is removed), and the second cause is made to
# happen before a controller looks again.
#
#   race-deadline  deadlineSeconds 10: the deadline stops it (crash at
#                  recorded:Failed), then cancel: true is applied while
#                  its stop is in flight. It stays Failed, stopReason
#                  deadline.
#   race-cancel    deadlineSeconds 80: cancel: true (crash at
#                  recorded:Cancelled), then its deadline passes while its
#                  stop is in flight. It stays Cancelled, stopReason
#                  cancelled.
#   race-both      deadlineSeconds 80: cancel: true is applied while no
#                  controller runs, then its deadline passes, then a
#                  controller sees both causes in one pass. The cancel came
#                  first: it stays Cancelled, stopReason cancelled.
#   race-control   deadlineSeconds 80 as race-cancel, never cancelled: it
#                  ends with stopReason deadline, so the deadline did pass
#                  and would have been recorded (the control for
#                  race-cancel; race-cancel is the one for race-deadline:
#                  a cancel that comes first is recorded).
# Every attempt ends with exactly one Stopped event, naming its reason,
# and nothing of it left in Docker. The unit test test_ctl_stop covers the
# same rule for drift and output-limit.
source "$(dirname "$0")/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init

SLEEP='command: [/demo-agent, --sleep, "600"]'
LONG=80 # room for three attempts to prepare and one to be cancelled

# wait_captured NAME TIMEOUT-S: its attempt is captured (capturedAt).
wait_captured() {
    local end=$((SECONDS + $2))
    while [ -z "$(status_field "$1" .capturedAt)" ]; do
        [ "$SECONDS" -lt "$end" ] || fail "$1 was not captured within ${2}s"
        ctl_alive || fail "the controller exited before $1 was captured"
        sleep 0.25
    done
}

# in_flight NAME PHASE REASON: the stop is recorded, its cleanup is not.
in_flight() {
    check_eq "$1: $2 recorded" "$2" "$(status_field "$1" .phase)"
    check_eq "$1: stopReason $3 recorded" "$3" "$(status_field "$1" .stopReason)"
    check_eq "$1: its stop is in flight: not cleaned up yet" "" \
        "$(status_field "$1" .cleanedUp)"
    echo "# $1: objects recorded: $(status_field "$1" '.resources | keys')"
    echo "# $1: objects in Docker while its stop is in flight:"
    labelled_objects "agentctl.dev/uid=$(inv_uid "$1")" | sed 's/^/#   /'
}

# stopped_events NAME: "reason-prefix" of every Stopped event.
stopped_events() {
    jq -r 'select(.reason == "Stopped") | .message | split(":")[0]' \
        "$STATE/events/$1.jsonl" 2>/dev/null | tr '\n' ' '
}

# 1. deadline first; cancel while that stop is in flight. Alone, so the
# first Failed status written is surely race-deadline's.
apply_spec race-deadline execute "$SLEEP" "deadlineSeconds: 10"
ctl_hooked recorded:Failed
ctl_wait_crash recorded:Failed
in_flight race-deadline Failed deadline
apply_spec race-deadline execute "$SLEEP" "deadlineSeconds: 10" "cancel: true"
apply_spec race-cancel execute "$SLEEP" "deadlineSeconds: $LONG"
apply_spec race-both execute "$SLEEP" "deadlineSeconds: $LONG"
apply_spec race-control execute "$SLEEP" "deadlineSeconds: $LONG"

# 2. cancel first; the deadline passes while that stop is in flight
ctl_hooked recorded:Cancelled
# Captured is enough (Preparing or Running): the cancel is acted on when
# the spec arrives, also while a step's request is in flight.
wait_captured race-cancel 240
wait_captured race-both 240
check_eq "race-deadline: still deadline with cancel: true applied" deadline \
    "$(status_field race-deadline .stopReason)"
apply_spec race-cancel execute "$SLEEP" "deadlineSeconds: $LONG" "cancel: true"
ctl_wait_crash recorded:Cancelled
in_flight race-cancel Cancelled cancelled
captured=$(date -d "$(status_field race-cancel .capturedAt)" +%s)
check_match "race-cancel: capturedAt recorded" '^[0-9]+$' "$captured"
check "race-cancel: cancelled before its deadline" \
    test "$(date +%s)" -lt $((captured + LONG))
echo "# race-cancel: cancelled $(($(date +%s) - captured)) s after its capture"
apply_spec race-both execute "$SLEEP" "deadlineSeconds: $LONG" "cancel: true"
both=$(date -d "$(status_field race-both .capturedAt)" +%s)
check_match "race-both: capturedAt recorded" '^[0-9]+$' "$both"
check "race-both: cancel applied before its deadline" \
    test "$(date +%s)" -lt $((both + LONG))
last=$((both > captured ? both : captured))
while [ "$(date +%s)" -le $((last + LONG + 2)) ]; do # let both deadlines pass
    sleep 1
done
for n in race-both race-control; do
    check_match "$n: its deadline passed too, while no controller ran" \
        '^(Preparing|Running)$' "$(status_field "$n" .phase)"
done

# 3. a normal controller finishes every stop
ctl_start
check_eq "race-control: the deadline is recorded (control)" Failed \
    "$(wait_terminal race-control 120)"
check_eq "race-control: stopReason deadline" deadline \
    "$(status_field race-control .stopReason)"
check_eq "race-cancel: still Cancelled" Cancelled \
    "$(wait_terminal race-cancel 120)"
check_eq "race-both: Cancelled" Cancelled "$(wait_terminal race-both 120)"
check_eq "race-deadline: still Failed" Failed \
    "$(wait_terminal race-deadline 120)"
for n in race-deadline race-cancel race-both race-control; do
    check_no_objects "$n: every object of it is gone" \
        "agentctl.dev/uid=$(inv_uid "$n")" 90
done
sleep 3 # a few resyncs after the cleanup: nothing changes any more
check_eq "race-cancel: stopReason stays cancelled past its deadline" \
    cancelled "$(status_field race-cancel .stopReason)"
check_eq "race-cancel: Ready says cancelled" cancelled \
    "$(condition_field race-cancel Ready reason)"
check_eq "race-cancel: one Stopped event, cancelled" "cancelled " \
    "$(stopped_events race-cancel)"
check_eq "race-both: stopReason cancelled, though the deadline had passed too" \
    cancelled "$(status_field race-both .stopReason)"
check_eq "race-both: one Stopped event, cancelled" "cancelled " \
    "$(stopped_events race-both)"
check_eq "race-deadline: stopReason stays deadline after the cancel" \
    deadline "$(status_field race-deadline .stopReason)"
check_eq "race-deadline: phase stays Failed" Failed \
    "$(status_field race-deadline .phase)"
check_eq "race-deadline: Ready says deadline" deadline \
    "$(condition_field race-deadline Ready reason)"
check_eq "race-deadline: one Stopped event, deadline" "deadline " \
    "$(stopped_events race-deadline)"
check_eq "race-control: one Stopped event, deadline" "deadline " \
    "$(stopped_events race-control)"
ctl_finish
