#!/usr/bin/env bash
# test_admission_limits.sh - the config's limits bound every size a spec
# sets. Under the built-in limits (the scenario's config sets only
# deadline, workspace and output), a spec asking for 8Ti of memory with a
# 4Ti, 100M-inode scratch, and one asking for 65536 pids, stay Pending with
# Admitted=False naming the spec field and the limit, and nothing is
# created in Docker for them. Control: a spec with the CRD defaults, under
# the same config, is admitted and succeeds.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec huge execute "command: [/demo-agent]" \
    "resources: {memory: 8Ti}" "scratch: {size: 4Ti, inodes: 100000000}"
apply_spec scratchy execute "command: [/demo-agent]" \
    "scratch: {size: 64Mi, inodes: 100000000}"
apply_spec forky execute "command: [/demo-agent]" "resources: {pids: 65536}"
apply_spec fits execute "command: [/demo-agent]"

# wait_admitted NAME: until the Admitted condition is there.
wait_admitted() {
    for _ in $(seq 1 240); do
        [ -n "$(condition_field "$1" Admitted status)" ] && return 0
        sleep 0.5
    done
    fail "$1: no Admitted condition within 120s"
}

# refused NAME FIELD LIMIT
refused() {
    wait_admitted "$1"
    check_eq "$1: Admitted=False" False "$(condition_field "$1" Admitted status)"
    check_eq "$1: reason NotAdmitted" NotAdmitted \
        "$(condition_field "$1" Admitted reason)"
    check_match "$1: the message names $2 and $3" \
        "$2: .* is over the controller's limit of .* \\($3\\)" \
        "$(condition_field "$1" Admitted message)"
    check_eq "$1: still Pending" Pending "$(status_field "$1" .phase)"
}

refused huge spec.resources.memory limits.maxMemoryBytes
refused scratchy spec.scratch.inodes limits.maxScratchInodes
refused forky spec.resources.pids limits.maxPids

wait_phase fits Succeeded 240
check_eq "fits: Admitted=True" True "$(condition_field fits Admitted status)"
sleep 2 # a few resyncs: the refusals hold
for n in huge scratchy forky; do
    check_eq "$n: still Pending after resyncs" Pending "$(status_field $n .phase)"
    uid=$(inv_uid $n)
    check_match "$n: has a uid" '^[0-9a-f-]{36}$' "$uid"
    check_eq "$n: nothing in Docker carries its uid" "" \
        "$(labelled_objects "agentctl.dev/uid=$uid")"
done
actl delete huge scratchy forky >/dev/null 2>&1 || true
ctl_finish
