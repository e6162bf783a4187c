#!/usr/bin/env bash
# test_sigkill_walk.sh - the controller killed with SIGKILL at every step
# of preparing, starting, running and cleaning up. For each crash
# point: a fresh invocation, the test-hooks controller with
# AGENTCTL_TEST_CRASH_AT=<point> (it kills itself there), then a normal
# controller. Each time the invocation must end Succeeded, its agent must
# have been started exactly once (Docker's own `start` events for the
# agent role of that uid), and nothing of it may be left.
#
# A crash point that is never reached fails the test (the walk would
# otherwise prove nothing).
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init

# Every crash point the controller has (ctl_testhooks.c). CI walks one
# point per stage of the attempt to stay within its time budget;
# AGENTCTL_CRASH_POINTS=all walks every one, or give a list.
ALL_POINTS="recorded:Preparing created:network created:proxy
done:proxyConnected done:proxyStarted created:workspace created:scratch
created:keeper done:keeperStarted done:workspaceUploaded created:agent
done:agentStarted recorded:Running exited:agent recorded:Succeeded
removed:agent removed:keeper removed:network"
CI_POINTS="created:network done:proxyStarted created:keeper
done:workspaceUploaded created:agent done:agentStarted recorded:Running
exited:agent removed:keeper"
POINTS=${AGENTCTL_CRASH_POINTS:-$CI_POINTS}
[ "$POINTS" != all ] || POINTS=$ALL_POINTS

n=0
for point in $POINTS; do
    n=$((n + 1))
    name=crash-$n
    t0=$(date +%s)
    apply_spec "$name" execute "command: [/demo-agent, --write-work]" \
        "workspace: {source: small, size: 16Mi, inodes: 1000}"
    ctl_crash_at "$point" "$name"
    ctl_start
    wait_phase "$name" Succeeded 240
    uid=$(status_field "$name" .uid)
    check_match "$point: $name has a uid" '^[0-9a-f-]{36}$' "$uid"
    check_no_objects "$point: nothing of $name left" \
        "agentctl.dev/uid=$uid" 60
    check_eq "$point: the agent of $name started exactly once" 1 \
        "$(agent_starts "$uid" "$t0")"
    ctl_stop
done
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
