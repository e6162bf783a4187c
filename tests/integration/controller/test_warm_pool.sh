#!/usr/bin/env bash
# test_warm_pool.sh - the warm pool (docs/warm-pool.md) with warmPool
# {fake: 1}:
#   - a box is made ahead: an Internal network and a running proxy on it,
#     labelled invocation=pool.fake, no probe left, shown Ready in the pool
#     document and in agentctl_pool_boxes;
#   - an invocation takes it: its status records the box's network and
#     proxy IDs (status.box, BoundaryVerified reason WarmBox, a
#     WarmBoxTaken event), it Succeeds, and the box goes with its cleanup;
#   - never reused: the pool makes a new box (another network ID), the
#     next invocation gets that one, and the first box's network is gone;
#   - a box changed while it waits (`docker update --restart always` on its
#     proxy) is removed and replaced, never handed (agentctl_pool_handovers
#     {result="drifted"}). Negative control: with the pool's revalidation
#     switched off (test-hooks build, AGENTCTL_TEST_DISABLE=
#     pool-revalidation) the changed box is handed, and the invocation's
#     own round after the hand-over finds it (DriftRepaired) and builds a
#     box of its own: the drift rules hold either way, and the pool's
#     check is what keeps a changed box from being handed;
#   - a controller killed with a box ready: the next start removes that box
#     (nobody recorded it) and makes a new one;
#   - a controller killed after the hand-over's record (at the keeper's
#     start, test-hooks build): the next one goes on with the box - the
#     invocation runs on the box's network, and garbage collection keeps
#     it (it is recorded in a live status). Negative control: with that
#     rule off (AGENTCTL_TEST_DISABLE=warm-box-gc) garbage collection
#     removes a running invocation's box (its objects carry the box's
#     uid), and the invocation fails closed on the drift.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
echo "warmPool: {fake: 1}" >>"$CONFIG"
POOL_DOC=$STATE/pool/$CTL_ID.json

# ready_box: "<network ID> <proxy ID> <name>" of the Ready box of the pool
# document, once there is one (bounded wait); fails the test otherwise.
ready_box() {
    local box
    for _ in $(seq 1 600); do
        box=$(jq -r '.boxes[] | select(.state == "Ready") |
            "\(.network) \(.proxy) \(.name)"' "$POOL_DOC" 2>/dev/null |
            head -n 1)
        [ -n "$box" ] && [ "$box" != "${1:-}" ] && echo "$box" && return 0
        sleep 0.1
    done
    fail "no Ready box in the pool document${1:+ other than $1}: $(cat "$POOL_DOC" 2>/dev/null)"
}

metric() {
    curl -fsS "http://$CTL_METRICS/metrics" | awk -v k="$1" '$1 == k { print $2 }'
}

# run_warm NAME: a spec that echoes its name and runs for 2 s; waits for
# it to run (its status then records its objects: cleanup drops them).
run_warm() {
    apply_spec "$1" execute "image: $BOX_IMAGE" \
        "command: [sh, -c, \"echo ran-$1; sleep 2\"]"
    wait_phase "$1" Running 300
}

gone() { ! docker network inspect "$1" >/dev/null 2>&1; }

# wait_gone ID: bounded wait until the network is gone.
wait_gone() {
    for _ in $(seq 1 300); do
        gone "$1" && return 0
        sleep 0.1
    done
    return 1
}

ctl_start
read -r net1 proxy1 name1 <<<"$(ready_box)"
check_eq "the box's network is Internal and the pool's" "true pool.fake" \
    "$(docker network inspect -f '{{.Internal}} {{index .Labels "agentctl.dev/invocation"}}' "$net1")"
check_eq "its proxy runs on it" "true" \
    "$(docker inspect -f '{{.State.Running}}' "$proxy1")"
check_eq "no probe of the box is left" "" \
    "$(docker ps -aq --filter "label=$MANAGED" --filter label=agentctl.dev/role=probe)"
check_match "agentctl get pool shows it Ready" "^$name1 +fake +Ready +10\\." \
    "$(actl get pool --no-headers)"
check_eq "agentctl_pool_boxes says one ready" 1 \
    "$(metric 'agentctl_pool_boxes{state="ready",vendor="fake"}')"

run_warm w1
check_eq "w1 recorded the box's network" "$net1" "$(status_field w1 .resources.network.id)"
check_eq "w1 recorded the box's proxy" "$proxy1" "$(status_field w1 .resources.proxy.id)"
check_eq "w1's status.box names it" "$name1" "$(status_field w1 .box.name)"
check_eq "BoundaryVerified comes from the warm box" WarmBox \
    "$(condition_field w1 BoundaryVerified reason)"
check "w1 has a WarmBoxTaken event" grep -q '"reason":"WarmBoxTaken"' \
    "$STATE/events/w1.jsonl"
