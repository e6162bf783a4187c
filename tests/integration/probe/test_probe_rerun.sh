#!/usr/bin/env bash
# test_probe_rerun.sh - a pre-start boundary probe that gets no definite
# answer runs once more before the attempt fails (issue 34: under load, two
# controllers on one daemon, one inconclusive run failed whole runs). The
# test-hooks controller makes the first N verdicts of its process
# inconclusive (AGENTCTL_TEST_PROBE_SILENT=N):
#   once  (N=1): a BoundaryInconclusive event, the probe runs again, the
#         boundary is verified and the attempt Succeeded;
#   twice (N=2): silence twice fails the attempt closed (BoundaryVerified
#         False, reason Inconclusive, preparation-failed).
# Negative control (AGENTCTL_TEST_DISABLE=probe-rerun, N=1): the first
# silence fails the attempt (what the rerun prevents).
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init

# run NAME SILENT [DISABLE]: the spec under a fresh test-hooks controller
run() {
    CTL_LOG=$TEST_TMP/controller-$1.log
    CONTROLLER=$TESTHOOKS AGENTCTL_TEST_PROBE_SILENT=$2 \
        AGENTCTL_TEST_DISABLE=${3:-} ctl_start
    apply_spec "$1" execute "command: [/demo-agent]"
    wait_terminal "$1" 240 >/dev/null
    ctl_stop
}
events() { cat "$STATE/events/$1.jsonl"; }

run once 1
check_eq "once: Succeeded" Succeeded "$(status_field once .phase)"
check_eq "once: one inconclusive run said" 1 \
    "$(events once | grep -c '"reason":"BoundaryInconclusive"')"
check_eq "once: then the boundary was verified" Verified \
    "$(condition_field once BoundaryVerified reason)"

run twice 2
check_eq "twice: Failed" Failed "$(status_field twice .phase)"
check_eq "twice: preparation-failed" preparation-failed \
    "$(status_field twice .stopReason)"
check_eq "twice: BoundaryVerified reason Inconclusive" Inconclusive \
    "$(condition_field twice BoundaryVerified reason)"

run control 1 probe-rerun
check_eq "control: without the rerun one silence fails the attempt" Failed \
    "$(status_field control .phase)"
check_eq "control: no run again" 0 \
    "$(events control | grep -c '"reason":"BoundaryInconclusive"' || true)"
ctl_start # the plain controller: ctl_finish checks nothing is left
ctl_finish
