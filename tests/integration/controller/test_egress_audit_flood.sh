#!/usr/bin/env bash
# test_egress_audit_flood.sh - the live egress audit cannot be flooded out
# (issue 35 item 5, docs/gateway.md "The controller's side"). A command
# spec's process (tests/images/connect_flood.c, 8 workers) sends 100,000
# CONNECTs its proxy refuses, each to its own target (flood-<i>.test).
#
#   flood:
#     Succeeded; while it was still Running, egress.jsonl already held
#       flood lines (the audit is followed, not read at the end);
#     every one of the 100,000 is a line of egress.jsonl or counted in
#       status.egress.dropped (the file is capped at 16 MiB, so some are);
#     status.egress.lines is the file's line count, each line is one
#       strict JSON object with "source":"proxy" in front, and no target
#       is there twice;
#     describe shows the counts (Egress Audit:) and the EgressAudit event
#       says them;
#     the controller's RSS during the flood is printed (a figure, not a
#       check).
#   gap: the same flood with the controller stopped (SIGSTOP) until the
#     agent has exited: the log rotates lines out before they are read;
#     they cannot be counted, and status.egress.gaps, an EgressAuditGap
#     Warning and describe say so.
#   Negative control (the test-hooks controller with
#   AGENTCTL_TEST_DISABLE=live-audit: the last 20,000 lines of each log
#   read once at cleanup, as before): the same flood leaves fewer than
#   100,000 lines + dropped, so the check above fails without the live
#   audit.
source "$(dirname "$0")/lib_controller.sh"
source "$(dirname "$0")/lib_flood.sh"
ctl_init
flood_image
N=100000

# run_flood NAME: the flood as NAME; polls until it is terminal, noting
# whether the audit had flood lines while it ran and the controller's
# largest RSS.
LIVE_LINES=0
MAX_RSS=0
run_flood() {
    local phase n rss
    apply_spec "$1" execute "image: $FLOOD_IMAGE" \
        "command: [/connect-flood, \"$N\", $1-, \"8\"]" \
        "deadlineSeconds: 900"
    LIVE_LINES=0
    MAX_RSS=0
    for _ in $(seq 1 3600); do
        phase=$(status_field "$1" .phase)
        [[ $phase =~ $TERMINAL_RE ]] && break
        rss=$(ctl_rss_kib)
        [ "${rss:-0}" -le "$MAX_RSS" ] || MAX_RSS=$rss
        if [ "$phase" == Running ] && [ "$LIVE_LINES" -eq 0 ]; then
            n=$(flood_lines "$1" "$1-")
            # read again: the phase may have moved on meanwhile
            [ "$(status_field "$1" .phase)" == Running ] && LIVE_LINES=$n
        fi
        sleep 0.25
    done
    check_eq "$1: Succeeded" Succeeded "$(wait_terminal "$1" 60)"
    wait_egress_read "$1"
    echo "# $1: the agent says: $(agent_output "$1" | tail -n 1)"
}

# kept_or_counted NAME: flood lines in the file + status.egress.dropped
kept_or_counted() {
    echo $(($(flood_lines "$1" "$1-") + $(status_field "$1" .egress.dropped)))
}

ctl_start
run_flood flood
f=$(egress_file flood)
lines=$(status_field flood .egress.lines)
dropped=$(status_field flood .egress.dropped)
echo "# flood: status.egress lines $lines, dropped $dropped;" \
    "file $(wc -l <"$f") lines, $(stat -c %s "$f") bytes;" \
    "flood lines $(flood_lines flood flood-); lines while Running" \
    "$LIVE_LINES; controller max RSS ${MAX_RSS} KiB"
check "flood: egress.jsonl held flood lines while the attempt ran" \
    test "$LIVE_LINES" -gt 0
check "flood: every CONNECT is a line or counted as dropped" \
    test "$(kept_or_counted flood)" -ge "$N"
check "flood: some were dropped, counted (over the 16 MiB cap)" \
    test "${dropped:-0}" -gt 0
check "flood: the file is at most 16 MiB" \
    test "$(stat -c %s "$f")" -le $((16 * 1024 * 1024))
check_eq "flood: status.egress.lines is the file's line count" \
    "$(wc -l <"$f")" "$lines"
check_eq "flood: every line is one strict JSON object" "$lines" \
    "$(jq -c 'select(type == "object")' "$f" 2>/dev/null | wc -l)"
check_eq "flood: every flood line comes from the proxy" \
    "$(flood_lines flood flood-)" \
    "$(grep -c '^{"source":"proxy","time":.*"msg":"tunnel".*"target":"flood-' "$f")"
check_eq "flood: no target twice" "$(flood_lines flood flood-)" \
    "$(flood_unique flood flood-)"
check_match "flood: describe shows the audit's counts" \
    "Egress Audit: +$lines lines, $dropped dropped" "$(actl describe flood)"
check_match "flood: the EgressAudit event says them" \
    "\"reason\":\"EgressAudit\".*$lines lines kept, $dropped dropped" \
    "$(cat "$STATE/events/flood.jsonl")"

# --- gap: lines the log rotated out before they were read are said --------
# The controller is stopped (SIGSTOP) while a flood of 100,000 runs to its
# end: the proxy's log (2 files of 10 MB) rotates its first lines out
# before they are read, which the next read sees and says.
apply_spec gap execute "image: $FLOOD_IMAGE" \
    "command: [/connect-flood, \"$N\", gap-, \"8\"]" "deadlineSeconds: 900"
wait_phase gap Running 240
for _ in $(seq 1 240); do
    [ "$(flood_lines gap gap-)" -gt 0 ] && break
    sleep 0.25
done
kill -STOP "$CTL_PID"
docker wait "$(object_of gap agent)" >/dev/null 2>&1 || true
kill -CONT "$CTL_PID"
check_eq "gap: Succeeded" Succeeded "$(wait_terminal gap 300)"
wait_egress_read gap
echo "# gap: status.egress $(status_field gap .egress | jq -c '{lines,dropped,gaps}')"
check "gap: lines were lost to the rotation (the scenario works)" \
    test "$(kept_or_counted gap)" -lt "$N"
check "gap: and that is said: status.egress.gaps" \
    test "$(status_field gap .egress.gaps)" -ge 1
check_match "gap: and an EgressAuditGap Warning" \
    '"type":"Warning","reason":"EgressAuditGap"' \
    "$(cat "$STATE/events/gap.jsonl")"
check_match "gap: describe says it" "reads found lines rotated out first" \
    "$(actl describe gap)"
ctl_finish

# --- negative control: the old tail read -----------------------------------
ctl_stop
[ -x "$BUILD/controller/agent-controller-testhooks" ] ||
    skip "agent-controller-testhooks not built (the control needs it)"
CONTROLLER=$BUILD/controller/agent-controller-testhooks
export AGENTCTL_TEST_DISABLE=live-audit
ctl_start
run_flood old
echo "# old (tail read): status.egress lines" \
    "$(status_field old .egress.lines), dropped" \
    "$(status_field old .egress.dropped); flood lines" \
    "$(flood_lines old old-); lines while Running $LIVE_LINES"
check "control: read once at the end, lines are lost uncounted" \
    test "$(kept_or_counted old)" -lt "$N"
check_eq "control: and nothing was there while it ran" 0 "$LIVE_LINES"
ctl_finish
