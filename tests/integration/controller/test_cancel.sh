#!/usr/bin/env bash
# test_cancel.sh - `agentctl cancel NAME` stops a running attempt: phase
# Cancelled, stopReason cancelled, every Docker object of it removed, and
# it is not started again on later passes.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec stopme execute "command: [/demo-agent, --sleep, \"600\"]"
uid=$(inv_uid stopme)
check_match "stopme: has a uid" '^[0-9a-f-]{36}$' "$uid"
wait_phase stopme Running 180
check_running_objects stopme
check "agentctl cancel stopme" quiet actl cancel stopme
wait_phase stopme Cancelled 120
check_eq "stopme: stopReason cancelled" cancelled \
    "$(status_field stopme .stopReason)"
check_no_objects "stopme: every object with its uid is gone" \
    "agentctl.dev/uid=$uid" 60
check_events stopme
sleep 3 # a few resyncs: still cancelled, nothing restarted
check_eq "stopme: still Cancelled after resyncs" Cancelled \
    "$(status_field stopme .phase)"
check_eq "stopme: nothing recreated" "" \
    "$(labelled_objects "agentctl.dev/uid=$uid")"
check_match "stopme: the agent did run before the cancel" "uid: 1000" \
    "$(agent_output stopme)"
ctl_finish
