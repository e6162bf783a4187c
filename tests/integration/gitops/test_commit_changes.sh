#!/usr/bin/env bash
# test_commit_changes.sh - hack/gitops/commit-changes.sh: a fix run's
# change set becomes a commit on a new branch of the repository its
# workspace was cloned from. A real git repository made here, the
# workspace a clone of it, an agent in fix that edits, adds and deletes:
# the branch holds exactly those changes on top of the base; the same
# branch again is refused (exit 2); a base the workspace was not a
# checkout of is a conflict (exit 3) that pushes no branch; a planning run
# has no change set (exit 1).
source "$(dirname "$0")/../controller/lib_controller.sh"
SCRIPT=$ROOT/hack/gitops/commit-changes.sh
command -v git >/dev/null || skip "git is not installed"
ctl_init
export AGENTCTL=$AGENTCTL

REPO=$TEST_TMP/repo
git init -q "$REPO"
git -C "$REPO" config user.email test@agentctl.invalid
git -C "$REPO" config user.name test
printf 'one\ntwo\nthree\n' >"$REPO/a.txt"
echo obsolete >"$REPO/b.txt"
git -C "$REPO" add -A
git -C "$REPO" commit -q -m base
BASE=$(git -C "$REPO" rev-parse HEAD)
git clone -q --no-hardlinks "$REPO" "$WS_ROOT/fixsrc"

ctl_start
apply_spec fixrun fix "image: $BOX_IMAGE" \
    "command: [sh, -c, \"cd /work && sed -i s/two/TWO/ a.txt && echo added > n.txt && rm b.txt\"]" \
    "workspace: {source: fixsrc, size: 8Mi, inodes: 1000}"
check_eq "fixrun: Succeeded" Succeeded "$(wait_terminal fixrun 240)"
wait_changes fixrun

run() { # ARGS...: sets RC and LAST
    RC=0
    "$SCRIPT" --specs "$SPECS" --state "$STATE" "$@" >"$TEST_TMP/out" \
        2>"$TEST_TMP/err" || RC=$?
    LAST=$(tail -n 1 "$TEST_TMP/out")
    echo "# commit-changes $*: exit $RC: $LAST"
    [ "$RC" -eq 0 ] || sed 's/^/#   stderr: /' "$TEST_TMP/err"
}

run fixrun "$REPO" --base "$BASE"
check_eq "exit 0" 0 "$RC"
check_match "summary" \
    '^commit-changes: fixrun branch=agentctl/fixrun commit=[0-9a-f]{12} added=1 modified=1 deleted=1 result=ok$' \
    "$LAST"
check_eq "the branch is in the repository, on top of the base" "$BASE" \
    "$(git -C "$REPO" rev-parse agentctl/fixrun~1)"
check_eq "it changes exactly the agent's three files" \
    "$(printf 'A\tn.txt\nD\tb.txt\nM\ta.txt')" \
    "$(git -C "$REPO" diff --name-status "$BASE" agentctl/fixrun | sort)"
check_eq "a.txt as the agent left it" "$(printf 'one\nTWO\nthree')" \
    "$(git -C "$REPO" show agentctl/fixrun:a.txt)"
check_match "the message carries the summary" '1 added, 1 modified, 1 deleted' \
    "$(git -C "$REPO" log -1 --format=%B agentctl/fixrun)"

run fixrun "$REPO" --base "$BASE"
check_eq "the same branch again: exit 2" 2 "$RC"

# a base the workspace was not a checkout of
printf 'one\nzwei\nthree\n' >"$REPO/a.txt"
git -C "$REPO" commit -q -am "someone else's change"
run fixrun "$REPO" --branch other
check_eq "another base: a conflict, exit 3" 3 "$RC"
check_match "it names the file" 'a\.txt' "$(cat "$TEST_TMP/err")"
check "and pushed no branch" not git -C "$REPO" rev-parse -q --verify other

apply_spec plan planning "image: $BOX_IMAGE" "command: [\"true\"]" \
    "workspace: {source: fixsrc, size: 8Mi, inodes: 1000}"
wait_terminal plan 240 >/dev/null
run plan "$REPO" --branch p
check_eq "a planning run has no change set: exit 1" 1 "$RC"
ctl_finish
