#!/usr/bin/env bash
# test_drift_standin.sh - the ID behind the name: an object
# removed behind the controller's back and recreated under the same name
# with identical attributes - labels included - is refused, and the
# stand-in is never deleted. Stand-ins made here: the internal network
# (network.id) and the keeper (container.id); a keeper removed with nothing
# in its place is object.gone.
#
#  - while the agent runs: Failed, stopReason boundary-drift, Drifted
#    whose reason is the rule and whose message holds the recorded and the
#    stand-in's ID, a Warning event StandInFound, the stand-in still there
#    after the attempt is cleaned up (and garbage collection ran);
#  - before the agent starts (a test-hooks controller stops itself once
#    the keeper started, the stand-in is made, a normal controller takes
#    over): DriftRepaired naming the rule and both IDs, StandInFound, the
#    agent never started, the rebuild refuses the stand-in (NameConflict,
#    preparation-failed) instead of adopting it by its copied labels, and
#    the stand-in is still there;
#  - negative control: the running case again under the test-hooks
#    controller with network.id, container.id and object.gone switched off
#    (AGENTCTL_TEST_DISABLE_DRIFT_RULES): each check fails - the attempt is
#    still Running past the slowest positive detection plus 10 s, and no
#    stand-in is reported.
#
# Stand-ins copy this run's labels (that is the point), so they are not
# marked with the test label; they are removed by the IDs the mutations
# recorded, and by the run's managed-by label on any exit.
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/lib_drift.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
on_cleanup remove_standins
PROD=$CONTROLLER
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")
declare -A RECORDED STANDIN OBJNAME

# case | role | rule | mutation (the controller sees only its end state)
CASES=(
    "net|network|network.id|mut_network_twin"
    "keeper|keeper|container.id|mut_keeper_standin"
    "gone|keeper|object.gone|mut_keeper_gone"
)
field() { cut -d'|' -f"$2" <<<"$1"; }

# The keeper replaced by a stand-in identical to it, started.
mut_keeper_standin() {
    local twin
    twin=$(standin keeper "$1" .) || return 1
    docker start "$twin" >/dev/null
}

mut_keeper_gone() {
    docker rm -f "$(object_of "$1" keeper)" >/dev/null
}

# id_under NAME ROLE: the ID of what Docker now has under the name of
# NAME's ROLE object (recorded before the mutation; "" when nothing).
id_under() {
    if [ "$2" = network ]; then
        docker network inspect -f '{{.Id}}' "${OBJNAME[$1]}" 2>/dev/null ||
            true
    else
        docker inspect -f '{{.Id}}' "${OBJNAME[$1]}" 2>/dev/null || true
    fi
}

# mutate NAME CASE-LINE: record ID and name, mutate, note the stand-in's ID.
mutate() {
    local n=$1 role
    role=$(field "$2" 2)
    RECORDED[$n]=$(status_field "$n" ".resources.$role.id")
    OBJNAME[$n]=$(status_field "$n" ".resources.$role.name")
    [ -n "${RECORDED[$n]}" ] && [ -n "${OBJNAME[$n]}" ] ||
        fail "$n: no recorded $role"
    eval "$(field "$2" 4) $n" || fail "$n: mutation failed"
    STANDIN[$n]=$(id_under "$n" "$role")
    echo "# $n: $role ${RECORDED[$n]:0:12} -> ${STANDIN[$n]:0:12}"
}

# events NAME REASON: the messages of NAME's events with that reason.
events() {
    jq -r --arg r "$2" 'select(.reason == $r) | "\(.type): \(.message)"' \
        "$STATE/events/$1.jsonl" 2>/dev/null || true
}

# check_standin_left NAME: the stand-in outlived the attempt's cleanup.
check_standin_left() {
    local n=$1
    [ -n "${STANDIN[$n]}" ] || return 0
    check_eq "$n: the stand-in ${STANDIN[$n]:0:12} is still there" \
        "${STANDIN[$n]}" "$(id_under "$n" "$(field "$2" 2)")"
}

