#!/usr/bin/env bash
# test_state_readonly.sh - the state directory turns read-only under a
# running controller (issue 34: it retried status writes forever, and
# nothing said why nothing moved). What is expected (docs/design.md
# "Status writes"):
#   - a spec applied meanwhile is not started (its metadata cannot be
#     written): nothing is made for it in Docker; a running agent goes on;
#   - /readyz answers 503 with a "state" line naming the directory and
#     the error; the log says it once (not once per retry);
#   - the writes are retried with the step backoff (up to 30 s), not in
#     a busy loop: few failed writes and little CPU over 10 s;
#   - made writable again, /readyz is 200 within the backoff cap, the log
#     says so once, and the invocation runs to Succeeded.
# The state directory's documents are made read-only by read-only bind
# mounts (root ignores permission bits, not a read-only mount).
#
# Negative control (test-hooks build, AGENTCTL_TEST_DISABLE=state-check:
# as before the fix): /readyz stays 200 while nothing can be written.
source "$(dirname "$0")/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
RO_DIRS=(status meta events)
mkdir -p "${RO_DIRS[@]/#/$STATE/}"
on_cleanup set_rw

readyz() { curl -sS --max-time 5 -o "$TEST_TMP/readyz" -w '%{http_code}' \
    "http://$CTL_METRICS/readyz" 2>/dev/null || true; }
# set_ro / set_rw: the state directory's documents made read-only by a
# read-only bind mount on each of their directories, and back (a remount
# of a whole filesystem fails while a running agent's output file is open
# for writing; the kernel's own remount after a disk error does not ask)
set_ro() {
    local d
    for d in "${RO_DIRS[@]}"; do
        mount --bind "$STATE/$d" "$STATE/$d" &&
            mount -o remount,bind,ro "$STATE/$d" ||
            skip "cannot bind-mount $STATE/$d read-only (not root?)"
    done
}
set_rw() {
    local d
    for d in "${RO_DIRS[@]}"; do
        while mountpoint -q "$STATE/$d"; do umount "$STATE/$d" || break; done
    done
}
# cpu_ticks: user + system clock ticks of the controller so far
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$CTL_PID/stat"; }
log_count() { grep -c -- "$1" "$CTL_LOG" || true; }

# put_spec NAME: a spec file written straight into the specs directory
# (the GitOps path: agentctl apply takes a lock under the state directory)
put_spec() {
    cat >"$SPECS/$1.yaml.tmp" <<EOF
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata:
  name: $1
spec:
  vendor: fake
  phase: execute
  image: $DEMO_IMAGE
  deadlineSeconds: 300
  command: [/demo-agent]
EOF
    mv "$SPECS/$1.yaml.tmp" "$SPECS/$1.yaml"
}

# wait_readyz CODE TIMEOUT-S: until /readyz answers CODE
wait_readyz() {
    local end=$((SECONDS + $2)) got=
    while [ "$SECONDS" -lt "$end" ]; do
        got=$(readyz)
        [ "$got" = "$1" ] && return 0
        sleep 0.25
    done
    echo "$got"
    return 1
}

# ---- the fix ----
ctl_start
check_eq "/readyz 200 at start" 200 "$(readyz)"
check_match "its state line names the directory" "^state: ok \\($STATE\\)" \
    "$(grep '^state:' "$TEST_TMP/readyz")"
apply_spec run execute "command: [/demo-agent, --sleep, \"600\"]" \
    "deadlineSeconds: 600"
wait_phase run Running 240
agent=$(object_of run agent)
set_ro
put_spec held
check "/readyz 503 within 10 s of the first failed write" wait_readyz 503 10
state=$(grep '^state:' "$TEST_TMP/readyz")
echo "# $state"
check_match "its state line names the directory" "^state: cannot write $STATE: " \
    "$state"
check_match "and the error" 'Read-only file system' "$state"
ticks=$(cpu_ticks)
failed=$(log_count '"step failed, will retry"')
sleep 10
failed=$(($(log_count '"step failed, will retry"') - failed))
ticks=$(($(cpu_ticks) - ticks))
echo "# over 10 s: $failed failed writes retried, $ticks CPU ticks"
# Two invocations fail their writes here (run's status, held's
# metadata). Each is retried by its backoff (100 ms doubling: about 7
# in 10 s) and by every resync (1 s: 10 in 10 s), so up to about 34; a
# loop would make thousands (measured: 23-24 on a loaded machine, where a
# bound of 20 failed once).
check "no busy loop: at most 40 retries in 10 s ($failed)" test "$failed" -le 40
check "no busy loop: under 1 s of CPU in 10 s ($ticks ticks)" \
    test "$ticks" -lt "$(getconf CLK_TCK)"
check_eq "the log says it once" 1 \
    "$(log_count 'cannot write the state directory')"
check_match "naming the directory" "\"state\":\"$STATE\"" \
    "$(grep 'cannot write the state directory' "$CTL_LOG")"
check_eq "nothing was made in Docker for the unrecorded invocation" "" \
    "$(docker ps -aq --filter label=agentctl.dev/invocation=held \
        --filter "label=$MANAGED")"
check_eq "no status on disk" "" "$(status_field held .phase)"
check_eq "run: its agent goes on meanwhile" true \
    "$(docker inspect -f '{{.State.Running}}' "$agent")"
set_rw
check "/readyz 200 again within the backoff cap" wait_readyz 200 40
check_eq "run: still Running after" Running "$(status_field run .phase)"
actl cancel run >/dev/null
check_eq "run: Cancelled" Cancelled "$(wait_terminal run 120)"
check_eq "the log says it can write again, once" 1 \
    "$(log_count 'the state directory can be written again')"
check_eq "held: Succeeded" Succeeded "$(wait_terminal held 240)"
check_no_objects "held: nothing of it left" \
    "agentctl.dev/uid=$(inv_uid held)" 120
ctl_stop

# ---- control: the check off -> /readyz says ok while nothing is written ----
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=state-check ctl_start
set_ro
put_spec ctrl
for _ in $(seq 1 40); do # the first write has failed
    [ "$(log_count '"step failed, will retry"')" -gt 0 ] && break
    sleep 0.25
done
sleep 2
check_eq "ctrl: without the fix /readyz is 200 while nothing is written" \
    200 "$(readyz)"
set_rw
check_eq "ctrl: Succeeded once writable" Succeeded "$(wait_terminal ctrl 240)"
ctl_finish
echo "# $CHECKS checks passed"
