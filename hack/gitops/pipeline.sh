#!/usr/bin/env bash
# pipeline.sh - deploy the AgentInvocation specs of one git commit to a
# store: the GitOps pipeline of agentctl, as a CI job would run it.
#
#   hack/gitops/pipeline.sh [OPTIONS] REPO
#
#   REPO               git repository: a path (bare or a checkout) or a URL
#   --rev REV          commit, tag or branch to deploy (default: REPO's HEAD)
#   --path DIR         folder of the specs in the repository (default: .);
#                      its *.yaml / *.yml files, not recursively
#   --specs DIR        the store: a directory (with optional --state DIR) ...
#   --etcd URL[,URL]   ... or etcd (with optional --etcd-prefix P) ...
#   --kubeconfig FILE  ... or a Kubernetes API server: applied by kubectl
#                      with server-side apply and pruned through an
#                      ApplySet (a Secret --applyset NAME, default
#                      agentctl-gitops, in --namespace NS, default
#                      "default"); without any, agentctl's AGENTCTL_SPECS /
#                      AGENTCTL_ETCD
#   --wait TIMEOUT     then wait until every invocation of the commit is in a
#                      final phase (Succeeded, Failed, Cancelled); 90, 30s,
#                      10m, 1h
#   --gate '{JSONPATH}=VALUE'
#                      with --wait: every invocation that returned a JSON
#                      result (status.result.json: a spec with
#                      output.schema) must have VALUE there, e.g. a review's
#                      '{.status.result.json.verdict}=pass'
#   --dry-run          validate and diff only; change nothing
#   --agentctl PATH    the agentctl binary (default: $AGENTCTL, else PATH)
#
# Steps: check the commit out into a temporary directory (the commit, not a
# working tree, is what gets deployed); `agentctl validate` every spec, and
# stop before anything is applied when one is invalid; `agentctl diff`
# (printed) and `apply --prune --dry-run` (what would be pruned, and names
# that apply may not touch); `agentctl apply --prune`; with --wait, poll
# each invocation's phase. On an API server (--kubeconfig) the diff and
# apply steps are kubectl's: `kubectl apply --server-side --applyset
# --prune`, dry-run on the server first (docs/store-kube.md "GitOps"). The last line on stdout is the summary:
#
#   gitops: commit 1a2b3c4d5e6f specs=2 created=1 configured=0 unchanged=1
#           pruned=1 [succeeded=2 failed=0 running=0] result=ok
#
# (one line). Exit codes:
#   0  applied (with --wait: every invocation Succeeded); --dry-run: valid
#   1  a spec is invalid, or the folder holds none: nothing was applied
#   2  usage, or the repository or revision cannot be checked out
#   3  diff, apply or prune failed (store unreachable, a name held by a
#      hand-written spec, ...); apply writes all or nothing per its own
#      rules, prune may have been partial
#   4  --wait: an invocation ended Failed or Cancelled
#   5  --wait: the timeout passed before every invocation finished
#   6  --gate: an invocation's result does not say VALUE (a review that did
#      not pass): the commit's runs succeeded, its verdict did not
#
# Needs git and jq. Run one pipeline per store at a time (a CI concurrency
# group): two commits applied at once would race, each apply is atomic but
# the later commit must be applied last.
set -uo pipefail

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'
    exit "${1:-2}"
}
die() {
    echo "pipeline: $2" >&2
    exit "$1"
}

REPO='' REV=HEAD SUBDIR=. WAIT='' DRY=0 STORE=() GATE='' KUBE='' APPLYSET=agentctl-gitops KUBE_NS=default

