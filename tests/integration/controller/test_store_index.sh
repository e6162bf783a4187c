#!/usr/bin/env bash
# test_store_index.sh - the controller on the directory store's index
# (store/dir/store_dir_index.c) and observedGeneration in every status:
#  - a hostile file in the specs directory (about 1 MiB of flow mappings
#    with thousands of keys, several documents) is reported invalid, and
#    the other invocations keep converging beside it;
#  - a spec refused before capture (vendor not configured) has a status
#    with observedGeneration, and a finished invocation whose spec changes
#    gets its new generation written;
#  - a file rewritten in place with the same size and its mtime set back
#    is still seen as changed (the stat key holds ctime); negative
#    control: the two versions' (dev, inode, size, mtime) are equal, so a
#    key without ctime would have missed it.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

# the hostile file, written by hand before the controller starts
awk 'BEGIN { for (d = 0; d < 8; d++) {
        if (d > 0) print "---"
        printf "{"
        for (i = 0; i < 10000; i++) printf "%sk%d: %d", (i ? ", " : ""), i, i
        print "}" } }' >"$SPECS/hostile.yaml"
check "hostile: the file is close to 1 MiB" \
    test "$(stat -c %s "$SPECS/hostile.yaml")" -gt 900000
ctl_start

apply_spec quick execute "command: [/demo-agent]"
check_eq "quick: Succeeded beside the hostile file" Succeeded \
    "$(wait_terminal quick 240)"
check_match "hostile: agentctl get reports it Invalid" \
    $'(^|\n)hostile +Invalid' "$(actl get 2>/dev/null)"
check_eq "quick: observedGeneration 1" 1 "$(status_field quick .observedGeneration)"

# refused before capture: no attempt, still a generation
apply_spec refused execute "vendor: not-configured" "command: [/demo-agent]" \
    "deadlineSeconds: 600"
for i in $(seq 1 120); do
    [ "$(condition_field refused Admitted status)" == False ] && break
    sleep 0.25
done
check_eq "refused: Admitted=False" False "$(condition_field refused Admitted status)"
check_eq "refused: observedGeneration 1 without a capture" 1 \
    "$(status_field refused .observedGeneration)"

# a finished invocation's spec changes: its status says generation 2
apply_spec quick execute "command: [/demo-agent]" "env: {CHANGED: \"1\"}"
for i in $(seq 1 120); do
    [ "$(status_field quick .observedGeneration)" == 2 ] && break
    sleep 0.25
done
check_eq "quick: observedGeneration follows the new generation" 2 \
    "$(status_field quick .observedGeneration)"

# rewritten in place, same size, mtime set back
f=$(grep -l 'name: refused$' "$SPECS"/*.yaml | head -1)
check "refused: its file is in the specs dir" test -f "$f"
before=$(stat -c '%d %i %s %.9Y' "$f")
mtime=$(stat -c '%.9Y' "$f")
sed 's/deadlineSeconds: 600$/deadlineSeconds: 700/' "$f" >"$TEST_TMP/refused.new"
cat "$TEST_TMP/refused.new" >"$f" # in place: the inode stays
touch -m -d "@$mtime" "$f"
after=$(stat -c '%d %i %s %.9Y' "$f")
check_eq "negative control: dev, inode, size and mtime did not change" \
    "$before" "$after"
check "the bytes did change" grep -q 'deadlineSeconds: 700' "$f"
for i in $(seq 1 120); do
    [ "$(status_field refused .observedGeneration)" == 2 ] && break
    sleep 0.25
done
check_eq "refused: the in-place change is seen (generation 2)" 2 \
    "$(status_field refused .observedGeneration)"
check_match "agentctl get shows the new deadline" '"deadlineSeconds": ?700' \
    "$(actl get refused -o json 2>/dev/null | jq -c .spec)"
check_match "hostile: still reported Invalid" $'(^|\n)hostile +Invalid' \
    "$(actl get 2>/dev/null)"

ctl_finish
