#!/usr/bin/env bash
# test_delete_cleans_up.sh - deleting the spec of a running invocation
# (`agentctl delete NAME`) stops it and removes every Docker object that
# carries its uid; a second invocation running beside it is not touched.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec doomed execute "command: [/demo-agent, --sleep, \"600\"]"
apply_spec bystander execute "command: [/demo-agent, --sleep, \"600\"]"
uid=$(inv_uid doomed)
other=$(inv_uid bystander)
check_match "doomed: has a uid" '^[0-9a-f-]{36}$' "$uid"
wait_phase doomed Running 180
wait_phase bystander Running 180
check_running_objects doomed
check_running_objects bystander

check "agentctl delete doomed" quiet actl delete doomed
check_no_objects "doomed: every object with its uid is gone" \
    "agentctl.dev/uid=$uid" 60
# Terminating until the controller's cleanup deleted its status, which
# follows the last object's removal
check "doomed: wait --for=delete sees the cleanup end" \
    quiet actl wait doomed --for=delete --timeout=60s
check "doomed: spec gone from the store" not quiet actl get doomed
check_eq "bystander: still Running" Running \
    "$(status_field bystander .phase)"
check "bystander: its objects are still there" \
    test -n "$(labelled_objects "agentctl.dev/uid=$other")"
check "agentctl cancel bystander" quiet actl cancel bystander
wait_phase bystander Cancelled 120
ctl_finish
