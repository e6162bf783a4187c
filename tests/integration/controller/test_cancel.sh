#!/usr/bin/env bash
# test_cancel.sh - `agentctl cancel NAME` stops a running attempt: phase
# Cancelled, stopReason cancelled, every Docker object of it removed, and
# it is not started again on later passes. The GitOps path too: a spec
# file rewritten by hand with `cancel: True` (any boolean spelling the
# schema accepts) cancels just the same; `cancel: False` does not.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec stopme execute "command: [/demo-agent, --sleep, \"600\"]"
apply_spec gitops execute "command: [/demo-agent, --sleep, \"600\"]"
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

# GitOps: the file itself says cancel, spelled True. First the control: a
# rewrite to `cancel: False` (read, valid, and not a cancel) must leave the
# attempt running.
wait_phase gitops Running 180
guid=$(inv_uid gitops)
gspec=$(grep -l 'name: gitops$' "$SPECS"/*.yaml | head -1)
check "gitops: its spec file is in the specs dir" test -f "$gspec"
check "gitops: the written spec has a cancel line" \
    grep -q '^  cancel: false$' "$gspec"
# set_cancel VALUE: rewrite the spec file's cancel line atomically.
set_cancel() {
    sed "s/^  cancel: .*/  cancel: $1/" "$gspec" >"$SPECS/.gitops.tmp"
    mv "$SPECS/.gitops.tmp" "$gspec"
}
set_cancel False
sleep 3 # the watch and a few resyncs
check_eq "gitops: the False file is valid" True \
    "$(condition_field gitops Valid status)"
check_eq "gitops: cancel: False keeps it Running" Running \
    "$(status_field gitops .phase)"
set_cancel True
wait_phase gitops Cancelled 120
check_eq "gitops: cancel: True gives stopReason cancelled" cancelled \
    "$(status_field gitops .stopReason)"
check_no_objects "gitops: every object with its uid is gone" \
    "agentctl.dev/uid=$guid" 60
ctl_finish
