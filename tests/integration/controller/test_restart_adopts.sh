#!/usr/bin/env bash
# test_restart_adopts.sh - a controller killed (SIGKILL) while an agent
# runs restarts, adopts what it finds and converges: the agent container
# recorded in the status finishes (no second run), the attempt Succeeds,
# a spec applied while no controller ran is picked up, nothing leaks.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec survivor execute "command: [/demo-agent, --sleep, \"20\"]"
wait_phase survivor Running 240
agent=$(object_of survivor agent)
check_match "survivor: agent container found by its labels" \
    '^[0-9a-f]{64}$' "$agent"
check_eq "survivor: the status records that agent container by ID" \
    "$agent" "$(status_field survivor .resources.agent.id)"

kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
echo "# controller killed with SIGKILL"
check_eq "the agent keeps running without its controller" true \
    "$(docker inspect -f '{{.State.Running}}' "$agent")"
apply_spec latecomer execute "command: [/demo-agent]"

ctl_start
wait_phase survivor Succeeded 240
check_eq "survivor: exit code 0" 0 "$(status_field survivor .exitCode)"
check_eq "survivor: the agent ran once (one report in the output)" 1 \
    "$(agent_output survivor | grep -c '^demo-agent ')"
check_match "survivor: and it reached the vendor" \
    "vendor_body: $VENDOR_TOKEN" "$(agent_output survivor)"
wait_phase latecomer Succeeded 240
ctl_finish
