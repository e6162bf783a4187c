#!/usr/bin/env bash
# test_network_lookalike.sh - after a repair the network step must not
# adopt a look-alike network with copied labels (issue 34). Someone with
# the Docker socket waits for the repair to remove the attempt's network
# and makes a copy of it: the same name, labels, options and subnet. The
# rebuild lists the attempt's networks by label before its create; no
# create of ours was sent since the repair (status.networkPending unset),
# so the copy cannot be ours: it is a stand-in (docs/design.md
# "Revalidation and drift", "Cleanup"): reported (StandInFound),
# remembered in status.standIns, never adopted and never removed, and as
# it holds the network's name the attempt fails (NameConflict,
# preparation-failed) - the box is never built in it.
#
# How: the test-hooks controller pauses right after the probe's create
# (AGENTCTL_TEST_PAUSE_AT=created:probe), the test changes the proxy's
# restart policy (drift before the start: a repair), and the controller
# pauses again right after the repair removed the network
# (removed:network), where the test makes the copy.
#
# Negative control (AGENTCTL_TEST_DISABLE=network-standin: labels alone
# are believed, as before the fix): the copy is adopted (Adopted event),
# the attempt runs in it and its cleanup removes the copy as its own.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
UNPAUSER=

stopped() { [ "$(awk '{print $3}' "/proc/$CTL_PID/stat" 2>/dev/null)" = T ]; }

# wait_paused WHAT: the controller stopped itself at a pause point
wait_paused() {
    for _ in $(seq 1 960); do
        stopped && return 0
        ctl_alive || fail "the controller exited before $1"
        sleep 0.25
    done
    fail "the controller never paused at $1"
}

# unpause_always: from now on every pause is let go at once
unpause_always() {
    (while kill -0 "$CTL_PID" 2>/dev/null; do
        stopped && kill -CONT "$CTL_PID"
        sleep 0.2
    done) &
    UNPAUSER=$!
}
stop_unpauser() {
    [ -z "$UNPAUSER" ] || kill "$UNPAUSER" 2>/dev/null || true
    wait "$UNPAUSER" 2>/dev/null || true
    UNPAUSER=
}
on_cleanup stop_unpauser

# ev NAME REASON: the messages of NAME's events with REASON
ev() {
    jq -r --arg r "$2" 'select(.reason == $r) | .message' \
        "$STATE/events/$1.jsonl" 2>/dev/null
}

# repaired_with_copy NAME [DISABLE]: NAME's box is repaired, and while the
# repair's network is gone a copy of it is made; sets COPY to its ID (not
# in a subshell: it starts the controller)
repaired_with_copy() {
    local net body
    apply_spec "$1" execute "command: [/demo-agent, --write-work]"
    CTL_LOG=$TEST_TMP/controller-$1.log
    AGENTCTL_TEST_DISABLE=${2:-} \
        AGENTCTL_TEST_PAUSE_AT=created:probe,removed:network \
        ctl_hooked never:reached
    wait_paused created:probe
    net=$(object_of "$1" network network)
    [ -n "$net" ] || fail "$1: no network at the probe's create"
    # the copy's body: everything an inspect shows that a create takes
    body=$(docker network inspect "$net" | jq -c --arg t "$TEST_LABEL" '.[0] |
        {Name, Driver, Internal, Options, CheckDuplicate: true,
         IPAM: {Driver: .IPAM.Driver, Config: .IPAM.Config},
         Labels: (.Labels + {($t | split("=")[0]): ($t | split("=")[1])})}')
    docker update --restart=always "$(object_of "$1" proxy)" >/dev/null
    kill -CONT "$CTL_PID"
    wait_paused removed:network
    quiet docker network inspect "$net" &&
        fail "$1: paused at removed:network, but the network is still there"
    COPY=$(curl -fsS --unix-socket /var/run/docker.sock \
        -H 'Content-Type: application/json' -d "$body" \
        http://docker/networks/create | jq -r .Id) ||
        fail "$1: could not make the copy"
    [ -n "$COPY" ] || fail "$1: the copy has no ID"
    unpause_always
}

# ---- the fix: a stand-in, the attempt fails, the copy is left ----
repaired_with_copy look
copy=$COPY
echo "# look: the copy is ${copy:0:12}"
check_match "look: the box was repaired" 'removing every object' \
    "$(ev look DriftRepaired)"
check_eq "look: Failed" Failed "$(wait_terminal look 240)"
check_eq "look: stopReason preparation-failed" preparation-failed \
    "$(status_field look .stopReason)"
check_match "look: the copy is reported as a stand-in" \
    "${copy:0:12}.*stand-in" "$(ev look StandInFound)"
check_match "look: the name it holds fails the attempt" \
    'already exists and is not this attempt' "$(ev look NameConflict)"
check "look: no network was adopted" not grep -q 'network .*adopted' \
    <<<"$(ev look Adopted)"
check_match "look: status.standIns remembers it" "$copy" \
    "$(status_field look .standIns)"
for _ in $(seq 1 240); do # until cleanup is over
    [ "$(status_field look .cleanedUp)" == true ] && break
    sleep 0.25
done
check_eq "look: cleaned up" true "$(status_field look .cleanedUp)"
sleep 3 # three resyncs: garbage collection leaves it too
check "look: the copy is left in place (never removed)" \
    quiet docker network inspect "$copy"
stop_unpauser
ctl_stop
docker network rm "$copy" >/dev/null

# ---- control: labels believed -> the copy is adopted and used ----
repaired_with_copy ctrl network-standin
copy=$COPY
check_eq "ctrl: Succeeded" Succeeded "$(wait_terminal ctrl 240)"
check_match "ctrl: without the fix the copy is adopted" 'network .*adopted' \
    "$(ev ctrl Adopted)"
check_no_objects "ctrl: the copy was removed as the attempt's own" \
    "agentctl.dev/uid=$(inv_uid ctrl)" 120
check "ctrl: no stand-in reported" test -z "$(ev ctrl StandInFound)"
stop_unpauser
ctl_stop
ctl_start
ctl_finish
echo "# $CHECKS checks passed"
