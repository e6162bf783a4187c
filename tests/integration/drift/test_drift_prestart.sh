#!/usr/bin/env bash
# test_drift_prestart.sh - drift before the agent starts is repaired, not
# failed: a test-hooks controller stops itself at a step of the
# preparation (AGENTCTL_TEST_CRASH_AT), the test changes one thing behind
# its back, a normal controller takes over: a DriftRepaired event names
# the drift, the attempt is rebuilt and ends Succeeded, its agent started
# exactly once, nothing is left.
#  - done:workspaceUploaded (the storage done; with two lanes the proxy
#    and the probe may still be on their way, the agent not created): the
#    proxy's restart policy set to always (container.restart-policy);
#  - created:scratch (the workspace volume recorded, nothing mounts it
#    yet): the workspace volume swapped for a same-named one ten times the
#    size, same labels (volume.created-at, checked until the keeper is
#    recorded, or volume.options when the swap fell in the same second).
#    That one is a stand-in: the repair leaves it (StandInLeft) and the
#    rebuild must refuse it - POST /volumes/create answers 201 with the
#    volume that exists - so the attempt ends Failed (NameConflict,
#    preparation-failed) and the stand-in is still there after cleanup and
#    garbage collection (the controller never deletes a stand-in).
#  - created:agent (the agent container made, the controller killed
#    before its ID was written): the proxy's restart policy again; the
#    repair must first remove the unrecorded agent by its labels (event
#    UnrecordedRemoved), or the volumes it holds can never go (409).
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/lib_drift.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init

# ---- before the start: repaired, not failed ----
# prestart NAME POINT MUTATION EXPECT-RE [SPEC-LINE...]
prestart() {
    local name=$1 point=$2 mut=$3 want=$4 t uid ev starts
    shift 4
    t=$(date +%s)
    apply_spec "$name" execute "$@"
    ctl_crash_at "$point" "$name"
    eval "$mut $name" || fail "$name: mutation failed"
    ctl_start
    wait_phase "$name" Succeeded 240
    ev=$(jq -r 'select(.reason == "DriftRepaired") | .message' \
        "$STATE/events/$name.jsonl")
    echo "# $name: DriftRepaired: $ev"
    check_match "$name: a DriftRepaired event names the drift" "$want" "$ev"
    uid=$(inv_uid "$name")
    check_no_objects "$name: nothing of it left" "agentctl.dev/uid=$uid" 60
    check_eq "$name: its agent started exactly once" 1 \
        "$(agent_starts "$uid" "$t")"
    ctl_stop
}

# A same-named workspace volume of ten times the size, same labels.
mut_volume_swap() {
    local v js o
    v=$(object_of "$1" workspace volume)
    js=$(docker volume inspect "$v")
    o=$(jq -r '.[0].Options.o' <<<"$js" | sed 's/size=\([0-9]*\)/size=\1X/')
    o=${o/X/0}
    docker volume rm "$v" >/dev/null
    dk_api POST /volumes/create "$(jq -c --arg o "$o" '.[0] | {Name, Driver,
        Labels, DriverOpts: (.Options + {o: $o})}' <<<"$js")" >/dev/null
}

prestart pre-restart done:workspaceUploaded "mut_restart proxy" \
    'proxy .*RestartPolicy' "command: [/demo-agent, --write-work]" \
    "workspace: {source: small, size: 16Mi, inodes: 1000}"

apply_spec pre-volume execute "command: [/demo-agent, --write-work]" \
    "workspace: {source: small, size: 16Mi, inodes: 1000}"
ctl_crash_at created:scratch pre-volume
standin=$(object_of pre-volume workspace volume)
# A volume's only identity is its CreatedAt, in whole seconds: a swap in
# the second of the create cannot be told from the original (the known
# limit, docs/drift-rules.md). The stand-in here comes a second later.
sleep 1.1
mut_volume_swap pre-volume || fail "pre-volume: mutation failed"
standin_at=$(docker volume inspect -f '{{.CreatedAt}}' "$standin")
ctl_start
check_eq "pre-volume: Failed" Failed "$(wait_terminal pre-volume 240)"
reasons=$(jq -r .reason "$STATE/events/pre-volume.jsonl" | tr '\n' ' ')
echo "# pre-volume events: $reasons"
check_match "pre-volume: the repair names the swapped volume" \
    'workspace .*(CreatedAt|Options)' \
    "$(jq -r 'select(.reason == "DriftRepaired") | .message' \
        "$STATE/events/pre-volume.jsonl")"
check_match "pre-volume: the stand-in was left, then refused" \
    'StandInLeft.* NameConflict' "$reasons"
check_eq "pre-volume: stopReason preparation-failed" preparation-failed \
    "$(status_field pre-volume .stopReason)"
sleep 3 # a few resyncs: garbage collection ran
check_eq "pre-volume: the stand-in volume is still there, untouched" \
    "$standin_at" "$(docker volume inspect -f '{{.CreatedAt}}' "$standin")"
check_eq "pre-volume: nothing but the stand-in left" 1 \
    "$(docker_count_label "agentctl.dev/uid=$(inv_uid pre-volume)")"
ctl_stop
docker volume rm "$standin" >/dev/null
prestart pre-agent created:agent "mut_restart proxy" \
    'proxy .*RestartPolicy' "command: [/demo-agent, --write-work]" \
    "workspace: {source: small, size: 16Mi, inodes: 1000}"
check_match "pre-agent: the unrecorded agent was removed by its labels" \
    UnrecordedRemoved "$(jq -r .reason "$STATE/events/pre-agent.jsonl")"
check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
