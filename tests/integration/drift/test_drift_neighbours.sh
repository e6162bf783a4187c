#!/usr/bin/env bash
# test_drift_neighbours.sh - what an attacker with the Docker socket does to
# a running box without touching any of its objects' attributes, each
# failing the attempt closed with the rule named (docs/drift-rules.md):
#
#  exec      docker exec -u 0 --privileged <agent> (a short one: it has
#            ended before any inspect could list it in ExecIDs; the
#            exec_create event carries it)        -> container.exec-ids
#  exec-bg   docker exec -d -u 0 --privileged, meant to keep running
#            (the inspect's ExecIDs shows it if the event is missed)
#                                                 -> container.exec-ids
#  net       docker run --network container:<agent>  -> container.joined
#  pid       docker run --pid container:<agent>      -> container.joined
#  vol       docker run -v <workspace volume>:/x     -> volume.foreign-mount
#  volfrom   docker run --volumes-from <keeper>      -> volume.foreign-mount
#  cpout     docker cp <agent>:/demo-agent -         -> container.archive
#  cpin      docker cp FILE <agent>:/tmp             -> container.archive
#
# and `docker run --ipc container:<agent>` never joins: Docker refuses to
# start a joiner of a private IPC namespace (held by container.ipc-mode),
# and the joiner it created names the agent: container.joined.
#
# Negative control: the same attacks under the test-hooks controller with
# container.exec-ids, container.joined, volume.foreign-mount and
# container.archive switched off
# (AGENTCTL_TEST_DISABLE_DRIFT_RULES): every attempt is still Running past
# the slowest positive detection plus 10 s.
#
# The attackers' containers carry the test label (removed on any exit)
# and an attacker label (removed by it before the cleanup checks).
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/lib_drift.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
ATTACKER=agentctl.test/attacker=$CTL_RUN # and the test label: EXIT removes
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600"
    "workspace: {source: small, size: 4Mi, inodes: 1000}")

# case | rule | role named (a/b: either; --volumes-from names the first
# mount Docker lists) | attack
CASES=(
    "exec|container.exec-ids|agent|att_exec"
    "exec-bg|container.exec-ids|agent|att_exec_bg"
    "net|container.joined|agent|att_run --network container:AGENT"
    "pid|container.joined|agent|att_run --pid container:AGENT"
    "vol|volume.foreign-mount|workspace|att_run -v WORKSPACE:/x"
    "volfrom|volume.foreign-mount|workspace/scratch|att_run --volumes-from KEEPER"
    "cpout|container.archive|agent|att_cp_out"
    "cpin|container.archive|agent|att_cp_in"
)
field() { cut -d'|' -f"$2" <<<"$1"; }

att_exec() { # NAME: a root, privileged exec that ends at once
    docker exec -u 0 --privileged "$(object_of "$1" agent)" \
        /demo-agent --exit 0 >/dev/null 2>&1 || true
}

# NAME: one that would keep running. The controller may kill the agent
# between the exec's create and its start (the exec_create event), and
# then the start fails: that is the point, not an error of the attack.
att_exec_bg() {
    docker exec -d -u 0 --privileged "$(object_of "$1" agent)" \
        /demo-agent --sleep 600 >/dev/null 2>&1 || true
}

# NAME: a docker cp out of the agent (archive-path) and into it
# (extract-to-dir, onto its scratch volume: the root is read-only)
att_cp_out() {
    docker cp "$(object_of "$1" agent):/demo-agent" - >/dev/null 2>&1
}
att_cp_in() {
    echo planted >"$TEST_TMP/planted"
    docker cp "$TEST_TMP/planted" "$(object_of "$1" agent):/tmp/planted" \
        >/dev/null 2>&1
}

