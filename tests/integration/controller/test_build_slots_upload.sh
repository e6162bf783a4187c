#!/usr/bin/env bash
# test_build_slots_upload.sh - slow workspace uploads do not stall the
# other invocations (issue 34; docs/design.md "Build slots"): a box whose
# workspace upload is in flight holds no build slot. With --max-building 2
# two invocations whose uploads take 90 s each (the test-hooks build's
# slow disk, AGENTCTL_TEST_SLOW_UPLOAD) are applied first; once both
# uploads are under way a small invocation (no workspace) is applied and
# must Succeed while the two still upload, and the slot gauge says no
# slot is held by an upload.
#
# Negative control (AGENTCTL_TEST_DISABLE=upload-slot: the slot is kept
# through the upload, as before): the small invocation waits in line
# (BuildQueued) with nothing made in Docker for 20 s - stalled behind the
# uploads while its deadline runs.
source "$(dirname "$0")/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
SLOW=("command: [/demo-agent]" "workspace: {source: small, size: 8Mi, inodes: 1000}")
SMALL=("command: [/demo-agent]")

metric() {
    curl -fsS "http://$CTL_METRICS/metrics" | awk -v k="$1" '$1 == k { print $2 }'
}

# uploading NAME...: until each one's upload is under way (its keeper
# started: the upload is the storage lane's next step) and still going
wait_uploading() {
    local n
    for n in "$@"; do
        for _ in $(seq 1 960); do
            [ "$(status_field "$n" .progress.keeperStarted)" == true ] && break
            sleep 0.25
        done
        check_eq "$n: its keeper started, the upload under way" true \
            "$(status_field "$n" .progress.keeperStarted)"
    done
}

# wait_slots_free: until no build slot is held (bounded, not timed: the
# upload request follows the keeper's start, the main lanes go on)
wait_slots_free() {
    for _ in $(seq 1 240); do
        [ "$(metric 'agentctl_boxes{state="building"}')" = 0 ] && return 0
        sleep 0.25
    done
    return 1
}

# slow_pair PREFIX: two invocations with 90 s uploads, both uploading
slow_pair() {
    apply_spec "$1-a" execute "${SLOW[@]}"
    apply_spec "$1-b" execute "${SLOW[@]}"
    wait_uploading "$1-a" "$1-b"
}

# end_all NAME...: cancel, wait for terminal and for nothing left
end_all() {
    local n
    for n in "$@"; do actl cancel "$n" >/dev/null; done
    for n in "$@"; do
        wait_terminal "$n" 120 >/dev/null
        check_no_objects "$n: nothing of it left" \
            "agentctl.dev/uid=$(inv_uid "$n")" 120
    done
}

export AGENTCTL_TEST_SLOW_UPLOAD=90000

# ---- the fix: the small one runs while the two upload ----
CONTROLLER=$TESTHOOKS ctl_start --max-building 2
slow_pair up
check "no build slot is held by the two uploads" wait_slots_free
t0=$SECONDS
apply_spec small execute "${SMALL[@]}"
check_eq "small: Succeeded" Succeeded "$(wait_terminal small 60)"
took=$((SECONDS - t0))
echo "# small: Succeeded ${took}s after its apply"
check "small: it did not wait in line" not grep -q BuildQueued \
    "$STATE/events/small.jsonl"
check_eq "up-a: still uploading (Preparing) when small was done" Preparing \
    "$(status_field up-a .phase)"
check_eq "up-b: still uploading (Preparing)" Preparing \
    "$(status_field up-b .phase)"
check "up-a: its workspace is not uploaded yet" test \
    "$(status_field up-a .progress.workspaceUploaded)" != true
end_all up-a up-b small
ctl_stop

# ---- control: the slot kept through the upload -> small stalls ----
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=upload-slot \
    ctl_start --max-building 2
slow_pair ctl
sleep 2 # their uploads are sent (the control's slots stay held)
apply_spec ctl-small execute "${SMALL[@]}"
sleep 20
check_eq "ctl: without the fix small still waits 20 s later" Preparing \
    "$(status_field ctl-small .phase)"
check "ctl: it says it waits for a build slot" grep -q BuildQueued \
    "$STATE/events/ctl-small.jsonl"
check_eq "ctl: nothing of it was made in Docker" "" \
    "$(labelled_objects "agentctl.dev/uid=$(inv_uid ctl-small)")"
end_all ctl-a ctl-b ctl-small
ctl_finish
echo "# $CHECKS checks passed"
