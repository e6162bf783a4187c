#!/usr/bin/env bash
# test_network_twin.sh - a network create that outlasted its request
# (seen at N=50). Docker creates networks one at a time; a create the
# controller gave up on still happens, and the retry meets a network of
# the same name. Reproduced exactly: the test-hooks controller kills
# itself right after Docker created the attempt's network (before the ID
# is recorded), and the test adds a same-named twin with the same labels
# (CheckDuplicate off), as a second create in flight would have. The next
# controller must list the attempt's networks by label, remove the twin
# by ID (NetworkDuplicate event), adopt the first one and run the
# attempt to Succeeded, leaving nothing behind.
#
# Negative control: the same situation with the adoption switched off
# (AGENTCTL_TEST_DISABLE=network-adoption) ends the attempt Failed with a
# NameConflict - what the test would see if the protection broke.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
PROD=$CONTROLLER

# crash_after_network_create NAME: apply NAME and let the test-hooks
# controller die right after Docker made its network.
crash_after_network_create() {
    apply_spec "$1" execute "command: [/demo-agent, --write-work]"
    ctl_crash_at created:network "$1"
}

# add_twin NAME: a second network with NAME's network's name and labels.
# Echoes "ORIGINAL-ID TWIN-ID".
add_twin() {
    local uid nets id body twin
    uid=$(inv_uid "$1")
    nets=$(docker network ls -q --no-trunc \
        --filter "label=agentctl.dev/uid=$uid" \
        --filter label=agentctl.dev/role=network)
    [ "$(grep -c . <<<"$nets")" = 1 ] ||
        fail "$1: expected the one network the crash left, found: $nets"
    id=$nets
    body=$(docker network inspect "$id" | jq -c --arg t "$TEST_LABEL" \
        '.[0] | {Name, Internal: true, CheckDuplicate: false,
                 Labels: (.Labels + {($t | split("=")[0]): ($t | split("=")[1])})}')
    twin=$(curl -fsS --unix-socket /var/run/docker.sock \
        -H 'Content-Type: application/json' -d "$body" \
        http://docker/networks/create | jq -r .Id) ||
        fail "$1: could not create the twin network"
    check_eq "$1: two networks share the name now" 2 \
        "$(docker network ls -q --filter "name=^$(docker network inspect \
            -f '{{.Name}}' "$id")\$" | grep -c .)" >&2
    echo "$id $twin"
}

# ---- negative control: adoption off -> the twin kills the attempt ----
crash_after_network_create twin-off
add_twin twin-off >/dev/null
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=network-adoption ctl_start
phase=$(wait_terminal twin-off 120)
check_eq "control: without adoption the attempt fails" Failed "$phase"
check_match "control: the reason names the name conflict" 'not this attempt' \
    "$(status_field twin-off .conditions[]?.message)"
ctl_stop
CONTROLLER=$PROD

# ---- the protection: list, remove the twin, adopt the first ----
crash_after_network_create twin
ids=$(add_twin twin) || fail "twin: could not set up the twin"
read -r original twin <<<"$ids"
ctl_start
wait_phase twin Succeeded 240
ev=$STATE/events/twin.jsonl
check_match "twin: the twin (${twin:0:12}) was removed by ID" \
    "NetworkDuplicate.*${twin:0:12}" "$(jq -r '.reason + " " + .message' "$ev")"
check "twin: the network the first create made was adopted, not removed" \
    not grep -q "NetworkDuplicate.*${original:0:12}" "$ev"
check "twin: an Adopted event for the network" \
    grep -q '"reason":"Adopted".*network' "$ev"
check "twin: the agent ran in it" grep -q . <(agent_output twin)
actl delete twin >/dev/null
actl delete twin-off >/dev/null
ctl_finish
