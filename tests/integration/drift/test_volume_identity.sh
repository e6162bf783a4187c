#!/usr/bin/env bash
# test_volume_identity.sh - a volume swapped for an exact copy (same name,
# labels and options) between its create and the keeper's is caught before
# the keeper mounts it: the storage lane inspects the volumes' identity
# (their CreatedAt, which a mount moves) right before the keeper's create
# (docs/design.md "The step graph"). The test-hooks controller stops itself
# (SIGSTOP) once the last volume is created, the test swaps the workspace
# volume, then lets it go on: DriftRepaired names the volume's CreatedAt,
# the stand-in is left in place and refused on the rebuild (NameConflict),
# the attempt fails closed, and the stand-in is untouched.
#
# Negative control: the same with the check switched off
# (AGENTCTL_TEST_DISABLE=storage-verify): the keeper mounts the copy, no
# round before the start can tell it (a mounted volume's CreatedAt is its
# root's ctime, and the copy's options are the same), the agent runs on a
# volume that was never the attempt's, and only cleanup tells it apart
# (StandInLeft), afterwards.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
SPEC=("command: [/demo-agent, --write-work]"
    "workspace: {source: small, size: 16Mi, inodes: 1000}")

stopped() { [ "$(awk '{print $3}' "/proc/$CTL_PID/stat" 2>/dev/null)" = T ]; }

# swap NAME [DISABLE]: NAME's workspace volume replaced by an exact copy
# while a paused test-hooks controller waits at created:scratch; sets copy
# (its name) and at (its CreatedAt)
swap() {
    local v js i
    apply_spec "$1" execute "${SPEC[@]}"
    # ctl_hooked: no /healthz wait (the controller pauses before it could
    # answer); its crash point is never reached
    AGENTCTL_TEST_DISABLE=${2:-} AGENTCTL_TEST_PAUSE_AT=created:scratch \
        ctl_hooked never:reached
    for i in $(seq 1 960); do stopped && break; sleep 0.25; done
    stopped || fail "$1: the controller never paused at created:scratch"
    v=$(object_of "$1" workspace volume)
    js=$(docker volume inspect "$v")
    sleep 1.1 # CreatedAt has whole seconds
    docker volume rm "$v" >/dev/null
    curl -fsS --unix-socket /var/run/docker.sock -X POST \
        -H 'Content-Type: application/json' http://docker/volumes/create \
        -d "$(jq -c '.[0] | {Name, Driver, Labels, DriverOpts: .Options}' \
            <<<"$js")" >/dev/null || fail "$1: the copy could not be made"
    kill -CONT "$CTL_PID"
    copy=$v
    at=$(docker volume inspect -f '{{.CreatedAt}}' "$v")
}

# ---- caught before the keeper mounts it ----
swap guarded
check_eq "guarded: Failed" Failed "$(wait_terminal guarded 240)"
msg=$(jq -r 'select(.reason == "DriftRepaired") | .message' \
    "$STATE/events/guarded.jsonl")
echo "# guarded: DriftRepaired: $msg"
check_match "guarded: the repair names the workspace volume's CreatedAt" \
    'workspace .*CreatedAt' "$msg"
reasons=$(jq -r .reason "$STATE/events/guarded.jsonl" | tr '\n' ' ')
check_match "guarded: the copy was left, then refused" \
    'StandInLeft.* NameConflict' "$reasons"
check "guarded: the agent never ran" not grep -q '"Started"' \
    "$STATE/events/guarded.jsonl"
sleep 3 # a few resyncs: garbage collection ran
check_eq "guarded: the copy is still there, untouched" "$at" \
    "$(docker volume inspect -f '{{.CreatedAt}}' "$copy" 2>/dev/null)"
ctl_stop
docker volume rm "$copy" >/dev/null

# ---- negative control: the check off ----
swap unguarded storage-verify
phase=$(wait_terminal unguarded 240)
echo "# unguarded: $phase"
check_eq "unguarded: without the check the agent ran on the copy" \
    Succeeded "$phase"
for _ in $(seq 1 240); do # until its cleanup ran (bounded)
    grep -q '"CleanedUp"' "$STATE/events/unguarded.jsonl" && break
    sleep 0.25
done
check_match "unguarded: which only cleanup told apart, afterwards" \
    StandInLeft "$(jq -r .reason "$STATE/events/unguarded.jsonl")"
docker volume rm "$copy" >/dev/null
check_no_objects "unguarded: nothing of it left" \
    "agentctl.dev/uid=$(inv_uid unguarded)" 120
ctl_stop
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
echo "# $CHECKS checks passed"
