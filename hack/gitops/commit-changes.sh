#!/usr/bin/env bash
# commit-changes.sh - turn an invocation's change set (the agent's work on
# /work, docs/changes.md) into a commit on a branch of a git repository:
# the step after a fix run in a GitOps pipeline, before a pull request.
#
#   hack/gitops/commit-changes.sh [OPTIONS] NAME REPO
#
#   NAME               the AgentInvocation whose change set is committed
#   REPO               git repository: a path (bare or a checkout) or a URL;
#                      the branch is pushed back to it
#   --branch B         the branch to make (default: agentctl/NAME); it must
#                      not exist yet in REPO
#   --base REV         the commit the invocation's workspace was a checkout
#                      of (default: REPO's HEAD)
#   --message M        the commit's first line (default: "agentctl: the
#                      changes of NAME"); the --stat summary follows
#   --allow-partial    commit a partial set too (an attempt that did not
#                      succeed: deadline, cancel, failure)
#   --specs DIR [--state DIR] | --etcd URL[,URL] [--etcd-prefix P]
#                      the store (default: agentctl's AGENTCTL_SPECS /
#                      AGENTCTL_ETCD)
#   --agentctl PATH    the agentctl binary (default: $AGENTCTL, else PATH)
#
# Steps: read the set's summary (agentctl changes NAME -o json); clone REPO
# into a temporary directory and check out --base on a new branch; apply
# the set there (agentctl changes NAME --apply-to: every path checked
# first, a conflict changes nothing); commit everything the set touched
# and push the branch to REPO. The last line on stdout is the summary:
#
#   commit-changes: NAME branch=B commit=1a2b3c4d5e6f added=1 modified=2
#                   deleted=0 result=ok
#
# (one line). Exit codes:
#   0  committed and pushed
#   1  no change set, an empty one, or a partial one without
#      --allow-partial: nothing committed
#   2  usage; the repository, base or branch is not usable
#   3  the set does not apply to the base (a conflict: the workspace was
#      not a checkout of --base), or the push failed
set -uo pipefail

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'
    exit "${1:-2}"
}
die() {
    echo "commit-changes: $2" >&2
    exit "$1"
}

NAME='' REPO='' BRANCH='' BASE=HEAD MESSAGE='' PARTIAL=0 STORE=()
AGENTCTL_BIN=${AGENTCTL:-agentctl}
while [ $# -gt 0 ]; do
    case $1 in
    --branch | --base | --message | --specs | --state | --etcd | --etcd-prefix | --agentctl)
        [ $# -ge 2 ] || die 2 "$1 needs a value"
        case $1 in
        --branch) BRANCH=$2 ;;
        --base) BASE=$2 ;;
        --message) MESSAGE=$2 ;;
        --agentctl) AGENTCTL_BIN=$2 ;;
        *) STORE+=("$1" "$2") ;;
        esac
        shift 2
        ;;
    --allow-partial) PARTIAL=1 && shift ;;
    -h | --help) usage 0 ;;
    -*) die 2 "unknown option $1 (see --help)" ;;
    *)
        if [ -z "$NAME" ]; then NAME=$1; elif [ -z "$REPO" ]; then REPO=$1; else
            die 2 "unexpected argument $1 (see --help)"
        fi
        shift
        ;;
    esac
done
[ -n "$NAME" ] && [ -n "$REPO" ] || die 2 "give NAME and REPO (see --help)"
command -v git >/dev/null || die 2 "git is not installed"
command -v jq >/dev/null || die 2 "jq is not installed"
command -v "$AGENTCTL_BIN" >/dev/null || die 2 "agentctl not found ($AGENTCTL_BIN)"
BRANCH=${BRANCH:-agentctl/$NAME}
MESSAGE=${MESSAGE:-agentctl: the changes of $NAME}
git check-ref-format --branch "$BRANCH" >/dev/null 2>&1 ||
    die 2 "--branch $BRANCH is not a valid branch name"

actl() { "$AGENTCTL_BIN" "${STORE[@]}" "$@"; }

# 1. the set's summary
SET=$(actl changes "$NAME" -o json) || die 1 "no change set of $NAME: nothing committed"
count() { jq "(.$1 // []) | length" <<<"$SET"; }
ADDED=$(count added) MODIFIED=$(count modified) DELETED=$(count deleted)
MODED=$(count modeChanged)
summary() { # RESULT
    echo "commit-changes: $NAME branch=$BRANCH commit=${COMMIT:-none}" \
        "added=$ADDED modified=$MODIFIED deleted=$DELETED result=$1"
}
if [ "$(jq -r .partial <<<"$SET")" == true ] && [ "$PARTIAL" -eq 0 ]; then
    echo "commit-changes: the change set of $NAME is partial (its attempt" \
        "did not succeed); --allow-partial commits it anyway" >&2
    summary partial
    exit 1
fi
if [ $((ADDED + MODIFIED + DELETED + MODED)) -eq 0 ]; then
    echo "commit-changes: $NAME changed nothing" >&2
    summary empty
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-commit.XXXXXX") || die 2 "mktemp failed"
trap 'rm -rf "$WORK"' EXIT

# 2. the base, on a new branch
git clone --quiet -- "$REPO" "$WORK/src" 2>"$WORK/git.err" ||
    die 2 "cannot clone $REPO: $(tail -n 1 "$WORK/git.err")"
git -C "$WORK/src" ls-remote --exit-code --heads origin "$BRANCH" \
    >/dev/null 2>&1 && die 2 "branch $BRANCH exists in $REPO already"
BASE_COMMIT=$(git -C "$WORK/src" rev-parse --verify -q "$BASE^{commit}" ||
    git -C "$WORK/src" rev-parse --verify -q "origin/$BASE^{commit}") ||
    die 2 "no commit, tag or branch $BASE in $REPO"
git -C "$WORK/src" checkout --quiet -b "$BRANCH" "$BASE_COMMIT" \
    2>"$WORK/git.err" || die 2 "cannot check out $BASE: $(tail -n 1 "$WORK/git.err")"

# 3. the set, applied (all or nothing)
if ! actl changes "$NAME" --apply-to "$WORK/src" >"$WORK/applied" 2>"$WORK/apply.err"; then
    sed 's/^/commit-changes: /' "$WORK/apply.err" >&2
    summary conflict
    exit 3
fi

# 4. commit and push
STAT=$(actl changes "$NAME" --stat)
git -C "$WORK/src" add -A
git -C "$WORK/src" -c user.name="${GIT_AUTHOR_NAME:-agentctl}" \
    -c user.email="${GIT_AUTHOR_EMAIL:-agentctl@localhost}" \
    commit --quiet -m "$MESSAGE" -m "$STAT" || die 3 "git commit failed"
COMMIT=$(git -C "$WORK/src" rev-parse --short=12 HEAD)
git -C "$WORK/src" push --quiet origin "$BRANCH" 2>"$WORK/git.err" || {
    cat "$WORK/git.err" >&2
    summary push-failed
    exit 3
}
summary ok
