#!/usr/bin/env bash
# test_dockerd_restart.sh - the Docker daemon stopped and started again
# while an agent runs. The machine's shared dockerd is never
# touched: the test starts a private daemon of its own (own socket,
# data-root, exec-root, pidfile, containerd; a default bridge of its own)
# with the
# project's images loaded into it, and points the controller at it with
# --docker.
#
# While the daemon is down the controller keeps running and /healthz says
# 503 naming Docker as unreachable. Once it is back: the invocation whose
# agent was lost with the daemon ends Failed, stopReason agent-lost
# (message AgentLost ...), and its agent was started exactly once (never
# rerun); an invocation applied while the daemon was down runs to
# Succeeded; nothing is left on the private daemon; /healthz is 200 again.
#
# How the private daemon lives beside the shared one, and why it is set up
# the way it is: ../lib_private_dockerd.sh.
#
# The daemon is stopped with SIGTERM (what `systemctl stop docker` sends),
# PD_SIGNAL=KILL for a crash. On exit, also on failure, the private daemon
# is stopped and its directories unmounted and removed.
#
# What it guards (each found by this test on 2026-12-02, then fixed):
#  - SIGTERM: dockerd closes its listener, then stops every container and
#    answers their /wait on the connections still open: without the exit
#    confirmation (a fresh connection after the exit, pass_run.c) the
#    attempt ends "the agent exited 143" instead of agent-lost.
#  - SIGKILL: after the restart the first revalidation finds the box torn
#    down by the daemon; without "lost first" (pass_inv.c) the attempt ends
#    boundary-drift instead of agent-lost.
#  - /healthz said "docker: ok" while no invocation's call failed: an
#    ended event stream now asks the daemon at once (loop_events.c).
#  - SIGTERM (2026-12-06): the containers' die and disconnect events ask
#    for a revalidation round, which runs on a connection opened before
#    the shutdown and sees the daemon's own teardown; without the drift
#    confirmation (a new connection accepted after the finding,
#    drift.c) the attempt ends boundary-drift instead of agent-lost.
#    Its control is test_dockerd_restart_drift_control.sh (PD_DISABLE).
# PD_CONTROL=1 is the negative control: the test-hooks controller with
# the protections in PD_DISABLE off (AGENTCTL_TEST_DISABLE; by default
# the exit confirmation and "lost first"); the run must then
# end with another stopReason than agent-lost (the test can fail). The
# control and PD_SIGNAL=KILL are test_dockerd_restart_control.sh and
# test_dockerd_restart_kill.sh.
source "$(dirname "$0")/../controller/lib_controller.sh"
command -v dockerd >/dev/null || skip "dockerd not installed"
[ -x "$CONTROLLER" ] || skip "agent-controller not built ($CONTROLLER)"
need_docker
PD_SIGNAL=${PD_SIGNAL:-TERM}
PD_CONTROL=${PD_CONTROL:-0}
PD_DISABLE=${PD_DISABLE:-exit-confirmation,lost-first}
source "$(dirname "$0")/../lib_private_dockerd.sh"

# healthz: "CODE BODY" of the controller's /healthz (body on one line).
healthz() {
    local body code
    body=$(curl -sS --max-time 3 -w '\n%{http_code}' \
        "http://$CTL_METRICS/healthz" 2>/dev/null || true)
    code=$(tail -n1 <<<"$body")
    echo "$code $(sed '$d' <<<"$body" | tr '\n' ' ')"
}

pd_init demo-agent testbox egress-proxy keeper probe
export DOCKER_HOST=$PD_SOCK
EGRESS_SUBNET=${PD_POOL%.0.0/16}.1.0/24
ctl_init
sed -i "s|^subnetPool: .*|subnetPool: $PD_CTL_POOL|" "$CONFIG"
# ctl_teardown (registered by ctl_init) must run while the daemon is up:
# the daemon's cleanup goes last.
TEST_CLEANUP_HOOKS=("${TEST_CLEANUP_HOOKS[@]:1}" "${TEST_CLEANUP_HOOKS[0]}")
if [ "$PD_CONTROL" = 1 ]; then
    TESTHOOKS=$BUILD/controller/agent-controller-testhooks
    [ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
    CONTROLLER=$TESTHOOKS \
        AGENTCTL_TEST_DISABLE=$PD_DISABLE \
        ctl_start --docker "$PD_SOCK"
else
    ctl_start --docker "$PD_SOCK"
fi

apply_spec lost execute "command: [/demo-agent, --sleep, \"600\"]" \
    "deadlineSeconds: 600"
wait_phase lost Running 240
uid=$(inv_uid lost)
t0=$(date +%s)
check_match "healthz 200 while the daemon is up" '^200 ok' "$(healthz)"
starts_before=$(agent_starts "$uid" "$((t0 - 600))")
check_eq "lost: its agent started once so far" 1 "$starts_before"

pd_down "$PD_SIGNAL"
check "the private dockerd is gone" not pd_ping
h=
for _ in $(seq 1 120); do # until the controller has noticed
    h=$(healthz)
    [[ $h =~ ^200 ]] || break
    sleep 0.25
done
echo "# healthz while down: $h"
check_match "healthz is 503 while the daemon is down" '^503 ' "$h"
check_match "healthz names Docker as unreachable" 'docker: unreachable' "$h"
apply_spec later execute "command: [/demo-agent]"
sleep 3 # a few resyncs with the daemon away
check "agent-controller keeps running without the daemon" ctl_alive
check_match "healthz still 503" '^503 ' "$(healthz)"

t1=$(date +%s)
pd_up || fail "the private dockerd did not come back: $(tail -n 5 \
    "$PD/dockerd.log")"
# The test vendors went down with the daemon (restart policy no, like
# everything here): bring them back for `later`.
docker start "vendor-$CTL_RUN" "other-$CTL_RUN" >/dev/null ||
    fail "cannot restart the test vendors"
check_eq "lost: Failed" Failed "$(wait_terminal lost 240)"
if [ "$PD_CONTROL" = 1 ]; then
    reason=$(status_field lost .stopReason)
    echo "# control: stopReason [$reason], $(condition_field lost Ready message)"
    check "control: with the protections off the loss is misreported" \
        [ "$reason" != agent-lost ]
    ctl_finish
    exit 0
fi
check_eq "lost: stopReason agent-lost" agent-lost \
    "$(status_field lost .stopReason)"
check_match "lost: the condition says AgentLost" 'AgentLost' \
    "$(condition_field lost Ready message)"
echo "# lost: $(condition_field lost Ready message)"
wait_phase later Succeeded 240
check_match "later: it reached the vendor through the proxy" \
    "vendor_body: $VENDOR_TOKEN" "$(agent_output later)"
check_eq "lost: its agent was not started again after the daemon came back" \
    0 "$(agent_starts "$uid" "$t1")"
sleep 3 # a few resyncs: still not rerun
check_eq "lost: still Failed" Failed "$(status_field lost .phase)"
check_eq "lost: still never restarted" 0 "$(agent_starts "$uid" "$t1")"
check_match "healthz 200 again" '^200 ok' "$(healthz)"
for n in lost later; do
    check_no_objects "$n: nothing of it left on the private daemon" \
        "agentctl.dev/uid=$(inv_uid "$n")" 90
done
ctl_finish
