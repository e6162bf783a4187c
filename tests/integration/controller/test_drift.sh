#!/usr/bin/env bash
# test_drift.sh - while an agent runs, a change made behind the
# controller's back fails the attempt closed: the agent is stopped,
# stopReason boundary-drift, condition Drifted=True naming what changed.
# Mutations: `docker update --restart=always` on the agent and on the
# proxy, and a foreign container connected to the internal network.
# Control: an invocation left alone beside them keeps running.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")
for n in restart-agent restart-proxy intruder untouched; do
    apply_spec "$n" execute "${SLEEP[@]}"
done
for n in restart-agent restart-proxy intruder untouched; do
    wait_phase "$n" Running 240
done

agent=$(object_of restart-agent agent)
check_match "restart-agent: agent container found by its labels" \
    '^[0-9a-f]{64}$' "$agent"
proxy=$(object_of restart-proxy proxy)
check_match "restart-proxy: proxy container found by its labels" \
    '^[0-9a-f]{64}$' "$proxy"
net=$(object_of intruder network network)
check_match "intruder: internal network found by its labels" \
    '^[0-9a-f]{64}$' "$net"

docker update --restart=always "$agent" >/dev/null
docker update --restart=always "$proxy" >/dev/null
stranger=$(docker run -d --label "$TEST_LABEL" --network "$net" \
    "$BOX_IMAGE" sleep 600)

for n in restart-agent restart-proxy intruder; do
    wait_phase "$n" Failed 120
    check_eq "$n: stopReason boundary-drift" boundary-drift \
        "$(status_field "$n" .stopReason)"
    check_eq "$n: condition Drifted=True" True \
        "$(condition_field "$n" Drifted status)"
    echo "# $n: Drifted: $(condition_field "$n" Drifted message)"
done
check_match "restart-agent: the condition names the restart policy" \
    '[Rr]estart' "$(condition_field restart-agent Drifted message)"
check_match "restart-agent: and the observed value" 'always' \
    "$(condition_field restart-agent Drifted message)"
check_match "restart-proxy: the condition names the proxy" 'proxy' \
    "$(condition_field restart-proxy Drifted message)"
check_not_running "restart-agent: the agent is not running any more" "$agent"

check_eq "untouched: still Running" Running "$(status_field untouched .phase)"
check_eq "untouched: no Drifted=True" "" \
    "$(status_field untouched '.conditions[]? | select(.type == "Drifted" and .status == "True") | .type')"

# The stranger is ours; take it away so the controller can remove the
# network it was pinned to.
docker rm -f "$stranger" >/dev/null
for n in restart-agent restart-proxy intruder; do
    check_no_objects "$n: every object with its uid is gone" \
        "agentctl.dev/uid=$(inv_uid "$n")" 60
done
check "agentctl cancel untouched" quiet actl cancel untouched
wait_phase untouched Cancelled 120
ctl_finish