wait_phase w1 Succeeded 120
check_match "w1 ran" "^ran-w1$" "$(agent_output w1)"
check "the box went with w1's cleanup" wait_gone "$net1"

read -r net2 proxy2 _ <<<"$(ready_box "$net1 $proxy1 $name1")"
check "the pool made a new box (another network)" test "$net2" != "$net1"
run_warm w2
check_eq "w2 got the new box, not the first" "$net2" \
    "$(status_field w2 .resources.network.id)"
wait_phase w2 Succeeded 120
check_eq "agentctl_pool_handovers_total{result=handed} is 2" 2 \
    "$(metric 'agentctl_pool_handovers_total{result="handed",vendor="fake"}')"

# A box changed while it waits is removed, not handed.
read -r net3 proxy3 name3 <<<"$(ready_box "$net2 $proxy2")"
docker update --restart always "$proxy3" >/dev/null
check "the changed box is removed" wait_gone "$net3"
read -r net4 _ _ <<<"$(ready_box "$net3 $proxy3 $name3")"
check "and replaced by another" test "$net4" != "$net3"
check "agentctl_pool_handovers_total{result=drifted} counts it" \
    test "$(metric 'agentctl_pool_handovers_total{result="drifted",vendor="fake"}')" -ge 1

# Killed with a box ready: the next start removes it and makes a new one.
kill -9 "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
rm -f "$POOL_DOC"
ctl_start
check "the box nobody recorded is removed at start-up" wait_gone "$net4"
read -r net5 _ _ <<<"$(ready_box)"
check "a new box is made" test "$net5" != "$net4"
ctl_stop

# Killed after the hand-over's record: the next controller goes on with it.
rm -f "$POOL_DOC"
ctl_hooked done:keeperStarted
read -r net7 _ name7 <<<"$(ready_box "$net5")"
apply_spec w4 execute "image: $BOX_IMAGE" "command: [sh, -c, \"echo ran-w4; sleep 2\"]"
ctl_wait_crash done:keeperStarted "w4"
check_eq "w4's status recorded the box before the crash" "$name7" \
    "$(status_field w4 .box.name)"
ctl_start
wait_phase w4 Running 300
check_eq "the next controller runs w4 on the box's network" "$net7" \
    "$(status_field w4 .resources.network.id)"
wait_phase w4 Succeeded 120
check_match "w4 ran" "^ran-w4$" "$(agent_output w4)"
check "w4's box went with its cleanup" wait_gone "$net7"
ctl_stop

# Control: the pool's revalidation off; the changed box is handed, and
# the invocation's own round after the hand-over catches it.
rm -f "$POOL_DOC"
CTL_LOG=$TEST_TMP/controller-hooked.log
CONTROLLER=$BUILD/controller/agent-controller-testhooks \
    AGENTCTL_TEST_DISABLE=pool-revalidation ctl_start
read -r net6 proxy6 name6 <<<"$(ready_box)"
docker update --restart always "$proxy6" >/dev/null
sleep 3 # three pool checks (--resync 1s) that would have removed it
check "control: the changed box is still there" not gone "$net6"
run_warm w3
check "control: w3 took the changed box" grep -q "\"reason\":\"WarmBoxTaken\".*$name6" \
    "$STATE/events/w3.jsonl"
check "control: w3's round found the drift and rebuilt (DriftRepaired)" \
    grep -q '"reason":"DriftRepaired".*RestartPolicy.Name is \\"always\\"' \
    "$STATE/events/w3.jsonl"
check "control: w3 ran on a box of its own" test \
    "$(status_field w3 .resources.network.id)" != "$net6"
check "control: the changed box went with the repair" wait_gone "$net6"
wait_phase w3 Succeeded 120
check_match "control: w3 ran" "^ran-w3$" "$(agent_output w3)"
ctl_stop

# Control: garbage collection without the rule that keeps a handed box.
rm -f "$POOL_DOC"
CTL_LOG=$TEST_TMP/controller-gc.log
CONTROLLER=$BUILD/controller/agent-controller-testhooks \
    AGENTCTL_TEST_DISABLE=warm-box-gc ctl_start
read -r _ proxy8 name8 <<<"$(ready_box)"
apply_spec w5 execute "image: $BOX_IMAGE" "command: [sh, -c, \"sleep 20\"]"
wait_terminal w5 120 >/dev/null
check "control: w5 took the box" grep -q "\"reason\":\"WarmBoxTaken\".*$name8" \
    "$STATE/events/w5.jsonl"
check "control: garbage collection removed the box's proxy" grep -q \
    "removing an orphan.*$proxy8" "$CTL_LOG"
check "control: and w5 saw it as drift (repaired before its start, or failed closed)" \
    grep -q -E '"reason":"DriftRepaired"|"stopReason": ?"boundary-drift"' \
    "$STATE/events/w5.jsonl" "$(status_file w5)"
ctl_stop

check_no_objects "no object of an invocation is left" \
    "$MANAGED agentctl.dev/role=agent" 60
