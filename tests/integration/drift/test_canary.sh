#!/usr/bin/env bash
# test_canary.sh - the boundary canary (docs/design.md "The boundary
# canary"): while an agent runs, the probe runs again inside the agent's
# network namespace on a timer (config probeInterval) and after Docker
# events about the attempt's proxy or network, and a breach fails the
# attempt closed (boundary-drift, Drifted reason probe.<check>).
#
#  timer     probeInterval 3s: BoundaryCanary events count up, the metric
#            agentctl_canary_runs_total{result="ok"} with them, the agent
#            keeps running and no canary container is left between runs
#  event     probeInterval 0 (no timer): no run until `docker update` on
#            the proxy (a no-op update: nothing an inspect rule sees), then
#            one; an update on the keeper starts none
#  crash     a controller killed between the canary's create and its
#            record: the next one adopts the canary by the name recorded
#            before the create (status.canaryPending), removes it, goes on
#            (control: without that record the orphan fails the attempt
#            closed as a stranger in the agent's namespace)
#  alone     the agent connected to the egress network (a route past the
#            proxy) with the inspect rules that see it switched off
#            (container.networks, container.ports-live; test-hooks build):
#            the canary alone fails the attempt, rule probe.direct or
#            probe.dns
#
# Negative control: the same attack with the canary's rules switched off
# too: the canary runs and logs the finding it ignores, and the attempt
# is still Running three intervals and 10 s later.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")
INSPECT_RULES=container.networks,container.ports-live
CANARY_RULES=probe.allowed,probe.denied,probe.direct,probe.dns,probe.ipv6
CANARY_RULES=$CANARY_RULES,probe.inconclusive,probe.output

# with_interval VALUE: the scenario's config with probeInterval VALUE.
with_interval() {
    write_config
    echo "probeInterval: $1" >>"$CONFIG"
}

# canary_count NAME: the count of NAME's last passing BoundaryCanary event
canary_count() {
    jq -s -r '[.[] | select(.reason == "BoundaryCanary" and .type ==
        "Normal")] | last | .count // 0' "$STATE/events/$1.jsonl" \
        2>/dev/null || echo 0
}

# wait_canary NAME N TIMEOUT-S: until NAME's passes reach N
wait_canary() {
    local end=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$end" ]; do
        [ "$(canary_count "$1")" -ge "$2" ] && return 0
        sleep 0.25
    done
    fail "$1: fewer than $2 canary passes within ${3}s (have $(canary_count "$1"))"
}

metric() { # SERIES: its value on /metrics (0 when absent)
    curl -fsS "http://$CTL_METRICS/metrics" |
        awk -v s="$1" '$1 == s { v = $2 } END { print v + 0 }'
}

# end_all NAME...: cancel, wait until final and every object is gone
end_all() {
    local n
    for n in "$@"; do actl cancel "$n" >/dev/null; done
    for n in "$@"; do
        wait_terminal "$n" 120 >/dev/null
        check_no_objects "$n: nothing of it left" \
            "agentctl.dev/uid=$(inv_uid "$n")" 120
    done
}

attack() { # NAME: a route past the proxy inside the agent's namespace
    docker network connect "$EGRESS_NET" "$(object_of "$1" agent)"
}

# ---- timer ----
# Docker's own record of the probe containers, followed live (the daemon
# keeps only its last 256 events for --since).
docker events --filter "label=$MANAGED" --filter label=agentctl.dev/role=probe \
    --format '{{.Action}} {{.Actor.Attributes.name}}' >"$TEST_TMP/probe-events" &
EVENTS_PID=$!
on_cleanup "kill $EVENTS_PID 2>/dev/null || true"
with_interval 3s
ctl_start
apply_spec tick execute "${SLEEP[@]}"
wait_phase tick Running 240
wait_canary tick 2 90
check_eq "tick: still Running after two canary runs" Running \
    "$(status_field tick .phase)"
check "tick: Drifted is not True" not test \
    "$(condition_field tick Drifted status)" == True
ok=$(metric 'agentctl_canary_runs_total{result="ok"}')
check "tick: canary_runs_total{ok} counts the runs ($ok)" test "$ok" -ge 2
msg=$(jq -s -r '[.[] | select(.reason == "BoundaryCanary")] | last | .message' \
    "$STATE/events/tick.jsonl")
check_match "tick: the event says the boundary held" \
    '^canary: ok: boundary verified, vendor reachable; Landlock ABI [0-9]+$' "$msg"
uid=$(inv_uid tick)
passes=$(canary_count tick)
end_all tick
ctl_stop
# one container per run, named <prefix>-canary, each removed
probe_events() { # ACTION
    grep -c -- "^$1 agentctl-tick-.*-canary\$" "$TEST_TMP/probe-events" || true
}
created=$(probe_events create)
destroyed=$(probe_events destroy)
check "tick: a canary container per run ($created for $passes passes)" \
    test "$created" -ge "$passes"
check_eq "tick: every canary container was removed" "$created" "$destroyed"

