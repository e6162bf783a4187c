#!/usr/bin/env bash
# test_egress_audit_restart.sh - the live egress audit across controller
# restarts (issue 35 item 5): a restart resumes where the last status
# write left off, and the credential stays redacted in every phase. The
# agent (tests/images/connect_flood.c, env mode: it holds the key) puts
# its credential into every CONNECT target: <key>-<i>.test:443.
#
#   keyed (20,000 slow CONNECTs): while it runs, egress.jsonl holds lines
#     with <redacted> and never the key; the controller is SIGKILLed
#     mid-flood, the flood goes on without it, and a new controller takes
#     over. At the end every one of the 20,000 targets is in the file
#     exactly once (no line twice, none missing: Docker still held them),
#     nothing is dropped, status.egress.lines is the file's line count,
#     and the key is in neither the file, the status nor the events.
#   late (the test-hooks controller, AGENTCTL_TEST_DISABLE=live-audit, so
#     the audit is read only at cleanup): the controller dies at cleanup
#     right after the agent's removal (AGENTCTL_TEST_CRASH_AT
#     removed:agent), before the audit is read; the next controller finds
#     the attempt terminal and reads it: the key is redacted there too
#     (before, the credential was read back only for a live attempt, and
#     this audit was written with it in clear).
source "$(dirname "$0")/lib_controller.sh"
source "$(dirname "$0")/lib_flood.sh"
ctl_init
flood_image
# the agent holds the key: the harness's fake vendor is in credentialMode
# env (lib_controller.sh says so)
grep -q '^    credentialMode: env$' "$CONFIG" || fail "the fake vendor is not in env mode"
N=20000

key_absent() { ! grep -qF -e "$CRED_TOKEN" "$1"; }

# no_key_in NAME: the key is in none of what the controller keeps of NAME
no_key_in() {
    local f
    for f in "$(egress_file "$1")" "$(status_file "$1")" \
        "$STATE/events/$1.jsonl"; do
        check "$1: no key in $(basename "$f")" key_absent "$f"
    done
}

ctl_start
apply_spec keyed execute "image: $FLOOD_IMAGE" "credential: $CRED_NAME" \
    "command: [sh, -c, \"exec /connect-flood $N \${FAKE_API_KEY}- 2 250\"]"
wait_phase keyed Running 240
for _ in $(seq 1 480); do
    [ "$(grep -c '<redacted>-' "$(egress_file keyed)" 2>/dev/null)" -ge 1000 ] &&
        break
    sleep 0.25
done
before=$(grep -c '<redacted>-' "$(egress_file keyed)")
check "keyed: lines with the key redacted came while it ran ($before)" \
    test "$before" -ge 1000
check "keyed: and the key is not in them" key_absent "$(egress_file keyed)"
check_eq "keyed: still Running at the kill" Running \
    "$(status_field keyed .phase)"
kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
# (the file is usually ahead of the status, written about once a second:
# the restart cuts it back and reads those lines again)
echo "# keyed: controller killed: the file had $(wc -l <"$(egress_file keyed)")" \
    "lines, status.egress.lines $(status_field keyed .egress.lines)"
sleep 3 # the flood goes on, unwatched
ctl_start
check_eq "keyed: Succeeded" Succeeded "$(wait_terminal keyed 600)"
wait_egress_read keyed
f=$(egress_file keyed)
echo "# keyed: status.egress $(status_field keyed .egress | jq -c '{lines,dropped,bytes}')"
check_eq "keyed: every target is in the file" "$N" \
    "$(grep -o '"target":"<redacted>-[0-9]*\.test:443"' "$f" | sort -u | wc -l)"
check_eq "keyed: none twice" "$N" \
    "$(grep -c '"target":"<redacted>-[0-9]*\.test:443"' "$f")"
check_eq "keyed: nothing dropped" 0 "$(status_field keyed .egress.dropped)"
check_eq "keyed: status.egress.lines is the file's line count" \
    "$(wc -l <"$f")" "$(status_field keyed .egress.lines)"
no_key_in keyed
ctl_finish

# --- late: the audit read after a restart in a terminal phase --------------
[ -x "$BUILD/controller/agent-controller-testhooks" ] ||
    skip "agent-controller-testhooks not built"
export AGENTCTL_TEST_DISABLE=live-audit
ctl_hooked removed:agent
apply_spec late execute "image: $FLOOD_IMAGE" "credential: $CRED_NAME" \
    "command: [sh, -c, \"exec /connect-flood 500 \${FAKE_API_KEY}- 2\"]"
ctl_wait_crash removed:agent late
check_match "late: terminal when the controller died" "$TERMINAL_RE" \
    "$(status_field late .phase)"
check_eq "late: the audit was not read yet" "" \
    "$(status_field late .progress.egressRead)"
CONTROLLER=$BUILD/controller/agent-controller-testhooks
ctl_start
wait_egress_read late
check_eq "late: all 500 targets, redacted" 500 \
    "$(grep -o '"target":"<redacted>-[0-9]*\.test:443"' "$(egress_file late)" |
        sort -u | wc -l)"
no_key_in late
ctl_finish
