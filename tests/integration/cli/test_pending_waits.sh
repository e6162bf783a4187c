#!/usr/bin/env bash
# test_pending_waits.sh - a Pending invocation says what it waits for
# (docs/status.md "Conditions": Waiting), on the real controller and the
# directory store: with the Docker daemon unreachable, Waiting=True
# DockerUnreachable with a message that says what to do, shown by
# `agentctl describe`, and one DockerUnreachable event however many
# passes the wait lasts; the daemon back, Waiting=False WaitOver, one
# WaitOver event, and the invocation runs; one cancelled while it waits
# ends Cancelled with Waiting=False WaitOver. A spec the config refuses waits
# NotAdmitted (one event); with --max-building 1 the ones behind a box in
# the build line wait BuildQueued and end WaitOver. Negative control: the
# test-hooks controller with AGENTCTL_TEST_DISABLE=wait-event-once writes
# the event at every pass of the same wait (several, where the protected
# one wrote one).
source "$(dirname "$0")/../controller/lib_controller.sh"
ctl_init

NO_DOCKER=unix://$TEST_TMP/no-docker.sock
TESTHOOKS=$BUILD/controller/agent-controller-testhooks

# events NAME REASON: how many events of NAME have REASON.
events() {
    local f=$STATE/events/$1.jsonl
    [ -s "$f" ] || { echo 0; return; }
    jq -r .reason "$f" | grep -cx "$2" || true
}

# passes: the controller's reconcile passes so far (a wait's length in
# passes, so "one event" is measured over several).
passes() {
    curl -fsS "http://$CTL_METRICS/metrics" |
        awk '$1 ~ /^agentctl_reconciles_total/ { n += $2 } END { print n + 0 }'
}

# wait_waiting NAME REASON: until Waiting's reason is REASON (60 s).
wait_waiting() {
    for _ in $(seq 1 240); do
        [ "$(condition_field "$1" Waiting reason)" == "$2" ] && return 0
        sleep 0.25
    done
    fail "$1: Waiting never became $2 (it is [$(condition_field "$1" Waiting reason)])"
}

# unreachable_passes NAME N: until the controller made N more passes after
# NAME began to wait for the Docker daemon.
unreachable_passes() {
    local name=$1 from
    wait_waiting "$name" DockerUnreachable
    from=$(passes)
    for _ in $(seq 1 240); do
        [ "$(passes)" -ge $((from + $2)) ] && return 0
        sleep 0.25
    done
    fail "the controller made no $2 passes within 60 s"
}

apply_spec early execute "command: [/demo-agent]"
ctl_start --docker "$NO_DOCKER"
unreachable_passes early 4
check_eq "no Docker: Waiting=True" True "$(condition_field early Waiting status)"
check_match "no Docker: the message says what waits and what to do" \
    '^waiting for the Docker daemon: .+; start dockerd or point the controller.s --docker' \
    "$(condition_field early Waiting message)"
check_eq "no Docker: still Pending" Pending "$(status_field early .phase)"
out=$(actl describe early)
check_match "describe: the Waiting condition and its reason" \
    'Waiting +True +[0-9TZ:-]+ +DockerUnreachable' "$out"
check_match "describe: the DockerUnreachable event" 'Warning +DockerUnreachable' "$out"
check_eq "one DockerUnreachable event over 4+ passes of the wait" 1 \
    "$(events early DockerUnreachable)"
# cancelled while it waits: the wait is over too (no Waiting=True left on
# a Cancelled invocation)
apply_spec cancelme execute "command: [/demo-agent]"
wait_waiting cancelme DockerUnreachable
actl cancel cancelme >/dev/null
wait_phase cancelme Cancelled 60
check_eq "cancelled while waiting: Waiting=False WaitOver" "False WaitOver" \
    "$(condition_field cancelme Waiting status) $(condition_field cancelme Waiting reason)"
ctl_stop

# control: the same wait without the once-per-change rule
if [ -x "$TESTHOOKS" ]; then
    apply_spec noisy execute "command: [/demo-agent]"
    CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=wait-event-once \
        ctl_start --docker "$NO_DOCKER"
    unreachable_passes noisy 4
    n=$(events noisy DockerUnreachable)
    check "control: an event at every pass without the rule ($n > 1)" \
        test "$n" -gt 1
    ctl_stop
    actl delete noisy >/dev/null
fi

# the daemon back: the wait is over, once
ctl_start --max-building 1
wait_phase early Succeeded 300
check_eq "Docker back: Waiting=False" False "$(condition_field early Waiting status)"
check_eq "Docker back: reason WaitOver" WaitOver "$(condition_field early Waiting reason)"
check_match "WaitOver names what was waited for" 'it was DockerUnreachable' \
    "$(condition_field early Waiting message)"
check_eq "one WaitOver event" 1 "$(events early WaitOver)"

# admission: waits for a spec or a config that admits it
apply_spec huge execute "command: [/demo-agent]" "resources: {memory: 8Ti}"
wait_waiting huge NotAdmitted
from=$(passes)
for _ in $(seq 1 240); do [ "$(passes)" -ge $((from + 4)) ] && break; sleep 0.25; done
check_match "NotAdmitted: the field and what to do" \
    'resources.memory.*raise the limit in the controller.s config' \
    "$(condition_field huge Waiting message)"
check_eq "one NotAdmitted event over 4+ passes" 1 "$(events huge NotAdmitted)"
check_match "describe shows it" 'Waiting +True +[0-9TZ:-]+ +NotAdmitted' "$(actl describe huge)"

# build slots: who waited in line says so, and ends WaitOver
for i in 0 1 2; do apply_spec "slot-$i" execute "command: [/demo-agent]"; done
queued=0
for i in 0 1 2; do
    wait_phase "slot-$i" Succeeded 600
    [ "$(events "slot-$i" BuildQueued)" -eq 1 ] || continue
    queued=$((queued + 1))
    check_eq "slot-$i waited, and the wait is over" WaitOver \
        "$(condition_field "slot-$i" Waiting reason)"
done
check "at least one waited for a build slot ($queued)" test "$queued" -ge 1

actl delete huge early cancelme slot-0 slot-1 slot-2 >/dev/null
ctl_finish
echo "PASS: $CHECKS checks"