# ---- event ----
with_interval 0
ctl_start
apply_spec ev execute "${SLEEP[@]}"
wait_phase ev Running 240
sleep 5
check_eq "ev: no canary run without a timer or an event" 0 "$(canary_count ev)"
docker update --restart=no "$(object_of ev proxy)" >/dev/null
wait_canary ev 1 60
check_eq "ev: the update on the proxy ran the canary once" 1 "$(canary_count ev)"
docker update --restart=no "$(object_of ev keeper)" >/dev/null
sleep 5
check_eq "ev: an update on the keeper starts no run" 1 "$(canary_count ev)"
check_eq "ev: still Running" Running "$(status_field ev .phase)"
end_all ev
ctl_stop

# ---- crash: a canary created, its answer lost (killed before recording
# it); the next controller finds it by the name recorded before the create
# (status.canaryPending), adopts and removes it, and goes on ----
# crashed NAME [DISABLE]: NAME Running, a test-hooks controller killed at
# created:canary (with AGENTCTL_TEST_DISABLE=DISABLE); echoes the orphan
crashed() {
    apply_spec "$1" execute "${SLEEP[@]}"
    AGENTCTL_TEST_DISABLE=${2:-} ctl_crash_at created:canary "$1" >&2
    docker ps -aq --no-trunc --filter "label=agentctl.dev/uid=$(inv_uid "$1")" \
        --filter label=agentctl.dev/role=probe --filter "name=-canary"
}
with_interval 2s
orphan=$(crashed crash)
check "crash: the killed controller left its canary ($orphan)" test -n "$orphan"
check_match "crash: its name was recorded before the create" '-canary$' \
    "$(status_field crash .canaryPending)"
ctl_start
wait_canary crash 1 90
check_eq "crash: still Running" Running "$(status_field crash .phase)"
check "crash: Drifted is not True" not test \
    "$(condition_field crash Drifted status)" == True
check "crash: the orphan was removed" not quiet docker inspect "$orphan"
check_match "crash: an Adopted event names the canary" 'canary .* adopted' \
    "$(jq -r 'select(.reason == "Adopted") | .message' \
        "$STATE/events/crash.jsonl")"
check_eq "crash: canaryPending cleared" "" "$(status_field crash .canaryPending)"
end_all crash
ctl_stop
# control: without the name on disk the orphan is a stranger in the
# agent's namespace, and the attempt fails closed
orphan=$(crashed crash-ctrl canary-pending)
check "crash-ctrl: the killed controller left its canary" test -n "$orphan"
check_eq "crash-ctrl: no name recorded" "" \
    "$(status_field crash-ctrl .canaryPending)"
ctl_start
check_eq "crash-ctrl: Failed" Failed "$(wait_terminal crash-ctrl 120)"
check_eq "crash-ctrl: Drifted container.joined" container.joined \
    "$(condition_field crash-ctrl Drifted reason)"
docker rm -f "$orphan" >/dev/null 2>&1 || true # left as a stand-in
check_no_objects "crash-ctrl: nothing of it left" \
    "agentctl.dev/uid=$(inv_uid crash-ctrl)" 120
ctl_stop

# ---- alone: the inspect rules off, the canary catches it ----
with_interval 3s
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE_DRIFT_RULES=$INSPECT_RULES ctl_start
check "the test-hooks controller switched the inspect rules off" \
    grep -q 'drift rule disabled' "$CTL_LOG"
apply_spec alone execute "${SLEEP[@]}"
wait_phase alone Running 240
wait_canary alone 1 60
attack alone
check_eq "alone: Failed" Failed "$(wait_terminal alone 120)"
check_eq "alone: stopReason boundary-drift" boundary-drift \
    "$(status_field alone .stopReason)"
rule=$(condition_field alone Drifted reason)
check_match "alone: Drifted by the canary ($rule)" '^probe\.(direct|dns)$' \
    "$rule"
msg=$(condition_field alone Drifted message)
echo "# alone: $msg"
check_match "alone: the message is the canary's finding" '^canary: breach: ' \
    "$msg"
check_eq "alone: BoundaryVerified False, CanaryFailed" False/CanaryFailed \
    "$(condition_field alone BoundaryVerified status)/$(condition_field \
        alone BoundaryVerified reason)"
check_no_objects "alone: nothing of it left" \
    "agentctl.dev/uid=$(inv_uid alone)" 120
ctl_stop

# ---- negative control: the canary's rules off too ----
with_interval 3s
CONTROLLER=$TESTHOOKS \
    AGENTCTL_TEST_DISABLE_DRIFT_RULES=$INSPECT_RULES,$CANARY_RULES ctl_start
apply_spec ctrl execute "${SLEEP[@]}"
wait_phase ctrl Running 240
wait_canary ctrl 1 60
attack ctrl
sleep 19 # three intervals (jitter included) and 10 s
check_eq "ctrl: with the canary's rules off the attack stays Running" \
    Running "$(status_field ctrl .phase)"
check "ctrl: the canary saw the breach and ignored it" \
    grep -q 'canary finding ignored' "$CTL_LOG"
end_all ctrl
ctl_finish
echo "# $CHECKS checks passed"