AGENTCTL_BIN=${AGENTCTL:-agentctl}
while [ $# -gt 0 ]; do
    case $1 in
    --rev | --path | --specs | --state | --etcd | --etcd-prefix | --wait | --agentctl | --gate | \
        --kubeconfig | --applyset | --namespace)
        [ $# -ge 2 ] || die 2 "$1 needs a value"
        case $1 in
        --rev) REV=$2 ;;
        --path) SUBDIR=$2 ;;
        --wait) WAIT=$2 ;;
        --gate) GATE=$2 ;;
        --agentctl) AGENTCTL_BIN=$2 ;;
        --applyset) APPLYSET=$2 ;;
        --namespace) KUBE_NS=$2 ;;
        --kubeconfig) KUBE=$2 && STORE+=("$1" "$2") ;;
        *) STORE+=("$1" "$2") ;;
        esac
        shift 2
        ;;
    --dry-run) DRY=1 && shift ;;
    -h | --help) usage 0 ;;
    -*) die 2 "unknown option $1 (see --help)" ;;
    *)
        [ -z "$REPO" ] || die 2 "one repository only (got $REPO and $1)"
        REPO=$1 && shift
        ;;
    esac
done
[ -n "$REPO" ] || die 2 "no repository given (see --help)"
command -v git >/dev/null || die 2 "git is not installed"
command -v jq >/dev/null || die 2 "jq is not installed"
command -v "$AGENTCTL_BIN" >/dev/null || die 2 "agentctl not found ($AGENTCTL_BIN)"
case $SUBDIR in /* | ../* | */../* | ..) die 2 "--path must stay inside the repository" ;; esac

# wait_seconds D: "90", "30s", "10m", "1h" -> seconds.
wait_seconds() {
    case $1 in
    *[!0-9smh]* | "") return 1 ;;
    *h) echo $((${1%h} * 3600)) ;;
    *m) echo $((${1%m} * 60)) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
    esac
}
case $GATE in
'') ;;
'{'*'}='?*) [ -n "$WAIT" ] || die 2 "--gate needs --wait" ;;
*) die 2 "bad --gate $GATE (want '{.status.result.json.verdict}=pass')" ;;
esac
if [ -n "$WAIT" ]; then
    WAIT_S=$(wait_seconds "$WAIT") || die 2 "bad --wait $WAIT (90, 30s, 10m, 1h)"
fi

actl() { "$AGENTCTL_BIN" "${STORE[@]}" "$@"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-gitops.XXXXXX") || die 2 "mktemp failed"
trap 'rm -rf "$WORK"' EXIT

# 1. the commit, checked out on its own (never the caller's working tree)
git clone --quiet --no-checkout -- "$REPO" "$WORK/src" 2>"$WORK/git.err" ||
    die 2 "cannot clone $REPO: $(tail -n 1 "$WORK/git.err")"
# a commit, a tag, or a branch of REPO (origin/<branch> in the clone)
COMMIT=$(git -C "$WORK/src" rev-parse --verify -q "$REV^{commit}" ||
    git -C "$WORK/src" rev-parse --verify -q "origin/$REV^{commit}") ||
    die 2 "no commit, tag or branch $REV in $REPO"
git -C "$WORK/src" -c advice.detachedHead=false checkout --quiet --detach \
    "$COMMIT" 2>"$WORK/git.err" ||
    die 2 "cannot check out $REV: $(tail -n 1 "$WORK/git.err")"
DIR=$WORK/src/$SUBDIR
[ -d "$DIR" ] || die 1 "commit ${COMMIT:0:12} has no folder $SUBDIR: nothing applied"
echo "pipeline: commit $COMMIT, specs in $SUBDIR"

summary() { # RESULT [EXTRA]
    echo "gitops: commit ${COMMIT:0:12} specs=${NSPECS:-0}" \
        "created=${N_CREATE:-0} configured=${N_UPDATE:-0}" \
        "unchanged=${N_SAME:-0} pruned=${N_PRUNED:-0}${2:+ $2} result=$1"
}

# 2. validate: an invalid spec stops the pipeline before any write
VJSON=$(actl validate -o json -f "$DIR")
vrc=$?
case $vrc in
0) ;;
1)
    summary invalid
    exit 1
    ;;
*) die 2 "agentctl validate failed (exit $vrc)" ;;
esac
mapfile -t NAMES < <(jq -r '.files[].names[]' <<<"$VJSON")
NSPECS=${#NAMES[@]}
if [ "$NSPECS" -eq 0 ]; then
    echo "pipeline: no specs in $SUBDIR; refusing to prune everything" >&2
    summary invalid
    exit 1
fi

# 3-4 through agentctl: diff, then apply --prune (dry run first)
deploy_agentctl() {
    local drc arc
    # 3. diff: what will change (0 same, 1 different, 2 error)
    DJSON=$(actl diff -o json -f "$DIR")
    drc=$?
    [ "$drc" -le 1 ] || { summary error && exit 3; }
    jq -j '.items[] | select(.action != "none") | .diff' <<<"$DJSON"
    N_CREATE=$(jq '[.items[] | select(.action == "create")] | length' <<<"$DJSON")
    N_UPDATE=$(jq '[.items[] | select(.action == "update")] | length' <<<"$DJSON")
    N_SAME=$(jq '[.items[] | select(.action == "none")] | length' <<<"$DJSON")
    # apply's own plan: what prune would remove, and names apply may not touch
    PLAN=$(actl apply --prune --all --dry-run -f "$DIR") || { summary error && exit 3; }
    N_PRUNED=$(grep -c ' pruned (dry run)$' <<<"$PLAN")
    sed -n 's|^.*/\(.*\) pruned (dry run)$|pipeline: will prune \1|p' <<<"$PLAN"
    if [ "$DRY" -eq 1 ]; then
        summary dry-run
        exit 0
    fi

    # 4. apply --prune
    OUT=$(actl apply --prune --all -f "$DIR")
    arc=$?
    printf '%s\n' "$OUT"
    N_PRUNED=$(grep -c ' pruned$' <<<"$OUT")
    [ "$arc" -eq 0 ] || { summary apply-failed && exit 3; }
}
if [ -n "$KUBE" ]; then
    # kubectl's server-side apply and ApplySet prune instead
    source "$(dirname "$0")/pipeline_kube.sh"
    deploy_kube
