#!/usr/bin/env bash
# test_warm_pool_stop.sh - a clean stop (SIGTERM) removes the warm pool's
# boxes before the controller exits (issue 34: they stayed on the daemon
# until the next start's garbage collection), bounded by 10 s; the
# controller exits 0.
# Negative control (test-hooks build, AGENTCTL_TEST_DISABLE=
# pool-stop-drain): the same stop leaves the ready box on the daemon.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
echo "warmPool: {fake: 1}" >>"$CONFIG"
POOL_DOC=$STATE/pool/$CTL_ID.json

# ready_net: the network of the pool's Ready box (bounded wait)
ready_net() {
    local net
    for _ in $(seq 1 600); do
        net=$(jq -r '.boxes[] | select(.state == "Ready") | .network' \
            "$POOL_DOC" 2>/dev/null | head -n 1)
        [ -n "$net" ] && echo "$net" && return 0
        sleep 0.1
    done
    fail "no Ready box in the pool document: $(cat "$POOL_DOC" 2>/dev/null)"
}
pool_objects() {
    {
        docker ps -aq --filter "label=$MANAGED" \
            --filter label=agentctl.dev/invocation=pool.fake
        docker network ls -q --filter "label=$MANAGED" \
            --filter label=agentctl.dev/invocation=pool.fake
    } | grep -c . || true
}

ctl_start
net=$(ready_net)
check "the box is there before the stop" test "$(pool_objects)" -ge 2
ctl_stop
check_eq "the controller exited 0" 0 "$CTL_STOPPED"
check "it said it removed the pool first" \
    grep -q 'stopping: removing the warm pool' "$CTL_LOG"
check_eq "no object of the pool is left" 0 "$(pool_objects)"
check "its network is gone" not docker network inspect "$net"

CTL_LOG=$TEST_TMP/controller-hooked.log
CONTROLLER=$BUILD/controller/agent-controller-testhooks \
    AGENTCTL_TEST_DISABLE=pool-stop-drain ctl_start
net=$(ready_net)
ctl_stop
check "control: without the drain the box stays on the daemon" \
    test "$(pool_objects)" -ge 2
# the next start (no pool now) collects it as garbage; ctl_finish checks
sed -i '/^warmPool:/d' "$CONFIG"
ctl_start
ctl_finish
