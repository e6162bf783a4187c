#!/usr/bin/env bash
# test_output_limit.sh - output.maxBytes bounds the captured stdout+stderr:
# an agent that prints 100000 bytes (and would then sleep) is stopped with
# stopReason output-limit, exactly maxBytes are kept, and the status says
# truncated. Control: a run under its bound is complete and not truncated.
# Both stdout and stderr are captured.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec chatty execute \
    "command: [/demo-agent, --print, \"100000\", --sleep, \"600\"]" \
    "output: {maxBytes: 1000}" "deadlineSeconds: 150"
apply_spec quiet-one execute "command: [/demo-agent]" \
    "output: {maxBytes: 4000}"
apply_spec two-streams execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"echo to-stdout; echo to-stderr >&2\"]"
uid=$(inv_uid chatty)

wait_phase chatty Failed 240
log=$STATE/output/chatty.log
check_eq "chatty: stopReason output-limit" output-limit \
    "$(status_field chatty .stopReason)"
check_eq "chatty: captured output is exactly 1000 bytes" 1000 \
    "$(stat -c %s "$log")"
check_eq "chatty: status.output.bytes 1000" 1000 \
    "$(status_field chatty .output.bytes)"
check_eq "chatty: status.output.truncated" true \
    "$(status_field chatty .output.truncated)"
check_eq "chatty: status.output.sha256 is the kept bytes' hash" \
    "$(sha256sum <"$log" | cut -d' ' -f1)" \
    "$(status_field chatty .output.sha256)"
check_match "chatty: the kept bytes are the start of the output" \
    '^demo-agent ' "$(head -c 64 "$log")"
check "chatty: and then the x's" grep -q 'xxxxxxxxxxxxxxxx' "$log"
check_eq "agentctl logs prints the same 1000 bytes" \
    "$(sha256sum <"$log" | cut -d' ' -f1)" \
    "$(actl logs chatty 2>/dev/null | sha256sum | cut -d' ' -f1)"
check_no_objects "chatty: every object with its uid is gone" \
    "agentctl.dev/uid=$uid" 60

wait_phase quiet-one Succeeded 240
qlog=$STATE/output/quiet-one.log
check_eq "quiet-one: not truncated" false \
    "$(status_field quiet-one .output.truncated)"
check_eq "quiet-one: bytes = file size" "$(stat -c %s "$qlog")" \
    "$(status_field quiet-one .output.bytes)"
check_match "quiet-one: the whole output, to the vendor's page" \
    "vendor_body: $VENDOR_TOKEN" "$(cat "$qlog")"
wait_phase two-streams Succeeded 240
check_match "two-streams: stdout is captured" to-stdout \
    "$(agent_output two-streams)"
check_match "two-streams: and stderr" to-stderr "$(agent_output two-streams)"
ctl_finish