# att_run FLAGS... NAME: a container of the attacker's with FLAGS, AGENT,
# KEEPER and WORKSPACE replaced by the invocation's objects. The controller
# judges created containers too, so it may kill the agent between the
# create and the start, and then the start fails: the attack was made.
att_run() {
    local n=${*: -1} args=() a
    for a in "${@:1:$#-1}"; do
        a=${a//AGENT/$(object_of "$n" agent)}
        a=${a//KEEPER/$(object_of "$n" keeper)}
        a=${a//WORKSPACE/$(object_of "$n" workspace volume)}
        args+=("$a")
    done
    docker run -d --label "$TEST_LABEL" --label "$ATTACKER" \
        --label "agentctl.test/target=$n" "${args[@]}" \
        "$BOX_IMAGE" sleep 600 >/dev/null 2>&1 || true
    [ -n "$(docker ps -aq --filter "label=$ATTACKER" --filter \
        "label=agentctl.test/target=$n")" ]
}

# attack PREFIX: every case's attack on PREFIX-<case>, with Running first.
attack() {
    local c
    for c in "${CASES[@]}"; do apply_spec "$1-$(field "$c" 1)" execute "${SLEEP[@]}"; done
    for c in "${CASES[@]}"; do wait_phase "$1-$(field "$c" 1)" Running 240; done
    t_att=$(date +%s.%N)
    for c in "${CASES[@]}"; do
        eval "$(field "$c" 4) $1-$(field "$c" 1)" ||
            fail "$1-$(field "$c" 1): the attack itself failed"
    done
}

# remove what the attackers made, then wait for the invocations' objects
finish() {
    local c
    docker ps -aq --filter "label=$ATTACKER" | xargs -r docker rm -f \
        >/dev/null
    for c in "${CASES[@]}"; do
        check_no_objects "$1-$(field "$c" 1): nothing of it left" \
            "agentctl.dev/uid=$(inv_uid "$1-$(field "$c" 1)")" 120
    done
}

# ---- the attacks fail closed ----
ctl_start
attack r
max_lat=0
for c in "${CASES[@]}"; do
    n=r-$(field "$c" 1)
    rule=$(field "$c" 2)
    check_eq "$n: Failed" Failed "$(wait_terminal "$n" 120)"
    check_eq "$n: stopReason boundary-drift" boundary-drift \
        "$(status_field "$n" .stopReason)"
    check_eq "$n: Drifted reason $rule" "$rule" \
        "$(condition_field "$n" Drifted reason)"
    msg=$(condition_field "$n" Drifted message)
    echo "# $n: $msg"
    role=$(field "$c" 3)
    check_match "$n: the message names the $role" "^(${role//\//|}) " "$msg"
    at=$(date -d "$(condition_field "$n" Drifted lastTransitionTime)" +%s)
    l=$(echo "$at + 1 - $t_att" | bc)
    l=${l%.*}
    l=${l#-}
    [ "${l:-0}" -lt "$max_lat" ] || max_lat=$((${l:-0} + 1))
done
echo "# slowest detection (upper bound, whole seconds): ${max_lat}s"
# --ipc container:<agent>: Docker refuses to join a private IPC namespace
apply_spec r-ipc execute "${SLEEP[@]}"
wait_phase r-ipc Running 240
if out=$(docker run -d --label "$TEST_LABEL" --label "$ATTACKER" --ipc \
    "container:$(object_of r-ipc agent)" "$BOX_IMAGE" sleep 600 2>&1); then
    fail "r-ipc: docker run --ipc container:<agent> was allowed: $out"
fi
echo "# r-ipc: $(tr '\n' ' ' <<<"$out")"
# The joiner is created either way; its start fails: Docker refuses to
# join a private IPC namespace (or the controller already killed the
# agent). The created joiner names the agent, so the attempt fails closed.
check_match "r-ipc: the join never happens" \
    "non-shareable IPC|is not running" "$out"
check_eq "r-ipc: the created joiner fails the attempt" Failed \
    "$(wait_terminal r-ipc 120)"
check_eq "r-ipc: Drifted reason container.joined" container.joined \
    "$(condition_field r-ipc Drifted reason)"
finish r
ctl_stop

# ---- negative control: the rules switched off ----
off=container.exec-ids,container.joined,volume.foreign-mount,container.archive
echo "# switched off: $off"
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE_DRIFT_RULES=$off ctl_start
check "the test-hooks controller switched the rules off" \
    grep -q 'drift rule disabled' "$CTL_LOG"
attack n
margin=$((max_lat + 10))
echo "# waiting ${margin}s: slowest positive detection + 10s"
sleep "$margin"
for c in "${CASES[@]}"; do
    n=n-$(field "$c" 1)
    rule=$(field "$c" 2)
    phase=$(status_field "$n" .phase)
    reason=$(condition_field "$n" Drifted reason)
    echo "# $n: phase $phase, Drifted reason ${reason:-none}"
    check "$n: with $rule off its check fails" not \
        grep -Eqx "Failed/$rule" <<<"$phase/$reason"
    check_eq "$n: still Running" Running "$phase"
done
for c in "${CASES[@]}"; do actl cancel "n-$(field "$c" 1)" >/dev/null; done
for c in "${CASES[@]}"; do wait_terminal "n-$(field "$c" 1)" 120 >/dev/null; done
finish n
ctl_stop
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
