#!/usr/bin/env bash
# test_changes.sh - the agent's work comes back (docs/changes.md): an agent
# in execute edits a file, adds one, deletes one and changes a mode, and
# plants a symlink to /etc/passwd, a hard link and a FIFO. agentctl changes
# shows exactly the four changes and the three refusals; --apply-to on a
# fresh copy of the workspace gives the tree the same edits make on the
# host, byte for byte and mode for mode; a second apply is a conflict that
# changes nothing. A planning run has no change set; a deadline mid-run
# gives a partial one; a controller killed after the agent is removed and
# before the read still delivers the set when it starts again.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

proj=$WS_ROOT/proj
mkdir -p "$proj/sub"
printf 'one\ntwo\nthree\n' >"$proj/a.txt"
echo keep >"$proj/b.txt"
echo gone >"$proj/c.txt"
printf '#!/bin/sh\necho hi\n' >"$proj/run.sh"
chmod 0644 "$proj/run.sh"
echo x >"$proj/sub/x"

# the agent's edits, as the agent and as the expected tree on the host
edits='printf "one\nTWO\nthree\n" > a.txt && echo new > sub/n.txt &&
rm c.txt && chmod 755 run.sh'
hostile='ln -s /etc/passwd evil && ln a.txt hard && mkfifo fifo'

# yaml_str TEXT: TEXT as the inside of a YAML double-quoted string
yaml_str() {
    printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | awk '{printf "%s\\n", $0}'
}

ctl_hooked removed:agent # killed once the agent is removed, before the read
apply_spec work execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"$(yaml_str "cd /work && $edits && $hostile && echo EDITED")\"]" \
    "workspace: {source: proj, size: 4Mi, inodes: 1000}"
ctl_wait_crash removed:agent "work"
check "work: the read had not begun" \
    test "$(status_field work .progress.changesRead)" != true
ctl_start
check_eq "work: Succeeded" Succeeded "$(wait_terminal work 240)"
wait_changes work
check_match "work: the agent ran its edits" EDITED "$(agent_output work)"

stat=$(actl changes work --stat)
echo "# changes --stat:"
sed 's/^/#   /' <<<"$stat"
check_match "added: sub/n.txt" '(^|
) A sub/n\.txt \(4 bytes\)' "$stat"
check_match "modified: a.txt" '(^|
) M a\.txt' "$stat"
check_match "deleted: c.txt" '(^|
) D c\.txt' "$stat"
check_match "mode changed: run.sh" ' m run\.sh \(mode 0644 -> 0755\)' "$stat"
check_match "refused: the symlink to /etc/passwd" \
    ' ! evil: a symlink with an absolute target' "$stat"
check_match "refused: the hard link" ' ! hard: a hard link' "$stat"
check_match "refused: the FIFO" ' ! fifo: a FIFO' "$stat"
check_match "exactly these, nothing partial" \
    '1 added, 1 modified, 1 deleted, 1 mode changed, 3 refused; [0-9]+ bytes$' \
    "$(tail -n 1 <<<"$stat")"
check_eq "status.result.changes.added" 1 \
    "$(status_field work .result.changes.added)"
check_eq "status.result.changes.refused" 3 \
    "$(status_field work .result.changes.refused)"
check_eq "status.result.changes.partial" false \
    "$(status_field work .result.changes.partial)"
check_match "describe shows the counts" \
    'Changes: +1 added, 1 modified, 1 deleted, 1 modeChanged, 3 refused' \
    "$(actl describe work)"
check_match "a ChangesRefused event names one" 'ChangesRefused' \
    "$(cat "$STATE/events/work.jsonl")"

diff_text=$(actl changes work)
check_match "the diff: a.txt's line" '-two
\+TWO' "$diff_text"
check_match "the diff: the deletion" 'deleted file mode 100644' "$diff_text"
check_match "the diff: the mode" 'old mode 100644
new mode 100755' "$diff_text"
check_eq "the diff's sha256 is the status's" \
    "$(status_field work .result.changes.diffSha256)" \
    "sha256:$(actl changes work | sha256sum | cut -d' ' -f1)"
actl changes work -o tar >"$TEST_TMP/set.tar"
check_eq "the archive holds the added, modified and mode-changed files" \
    "a.txt run.sh sub/n.txt" \
    "$(tar -tf "$TEST_TMP/set.tar" | grep -v '/$' | sort | tr '\n' ' ' |
        sed 's/ $//')"

# --apply-to: a fresh copy of the workspace gets exactly the agent's tree
cp -a "$proj" "$TEST_TMP/checkout"
cp -a "$proj" "$TEST_TMP/expected"
(cd "$TEST_TMP/expected" && sh -c "$edits")
check "--apply-to a fresh copy succeeds" \
    actl changes work --apply-to "$TEST_TMP/checkout"
check "the tree is the expected one, byte for byte" \
    diff -r "$TEST_TMP/checkout" "$TEST_TMP/expected"
tree_modes() { (cd "$1" && find . -printf '%p %y %m\n' | sort); }
check_eq "and mode for mode" "$(tree_modes "$TEST_TMP/expected")" \
    "$(tree_modes "$TEST_TMP/checkout")"
before=$(tree_modes "$TEST_TMP/checkout")
out=$(actl changes work --apply-to "$TEST_TMP/checkout" 2>&1) && rc=0 || rc=$?
check_eq "a second apply: a conflict, exit 1" 1 "$rc"
check_match "it says nothing was changed" 'nothing was changed' "$out"
check_eq "and nothing was" "$before" "$(tree_modes "$TEST_TMP/checkout")"

# planning writes nothing: no change set
apply_spec plan planning "image: $BOX_IMAGE" \
    "command: [sh, -c, \"ls /work\"]" \
    "workspace: {source: proj, size: 4Mi, inodes: 1000}"
wait_terminal plan 240 >/dev/null
out=$(actl changes plan 2>&1) && rc=0 || rc=$?
check_eq "planning: no change set (exit 1)" 1 "$rc"
check_match "planning: it says why" 'has no change set' "$out"

# a deadline mid-run: what was written so far, marked partial
apply_spec slow execute "image: $BOX_IMAGE" "deadlineSeconds: 6" \
    "command: [sh, -c, \"cd /work && echo half > half.txt && sleep 300\"]" \
    "workspace: {source: proj, size: 4Mi, inodes: 1000}"
check_eq "slow: Failed" Failed "$(wait_terminal slow 240)"
check_eq "slow: by its deadline" deadline "$(status_field slow .stopReason)"
wait_changes slow
check_eq "slow: the change set is partial" true \
    "$(status_field slow .result.changes.partial)"
check_match "slow: it holds what was written" ' A half\.txt' \
    "$(actl changes slow --stat)"

# deleted with the invocation
actl delete work >/dev/null
for _ in $(seq 1 240); do
    [ -e "$STATE/output/work.changes.json" ] || break
    sleep 0.25
done
check "the change set goes with the invocation" \
    test ! -e "$STATE/output/work.changes.json"
ctl_finish