else
    deploy_agentctl
fi
if [ -z "$WAIT" ]; then
    summary ok
    exit 0
fi

# gate COUNTS: every invocation with a JSON result says the gate's value
# there (exit 6 otherwise); the others (no schema, no result) pass it.
gate() {
    local n got gated=0 failed=0 tmpl=${GATE%\}=*}} want=${GATE#*\}=}
    for n in "${NAMES[@]}"; do
        actl get "$n" -o json 2>/dev/null |
            jq -e '.status.result.json != null' >/dev/null || continue
        gated=$((gated + 1))
        got=$(actl get "$n" -o "jsonpath=$tmpl" 2>/dev/null)
        if [ "$got" != "$want" ]; then
            failed=$((failed + 1))
            echo "pipeline: $n: $tmpl is \"$got\", not \"$want\"" >&2
        fi
    done
    [ "$failed" -eq 0 ] && return 0
    summary gate-failed "$1 gated=$gated gate-failed=$failed"
    exit 6
}

# 5. wait for a final phase of every invocation of the commit
end=$((SECONDS + WAIT_S))
declare -A SAID=() # names whose failure was reported
while :; do
    ok=0 bad=0 running=0
    for n in "${NAMES[@]}"; do
        phase=$(actl get "$n" -o json 2>/dev/null | jq -r '.status.phase // ""')
        case $phase in
        Succeeded) ok=$((ok + 1)) ;;
        Failed | Cancelled)
            bad=$((bad + 1))
            [ -n "${SAID[$n]:-}" ] || echo "pipeline: $n ended $phase" >&2
            SAID[$n]=1
            ;;
        *) running=$((running + 1)) ;;
        esac
    done
    counts="succeeded=$ok failed=$bad running=$running"
    if [ "$running" -eq 0 ]; then
        [ "$bad" -eq 0 ] && [ -n "$GATE" ] && gate "$counts"
        [ "$bad" -eq 0 ] && { summary ok "$counts" && exit 0; }
        summary failed "$counts"
        exit 4
    fi
    [ "$SECONDS" -lt "$end" ] || { summary timeout "$counts" && exit 5; }
    sleep 1
done
