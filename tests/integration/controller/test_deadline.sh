#!/usr/bin/env bash
# test_deadline.sh - deadlineSeconds bounds the whole attempt: an agent
# that would sleep 600 s is stopped, the attempt is Failed with stopReason
# deadline, and nothing of it is left in Docker.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec sleepy execute "command: [/demo-agent, --sleep, \"600\"]" \
    "deadlineSeconds: 5"
uid=$(inv_uid sleepy)
check_match "sleepy: has a uid" '^[0-9a-f-]{36}$' "$uid"
wait_phase sleepy Failed 180
check_eq "sleepy: stopReason deadline" deadline \
    "$(status_field sleepy .stopReason)"
check_match "sleepy: finishedAt recorded" '^[0-9]{4}-' \
    "$(status_field sleepy .finishedAt)"
check_no_objects "sleepy: every object with its uid is gone" \
    "agentctl.dev/uid=$uid" 60
check_events sleepy
# level-triggered: a few resyncs later it is still Failed and nothing new
# was started for it (a used attempt never runs again).
sleep 3
check_eq "sleepy: still Failed after resyncs" Failed \
    "$(status_field sleepy .phase)"
check_eq "sleepy: nothing recreated" "" \
    "$(labelled_objects "agentctl.dev/uid=$uid")"

# control: the same agent with room to finish succeeds
apply_spec napper execute "command: [/demo-agent, --sleep, \"1\"]" \
    "deadlineSeconds: 120"
wait_phase napper Succeeded 180
check_eq "napper: no stopReason" "" "$(status_field napper .stopReason)"
ctl_finish
