#!/usr/bin/env bash
# test_capture_failure.sh - captured output must be strict UTF-8: an agent
# that prints invalid UTF-8 (and would then sleep) is stopped with
# stopReason capture-failure. Control: valid multi-byte UTF-8 is fine.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec garbled execute \
    "command: [/demo-agent, --bad-utf8, --sleep, \"600\"]" \
    "deadlineSeconds: 150"
apply_spec unicode execute "image: $BOX_IMAGE" \
    "command: [echo, \"héllo ✓ ünïcødé 日本\"]"
uid=$(inv_uid garbled)

wait_phase garbled Failed 240
check_eq "garbled: stopReason capture-failure" capture-failure \
    "$(status_field garbled .stopReason)"
check_no_objects "garbled: every object with its uid is gone" \
    "agentctl.dev/uid=$uid" 60
check_match "garbled: phase Failed" Failed "$(status_field garbled .phase)"

wait_phase unicode Succeeded 240
check_eq "unicode: no stopReason" "" "$(status_field unicode .stopReason)"
check_match "unicode: multi-byte text kept as is" "héllo ✓ ünïcødé 日本" \
    "$(agent_output unicode)"
ctl_finish