# check_reported NAME CASE-LINE TEXT: TEXT names the rule's finding: both
# IDs for a stand-in, the recorded one (short) when gone.
check_reported() {
    local n=$1 rule
    rule=$(field "$2" 3)
    if [ "$rule" = object.gone ]; then
        check_match "$n: names the gone ID" "${RECORDED[$n]:0:12} is gone" "$3"
        return
    fi
    check_match "$n: names the recorded ID" "${RECORDED[$n]}" "$3"
    check_match "$n: names the stand-in's ID" "${STANDIN[$n]}" "$3"
}

# ---- while the agent runs: fail closed, stand-in left ----
ctl_start
for c in "${CASES[@]}"; do apply_spec "r-$(field "$c" 1)" execute "${SLEEP[@]}"; done
for c in "${CASES[@]}"; do wait_phase "r-$(field "$c" 1)" Running 240; done
kill -STOP "$CTL_PID"
for c in "${CASES[@]}"; do mutate "r-$(field "$c" 1)" "$c"; done
t_mut=$(date +%s.%N)
kill -CONT "$CTL_PID"
max_lat=0
for c in "${CASES[@]}"; do
    n=r-$(field "$c" 1)
    rule=$(field "$c" 3)
    check_eq "$n: Failed" Failed "$(wait_terminal "$n" 120)"
    check_eq "$n: stopReason boundary-drift" boundary-drift \
        "$(status_field "$n" .stopReason)"
    check_eq "$n: Drifted=True" True "$(condition_field "$n" Drifted status)"
    check_eq "$n: Drifted reason $rule" "$rule" \
        "$(condition_field "$n" Drifted reason)"
    msg=$(condition_field "$n" Drifted message)
    echo "# $n: $msg"
    check_match "$n: the message names the $(field "$c" 2)" \
        "^$(field "$c" 2) agentctl-$n-" "$msg"
    check_reported "$n" "$c" "$msg"
    at=$(date -d "$(condition_field "$n" Drifted lastTransitionTime)" +%s)
    l=$(echo "$at + 1 - $t_mut" | bc)
    l=${l%.*}
    l=${l#-}
    [ "${l:-0}" -lt "$max_lat" ] || max_lat=$((${l:-0} + 1))
    ev=$(events "$n" StandInFound)
    if [ -n "${STANDIN[$n]}" ]; then
        echo "# $n: $ev"
        check_match "$n: a Warning event StandInFound" "^Warning: " "$ev"
        check_match "$n: which names both IDs" \
            "${RECORDED[$n]:0:12}.*${STANDIN[$n]:0:12}" "$ev"
        check_eq "$n: status.standIns holds it" "$(field "$c" 2)" \
            "$(status_field "$n" ".standIns[\"${STANDIN[$n]}\"]")"
    else
        check_eq "$n: nothing under the name, no StandInFound" "" "$ev"
    fi
done
echo "# slowest detection (upper bound, whole seconds): ${max_lat}s"
check "r-keeper: the agent is not running any more" not test \
    "$(docker inspect -f '{{.State.Running}}' \
        "$(object_of r-keeper agent)" 2>/dev/null)" == true
# Cleanup ran (CleanedUp, or the agent and proxy at least are gone where a
# stand-in holds the volumes), and garbage collection ran past it.
for c in "${CASES[@]}"; do
    n=r-$(field "$c" 1)
    uid=$(inv_uid "$n")
    for role in agent proxy; do
        check_no_objects "$n: its $role is removed" \
            "agentctl.dev/uid=$uid agentctl.dev/role=$role" 60
    done
done
sleep 3 # three resyncs, each with garbage collection
for c in "${CASES[@]}"; do check_standin_left "r-$(field "$c" 1)" "$c"; done
remove_standins
for c in "${CASES[@]}"; do
    n=r-$(field "$c" 1)
    check_no_objects "$n: nothing of it left" \
        "agentctl.dev/uid=$(inv_uid "$n")" 90
done
ctl_stop

# ---- before the agent starts: repaired, stand-in refused, not adopted ----
# prestart NAME CASE-LINE
prestart() {
    local n=$1 c=$2 rule ev t uid starts
    rule=$(field "$c" 3)
    t=$(date +%s)
    apply_spec "$n" execute "${SLEEP[@]}"
    ctl_crash_at done:keeperStarted "$n"
    mutate "$n" "$c"
    ctl_start
    check_eq "$n: Failed" Failed "$(wait_terminal "$n" 240)"
    ev=$(events "$n" DriftRepaired)
    echo "# $n: DriftRepaired: $ev"
    check_match "$n: DriftRepaired names the $(field "$c" 2)" \
        "^Warning: $(field "$c" 2) agentctl-$n-" "$ev"
    check_reported "$n" "$c" "$ev"
    # (the Drifted condition is Verified again once the rebuild's empty
    # round passes: the event is the record of the repair)
    check_match "$n: as a stand-in ($rule)" "a stand-in holds the name" "$ev"
    ev=$(events "$n" StandInFound)
    check_match "$n: a Warning event StandInFound" "^Warning: " "$ev"
    ev=$(events "$n" NameConflict)
    echo "# $n: NameConflict: $ev"
    check_match "$n: the rebuild refuses the stand-in" \
        "^Warning: $(field "$c" 2) .* is not this attempt's" "$ev"
    check_eq "$n: stopReason preparation-failed" preparation-failed \
        "$(status_field "$n" .stopReason)"
    check_eq "$n: never adopted" "" "$(events "$n" Adopted)"
    uid=$(inv_uid "$n")
    check_eq "$n: its agent never started" 0 "$(agent_starts "$uid" "$t")"
    check_no_objects "$n: its proxy is removed" \
        "agentctl.dev/uid=$uid agentctl.dev/role=proxy" 60
    sleep 3 # garbage collection
    check_standin_left "$n" "$c"
    remove_standins
    check_no_objects "$n: nothing of it left" "agentctl.dev/uid=$uid" 90
    ctl_stop
}
prestart p-net "${CASES[0]}"
prestart p-keeper "${CASES[1]}"

# ---- negative control: the rules switched off ----
off=network.id,container.id,object.gone
echo "# switched off: $off"
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE_DRIFT_RULES=$off ctl_start
CONTROLLER=$PROD
check "the test-hooks controller switched the rules off" \
    grep -q 'drift rule disabled' "$CTL_LOG"
for c in "${CASES[@]}"; do apply_spec "n-$(field "$c" 1)" execute "${SLEEP[@]}"; done
for c in "${CASES[@]}"; do wait_phase "n-$(field "$c" 1)" Running 240; done
kill -STOP "$CTL_PID"
for c in "${CASES[@]}"; do mutate "n-$(field "$c" 1)" "$c"; done
kill -CONT "$CTL_PID"
margin=$((max_lat + 10))
echo "# waiting ${margin}s: slowest positive detection + 10s"
sleep "$margin"
for c in "${CASES[@]}"; do
    n=n-$(field "$c" 1)
    rule=$(field "$c" 3)
    phase=$(status_field "$n" .phase)
    reason=$(condition_field "$n" Drifted reason)
    echo "# $n: phase $phase, Drifted reason ${reason:-none}"
    check "$n: with $rule off its check fails" not \
        grep -Eqx "Failed/$rule" <<<"$phase/$reason"
    check_eq "$n: and no stand-in is reported" "" "$(events "$n" StandInFound)"
done
for c in "${CASES[@]}"; do actl cancel "n-$(field "$c" 1)" >/dev/null; done
for c in "${CASES[@]}"; do wait_terminal "n-$(field "$c" 1)" 120 >/dev/null; done
for c in "${CASES[@]}"; do
    n=n-$(field "$c" 1)
    check_no_objects "$n: its proxy is removed" \
        "agentctl.dev/uid=$(inv_uid "$n") agentctl.dev/role=proxy" 60
done
remove_standins
for c in "${CASES[@]}"; do
    n=n-$(field "$c" 1)
    check_no_objects "$n: nothing of it left" \
        "agentctl.dev/uid=$(inv_uid "$n")" 90
done
ctl_stop
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
