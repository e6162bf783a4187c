#!/usr/bin/env bash
# test_probe_egress.sh - the first boundary probe of an attempt checks the
# proxy's egress-side address too (issue 35 item 7): before, the address
# was learnt from the first revalidation round, which comes after the
# probe, so the first probe left it out. The test-hooks controller pauses
# right after the probe's create (AGENTCTL_TEST_PAUSE_AT=created:probe)
# and the probe's command is read: it names <proxy's egress IP>:<port> as
# a direct target. The attempt then Succeeded.
# Negative control (AGENTCTL_TEST_DISABLE=probe-egress): the address is
# not learnt first, and the first probe does not name it.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
stopped() { [ "$(awk '{print $3}' "/proc/$CTL_PID/stat" 2>/dev/null)" = T ]; }

# first_probe NAME [DISABLE]: pause at the probe's create, set CMD (the
# probe's command) and IP (the proxy's egress address), go on
first_probe() {
    local probe proxy
    apply_spec "$1" execute "command: [/demo-agent]"
    CTL_LOG=$TEST_TMP/controller-$1.log
    AGENTCTL_TEST_DISABLE=${2:-} AGENTCTL_TEST_PAUSE_AT=created:probe \
        ctl_hooked never:reached
    for _ in $(seq 1 960); do stopped && break; sleep 0.25; done
    stopped || fail "$1: the controller never paused at created:probe"
    probe=$(docker ps -aq --filter "label=agentctl.dev/invocation=$1" \
        --filter label=agentctl.dev/role=probe | head -n 1)
    proxy=$(object_of "$1" proxy)
    CMD=$(docker inspect -f '{{json .Config.Entrypoint}} {{json .Config.Cmd}}' "$probe")
    IP=$(docker inspect -f \
        "{{(index .NetworkSettings.Networks \"$EGRESS_NET\").IPAddress}}" "$proxy")
    kill -CONT "$CTL_PID"
}

first_probe first
echo "# first: probe $CMD, proxy egress $IP"
check_match "the proxy has an egress address" '^[0-9.]+$' "$IP"
check_match "the first probe checks the proxy's egress address" \
    "\"--direct\",\"${IP//./\\.}:3128\"" "$CMD"
check_eq "first: Succeeded" Succeeded "$(wait_terminal first 240)"
ctl_stop

first_probe control probe-egress
check "control: without learning it first, the first probe leaves it out" \
    not grep -q "${IP//./\\.}:3128" <<<"$CMD"
wait_terminal control 240 >/dev/null
ctl_stop
ctl_start
ctl_finish
