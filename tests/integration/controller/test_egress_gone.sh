#!/usr/bin/env bash
# test_egress_gone.sh - the shared egress network is looked up once by
# the controller (controller/box/box_egressnet.c), not inspected by every
# attempt; an egress network removed behind its back is noticed at the
# next proxy connect or start (404: Docker 20.10 takes the connect of a
# container never started and refuses its start), forgotten, and that
# attempt's retry inspects and creates it again, then runs.
# Control (test-hooks build, AGENTCTL_TEST_DISABLE=egress-forget): the
# 404 is not taken as "the network is gone", and the attempt retries the
# connect forever without ever reaching Running.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

# egress_away: nothing on the egress network (the vendors leave it, every
# attempt is cancelled and cleaned up), then it is removed.
egress_away() {
    local n
    for n in "$@"; do
        quiet actl cancel "$n" || true
        wait_terminal "$n" 120 >/dev/null
    done
    check_no_objects "nothing of the attempts left" "$MANAGED" 120
    docker network disconnect -f "$EGRESS_NET" "vendor-$CTL_RUN" 2>/dev/null || true
    docker network disconnect -f "$EGRESS_NET" "other-$CTL_RUN" 2>/dev/null || true
    check "the egress network is removed behind the controller's back" \
        quiet docker network rm "$EGRESS_NET"
}

[ -x "$BUILD/controller/agent-controller-testhooks" ] ||
    skip "agent-controller-testhooks not built"
CONTROLLER=$BUILD/controller/agent-controller-testhooks ctl_start
apply_spec first execute "command: [/demo-agent, --sleep, \"600\"]"
wait_phase first Running 180
check "first: the egress network was there, nothing created" \
    not grep -q 'creating the egress network' "$CTL_LOG"

egress_away first
apply_spec second execute "command: [/demo-agent, --sleep, \"600\"]"
wait_phase second Running 240
check "second: the controller created the egress network again" \
    grep -q 'creating the egress network' "$CTL_LOG"
check "second: the egress network exists again" \
    quiet docker network inspect "$EGRESS_NET"
check "second: its proxy's start answered 404, then the retry went on" \
    grep -q 'step failed, will retry.*second' "$CTL_LOG"
ctl_stop

# Control: the 404 is not taken for a gone network.
CONTROLLER=$BUILD/controller/agent-controller-testhooks \
    AGENTCTL_TEST_DISABLE=egress-forget ctl_start
egress_away second
apply_spec third execute "command: [/demo-agent, --sleep, \"600\"]"
sleep 15 # several retries (backoff from 1 s)
check_eq "control: third never reaches Running with the fallback off" \
    Preparing "$(status_field third .phase)"
check "control: its step keeps failing and being retried" \
    grep -q 'step failed, will retry.*third' "$CTL_LOG"
quiet actl cancel third || true
wait_terminal third 120 >/dev/null
ctl_finish
