#!/usr/bin/env bash
# test_drift_mid_round.sh - a drift that Docker reports while a
# revalidation round is under way is caught by one more round, not left
# for the next resync tick (controller/inv/inv_queue.c, inv_revalidate).
# The extra round's finding counts once the daemon takes a new connection
# (drift.c); test_dockerd_restart.sh shows why that is needed.
#
# The round's inspects have all answered and been checked when its last
# step (the neighbours' listing) is about to go out. A test-hooks
# controller stops itself right there (AGENTCTL_TEST_PAUSE_AT=
# round:neighbours); the test sets the running agent's restart policy to
# "always" (container.restart-policy) and lets it go on. Docker's update
# event then arrives while the round is still open, about an object the
# round has already passed. The resync is one hour and the canary is off,
# so nothing else would ever look again.
#
#  - control (AGENTCTL_TEST_DISABLE=verify-again: the event only marks a
#    round due, as before the fix, and the open round ends and clears
#    it): the agent is still Running 20 s later with the drift in place.
#    This shows the test can fail.
#  - a controller started after that catches it on its first round
#    (Failed, boundary-drift).
#  - protected: the same sequence on a second invocation ends Failed,
#    boundary-drift, the condition naming the restart policy.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init

SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")

stopped() { [ "$(awk '{print $3}' "/proc/$CTL_PID/stat" 2>/dev/null)" = T ]; }

# go_until SECONDS CMD...: keep the controller going (it stops itself at
# every round's last step) until CMD succeeds; 1 on timeout.
go_until() {
    local end=$((SECONDS + $1))
    shift
    while [ "$SECONDS" -lt "$end" ]; do
        stopped && kill -CONT "$CTL_PID"
        "$@" && return 0
        ctl_alive || fail "agent-controller exited"
        sleep 0.2
    done
    return 1
}

phase_is() { [ "$(status_field "$1" .phase)" = "$2" ]; }
probe_gone() { [ -z "$(object_of "$1" probe)" ]; }
running_quiet() {
    phase_is "$1" Running && probe_gone "$1" || return 1
    # no round for 3 s: the start's and the probe's events are all seen
    for _ in $(seq 1 15); do
        stopped && return 1
        sleep 0.2
    done
}

# drift_mid_round NAME: NAME running and quiet, a round opened by a
# harmless event (docker top), the drift made while the controller waits
# at the round's last step, then the controller let go. Sets agent.
drift_mid_round() {
    apply_spec "$1" execute "${SLEEP[@]}"
    go_until 240 running_quiet "$1" ||
        fail "$1: not Running and quiet within 240 s (phase $(status_field "$1" .phase))"
    agent=$(object_of "$1" agent)
    check_match "$1: agent container found by its labels" '^[0-9a-f]{64}$' \
        "$agent"
    docker top "$agent" >/dev/null # a Docker event: a round, nothing drifts
    for _ in $(seq 1 150); do stopped && break; sleep 0.2; done
    stopped || fail "$1: no round reached its last step after docker top"
    docker update --restart=always "$agent" >/dev/null
    sleep 0.5 # Docker's update event is out before the controller goes on
    kill -CONT "$CTL_PID"
}

start_hooked() {
    CONTROLLER=$TESTHOOKS AGENTCTL_TEST_PAUSE_AT=round:neighbours \
        AGENTCTL_TEST_DISABLE=$1 ctl_start --resync 1h
}

# ---- control: the event is absorbed by the open round ----
start_hooked canary,verify-again
drift_mid_round absorbed
if go_until 20 phase_is absorbed Failed; then
    fail "control: absorbed reached Failed: the switched-off protection" \
        "still caught the drift, so this test could not tell"
fi
check_eq "control: absorbed still Running 20 s after the drift" Running \
    "$(status_field absorbed .phase)"
check_eq "control: and the drift is still there" always \
    "$(docker inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$agent")"
ctl_stop

# ---- a new controller's first round finds it ----
start_hooked canary
go_until 120 phase_is absorbed Failed ||
    fail "absorbed: a new controller did not fail it closed within 120 s"
check_eq "absorbed: stopReason boundary-drift" boundary-drift \
    "$(status_field absorbed .stopReason)"

# ---- protected: one more round after the open one ----
drift_mid_round caught
go_until 60 phase_is caught Failed ||
    fail "caught: not Failed within 60 s of the drift made mid-round" \
        "(phase $(status_field caught .phase))"
check_eq "caught: stopReason boundary-drift" boundary-drift \
    "$(status_field caught .stopReason)"
check_match "caught: the condition names the restart policy" '[Rr]estart' \
    "$(condition_field caught Drifted message)"
for n in absorbed caught; do
    check_no_objects "$n: every object with its uid is gone" \
        "agentctl.dev/uid=$(inv_uid "$n")" 120
done
ctl_finish
