#!/usr/bin/env bash
# test_seccomp_required.sh - the controller checks the daemon at start
# (GET /info) and refuses to build boxes on one that runs containers
# without seccomp, saying so in /healthz (docs/security-defaults.md):
#
#  - the shared daemon (seccomp profile default, no AppArmor): /healthz ok
#    with "seccomp: profile default; apparmor no", and a spec runs;
#  - a daemon that lists no seccomp (the test-hooks controller replaces
#    SecurityOptions with AGENTCTL_TEST_INFO_SECURITY='["name=apparmor"]',
#    since the shared daemon cannot be changed): /healthz 503 naming
#    seccomp, the log says it refuses, and a spec applied stays Pending,
#    its condition Waiting=True/DockerUnconfined (docs/status.md), with not
#    one Docker object after several resyncs; "unconfined" alike;
#  - negative control: the same hook with a seccomp entry
#    ('["name=seccomp,profile=default"]') builds the box - so what keeps the
#    refused specs Pending is the check, not the hook.
source "$(dirname "$0")/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")

healthz() { curl -sS --max-time 5 "http://$CTL_METRICS/healthz" 2>/dev/null || true; }
healthz_code() {
    curl -sS --max-time 5 -o /dev/null -w '%{http_code}' \
        "http://$CTL_METRICS/healthz" 2>/dev/null || true
}

# launch_hooked SECURITY-OPTIONS-JSON: the test-hooks controller with the
# daemon's SecurityOptions replaced; waits until /healthz answers at all.
launch_hooked() {
    AGENTCTL_TEST_INFO_SECURITY=$1 "$TESTHOOKS" --specs "$SPECS" \
        --state "$STATE" --config "$CONFIG" --resync 1s \
        --metrics "$CTL_METRICS" --controller-id "$CTL_ID" >>"$CTL_LOG" 2>&1 &
    CTL_PID=$!
    for _ in $(seq 1 120); do # readiness, not a timed assertion
        [ "$(healthz_code)" = 000 ] || return 0
        ctl_alive || fail "the test-hooks controller exited: $(tail -n 5 "$CTL_LOG")"
        sleep 0.25
    done
    fail "/healthz never answered"
}

# ---- the shared daemon: seccomp default ----
ctl_start
h=$(healthz)
echo "# healthz: $(tr '\n' ';' <<<"$h")"
check_match "healthz: seccomp named, apparmor as the host has it" \
    'seccomp: profile default; apparmor (yes|no)' "$h"
check "the log says how the daemon confines boxes" \
    grep -q '"msg":"Docker daemon confines boxes"' "$CTL_LOG"
apply_spec ok1 execute "${SLEEP[@]}"
wait_phase ok1 Running 240
actl cancel ok1 >/dev/null
wait_terminal ok1 120 >/dev/null
check_no_objects "ok1: nothing of it left" "agentctl.dev/uid=$(inv_uid ok1)" 90
ctl_stop

# ---- no seccomp: refused ----
n=no0
for fake in '["name=apparmor"]' '["name=seccomp,profile=unconfined"]'; do
    n=no$((${n#no} + 1))
    launch_hooked "$fake"
    apply_spec "$n" execute "${SLEEP[@]}"
    sleep 4 # four resyncs: each asks GET /info again and captures nothing
    code=$(healthz_code)
    h=$(healthz)
    echo "# $n ($fake): healthz $code: $(tr '\n' ';' <<<"$h")"
    check_eq "$n: healthz 503" 503 "$code"
    check_match "$n: healthz names the refusal" \
        'seccomp: .*refusing to run boxes' "$h"
    check "$n: the log says it refuses" \
        grep -q '"msg":"refusing to run boxes"' "$CTL_LOG"
    phase=$(status_field "$n" .phase)
    check_eq "$n: the spec stays Pending (no status is Pending too)" Pending \
        "${phase:-Pending}"
    check_eq "$n: not captured" "" "$(status_field "$n" .imageID 2>/dev/null)"
    check_eq "$n: the condition Waiting says why: DockerUnconfined" \
        "True DockerUnconfined" \
        "$(condition_field "$n" Waiting status) $(condition_field "$n" Waiting reason)"
    check_eq "$n: no Docker object of it" "" \
        "$(labelled_objects "agentctl.dev/managed-by=$CTL_ID")"
    ctl_stop
    actl delete "$n" >/dev/null 2>&1 || true
done

# ---- negative control: the hook with seccomp listed builds the box ----
launch_hooked '["name=seccomp,profile=default"]'
apply_spec ctl1 execute "${SLEEP[@]}"
wait_phase ctl1 Running 240
check_match "ctl1: healthz seccomp ok under the hook" \
    'seccomp: profile default' "$(healthz)"
actl cancel ctl1 >/dev/null
wait_terminal ctl1 120 >/dev/null
check_no_objects "ctl1: nothing of it left" "agentctl.dev/uid=$(inv_uid ctl1)" 90
ctl_stop
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
