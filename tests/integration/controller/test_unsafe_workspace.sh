#!/usr/bin/env bash
# test_unsafe_workspace.sh - a workspace with a symlink that leaves the tree
# or is absolute, or over its byte or inode limit, fails before any storage
# is created: phase Failed, stopReason preparation-failed, a condition with
# reason UnsafeWorkspace / WorkspaceTooLarge, not retried, and no Docker
# object was ever created for it (polled while it ran, and a `docker
# events` stream over the whole run). Control: a safe workspace does create
# objects, and the event stream sees them.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

EVENTS=$TEST_TMP/docker-events.jsonl
docker events --format '{{json .}}' >"$EVENTS" 2>&1 &
EVENTS_PID=$!
on_cleanup 'kill $EVENTS_PID 2>/dev/null; wait $EVENTS_PID 2>/dev/null'
ctl_start

# name source reason [spec lines]
CASES=(
    "escape-link escape UnsafeWorkspace"
    "abs-link absolute UnsafeWorkspace"
    "too-big big WorkspaceTooLarge"
    "too-many many WorkspaceTooLarge"
)
declare -A UID_OF
for c in "${CASES[@]}"; do
    read -r name src reason <<<"$c"
    case $name in
    too-big) ws="workspace: {source: $src, size: 1Mi}" ;;
    too-many) ws="workspace: {source: $src, size: 8Mi, inodes: 100}" ;;
    *) ws="workspace: {source: $src, size: 8Mi}" ;;
    esac
    apply_spec "$name" execute "command: [/demo-agent, --write-work]" "$ws"
    UID_OF[$name]=$(inv_uid "$name")
done

# Poll until all are terminal; at no poll may an object of theirs exist.
seen=""
end=$((SECONDS + 120))
while [ "$SECONDS" -lt "$end" ]; do
    done_all=1
    for c in "${CASES[@]}"; do
        read -r name src reason <<<"$c"
        objs=$(labelled_objects "agentctl.dev/invocation=$name")
        [ -z "$objs" ] || seen+="$name: $objs; "
        [[ $(status_field "$name" .phase) =~ $TERMINAL_RE ]] || done_all=0
    done
    [ $done_all -eq 1 ] && break
    ctl_alive || fail "agent-controller exited"
    sleep 0.25
done
check_eq "no Docker object existed for an unsafe workspace at any poll" "" \
    "$seen"

for c in "${CASES[@]}"; do
    read -r name src reason <<<"$c"
    check_eq "$name: Failed" Failed "$(status_field "$name" .phase)"
    check_eq "$name: stopReason preparation-failed" preparation-failed \
        "$(status_field "$name" .stopReason)"
    check_match "$name: a condition with reason $reason" "$reason" \
        "$(status_field "$name" '[.conditions[]?.reason] | join(" ")')"
    echo "# $name: $(status_field "$name" \
        "[.conditions[]? | select(.reason == \"$reason\") | .message] | join(\"; \")")"
done
check_match "escape-link: the message names the symlink" 'passwd' \
    "$(status_field escape-link '[.conditions[]?.message] | join(" ")')"
check_match "abs-link: the message names the symlink" 'shadow' \
    "$(status_field abs-link '[.conditions[]?.message] | join(" ")')"

# Not retried: a few resyncs later nothing changed.
sleep 3
for c in "${CASES[@]}"; do
    read -r name src reason <<<"$c"
    check_eq "$name: still Failed after resyncs" Failed \
        "$(status_field "$name" .phase)"
done

# Control: a safe workspace creates objects, and the stream sees them.
apply_spec safe execute "command: [/demo-agent, --write-work]" \
    "workspace: {source: small, size: 8Mi}"
safe_uid=$(inv_uid safe)
wait_phase safe Succeeded 240
check_match "safe: the symlink inside the tree is fine, it Succeeded" \
    "write_work: ok" "$(agent_output safe)"
for i in $(seq 1 40); do # the stream may lag a little behind
    grep -q "$safe_uid" "$EVENTS" && break
    sleep 0.25
done
check "control: docker events saw the safe invocation's objects" \
    grep -q "$safe_uid" "$EVENTS"

for c in "${CASES[@]}"; do
    read -r name src reason <<<"$c"
    u=${UID_OF[$name]}
    check_match "$name: has a uid" '^[0-9a-f-]{36}$' "$u"
    check "$name: no Docker event ever named its uid" not grep -q "$u" \
        "$EVENTS"
    check "$name: no Docker event for an object named agentctl-$name-${u:0:8}" \
        not grep -q "agentctl-$name-${u:0:8}" "$EVENTS"
done
ctl_finish
